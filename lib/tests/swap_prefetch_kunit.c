// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for swap prefetch: the tracker (per-CPU chunks of swapped-out
 * offsets, newest first, recycled oldest first at the cap), its
 * trylock-and-skip rule, and the idle policy.  Every case works on private
 * instances and plain snapshots, never on kprefetchd's global state.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/page_counter.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/swap_prefetch.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define SLOTS	SWAP_PREFETCH_CHUNK_SLOTS

/* While set, owner_racing() records into this tracker: see there. */
static struct swap_prefetch_tracker *racing_tracker;
static unsigned long racing_off;

static struct swap_prefetch_tracker *new_tracker(struct kunit *test,
						 unsigned long max_chunks)
{
	struct swap_prefetch_shard __percpu *shards;
	struct swap_prefetch_tracker *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	/* Two nodes: node 1 is only ever a number to the tracker. */
	shards = swap_prefetch_shards_alloc(2);
	KUNIT_ASSERT_NOT_NULL(test, shards);
	swap_prefetch_tracker_init(t, shards, 2, max_chunks);
	test->priv = t;
	return t;
}

/* Gives every chunk back, and checks that none is left over. */
static void swap_prefetch_tracker_exit(struct kunit *test)
{
	struct swap_prefetch_tracker *t = test->priv;

	racing_tracker = NULL;
	if (!t)
		return;
	swap_prefetch_tracker_purge(t, -1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
	free_percpu(t->shards);
}

/* The shard of the @n-th possible CPU, or NULL if there are fewer. */
static struct swap_prefetch_shard *shard_nr(struct swap_prefetch_tracker *t,
					    unsigned int n)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!n--)
			return per_cpu_ptr(t->shards, cpu);
	return NULL;
}

static long add(struct swap_prefetch_tracker *t, unsigned int shard,
		int type, pgoff_t offset, unsigned long nr)
{
	unsigned long recycled;
	bool wake;

	return swap_prefetch_tracker_add(t, shard_nr(t, shard),
					 swp_entry(type, offset), nr, 0, 0,
					 &recycled, &wake);
}

static void add_one(struct kunit *test, struct swap_prefetch_tracker *t,
		    pgoff_t offset)
{
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, offset, 1), 1L);
}

/* Pop everything (at most 16) and compare with @want, newest first. */
static void expect_order(struct kunit *test, struct swap_prefetch_tracker *t,
			 const pgoff_t *want, unsigned int nr)
{
	struct swap_prefetch_candidate got[16];
	unsigned long stale = 0;
	unsigned int i, n;

	n = swap_prefetch_tracker_pop(t, got, ARRAY_SIZE(got), NULL, NULL, &stale);
	KUNIT_EXPECT_EQ(test, n, nr);
	for (i = 0; i < min(n, nr); i++)
		KUNIT_EXPECT_EQ_MSG(test, swp_offset(got[i].entry), want[i],
				    "position %u", i);
	/* Read to the end, the tracker gives its memory back. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->chunks));
}

/* A sieve for tests: offsets from DEAD_FROM on, and odd ones, are dead. */
#define DEAD_FROM	100000
static unsigned int odd_are_dead(unsigned int type, u32 *offsets,
				 unsigned int nr)
{
	unsigned int i, kept = 0;

	for (i = 0; i < nr; i++)
		if (offsets[i] < DEAD_FROM && !(offsets[i] & 1))
			offsets[kept++] = offsets[i];
	return kept;
}

static unsigned long vm_event(struct kunit *test, enum vm_event_item item)
{
	unsigned long *events;

	events = kunit_kcalloc(test, NR_VM_EVENT_ITEMS, sizeof(*events),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, events);
	all_vm_events(events);
	return events[item];
}

/* An empty tracker holds no memory: nothing is allocated before a record. */
static void swap_prefetch_test_tracker_empty(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate got[4];
	unsigned long counts[2], stale = 0;

	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, 4, NULL, NULL, &stale), 0U);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
	add_one(test, t, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 1L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, 4, NULL, NULL, &stale), 1U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
	KUNIT_EXPECT_EQ(test, stale, 0UL);
}

static void swap_prefetch_test_tracker_mru_order(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	static const pgoff_t want[] = { 5, 4, 3, 2, 1 };
	pgoff_t off;

	for (off = 1; off <= 5; off++)
		add_one(test, t, off);
	expect_order(test, t, want, ARRAY_SIZE(want));
}

/* Newest first across chunks, and each chunk freed once read. */
static void swap_prefetch_test_tracker_chunk_boundary(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate *got;
	unsigned long stale = 0;
	unsigned int i, n;

	got = kunit_kcalloc(test, SLOTS + 10, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, SLOTS + 10), (long)SLOTS + 10);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 2L);
	n = swap_prefetch_tracker_pop(t, got, 20, NULL, NULL, &stale);
	KUNIT_ASSERT_EQ(test, n, 20U);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry),
				(pgoff_t)SLOTS + 9 - i);
	/* The newer chunk, its 10 entries read, is freed at once. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 1L);
	n = swap_prefetch_tracker_pop(t, got, SLOTS + 10, NULL, NULL, &stale);
	KUNIT_EXPECT_EQ(test, n, SLOTS - 10);
	KUNIT_EXPECT_EQ(test, swp_offset(got[n - 1].entry), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
}

/*
 * Past the cap the oldest entries go: kprefetchd trims from the old end
 * when asked, the newest are always kept, and memory never exceeds the cap.
 */
static void swap_prefetch_test_tracker_recycle_oldest(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 4);
	unsigned long total = 10 * SLOTS, off, trimmed = 0, stale = 0, dead = 0;
	struct swap_prefetch_candidate got[8];
	unsigned long recycled, counts[1];
	bool wake;

	for (off = 0; off < total; off++) {
		KUNIT_ASSERT_EQ(test,
				swap_prefetch_tracker_add(t, shard_nr(t, 0),
							  swp_entry(0, off), 1, 0, 0,
							  &recycled, &wake), 1L);
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 4L);
		/* kprefetchd, woken, trims at once. */
		if (test_bit(0, &t->trim))
			trimmed += swap_prefetch_tracker_trim(t, NULL, &dead);
		KUNIT_EXPECT_EQ(test, recycled, 0UL);
	}
	KUNIT_EXPECT_GT(test, trimmed, 0UL);
	KUNIT_EXPECT_EQ(test, dead, 0UL);
	/* Nothing lost on the way: what is left plus what was trimmed. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 1) + trimmed,
			total);
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_pop(t, got, 8, NULL, NULL, &stale), 8U);
	for (off = 0; off < 8; off++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[off].entry), total - 1 - off);
}

/*
 * With kprefetchd not there to trim, swap-out at the cap recycles its own
 * chunk rather than allocate past the cap, and says how much it dropped.
 */
static void swap_prefetch_test_tracker_cap_without_trim(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 1);
	static const pgoff_t want[] = { SLOTS + 4, SLOTS + 3, SLOTS + 2,
					SLOTS + 1, SLOTS };
	unsigned long recycled;
	bool wake;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, SLOTS), (long)SLOTS);
	KUNIT_EXPECT_EQ(test,
			swap_prefetch_tracker_add(t, shard_nr(t, 0),
						  swp_entry(0, SLOTS), 5, 0, 0,
						  &recycled, &wake), 5L);
	KUNIT_EXPECT_EQ(test, recycled, (unsigned long)SLOTS);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 1L);
	expect_order(test, t, want, ARRAY_SIZE(want));
}

/*
 * At the cap a record always asks kprefetchd for a trim, also when no new
 * chunk took the tracker there (a round put back what it popped) and after
 * a trim that left it there: otherwise swap-out recycles its newest records
 * while kprefetchd is never asked.
 */
static void swap_prefetch_test_tracker_cap_asks_trim(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 2);
	unsigned long recycled;
	bool wake;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 2 * SLOTS), (long)(2 * SLOTS));
	KUNIT_ASSERT_EQ(test, atomic_long_read(&t->nr_chunks), 2L);
	/* A trim ran and took the request, as kprefetchd does. */
	KUNIT_ASSERT_TRUE(test, test_and_clear_bit(0, &t->trim));
	KUNIT_EXPECT_EQ(test,
			swap_prefetch_tracker_add(t, shard_nr(t, 0),
						  swp_entry(0, 2 * SLOTS), 1, 0, 0,
						  &recycled, &wake), 1L);
	KUNIT_EXPECT_EQ(test, recycled, (unsigned long)SLOTS);
	KUNIT_EXPECT_TRUE(test, test_bit(0, &t->trim));
	KUNIT_EXPECT_TRUE(test, wake);
	/* Asked once: the next record at the cap does not wake again. */
	swap_prefetch_tracker_add(t, shard_nr(t, 0), swp_entry(0, 2 * SLOTS + 1),
				  1, 0, 0, &recycled, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
}

/* Stands in for swap_prefetch_chunk_alloc(): no page is free. */
static struct swap_prefetch_chunk *no_free_page(void)
{
	return NULL;
}

/*
 * Below the cap, a chunk page that cannot be had costs the records that
 * needed it, never those already made: swap-out fails to allocate just
 * when a job has filled memory, and dropping a chunk of older records for
 * each newer one lost the set that job pushed out.
 */
static void swap_prefetch_test_tracker_nomem_keeps_records(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	unsigned long recycled, counts[2], stale = 0, i;
	struct swap_prefetch_candidate got[8];
	bool wake;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 10), 10L);
	kunit_activate_static_stub(test, swap_prefetch_chunk_alloc,
				   no_free_page);
	/* Another device's entry needs a chunk of its own. */
	KUNIT_EXPECT_EQ(test,
			swap_prefetch_tracker_add(t, shard_nr(t, 0),
						  swp_entry(1, 7), 1, 0, 0,
						  &recycled, &wake), 0L);
	KUNIT_EXPECT_EQ(test, recycled, 0UL);
	/* The open chunk fills up; what does not fit is not recorded. */
	KUNIT_EXPECT_EQ(test,
			swap_prefetch_tracker_add(t, shard_nr(t, 0),
						  swp_entry(0, 10), SLOTS, 0, 0,
						  &recycled, &wake),
			(long)SLOTS - 10);
	KUNIT_EXPECT_EQ(test, recycled, 0UL);
	kunit_deactivate_static_stub(test, swap_prefetch_chunk_alloc);

	/* With memory again, recording goes on and nothing was lost. */
	KUNIT_EXPECT_EQ(test, add(t, 0, 0, 2 * SLOTS, 1), 1L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2),
			(unsigned long)SLOTS + 1);
	KUNIT_EXPECT_EQ(test, counts[1], 0UL);
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_pop(t, got, 8, NULL, NULL, &stale),
			8U);
	KUNIT_EXPECT_EQ(test, swp_offset(got[0].entry), (pgoff_t)2 * SLOTS);
	for (i = 1; i < 8; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry), SLOTS - i);
}

static void swap_prefetch_test_tracker_large_folio(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	static const pgoff_t want[] = { 107, 106, 105, 104, 103, 102, 101, 100,
					1 };

	add_one(test, t, 1);
	KUNIT_EXPECT_EQ(test, add(t, 0, 0, 100, 8), 8L);
	expect_order(test, t, want, ARRAY_SIZE(want));
}

/* Each chunk holds one swap type; the order across types is kept. */
static void swap_prefetch_test_tracker_types(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	static const unsigned int want_type[] = { 0, 1, 1, 0, 0 };
	static const pgoff_t want_off[] = { 7, 6, 5, 2, 1 };
	struct swap_prefetch_candidate got[8];
	unsigned long counts[3], stale = 0;
	unsigned int i, n;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 1, 2), 2L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 1, 5, 2), 2L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 7, 1), 1L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 3), 5UL);
	KUNIT_EXPECT_EQ(test, counts[0], 3UL);
	KUNIT_EXPECT_EQ(test, counts[1], 2UL);
	KUNIT_EXPECT_EQ(test, counts[2], 0UL);
	/* Types beyond the room given are counted in the total only. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 0), 5UL);
	n = swap_prefetch_tracker_pop(t, got, 8, NULL, NULL, &stale);
	KUNIT_ASSERT_EQ(test, n, 5U);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, swp_type(got[i].entry), want_type[i]);
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry), want_off[i]);
	}
}

/*
 * Nothing purged comes back: not from a collected chunk, not from a
 * shard's open chunk, not through an entry popped before the purge.  A
 * device that reuses the type starts from nothing and is tracked anew.
 */
static void swap_prefetch_test_tracker_purge(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate got[8], early;
	unsigned long counts[2], stale = 0;
	unsigned int n;

	KUNIT_ASSERT_EQ(test, add(t, 0, 1, 1, 3), 3L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 1, 2), 2L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 1, 10, 2), 2L);
	/* kprefetchd pops the newest, then swapoff purges type 1. */
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_pop(t, &early, 1, NULL, NULL, &stale), 1U);
	KUNIT_EXPECT_EQ(test, swp_type(early.entry), 1U);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_tracker_current(t, &early));
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_purge(t, 1), 4UL);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_tracker_current(t, &early));
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2), 2UL);
	KUNIT_EXPECT_EQ(test, counts[1], 0UL);
	/* A swapon reuses type 1: its offsets are new entries. */
	KUNIT_ASSERT_EQ(test, add(t, 0, 1, 1, 1), 1L);
	n = swap_prefetch_tracker_pop(t, got, 8, NULL, NULL, &stale);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, got[0].entry.val, swp_entry(1, 1).val);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_tracker_current(t, &got[0]));
	KUNIT_EXPECT_EQ(test, got[1].entry.val, swp_entry(0, 2).val);
	KUNIT_EXPECT_EQ(test, got[2].entry.val, swp_entry(0, 1).val);
	KUNIT_EXPECT_EQ(test, stale, 0UL);
	/* The last purge leaves no memory behind, open chunks included. */
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 50, 1), 1L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_purge(t, 0), 1UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
}

/*
 * kprefetchd sleeps without a timeout once the tracker holds no chunk, so
 * a record that gives it one must wake it, whatever the interleaving.
 */
static void swap_prefetch_test_tracker_record_wakes(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 4);
	struct swap_prefetch_candidate got[8];
	unsigned long recycled, stale = 0;
	bool wake, asleep = false;
	unsigned int step, shard;
	long added;
	u32 rnd = 1;

	/* The first record into an empty tracker wakes; the next does not. */
	added = swap_prefetch_tracker_add(t, shard_nr(t, 0), swp_entry(0, 1),
					  1, 0, 0, &recycled, &wake);
	KUNIT_EXPECT_EQ(test, added, 1L);
	KUNIT_EXPECT_TRUE(test, wake);
	added = swap_prefetch_tracker_add(t, shard_nr(t, 0), swp_entry(0, 2),
					  1, 0, 0, &recycled, &wake);
	KUNIT_EXPECT_EQ(test, added, 1L);
	KUNIT_EXPECT_FALSE(test, wake);

	/*
	 * Any mix of records on any shard, pops, trims and purges: a sleeper
	 * that went to sleep on an empty tracker and is woken only by the
	 * records that say so is never asleep while a chunk is there.
	 */
	for (step = 0; step < 2000; step++) {
		rnd = rnd * 1103515245 + 12345;
		shard = (rnd >> 8) % 2;
		if (!shard_nr(t, shard))
			shard = 0;
		switch ((rnd >> 16) % 4) {
		case 0:
		case 1:
			KUNIT_ASSERT_GE(test,
					swap_prefetch_tracker_add(t, shard_nr(t, shard),
								  swp_entry((rnd >> 2) % 2,
									    (rnd >> 4) % 4096),
								  (rnd >> 24) % 600 + 1, 0, 0,
								  &recycled, &wake),
					0L);
			if (wake)
				asleep = false;
			break;
		case 2:
			swap_prefetch_tracker_pop(t, got, (rnd >> 20) % 8 + 1, NULL, NULL, &stale);
			asleep = !atomic_long_read(&t->nr_chunks);
			break;
		default:
			if (rnd & 0x10000000)
				swap_prefetch_tracker_trim(t, odd_are_dead,
							   &stale);
			else
				swap_prefetch_tracker_purge(t, (rnd >> 3) % 2);
			asleep |= !atomic_long_read(&t->nr_chunks);
			break;
		}
		KUNIT_ASSERT_FALSE_MSG(test,
				       asleep && atomic_long_read(&t->nr_chunks),
				       "step %u: %ld chunks, nobody woken", step,
				       atomic_long_read(&t->nr_chunks));
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 4L);
	}
}

/*
 * A job that swaps and exits leaves dead entries, newer than a set that
 * is still out: past the cap the dead go first, and every live entry is
 * kept, in order, with memory within the cap.
 */
static void swap_prefetch_test_tracker_trim_dead_first(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 4);
	unsigned long off, dead = 0, recycled = 0, stale = 0;
	struct swap_prefetch_candidate *got;
	unsigned int i, n;

	got = kunit_kcalloc(test, SLOTS + 500, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	/* The set: 0, 2, ..., 998 live, the odd ones between them dead. */
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 1000), 1000L);
	/* Then 10 chunks' worth of dead entries, trimmed as kprefetchd would. */
	for (off = DEAD_FROM; off < DEAD_FROM + 10 * SLOTS; off++) {
		KUNIT_ASSERT_EQ(test, add(t, 0, 0, off, 1), 1L);
		if (test_bit(0, &t->trim))
			recycled += swap_prefetch_tracker_trim(t, odd_are_dead,
							       &dead);
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 4L);
	}
	KUNIT_EXPECT_EQ(test, recycled, 0UL);
	KUNIT_EXPECT_GT(test, dead, 0UL);
	/* The open chunk's dead entries, then all 500 live ones in order. */
	swap_prefetch_tracker_trim(t, odd_are_dead, &dead);
	n = swap_prefetch_tracker_pop(t, got, SLOTS + 500, NULL, NULL, &stale);
	for (i = 0; i < n && swp_offset(got[i].entry) >= DEAD_FROM; i++)
		;
	KUNIT_ASSERT_EQ(test, n - i, 500U);
	for (; i < n; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry),
				(pgoff_t)998 - 2 * (i - (n - 500)));
}

/*
 * After a busy period, the first read sifts the whole tracker: a job's
 * dead entries, newest and spread over several chunks, are gone, the
 * live ones remain in order, packed into fewer chunks.
 */
static void swap_prefetch_test_tracker_sift(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	static const pgoff_t want[] = { 8, 6, 4, 2, 0 };

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 10), 10L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, DEAD_FROM, 3L * SLOTS),
			3L * SLOTS);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 4L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_sift(t, odd_are_dead),
			3UL * SLOTS + 5);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 1L);
	expect_order(test, t, want, ARRAY_SIZE(want));
}

/* The node the test entry at @off is recorded from: runs of 100 a node. */
static int run_nid(pgoff_t off)
{
	return (off / 100) % 2;
}

/*
 * Pop @t with @nodes in slices until it gives nothing; every entry must
 * come back with the node it was recorded from, be one of @want_nid's,
 * and come newest first.  Returns how many came back.
 */
static unsigned int pop_node(struct kunit *test, struct swap_prefetch_tracker *t,
			     const nodemask_t *nodes, int want_nid)
{
	struct swap_prefetch_candidate got[16];
	unsigned long stale = 0, prev = ULONG_MAX;
	unsigned int i, n, total = 0;

	while ((n = swap_prefetch_tracker_pop(t, got, ARRAY_SIZE(got), nodes, NULL,
					      &stale))) {
		for (i = 0; i < n; i++) {
			pgoff_t off = swp_offset(got[i].entry);

			KUNIT_EXPECT_EQ(test, got[i].nid, run_nid(off));
			KUNIT_EXPECT_EQ(test, got[i].nid, want_nid);
			KUNIT_EXPECT_LT(test, off, prev);
			prev = off;
		}
		total += n;
	}
	KUNIT_EXPECT_EQ(test, stale, 0UL);
	return total;
}

/*
 * Pages go back to the node they were swapped out from; records that
 * alternate between nodes, as two nodes' kswapd on one CPU make them,
 * still fill whole chunks; and a node short of memory holds back only
 * its own entries: a pop for node 1 takes node
 * 1's entries alone, newest first, and leaves node 0's in place, in
 * order, for a later pop - also after a sift has packed the chunks.
 */
static void swap_prefetch_test_tracker_nodes(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 64);
	nodemask_t node1 = nodemask_of_node(1);
	unsigned long recycled;
	pgoff_t off;
	bool wake;

	if (MAX_NUMNODES < 2)
		kunit_skip(test, "needs CONFIG_NUMA");
	for (off = 0; off < 3000; off++)
		KUNIT_ASSERT_EQ(test,
				swap_prefetch_tracker_add(t, shard_nr(t, 0),
							  swp_entry(0, off), 1,
							  run_nid(off), 0,
							  &recycled, &wake),
				1L);
	/* Interleaved, each node fills whole chunks: 1500 fit in two. */
	KUNIT_EXPECT_LE(test, atomic_long_read(&t->nr_chunks), 4L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_sift(t, odd_are_dead),
			1500UL);
	KUNIT_EXPECT_EQ(test, pop_node(test, t, &node1, 1), 750U);
	KUNIT_EXPECT_GT(test, atomic_long_read(&t->nr_chunks), 0L);
	KUNIT_EXPECT_EQ(test, pop_node(test, t, NULL, 0), 750U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
}

/*
 * The group the test entry at @off is charged to: runs of 50 of groups 7
 * and 9 in turn, then from offset 1000 on group 11.
 */
static unsigned short run_group(pgoff_t off)
{
	if (off >= 1000)
		return 11;
	return (off / 50) % 2 ? 9 : 7;
}

/*
 * Pop @t in slices, passing over the groups in @held, until it gives
 * nothing; every entry must come back with the group it was recorded
 * from, not one of @held, and newest first.  Returns how many came back.
 */
static unsigned int pop_groups(struct kunit *test,
			       struct swap_prefetch_tracker *t,
			       const struct swap_prefetch_groups *held)
{
	struct swap_prefetch_candidate got[16];
	unsigned long stale = 0, prev = ULONG_MAX;
	unsigned int i, j, n, total = 0;

	while ((n = swap_prefetch_tracker_pop(t, got, ARRAY_SIZE(got), NULL,
					      held, &stale))) {
		for (i = 0; i < n; i++) {
			pgoff_t off = swp_offset(got[i].entry);

			KUNIT_EXPECT_EQ(test, got[i].memcg, run_group(off));
			for (j = 0; held && j < held->nr; j++)
				KUNIT_EXPECT_NE(test, got[i].memcg, held->id[j]);
			KUNIT_EXPECT_LT(test, off, prev);
			prev = off;
		}
		total += n;
	}
	KUNIT_EXPECT_EQ(test, stale, 0UL);
	return total;
}

/*
 * A memory cgroup without room holds back its own entries, as a node
 * does: each chunk holds one group's entries, a pop that passes over
 * group 9 takes the others' alone, newest first, and leaves group 9's in
 * place, in order; entries put back keep their group.  Reclaim that goes
 * from one group to another and back fills whole chunks; a third group
 * leaves a part-filled one, which a sift packs.
 */
static void swap_prefetch_test_tracker_groups(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 64);
	struct swap_prefetch_groups held = { };
	struct swap_prefetch_candidate got[4];
	unsigned long recycled, stale = 0;
	pgoff_t off;
	bool wake;

	for (off = 0; off < 1050; off++) {
		KUNIT_ASSERT_EQ(test,
				swap_prefetch_tracker_add(t, shard_nr(t, 0),
							  swp_entry(0, off), 1,
							  0, run_group(off),
							  &recycled, &wake),
				1L);
		/* Groups 7 and 9 in turn fill two chunks. */
		if (off == 999)
			KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks),
					2L);
	}
	/* Group 11 takes a third. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 3L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_sift(t, odd_are_dead),
			525UL);
	KUNIT_EXPECT_LE(test, atomic_long_read(&t->nr_chunks), 3L);
	/* Put back, an entry keeps its group. */
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_pop(t, got, 4, NULL, NULL,
							&stale), 4U);
	KUNIT_EXPECT_EQ(test, got[0].memcg, run_group(swp_offset(got[0].entry)));
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_unpop(t, got, 4, &stale),
			0U);
	KUNIT_ASSERT_TRUE(test, swap_prefetch_groups_add(&held, 9));
	KUNIT_EXPECT_EQ(test, pop_groups(test, t, &held), 275U);
	KUNIT_EXPECT_GT(test, atomic_long_read(&t->nr_chunks), 0L);
	KUNIT_EXPECT_EQ(test, pop_groups(test, t, NULL), 250U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
}

/* A round notes each group without room once, and as many as it has room for. */
static void swap_prefetch_test_groups_add(struct kunit *test)
{
	struct swap_prefetch_groups g = { };
	unsigned short id;

	for (id = 1; id <= SWAP_PREFETCH_HELD_GROUPS; id++) {
		KUNIT_EXPECT_TRUE(test, swap_prefetch_groups_add(&g, id));
		KUNIT_EXPECT_TRUE(test, swap_prefetch_groups_add(&g, id));
	}
	KUNIT_EXPECT_EQ(test, g.nr, SWAP_PREFETCH_HELD_GROUPS);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_groups_add(&g, id));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_groups_add(&g, 1));
	KUNIT_EXPECT_EQ(test, g.nr, SWAP_PREFETCH_HELD_GROUPS);
}

struct fair_case {
	const char *desc;
	unsigned int counts[4];
	unsigned long keep;
	unsigned int level;
};

static const struct fair_case fair_cases[] = {
	/* 100 + 2 L = 900: the two larger groups share what is left. */
	{ "small group whole, larger ones even", { 100, 500, 1000 }, 900, 400 },
	{ "all fit", { 100, 500, 1000 }, 1600, 1000 },
	{ "more room than entries", { 100, 500, 1000 }, 5000, 1000 },
	{ "one over by one", { 100, 500, 1000 }, 1599, 999 },
	{ "equal groups split evenly", { 300, 300, 300 }, 600, 200 },
	{ "storm beside a set", { 8192, 48000 }, 40000, 31808 },
	{ "no room", { 10, 20 }, 0, 0 },
	{ "no entries", { 0, 0 }, 100, 0 },
};

KUNIT_ARRAY_PARAM_DESC(fair, fair_cases, desc);

static unsigned long sum_under(const unsigned int *counts, unsigned int nr,
			       unsigned int level)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		sum += min(counts[i], level);
	return sum;
}

/*
 * The fair share: what the groups keep fits in the room, one more each
 * would not (unless every group keeps all), and a group under the level
 * keeps everything.
 */
static void swap_prefetch_test_fair_level(struct kunit *test)
{
	const struct fair_case *c = test->param_value;
	unsigned int nr = ARRAY_SIZE(c->counts), max = 0, level, i;

	level = swap_prefetch_fair_level(c->counts, nr, c->keep);
	KUNIT_EXPECT_EQ(test, level, c->level);
	KUNIT_EXPECT_LE(test, sum_under(c->counts, nr, level), c->keep);
	for (i = 0; i < nr; i++)
		max = max(max, c->counts[i]);
	if (level < max)
		KUNIT_EXPECT_GT(test, sum_under(c->counts, nr, level + 1),
				c->keep);
	else
		KUNIT_EXPECT_EQ(test, level, max);
}

/*
 * Owners for the fair trim: a small group (7) swapped out first, then a
 * storm of another group (9) from STORM_FROM on.
 */
#define STORM_FROM	50000
static bool owner_by_range(unsigned int type, const u32 *offsets,
			   unsigned int nr, unsigned short *ids)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ids[i] = offsets[i] < STORM_FROM ? 7 : 9;
	return true;
}

/* Everything is one group's: a fair trim is then an oldest-first trim. */
static bool owner_all_one(unsigned int type, const u32 *offsets,
			  unsigned int nr, unsigned short *ids)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ids[i] = 1;
	return true;
}

/* A group every four offsets: more groups than a trim's table holds. */
static bool owner_per_four(unsigned int type, const u32 *offsets,
			   unsigned int nr, unsigned short *ids)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ids[i] = offsets[i] / 4;
	return true;
}

/*
 * Record 500 entries of the small group, then @storm of the storm's,
 * trimming whenever kprefetchd would be woken; memory stays within the
 * cap throughout.  Pops everything into @got (newest first) and returns
 * how many came back; *@small how many of the small group's.
 */
static unsigned int small_then_storm(struct kunit *test,
				     struct swap_prefetch_tracker *t,
				     unsigned long storm,
				     struct swap_prefetch_candidate *got,
				     unsigned int max, unsigned int *small)
{
	unsigned long off, dead = 0, stale = 0, trimmed = 0;
	unsigned int i, n;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 500), 500L);
	for (off = STORM_FROM; off < STORM_FROM + storm; off++) {
		KUNIT_ASSERT_EQ(test, add(t, 0, 0, off, 1), 1L);
		if (test_bit(0, &t->trim))
			trimmed += swap_prefetch_tracker_trim(t, NULL, &dead);
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks),
				(long)t->max_chunks);
	}
	KUNIT_EXPECT_GT(test, trimmed, 0UL);
	n = swap_prefetch_tracker_pop(t, got, max, NULL, NULL, &stale);
	/* Nothing lost on the way: what came back plus what was trimmed. */
	KUNIT_EXPECT_EQ(test, n + trimmed, 500 + storm);
	for (*small = 0, i = 0; i < n; i++)
		*small += swp_offset(got[i].entry) < STORM_FROM;
	return n;
}

/*
 * One group's swap storm must not push out another group's entries: at
 * the cap, the storm loses its own oldest, the small group keeps all of
 * its 500, and what is left of each comes newest first, without a gap.
 */
static void swap_prefetch_test_tracker_trim_fair(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	unsigned long storm = 20 * SLOTS;
	struct swap_prefetch_candidate *got;
	unsigned int i, n, small;

	got = kunit_kcalloc(test, 8 * SLOTS, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	t->owners = owner_by_range;
	n = small_then_storm(test, t, storm, got, 8 * SLOTS, &small);
	KUNIT_EXPECT_EQ(test, small, 500U);
	/* The storm's newest, consecutive, then the small group's, in order. */
	for (i = 0; i < n - 500; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry),
				(pgoff_t)(STORM_FROM + storm - 1 - i));
	for (; i < n; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry),
				(pgoff_t)(n - 1 - i));
}

/*
 * The same storm with one owner for all, and with no owners at all: the
 * oldest go, so the small group, swapped out first, is gone.
 */
static void swap_prefetch_test_tracker_trim_one_owner(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate *got;
	unsigned int n, small;

	got = kunit_kcalloc(test, 8 * SLOTS, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	t->owners = owner_all_one;
	n = small_then_storm(test, t, 20 * SLOTS, got, 8 * SLOTS, &small);
	KUNIT_EXPECT_EQ(test, small, 0U);
	KUNIT_EXPECT_EQ(test, swp_offset(got[0].entry),
			(pgoff_t)(STORM_FROM + 20 * SLOTS - 1));
	KUNIT_EXPECT_GT(test, n, 0U);
	t->owners = NULL;
	n = small_then_storm(test, t, 20 * SLOTS, got, 8 * SLOTS, &small);
	KUNIT_EXPECT_EQ(test, small, 0U);
	KUNIT_EXPECT_GT(test, n, 0U);
}

/*
 * A small group whose swap-out was interleaved with a storm: every 16th
 * entry is the small group's (7), the rest the storm's (9).
 */
static bool owner_every_16th(unsigned int type, const u32 *offsets,
			     unsigned int nr, unsigned short *ids)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ids[i] = offsets[i] % 16 ? 9 : 7;
	return true;
}

/*
 * The usual case: reclaim pushes a set out while it pushes out the storm
 * that made it reclaim, on two nodes, so the set's entries are spread
 * thinly over chunks of both nodes in turn.  Cutting the storm leaves
 * those chunks nearly empty; the trim must pack each node's remains
 * together rather than drop them as the oldest chunks: the small group
 * keeps every entry, and the cap holds.
 */
static void swap_prefetch_test_tracker_trim_fair_interleaved(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	unsigned long off, dead = 0, stale = 0, recycled, trims = 0;
	const unsigned long storm = 20 * SLOTS;
	struct swap_prefetch_candidate *got;
	unsigned int i, n, small = 0;
	bool wake;

	got = kunit_kcalloc(test, 8 * SLOTS, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	t->owners = owner_every_16th;
	for (off = 0; off < storm; off++) {
		/* Runs of 64 on each node in turn. */
		KUNIT_ASSERT_EQ(test,
				swap_prefetch_tracker_add(t, shard_nr(t, 0),
							  swp_entry(0, off), 1,
							  (off / 64) % 2, 0,
							  &recycled, &wake),
				1L);
		if (test_bit(0, &t->trim)) {
			swap_prefetch_tracker_trim(t, NULL, &dead);
			trims++;
		}
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 8L);
	}
	KUNIT_EXPECT_GT(test, trims, 0UL);
	n = swap_prefetch_tracker_pop(t, got, 8 * SLOTS, NULL, NULL, &stale);
	for (i = 0; i < n; i++)
		small += swp_offset(got[i].entry) % 16 == 0;
	KUNIT_EXPECT_EQ(test, small, (unsigned int)DIV_ROUND_UP(storm, 16));
}

/*
 * Reclaim does not wait for a trim: swap-out goes on recording while
 * kprefetchd holds the tracker's lock.  owner_racing() answers as
 * owner_by_range(), and each time a trim asks it, records a quarter
 * chunk more of the storm into racing_tracker, as reclaim on another
 * CPU would.
 */
static bool owner_racing(unsigned int type, const u32 *offsets,
			 unsigned int nr, unsigned short *ids)
{
	unsigned long recycled;
	bool wake;

	if (racing_tracker) {
		swap_prefetch_tracker_add(racing_tracker,
					  shard_nr(racing_tracker, 0),
					  swp_entry(0, racing_off), SLOTS / 4,
					  0, 0, &recycled, &wake);
		racing_off += SLOTS / 4;
	}
	return owner_by_range(type, offsets, nr, ids);
}

/*
 * A storm that goes on recording while each trim runs: the chunks it
 * fills meanwhile are the storm's too, and must not make the trim take
 * the small group's entries, the oldest, to get below its target.  The
 * cap holds all the same.
 */
static void swap_prefetch_test_tracker_trim_fair_racing(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	unsigned long dead = 0, stale = 0, trims = 0;
	struct swap_prefetch_candidate *got;
	unsigned int i, n, small = 0;

	got = kunit_kcalloc(test, 8 * SLOTS, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	t->owners = owner_racing;
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 500), 500L);
	for (racing_off = STORM_FROM; racing_off < STORM_FROM + 20 * SLOTS;
	     racing_off++) {
		KUNIT_ASSERT_EQ(test, add(t, 0, 0, racing_off, 1), 1L);
		if (!test_bit(0, &t->trim))
			continue;
		racing_tracker = t;
		swap_prefetch_tracker_trim(t, NULL, &dead);
		racing_tracker = NULL;
		trims++;
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 8L);
	}
	KUNIT_EXPECT_GT(test, trims, 0UL);
	n = swap_prefetch_tracker_pop(t, got, 8 * SLOTS, NULL, NULL, &stale);
	for (i = 0; i < n; i++)
		small += swp_offset(got[i].entry) < STORM_FROM;
	KUNIT_EXPECT_EQ(test, small, 500U);
}

/*
 * More groups than a trim can tell apart (a group every four offsets):
 * the latecomers are cut as one, and the cap and the newest entries are
 * still kept.
 */
static void swap_prefetch_test_tracker_trim_many_groups(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 4);
	unsigned long off, dead = 0, stale = 0;
	struct swap_prefetch_candidate got[4];
	unsigned int i;

	t->owners = owner_per_four;
	for (off = 0; off < 12 * SLOTS; off++) {
		KUNIT_ASSERT_EQ(test, add(t, 0, 0, off, 1), 1L);
		if (test_bit(0, &t->trim))
			swap_prefetch_tracker_trim(t, NULL, &dead);
		KUNIT_ASSERT_LE(test, atomic_long_read(&t->nr_chunks), 4L);
	}
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_pop(t, got, 4, NULL, NULL, &stale),
			4U);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, swp_offset(got[i].entry),
				(pgoff_t)(12 * SLOTS - 1 - i));
}

/*
 * A record that the cap refuses, on a shard with no chunk of its own to
 * start over, is lost to the cap, not to a lack of memory.
 */
static void swap_prefetch_test_tracker_cap_counts_recycled(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 1);
	unsigned long nomem = vm_event(test, SWAP_PREFETCH_NOMEM_PAGES);
	unsigned long recycled = vm_event(test, SWAP_PREFETCH_RECYCLED_PAGES);

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 3), 3L);
	/* Node 1 has no open chunk, and the cap allows no second one. */
	swap_prefetch_tracker_record(t, shard_nr(t, 0), swp_entry(0, 100), 2, 1, 0);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_NOMEM_PAGES), nomem);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_RECYCLED_PAGES),
			recycled + 2);
}

/*
 * What a round popped and did not read goes back as the newest, in the
 * order it was popped, and nothing is lost or duplicated: entries read
 * plus entries still tracked are the entries recorded.  Entries of a
 * device purged meanwhile do not come back.
 */
static void swap_prefetch_test_tracker_unpop(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate got[32], again[32];
	unsigned long counts[2], stale = 0;
	unsigned int i, n;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 100), 100L);
	KUNIT_ASSERT_EQ(test, add(t, 0, 1, 500, 4), 4L);
	n = swap_prefetch_tracker_pop(t, got, ARRAY_SIZE(got), NULL, NULL, &stale);
	KUNIT_ASSERT_EQ(test, n, 32U);
	/* Read the first 12; the 13th fails and the rest goes back. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_unpop(t, got + 12, n - 12,
							  &stale), 0U);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2),
			104UL - 12);
	n = swap_prefetch_tracker_pop(t, again, n - 12, NULL, NULL, &stale);
	KUNIT_ASSERT_EQ(test, n, 20U);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, again[i].entry.val, got[12 + i].entry.val,
				    "position %u", i);
	/* Given back after its device was purged: dropped as stale. */
	swap_prefetch_tracker_purge(t, 0);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_unpop(t, again, n, &stale),
			0U);
	KUNIT_EXPECT_EQ(test, stale, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2), 0UL);
}

/*
 * Switched off, the tracker holds nothing and takes nothing, even from a
 * reclaimer that passed the static key before it was switched: "off
 * means off".
 */
static void swap_prefetch_test_tracker_stop(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 10), 10L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_stop(t), 10UL);
	KUNIT_EXPECT_EQ(test, add(t, 0, 0, 10, 10), 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&t->nr_chunks), 0L);
}

/* What the walk tests see: breathing points, and entries between two. */
static unsigned long walk_breaths, walk_seen, walk_most, walk_total;

static void breathe_counting(struct swap_prefetch_tracker *t)
{
	walk_most = max(walk_most, walk_seen);
	walk_seen = 0;
	walk_breaths++;
	cond_resched();
}

/* The most entries seen between two breathing points so far. */
static unsigned long walk_most_between(void)
{
	return max(walk_most, walk_seen);
}

static void walk_counts_reset(void)
{
	walk_breaths = 0;
	walk_seen = 0;
	walk_most = 0;
	walk_total = 0;
}

/* Keeps every entry, and counts them as seen. */
static unsigned int sieve_counting(unsigned int type, u32 *offsets,
				   unsigned int nr)
{
	walk_seen += nr;
	walk_total += nr;
	return nr;
}

/* Ten groups by offset, and counts the entries as seen. */
static bool owners_counting(unsigned int type, const u32 *offsets,
			    unsigned int nr, unsigned short *ids)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ids[i] = 1 + offsets[i] / 100000;
	walk_seen += nr;
	walk_total += nr;
	return true;
}

#define WALK_ENTRIES	1000000UL

/*
 * At the cap the tracker holds about one entry per page of RAM.  Each of
 * its walks - the sift, the fair trim, the pop that passes a short node's
 * chunks, the count - must reach a point where it may reschedule after
 * each chunk: at most one chunk's entries are handled between two such
 * points, and there is one per chunk.  Here with a million entries; the
 * time each walk takes is printed, not checked.
 */
static void swap_prefetch_test_tracker_walks_breathe(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 2 * WALK_ENTRIES / SLOTS);
	struct swap_prefetch_candidate got[4];
	unsigned long entries = DIV_ROUND_UP(WALK_ENTRIES, SLOTS) * SLOTS;
	unsigned long off, chunks, counts[2], dead = 0, stale = 0;
	nodemask_t none = NODE_MASK_NONE;
	ktime_t start;

	for (off = 0; off < WALK_ENTRIES; off += SLOTS)
		KUNIT_ASSERT_EQ(test, add(t, 0, 0, off, SLOTS), (long)SLOTS);
	chunks = atomic_long_read(&t->nr_chunks);
	kunit_activate_static_stub(test, swap_prefetch_tracker_breathe,
				   breathe_counting);

	walk_counts_reset();
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_sift(t, sieve_counting), 0UL);
	kunit_info(test, "sift of %lu entries: %lld us\n", entries,
		   ktime_us_delta(ktime_get(), start));
	KUNIT_EXPECT_EQ(test, walk_total, entries);
	KUNIT_EXPECT_LE(test, walk_most_between(), (unsigned long)SLOTS);
	KUNIT_EXPECT_GE(test, walk_breaths, chunks);

	walk_counts_reset();
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 2),
			entries);
	kunit_info(test, "count: %lld us\n", ktime_us_delta(ktime_get(), start));
	KUNIT_EXPECT_GE(test, walk_breaths, chunks);

	/* A pop for no node passes every chunk and takes nothing. */
	walk_counts_reset();
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, ARRAY_SIZE(got),
							&none, NULL, &stale), 0U);
	kunit_info(test, "pop past every chunk: %lld us\n",
		   ktime_us_delta(ktime_get(), start));
	KUNIT_EXPECT_GE(test, walk_breaths, chunks);

	/* At the cap: the fair trim counts and cuts ten groups. */
	t->owners = owners_counting;
	t->max_chunks = chunks;
	walk_counts_reset();
	start = ktime_get();
	KUNIT_EXPECT_GT(test, swap_prefetch_tracker_trim(t, NULL, &dead), 0UL);
	kunit_info(test, "fair trim: %lld us\n",
		   ktime_us_delta(ktime_get(), start));
	KUNIT_EXPECT_LE(test, walk_most_between(), (unsigned long)SLOTS);
	KUNIT_EXPECT_GE(test, walk_breaths, chunks);
	kunit_deactivate_static_stub(test, swap_prefetch_tracker_breathe);
}

static unsigned long shard_collects;

/* Counts the shards a walk locks; their open chunks stay open. */
static void collect_counting(struct swap_prefetch_tracker *t,
			     struct swap_prefetch_shard *shard)
{
	shard_collects++;
}

/*
 * kprefetchd pops every 32 pages it reads.  A pop locks only the shards
 * that have an open chunk, not every possible CPU's: after the first pop
 * of a streak swap-out has opened none.  A record made since is still
 * collected, and comes first, as the newest.
 */
static void swap_prefetch_test_tracker_pop_locks_open_only(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_candidate got[4];
	unsigned long stale = 0;

	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 0, 10), 10L);
	/* Collects the open chunk, as the first read after a busy period. */
	KUNIT_ASSERT_EQ(test, swap_prefetch_tracker_sift(t, sieve_counting), 0UL);
	kunit_activate_static_stub(test, swap_prefetch_shard_collect,
				   collect_counting);
	shard_collects = 0;
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, 4, NULL, NULL, &stale),
			4U);
	KUNIT_EXPECT_EQ(test, shard_collects, 0UL);
	KUNIT_ASSERT_EQ(test, add(t, 0, 0, 100, 1), 1L);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, 1, NULL, NULL, &stale),
			1U);
	KUNIT_EXPECT_EQ(test, shard_collects, 1UL);
	kunit_deactivate_static_stub(test, swap_prefetch_shard_collect);
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_pop(t, got, 1, NULL, NULL, &stale),
			1U);
	KUNIT_EXPECT_EQ(test, swp_offset(got[0].entry), 100UL);
}

static struct kunit_case swap_prefetch_tracker_cases[] = {
	KUNIT_CASE(swap_prefetch_test_tracker_empty),
	KUNIT_CASE(swap_prefetch_test_tracker_mru_order),
	KUNIT_CASE(swap_prefetch_test_tracker_chunk_boundary),
	KUNIT_CASE(swap_prefetch_test_tracker_recycle_oldest),
	KUNIT_CASE(swap_prefetch_test_tracker_cap_without_trim),
	KUNIT_CASE(swap_prefetch_test_tracker_cap_asks_trim),
	KUNIT_CASE(swap_prefetch_test_tracker_nomem_keeps_records),
	KUNIT_CASE(swap_prefetch_test_tracker_cap_counts_recycled),
	KUNIT_CASE(swap_prefetch_test_tracker_unpop),
	KUNIT_CASE(swap_prefetch_test_tracker_stop),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_dead_first),
	KUNIT_CASE_PARAM(swap_prefetch_test_fair_level, fair_gen_params),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_fair),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_one_owner),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_fair_interleaved),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_fair_racing),
	KUNIT_CASE(swap_prefetch_test_tracker_trim_many_groups),
	KUNIT_CASE(swap_prefetch_test_tracker_sift),
	KUNIT_CASE(swap_prefetch_test_tracker_large_folio),
	KUNIT_CASE(swap_prefetch_test_tracker_types),
	KUNIT_CASE(swap_prefetch_test_tracker_nodes),
	KUNIT_CASE(swap_prefetch_test_tracker_groups),
	KUNIT_CASE(swap_prefetch_test_groups_add),
	KUNIT_CASE(swap_prefetch_test_tracker_purge),
	KUNIT_CASE(swap_prefetch_test_tracker_record_wakes),
	KUNIT_CASE(swap_prefetch_test_tracker_walks_breathe),
	KUNIT_CASE(swap_prefetch_test_tracker_pop_locks_open_only),
	{}
};

static struct kunit_suite swap_prefetch_tracker_suite = {
	.name = "swap_prefetch_tracker",
	.exit = swap_prefetch_tracker_exit,
	.test_cases = swap_prefetch_tracker_cases,
};

/*
 * Swap-out that finds its shard locked (by kprefetchd collecting it, or
 * by the task it preempted) skips and counts rather than waits; another
 * CPU's shard is not affected.
 */
static void swap_prefetch_test_trylock_skip(struct kunit *test)
{
	struct swap_prefetch_tracker *t = new_tracker(test, 8);
	struct swap_prefetch_shard *locked = shard_nr(t, 0);
	struct swap_prefetch_shard *other = shard_nr(t, 1);
	unsigned long contended, counts[1], recycled = 42;
	bool wake = true;
	long added;

	if (!IS_ENABLED(CONFIG_SMP) && !IS_ENABLED(CONFIG_DEBUG_SPINLOCK))
		kunit_skip(test, "spin_trylock() always succeeds on this UP kernel");

	add_one(test, t, 1);
	contended = vm_event(test, SWAP_PREFETCH_CONTENDED_SWAPOUTS);
	spin_lock(&locked->lock);
	added = swap_prefetch_tracker_add(t, locked, swp_entry(0, 2), 1, 0, 0,
					  &recycled, &wake);
	KUNIT_EXPECT_EQ(test, added, -EBUSY);
	KUNIT_EXPECT_EQ(test, recycled, 0UL);
	KUNIT_EXPECT_FALSE(test, wake);
	/* The hook's wrapper counts the skip, once per swap-out. */
	wake = swap_prefetch_tracker_record(t, locked, swp_entry(0, 2), 4, 0, 0);
	KUNIT_EXPECT_FALSE(test, wake);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_CONTENDED_SWAPOUTS),
			contended + 1);
	if (other) {
		added = swap_prefetch_tracker_add(t, other, swp_entry(0, 3), 1, 0, 0,
						  &recycled, &wake);
		KUNIT_EXPECT_EQ(test, added, 1L);
	}
	spin_unlock(&locked->lock);

	if (!other)
		add(t, 0, 0, 3, 1);
	/* Released: the same call now records, and the counter stays. */
	add_one(test, t, 4);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_CONTENDED_SWAPOUTS),
			contended + 1);
	/* 1, 3 and 4; 2 was skipped. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_tracker_count(t, counts, 1), 3UL);
}

static struct kunit_case swap_prefetch_trylock_cases[] = {
	KUNIT_CASE(swap_prefetch_test_trylock_skip),
	{}
};

static struct kunit_suite swap_prefetch_trylock_suite = {
	.name = "swap_prefetch_trylock",
	.exit = swap_prefetch_tracker_exit,
	.test_cases = swap_prefetch_trylock_cases,
};

/*
 * The mark that says "prefetch read this page and nobody used it yet" on
 * a private xarray standing in for a swap cache address space.
 */
struct mark_test {
	struct address_space space;
	unsigned long folio_stand_in;
};

static struct mark_test *new_mark_test(struct kunit *test)
{
	struct mark_test *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	xa_init_flags(&m->space.i_pages, XA_FLAGS_LOCK_IRQ);
	return m;
}

/* Store @entry at @index, as add_to_swap_cache() does, marked or not. */
static void mark_test_store(struct kunit *test, struct mark_test *m,
			    pgoff_t index, void *entry, bool marked)
{
	XA_STATE(xas, &m->space.i_pages, index);

	xas_lock_irq(&xas);
	xas_store(&xas, entry);
	if (marked)
		__swap_prefetch_mark_new(&xas, false);
	xas_unlock_irq(&xas);
	KUNIT_ASSERT_FALSE(test, xas_error(&xas));
}

/* Take @index out, as __delete_from_swap_cache() does. */
static void mark_test_delete(struct mark_test *m, pgoff_t index, void *shadow)
{
	XA_STATE(xas, &m->space.i_pages, index);

	xas_lock_irq(&xas);
	swap_prefetch_note_drop(&xas, shadow);
	xas_store(&xas, shadow);
	xas_unlock_irq(&xas);
}

static bool marked(struct mark_test *m, pgoff_t index)
{
	return xa_get_mark(&m->space.i_pages, index, SWAP_PREFETCH_MARK);
}

/* A use is counted once, however often the page is looked up. */
static void swap_prefetch_test_mark_used_once(struct kunit *test)
{
	struct mark_test *m = new_mark_test(test);
	unsigned long used = vm_event(test, SWAP_PREFETCH_USED_PAGES);

	struct folio *folio = (struct folio *)&m->folio_stand_in;

	mark_test_store(test, m, 5, folio, true);
	mark_test_store(test, m, 6, folio, false);
	swap_prefetch_note_use(folio, &m->space, 6);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_USED_PAGES), used);
	swap_prefetch_note_use(folio, &m->space, 5);
	swap_prefetch_note_use(folio, &m->space, 5);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_USED_PAGES), used + 1);
	KUNIT_EXPECT_FALSE(test, marked(m, 5));
	KUNIT_EXPECT_FALSE(test, xa_marked(&m->space.i_pages, SWAP_PREFETCH_MARK));
	xa_destroy(&m->space.i_pages);
}

/* A node counter with the CPUs' pending deltas folded in. */
static long node_stat_exact(struct pglist_data *pgdat, enum node_stat_item item)
{
	long val = atomic_long_read(&pgdat->vm_stat[item]);
	int cpu;

	for_each_online_cpu(cpu)
		val += per_cpu_ptr(pgdat->per_cpu_nodestats,
				   cpu)->vm_node_stat_diff[item];
	return val;
}

/* The first use of a page whose read replaced a shadow is one refault. */
static void swap_prefetch_test_mark_refault_on_use(struct kunit *test)
{
	struct mark_test *m = new_mark_test(test);
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	long refaults;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	refaults = node_stat_exact(folio_pgdat(folio), WORKINGSET_REFAULT_ANON);
	mark_test_store(test, m, 3, folio, true);
	xa_set_mark(&m->space.i_pages, 3, SWAP_PREFETCH_REFAULT_MARK);
	mark_test_store(test, m, 4, folio, true);
	swap_prefetch_note_use(folio, &m->space, 3);
	swap_prefetch_note_use(folio, &m->space, 3);
	swap_prefetch_note_use(folio, &m->space, 4);
	KUNIT_EXPECT_EQ(test, node_stat_exact(folio_pgdat(folio),
					      WORKINGSET_REFAULT_ANON),
			refaults + 1);
	KUNIT_EXPECT_FALSE(test, xa_get_mark(&m->space.i_pages, 3,
					     SWAP_PREFETCH_REFAULT_MARK));
	xa_destroy(&m->space.i_pages);
	folio_put(folio);
}

/*
 * Reclaim leaves a shadow entry, and an xarray keeps the marks of an
 * entry that is overwritten with anything but NULL: without the drop
 * hook, the next folio read at that index would inherit the mark.
 */
static void swap_prefetch_test_mark_not_inherited(struct kunit *test)
{
	struct mark_test *m = new_mark_test(test);
	void *shadow = xa_mk_value(42);
	unsigned long reclaimed = vm_event(test, SWAP_PREFETCH_UNUSED_RECLAIMED_PAGES);

	/* What the hook is for: a plain shadow store keeps the mark. */
	mark_test_store(test, m, 7, &m->folio_stand_in, true);
	mark_test_store(test, m, 7, shadow, false);
	KUNIT_EXPECT_TRUE(test, marked(m, 7));
	/* The drop hook clears it from the shadow too, and counts it. */
	mark_test_delete(m, 7, NULL);

	mark_test_store(test, m, 8, &m->folio_stand_in, true);
	mark_test_delete(m, 8, shadow);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_UNUSED_RECLAIMED_PAGES),
			reclaimed + 1);
	mark_test_store(test, m, 8, &m->folio_stand_in, false);
	KUNIT_EXPECT_FALSE(test, marked(m, 8));
	xa_destroy(&m->space.i_pages);
}

/* A freed slot is counted apart from reclaim; unmarked entries not at all. */
static void swap_prefetch_test_mark_dropped_freed(struct kunit *test)
{
	struct mark_test *m = new_mark_test(test);
	unsigned long freed = vm_event(test, SWAP_PREFETCH_UNUSED_FREED_PAGES);
	unsigned long reclaimed = vm_event(test, SWAP_PREFETCH_UNUSED_RECLAIMED_PAGES);

	mark_test_store(test, m, 9, &m->folio_stand_in, true);
	mark_test_store(test, m, 10, &m->folio_stand_in, false);
	mark_test_delete(m, 10, xa_mk_value(1));
	mark_test_delete(m, 9, NULL);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_UNUSED_FREED_PAGES), freed + 1);
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_UNUSED_RECLAIMED_PAGES),
			reclaimed);
	KUNIT_EXPECT_FALSE(test, xa_marked(&m->space.i_pages, SWAP_PREFETCH_MARK));
	xa_destroy(&m->space.i_pages);
}

/*
 * A lockless lookup found a folio that has since left the swap cache, and
 * another prefetched folio now sits at its index: the stale finder's use
 * is not the new folio's.
 */
static void swap_prefetch_test_mark_other_folio(struct kunit *test)
{
	struct mark_test *m = new_mark_test(test);
	unsigned long used = vm_event(test, SWAP_PREFETCH_USED_PAGES);
	unsigned long other;

	mark_test_store(test, m, 11, &m->folio_stand_in, true);
	swap_prefetch_note_use((struct folio *)&other, &m->space, 11);
	KUNIT_EXPECT_TRUE(test, marked(m, 11));
	KUNIT_EXPECT_EQ(test, vm_event(test, SWAP_PREFETCH_USED_PAGES), used);
	mark_test_delete(m, 11, NULL);
	xa_destroy(&m->space.i_pages);
}

/*
 * Every page marked is counted unused until it is used or dropped, once:
 * the suite leaves kprefetchd's count of unused pages as it found it.
 */
static int swap_prefetch_mark_init(struct kunit *test)
{
	s64 *before = kunit_kzalloc(test, sizeof(*before), GFP_KERNEL);

	if (!before)
		return -ENOMEM;
	*before = swap_prefetch_unused_pages();
	test->priv = before;
	return 0;
}

static void swap_prefetch_mark_exit(struct kunit *test)
{
	s64 *before = test->priv;

	KUNIT_EXPECT_EQ(test, swap_prefetch_unused_pages(), *before);
}

static struct kunit_case swap_prefetch_mark_cases[] = {
	KUNIT_CASE(swap_prefetch_test_mark_used_once),
	KUNIT_CASE(swap_prefetch_test_mark_refault_on_use),
	KUNIT_CASE(swap_prefetch_test_mark_not_inherited),
	KUNIT_CASE(swap_prefetch_test_mark_dropped_freed),
	KUNIT_CASE(swap_prefetch_test_mark_other_folio),
	{}
};

static struct kunit_suite swap_prefetch_mark_suite = {
	.name = "swap_prefetch_mark",
	.init = swap_prefetch_mark_init,
	.exit = swap_prefetch_mark_exit,
	.test_cases = swap_prefetch_mark_cases,
};

/* Idle policy: each threshold, one page below, at, and above. */

#define TEST_TOTALRAM	65536UL		/* 256 MiB of 4 KiB pages */

static const struct swap_prefetch_snapshot idle_snapshot = {
	.totalram = TEST_TOTALRAM,
};

struct verdict_case {
	const char *name;
	struct swap_prefetch_snapshot snap;
	enum swap_prefetch_verdict want;
};

/* Two thirds of TEST_TOTALRAM, rounded as the policy rounds it. */
#define MAPPED_LIMIT	(TEST_TOTALRAM / 3 * 2)

static const struct verdict_case verdict_cases[] = {
	{ "idle", { .totalram = TEST_TOTALRAM }, SWAP_PREFETCH_GO },
	{ "activity", { .totalram = TEST_TOTALRAM,
			.activity = BIT(SWAP_PREFETCH_ACT_SCAN_KSWAPD) },
	  SWAP_PREFETCH_BUSY },
	{ "free_falling", { .totalram = TEST_TOTALRAM, .free_falling = true },
	  SWAP_PREFETCH_FREE_FALLING },
	{ "laptop_mode", { .totalram = TEST_TOTALRAM, .laptop_mode = true },
	  SWAP_PREFETCH_LAPTOP_MODE },
	{ "cpu_busy", { .totalram = TEST_TOTALRAM, .cpu_busy = true },
	  SWAP_PREFETCH_CPU_BUSY },
	{ "swap_full", { .totalram = TEST_TOTALRAM, .swap_full = true },
	  SWAP_PREFETCH_SWAP_FULL },
	{ "only_node_short", { .totalram = TEST_TOTALRAM, .nr_nodes = 1,
			       .nodes_short = 1 }, SWAP_PREFETCH_LOW_FREE },
	{ "one_of_two_nodes_short", { .totalram = TEST_TOTALRAM, .nr_nodes = 2,
				      .nodes_short = 1 }, SWAP_PREFETCH_GO },
	{ "both_nodes_short", { .totalram = TEST_TOTALRAM, .nr_nodes = 2,
				.nodes_short = 2 }, SWAP_PREFETCH_LOW_FREE },
	/* Page cache a stream left may make room on a node without. */
	{ "only_node_short_exchange", { .totalram = TEST_TOTALRAM, .nr_nodes = 1,
					.nodes_short = 1, .exchange = true },
	  SWAP_PREFETCH_GO },
	{ "exchange_under_pressure", { .totalram = TEST_TOTALRAM, .nr_nodes = 1,
				       .nodes_short = 1, .exchange = true,
				       .activity = BIT(SWAP_PREFETCH_ACT_SCAN_DIRECT) },
	  SWAP_PREFETCH_BUSY },
	{ "exchange_swap_full", { .totalram = TEST_TOTALRAM, .nr_nodes = 1,
				  .nodes_short = 1, .exchange = true,
				  .swap_full = true }, SWAP_PREFETCH_SWAP_FULL },
	{ "swap_contended", { .totalram = TEST_TOTALRAM,
			      .swap_contended = true }, SWAP_PREFETCH_SWAP_IO },
	{ "mapped_below", { .totalram = TEST_TOTALRAM,
			    .mapped = MAPPED_LIMIT - 1 }, SWAP_PREFETCH_GO },
	{ "mapped_at", { .totalram = TEST_TOTALRAM, .mapped = MAPPED_LIMIT },
	  SWAP_PREFETCH_MAPPED },
	{ "mapped_above", { .totalram = TEST_TOTALRAM,
			    .mapped = MAPPED_LIMIT + 1 }, SWAP_PREFETCH_MAPPED },
	{ "mapped_slab_prefetched_below",
	  { .totalram = TEST_TOTALRAM, .mapped = 100, .slab = 200,
	    .prefetched = MAPPED_LIMIT - 301 }, SWAP_PREFETCH_GO },
	{ "mapped_slab_prefetched_at",
	  { .totalram = TEST_TOTALRAM, .mapped = 100, .slab = 200,
	    .prefetched = MAPPED_LIMIT - 300 }, SWAP_PREFETCH_MAPPED },
	{ "mapped_slab_prefetched_above",
	  { .totalram = TEST_TOTALRAM, .mapped = 100, .slab = 200,
	    .prefetched = MAPPED_LIMIT - 299 }, SWAP_PREFETCH_MAPPED },
	/* Pressure is reported first: it is what restarts the delay. */
	{ "activity_and_swap_io", { .totalram = TEST_TOTALRAM,
				    .activity = BIT(SWAP_PREFETCH_ACT_ALLOCSTALL),
				    .swap_contended = true },
	  SWAP_PREFETCH_BUSY },
	{ "falling_and_cpu_busy", { .totalram = TEST_TOTALRAM,
				    .free_falling = true, .cpu_busy = true },
	  SWAP_PREFETCH_FREE_FALLING },
};

static void verdict_case_desc(const struct verdict_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(verdict, verdict_cases, verdict_case_desc);

static void swap_prefetch_test_idle_verdict(struct kunit *test)
{
	const struct verdict_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swap_prefetch_idle_verdict(&c->snap), c->want);
}

struct zone_case {
	const char *name;
	struct swap_prefetch_zone_snap zone;
	bool ok;
};

static const struct zone_case zone_cases[] = {
	{ "below_3x_high", { .free = 2999, .high = 1000 }, false },
	{ "at_3x_high", { .free = 3000, .high = 1000 }, false },
	{ "above_3x_high", { .free = 3001, .high = 1000 }, true },
	{ "no_watermark_empty", { .free = 0, .high = 0 }, false },
	{ "no_watermark_one_free", { .free = 1, .high = 0 }, true },
	{ "boosted_watermark", { .free = 6000, .high = 2000 }, false },
};

static void zone_case_desc(const struct zone_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(zone, zone_cases, zone_case_desc);

static void swap_prefetch_test_zone_ok(struct kunit *test)
{
	const struct zone_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swap_prefetch_zone_ok(&c->zone), c->ok);
}

static void swap_prefetch_test_zones_short(struct kunit *test)
{
	/* DMA, DMA32, Normal of one node; each just above 3x high. */
	struct swap_prefetch_zone_snap z[] = {
		{ .free = 3 * 8 + 1, .high = 8 },
		{ .free = 3 * 1500 + 1, .high = 1500 },
		{ .free = 3 * 9000 + 1, .high = 9000 },
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, swap_prefetch_zones_short(z, ARRAY_SIZE(z)), 0U);
	KUNIT_EXPECT_EQ(test, swap_prefetch_zones_short(z, 0), 0U);
	/* One page less in any single zone blocks prefetch. */
	for (i = 0; i < ARRAY_SIZE(z); i++) {
		z[i].free--;
		KUNIT_EXPECT_EQ_MSG(test,
				    swap_prefetch_zones_short(z, ARRAY_SIZE(z)),
				    1U, "zone %u at 3x high", i);
		z[i].free++;
	}
	z[0].free = 0;
	z[2].free = 0;
	KUNIT_EXPECT_EQ(test, swap_prefetch_zones_short(z, ARRAY_SIZE(z)), 2U);
}

/*
 * The trend as kprefetchd feeds it: avail and frees sampled every second
 * (plus up to 30 ms of scheduling) while it waits, every 10 ms in an idle
 * streak; windows of a quarter of the 5 s delay.  Time runs in ms here.
 */
#define TREND_DELAY_MS		5000
#define TREND_WINDOW_MS		(TREND_DELAY_MS / 4)
#define TREND_BASE		(SZ_256M >> PAGE_SHIFT)
#define MIB_PAGES(x)		((unsigned long)(x) * (SZ_1M >> PAGE_SHIFT))

struct trend_stream {
	struct swap_prefetch_trend tr;
	unsigned long slack;	/* 0: %SWAP_PREFETCH_TREND_SLACK */
	u32 seed;
	unsigned int step_ms;	/* the sampler's pace */
	unsigned int jitter_ms;	/* up to this much later, pseudo-random */
};

static unsigned int trend_next_ms(struct trend_stream *ts)
{
	ts->seed = ts->seed * 1664525 + 1013904223;
	return ts->step_ms + (ts->jitter_ms ? (ts->seed >> 16) % ts->jitter_ms : 0);
}

static bool trend_feed(struct trend_stream *ts, unsigned long avail,
		       unsigned long freed, unsigned long ms)
{
	return swap_prefetch_trend_update(&ts->tr, avail, freed,
					  msecs_to_jiffies(ms),
					  msecs_to_jiffies(TREND_WINDOW_MS),
					  ts->slack ?: SWAP_PREFETCH_TREND_SLACK);
}

/*
 * Churn: every @pace_ms, take @burst pages over @hold_ms (touching them
 * one by one), then give them all back.  Returns what is taken at @ms and
 * sets *@freed to what it has given back so far.
 */
struct churn {
	unsigned long burst;
	unsigned int pace_ms, hold_ms, phase_ms;
};

static unsigned long churn_held(const struct churn *c, unsigned long ms,
				unsigned long *freed)
{
	unsigned long t = ms + c->phase_ms, in = t % c->pace_ms;

	*freed = (t / c->pace_ms) * c->burst;
	if (in >= c->hold_ms) {
		*freed += c->burst;
		return 0;
	}
	return c->burst * in / c->hold_ms;
}

/*
 * Samples churn for @secs; returns how many samples after the first two
 * delays said "falling".
 */
static unsigned int trend_churn_run(struct trend_stream *ts,
				    const struct churn *c, unsigned int secs)
{
	unsigned long ms, held, freed;
	unsigned int falls = 0;

	for (ms = 0; ms < secs * MSEC_PER_SEC; ms += trend_next_ms(ts)) {
		held = churn_held(c, ms, &freed);
		/* Kernel noise: 64 KiB taken now and then, 256 KiB/s freed. */
		if (ts->seed & BIT(20))
			held += 16;
		if (trend_feed(ts, TREND_BASE - held, freed + 16 * (ms / 256),
			       ms) && ms >= 2 * TREND_DELAY_MS)
			falls++;
	}
	return falls;
}

/* Not steady until five windows, about a delay, have been seen. */
static void swap_prefetch_test_trend_unknown_first(struct kunit *test)
{
	struct trend_stream ts = { .step_ms = 1000 };
	unsigned long ms;

	for (ms = 0; ms < TREND_DELAY_MS; ms += 1000)
		KUNIT_EXPECT_TRUE_MSG(test, trend_feed(&ts, TREND_BASE, 0, ms),
				      "at %lu ms", ms);
	/* Known once the fifth window has begun: by a delay and a window. */
	for (; ms < TREND_DELAY_MS + TREND_WINDOW_MS; ms += 1000)
		trend_feed(&ts, TREND_BASE, 0, ms);
	for (; ms < 3 * TREND_DELAY_MS; ms += 1000)
		KUNIT_EXPECT_FALSE_MSG(test, trend_feed(&ts, TREND_BASE, 0, ms),
				       "at %lu ms", ms);
	/* A reset forgets it all. */
	ts.tr.nr = 0;
	KUNIT_EXPECT_TRUE(test, trend_feed(&ts, TREND_BASE, 0, ms));
}

/*
 * Churn that frees what it takes is never a falling trend: 2 to 32 MiB/s,
 * from ten bursts a second to one every 3 s (at most 16 MiB a burst),
 * bursts held from 10 ms to most of a window, at eight phases, under the
 * sampler kprefetchd runs while it waits and in an idle streak.
 */
static void swap_prefetch_test_trend_churn_is_steady(struct kunit *test)
{
	static const unsigned int rates[] = { 2, 4, 8, 16, 32 };
	static const unsigned int paces[] = { 100, 250, 500, 1000, 1500,
					      2000, 3000 };
	static const unsigned int holds[] = { 10, 100, 400, 1000 };
	static const struct { unsigned int step, jitter; } samplers[] = {
		{ 1000, 30 }, { 1000, 0 }, { 10, 2 },
	};
	unsigned int i, r, p, h, s, ph;
	struct trend_stream ts;
	struct churn c;

	/* Every combination of rate, pace, hold, sampler and phase. */
	for (i = 0; i < ARRAY_SIZE(rates) * ARRAY_SIZE(paces) *
		    ARRAY_SIZE(holds) * ARRAY_SIZE(samplers) * 8; i++) {
		ph = i % 8;
		s = i / 8 % ARRAY_SIZE(samplers);
		h = i / 8 / ARRAY_SIZE(samplers) % ARRAY_SIZE(holds);
		p = i / 8 / ARRAY_SIZE(samplers) / ARRAY_SIZE(holds) %
		    ARRAY_SIZE(paces);
		r = i / 8 / ARRAY_SIZE(samplers) / ARRAY_SIZE(holds) /
		    ARRAY_SIZE(paces);
		ts = (struct trend_stream){
			.seed = ph * 7919 + r,
			.step_ms = samplers[s].step,
			.jitter_ms = samplers[s].jitter,
		};
		c = (struct churn){
			.burst = min(MIB_PAGES(rates[r]) * paces[p] / 1000,
				     MIB_PAGES(16)),
			.pace_ms = paces[p],
			.hold_ms = min(holds[h], paces[p] * 9 / 10),
			.phase_ms = paces[p] * ph / 8,
		};

		KUNIT_EXPECT_EQ_MSG(test, trend_churn_run(&ts, &c, 40), 0U,
				    "%u MiB/s, a burst every %u ms held %u ms, sampled every %u ms, phase %u",
				    rates[r], paces[p], c.hold_ms,
				    samplers[s].step, ph);
	}
}

/*
 * From steady memory, a job that grows by @mib_s MiB/s from @start_ms on:
 * the ms from its start to the first "falling", or ULONG_MAX.
 */
static unsigned long trend_grow(struct trend_stream *ts, unsigned int mib_s,
				unsigned long start_ms, unsigned long end_ms)
{
	unsigned long ms, taken;

	for (ms = 0; ms < end_ms; ms += trend_next_ms(ts)) {
		taken = ms > start_ms ? MIB_PAGES(mib_s) * (ms - start_ms) / 1000 : 0;
		if (trend_feed(ts, TREND_BASE - taken, 16 * (ms / 256), ms) &&
		    ms > start_ms)
			return ms - start_ms;
	}
	return ULONG_MAX;
}

/* RAM sizes, in MiB, from the lab's guest to a big server. */
static const unsigned long trend_ram_mib[] = {
	256, 2048, 8192, 65536, 1048576,
};

/*
 * A job that grows by 2 MiB/s is seen within two windows, at any phase,
 * with the slack of any size of RAM.
 */
static void swap_prefetch_test_trend_growth_is_falling(struct kunit *test)
{
	static const unsigned int steps[] = { 1000, 10 };
	unsigned int s, ph, r;

	for (r = 0; r < ARRAY_SIZE(trend_ram_mib); r++)
		for (s = 0; s < ARRAY_SIZE(steps); s++)
			for (ph = 0; ph < 10; ph++) {
				struct trend_stream ts = {
					.seed = ph, .step_ms = steps[s],
					.jitter_ms = 30,
				};

				ts.slack = swap_prefetch_trend_slack(MIB_PAGES(trend_ram_mib[r]),
								     TREND_WINDOW_MS);
				KUNIT_EXPECT_LE_MSG(test,
						    trend_grow(&ts, SWAP_PREFETCH_TREND_GROWTH_MIB,
							       3 * TREND_DELAY_MS + ph * 97,
							       6 * TREND_DELAY_MS),
						    2UL * TREND_WINDOW_MS,
						    "%lu MiB of RAM, sampled every %u ms, phase %u",
						    trend_ram_mib[r], steps[s], ph);
			}
}

/*
 * The slack grows with RAM, never below its floor, never past what the
 * promised growth takes in half a window; windows too short for the
 * floor keep the floor.
 */
static void swap_prefetch_test_trend_slack_scales(struct kunit *test)
{
	unsigned long prev = 0, slack;
	unsigned long growth = MIB_PAGES(SWAP_PREFETCH_TREND_GROWTH_MIB) *
			       TREND_WINDOW_MS / 2000;
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(trend_ram_mib); r++) {
		slack = swap_prefetch_trend_slack(MIB_PAGES(trend_ram_mib[r]),
						  TREND_WINDOW_MS);
		kunit_info(test, "%lu MiB of RAM: slack %lu KiB\n",
			   trend_ram_mib[r], slack << (PAGE_SHIFT - 10));
		KUNIT_EXPECT_GE(test, slack, (unsigned long)SWAP_PREFETCH_TREND_SLACK);
		KUNIT_EXPECT_LE(test, slack, growth);
		KUNIT_EXPECT_GE(test, slack, prev);
		prev = slack;
	}
	KUNIT_EXPECT_EQ(test, swap_prefetch_trend_slack(MIB_PAGES(256), TREND_WINDOW_MS),
			(unsigned long)SWAP_PREFETCH_TREND_SLACK);
	KUNIT_EXPECT_EQ(test, prev, growth);
	KUNIT_EXPECT_EQ(test, swap_prefetch_trend_slack(MIB_PAGES(1048576), 250),
			(unsigned long)SWAP_PREFETCH_TREND_SLACK);
}

/*
 * Memory that stays gone is a fall only beyond the slack, however slowly
 * it went; memory that rises never is; and a job that stops growing is
 * steady again one delay later.
 */
static void swap_prefetch_test_trend_slack_boundary(struct kunit *test)
{
	struct trend_stream ts = { .step_ms = 1000 };
	unsigned long ms, avail = TREND_BASE;

	for (ms = 0; ms < 2 * TREND_DELAY_MS; ms += 1000)
		trend_feed(&ts, avail, 0, ms);
	/* Exactly the slack below the most seen is still steady... */
	KUNIT_EXPECT_FALSE(test, trend_feed(&ts, avail - SWAP_PREFETCH_TREND_SLACK,
					    0, ms));
	/* ...a page more is not, unless as much was freed meanwhile. */
	ms += 1000;
	KUNIT_EXPECT_TRUE(test, trend_feed(&ts, avail - SWAP_PREFETCH_TREND_SLACK - 1,
					   0, ms));
	ms += 1000;
	KUNIT_EXPECT_FALSE(test, trend_feed(&ts, avail - SWAP_PREFETCH_TREND_SLACK - 1,
					    1, ms));
	/* Steady at the lower level one span later. */
	avail -= SWAP_PREFETCH_TREND_SLACK + 1;
	for (ms += 1000; ms < 5 * TREND_DELAY_MS; ms += 1000)
		trend_feed(&ts, avail, 1, ms);
	KUNIT_EXPECT_FALSE(test, trend_feed(&ts, avail, 1, ms));
	/* Rising memory is never falling. */
	for (; ms < 8 * TREND_DELAY_MS; ms += 1000) {
		avail += MIB_PAGES(4);
		KUNIT_EXPECT_FALSE(test, trend_feed(&ts, avail, 1, ms));
	}
}

struct io_case {
	const char *desc;
	struct swap_prefetch_io_window w;
	bool contended;
};

/*
 * Windows of the swap disks as the lab's 20 MiB/s disk sees them, in
 * 512-byte sectors: the trickles of a desktop are not contention, a
 * stream is, whether kprefetchd waits or reads beside it.
 */
static const struct io_case io_cases[] = {
	{ "nothing", { 1000, 0, 0, 0 }, false },
	{ "prefetch alone", { 1000, 1000, 0, 40960 }, false },
	{ "synced writes 128 KiB/s", { 1000, 20, 256, 0 }, false },
	{ "synced writes 1 MiB/s", { 1000, 80, 2048, 0 }, false },
	{ "indexer 4 MiB/s", { 1000, 200, 8192, 0 }, false },
	{ "indexer beside a streak", { 1000, 1000, 8192, 32768 }, false },
	{ "journal beside a first round", { 1000, 30, 600, 256 }, false },
	{ "stream", { 1000, 1000, 40960, 0 }, true },
	{ "stream beside a streak", { 1000, 1000, 20480, 20480 }, true },
	{ "faults a third of the time", { 1000, 330, 2000, 0 }, true },
	{ "just under a third", { 1000, 329, 2000, 0 }, false },
	{ "two seconds, a third", { 2000, 660, 100, 0 }, true },
	{ "empty window", { 0, 0, 100, 0 }, false },
};

KUNIT_ARRAY_PARAM_DESC(io, io_cases, desc);

static void swap_prefetch_test_io_contended(struct kunit *test)
{
	const struct io_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swap_prefetch_io_contended(&c->w), c->contended);
}

static void swap_prefetch_test_cpu_busy(struct kunit *test)
{
	/* A tenth of the time (a periodic waker) is not busy. */
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cpu_busy(100, 1000));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cpu_busy(500, 1000));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cpu_busy(510, 1000));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cpu_busy(1000, 1000));
	/* Nanoseconds of a long span on many CPUs do not overflow. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cpu_busy(900ULL * NSEC_PER_SEC,
						       1000ULL * NSEC_PER_SEC));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cpu_busy(0, 0));
}

static void swap_prefetch_test_activity_mask(struct kunit *test)
{
	unsigned long prev[NR_SWAP_PREFETCH_ACT] = { 0 };
	unsigned long cur[NR_SWAP_PREFETCH_ACT] = { 0 };
	int i;

	KUNIT_EXPECT_EQ(test, swap_prefetch_activity_mask(prev, cur), 0);
	for (i = 0; i < NR_SWAP_PREFETCH_ACT; i++) {
		cur[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, swap_prefetch_activity_mask(prev, cur),
				    BIT(i), "counter %d moved", i);
		prev[i] = 1;
		KUNIT_EXPECT_EQ(test, swap_prefetch_activity_mask(prev, cur), 0);
	}

	/* Every counter that moved is named, not just the first. */
	cur[SWAP_PREFETCH_ACT_SCAN_DIRECT] += 10;
	cur[SWAP_PREFETCH_ACT_OOM_KILL] += 1;
	KUNIT_EXPECT_EQ(test, swap_prefetch_activity_mask(prev, cur),
			BIT(SWAP_PREFETCH_ACT_SCAN_DIRECT) |
			BIT(SWAP_PREFETCH_ACT_OOM_KILL));

	/* Counters are free-running: a wrap is a change like any other... */
	memcpy(prev, cur, sizeof(prev));
	prev[SWAP_PREFETCH_ACT_SCAN_KSWAPD] = ULONG_MAX;
	cur[SWAP_PREFETCH_ACT_SCAN_KSWAPD] = 0;
	KUNIT_EXPECT_EQ(test, swap_prefetch_activity_mask(prev, cur),
			BIT(SWAP_PREFETCH_ACT_SCAN_KSWAPD));
	/* ...but going back (a CPU's count moved mid-sum) is not. */
	memcpy(prev, cur, sizeof(prev));
	cur[SWAP_PREFETCH_ACT_SCAN_DIRECT] -= 8;
	KUNIT_EXPECT_EQ(test, swap_prefetch_activity_mask(prev, cur), 0);
}

/*
 * A group whose memory.pressure moves is held for a delay after each move;
 * a group beside it, whose own stall stays, is not held at all.
 */
static void swap_prefetch_test_group_calm_own_pressure(struct kunit *test)
{
	struct swap_prefetch_watch w = { };
	const unsigned long delay = 500, start = ULONG_MAX - 1000;
	const unsigned short busy = 7, calm = 9;
	unsigned long now, last_move = 0;
	u64 stall = 0;
	int step;

	/* First sight: nothing to compare with, so no pressure seen. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, busy, 1000, start,
							 delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, calm, 5000, start,
							 delay));
	/* Checks every 100 jiffies across the wrap; busy stalls for 20. */
	for (step = 1; step <= 20; step++) {
		now = start + step * 100;
		if (step <= 10) {
			stall += 1000;
			last_move = now;
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    swap_prefetch_group_calm(&w, busy, 1000 + stall,
							     now, delay),
				    step > 10 && now - last_move >= delay,
				    "step %d", step);
		KUNIT_EXPECT_TRUE_MSG(test,
				      swap_prefetch_group_calm(&w, calm, 5000, now,
							       delay),
				      "step %d", step);
	}
	/* Seen again with no move: calm, however long since, wraps included. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, busy, 1000 + stall,
							 now + 100000, delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, busy, 1000 + stall,
							 now + ULONG_MAX / 2,
							 delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, busy, 1000 + stall,
							 now + ULONG_MAX - 10,
							 delay));
}

/*
 * A held group keeps its slot while more groups than there are slots pass
 * and it is not looked at: forgotten, it would be read at its next look.
 * While every slot holds a held group, a new group is held too.
 */
static void swap_prefetch_test_group_calm_held_kept(struct kunit *test)
{
	struct swap_prefetch_watch w = { };
	const unsigned long delay = 500;
	unsigned short id;

	swap_prefetch_group_calm(&w, 1, 0, 1000, delay);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 1, 10, 1010, delay));
	for (id = 2; id < 2 + 2 * SWAP_PREFETCH_WATCHED_GROUPS; id++)
		KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, id, 100,
								 1010 + id,
								 delay));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 1, 10, 1100, delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, 1, 10, 1510, delay));

	/* Every slot held: the next group cannot be watched, and waits. */
	memset(&w, 0, sizeof(w));
	for (id = 1; id <= SWAP_PREFETCH_WATCHED_GROUPS; id++) {
		swap_prefetch_group_calm(&w, id, 0, 2000, delay);
		KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, id, 1, 2001,
								  delay));
	}
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 100, 0, 2002, delay));
	/* Once their holds are over, it takes a slot, and is calm. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, 100, 0, 2501, delay));
}

/* One look with these counts: pages swapped out, file pages stolen, refaulted, used. */
static void exchange_look(struct swap_prefetch_exchange *x, unsigned long swapped_out,
			  unsigned long stolen, unsigned long refaulted,
			  unsigned long used)
{
	struct swap_prefetch_exchange_counts now = {
		.swapped_out = swapped_out, .stolen = stolen,
		.refaulted = refaulted, .used = used,
	};

	swap_prefetch_exchange_look(x, &now);
}

/*
 * A stream left the page cache: since the last look that saw pages go out
 * to swap, new page cache replaced at least the inactive lists' worth of
 * file pages, and fewer than one in eight came back.  A swap-out starts
 * the count again, however long since kprefetchd last looked: what a
 * backup streamed before a later job swapped does not count.
 */
static void swap_prefetch_test_exchange_streamed(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };

	exchange_look(&x, 0, 0, 0, 0);
	/* A hog: 500 pages out to swap, and the page cache it took. */
	exchange_look(&x, 500, 100, 50, 0);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 0));
	/* A backup after it. */
	exchange_look(&x, 500, 999, 50, 0);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1000));
	exchange_look(&x, 500, 1100, 50, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1000));
	/* kswapd tops free memory up: more of the same count. */
	exchange_look(&x, 500, 1300, 50, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1200));
	/* An eighth came back since the swap-out: a job that reads again. */
	exchange_look(&x, 500, 9100, 1174, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1000));
	exchange_look(&x, 500, 9100, 1175, 0);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1000));
	/* A job that swaps, seen in one look: counted from there. */
	exchange_look(&x, 2000, 9300, 1175, 0);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 0));
	exchange_look(&x, 2000, 9500, 1175, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 200));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 201));
	/* Across a wrap of the counts. */
	memset(&x, 0, sizeof(x));
	exchange_look(&x, ULONG_MAX - 10, ULONG_MAX - 20, ULONG_MAX - 5, 0);
	exchange_look(&x, ULONG_MAX - 10, 1990, 2, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 2011));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 2012));
}

/*
 * Only page cache that new page cache replaced counts: a job that takes
 * the page cache's room for its own memory (the file lists shrink as
 * reclaim takes from them) is no stream, however little it swaps; nor is
 * the part of a look's reclaim that the lists lost.
 */
static void swap_prefetch_test_exchange_turnover(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };
	struct swap_prefetch_exchange_counts now = { .file = 5000 };

	swap_prefetch_exchange_look(&x, &now);
	/* The hog: 5000 pages out to swap. */
	now.swapped_out = 5000;
	swap_prefetch_exchange_look(&x, &now);
	/* It goes on taking the page cache's room, with few writes. */
	now.stolen += 3000;
	now.file -= 3000;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1));
	/* A job reads: 1000 reclaimed, the lists grow by 200. */
	now.stolen += 1000;
	now.file += 200;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1000));
	/* 1000 more reclaimed, the lists 400 smaller: 600 count. */
	now.stolen += 1000;
	now.file -= 400;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1600));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1601));
}

/*
 * Of slab, an exchange takes only what the slab holds beyond twice what
 * it held when pages last went out to swap (an indexer's dentries and
 * inodes after the job that swapped), and only if that, with what it took
 * since, is more than the inactive file lists hold: then the slab, not
 * the page cache, is what the job left.  Looks without a swap-out leave
 * the floor where it is; the next swap-out moves it to the slab of its
 * time.
 */
static void swap_prefetch_test_exchange_slab_room(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };
	struct swap_prefetch_exchange_counts now = { .slab = 1000 };

	/* The hog swaps out with 1000 pages of slab. */
	now.swapped_out = 5000;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 1000, 0), 0UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 2000, 0), 0UL);
	/* A walk: the slab grows while reclaim takes page cache only. */
	now.stolen += 2000;
	now.slab = 41000;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 41000, 5000),
			39000UL);
	/* A job's page cache read once outweighs the growth: none. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 41000, 39000),
			0UL);
	/* What it took counts: down to twice the floor, and no further. */
	swap_prefetch_exchange_account(&x, 30000, 38000);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 2001, 5000), 1UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 1999, 5000), 0UL);
	/* Another swap-out: what grew before it is not the room any more. */
	now.swapped_out += 5000;
	swap_prefetch_exchange_look(&x, &now);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 41000, 0), 0UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_exchange_slab_room(&x, 82100, 0), 100UL);
}

/*
 * The priority an exchange shrinks slab at has the shrinkers scan (at the
 * default seeks, twice 1/2^p of each cache) at least the pages it lacks,
 * and it is the gentlest such priority: one gentler would scan less.
 * Lacking more never gives a gentler priority, and no want scans more
 * than half of a cache.
 */
static void swap_prefetch_test_slab_priority(struct kunit *test)
{
	static const unsigned long slabs[] = { 0, 1, 4096, 40960, 1UL << 22 };
	unsigned long slab, nr;
	int i, p, prev;

	for (i = 0; i < ARRAY_SIZE(slabs); i++) {
		slab = slabs[i];
		prev = DEF_PRIORITY;
		for (nr = 1; nr <= slab * 4 + 1; nr = nr * 3 / 2 + 1) {
			p = swap_prefetch_slab_priority(slab, nr);
			KUNIT_EXPECT_GE(test, p, SWAP_PREFETCH_SLAB_PRIORITY_MIN);
			KUNIT_EXPECT_LE(test, p, prev);
			if (p > SWAP_PREFETCH_SLAB_PRIORITY_MIN)
				KUNIT_EXPECT_GE(test, (slab >> p) * 2, nr);
			if (p < DEF_PRIORITY)
				KUNIT_EXPECT_LT(test, (slab >> (p + 1)) * 2, nr);
			prev = p;
		}
	}
	KUNIT_EXPECT_EQ(test, swap_prefetch_slab_priority(40960, 8000), 3);
	KUNIT_EXPECT_EQ(test, swap_prefetch_slab_priority(40960, 32), 11);
}

/*
 * MGLRU writes a few anonymous pages to swap while a stream goes through
 * the page cache: fewer than one for every %SWAP_PREFETCH_STREAM_SWAP_SHARE
 * file pages reclaimed leaves the look a stream's; as many make it a
 * swap-out, which neither counts nor lets what came before count.
 */
static void swap_prefetch_test_exchange_stream_swaps_little(struct kunit *test)
{
	const unsigned long share = SWAP_PREFETCH_STREAM_SWAP_SHARE;
	struct swap_prefetch_exchange x = { };

	exchange_look(&x, 0, 0, 0, 0);
	/* The hog. */
	exchange_look(&x, 5000, 100, 0, 0);
	/* The backup, with one page out to swap short of the share. */
	exchange_look(&x, 5000 + 1000 / share - 1, 1100, 0, 0);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_exchange_streamed(&x, 1000));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1001));
	/* Then as many as the share: a job that swaps. */
	exchange_look(&x, 5000 + 2 * (1000 / share) - 1, 2100, 0, 0);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_exchange_streamed(&x, 1));
}

/*
 * Reads that took room of page cache and went mostly unused by the time
 * pages next went out to swap stop the exchange until the swap-out after;
 * reads half used, or none by exchange, leave it free.  One swap-out is
 * judged once, however many looks it spans.
 */
static void swap_prefetch_test_exchange_unused(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };

	exchange_look(&x, 100, 0, 0, 0);
	exchange_look(&x, 100, 0, 0, 0);
	/* 1000 read, 600 by exchange, 499 used: stopped at the next swap-out. */
	swap_prefetch_exchange_account(&x, 400, 0);
	swap_prefetch_exchange_account(&x, 600, 600);
	exchange_look(&x, 100, 0, 0, 499);
	KUNIT_EXPECT_FALSE(test, x.stopped);
	exchange_look(&x, 200, 0, 0, 499);
	KUNIT_EXPECT_TRUE(test, x.stopped);
	exchange_look(&x, 300, 0, 0, 499);
	KUNIT_EXPECT_TRUE(test, x.stopped);
	/* The swap-out after: nothing was exchanged meanwhile. */
	exchange_look(&x, 300, 0, 0, 499);
	exchange_look(&x, 400, 0, 0, 499);
	KUNIT_EXPECT_FALSE(test, x.stopped);

	/* Half used: free to exchange. */
	exchange_look(&x, 400, 0, 0, 499);
	swap_prefetch_exchange_account(&x, 1000, 1000);
	exchange_look(&x, 500, 0, 0, 999);
	KUNIT_EXPECT_FALSE(test, x.stopped);
}

/*
 * Refaults before the exchange dropped anything (what the stream evicted
 * of others' working set) do not stop it; once it dropped page cache,
 * more refaults than %SWAP_CLUSTER_MAX and an eighth of what it dropped
 * stop it until pages next go out to swap.
 */
static void swap_prefetch_test_exchange_reread(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };

	exchange_look(&x, 100, 0, 0, 0);
	exchange_look(&x, 100, 0, 5000, 0);
	KUNIT_EXPECT_FALSE(test, x.stopped);
	/* It drops 800 pages, in two rounds: refaults count from the first. */
	swap_prefetch_exchange_account(&x, 320, 320);
	exchange_look(&x, 100, 0, 5000 + SWAP_CLUSTER_MAX, 0);
	swap_prefetch_exchange_account(&x, 480, 480);
	exchange_look(&x, 100, 0, 5000 + SWAP_CLUSTER_MAX + 100, 0);
	KUNIT_EXPECT_FALSE(test, x.stopped);
	exchange_look(&x, 100, 0, 5000 + SWAP_CLUSTER_MAX + 101, 0);
	KUNIT_EXPECT_TRUE(test, x.stopped);
	/* Until the next swap-out (the reads were used). */
	exchange_look(&x, 200, 0, 9000, 800);
	exchange_look(&x, 200, 0, 9000, 800);
	KUNIT_EXPECT_FALSE(test, x.stopped);
}

/* A stop for reuse lasts until pages next go out to swap, not longer. */
static void swap_prefetch_test_exchange_stop_lasts(struct kunit *test)
{
	struct swap_prefetch_exchange x = { };

	exchange_look(&x, 100, 0, 0, 0);
	exchange_look(&x, 100, 0, 0, 0);
	swap_prefetch_exchange_account(&x, 100, 100);
	x.stopped = true;
	exchange_look(&x, 100, 50, 0, 100);
	KUNIT_EXPECT_TRUE(test, x.stopped);
	exchange_look(&x, 200, 50, 0, 100);
	KUNIT_EXPECT_FALSE(test, x.stopped);
	KUNIT_EXPECT_EQ(test, x.read, 0UL);
	KUNIT_EXPECT_EQ(test, x.exchanged, 0UL);
}

/*
 * The watch is bounded: a group beyond %SWAP_PREFETCH_WATCHED_GROUPS takes
 * the slot of the one looked at least recently, never that of a group held
 * by a recent move that was looked at since.
 */
static void swap_prefetch_test_group_calm_bounded(struct kunit *test)
{
	struct swap_prefetch_watch w = { };
	const unsigned long delay = 500;
	unsigned short id;
	unsigned int i, used = 0;

	/* Group 1 moves and is held... */
	swap_prefetch_group_calm(&w, 1, 0, 1000, delay);
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 1, 10, 1010, delay));
	/* ...while twice as many groups as slots pass, each seen once. */
	for (id = 2; id < 2 + 2 * SWAP_PREFETCH_WATCHED_GROUPS; id++) {
		KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, id, 100,
								 1010 + id,
								 delay));
		/* Group 1 is looked at again with every one of them. */
		KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 1, 10,
								  1010 + id,
								  delay));
	}
	for (i = 0; i < SWAP_PREFETCH_WATCHED_GROUPS; i++)
		used += w.g[i].used;
	KUNIT_EXPECT_EQ(test, used, SWAP_PREFETCH_WATCHED_GROUPS);
	/* Its move is remembered until its delay is over. */
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 1, 10, 1509, delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, 1, 10, 1510, delay));
	/* Without memory cgroups the machine is group 0, a group like any. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, 0, 50, 2000, delay));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_group_calm(&w, 0, 60, 2100, delay));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_group_calm(&w, 1, 10, 2100, delay));
}

/* The 2005 pacing: 500-jiffy delay, 100-jiffy interval, 32 pages. */
static const struct swap_prefetch_tunables fixed_pacing = {
	.delay = 500, .interval = 100, .batch = 32, .adaptive = false,
};

static void swap_prefetch_test_pace_busy_once(struct kunit *test)
{
	struct swap_prefetch_pacer p = { };
	const unsigned long now = 1000;
	unsigned int batch = 99, i;

	swap_prefetch_mark_busy(&p);
	swap_prefetch_mark_busy(&p);
	/* A busy mark: no read, look again after the interval... */
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, p.next, now + 100);
	KUNIT_EXPECT_EQ(test, batch, 0U);
	/*
	 * ...where, quiet since, reading still waits for the delay, looking
	 * every interval (the free-memory trend needs the samples)...
	 */
	for (i = 1; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot,
							 now + 100 * i,
							 &fixed_pacing, &batch),
				SWAP_PREFETCH_BUSY);
		KUNIT_EXPECT_EQ(test, p.next, now + 100 * (i + 1));
		KUNIT_EXPECT_EQ(test, batch, 0U);
	}
	/* ...counted from the busy round: the mark was consumed once. */
	KUNIT_EXPECT_EQ(test, p.last_busy, now);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now + 499,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, p.next, now + 500);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now + 500,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_GO);
	KUNIT_EXPECT_EQ(test, p.next, now + 500 + 100);
	KUNIT_EXPECT_EQ(test, batch, 32U);
}

static void swap_prefetch_test_pace_snapshot(struct kunit *test)
{
	struct swap_prefetch_pacer p = { };
	struct swap_prefetch_snapshot s = idle_snapshot;
	const unsigned long now = 1000;
	unsigned int batch;

	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &s, now, &fixed_pacing,
						 &batch), SWAP_PREFETCH_GO);
	KUNIT_EXPECT_EQ(test, p.next, now + 100);
	s.activity = BIT(SWAP_PREFETCH_ACT_SCAN_DIRECT);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &s, now, &fixed_pacing,
						 &batch), SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, p.next, now + 100);
	/* A growing job is pressure: looked at again every interval... */
	s.activity = 0;
	s.free_falling = true;
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &s, now + 100,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_FREE_FALLING);
	KUNIT_EXPECT_EQ(test, p.next, now + 100 + 100);
	KUNIT_EXPECT_EQ(test, batch, 0U);
	/* ...and the delay runs from the last check that saw it. */
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now + 200,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, p.last_busy, now + 100);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now + 600,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_GO);
	KUNIT_EXPECT_EQ(test, batch, 32U);
	/* A lack of room lasts: looked at again after the whole delay. */
	s.free_falling = false;
	s.swap_full = true;
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &s, now + 700,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_SWAP_FULL);
	KUNIT_EXPECT_EQ(test, p.next, now + 700 + 500);
	KUNIT_EXPECT_EQ(test, batch, 0U);
}

static void swap_prefetch_test_pace_contention(struct kunit *test)
{
	struct swap_prefetch_tunables t = fixed_pacing;
	struct swap_prefetch_pacer p = { };
	struct swap_prefetch_snapshot s = idle_snapshot;
	const unsigned long now = 1000;
	unsigned int batch, round;

	t.adaptive = true;
	for (round = 0; round < 4; round++)
		swap_prefetch_pace(&p, &idle_snapshot, now, &t, &batch);
	KUNIT_ASSERT_EQ(test, batch, 32U << 3);
	/*
	 * A busy CPU skips rounds and starts the ramp over, but is not
	 * pressure: reading resumes at the next quiet check, not one delay
	 * later.
	 */
	s.cpu_busy = true;
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &s, now + 10, &t, &batch),
			SWAP_PREFETCH_CPU_BUSY);
	KUNIT_EXPECT_EQ(test, batch, 0U);
	KUNIT_EXPECT_EQ(test, p.next, now + 10 + 100);
	KUNIT_EXPECT_FALSE(test, p.seen_busy);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, now + 110,
						 &t, &batch), SWAP_PREFETCH_GO);
	KUNIT_EXPECT_EQ(test, batch, 32U);
}

/*
 * Others' I/O on the swap disks holds reading off until the disks were
 * quiet for the whole delay: a stream whose gaps are shorter than the
 * delay never lets a round into one, and reading resumes at most an
 * interval after the delay that follows its end.
 */
static void swap_prefetch_test_pace_swap_io_gaps(struct kunit *test)
{
	struct swap_prefetch_tunables t = fixed_pacing;
	struct swap_prefetch_pacer p = { };
	struct swap_prefetch_snapshot s = idle_snapshot;
	unsigned long now = 1000, end = now;
	unsigned int batch, gap, check, rounds = 0;

	t.adaptive = true;
	/* Gaps of 1 to 4 quiet checks between busy ones; the delay is 5. */
	for (gap = 1; gap < t.delay / t.interval; gap++) {
		for (check = 0; check <= gap; check++) {
			s.swap_contended = !check;
			if (!check)
				end = now;
			swap_prefetch_pace(&p, &s, now, &t, &batch);
			rounds += batch != 0;
			KUNIT_EXPECT_EQ(test, p.next, now + t.interval);
			now = p.next;
		}
	}
	KUNIT_EXPECT_EQ(test, rounds, 0U);
	/* The stream ended at its last busy check, @end. */
	while (swap_prefetch_pace(&p, &idle_snapshot, now, &t, &batch) !=
	       SWAP_PREFETCH_GO && now < end + 10 * t.delay)
		now = p.next;
	KUNIT_EXPECT_GE(test, now, end + t.delay);
	KUNIT_EXPECT_LE(test, now, end + t.delay + t.interval);
	KUNIT_EXPECT_EQ(test, batch, 32U);
}

static void swap_prefetch_test_round_done(struct kunit *test)
{
	struct swap_prefetch_tunables t = fixed_pacing;
	struct swap_prefetch_pacer p = { };
	unsigned int batch, round;
	unsigned long now = 0;

	t.adaptive = true;
	/*
	 * A failure that repeats every round (a charge that always fails)
	 * must not speed rounds up: each NOMEM stop waits a whole delay and
	 * starts from the first small batch.
	 */
	for (round = 0; round < 20; round++) {
		KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot,
							 now, &t, &batch),
				SWAP_PREFETCH_GO);
		KUNIT_EXPECT_EQ(test, batch, 32U);
		swap_prefetch_round_done(&p, SWAP_PREFETCH_STOP_NOMEM, now, &t);
		KUNIT_EXPECT_EQ(test, p.next, now + 500);
		now = p.next;
	}
	/* Running out of room is paced the same way. */
	swap_prefetch_pace(&p, &idle_snapshot, now, &t, &batch);
	swap_prefetch_round_done(&p, SWAP_PREFETCH_STOP_LOW_FREE, now, &t);
	KUNIT_EXPECT_EQ(test, p.streak, 0U);
	KUNIT_EXPECT_EQ(test, p.next, now + 500);
	/* A round that read its batch keeps the ramp. */
	now = p.next;
	swap_prefetch_pace(&p, &idle_snapshot, now, &t, &batch);
	swap_prefetch_round_done(&p, SWAP_PREFETCH_STOP_DONE, now, &t);
	KUNIT_EXPECT_EQ(test, p.streak, 1U);
	KUNIT_EXPECT_EQ(test, p.next, now + 100);
	swap_prefetch_pace(&p, &idle_snapshot, p.next, &t, &batch);
	KUNIT_EXPECT_EQ(test, batch, 64U);
}

static void swap_prefetch_test_recheck(struct kunit *test)
{
	struct swap_prefetch_tunables t = fixed_pacing;

	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_BUSY, &t), 100UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_FREE_FALLING, &t), 100UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_SWAP_IO, &t), 100UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_CPU_BUSY, &t), 100UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_LAPTOP_MODE, &t), 500UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_LOW_FREE, &t), 500UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_MAPPED, &t), 500UL);
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_SWAP_FULL, &t), 500UL);
	/* An interval longer than the delay never postpones the first look. */
	t.interval = 1000;
	KUNIT_EXPECT_EQ(test, swap_prefetch_recheck(SWAP_PREFETCH_BUSY, &t), 500UL);
}

static void swap_prefetch_test_pace_wrap(struct kunit *test)
{
	struct swap_prefetch_pacer p = { };
	const unsigned long busy_at = ULONG_MAX - 10;
	unsigned int batch;

	/* The quiet period spans the jiffies wrap. */
	swap_prefetch_mark_busy(&p);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, busy_at,
						 &fixed_pacing, &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot,
						 busy_at + 499, &fixed_pacing,
						 &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot,
						 busy_at + 500, &fixed_pacing,
						 &batch),
			SWAP_PREFETCH_GO);
	KUNIT_EXPECT_TRUE(test, time_after(p.next, busy_at + 500));
}

static void swap_prefetch_test_pace_fixed(struct kunit *test)
{
	struct swap_prefetch_pacer p = { };
	unsigned int batch, round;

	/* Without adaptation every idle round is the same 32 pages. */
	for (round = 0; round < 20; round++) {
		KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, 0,
							 &fixed_pacing, &batch),
				SWAP_PREFETCH_GO);
		KUNIT_EXPECT_EQ(test, batch, 32U);
		KUNIT_EXPECT_EQ(test, p.next, 100UL);
	}
}

static void swap_prefetch_test_pace_adaptive(struct kunit *test)
{
	struct swap_prefetch_tunables t = fixed_pacing;
	struct swap_prefetch_pacer p = { };
	struct swap_prefetch_snapshot busy = idle_snapshot;
	unsigned int batch, round;

	t.adaptive = true;
	/* 32, 64, ... pages, each round sooner, down to the floor. */
	for (round = 0; round < 8; round++) {
		KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, 0,
							 &t, &batch),
				SWAP_PREFETCH_GO);
		KUNIT_EXPECT_EQ_MSG(test, batch,
				    min(32U << round, SWAP_PREFETCH_BATCH_MAX),
				    "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, p.next,
				    max(100UL >> (2 * round),
					(unsigned long)SWAP_PREFETCH_MIN_INTERVAL),
				    "round %u", round);
	}
	/* The shift saturates instead of overflowing. */
	for (round = 0; round < 64; round++)
		swap_prefetch_pace(&p, &idle_snapshot, 0, &t, &batch);
	KUNIT_EXPECT_EQ(test, p.streak, (unsigned int)SWAP_PREFETCH_MAX_STREAK);
	KUNIT_EXPECT_EQ(test, batch, (unsigned int)SWAP_PREFETCH_BATCH_MAX);
	/* Rounds never run back to back, however long the idle streak. */
	KUNIT_EXPECT_GE(test, p.next, 1UL);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)SWAP_PREFETCH_MIN_INTERVAL);
	/* One busy round starts over from the first small batch. */
	busy.activity = BIT(SWAP_PREFETCH_ACT_SCAN_KSWAPD);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &busy, 0, &t, &batch),
			SWAP_PREFETCH_BUSY);
	KUNIT_EXPECT_EQ(test, p.streak, 0U);
	KUNIT_EXPECT_EQ(test, swap_prefetch_pace(&p, &idle_snapshot, 500, &t,
						 &batch), SWAP_PREFETCH_GO);
	KUNIT_EXPECT_EQ(test, batch, 32U);
	KUNIT_EXPECT_EQ(test, p.next, 600UL);
}

static void swap_prefetch_test_memcg_room_ok(struct kunit *test)
{
	/* 800-page limit: prefetch keeps 100 pages free for the group. */
	KUNIT_EXPECT_TRUE(test, swap_prefetch_memcg_room_ok(698, 800));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_memcg_room_ok(699, 800));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_memcg_room_ok(700, 800));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_memcg_room_ok(800, 800));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_memcg_room_ok(900, 800));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_memcg_room_ok(0, 0));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_memcg_room_ok(1UL << 40,
							    PAGE_COUNTER_MAX));
}

/* Half of the swap limit, the line vm_swap_full() draws globally. */
static void swap_prefetch_test_swap_room_ok(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, swap_prefetch_swap_room_ok(0, 1000));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_swap_room_ok(499, 1000));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_swap_room_ok(500, 1000));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_swap_room_ok(1000, 1000));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_swap_room_ok(1001, 1000));
	/* memory.swap.max = 0: the group may not swap, so prefetch may not. */
	KUNIT_EXPECT_FALSE(test, swap_prefetch_swap_room_ok(0, 0));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_swap_room_ok(1UL << 40,
							   PAGE_COUNTER_MAX));
}

/*
 * A reused slot: its record is dropped only when the slot's shadow shows
 * a folio of another node was evicted to it since; no shadow (never
 * evicted with one, or shadows reclaimed) leaves the record to its node.
 */
static void swap_prefetch_test_record_outlived(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, swap_prefetch_record_outlived(1, 1));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_record_outlived(0, 0));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_record_outlived(1, 0));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_record_outlived(0, 1));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_record_outlived(1, NUMA_NO_NODE));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_record_outlived(0, NUMA_NO_NODE));
}

/*
 * The shrinker's gate, across a jiffies wrap: a reader that reads every
 * page once moves no workingset activation, and after a second the gate
 * stays shut however often it is asked; an activation between two looks
 * a second apart or less opens it at once, for a second from then;
 * refaults in bursts keep it open.  Activations while nobody looked for
 * longer (an earlier job's, before this reclaim began) cannot be dated
 * and open nothing.
 */
static void swap_prefetch_test_refault_gate(struct kunit *test)
{
	struct swap_prefetch_refault_gate g = {};
	const unsigned long t0 = -(unsigned long)HZ / 2;
	unsigned long now, count = 100;
	unsigned int i;

	swap_prefetch_cache_refaulting(&g, count, t0 - 10 * HZ);
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cache_refaulting(&g, ++count,
							       t0 - 10 * HZ + 1));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cache_refaulting(&g, count,
							       t0 - 9 * HZ));
	for (now = t0 - 9 * HZ + 1; time_before(now, t0 + 60 * HZ);
	     now += HZ / 4)
		KUNIT_EXPECT_FALSE_MSG(test,
				       swap_prefetch_cache_refaulting(&g, count, now),
				       "%ld jiffies after the last move",
				       (long)(now - (t0 - 10 * HZ + 1)));

	KUNIT_EXPECT_TRUE(test, swap_prefetch_cache_refaulting(&g, ++count, now));
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cache_refaulting(&g, count,
							       now + HZ - 1));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cache_refaulting(&g, count,
								now + HZ));

	/* A minute without a look, during which an earlier job refaulted. */
	now += 60 * HZ;
	count += 5000;
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cache_refaulting(&g, count, now));
	KUNIT_EXPECT_FALSE(test, swap_prefetch_cache_refaulting(&g, count,
								now + HZ / 2));
	now += HZ / 2 + 1;
	KUNIT_EXPECT_TRUE(test, swap_prefetch_cache_refaulting(&g, ++count, now));

	/* Activations every 0.9 s, and looks in between: open throughout. */
	for (i = 0; i < 40; i++) {
		now += HZ / 10;
		if (i % 9 == 0)
			count++;
		KUNIT_EXPECT_TRUE_MSG(test,
				      swap_prefetch_cache_refaulting(&g, count, now),
				      "look %u", i);
	}
}

static struct kunit_case swap_prefetch_idle_cases[] = {
	KUNIT_CASE_PARAM(swap_prefetch_test_idle_verdict, verdict_gen_params),
	KUNIT_CASE_PARAM(swap_prefetch_test_zone_ok, zone_gen_params),
	KUNIT_CASE(swap_prefetch_test_zones_short),
	KUNIT_CASE(swap_prefetch_test_trend_unknown_first),
	KUNIT_CASE(swap_prefetch_test_trend_churn_is_steady),
	KUNIT_CASE(swap_prefetch_test_trend_growth_is_falling),
	KUNIT_CASE(swap_prefetch_test_trend_slack_scales),
	KUNIT_CASE(swap_prefetch_test_trend_slack_boundary),
	KUNIT_CASE_PARAM(swap_prefetch_test_io_contended, io_gen_params),
	KUNIT_CASE(swap_prefetch_test_cpu_busy),
	KUNIT_CASE(swap_prefetch_test_activity_mask),
	KUNIT_CASE(swap_prefetch_test_group_calm_own_pressure),
	KUNIT_CASE(swap_prefetch_test_group_calm_bounded),
	KUNIT_CASE(swap_prefetch_test_group_calm_held_kept),
	KUNIT_CASE(swap_prefetch_test_exchange_streamed),
	KUNIT_CASE(swap_prefetch_test_exchange_stream_swaps_little),
	KUNIT_CASE(swap_prefetch_test_exchange_turnover),
	KUNIT_CASE(swap_prefetch_test_exchange_reread),
	KUNIT_CASE(swap_prefetch_test_exchange_slab_room),
	KUNIT_CASE(swap_prefetch_test_slab_priority),
	KUNIT_CASE(swap_prefetch_test_exchange_unused),
	KUNIT_CASE(swap_prefetch_test_exchange_stop_lasts),
	KUNIT_CASE(swap_prefetch_test_pace_busy_once),
	KUNIT_CASE(swap_prefetch_test_pace_snapshot),
	KUNIT_CASE(swap_prefetch_test_pace_contention),
	KUNIT_CASE(swap_prefetch_test_pace_swap_io_gaps),
	KUNIT_CASE(swap_prefetch_test_round_done),
	KUNIT_CASE(swap_prefetch_test_recheck),
	KUNIT_CASE(swap_prefetch_test_pace_wrap),
	KUNIT_CASE(swap_prefetch_test_pace_fixed),
	KUNIT_CASE(swap_prefetch_test_pace_adaptive),
	KUNIT_CASE(swap_prefetch_test_memcg_room_ok),
	KUNIT_CASE(swap_prefetch_test_swap_room_ok),
	KUNIT_CASE(swap_prefetch_test_record_outlived),
	KUNIT_CASE(swap_prefetch_test_refault_gate),
	{}
};

static struct kunit_suite swap_prefetch_idle_suite = {
	.name = "swap_prefetch_idle",
	.test_cases = swap_prefetch_idle_cases,
};

kunit_test_suites(&swap_prefetch_tracker_suite, &swap_prefetch_trylock_suite,
		  &swap_prefetch_mark_suite, &swap_prefetch_idle_suite);

MODULE_DESCRIPTION("KUnit tests for swap prefetch");
MODULE_LICENSE("GPL");
