// SPDX-License-Identifier: GPL-2.0
/*
 * Swap prefetch: when the VM has been idle for a while and memory is free,
 * read the most recently swapped-out anonymous and shmem pages back into
 * the swap cache, so that the next access to them is a minor fault.  The
 * pages keep their copy on the swap device: reclaim can drop them again
 * without I/O.
 *
 * Follows the behaviour of Con Kolivas's swap prefetch (2005).
 *
 * Tracking: each CPU records its swap-outs into page-sized chunks of
 * 32-bit offsets (struct swap_prefetch_chunk), two open chunks per node,
 * each of one swap device, that node and one memory cgroup (the last two
 * groups recorded); a full chunk goes onto a
 * lock-free list, from which kprefetchd collects it onto the tracker's
 * list, newest first.  There is no index: an entry
 * that was swapped in or freed since its record is found cached or free
 * when kprefetchd reads it, and skipped.  So the swap-in and slot-free
 * paths only clear the mark of a prefetched page, and memory is 4 bytes
 * per tracked page, allocated
 * when swap-out first needs it and freed when read or purged.  Near its
 * cap, kprefetchd trims the tracker: dead entries first, then the oldest
 * entries of the memory cgroups that hold more than an even share, so
 * that one group's swap storm does not push out another group's entries.
 *
 * Locking:
 *
 * - swap_prefetch_shard.lock protects one CPU's open chunk.  Swap-out
 *   only trylocks it and drops the record on contention: a lost record
 *   costs one missed prefetch, waiting would cost reclaim latency.  Only
 *   kprefetchd (when it reads), a purge, debugfs, and a recorder that
 *   was moved to another CPU after picking the shard contend for it.
 *   Swap-out takes no other lock, except the allocator's when it needs a
 *   new chunk page (once per 1014 records).
 * - swap_prefetch_tracker.lock, a mutex, protects the collected chunks.
 *   Only process context takes it: kprefetchd, swapoff (under
 *   swapon_mutex), the switch and debugfs; never the swap paths.  The
 *   shard locks nest inside it.  Its walks may cover every tracked entry,
 *   millions on a big machine: each reschedules between two chunks
 *   (swap_prefetch_tracker_breathe()).
 * - A purge (swapoff, switching off) moves the swap type's generation on
 *   under the tracker lock.  Entries recorded before are stale from then
 *   on wherever they are: kprefetchd pins the device with
 *   get_swap_device(), which swapoff waits for, and checks the generation
 *   again before it reads.  Nothing purged comes back.
 * - swap_prefetch_mutex serialises the writes that switch the feature.
 * - The shrinker finds unused prefetched folios by their mark under RCU,
 *   and only trylocks them: it runs inside reclaim, whoever called it.
 * - kprefetchd makes room (reclaim_use_once_file(), reclaim_slab_node())
 *   holding none of these locks: inodes the shrinkers evict may free swap
 *   entries of their own.  Its calls skip the shrinker above.
 * - kprefetchd marks the folios it reads under the swap cache's xarray
 *   lock that publishes them (swap_prefetch_note_add()); lookups and
 *   removals clear the mark under the same lock.
 */

#define pr_fmt(fmt) "swap_prefetch: " fmt

#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/freezer.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/ioprio.h>
#include <linux/kernel_stat.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/mempolicy.h>
#include <linux/mm_inline.h>
#include <linux/part_stat.h>
#include <linux/percpu_counter.h>
#include <linux/psi.h>
#include <linux/sched/cputime.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/swap_cgroup.h>
#include <linux/swap_prefetch.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/tick.h>
#include <linux/vmstat.h>
#include <linux/writeback.h>
#include <linux/zswap.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#ifdef CONFIG_MEMCG
#include "memcontrol-v1.h"	/* memcg_events() */
#endif
#include "internal.h"
#include "swap.h"

#define CREATE_TRACE_POINTS
#include <trace/events/swap_prefetch.h>

DEFINE_STATIC_KEY_FALSE(swap_prefetch_enabled_key);
struct task_struct *kprefetchd_task __read_mostly;

/* 1: record swapped-out entries and prefetch them when idle. */
static int swap_prefetch_on __read_mostly = 1;
/*
 * The 2005 defaults: after any VM activity wait 5 s, then read 128 KiB
 * (32 pages of 4 KiB) a second while the VM stays idle.
 */
static int swap_prefetch_delay_ms __read_mostly = 5000;
static int swap_prefetch_interval_ms __read_mostly = 1000;
static int swap_prefetch_batch_pages __read_mostly =
	DIV_ROUND_UP(SZ_128K, PAGE_SIZE);
/*
 * 2005's fixed 128 KiB/s would need half an hour for 256 MiB: speed up
 * while the VM stays idle, drop back at the first sign of activity.
 */
static int swap_prefetch_adaptive __read_mostly = 1;

static DEFINE_MUTEX(swap_prefetch_mutex);
static DECLARE_WAIT_QUEUE_HEAD(kprefetchd_wait);
static struct swap_prefetch_tracker swap_prefetch_global;
/*
 * Pages in the swap cache with %SWAP_PREFETCH_MARK: read by kprefetchd,
 * not used yet.  Per CPU, as the marks are cleared wherever the pages go.
 */
static struct percpu_counter swap_prefetch_nr_unused;

/* kprefetchd's private state: only the thread touches these. */
static struct swap_prefetch_pacer kprefetchd_pacer;
static unsigned long kprefetchd_events[NR_VM_EVENT_ITEMS];
static unsigned long kprefetchd_activity[NR_SWAP_PREFETCH_ACT];
static struct swap_prefetch_trend kprefetchd_trend;
static unsigned long kprefetchd_freed;
/* The nodes with room for prefetched pages, as last looked at. */
static nodemask_t kprefetchd_room;
/* The memory cgroups this round found without room. */
static struct swap_prefetch_groups kprefetchd_held;
/* The memory pressure of the groups kprefetchd looked at lately. */
static struct swap_prefetch_watch kprefetchd_watch;
/* Pages kprefetchd read itself: not foreground swap-in or allocation. */
static unsigned long kprefetchd_own_reads;
/* The swap disks' I/O at the start of the current window. */
static struct {
	unsigned long at;	/* jiffies */
	unsigned long sectors;	/* read and written */
	unsigned long ticks;	/* with requests in flight */
	unsigned long own;	/* sectors kprefetchd read */
	bool contended;		/* the last window's answer */
} kprefetchd_io;
/* CPU time at the last CPU sample: when, tasks', kprefetchd's own. */
static u64 kprefetchd_cpu_at, kprefetchd_cpu_tasks, kprefetchd_cpu_own;
static bool kprefetchd_cpu_was_busy;
/* The dead entries were sifted out since the VM was last found busy. */
static bool kprefetchd_sifted;
/* Use-once page cache for swapped-out pages. */
static struct swap_prefetch_exchange kprefetchd_exchange;
/* Bit 0: a knob changed the pacing; look again now. */
static unsigned long kprefetchd_kick;
/*
 * A round reads in slices: it pops a slice, reads it in offset order, and
 * looks for foreground activity before the next.  A slice that stops for
 * want of memory puts what it did not read back.
 */
#define KPREFETCHD_SLICE	32
static struct swap_prefetch_candidate kprefetchd_batch[KPREFETCHD_SLICE];
static struct folio *kprefetchd_folios[SWAP_PREFETCH_BATCH_MAX];

/*
 * Reclaim records every page it is about to free, and runs when free
 * memory is below the min watermark, where GFP_NOWAIT fails: measured, a
 * quarter of a 128 MiB swap-out went unrecorded.  __GFP_HIGH may dip into
 * half of the min reserve; a chunk page holds 1014 records, so that costs
 * 0.1% of what the same reclaim frees.  Never the PF_MEMALLOC reserves,
 * never reclaim, never a wait.
 */
#define SWAP_PREFETCH_CHUNK_GFP	\
	(GFP_NOWAIT | __GFP_HIGH | __GFP_NOWARN | __GFP_NOMEMALLOC)

/* How many open chunks a shard keeps for @nr_nodes nodes. */
static unsigned int swap_prefetch_nr_open(unsigned int nr_nodes)
{
	return nr_nodes * SWAP_PREFETCH_OPEN_PER_NODE;
}

/**
 * swap_prefetch_shards_alloc - allocate a shard per possible CPU
 * @nr_nodes: the nodes a shard keeps open chunks for
 *
 * Return: the shards, or NULL.  free_percpu() frees them.
 */
VISIBLE_IF_KUNIT struct swap_prefetch_shard __percpu *
swap_prefetch_shards_alloc(unsigned int nr_nodes)
{
	return __alloc_percpu(struct_size_t(struct swap_prefetch_shard, open,
					    swap_prefetch_nr_open(nr_nodes)),
			      __alignof__(struct swap_prefetch_shard));
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_shards_alloc);

/**
 * swap_prefetch_tracker_init - set up an empty tracker
 * @t: the tracker
 * @shards: from swap_prefetch_shards_alloc(@nr_nodes), not yet initialised
 * @nr_nodes: nodes whose pages may be recorded: 0 to @nr_nodes - 1
 * @max_chunks: how many chunks it may hold before recycling the oldest
 *
 * An empty tracker holds no chunk: chunks are allocated by the first
 * record that needs one.
 */
VISIBLE_IF_KUNIT void
swap_prefetch_tracker_init(struct swap_prefetch_tracker *t,
			   struct swap_prefetch_shard __percpu *shards,
			   unsigned int nr_nodes, unsigned long max_chunks)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct swap_prefetch_shard *shard = per_cpu_ptr(shards, cpu);

		spin_lock_init(&shard->lock);
		for (i = 0; i < swap_prefetch_nr_open(nr_nodes); i++)
			shard->open[i] = NULL;
	}
	t->shards = shards;
	t->nr_nodes = nr_nodes;
	init_llist_head(&t->full);
	mutex_init(&t->lock);
	INIT_LIST_HEAD(&t->chunks);
	atomic_long_set(&t->nr_chunks, 0);
	t->max_chunks = max(max_chunks, 1UL);
	t->trim = 0;
	memset(t->gen, 0, sizeof(t->gen));
	t->owners = NULL;
	t->fair = NULL;
	t->stopped = false;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_init);

/*
 * Start @c over, empty, for swap @type at its current generation, and
 * the pages of node @nid and memory cgroup @memcg.
 */
static void swap_prefetch_chunk_reset(struct swap_prefetch_tracker *t,
				      struct swap_prefetch_chunk *c,
				      unsigned int type, int nid,
				      unsigned short memcg)
{
	c->type = type;
	c->memcg = memcg;
	c->gen = READ_ONCE(t->gen[type]);
	c->nr = 0;
	c->nid = nid;
}

/*
 * The page of a new chunk, or NULL.  A function of its own so that KUnit
 * can make it fail (kunit_activate_static_stub()).
 */
VISIBLE_IF_KUNIT struct swap_prefetch_chunk *swap_prefetch_chunk_alloc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(swap_prefetch_chunk_alloc);
	return (void *)__get_free_page(SWAP_PREFETCH_CHUNK_GFP);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_chunk_alloc);

/*
 * Ask kprefetchd to trim; true if nobody had asked since its last trim.
 * Looked at first: at the cap every record asks, from every CPU.
 */
static bool swap_prefetch_ask_trim(struct swap_prefetch_tracker *t)
{
	return !test_bit(0, &t->trim) && !test_and_set_bit(0, &t->trim);
}

/*
 * A fresh chunk for @type: ERR_PTR(-ENOSPC) at the cap, ERR_PTR(-ENOMEM) if
 * no page is free.  *@wake is set if kprefetchd must be woken: the tracker
 * held no chunk before (kprefetchd sleeps without a timeout then), or it
 * nears or is at its cap and the oldest chunks should be recycled.  The cap
 * may be reached without a new chunk (a round puts back what it popped) or
 * stay reached after a trim: a record refused at the cap asks for a trim
 * too.  The count decides "empty", atomically and only once the chunk exists,
 * so of all the records racing with kprefetchd's free of the last chunk
 * exactly one sees the tracker empty.  The cap is looked at first as well, so
 * that swap-out at the cap neither takes a page only to give it back nor
 * mistakes the cap for a lack of memory.
 */
static struct swap_prefetch_chunk *
swap_prefetch_chunk_new(struct swap_prefetch_tracker *t, unsigned int type,
			int nid, unsigned short memcg, bool *wake)
{
	struct swap_prefetch_chunk *c;
	long nr;

	if (atomic_long_read(&t->nr_chunks) >= t->max_chunks)
		goto at_cap;
	c = swap_prefetch_chunk_alloc();
	if (!c)
		return ERR_PTR(-ENOMEM);
	nr = atomic_long_inc_return(&t->nr_chunks);
	if (nr > t->max_chunks) {
		atomic_long_dec(&t->nr_chunks);
		free_page((unsigned long)c);
		goto at_cap;
	}
	swap_prefetch_chunk_reset(t, c, type, nid, memcg);
	if (nr == 1)
		*wake = true;
	if (nr >= t->max_chunks - t->max_chunks / 8)
		*wake |= swap_prefetch_ask_trim(t);
	return c;
at_cap:
	*wake |= swap_prefetch_ask_trim(t);
	return ERR_PTR(-ENOSPC);
}

static void swap_prefetch_chunk_free(struct swap_prefetch_tracker *t,
				     struct swap_prefetch_chunk *c)
{
	free_page((unsigned long)c);
	atomic_long_dec(&t->nr_chunks);
}

/* Take a collected chunk off t->chunks and free it.  Caller holds t->lock. */
static void swap_prefetch_chunk_drop(struct swap_prefetch_tracker *t,
				     struct swap_prefetch_chunk *c)
{
	lockdep_assert_held(&t->lock);
	list_del(&c->list);
	swap_prefetch_chunk_free(t, c);
}

/**
 * swap_prefetch_tracker_breathe - a point between two chunks of a walk
 * @t: the tracker, whose lock the caller holds
 *
 * At the cap the tracker holds about one entry per page of RAM, 16 M at
 * 64 GiB: a walk over all of them in one go would hold the CPU for
 * hundreds of milliseconds.  Every walk over the chunks calls this after
 * each chunk, so it runs through at most one chunk's entries between two
 * chances to reschedule; t->lock is a mutex, held across.  A function of
 * its own so that KUnit can count the entries seen between two calls
 * (kunit_activate_static_stub()).
 */
VISIBLE_IF_KUNIT void
swap_prefetch_tracker_breathe(struct swap_prefetch_tracker *t)
{
	KUNIT_STATIC_STUB_REDIRECT(swap_prefetch_tracker_breathe, t);
	lockdep_assert_held(&t->lock);
	cond_resched();
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_breathe);

/* Was the chunk's device purged since it was opened? */
static bool swap_prefetch_chunk_stale(struct swap_prefetch_tracker *t,
				      const struct swap_prefetch_chunk *c)
{
	return c->gen != READ_ONCE(t->gen[c->type]);
}

/*
 * Hand the open chunk @slot (of shard->open[]) over to kprefetchd, as
 * the newest, or free it if it holds nothing.  Caller holds the shard
 * lock.
 */
static void swap_prefetch_shard_close(struct swap_prefetch_tracker *t,
				      struct swap_prefetch_shard *shard,
				      unsigned int slot)
{
	struct swap_prefetch_chunk *c = shard->open[slot];

	lockdep_assert_held(&shard->lock);
	shard->open[slot] = NULL;
	if (c->nr)
		llist_add(&c->llnode, &t->full);
	else
		swap_prefetch_chunk_free(t, c);
}

/*
 * The chunk that takes the next record of swap @type from node @nid and
 * memory cgroup @memcg, or ERR_PTR(-ENOSPC) at the cap when the shard has
 * no chunk of its own to start over, or ERR_PTR(-ENOMEM) when no page is
 * free.  A chunk holds one device's entries of one node and one group.
 * Each node has two open chunks, of the group recorded last and of the
 * one before: reclaim takes a group's pages in runs, from group to group
 * and back, and a record of a third group closes the older chunk.  What
 * that leaves part-filled is packed at the next sift or trim.  Caller
 * holds the shard lock.
 *
 * Without a page for a new chunk, the record that needed it is dropped
 * and the open chunk kept: allocations fail while a job fills memory,
 * just as it pushes out the pages that matter, and each of those records
 * is worth as much as the one it would make room for.
 */
static struct swap_prefetch_chunk *
swap_prefetch_shard_room(struct swap_prefetch_tracker *t,
			 struct swap_prefetch_shard *shard, unsigned int type,
			 int nid, unsigned short memcg, unsigned long *recycled,
			 bool *wake)
{
	struct swap_prefetch_chunk **open, *c, *fresh;
	unsigned int slot = nid * SWAP_PREFETCH_OPEN_PER_NODE;

	lockdep_assert_held(&shard->lock);
	open = &shard->open[slot];
	/* The group before comes back: its chunk is the last one again. */
	if (open[0] && open[0]->memcg != memcg && open[1] &&
	    open[1]->memcg == memcg)
		swap(open[0], open[1]);
	c = open[0];
	if (c && swap_prefetch_chunk_stale(t, c)) {
		/*
		 * A purge has moved the generation on and not yet reached
		 * this shard to close its chunk: what it holds was purged,
		 * start it over.
		 */
		swap_prefetch_chunk_reset(t, c, type, nid, memcg);
		return c;
	}
	if (c && c->type == type && c->memcg == memcg &&
	    c->nr < SWAP_PREFETCH_CHUNK_SLOTS)
		return c;
	fresh = swap_prefetch_chunk_new(t, type, nid, memcg, wake);
	if (IS_ERR(fresh)) {
		/* No page, or at the cap with nothing of its own to give up. */
		if (!c || PTR_ERR(fresh) == -ENOMEM)
			return fresh;
		/*
		 * At the cap before kprefetchd could recycle the oldest
		 * chunks: start this shard's open chunk over, the only one
		 * swap-out can reach without a lock of kprefetchd's.
		 */
		*recycled += c->nr;
		swap_prefetch_chunk_reset(t, c, type, nid, memcg);
		return c;
	}
	if (c && c->memcg != memcg) {
		/* Another group's: it stays open, one behind. */
		if (open[1])
			swap_prefetch_shard_close(t, shard, slot + 1);
		open[1] = c;
	} else if (c) {
		swap_prefetch_shard_close(t, shard, slot);
	}
	open[0] = fresh;
	return fresh;
}

/**
 * swap_prefetch_tracker_add - record swapped-out entries as the newest
 * @t: the tracker
 * @shard: the calling CPU's shard
 * @entry: the first entry
 * @nr: how many consecutive entries (all those of a large folio)
 * @nid: the node the folio is on
 * @memcg: the id of the memory cgroup the entries are charged to
 * @recycled: set to how many entries were dropped at the cap: older ones
 *	recycled to make room, or these, when the shard had no chunk to recycle
 * @wake: set to true if kprefetchd must be woken (see
 *	swap_prefetch_chunk_new())
 *
 * Never waits: called from reclaim.  An entry recorded twice is simply
 * there twice; the older record is found cached or stale when read.
 *
 * Return: the number of entries recorded: fewer than @nr if no page could
 * be had for a chunk, or if the cap refused them (only when the shard had
 * no chunk to start over: then none is recorded, and all are counted in
 * *@recycled), none once the tracker is stopped; or -EBUSY if the shard
 * was locked and nothing was recorded.
 */
VISIBLE_IF_KUNIT long
swap_prefetch_tracker_add(struct swap_prefetch_tracker *t,
			  struct swap_prefetch_shard *shard, swp_entry_t entry,
			  unsigned long nr, int nid, unsigned short memcg,
			  unsigned long *recycled, bool *wake)
{
	unsigned int type = swp_type(entry);
	pgoff_t offset = swp_offset(entry);
	struct swap_prefetch_chunk *c;
	unsigned long i;

	*recycled = 0;
	*wake = false;
	if (!spin_trylock(&shard->lock))
		return -EBUSY;
	/*
	 * A reclaimer that passed the static key before it was switched
	 * off: swap_prefetch_tracker_stop() set this before its purge took
	 * this lock, so the record either lands before the purge or not
	 * at all.
	 */
	if (READ_ONCE(t->stopped))
		nr = 0;
	for (i = 0; i < nr; i++) {
		/* Offsets are kept in 32 bits: 16 TiB of swap per device. */
		if (offset + i > U32_MAX)
			break;
		c = swap_prefetch_shard_room(t, shard, type, nid, memcg,
					     recycled, wake);
		if (IS_ERR(c)) {
			/* The cap refused these: they count as recycled. */
			if (PTR_ERR(c) == -ENOSPC)
				*recycled += nr - i;
			break;
		}
		c->offsets[c->nr++] = offset + i;
	}
	spin_unlock(&shard->lock);
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_add);

/* Move the filled chunks onto t->chunks, newest first.  Caller holds t->lock. */
static void swap_prefetch_tracker_collect(struct swap_prefetch_tracker *t)
{
	struct swap_prefetch_chunk *c, *tmp;
	struct llist_node *first;

	lockdep_assert_held(&t->lock);
	/* The llist is newest first: add the oldest first, each at the head. */
	first = llist_reverse_order(llist_del_all(&t->full));
	llist_for_each_entry_safe(c, tmp, first, llnode)
		list_add(&c->list, &t->chunks);
}

/*
 * Does @shard hold an open chunk?  A look without its lock: a chunk that
 * swap-out opens meanwhile holds records newer than the walk, which the
 * next one collects.
 */
static bool swap_prefetch_shard_has_open(const struct swap_prefetch_tracker *t,
					 const struct swap_prefetch_shard *shard)
{
	unsigned int i;

	for (i = 0; i < swap_prefetch_nr_open(t->nr_nodes); i++) {
		/* Racy by design: a chunk opened meanwhile waits. */
		if (data_race(shard->open[i]))
			return true;
	}
	return false;
}

/**
 * swap_prefetch_shard_collect - hand a shard's open chunks over
 * @t: the tracker, whose lock the caller holds
 * @shard: a shard that has an open chunk
 *
 * A function of its own so that KUnit can count the shard locks a walk
 * takes (kunit_activate_static_stub()).
 */
VISIBLE_IF_KUNIT void
swap_prefetch_shard_collect(struct swap_prefetch_tracker *t,
			    struct swap_prefetch_shard *shard)
{
	unsigned int i;

	KUNIT_STATIC_STUB_REDIRECT(swap_prefetch_shard_collect, t, shard);
	spin_lock(&shard->lock);
	for (i = 0; i < swap_prefetch_nr_open(t->nr_nodes); i++)
		if (shard->open[i])
			swap_prefetch_shard_close(t, shard, i);
	spin_unlock(&shard->lock);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_shard_collect);

/*
 * Close every shard's open chunk too, which holds the newest records, and
 * collect them all: for kprefetchd's reads, which run while swap-out is
 * idle, and for a purge.  A shard then starts a fresh chunk.  Only the
 * shards that have an open chunk are locked: kprefetchd pops every slice,
 * and after the first pop of a streak swap-out has opened none, on any
 * of what may be hundreds of CPUs.  Caller holds t->lock.
 */
static void swap_prefetch_tracker_collect_all(struct swap_prefetch_tracker *t)
{
	int cpu;

	lockdep_assert_held(&t->lock);
	for_each_possible_cpu(cpu) {
		struct swap_prefetch_shard *shard = per_cpu_ptr(t->shards, cpu);

		if (swap_prefetch_shard_has_open(t, shard))
			swap_prefetch_shard_collect(t, shard);
	}
	swap_prefetch_tracker_collect(t);
}

/* Is group @id one of @g's?  @g may be NULL, for none. */
static bool swap_prefetch_groups_has(const struct swap_prefetch_groups *g,
				     unsigned short id)
{
	unsigned int i;

	for (i = 0; g && i < g->nr; i++)
		if (g->id[i] == id)
			return true;
	return false;
}

/**
 * swap_prefetch_groups_add - note a memory cgroup without room
 * @g: the groups a round passes over
 * @id: the group's id
 *
 * Return: false if @g is full and does not have @id: the group's entries
 * are then popped again, and put back again, for the rest of the round.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_groups_add(struct swap_prefetch_groups *g,
					       unsigned short id)
{
	if (swap_prefetch_groups_has(g, id))
		return true;
	if (g->nr == SWAP_PREFETCH_HELD_GROUPS)
		return false;
	g->id[g->nr++] = id;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_groups_add);

/**
 * swap_prefetch_tracker_pop - take the newest entries
 * @t: the tracker
 * @cand: where to store them, newest first
 * @max: room in @cand
 * @nodes: take only entries of these nodes, or NULL for any
 * @held: leave the entries of these memory cgroups, or NULL for none
 * @stale: incremented by the number of purged entries dropped on the way
 *
 * Only one task pops a tracker (kprefetchd for the global one).  Chunks
 * that are emptied, or whose device was purged, are freed.  The chunks of
 * other nodes than @nodes, and those of the groups in @held, stay where
 * they are, in order: a node or a group short of memory holds back its
 * own entries, not those of the others.
 *
 * Return: the number of entries taken.
 */
VISIBLE_IF_KUNIT unsigned int
swap_prefetch_tracker_pop(struct swap_prefetch_tracker *t,
			  struct swap_prefetch_candidate *cand,
			  unsigned int max, const nodemask_t *nodes,
			  const struct swap_prefetch_groups *held,
			  unsigned long *stale)
{
	struct swap_prefetch_chunk *c, *tmp;
	unsigned int nr = 0;
	bool purged;

	mutex_lock(&t->lock);
	swap_prefetch_tracker_collect_all(t);
	list_for_each_entry_safe(c, tmp, &t->chunks, list) {
		if (nr == max)
			break;
		swap_prefetch_tracker_breathe(t);
		purged = swap_prefetch_chunk_stale(t, c);
		if (purged)
			*stale += c->nr;
		else if ((nodes && !node_isset(c->nid, *nodes)) ||
			 swap_prefetch_groups_has(held, c->memcg))
			continue;
		while (!purged && c->nr && nr < max) {
			c->nr--;
			cand[nr].entry = swp_entry(c->type, c->offsets[c->nr]);
			cand[nr].gen = c->gen;
			cand[nr].nid = c->nid;
			cand[nr].memcg = c->memcg;
			nr++;
		}
		if (purged || !c->nr)
			swap_prefetch_chunk_drop(t, c);
	}
	mutex_unlock(&t->lock);
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_pop);

/**
 * swap_prefetch_tracker_current - is a popped entry still the one recorded?
 * @t: the tracker
 * @cand: the entry, as popped
 *
 * For a caller that has pinned the entry's swap device: no purge of its
 * type can then run, and one that ran since the pop (a swapoff, perhaps
 * followed by a swapon that reused the type) shows as a new generation.
 *
 * Return: true if the entry's device was not purged since its record.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_tracker_current(struct swap_prefetch_tracker *t,
			      const struct swap_prefetch_candidate *cand)
{
	return cand->gen == READ_ONCE(t->gen[swp_type(cand->entry)]);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_current);

/**
 * swap_prefetch_tracker_unpop - give back popped entries that were not read
 * @t: the tracker
 * @cand: the entries, as popped (in any order)
 * @nr: how many
 * @stale: incremented by the number of purged entries dropped on the way
 *
 * A round that stops in the middle of a slice (no memory for a folio)
 * puts the rest back as the newest entries, where the next round starts;
 * so do the entries of a group found without room.  Each run of entries
 * of one device, generation, node and group goes into a chunk of its own
 * at the head.  Entries whose device was purged since
 * the pop are dropped.
 *
 * Return: the number of entries that could not be put back for want of
 * a chunk page.
 */
VISIBLE_IF_KUNIT unsigned int
swap_prefetch_tracker_unpop(struct swap_prefetch_tracker *t,
			    const struct swap_prefetch_candidate *cand,
			    unsigned int nr, unsigned long *stale)
{
	struct swap_prefetch_chunk *c = NULL;
	unsigned int i, lost = 0;

	mutex_lock(&t->lock);
	for (i = nr; i--; ) {
		const struct swap_prefetch_candidate *e = &cand[i];

		if (!swap_prefetch_tracker_current(t, e)) {
			(*stale)++;
			continue;
		}
		if (c && (c->type != swp_type(e->entry) || c->gen != e->gen ||
			  c->nid != e->nid || c->memcg != e->memcg ||
			  c->nr == SWAP_PREFETCH_CHUNK_SLOTS))
			c = NULL;
		if (!c) {
			/* May pass the cap by a slice's chunks until they are read. */
			c = swap_prefetch_chunk_alloc();
			if (!c) {
				lost++;
				continue;
			}
			atomic_long_inc(&t->nr_chunks);
			/* Current, so the generation is e->gen. */
			swap_prefetch_chunk_reset(t, c, swp_type(e->entry),
						  e->nid, e->memcg);
			list_add(&c->list, &t->chunks);
		}
		c->offsets[c->nr++] = swp_offset(e->entry);
	}
	mutex_unlock(&t->lock);
	return lost;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_unpop);

/* Drop a chunk's first @n offsets, keeping the rest in order. */
static void swap_prefetch_chunk_shift(struct swap_prefetch_chunk *c,
				      unsigned int n)
{
	memmove(c->offsets, c->offsets + n, (c->nr - n) * sizeof(u32));
	c->nr -= n;
}

/*
 * A fair trim's scratch memory, allocated only for a trim that needs to
 * cut live entries, and freed when it is done: the groups (memory
 * cgroups) seen, in an open-addressed table, and the owners of one
 * chunk's entries.  Once the table is three quarters full, further groups
 * share the spare slot SWAP_PREFETCH_FAIR_SLOTS and are cut as one.
 */
#define SWAP_PREFETCH_FAIR_BITS		9
#define SWAP_PREFETCH_FAIR_SLOTS	BIT(SWAP_PREFETCH_FAIR_BITS)

struct swap_prefetch_fair {
	unsigned int nr_groups;
	unsigned short id[SWAP_PREFETCH_FAIR_SLOTS + 1];
	/* Entries held; 0 marks a free slot. */
	unsigned int count[SWAP_PREFETCH_FAIR_SLOTS + 1];
	/* Entries still to drop, the oldest first. */
	unsigned int drop[SWAP_PREFETCH_FAIR_SLOTS + 1];
	unsigned short owner[SWAP_PREFETCH_CHUNK_SLOTS];
};

/* The fair trim's table: only kprefetchd trims the global tracker. */
static struct swap_prefetch_fair kprefetchd_fair;

/**
 * swap_prefetch_fair_level - the share each group may keep at a trim
 * @counts: entries held, per group
 * @nr: number of groups
 * @keep: entries the tracker may keep in all
 *
 * Max-min fairness: a group that holds no more than the level keeps all
 * of its entries, a group that holds more keeps the level, and the level
 * is as high as @keep allows.  So a swap storm in one memory cgroup
 * recycles its own oldest entries, not those of a group that swapped out
 * before it and is waiting to be read back.
 *
 * Return: the largest L with sum(min(@counts[i], L)) <= @keep, at most
 * the largest count.
 */
VISIBLE_IF_KUNIT unsigned int
swap_prefetch_fair_level(const unsigned int *counts, unsigned int nr,
			 unsigned long keep)
{
	unsigned int lo = 0, hi = 0, mid, i;
	unsigned long sum;

	for (i = 0; i < nr; i++)
		hi = max(hi, counts[i]);
	/* The sum grows with L: bisect for the last L within @keep. */
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		for (sum = 0, i = 0; i < nr; i++)
			sum += min(counts[i], mid);
		if (sum <= keep)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_fair_level);

/* The slot of group @id, taken for it if @add and the table has room. */
static unsigned int swap_prefetch_fair_slot(struct swap_prefetch_fair *f,
					    unsigned short id, bool add)
{
	unsigned int i = hash_32(id, SWAP_PREFETCH_FAIR_BITS);

	/* Never full: insertion stops at three quarters. */
	while (f->count[i]) {
		if (f->id[i] == id)
			return i;
		i = (i + 1) % SWAP_PREFETCH_FAIR_SLOTS;
	}
	if (!add || f->nr_groups >= SWAP_PREFETCH_FAIR_SLOTS / 4 * 3)
		return SWAP_PREFETCH_FAIR_SLOTS;
	f->id[i] = id;
	f->nr_groups++;
	return i;
}

/*
 * Count the live entries of each group in the collected chunks, into a
 * table that starts empty.  Caller holds t->lock.  Returns the number of
 * entries counted; *@chunks is set to the number of collected chunks.
 */
static unsigned long swap_prefetch_fair_count(struct swap_prefetch_tracker *t,
					      struct swap_prefetch_fair *f,
					      unsigned long *chunks)
{
	struct swap_prefetch_chunk *c;
	unsigned long total = 0;
	unsigned int i;

	lockdep_assert_held(&t->lock);
	memset(f, 0, offsetof(struct swap_prefetch_fair, owner));
	*chunks = 0;
	list_for_each_entry(c, &t->chunks, list) {
		swap_prefetch_tracker_breathe(t);
		(*chunks)++;
		if (swap_prefetch_chunk_stale(t, c) ||
		    !t->owners(c->type, c->offsets, c->nr, f->owner))
			continue;
		for (i = 0; i < c->nr; i++)
			f->count[swap_prefetch_fair_slot(f, f->owner[i], true)]++;
		total += c->nr;
	}
	return total;
}

/*
 * Drop from @c, in place and in order, the entries of the groups still
 * over their share; called on the chunks oldest first, so each group
 * loses its oldest.  Returns the entries kept.
 */
static unsigned int swap_prefetch_fair_sieve(struct swap_prefetch_tracker *t,
					     struct swap_prefetch_fair *f,
					     struct swap_prefetch_chunk *c)
{
	unsigned int i, g, kept = 0;

	if (!t->owners(c->type, c->offsets, c->nr, f->owner))
		return c->nr;
	for (i = 0; i < c->nr; i++) {
		g = swap_prefetch_fair_slot(f, f->owner[i], false);
		if (f->drop[g]) {
			f->drop[g]--;
			continue;
		}
		c->offsets[kept++] = c->offsets[i];
	}
	return kept;
}

/*
 * How many older chunks a compaction looks back over for one that holds
 * the same kind of entries: reclaim on several nodes, of several groups
 * or several swap devices, interleaves their chunks.
 */
#define SWAP_PREFETCH_COMPACT_REACH	16

/*
 * The chunk that what is left of @c is poured into: the nearest older
 * collected one of the same device, generation, node and group, if it
 * has room.  Pouring into it keeps the order of that kind of entries.
 */
static struct swap_prefetch_chunk *
swap_prefetch_compact_dst(struct swap_prefetch_tracker *t,
			  struct swap_prefetch_chunk *c)
{
	struct swap_prefetch_chunk *dst = c;
	unsigned int i;

	for (i = 0; i < SWAP_PREFETCH_COMPACT_REACH; i++) {
		dst = list_next_entry(dst, list);
		if (list_entry_is_head(dst, &t->chunks, list))
			return NULL;
		if (dst->type == c->type && dst->gen == c->gen &&
		    dst->nid == c->nid && dst->memcg == c->memcg)
			return dst->nr < SWAP_PREFETCH_CHUNK_SLOTS ? dst : NULL;
	}
	return NULL;
}

/*
 * Sift out of every collected chunk, oldest first, the dead entries
 * (@sieve) or those of the groups over their share (@fair), and pour
 * what is left of each chunk into an older one of the same kind that has
 * room, so that emptied chunks can be freed.  The order of each device's
 * entries of each node is kept.  Caller holds t->lock.  Returns the
 * number of entries dropped.
 */
static unsigned long swap_prefetch_tracker_compact(struct swap_prefetch_tracker *t,
						   swap_prefetch_sieve_t sieve,
						   struct swap_prefetch_fair *fair)
{
	struct swap_prefetch_chunk *c, *tmp, *dst;
	unsigned long dropped = 0;
	unsigned int nr, n;

	lockdep_assert_held(&t->lock);
	list_for_each_entry_safe_reverse(c, tmp, &t->chunks, list) {
		swap_prefetch_tracker_breathe(t);
		if (swap_prefetch_chunk_stale(t, c))
			nr = 0;
		else if (sieve)
			nr = sieve(c->type, c->offsets, c->nr);
		else
			nr = swap_prefetch_fair_sieve(t, fair, c);
		dropped += c->nr - nr;
		c->nr = nr;
		dst = nr ? swap_prefetch_compact_dst(t, c) : NULL;
		if (dst) {
			n = min(nr, SWAP_PREFETCH_CHUNK_SLOTS - dst->nr);
			memcpy(dst->offsets + dst->nr, c->offsets,
			       n * sizeof(u32));
			dst->nr += n;
			swap_prefetch_chunk_shift(c, n);
		}
		if (!c->nr)
			swap_prefetch_chunk_drop(t, c);
	}
	return dropped;
}

/*
 * Cut the groups that hold the most entries down to an even share of what
 * @target chunks hold, each losing its oldest, so that the tracker fits
 * in @target chunks again.  Each pass first collects the chunks filled
 * since the last: swap-out goes on recording while a trim runs, and what
 * it records is counted with its group, not taken as room the others
 * must make.  Caller holds t->lock.  Returns the number of entries
 * dropped.
 */
static unsigned long swap_prefetch_tracker_trim_fair(struct swap_prefetch_tracker *t,
						     struct swap_prefetch_fair *f,
						     unsigned long target)
{
	unsigned long total, keep, collected, nr, open, excess;
	unsigned long dropped = 0;
	unsigned int level, g, pass;

	lockdep_assert_held(&t->lock);
	/*
	 * The remains of each device and node pack into chunks of their
	 * own, so the first cut can leave a few chunks too many: cut again
	 * by what is still over, rather than drop whole oldest chunks.
	 */
	for (pass = 0; pass < 2; pass++) {
		swap_prefetch_tracker_collect(t);
		nr = atomic_long_read(&t->nr_chunks);
		if (nr <= target)
			break;
		total = swap_prefetch_fair_count(t, f, &collected);
		/* The shards' open chunks stay: the rest must fit in the others. */
		open = nr > collected ? nr - collected : 0;
		keep = target > open ? target - open : 0;
		keep *= SWAP_PREFETCH_CHUNK_SLOTS;
		excess = (nr - target) * SWAP_PREFETCH_CHUNK_SLOTS;
		if (pass)
			keep = min(keep, total - min(total, excess));
		if (total <= keep)
			continue;
		level = swap_prefetch_fair_level(f->count,
						 SWAP_PREFETCH_FAIR_SLOTS + 1,
						 keep);
		for (g = 0; g <= SWAP_PREFETCH_FAIR_SLOTS; g++)
			f->drop[g] = f->count[g] > level ?
				     f->count[g] - level : 0;
		dropped += swap_prefetch_tracker_compact(t, NULL, f);
	}
	return dropped;
}

/*
 * Drop the oldest collected chunks until the tracker fits in @target.
 * Caller holds t->lock.  Returns the number of entries dropped.
 */
static unsigned long swap_prefetch_tracker_trim_oldest(struct swap_prefetch_tracker *t,
						       unsigned long target)
{
	struct swap_prefetch_chunk *c, *tmp;
	unsigned long dropped = 0;

	lockdep_assert_held(&t->lock);
	list_for_each_entry_safe_reverse(c, tmp, &t->chunks, list) {
		if (atomic_long_read(&t->nr_chunks) <= target)
			break;
		swap_prefetch_tracker_breathe(t);
		dropped += c->nr;
		swap_prefetch_chunk_drop(t, c);
	}
	return dropped;
}

/**
 * swap_prefetch_tracker_trim - make room below the cap
 * @t: the tracker
 * @sieve: keeps the offsets still worth reading, or NULL
 * @dead: incremented by the number of entries @sieve dropped
 *
 * A job that swapped and exited leaves entries whose slots are free:
 * they go first, so that they cannot push out older entries that are
 * still swapped out.  If that was not enough and the tracker can tell
 * whose the entries are (@t->owners), the groups that hold more than an
 * even share lose their oldest entries (swap_prefetch_fair_level()),
 * and what is left is packed into fewer chunks.  Without owners, or
 * without memory for the trim's table, the oldest chunks go instead.
 * Either way the tracker is cut down to three quarters of the cap, so
 * that swap-out finds room again without recycling its own newest
 * chunk; chunks that swap-out fills while the trim runs are left to the
 * next.  The shards' open chunks are left alone.  The fair trim's table is
 * @t->fair if the owner provides one (kprefetchd does, so that it never
 * allocates during the swap storm that filled the tracker), else it is
 * allocated for the trim.  May sleep.
 *
 * Return: the number of live entries dropped.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_tracker_trim(struct swap_prefetch_tracker *t,
			   swap_prefetch_sieve_t sieve, unsigned long *dead)
{
	unsigned long target = t->max_chunks - t->max_chunks / 4, dropped;
	struct swap_prefetch_fair *fair, *own = NULL;

	might_sleep();
	clear_bit(0, &t->trim);
	/*
	 * Without a table of the owner's, 8 KiB, only for a trim that may
	 * have to cut live entries, and taken before the lock.  Reclaim may
	 * run for it, but never the OOM killer: a failure only costs
	 * fairness.
	 */
	if (t->owners && !t->fair && atomic_long_read(&t->nr_chunks) > target)
		own = kmalloc(sizeof(*own), GFP_KERNEL | __GFP_RETRY_MAYFAIL |
					    __GFP_NOWARN);
	fair = t->owners ? t->fair ?: own : NULL;
	mutex_lock(&t->lock);
	swap_prefetch_tracker_collect(t);
	if (sieve)
		*dead += swap_prefetch_tracker_compact(t, sieve, NULL);
	if (fair)
		dropped = swap_prefetch_tracker_trim_fair(t, fair, target);
	else
		dropped = swap_prefetch_tracker_trim_oldest(t, target);
	mutex_unlock(&t->lock);
	kfree(own);
	return dropped;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_trim);

/**
 * swap_prefetch_tracker_sift - drop every entry no longer worth reading
 * @t: the tracker
 * @sieve: keeps the offsets still worth reading
 *
 * For the first read after a busy period: the job that made it busy has
 * often exited, and its entries, the newest, would each cost a round a
 * slot of its batch.  Closes the shards' open chunks too.
 *
 * Return: the number of entries dropped.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_tracker_sift(struct swap_prefetch_tracker *t,
			   swap_prefetch_sieve_t sieve)
{
	unsigned long dead;

	mutex_lock(&t->lock);
	swap_prefetch_tracker_collect_all(t);
	dead = swap_prefetch_tracker_compact(t, sieve, NULL);
	mutex_unlock(&t->lock);
	return dead;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_sift);

/**
 * swap_prefetch_tracker_purge - forget every entry of a swap device
 * @t: the tracker
 * @type: the swap type, which a later swapon may reuse; or -1 for all
 *
 * Moves the type's generation on, so that nothing recorded before comes
 * back, wherever it is (open in a shard, popped by kprefetchd), and frees
 * the type's chunks.  Once every type is purged the tracker holds no
 * memory.  With -1 every collected chunk is freed, stale or not: a
 * recorder that passed its check of t->stopped before the purge took its
 * shard's lock may have started its chunk over at the new generation.
 *
 * Return: the number of entries freed.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_tracker_purge(struct swap_prefetch_tracker *t, int type)
{
	struct swap_prefetch_chunk *c, *tmp;
	unsigned long removed = 0;
	unsigned int i;

	/* Swapoff and switching off are rare: a walk of everything is fine. */
	mutex_lock(&t->lock);
	for (i = 0; i < MAX_SWAPFILES; i++)
		if (type < 0 || i == type)
			WRITE_ONCE(t->gen[i], t->gen[i] + 1);
	swap_prefetch_tracker_collect_all(t);
	list_for_each_entry_safe(c, tmp, &t->chunks, list) {
		swap_prefetch_tracker_breathe(t);
		if (type >= 0 && !swap_prefetch_chunk_stale(t, c))
			continue;
		removed += c->nr;
		swap_prefetch_chunk_drop(t, c);
	}
	mutex_unlock(&t->lock);
	return removed;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_purge);

/**
 * swap_prefetch_tracker_stop - stop recording and forget everything
 * @t: the tracker
 *
 * A reclaimer may still be on its way into swap_prefetch_tracker_add()
 * when recording is switched off: the flag is set before the purge takes
 * each shard's lock, so what such a reclaimer records is collected and
 * freed by the purge, or it records nothing.  The tracker then holds no
 * memory.
 *
 * Return: the number of entries freed.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_tracker_stop(struct swap_prefetch_tracker *t)
{
	WRITE_ONCE(t->stopped, true);
	return swap_prefetch_tracker_purge(t, -1);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_stop);

/* Record again after swap_prefetch_tracker_stop(). */
static void swap_prefetch_tracker_start(struct swap_prefetch_tracker *t)
{
	WRITE_ONCE(t->stopped, false);
}

/*
 * Call @fn on every live chunk, collected and open, under the tracker's
 * and each shard's lock; recording goes on meanwhile.  For debugfs and
 * KUnit: a walk of everything.
 */
static void swap_prefetch_tracker_walk(struct swap_prefetch_tracker *t,
				       void (*fn)(const struct swap_prefetch_chunk *c,
						  void *arg),
				       void *arg)
{
	struct swap_prefetch_chunk *c;
	unsigned int i;
	int cpu;

	mutex_lock(&t->lock);
	swap_prefetch_tracker_collect(t);
	list_for_each_entry(c, &t->chunks, list) {
		swap_prefetch_tracker_breathe(t);
		if (!swap_prefetch_chunk_stale(t, c))
			fn(c, arg);
	}
	for_each_possible_cpu(cpu) {
		struct swap_prefetch_shard *shard = per_cpu_ptr(t->shards, cpu);

		spin_lock(&shard->lock);
		for (i = 0; i < swap_prefetch_nr_open(t->nr_nodes); i++) {
			c = shard->open[i];
			if (c && !swap_prefetch_chunk_stale(t, c))
				fn(c, arg);
		}
		spin_unlock(&shard->lock);
		swap_prefetch_tracker_breathe(t);
	}
	mutex_unlock(&t->lock);
}

struct swap_prefetch_counts {
	unsigned long *counts;
	unsigned int nr_types;
	unsigned long total;
};

static void swap_prefetch_chunk_count(const struct swap_prefetch_chunk *c,
				      void *arg)
{
	struct swap_prefetch_counts *n = arg;

	if (c->type < n->nr_types)
		n->counts[c->type] += c->nr;
	n->total += c->nr;
}

/**
 * swap_prefetch_tracker_count - count the tracked entries per swap type
 * @t: the tracker
 * @counts: one counter per swap type, zeroed first
 * @nr_types: room in @counts
 *
 * Walks every chunk, the shards' open ones included.  Entries of a purged
 * device are not counted.
 *
 * Return: the number of entries tracked in all.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_tracker_count(struct swap_prefetch_tracker *t,
			    unsigned long *counts, unsigned int nr_types)
{
	struct swap_prefetch_counts n = {
		.counts = counts, .nr_types = nr_types,
	};

	memset(counts, 0, nr_types * sizeof(*counts));
	swap_prefetch_tracker_walk(t, swap_prefetch_chunk_count, &n);
	return n.total;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_count);

/*
 * Policy.  Everything from here to the mechanism below is a pure function
 * of its arguments, so that KUnit can check each threshold.
 */

/**
 * swap_prefetch_zone_ok - does a zone have room for prefetched pages?
 * @z: the zone's free pages and high watermark
 *
 * Three times the high watermark keeps prefetch far from the point where
 * kswapd wakes up: prefetch and reclaim must not ping-pong.
 *
 * Return: true if free pages are above three times the high watermark.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_zone_ok(const struct swap_prefetch_zone_snap *z)
{
	return z->free > 3 * z->high;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_zone_ok);

/*
 * Is every node with memory short of room?  Each node takes back only its
 * own pages, so one node with room will do.
 */
static bool swap_prefetch_no_node_has_room(unsigned int nodes_short,
					   unsigned int nr_nodes)
{
	return nodes_short && nodes_short >= nr_nodes;
}

/**
 * swap_prefetch_zones_short - count zones without room for prefetch
 * @z: snapshots of the populated zones
 * @nr: how many
 *
 * Return: the number of zones for which swap_prefetch_zone_ok() fails.
 */
VISIBLE_IF_KUNIT unsigned int
swap_prefetch_zones_short(const struct swap_prefetch_zone_snap *z,
			  unsigned int nr)
{
	unsigned int i, nr_short = 0;

	for (i = 0; i < nr; i++)
		nr_short += !swap_prefetch_zone_ok(&z[i]);
	return nr_short;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_zones_short);

/* The @age-th window of @tr, 0 the current one, up to @tr->nr - 1. */
static struct swap_prefetch_trend_window *
swap_prefetch_trend_window(struct swap_prefetch_trend *tr, unsigned int age)
{
	return &tr->win[(tr->cur + SWAP_PREFETCH_TREND_WINDOWS - age) %
			SWAP_PREFETCH_TREND_WINDOWS];
}

/**
 * swap_prefetch_trend_update - add a sample of available memory
 * @tr: the trend; all zeroes is a trend that knows nothing yet
 * @avail: memory that can be had without I/O, in pages, with what
 *	kprefetchd itself read added back
 * @freed: pages freed so far, other than by reclaim (a free-running count)
 * @now: the current time in jiffies
 * @window: length of a window in jiffies, at least 1
 * @slack: in pages, from swap_prefetch_trend_slack()
 *
 * A job that grows takes memory and keeps it; churn (a garbage collector,
 * a browser tab, a timer's short-lived process) gives back what it takes.
 * Sampled once a second, churn is caught in the middle of a burst as
 * often as not, and a sampler whose pace nears the churn's sees a burst
 * at every sample for a while: a point sample cannot tell a dip from a
 * fall.  So memory counts as falling only when the newest sample is below
 * the most seen over the last %SWAP_PREFETCH_TREND_WINDOWS windows by
 * more than @slack plus the most that was freed
 * within any two adjacent windows of them: churn at any pace up to the
 * span of two windows has freed a whole burst within two windows, and
 * cannot hold more than that at a sample.  A job that grows frees nothing
 * of what it took, and is seen as soon as it has grown by the slack more
 * than what others freed meanwhile.  Frees that nobody takes back (a
 * dropped cache, a deleted file) count as turnover too, and hide a job
 * that grows by less for as long as they are among the windows.
 *
 * Return: true if available memory is falling, or if the trend has not
 * yet seen %SWAP_PREFETCH_TREND_WINDOWS windows: one not known is not
 * steady.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_trend_update(struct swap_prefetch_trend *tr, unsigned long avail,
			   unsigned long freed, unsigned long now,
			   unsigned long window, unsigned long slack)
{
	struct swap_prefetch_trend_window *w = swap_prefetch_trend_window(tr, 0);
	unsigned long most = 0, turnover = 0, end, start;
	unsigned int age;

	if (!tr->nr || time_after_eq(now, w->start + window)) {
		/* Windows keep to a grid: samples a second apart fill each. */
		start = tr->nr ? w->start + (now - w->start) / window * window :
				 now;
		if (tr->nr)
			tr->cur = (tr->cur + 1) % SWAP_PREFETCH_TREND_WINDOWS;
		tr->nr = min(tr->nr + 1, SWAP_PREFETCH_TREND_WINDOWS);
		w = swap_prefetch_trend_window(tr, 0);
		*w = (struct swap_prefetch_trend_window){
			.start = start, .most = avail, .freed = freed,
		};
	} else {
		w->most = max(w->most, avail);
	}
	for (age = 0; age < tr->nr; age++) {
		w = swap_prefetch_trend_window(tr, age);
		most = max(most, w->most);
		/* Freed in this window and the next one, up to now. */
		end = age >= 2 ? swap_prefetch_trend_window(tr, age - 2)->freed :
				 freed;
		turnover = max(turnover, end - w->freed);
	}
	if (tr->nr < SWAP_PREFETCH_TREND_WINDOWS)
		return true;
	return most > avail + slack + turnover;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_trend_update);

/**
 * swap_prefetch_trend_slack - how far available memory may dip unseen
 * @totalram: pages of RAM
 * @window_ms: the trend's window
 *
 * The more memory, the more of it moves in kernel noise between two
 * samples: 1/4096 of RAM, and at least %SWAP_PREFETCH_TREND_SLACK.  But a
 * job that grows by %SWAP_PREFETCH_TREND_GROWTH_MIB MiB/s must still be
 * seen within two windows, sampled once a second while kprefetchd waits,
 * beside others' frees: no more than it grows by in half a window (1.25
 * MiB with the default delay's windows of 1.25 s, from 5 GiB of RAM).
 *
 * Return: the slack in pages.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_trend_slack(unsigned long totalram, unsigned long window_ms)
{
	unsigned long growth = (SZ_1M >> PAGE_SHIFT) *
			       SWAP_PREFETCH_TREND_GROWTH_MIB * window_ms / 2000;

	return clamp(totalram >> 12, SWAP_PREFETCH_TREND_SLACK,
		     max(growth, SWAP_PREFETCH_TREND_SLACK));
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_trend_slack);

/**
 * swap_prefetch_io_contended - do others contend for the swap disks?
 * @w: a window of a second or more
 *
 * A foreground that waits on the disks that hold swap - a stream, an
 * application's faults - keeps them busy; a journal's synced writes, or
 * an indexer that reads a few MiB/s, keep them busy for a small part of
 * the time.  So the rule is a share of time, over a second or
 * more, not an amount per check (which varied a hundredfold with the
 * check's interval, and held prefetch off for good beside a journal that
 * wrote 256 KiB every two seconds).  While kprefetchd reads too, the
 * disks' busy time is shared out by the sectors each side moved.
 *
 * Return: true if others' part of the busy time is at least
 * %SWAP_PREFETCH_IO_BUSY_PCT percent of the window.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_io_contended(const struct swap_prefetch_io_window *w)
{
	u64 moved = (u64)w->others + w->own;

	if (!w->others || !w->span_ms)
		return false;
	return (u64)w->busy_ms * w->others * 100 >=
	       (u64)SWAP_PREFETCH_IO_BUSY_PCT * w->span_ms * moved;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_io_contended);

/**
 * swap_prefetch_cpu_busy - is foreground work keeping the CPUs busy?
 * @others_ns: CPU time used by others than kprefetchd over a span
 * @capacity_ns: the span times the number of online CPUs
 *
 * A periodic timer or a compositor's frame is not a busy CPU; a build is.
 *
 * Return: true if others used more than %SWAP_PREFETCH_CPU_BUSY_PCT
 * percent of the CPUs' time.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_cpu_busy(u64 others_ns, u64 capacity_ns)
{
	return div64_u64(others_ns * 100, capacity_ns ?: 1) >
	       SWAP_PREFETCH_CPU_BUSY_PCT;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_cpu_busy);

/**
 * swap_prefetch_idle_verdict - may kprefetchd read now?
 * @s: a snapshot of the VM
 *
 * Return: %SWAP_PREFETCH_GO, or the first reason not to.
 */
VISIBLE_IF_KUNIT enum swap_prefetch_verdict
swap_prefetch_idle_verdict(const struct swap_prefetch_snapshot *s)
{
	/*
	 * What prefetch may fill: no more than two thirds of RAM, less what is
	 * mapped or unreclaimable slab.  Swap cache that prefetch did not read
	 * (readahead, orphans of exited tasks) is as cheap to drop as free
	 * memory, and must not hold prefetch off; reclaimable slab is taken
	 * back as page cache is.
	 */
	unsigned long mapped_limit = s->totalram / 3 * 2;

	if (s->activity)
		return SWAP_PREFETCH_BUSY;
	if (s->free_falling)
		return SWAP_PREFETCH_FREE_FALLING;
	if (s->laptop_mode)
		return SWAP_PREFETCH_LAPTOP_MODE;
	if (s->swap_full)
		return SWAP_PREFETCH_SWAP_FULL;
	if (swap_prefetch_no_node_has_room(s->nodes_short, s->nr_nodes) &&
	    !s->exchange)
		return SWAP_PREFETCH_LOW_FREE;
	if (s->swap_contended)
		return SWAP_PREFETCH_SWAP_IO;
	if (s->cpu_busy)
		return SWAP_PREFETCH_CPU_BUSY;
	if (s->mapped + s->slab + s->prefetched >= mapped_limit)
		return SWAP_PREFETCH_MAPPED;
	return SWAP_PREFETCH_GO;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_idle_verdict);

/**
 * swap_prefetch_activity_mask - what pressure did the VM see between checks?
 * @prev: activity counters at the previous check
 * @cur: activity counters now
 *
 * Counters are free-running; one that went back (a count read while a
 * CPU went offline) did not move.
 *
 * Return: a mask of BIT(&enum swap_prefetch_activity_item) for each counter
 * that moved.  0 means idle.
 */
VISIBLE_IF_KUNIT unsigned int
swap_prefetch_activity_mask(const unsigned long *prev, const unsigned long *cur)
{
	unsigned int i, mask = 0;

	for (i = 0; i < NR_SWAP_PREFETCH_ACT; i++)
		if ((long)(cur[i] - prev[i]) > 0)
			mask |= BIT(i);
	return mask;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_activity_mask);

/* Is @g held, by a move of its pressure within @hold of @now? */
static bool swap_prefetch_group_held(const struct swap_prefetch_group_seen *g,
				     unsigned long now, unsigned long hold)
{
	return time_before(now, g->moved + hold);
}

/*
 * The slot of group @id in @w, or one to reuse for it: a free one, or the
 * one looked at least recently among those not held.  NULL if every slot
 * holds a group that is held: forgetting one would let it be read at once.
 */
static struct swap_prefetch_group_seen *
swap_prefetch_watch_slot(struct swap_prefetch_watch *w, unsigned short id,
			 unsigned long now, unsigned long hold)
{
	struct swap_prefetch_group_seen *g, *reuse = NULL;

	for (g = w->g; g < w->g + SWAP_PREFETCH_WATCHED_GROUPS; g++) {
		if (g->used && g->id == id)
			return g;
		if (!g->used)
			reuse = g;
		else if (!swap_prefetch_group_held(g, now, hold) &&
			 (!reuse || (reuse->used &&
				     time_before(g->seen, reuse->seen))))
			reuse = g;
	}
	return reuse;
}

/**
 * swap_prefetch_group_calm - has a group been free of memory pressure long enough?
 * @w: the groups kprefetchd watches
 * @id: the group's memory cgroup id
 * @pressure: a count that grows with every sign of the group's memory
 *	pressure (stall time, reclaim scans, major faults)
 * @now: jiffies
 * @hold: how long a group stays held after its pressure was seen to move
 *
 * A group met for the first time, or again after its slot went to
 * another, has shown no pressure yet: there is nothing to compare its
 * count with, and its room check (memory.high, memory.max) stands in
 * for its own limit's pressure.  The count seen then is the baseline.
 * While every slot holds a held group, a new group is held too.
 *
 * Return: false if the group's pressure moved within @hold of @now.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_group_calm(struct swap_prefetch_watch *w,
					       unsigned short id, u64 pressure,
					       unsigned long now,
					       unsigned long hold)
{
	struct swap_prefetch_group_seen *g;

	g = swap_prefetch_watch_slot(w, id, now, hold);
	if (!g)
		return false;
	if (!g->used || g->id != id) {
		g->used = true;
		g->id = id;
		g->pressure = pressure;
		g->moved = now - hold;
	} else if (g->pressure != pressure) {
		g->pressure = pressure;
		g->moved = now;
	} else if (!swap_prefetch_group_held(g, now, hold)) {
		/* Kept within reach of @now: jiffies wrap. */
		g->moved = now - hold;
	}
	g->seen = now;
	return !swap_prefetch_group_held(g, now, hold);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_group_calm);

/*
 * Did pages go out to swap since the last look, as for a job that needed
 * memory?  PSWPOUT counts writes: pages written earlier that only now
 * leave the swap cache are no swap-out.  And a few writes beside many
 * times more file pages reclaimed are a stream's: MGLRU sends some
 * anonymous pages out while a backup goes through the page cache.
 */
static bool
swap_prefetch_exchange_swapped(const struct swap_prefetch_exchange *x,
			       const struct swap_prefetch_exchange_counts *now)
{
	unsigned long out = now->swapped_out - x->seen.swapped_out;
	unsigned long stolen = now->stolen - x->seen.stolen;

	return out && out >= stolen / SWAP_PREFETCH_STREAM_SWAP_SHARE;
}

/*
 * File pages reclaimed since the last look that new page cache took the
 * place of: as many as were reclaimed while the file LRU lists kept their
 * size, fewer as they shrank.  A stream turns the page cache over; a job
 * that takes the page cache's room for its own memory shrinks it.
 */
static unsigned long
swap_prefetch_exchange_turned_over(const struct swap_prefetch_exchange *x,
				   const struct swap_prefetch_exchange_counts *now)
{
	unsigned long stolen = now->stolen - x->seen.stolen;
	unsigned long shrunk = x->seen.file > now->file ?
			       x->seen.file - now->file : 0;

	return stolen > shrunk ? stolen - shrunk : 0;
}

/**
 * swap_prefetch_exchange_look - note what reclaim did since the last look
 * @x: the exchange
 * @now: the counts now
 *
 * When pages begin to go out to swap again, the reads since the last
 * swap-out are judged: if they took room of page cache and fewer than
 * half were used by now, no exchange until the swap-out after; otherwise,
 * and after such a pause, it may again.  Page cache the exchange dropped
 * and that is read again stops it until the next swap-out.
 */
VISIBLE_IF_KUNIT void
swap_prefetch_exchange_look(struct swap_prefetch_exchange *x,
			    const struct swap_prefetch_exchange_counts *now)
{
	bool swapping = swap_prefetch_exchange_swapped(x, now);

	/*
	 * Reclaim beside a swap-out took what a job needed: not a stream.
	 * The page cache counts from the last look that saw one.
	 */
	if (!swapping) {
		x->alone += swap_prefetch_exchange_turned_over(x, now);
	} else {
		x->base_alone = x->alone;
		x->base_refaulted = now->refaulted;
		x->base_slab = now->slab;
	}
	if (swapping && !x->swapping) {
		x->stopped = x->exchanged && (now->used - x->used) * 2 < x->read;
		x->read = 0;
		x->exchanged = 0;
		x->used = now->used;
	}
	x->swapping = swapping;
	x->seen = *now;
	/*
	 * The page cache it dropped is read again: more file refaults since
	 * its first drop than a few and an eighth of what it dropped.  What
	 * the stream evicted of others' working set (a daemon's libraries)
	 * refaults once, and those pages come back active, where no exchange
	 * takes them; a job that reads its files again keeps refaulting.
	 * (Activations are no such sign: reclaim activates the pages of a
	 * mapped file in use, which no exchange takes.)
	 */
	if (x->exchanged && now->refaulted - x->refaulted_since >
			    SWAP_CLUSTER_MAX + x->exchanged / 8)
		x->stopped = true;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_exchange_look);

/**
 * swap_prefetch_exchange_account - count a round's reads
 * @x: the exchange
 * @read: pages the round read
 * @exchanged: page cache and slab pages the round freed to make room for them
 */
VISIBLE_IF_KUNIT void
swap_prefetch_exchange_account(struct swap_prefetch_exchange *x,
			       unsigned long read, unsigned long exchanged)
{
	if (exchanged && !x->exchanged)
		x->refaulted_since = x->seen.refaulted;
	x->read += read;
	x->exchanged += exchanged;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_exchange_account);

/**
 * swap_prefetch_exchange_streamed - is the oldest page cache a stream's?
 * @x: the exchange, as of the last look
 * @inactive: pages on the inactive file lists now
 *
 * Since pages last went out to swap, did new page cache replace more
 * file pages than the inactive file lists hold, with fewer than one in
 * eight coming back?  Then the page cache turned over since, and what
 * reclaim evicted was not read again: a backup or an indexer that read
 * more than memory holds, after the job that swapped.  What reclaim took
 * while that job swapped, or to make room for its memory, does not count:
 * it was the page cache that was there before, and a job that then reads
 * again a set that fits evicts less, and keeps its cache; one whose set
 * does not fit finds its oldest pages evicted by the time it comes back
 * to them, with or without prefetch.
 *
 * Return: true if such page cache may make room for swapped-out pages.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_exchange_streamed(const struct swap_prefetch_exchange *x,
				unsigned long inactive)
{
	unsigned long taken = x->alone - x->base_alone;

	return taken && taken >= inactive &&
	       (x->seen.refaulted - x->base_refaulted) * 8 < taken;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_exchange_streamed);

/**
 * swap_prefetch_exchange_slab_room - how much slab may an exchange take?
 * @x: the exchange, as of the last look
 * @slab: pages of reclaimable slab now
 * @inactive: pages on the inactive file lists now
 *
 * What the reclaimable slab holds beyond twice what it held when pages
 * last went out to swap, if that, with what the exchange took since, is
 * more than the inactive file lists hold: the slab, not the page cache,
 * is what the job after the swap-out left.  An indexer that walked a
 * tree after the job that swapped grows it many times over with dentries
 * and inodes used once; a machine's daemons, a desktop's file lookups
 * and the buffer heads of a job that reads do not double it, or not by
 * that much.  As much as was there before, and as much again, stays.  This
 * bounds how much goes, not which: the shrinkers free their oldest
 * objects not used again first, as for reclaim, whenever they were made.
 *
 * Return: pages of reclaimable slab an exchange may take now.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_exchange_slab_room(const struct swap_prefetch_exchange *x,
				 unsigned long slab, unsigned long inactive)
{
	unsigned long grown;

	if (slab <= 2 * x->base_slab)
		return 0;
	grown = slab - 2 * x->base_slab;
	return grown + x->exchanged > inactive ? grown : 0;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_exchange_slab_room);

/**
 * swap_prefetch_slab_priority - the reclaim priority to take slab at
 * @slab: pages of reclaimable slab on the node
 * @nr: pages wanted of it
 *
 * At priority p, reclaim has each shrinker scan 1/2^p of its objects,
 * twice that at the default seeks (do_shrink_slab()).  The gentlest
 * priority at which that covers @nr pages' worth of the node's slab: the
 * shrinkers then scan between @nr and twice @nr pages' worth, and free
 * what was not used again.  A large want scans no more than half of each
 * cache (%SWAP_PREFETCH_SLAB_PRIORITY_MIN): an exchange is no emergency.
 *
 * Return: a priority from %SWAP_PREFETCH_SLAB_PRIORITY_MIN to DEF_PRIORITY.
 */
VISIBLE_IF_KUNIT int swap_prefetch_slab_priority(unsigned long slab,
						 unsigned long nr)
{
	int priority = DEF_PRIORITY;

	while (priority > SWAP_PREFETCH_SLAB_PRIORITY_MIN &&
	       (slab >> priority) * 2 < nr)
		priority--;
	return priority;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_slab_priority);

/**
 * swap_prefetch_mark_busy - note VM activity for the next round
 * @p: the pacer
 */
VISIBLE_IF_KUNIT void swap_prefetch_mark_busy(struct swap_prefetch_pacer *p)
{
	set_bit(0, &p->busy);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_mark_busy);

/*
 * Does this verdict restart the delay?  Memory pressure does, and so does
 * others' I/O on the swap disks: a stream that pauses for less than the
 * delay must not let a round into the pause.
 */
static bool swap_prefetch_restarts_delay(enum swap_prefetch_verdict v)
{
	return v == SWAP_PREFETCH_BUSY || v == SWAP_PREFETCH_FREE_FALLING ||
	       v == SWAP_PREFETCH_SWAP_IO;
}

/**
 * swap_prefetch_recheck - how soon to look again after a verdict
 * @v: a verdict other than %SWAP_PREFETCH_GO
 * @t: the tunables
 *
 * Pressure and contention come and go: look again every interval, so that
 * reading starts one delay after pressure or a stream on the swap disks
 * ends, not up to two delays, and as soon as a busy CPU is idle again.  A
 * lack of room lasts: look again after the delay.
 *
 * Return: the time to the next check, in jiffies.
 */
VISIBLE_IF_KUNIT unsigned long
swap_prefetch_recheck(enum swap_prefetch_verdict v,
		      const struct swap_prefetch_tunables *t)
{
	switch (v) {
	case SWAP_PREFETCH_BUSY:
	case SWAP_PREFETCH_FREE_FALLING:
	case SWAP_PREFETCH_SWAP_IO:
	case SWAP_PREFETCH_CPU_BUSY:
		return min(t->interval, t->delay);
	default:
		return t->delay;
	}
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_recheck);

/**
 * swap_prefetch_pace - decide a round, its size, and when the next one runs
 * @p: the pacer; its busy mark is consumed
 * @s: a snapshot of the VM
 * @now: the current time in jiffies
 * @t: the tunables
 * @batch: set to the pages this round may read, 0 unless it may read
 *
 * Reading starts once no check for the delay found memory pressure or
 * others' I/O on the swap disks.  While it waits, it looks every
 * interval, so that the free-memory trend has samples and pressure is
 * seen when it starts.  A busy CPU skips a round without restarting the
 * delay.  Adaptive pacing then doubles the batch and quarters the
 * interval each round that finds the VM idle again, so a long idle
 * period is used at the device's speed while a short one costs only the
 * first small batch.
 *
 * Return: the verdict for this round.
 */
VISIBLE_IF_KUNIT enum swap_prefetch_verdict
swap_prefetch_pace(struct swap_prefetch_pacer *p,
		   const struct swap_prefetch_snapshot *s, unsigned long now,
		   const struct swap_prefetch_tunables *t, unsigned int *batch)
{
	enum swap_prefetch_verdict v = swap_prefetch_idle_verdict(s);
	unsigned int shift = t->adaptive ? p->streak : 0;

	*batch = 0;
	if (test_and_clear_bit(0, &p->busy))
		v = SWAP_PREFETCH_BUSY;
	if (v != SWAP_PREFETCH_GO) {
		/*
		 * The delay runs from the last check that found pressure or
		 * swap disk I/O: a job with short gaps must not let a round
		 * slip into one.
		 */
		if (swap_prefetch_restarts_delay(v)) {
			p->last_busy = now;
			p->seen_busy = true;
		}
		p->streak = 0;
		p->next = now + swap_prefetch_recheck(v, t);
		return v;
	}
	if (p->seen_busy && time_before(now, p->last_busy + t->delay)) {
		/* No pressure, but not for the whole delay yet. */
		p->next = min_t(unsigned long, t->interval,
				p->last_busy + t->delay - now) + now;
		return SWAP_PREFETCH_BUSY;
	}
	*batch = min_t(unsigned long, (unsigned long)t->batch << shift,
		       SWAP_PREFETCH_BATCH_MAX);
	/*
	 * Quartered: the ramp to full speed costs 1.3 intervals, not 2.  The
	 * floor keeps rounds that read nothing from running back to back.
	 */
	p->next = now + max(t->interval >> min(2 * shift, BITS_PER_LONG - 1),
			    SWAP_PREFETCH_MIN_INTERVAL);
	p->streak = min(p->streak + 1, SWAP_PREFETCH_MAX_STREAK);
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_pace);

/**
 * swap_prefetch_round_done - pace the next round by how this one stopped
 * @p: the pacer
 * @stop: why the round stopped
 * @now: the current time in jiffies
 * @t: the tunables
 *
 * A round that ran out of memory starts over from the first small batch,
 * and no sooner than one delay later: the next allocation would most
 * likely fail the same way, and speeding up would turn it into a spin.
 */
VISIBLE_IF_KUNIT void swap_prefetch_round_done(struct swap_prefetch_pacer *p,
					       enum swap_prefetch_stop stop,
					       unsigned long now,
					       const struct swap_prefetch_tunables *t)
{
	if (stop != SWAP_PREFETCH_STOP_NOMEM && stop != SWAP_PREFETCH_STOP_LOW_FREE)
		return;
	p->streak = 0;
	p->next = now + t->delay;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_round_done);

/**
 * swap_prefetch_memcg_room_ok - may prefetch charge a page to a memcg?
 * @usage: the memcg's current usage in pages
 * @limit: the lower of its memory.high and memory.max, in pages
 *
 * Prefetch leaves an eighth of the limit free, so that the group's own
 * next allocations do not have to reclaim what prefetch brought in.
 *
 * Return: true if one more page keeps the group below that mark.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_memcg_room_ok(unsigned long usage,
						  unsigned long limit)
{
	return usage + 1 <= limit - limit / 8;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_memcg_room_ok);

/**
 * swap_prefetch_swap_room_ok - may prefetch hold pages of a swap user?
 * @used: swap slots in use, by the memcg or the whole system
 * @limit: the slots it may use
 *
 * A prefetched page keeps its swap slot, and reclaim can drop it only
 * while it scans anonymous pages, which it stops doing once swap is full
 * (can_reclaim_anon_pages()).  Prefetch therefore reads only while at
 * most half of the swap is in use: the same line vm_swap_full() draws for
 * the whole system.
 *
 * Return: true if less than half of @limit is in use.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_swap_room_ok(unsigned long used,
						 unsigned long limit)
{
	return used < limit - limit / 2;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_swap_room_ok);

/**
 * swap_prefetch_record_outlived - does a record name an earlier owner?
 * @recorded_nid: the node the record says its folio left from
 * @shadow_nid: the node in the slot's shadow entry, or %NUMA_NO_NODE
 *
 * A slot freed after its record was made can be given to another folio
 * at the next swap-out, and the old record then points at the new
 * owner's data.  The slot's shadow entry names the node of the folio
 * reclaim evicted last, the current owner.  If that differs from the
 * record's, the record is the earlier owner's: reading it would put the
 * page on a node its owner did not choose, past that node's room check,
 * and the current owner has a record of its own.  A slot whose shadow
 * the shadow shrinker took cannot be told apart: its page goes to the
 * earlier owner's node, as swap readahead puts the neighbours it reads
 * where the faulting task's policy says.
 *
 * Return: true if the record must be dropped as stale.
 */
VISIBLE_IF_KUNIT bool swap_prefetch_record_outlived(int recorded_nid,
						    int shadow_nid)
{
	return shadow_nid != NUMA_NO_NODE && shadow_nid != recorded_nid;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_record_outlived);

/* Mechanism: the hooks and kprefetchd. */

/**
 * swap_prefetch_tracker_record - record a swap-out and count what happened
 * @t: the tracker
 * @shard: the calling CPU's shard
 * @entry: the first swap entry of the folio
 * @nr: the folio's number of pages
 * @nid: the node the folio is on
 * @memcg: the id of the memory cgroup the entries are charged to
 *
 * Return: true if kprefetchd must be woken.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_tracker_record(struct swap_prefetch_tracker *t,
			     struct swap_prefetch_shard *shard,
			     swp_entry_t entry, unsigned long nr, int nid,
			     unsigned short memcg)
{
	unsigned long recycled;
	bool wake;
	long added;

	added = swap_prefetch_tracker_add(t, shard, entry, nr, nid, memcg,
					  &recycled, &wake);
	if (added < 0) {
		count_vm_event(SWAP_PREFETCH_CONTENDED_SWAPOUTS);
		return false;
	}
	/* A shortfall is the cap's if it recycled anything, else memory's. */
	if (!recycled)
		count_vm_events(SWAP_PREFETCH_NOMEM_PAGES, nr - added);
	count_vm_events(SWAP_PREFETCH_RECORDED_PAGES, added);
	count_vm_events(SWAP_PREFETCH_RECYCLED_PAGES, recycled);
	return wake;
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_tracker_record);

/**
 * __swap_prefetch_record - remember entries that reclaim just swapped out
 * @entry: the first swap entry of the folio
 * @nr: the folio's number of pages
 * @nid: the node the folio is on, where kprefetchd will read it back to
 *
 * Called from reclaim with the folio locked and still in the swap cache,
 * just before reclaim removes it, so swapoff cannot finish before the
 * record is in: its purge always covers it.  Never waits; takes no lock
 * shared with other CPUs.
 */
void __swap_prefetch_record(swp_entry_t entry, unsigned long nr, int nid)
{
	/*
	 * kprefetchd would skip these anyway (kprefetchd_skip_entry()):
	 * zram and other synchronous devices, pages zswap holds, and
	 * offsets beyond what a chunk stores.
	 */
	if ((swp_swap_info(entry)->flags & SWP_SYNCHRONOUS_IO) ||
	    zswap_present(entry) || swp_offset(entry) + nr - 1 > U32_MAX) {
		count_vm_events(SWAP_PREFETCH_SKIPPED_PAGES, nr);
		return;
	}
	/*
	 * Preemption may move us on: the shard lock makes any CPU's safe.
	 * folio_alloc_swap() charged the entries to the folio's group.
	 */
	if (swap_prefetch_tracker_record(&swap_prefetch_global,
					 raw_cpu_ptr(swap_prefetch_global.shards),
					 entry, nr, nid,
					 lookup_swap_cgroup_id(entry)))
		wake_up_interruptible(&kprefetchd_wait);
}

/**
 * __swap_prefetch_record_shmem - remember shmem entries just written out
 * @entry: the first swap entry
 * @nr: the number of pages
 * @nid: the node the pages were on
 *
 * shmem has unlocked the folio by now, so the device is pinned for the
 * record: a swapoff that has begun refuses the pin, and one that begins
 * meanwhile waits for it before its purge, which then covers the record.
 */
void __swap_prefetch_record_shmem(swp_entry_t entry, unsigned long nr, int nid)
{
	struct swap_info_struct *si = get_swap_device(entry);

	if (!si)
		return;
	__swap_prefetch_record(entry, nr, nid);
	put_swap_device(si);
}

/**
 * swap_prefetch_folio_unused - did prefetch read this folio for nothing?
 * @folio: a locked folio in the swap cache
 *
 * Return: true while the folio's swap cache entry has %SWAP_PREFETCH_MARK.
 */
bool swap_prefetch_folio_unused(struct folio *folio)
{
	struct address_space *space = swap_address_space(folio->swap);

	return xa_marked(&space->i_pages, SWAP_PREFETCH_MARK) &&
	       xa_get_mark(&space->i_pages, swap_cache_index(folio->swap),
			   SWAP_PREFETCH_MARK);
}

/**
 * __swap_prefetch_note_use - a prefetched page was looked up to be used
 * @folio: the folio found
 * @space: the swap cache address space
 * @index: the entry's index in it
 *
 * kprefetchd's read did not count as a refault (workingset_refault() is
 * skipped for it): the first real use counts in WORKINGSET_REFAULT_ANON,
 * as it would have without prefetch.  Only the counter: activation,
 * PG_workingset and PSI do not see that refault.
 *
 * The lookup was lockless, and @folio may have left the swap cache since
 * and another prefetched folio taken its index: the mark is cleared only
 * if the entry is still @folio.  Takes the swap cache's xarray lock, and
 * only for an entry that is marked.
 */
void __swap_prefetch_note_use(struct folio *folio, struct address_space *space,
			      pgoff_t index)
{
	XA_STATE(xas, &space->i_pages, index);
	bool used = false, refault = false;

	if (!xa_get_mark(&space->i_pages, index, SWAP_PREFETCH_MARK))
		return;
	xas_lock_irq(&xas);
	if (xas_load(&xas) == folio && xas_get_mark(&xas, SWAP_PREFETCH_MARK)) {
		used = true;
		refault = xas_get_mark(&xas, SWAP_PREFETCH_REFAULT_MARK);
		xas_clear_mark(&xas, SWAP_PREFETCH_MARK);
		xas_clear_mark(&xas, SWAP_PREFETCH_REFAULT_MARK);
	}
	xas_unlock_irq(&xas);
	if (used) {
		percpu_counter_dec(&swap_prefetch_nr_unused);
		count_vm_event(SWAP_PREFETCH_USED_PAGES);
	}
	if (refault)
		lruvec_stat_mod_folio(folio, WORKINGSET_REFAULT_ANON,
				      folio_nr_pages(folio));
}
EXPORT_SYMBOL_IF_KUNIT(__swap_prefetch_note_use);

/**
 * __swap_prefetch_note_drop - a prefetched page leaves the swap cache unused
 * @xas: the folio's entry, with the swap cache's xarray locked
 * @shadow: the shadow entry reclaim leaves behind, NULL if the slot is freed
 */
void __swap_prefetch_note_drop(struct xa_state *xas, void *shadow)
{
	xas_load(xas);
	if (!xas_get_mark(xas, SWAP_PREFETCH_MARK))
		return;
	xas_clear_mark(xas, SWAP_PREFETCH_MARK);
	xas_clear_mark(xas, SWAP_PREFETCH_REFAULT_MARK);
	percpu_counter_dec(&swap_prefetch_nr_unused);
	count_vm_event(shadow ? SWAP_PREFETCH_UNUSED_RECLAIMED_PAGES :
				SWAP_PREFETCH_UNUSED_FREED_PAGES);
}
EXPORT_SYMBOL_IF_KUNIT(__swap_prefetch_note_drop);

/**
 * __swap_prefetch_mark_new - mark a folio kprefetchd adds to the swap cache
 * @xas: the folio's entry, just stored, with the swap cache's xarray locked
 * @refault: the folio replaced a shadow entry
 *
 * Marked under the lock that publishes the folio, so that a lookup that
 * finds it always finds it marked and counts its use.
 */
void __swap_prefetch_mark_new(struct xa_state *xas, bool refault)
{
	xas_set_mark(xas, SWAP_PREFETCH_MARK);
	if (refault)
		xas_set_mark(xas, SWAP_PREFETCH_REFAULT_MARK);
	percpu_counter_inc(&swap_prefetch_nr_unused);
}
EXPORT_SYMBOL_IF_KUNIT(__swap_prefetch_mark_new);

#if IS_ENABLED(CONFIG_KUNIT)
/* Pages read and not yet used or dropped, exactly; for KUnit. */
VISIBLE_IF_KUNIT s64 swap_prefetch_unused_pages(void)
{
	return percpu_counter_sum(&swap_prefetch_nr_unused);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_unused_pages);
#endif

/**
 * swap_prefetch_forget_type - forget every entry of a swapped-off device
 * @type: the swap type, which a later swapon may reuse
 *
 * Called by swapoff once no page of the device is left in the swap cache.
 * The last swapoff leaves the tracker holding no memory.
 */
void swap_prefetch_forget_type(int type)
{
	count_vm_events(SWAP_PREFETCH_STALE_PAGES,
			swap_prefetch_tracker_purge(&swap_prefetch_global, type));
}

/* The vm events kprefetchd reads: kprefetchd_sum_events() sums these. */
static const enum vm_event_item kprefetchd_event_items[] = {
	PGSCAN_KSWAPD, PGSCAN_DIRECT, OOM_KILL, PGMAJFAULT,
	PGFREE, PGSTEAL_ANON, PGSTEAL_FILE, SWAP_PREFETCH_USED_PAGES, PSWPOUT,
	FOR_ALL_ZONES(ALLOCSTALL)
};

/*
 * Sum the events kprefetchd reads over the online CPUs, into their slots
 * of kprefetchd_events[].  all_vm_events() sums all the hundred-odd
 * events under cpus_read_lock(), for each CPU; kprefetchd needs these few,
 * and looks before each slice of 32 pages it reads.  Without the lock,
 * the counts of a CPU going offline may move to
 * another one in the middle of the sum: one look sees a count a little
 * off, which reads as activity once, or as none.
 */
static void kprefetchd_sum_events(void)
{
	unsigned int i;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(kprefetchd_event_items); i++)
		kprefetchd_events[kprefetchd_event_items[i]] = 0;
	for_each_online_cpu(cpu) {
		const struct vm_event_state *ev = per_cpu_ptr(&vm_event_states,
							      cpu);

		for (i = 0; i < ARRAY_SIZE(kprefetchd_event_items); i++)
			kprefetchd_events[kprefetchd_event_items[i]] +=
				ev->event[kprefetchd_event_items[i]];
	}
}

/* Sum the VM events that show memory pressure on the whole machine. */
static void kprefetchd_read_activity(unsigned long *act)
{
	int zid;

	kprefetchd_sum_events();
	act[SWAP_PREFETCH_ACT_ALLOCSTALL] = 0;
	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		act[SWAP_PREFETCH_ACT_ALLOCSTALL] +=
			kprefetchd_events[ALLOCSTALL_NORMAL - ZONE_NORMAL + zid];
	act[SWAP_PREFETCH_ACT_SCAN_KSWAPD] = kprefetchd_events[PGSCAN_KSWAPD];
	act[SWAP_PREFETCH_ACT_SCAN_DIRECT] = kprefetchd_events[PGSCAN_DIRECT];
	act[SWAP_PREFETCH_ACT_OOM_KILL] = kprefetchd_events[OOM_KILL];
}

/* What did the VM do since the last call?  Updates the baseline. */
static unsigned int kprefetchd_activity_since_last(void)
{
	unsigned long cur[NR_SWAP_PREFETCH_ACT];
	unsigned int mask;

	kprefetchd_read_activity(cur);
	mask = swap_prefetch_activity_mask(kprefetchd_activity, cur);
	memcpy(kprefetchd_activity, cur, sizeof(cur));
	return mask;
}

/*
 * Sort the nodes with memory into those with room for prefetch, set in
 * @room, and those of which some populated zone is short; count these.
 * The entries of a node that has no memory now are read anywhere: @room
 * has the nodes without memory set too.
 */
static unsigned int kprefetchd_nodes_short(nodemask_t *room)
{
	struct swap_prefetch_zone_snap snap[MAX_NR_ZONES];
	unsigned int nodes_short = 0, nr;
	int nid, zid;

	nodes_andnot(*room, node_possible_map, node_states[N_MEMORY]);
	for_each_node_state(nid, N_MEMORY) {
		pg_data_t *pgdat = NODE_DATA(nid);

		nr = 0;
		for (zid = 0; zid < MAX_NR_ZONES; zid++) {
			struct zone *zone = &pgdat->node_zones[zid];

			if (!populated_zone(zone) || !managed_zone(zone))
				continue;
			snap[nr].free = zone_page_state(zone, NR_FREE_PAGES);
			snap[nr].high = high_wmark_pages(zone);
			nr++;
		}
		if (swap_prefetch_zones_short(snap, nr))
			nodes_short++;
		else
			node_set(nid, *room);
	}
	return nodes_short;
}

/*
 * Free and file LRU pages, with what the global counters do not show
 * yet: the trend's slack is 1 MiB, and what they miss can be more.  Each
 * CPU holds back up to stat_threshold pages of every counter until vmstat
 * folds them in, up to tens of MiB on a machine with many CPUs
 * (zone_page_state_snapshot() adds them).  And the free pages of the
 * per-cpu lists are not in NR_FREE_PAGES at all (show_free_areas() counts
 * them apart): a burst of allocations refills those lists from the buddy
 * lists by more than it takes, and kprefetchd's own rounds moved 500-700
 * pages there in a 256 MiB guest.  Read without the lists' locks: a count
 * a moment old will do.
 */
static unsigned long kprefetchd_free_and_file_pages(void)
{
	unsigned long nr = 0;
	struct zone *zone;
	int cpu;

	for_each_populated_zone(zone) {
		nr += zone_page_state_snapshot(zone, NR_FREE_PAGES) +
		      zone_page_state_snapshot(zone, NR_ZONE_ACTIVE_FILE) +
		      zone_page_state_snapshot(zone, NR_ZONE_INACTIVE_FILE);
		for_each_online_cpu(cpu)
			nr += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset,
						    cpu)->count);
	}
	return nr;
}

/*
 * Memory that can be had without I/O: free pages, the file LRUs and
 * reclaimable slab.  A page-cache reader moves memory from one to the
 * other and is no growing job, nor is an indexer's dentry cache.  What
 * kprefetchd read itself is added back.
 */
static unsigned long kprefetchd_avail_pages(void)
{
	return kprefetchd_free_and_file_pages() +
	       global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
	       kprefetchd_own_reads;
}

/*
 * Pages freed other than by reclaim, a free-running count for the trend:
 * PGFREE less what reclaim freed (PGSTEAL_ANON and PGSTEAL_FILE count
 * every reclaimer, memcg limits included).  Reclaim's frees are not churn
 * that comes back, and they come with swap-out or scanning that holds
 * prefetch off anyway; counted as turnover, the pages a memory.max squeeze
 * freed hid a job that began to grow 4 MiB/s right after it.  The
 * two sums are read a moment apart: kept from going backwards, as the
 * trend expects of a count.
 */
static unsigned long kprefetchd_freed_by_others(void)
{
	unsigned long freed = kprefetchd_events[PGFREE] -
			      kprefetchd_events[PGSTEAL_ANON] -
			      kprefetchd_events[PGSTEAL_FILE];

	if ((long)(freed - kprefetchd_freed) > 0)
		kprefetchd_freed = freed;
	return kprefetchd_freed;
}

static void kprefetchd_reset_trend(void)
{
	kprefetchd_trend.nr = 0;
}

/*
 * Is free memory falling, or not yet known to be steady?  Windows of a
 * quarter of the delay, so that the trend spans about one delay.  Reads
 * the vm events kprefetchd_read_activity() summed just before.
 */
static bool kprefetchd_free_falling(unsigned long delay)
{
	unsigned long window = max(delay / 4, 1UL);

	return swap_prefetch_trend_update(&kprefetchd_trend,
					  kprefetchd_avail_pages(),
					  kprefetchd_freed_by_others(), jiffies,
					  window,
					  swap_prefetch_trend_slack(totalram_pages(),
								    jiffies_to_msecs(window)));
}

/*
 * Pin swap device @type, or NULL if it is not swapped on.  Offset 1: for
 * type 0, offset 0 is the zero entry, which get_swap_device() refuses even
 * while the device is on.  Types never used have no swap_info, and are
 * checked first so that get_swap_device() logs nothing for them.
 */
static struct swap_info_struct *swap_prefetch_get_type(unsigned int type)
{
	if (!swp_swap_info(swp_entry(type, 0)))
		return NULL;
	return get_swap_device(swp_entry(type, 1));
}

/*
 * Sectors read and written so far on the disks that hold swap, and the
 * time in jiffies they had requests in flight (io_ticks, which the block
 * layer brings up to date as requests start and end: a window of a
 * second spans many).  A swap file counts its filesystem's whole disk.
 */
static void kprefetchd_swap_disk_stat(unsigned long *sectors,
				      unsigned long *ticks)
{
	struct block_device *seen[MAX_SWAPFILES];
	unsigned int type, nr_seen = 0, i;

	*sectors = 0;
	*ticks = 0;
	for (type = 0; type < MAX_SWAPFILES; type++) {
		struct swap_info_struct *si;
		struct block_device *disk;

		si = swap_prefetch_get_type(type);
		if (!si)
			continue;
		disk = si->bdev ? bdev_whole(si->bdev) : NULL;
		for (i = 0; disk && i < nr_seen; i++)
			if (seen[i] == disk)
				disk = NULL;
		if (disk) {
			seen[nr_seen++] = disk;
			*sectors += part_stat_read(disk, sectors[STAT_READ]) +
				    part_stat_read(disk, sectors[STAT_WRITE]);
			*ticks += part_stat_read(disk, io_ticks);
		}
		put_swap_device(si);
	}
}

/* Sectors kprefetchd has read so far. */
static unsigned long kprefetchd_own_sectors(void)
{
	return kprefetchd_own_reads << (PAGE_SHIFT - SECTOR_SHIFT);
}

/* Start a window at @now from the swap disks' totals and own reads now. */
static void kprefetchd_swap_io_start(unsigned long now, unsigned long sectors,
				     unsigned long ticks, bool contended)
{
	kprefetchd_io.at = now;
	kprefetchd_io.sectors = sectors;
	kprefetchd_io.ticks = ticks;
	kprefetchd_io.own = kprefetchd_own_sectors();
	kprefetchd_io.contended = contended;
}

/* Start a window of the swap disks' I/O now, with no contention known. */
static void kprefetchd_swap_io_reset(void)
{
	unsigned long sectors, ticks;

	kprefetchd_swap_disk_stat(&sectors, &ticks);
	kprefetchd_swap_io_start(jiffies, sectors, ticks, false);
}

/*
 * Do others contend for the swap disks?  Decided once the window is a
 * second long, and then a new window starts; the last answer stands in
 * between.  kprefetchd's own reads of a round have completed before the
 * next check, so their sectors are all counted by then.  A swapoff that
 * takes a disk out of the sums starts a new window.
 */
static bool kprefetchd_swap_io_contended(void)
{
	unsigned long now = jiffies, sectors, ticks, moved;
	struct swap_prefetch_io_window w;

	if (time_before(now, kprefetchd_io.at + HZ))
		return kprefetchd_io.contended;
	kprefetchd_swap_disk_stat(&sectors, &ticks);
	if ((long)(sectors - kprefetchd_io.sectors) < 0 ||
	    (long)(ticks - kprefetchd_io.ticks) < 0) {
		kprefetchd_swap_io_reset();
		return false;
	}
	moved = sectors - kprefetchd_io.sectors;
	w.span_ms = jiffies_to_msecs(now - kprefetchd_io.at);
	/* Two swap disks busy at once count once: the window at most. */
	w.busy_ms = min(jiffies_to_msecs(ticks - kprefetchd_io.ticks),
			w.span_ms);
	w.own = kprefetchd_own_sectors() - kprefetchd_io.own;
	w.others = moved > w.own ? moved - w.own : 0;
	kprefetchd_swap_io_start(now, sectors, ticks,
				 swap_prefetch_io_contended(&w));
	return kprefetchd_io.contended;
}

/*
 * Time the CPUs spent running tasks so far, user and system, in ns, as
 * the tick samples it.  Interrupts and softirqs are left out: while
 * kprefetchd reads at the disk's speed, the completions of its own reads
 * are most of them, and counted as others' time they made a 2 GiB guest
 * skip a round after every 0.2-1 s of reading (a foreground's work is a
 * task's; a kworker that decrypts kprefetchd's reads still counts).
 * Offline CPUs too: their counts stand still, and a CPU that comes
 * online adds nothing it did not spend since.
 */
static u64 kprefetchd_cpu_task_ns(void)
{
	struct kernel_cpustat kcs;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		kcpustat_cpu_fetch(&kcs, cpu);
		sum += kcs.cpustat[CPUTIME_USER] + kcs.cpustat[CPUTIME_NICE] +
		       kcs.cpustat[CPUTIME_SYSTEM];
	}
	return sum;
}

/*
 * Did others keep the CPUs busy since the last sample?  Samples closer
 * than a tenth of a second apart say little: the last answer stands.
 */
static bool kprefetchd_cpu_busy(void)
{
	u64 now = ktime_get_ns(), tasks, own, own_user, own_system, span;

	span = now - kprefetchd_cpu_at;
	if (span < NSEC_PER_SEC / 10)
		return kprefetchd_cpu_was_busy;
	tasks = kprefetchd_cpu_task_ns();
	/* Sampled as the CPUs' times are, not the scheduler's exact sum. */
	task_cputime(current, &own_user, &own_system);
	own = own_user + own_system;
	span *= num_online_cpus();
	if (kprefetchd_cpu_at) {
		u64 used = tasks - kprefetchd_cpu_tasks;

		used -= min(used, own - kprefetchd_cpu_own);
		kprefetchd_cpu_was_busy = swap_prefetch_cpu_busy(used, span);
	}
	kprefetchd_cpu_at = now;
	kprefetchd_cpu_tasks = tasks;
	kprefetchd_cpu_own = own;
	return kprefetchd_cpu_was_busy;
}

/*
 * Pages read and not yet used or dropped, give or take the counts that
 * CPUs have not folded in yet.
 */
static unsigned long kprefetchd_unused_pages(void)
{
	return percpu_counter_read_positive(&swap_prefetch_nr_unused);
}

static bool kprefetchd_may_exchange(void)
{
	return !kprefetchd_exchange.stopped;
}

/* May the exchange drop page cache: is the oldest a stream's? */
static bool kprefetchd_may_drop_file(void)
{
	return swap_prefetch_exchange_streamed(&kprefetchd_exchange,
			global_node_page_state(NR_INACTIVE_FILE));
}

/* Pages of reclaimable slab the exchange may take now. */
static unsigned long kprefetchd_slab_room(void)
{
	return swap_prefetch_exchange_slab_room(&kprefetchd_exchange,
			global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B),
			global_node_page_state(NR_INACTIVE_FILE));
}

/* Has node @nid old file pages or slab that an exchange may look at? */
static bool kprefetchd_node_can_exchange(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);

	if (kprefetchd_may_drop_file() &&
	    node_page_state(pgdat, NR_INACTIVE_FILE) >= SWAP_CLUSTER_MAX)
		return true;
	return kprefetchd_slab_room() >= SWAP_CLUSTER_MAX &&
	       node_page_state_pages(pgdat, NR_SLAB_RECLAIMABLE_B) >=
	       SWAP_CLUSTER_MAX;
}

/*
 * May a round with no node that has room make room of page cache or slab?
 * Takes the look for the exchange; reads the vm events summed just before.
 */
static bool kprefetchd_exchange_possible(void)
{
	struct swap_prefetch_exchange_counts now = {
		.swapped_out = kprefetchd_events[PSWPOUT],
		.stolen = kprefetchd_events[PGSTEAL_FILE],
		.file = global_node_page_state(NR_ACTIVE_FILE) +
			global_node_page_state(NR_INACTIVE_FILE),
		.refaulted = global_node_page_state(WORKINGSET_REFAULT_FILE),
		.used = kprefetchd_events[SWAP_PREFETCH_USED_PAGES],
		.slab = global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B),
	};
	int nid;

	swap_prefetch_exchange_look(&kprefetchd_exchange, &now);
	if (!kprefetchd_may_exchange())
		return false;
	for_each_node_state(nid, N_MEMORY)
		if (kprefetchd_node_can_exchange(nid))
			return true;
	return false;
}

static void kprefetchd_take_snapshot(struct swap_prefetch_snapshot *s,
				     const struct swap_prefetch_tunables *t)
{
	s->totalram = totalram_pages();
	s->activity = kprefetchd_activity_since_last();
	s->free_falling = kprefetchd_free_falling(t->delay);
	s->nr_nodes = num_node_state(N_MEMORY);
	s->nodes_short = kprefetchd_nodes_short(&kprefetchd_room);
	s->swap_contended = kprefetchd_swap_io_contended();
	s->cpu_busy = kprefetchd_cpu_busy();
	s->laptop_mode = READ_ONCE(laptop_mode);
	s->mapped = global_node_page_state(NR_FILE_MAPPED) +
		    global_node_page_state(NR_ANON_MAPPED);
	s->slab = global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
	s->prefetched = kprefetchd_unused_pages();
	s->swap_full = vm_swap_full();
	s->exchange = kprefetchd_exchange_possible();
}

enum kprefetchd_outcome {
	KPREFETCHD_READ,	/* read into the swap cache */
	KPREFETCHD_CACHED,	/* already in the swap cache */
	KPREFETCHD_STALE,	/* slot freed or reused, device gone */
	KPREFETCHD_SKIPPED,	/* zswap, zero, zram, group gone or full */
	KPREFETCHD_HELD,	/* its group lacks room or calm: put back */
	KPREFETCHD_FAILED,	/* no memory though its node had room */
};

/*
 * How long a group stays held once its pressure moved: the delay, and
 * longer than PSI and the memory cgroup statistics take to fold in what
 * happened (every 2 s), so that a group under steady pressure is never
 * seen calm between two folds.
 */
static unsigned long kprefetchd_group_hold(unsigned long delay)
{
	return max(delay, msecs_to_jiffies(SWAP_PREFETCH_GROUP_HOLD_MIN_MS));
}

/*
 * The PSI memory "some" stall of @memcg (NULL: the machine) so far, in
 * ns: what its memory.pressure shows (cgroup v2; the root's is the
 * machine's).  0 without PSI.  A caller with a group holds
 * rcu_read_lock(), which keeps an offlined group's PSI until it is freed.
 */
static u64 kprefetchd_stall_ns(struct mem_cgroup *memcg)
{
#ifdef CONFIG_PSI
	struct psi_group *psi = &psi_system;

	if (static_branch_likely(&psi_disabled))
		return 0;
#ifdef CONFIG_MEMCG
	if (memcg)
		psi = cgroup_psi(memcg->css.cgroup);
#endif
	if (psi)
		return READ_ONCE(psi->total[PSI_AVGS][PSI_MEM_SOME]);
#endif
	return 0;
}

/*
 * Without memory cgroups, the whole machine is the one group: its memory
 * stall (/proc/pressure/memory) and its major faults hold back every
 * entry, and the round stops at the first (an entry with no group, id 0,
 * holds back all).  Its reclaim holds everything back anyway.
 */
static enum kprefetchd_outcome kprefetchd_machine_outcome(unsigned long delay)
{
	u64 pressure = kprefetchd_events[PGMAJFAULT] +
		       kprefetchd_stall_ns(NULL);

	return swap_prefetch_group_calm(&kprefetchd_watch, 0, pressure, jiffies,
					kprefetchd_group_hold(delay)) ?
	       KPREFETCHD_READ : KPREFETCHD_HELD;
}

#ifdef CONFIG_MEMCG
/* Is more than half of @memcg's memory.swap.max in use?  cgroup v2 only. */
static bool kprefetchd_memcg_swap_full(struct mem_cgroup *memcg)
{
	if (!cgroup_subsys_on_dfl(memory_cgrp_subsys))
		return false;
	return !swap_prefetch_swap_room_ok(page_counter_read(&memcg->swap),
					   READ_ONCE(memcg->swap.max));
}

/*
 * A non-blocking charge fails only at memory.max and ignores memory.high,
 * so check both, on every ancestor, before allocating; and the swap
 * headroom, without which the page could not be reclaimed again.  Caller
 * holds rcu_read_lock().
 */
static bool kprefetchd_memcg_has_room(struct mem_cgroup *memcg)
{
	for (; memcg && !mem_cgroup_is_root(memcg);
	     memcg = parent_mem_cgroup(memcg)) {
		unsigned long limit = min(READ_ONCE(memcg->memory.high),
					  READ_ONCE(memcg->memory.max));

		if (!swap_prefetch_memcg_room_ok(page_counter_read(&memcg->memory),
						 limit) ||
		    kprefetchd_memcg_swap_full(memcg))
			return false;
	}
	return true;
}

/*
 * A count that grows with @memcg's memory pressure, its subgroups'
 * included: the reclaim scans of its pages (its limits', its ancestors',
 * the machine's, memory.reclaim's) and its major faults (a user back at
 * the group's swapped-out pages), as of the last flush of the memcg
 * statistics; and its PSI memory stall.  Caller holds rcu_read_lock().
 */
static u64 kprefetchd_memcg_pressure(struct mem_cgroup *memcg)
{
	return memcg_events(memcg, PGSCAN_KSWAPD) +
	       memcg_events(memcg, PGSCAN_DIRECT) +
	       memcg_events(memcg, PGMAJFAULT) +
	       kprefetchd_stall_ns(memcg);
}

/*
 * Has @memcg (NULL: the root) been free of memory pressure for a while?
 * Its own pressure, not the machine's: a container at its memory.high
 * that keeps swapping holds back its own entries, not another group's.
 */
static bool kprefetchd_memcg_calm(struct mem_cgroup *memcg, unsigned long delay)
{
	if (!memcg)
		memcg = root_mem_cgroup;
	return swap_prefetch_group_calm(&kprefetchd_watch, mem_cgroup_id(memcg),
					kprefetchd_memcg_pressure(memcg),
					jiffies, kprefetchd_group_hold(delay));
}

/*
 * What the group that @cand's entry is charged to says of reading it:
 * %KPREFETCHD_READ if it may be read.  An entry charged to another group
 * than at its record is in a slot that changed hands: the record is an
 * earlier owner's (record id 0 is "not known": cgroup v1 charges swap
 * only when the folio leaves the swap cache, after the record).  A group
 * that is gone (offline) is skipped: the charge would fall to the root
 * cgroup, out of reach of the limits of whoever maps the page next, and
 * a stopped unit's pages are the least likely to be used.  A group
 * without room, or under memory pressure in the last @delay, holds its
 * entries back, if the record says whose they are; they are put back
 * for a later round.
 */
static enum kprefetchd_outcome
kprefetchd_group_outcome(const struct swap_prefetch_candidate *cand,
			 unsigned long delay)
{
	enum kprefetchd_outcome ret = KPREFETCHD_READ;
	struct mem_cgroup *memcg;
	unsigned short id;

	if (mem_cgroup_disabled())
		return kprefetchd_machine_outcome(delay);
	id = lookup_swap_cgroup_id(cand->entry);
	if (cand->memcg && id != cand->memcg)
		return KPREFETCHD_STALE;
	rcu_read_lock();
	memcg = mem_cgroup_from_id(id);
	if (memcg && !mem_cgroup_is_root(memcg) && !mem_cgroup_online(memcg))
		ret = KPREFETCHD_SKIPPED;
	else if (!kprefetchd_memcg_has_room(memcg) ||
		 !kprefetchd_memcg_calm(memcg, delay))
		ret = cand->memcg ? KPREFETCHD_HELD : KPREFETCHD_SKIPPED;
	rcu_read_unlock();
	return ret;
}

/*
 * The allocation or the charge failed: is @cand's entry charged to a
 * group, whose limit may have refused the charge (a cgroup v1 memsw
 * limit, which the room check does not see)?  Held back as at any group
 * without room, if the record says whose it is.
 */
static enum kprefetchd_outcome
kprefetchd_group_refused(const struct swap_prefetch_candidate *cand)
{
	struct mem_cgroup *memcg;
	bool group;

	if (mem_cgroup_disabled())
		return KPREFETCHD_FAILED;
	rcu_read_lock();
	memcg = mem_cgroup_from_id(lookup_swap_cgroup_id(cand->entry));
	group = memcg && !mem_cgroup_is_root(memcg);
	rcu_read_unlock();
	if (!group)
		return KPREFETCHD_FAILED;
	return cand->memcg ? KPREFETCHD_HELD : KPREFETCHD_SKIPPED;
}
#else
static enum kprefetchd_outcome
kprefetchd_group_outcome(const struct swap_prefetch_candidate *cand,
			 unsigned long delay)
{
	return kprefetchd_machine_outcome(delay);
}

static enum kprefetchd_outcome
kprefetchd_group_refused(const struct swap_prefetch_candidate *cand)
{
	return KPREFETCHD_FAILED;
}
#endif

/* Should this entry be left alone even though it is still valid? */
static bool kprefetchd_skip_entry(struct swap_info_struct *si,
				  swp_entry_t entry)
{
	bool is_zero;

	/*
	 * zram and other synchronous devices would block kprefetchd on every
	 * page and keep a compressed duplicate; a zswap load would free the
	 * compressed copy and dirty the folio, so it could not be dropped
	 * without a write.  Zero-filled entries fault in without I/O anyway.
	 */
	if (si->flags & SWP_SYNCHRONOUS_IO)
		return true;
	if (zswap_present(entry))
		return true;
	return swap_zeromap_batch(entry, 1, &is_zero) == 1 && is_zero;
}

/*
 * __read_swap_cache_async() returned no folio.  Most reasons are about
 * this one entry: a fault or swapoff raced with us for the slot, or the
 * owner's memcg refused the charge (a cgroup v1 memsw limit, which the
 * room check does not see).  Only a failed allocation - no slot race, and
 * no group limit that could have refused - is worth stopping the round.
 */
static enum kprefetchd_outcome
kprefetchd_why_no_folio(struct swap_info_struct *si,
			const struct swap_prefetch_candidate *cand)
{
	swp_entry_t entry = cand->entry;
	struct folio *folio;

	if (!swap_swapcount(si, entry))
		return KPREFETCHD_STALE;
	folio = filemap_get_folio(swap_address_space(entry),
				  swap_cache_index(entry));
	if (!IS_ERR(folio)) {
		folio_put(folio);
		return KPREFETCHD_CACHED;
	}
	return kprefetchd_group_refused(cand);
}

#ifdef CONFIG_NUMA
/*
 * The page goes back to the node it was swapped out from, and nowhere
 * else: the node its owner's mempolicy or cpuset chose, and one that
 * do_swap_page() will map as it is.  A node that has no memory any more
 * gets kprefetchd's own policy instead.  Only kprefetchd reads, so one
 * static policy serves; the 6.12 allocator takes no reference to it.
 */
static struct mempolicy kprefetchd_node_policy = {
	.refcnt = ATOMIC_INIT(1),
	.mode = MPOL_PREFERRED,
	.home_node = NUMA_NO_NODE,
};

static struct mempolicy *kprefetchd_policy_for(int nid, gfp_t *gfp)
{
	if (!node_state(nid, N_MEMORY))
		return get_task_policy(current);
	kprefetchd_node_policy.nodes = nodemask_of_node(nid);
	*gfp |= __GFP_THISNODE;
	return &kprefetchd_node_policy;
}
#else
static struct mempolicy *kprefetchd_policy_for(int nid, gfp_t *gfp)
{
	return NULL;
}
#endif

static enum kprefetchd_outcome
kprefetchd_read_one(const struct swap_prefetch_candidate *cand,
		    unsigned long delay, struct swap_iocb **splug,
		    struct folio **foliop)
{
	swp_entry_t entry = cand->entry;
	/*
	 * No reclaim, no kswapd wake-up, no emergency reserves: prefetch only
	 * ever uses memory that nobody else wants.  Never __GFP_HIGH, which
	 * would force the memcg charge past memory.max.
	 */
	gfp_t gfp = (GFP_HIGHUSER_MOVABLE & ~__GFP_RECLAIM) |
		    __GFP_NORETRY | __GFP_NOWARN | __GFP_NOMEMALLOC;
	enum kprefetchd_outcome ret = KPREFETCHD_READ;
	struct swap_info_struct *si;
	struct mempolicy *mpol;
	struct folio *folio;
	bool allocated;
	void *shadow;

	si = get_swap_device(entry);
	if (!si)
		return KPREFETCHD_STALE;
	/* Pinned: a purge since the pop shows now, and none can start. */
	if (!swap_prefetch_tracker_current(&swap_prefetch_global, cand) ||
	    !(si->flags & SWP_WRITEOK) || !swap_swapcount(si, entry)) {
		ret = KPREFETCHD_STALE;
		goto out;
	}
	if (kprefetchd_skip_entry(si, entry)) {
		ret = KPREFETCHD_SKIPPED;
		goto out;
	}
	ret = kprefetchd_group_outcome(cand, delay);
	if (ret != KPREFETCHD_READ)
		goto out;

	/* A racy look: a shadow that goes meanwhile costs one count. */
	shadow = get_shadow_from_swap_cache(entry);
	if (shadow && IS_ENABLED(CONFIG_NUMA) &&
	    swap_prefetch_record_outlived(cand->nid,
					  workingset_shadow_nid(shadow))) {
		ret = KPREFETCHD_STALE;
		goto out;
	}
	mpol = kprefetchd_policy_for(cand->nid, &gfp);
	folio = __read_swap_cache_async(entry, gfp, mpol, NO_INTERLEAVE_INDEX,
					&allocated, true);
	if (!folio) {
		ret = kprefetchd_why_no_folio(si, cand);
		goto out;
	}
	if (allocated) {
		/* add_to_swap_cache() marked it (swap_prefetch_note_add()). */
		swap_read_folio(folio, splug);
		/* The caller waits for the read, then drops the reference. */
		*foliop = folio;
	} else {
		ret = KPREFETCHD_CACHED;
		folio_put(folio);
	}
out:
	put_swap_device(si);
	return ret;
}

/* Foreground work started during a round?  Leaves the baseline alone. */
static bool kprefetchd_activity_peek(void)
{
	unsigned long cur[NR_SWAP_PREFETCH_ACT];

	kprefetchd_read_activity(cur);
	return swap_prefetch_activity_mask(kprefetchd_activity, cur);
}

/*
 * Put popped entries back as the newest, where the next round starts; an
 * entry that finds no chunk page is lost, and counted so.
 */
static void kprefetchd_put_back(const struct swap_prefetch_candidate *cand,
				unsigned int nr, unsigned long *nr_stale)
{
	if (nr)
		count_vm_events(SWAP_PREFETCH_NOMEM_PAGES,
				swap_prefetch_tracker_unpop(&swap_prefetch_global,
							    cand, nr, nr_stale));
}

static int swap_prefetch_candidate_cmp(const void *a, const void *b)
{
	unsigned long x = ((const struct swap_prefetch_candidate *)a)->entry.val;
	unsigned long y = ((const struct swap_prefetch_candidate *)b)->entry.val;

	return x < y ? -1 : x > y;
}

/* What a round read, and the swap read plug its reads share. */
struct kprefetchd_round {
	unsigned int nr_read;
	unsigned int nr_skipped;
	unsigned int nr_exchanged;
	unsigned long nr_stale;
	struct swap_iocb *splug;
};

/*
 * Read the @nr entries popped into kprefetchd_batch[] into
 * kprefetchd_folios[], into room page cache made (@exchanged) or free
 * memory; returns why it stopped early, or %SWAP_PREFETCH_STOP_DONE.
 * Entries of groups without room, and those after a failed allocation,
 * go back to the tracker.
 */
static enum swap_prefetch_stop
kprefetchd_read_popped(unsigned int nr, unsigned long delay,
		       bool exchanged, struct kprefetchd_round *r)
{
	enum swap_prefetch_stop stop = SWAP_PREFETCH_STOP_DONE;
	enum kprefetchd_outcome outcome;
	unsigned int i, nr_held = 0;

	/* Seek order on rotating disks. */
	sort(kprefetchd_batch, nr, sizeof(kprefetchd_batch[0]),
	     swap_prefetch_candidate_cmp, NULL);
	for (i = 0; i < nr; i++) {
		outcome = kprefetchd_read_one(&kprefetchd_batch[i], delay,
					      &r->splug,
					      &kprefetchd_folios[r->nr_read]);
		if (outcome == KPREFETCHD_HELD) {
			/* Its group's later entries stay where they are. */
			swap_prefetch_groups_add(&kprefetchd_held,
						 kprefetchd_batch[i].memcg);
			kprefetchd_batch[nr_held++] = kprefetchd_batch[i];
			continue;
		}
		if (outcome == KPREFETCHD_FAILED) {
			/* The rest is still the newest: the next round's. */
			kprefetchd_put_back(kprefetchd_batch + i, nr - i,
					    &r->nr_stale);
			stop = SWAP_PREFETCH_STOP_NOMEM;
			break;
		}
		if (outcome == KPREFETCHD_READ)
			trace_swap_prefetch_read(swp_type(kprefetchd_batch[i].entry),
						 swp_offset(kprefetchd_batch[i].entry),
						 exchanged);
		r->nr_read += outcome == KPREFETCHD_READ;
		kprefetchd_own_reads += outcome == KPREFETCHD_READ;
		r->nr_stale += outcome == KPREFETCHD_STALE;
		r->nr_skipped += outcome == KPREFETCHD_SKIPPED;
	}
	kprefetchd_put_back(kprefetchd_batch, nr_held, &r->nr_stale);
	return stop;
}

/*
 * Read one slice of the newest entries of the nodes with room; returns
 * why it stopped early, or %SWAP_PREFETCH_STOP_DONE.
 */
static enum swap_prefetch_stop
kprefetchd_read_slice(unsigned int want, bool nodes_short,
		      unsigned long delay, struct kprefetchd_round *r)
{
	enum swap_prefetch_stop stop;
	unsigned int nr;

	nr = swap_prefetch_tracker_pop(&swap_prefetch_global, kprefetchd_batch,
				       want, &kprefetchd_room, &kprefetchd_held,
				       &r->nr_stale);
	stop = kprefetchd_read_popped(nr, delay, false, r);
	/* What is left belongs to nodes or groups without room: wait. */
	if (nr < want && stop == SWAP_PREFETCH_STOP_DONE)
		stop = (nodes_short || kprefetchd_held.nr) &&
		       atomic_long_read(&swap_prefetch_global.nr_chunks) ?
		       SWAP_PREFETCH_STOP_LOW_FREE : SWAP_PREFETCH_STOP_EMPTY;
	return stop;
}

/*
 * How far node @nid's zones are below their high watermarks, plus what
 * this CPU's per-cpu lists may take of them.  Reclaim stops at the high
 * watermark, and others' allocations wake kswapd below the low one, or
 * reclaim directly below the min one: an exchange that only matched its
 * reads would leave free memory where a stream's end left it, often still
 * below, and every allocation its reads make would show as pressure.  And
 * the reads' allocations refill this CPU's per-cpu lists from the zone's
 * free pages, which the watermark checks then no longer count, up to what
 * a list may hold (its high_max: by default an eighth of the zone, split
 * across the zone's CPUs).  Measured in a 256 MiB guest with one CPU:
 * with the top-up to the high watermark alone, or with one refill's worth
 * more (the list's batch shifted by CONFIG_PCP_BATCH_SCALE_MAX),
 * kprefetchd's own allocations woke kswapd in the middle of an exchange
 * every 10-20 exchanges, and kswapd's scan held prefetch back for a delay
 * each time; with high_max, never.  The caller keeps to this CPU.
 */
static unsigned long kprefetchd_node_deficit(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long deficit = 0, free, want;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++) {
		struct zone *zone = &pgdat->node_zones[zid];

		if (!populated_zone(zone) || !managed_zone(zone))
			continue;
		free = zone_page_state(zone, NR_FREE_PAGES);
		want = high_wmark_pages(zone) +
		       READ_ONCE(this_cpu_ptr(zone->per_cpu_pageset)->high_max);
		if (free < want)
			deficit += want - free;
	}
	return deficit;
}

/*
 * Shrink node @nid's slab for up to @lack pages the page cache did not
 * give, within what the exchange may take of slab; the shrinkers free
 * what they find unused.
 */
static unsigned long kprefetchd_exchange_slab(int nid, unsigned long lack)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long slab;

	lack = min(lack, kprefetchd_slab_room());
	if (lack < SWAP_CLUSTER_MAX)
		return 0;
	slab = node_page_state_pages(pgdat, NR_SLAB_RECLAIMABLE_B);
	return reclaim_slab_node(pgdat, swap_prefetch_slab_priority(slab, lack));
}

/*
 * Read up to @want of node @nid's newest entries into the room of as much
 * use-once page cache of that node, dropped first: an exchange, page for
 * page, and as much more as kprefetchd_node_deficit() finds missing.  What
 * the page cache lacks of that, or all of it where the page cache is no
 * stream's, comes from the node's slab.
 */
static enum swap_prefetch_stop
kprefetchd_exchange_node(int nid, unsigned int want, unsigned long delay,
			 struct kprefetchd_round *r)
{
	nodemask_t node = nodemask_of_node(nid);
	unsigned long dropped = 0, reused = 0, slab = 0, need;
	enum swap_prefetch_stop stop;
	unsigned int nr, room;

	nr = swap_prefetch_tracker_pop(&swap_prefetch_global, kprefetchd_batch,
				       want, &node, &kprefetchd_held,
				       &r->nr_stale);
	if (nr) {
		/*
		 * The folios are freed to this CPU's per-cpu lists, which the
		 * zones' free counts, and so the watermark checks of the reads'
		 * allocations, do not see: spill them, on the same CPU.
		 */
		migrate_disable();
		need = nr + kprefetchd_node_deficit(nid);
		if (kprefetchd_may_drop_file())
			dropped = reclaim_use_once_file(NODE_DATA(nid), need,
							&reused);
		if (dropped < need)
			slab = kprefetchd_exchange_slab(nid, need - dropped);
		drain_local_pages(NULL);
		migrate_enable();
	}
	trace_swap_prefetch_exchange(nid, nr, dropped, reused, slab);
	/* MGLRU: the oldest generation holds more pages used again than not. */
	if (reused > dropped)
		kprefetchd_exchange.stopped = true;
	dropped += slab;
	r->nr_exchanged += dropped;
	room = min_t(unsigned long, dropped, nr);
	kprefetchd_put_back(kprefetchd_batch + room, nr - room, &r->nr_stale);
	stop = kprefetchd_read_popped(room, delay, true, r);
	if (stop == SWAP_PREFETCH_STOP_DONE && room < want)
		stop = SWAP_PREFETCH_STOP_LOW_FREE;
	return stop;
}

/* An exchange slice on every node, none of which has room. */
static enum swap_prefetch_stop
kprefetchd_exchange_slice(unsigned int want, unsigned long delay,
			  struct kprefetchd_round *r)
{
	enum swap_prefetch_stop stop, ret = SWAP_PREFETCH_STOP_LOW_FREE;
	unsigned int start = r->nr_read;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		if (r->nr_read - start >= want)
			break;
		if (!kprefetchd_node_can_exchange(nid))
			continue;
		stop = kprefetchd_exchange_node(nid, want - (r->nr_read - start),
						delay, r);
		if (stop == SWAP_PREFETCH_STOP_DONE)
			ret = stop;
		else if (stop != SWAP_PREFETCH_STOP_LOW_FREE)
			return stop;
	}
	return ret;
}

/*
 * Wait for the round's reads, then drop kprefetchd's references.  A page
 * still in the swap cache that nothing maps goes to the tail of the inactive
 * list (MGLRU: the oldest generation), where reclaim looks first: it is a
 * guess, it can go without I/O, and it must not push out what the workload
 * used more recently.  Only a folio on the LRU can be moved: one that is
 * still in the lru_add batch of a CPU kprefetchd ran on before it was moved
 * is added there first, once for the round.  The rotation is batched on this
 * CPU; the caller drains it.
 */
static void kprefetchd_finish_reads(struct folio **folios, unsigned int nr)
{
	bool drained = false;
	unsigned int i;

	for (i = 0; i < nr; i++)
		folio_wait_locked(folios[i]);
	for (i = 0; i < nr; i++) {
		struct folio *folio = folios[i];

		if (!folio_test_swapcache(folio) || folio_mapped(folio))
			continue;
		if (!folio_test_lru(folio) && !drained) {
			lru_add_drain_all();
			drained = true;
		}
		folio_rotate_reclaimable(folio);
	}
	for (i = 0; i < nr; i++)
		folio_put(folios[i]);
}

/*
 * Read up to @batch of the newest entries; returns the pages read.  With
 * no node that has room, and the page cache used once, make room first.
 */
static unsigned int kprefetchd_read_batch(unsigned int batch,
					  const struct swap_prefetch_tunables *t)
{
	enum swap_prefetch_stop stop = SWAP_PREFETCH_STOP_DONE;
	struct kprefetchd_round r = {};
	unsigned int i, nodes_short, want;
	struct blk_plug plug;

	/* Each round looks again at the groups the last one found full. */
	kprefetchd_held.nr = 0;
	/* The groups' event counts, for their pressure: may sleep. */
	mem_cgroup_flush_stats(NULL);
	blk_start_plug(&plug);
	for (i = 0; i < batch && stop == SWAP_PREFETCH_STOP_DONE;
	     i += KPREFETCHD_SLICE) {
		if (kthread_should_stop()) {
			stop = SWAP_PREFETCH_STOP_EXIT;
			break;
		}
		if (i && kprefetchd_activity_peek()) {
			swap_prefetch_mark_busy(&kprefetchd_pacer);
			stop = SWAP_PREFETCH_STOP_BUSY;
			break;
		}
		want = min(batch - i, KPREFETCHD_SLICE);
		/* Watermarks may have moved since the round began. */
		nodes_short = kprefetchd_nodes_short(&kprefetchd_room);
		if (!swap_prefetch_no_node_has_room(nodes_short,
						    num_node_state(N_MEMORY)))
			stop = kprefetchd_read_slice(want, nodes_short,
						     t->delay, &r);
		else if (kprefetchd_may_exchange())
			stop = kprefetchd_exchange_slice(want, t->delay, &r);
		else
			stop = SWAP_PREFETCH_STOP_LOW_FREE;
	}
	blk_finish_plug(&plug);
	swap_read_unplug(r.splug);
	/* Make the new folios visible to reclaim on the inactive LRU now. */
	lru_add_drain();

	count_vm_events(SWAP_PREFETCH_READ_PAGES, r.nr_read);
	count_vm_events(SWAP_PREFETCH_STALE_PAGES, r.nr_stale);
	count_vm_events(SWAP_PREFETCH_SKIPPED_PAGES, r.nr_skipped);
	count_vm_events(SWAP_PREFETCH_EXCHANGED_PAGES, r.nr_exchanged);
	swap_prefetch_exchange_account(&kprefetchd_exchange, r.nr_read,
				       r.nr_exchanged);
	trace_swap_prefetch_round(batch, r.nr_read, r.nr_stale, r.nr_skipped,
				  stop,
				  atomic_long_read(&swap_prefetch_global.nr_chunks),
				  kprefetchd_unused_pages());
	swap_prefetch_round_done(&kprefetchd_pacer, stop, jiffies, t);

	/*
	 * Wait for this round's reads before the next round is paced: at
	 * most one batch is ever queued ahead of a returning user's faults,
	 * and the rate follows what the device really delivers.
	 */
	kprefetchd_finish_reads(kprefetchd_folios, r.nr_read);
	lru_add_drain();
	return r.nr_read;
}

static void kprefetchd_read_tunables(struct swap_prefetch_tunables *t)
{
	t->delay = msecs_to_jiffies(READ_ONCE(swap_prefetch_delay_ms));
	t->interval = msecs_to_jiffies(READ_ONCE(swap_prefetch_interval_ms));
	t->batch = READ_ONCE(swap_prefetch_batch_pages);
	t->adaptive = READ_ONCE(swap_prefetch_adaptive);
}

/* For the trace: how long until kprefetchd looks again. */
static unsigned int kprefetchd_ms_to_next(void)
{
	long left = (long)(kprefetchd_pacer.next - jiffies);

	return left > 0 ? jiffies_to_msecs(left) : 0;
}

/*
 * The offsets of swap @type still worth reading: swapped out and not in
 * the swap cache.  A racy look at the swap map: a wrong guess keeps a
 * stale entry, which the read skips, or drops one read too late.
 */
static unsigned int kprefetchd_sieve(unsigned int type, u32 *offsets,
				     unsigned int nr)
{
	struct swap_info_struct *si = swap_prefetch_get_type(type);
	unsigned int i, kept = 0;
	unsigned char map;

	if (!si)
		return 0;
	for (i = 0; i < nr; i++) {
		if (offsets[i] >= si->max)
			continue;
		/* Unlocked: a stale answer only keeps or drops one entry. */
		map = data_race(READ_ONCE(si->swap_map[offsets[i]]));
		if (map && !(map & SWAP_HAS_CACHE) && map != SWAP_MAP_BAD)
			offsets[kept++] = offsets[i];
	}
	put_swap_device(si);
	return kept;
}

/*
 * Whose the entries are, for a fair trim: the memory cgroup each is
 * charged to (0 without memcg).  The device is pinned while its
 * swap_cgroup map is read: swapoff frees that map.
 */
static bool kprefetchd_owners(unsigned int type, const u32 *offsets,
			      unsigned int nr, unsigned short *ids)
{
	struct swap_info_struct *si = swap_prefetch_get_type(type);
	unsigned int i;

	if (!si)
		return false;
	for (i = 0; i < nr; i++)
		ids[i] = offsets[i] < si->max ?
			 lookup_swap_cgroup_id(swp_entry(type, offsets[i])) : 0;
	put_swap_device(si);
	return true;
}

static void kprefetchd_do_round(void)
{
	struct swap_prefetch_snapshot snap;
	struct swap_prefetch_tunables t;
	enum swap_prefetch_verdict verdict;
	unsigned int batch;

	kprefetchd_read_tunables(&t);
	kprefetchd_take_snapshot(&snap, &t);
	verdict = swap_prefetch_pace(&kprefetchd_pacer, &snap, jiffies, &t,
				     &batch);
	if (verdict != SWAP_PREFETCH_GO) {
		/* A busy CPU or a short node leaves the tracker as it was. */
		if (swap_prefetch_restarts_delay(verdict))
			kprefetchd_sifted = false;
		count_vm_event(SWAP_PREFETCH_DELAYED_CHECKS);
		trace_swap_prefetch_delay(verdict, snap.activity,
					  kprefetchd_ms_to_next(),
					  atomic_long_read(&swap_prefetch_global.nr_chunks));
		return;
	}
	if (!kprefetchd_sifted) {
		count_vm_events(SWAP_PREFETCH_STALE_PAGES,
				swap_prefetch_tracker_sift(&swap_prefetch_global,
							   kprefetchd_sieve));
		kprefetchd_sifted = true;
	}
	kprefetchd_read_batch(batch, &t);
}

static bool kprefetchd_has_work(void)
{
	return READ_ONCE(swap_prefetch_on) &&
	       atomic_long_read(&swap_prefetch_global.nr_chunks);
}

/* A knob written, or a tracker near its cap, wants kprefetchd now. */
static bool kprefetchd_kicked(void)
{
	return test_bit(0, &kprefetchd_kick) ||
	       test_bit(0, &swap_prefetch_global.trim);
}

/*
 * Sleep until there is work and the next round is due, or a knob write
 * asks for a look now.  Returns true if the next round should run now.
 */
static bool kprefetchd_wait_work(void)
{
	unsigned long now = jiffies;

	if (!kprefetchd_has_work()) {
		wait_event_freezable(kprefetchd_wait, kthread_should_stop() ||
				     kprefetchd_has_work());
		/*
		 * Entries appear while reclaim swaps: the VM is busy by
		 * definition, so start with the full delay and fresh
		 * baselines: the counters, the trend, the swap disks' I/O.
		 */
		kprefetchd_activity_since_last();
		kprefetchd_reset_trend();
		kprefetchd_swap_io_reset();
		swap_prefetch_mark_busy(&kprefetchd_pacer);
		kprefetchd_pacer.next = jiffies +
			msecs_to_jiffies(READ_ONCE(swap_prefetch_interval_ms));
		return false;
	}
	if (time_before(now, kprefetchd_pacer.next))
		wait_event_freezable_timeout(kprefetchd_wait,
					     kthread_should_stop() ||
					     !kprefetchd_has_work() ||
					     kprefetchd_kicked(),
					     kprefetchd_pacer.next - now);
	return test_and_clear_bit(0, &kprefetchd_kick) ||
	       time_after_eq(jiffies, kprefetchd_pacer.next);
}

static void kprefetchd_trim(void)
{
	unsigned long dead = 0, recycled;

	recycled = swap_prefetch_tracker_trim(&swap_prefetch_global,
					      kprefetchd_sieve, &dead);
	count_vm_events(SWAP_PREFETCH_STALE_PAGES, dead);
	count_vm_events(SWAP_PREFETCH_RECYCLED_PAGES, recycled);
	trace_swap_prefetch_trim(dead, recycled,
				 atomic_long_read(&swap_prefetch_global.nr_chunks));
}

static int kprefetchd(void *unused)
{
	bool due;

	set_freezable();
	set_user_nice(current, MAX_NICE);
	/* MAX_NICE alone gives best-effort I/O; prefetch must yield to all. */
	set_task_ioprio(current, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0));

	while (!kthread_should_stop()) {
		/* Recycle the oldest before swap-out has to drop the newest. */
		if (test_bit(0, &swap_prefetch_global.trim))
			kprefetchd_trim();
		due = kprefetchd_wait_work();
		if (kthread_should_stop())
			break;
		if (due && kprefetchd_has_work())
			kprefetchd_do_round();
		cond_resched();
	}
	return 0;
}

/*
 * Reclaim takes prefetched pages that nobody has used yet before the cache
 * a job uses again.  kprefetchd leaves them at the tail of the anonymous
 * LRU, but reclaim balances anonymous against file pages without knowing
 * that these are clean: a page-cache job that needed the room lost its own
 * cache and read it from disk again, while pages that were only a guess
 * stayed.  A shrinker sees them apart, and offers them while the page cache
 * refaults (swap_prefetch_shrink_count()).  Its objects cost no I/O to
 * drop, so it has no seeks, like the shrinkers of other clean caches: each
 * reclaim pass on a node drops that node's, up to half of those of all
 * nodes, and counts them as reclaimed, so that the LRUs give up that much
 * less.  Dropped as reclaim drops them, with a shadow entry; they are
 * not recorded again (they were never mapped: swap_prefetch_nr_to_track()),
 * so prefetch does not read back what it gave up.
 */

/* A batch of folios found under RCU, isolated and dropped outside it. */
#define SWAP_PREFETCH_YIELD_BATCH	32

/*
 * Drop one folio if it is still an unused prefetched page in the swap cache
 * that nothing maps; takes over the caller's reference.  Checked and
 * dropped under one hold of the folio lock: a fault that finds the folio
 * waits for the lock, and its reference then keeps the folio where it is.
 * Returns true if the folio was dropped.
 */
static bool swap_prefetch_yield_folio(struct folio *folio)
{
	bool dropped;

	if (!folio_trylock(folio)) {
		folio_put(folio);
		return false;
	}
	if (!folio_test_swapcache(folio) || !swap_prefetch_folio_unused(folio) ||
	    folio_mapped(folio) || folio_test_writeback(folio) ||
	    !folio_isolate_lru(folio)) {
		folio_unlock(folio);
		folio_put(folio);
		return false;
	}
	/* The isolation holds a reference of its own. */
	folio_put(folio);
	dropped = swap_prefetch_reclaim_folio(folio);
	folio_unlock(folio);
	if (dropped)
		folio_put(folio);
	else
		folio_putback_lru(folio);
	return dropped;
}

/*
 * Drop the unused prefetched folios of node @nid in one swap cache address
 * space, looking at no more than *@budget of them; returns the number
 * dropped.  They leave as reclaim drops a clean swap cache folio, with a
 * shadow entry (swap_prefetch_reclaim_folio()).
 */
static unsigned long swap_prefetch_yield_space(struct address_space *space,
					       int nid, unsigned long *budget)
{
	XA_STATE(xas, &space->i_pages, 0);
	struct folio *batch[SWAP_PREFETCH_YIELD_BATCH], *folio;
	unsigned long dropped = 0;
	unsigned int i, nr;

	do {
		nr = 0;
		rcu_read_lock();
		xas_for_each_marked(&xas, folio, ULONG_MAX, SWAP_PREFETCH_MARK) {
			if (xas_retry(&xas, folio) || xa_is_value(folio))
				continue;
			/* A freed folio's node is still readable: no ref yet. */
			if (folio_nid(folio) != nid || !folio_try_get(folio))
				continue;
			if (unlikely(folio != xas_reload(&xas))) {
				folio_put(folio);
				xas_reset(&xas);
				continue;
			}
			batch[nr++] = folio;
			if (nr == ARRAY_SIZE(batch) || nr == *budget) {
				xas_pause(&xas);
				break;
			}
		}
		rcu_read_unlock();
		for (i = 0; i < nr; i++)
			dropped += swap_prefetch_yield_folio(batch[i]);
		*budget -= nr;
	} while (nr == ARRAY_SIZE(batch) && *budget);
	return dropped;
}

/**
 * swap_prefetch_cache_refaulting - is the page cache losing pages it uses?
 * @g: what the previous look saw
 * @activations: workingset activations of file pages so far
 * @now: jiffies
 *
 * A refault that activates says that the page would have stayed in a
 * larger cache (mm/workingset.c).  A reader that never reads a page
 * twice causes none: its pages go the LRU's use-once way, and unused
 * prefetched pages need not make room for them.  Shrinkers are asked in
 * bursts, and a job that reads its data again refaults in bursts, so
 * the answer stays yes for a second after a move was seen.  A move is
 * seen only between two looks a second apart or less: activations made
 * while nobody looked, by a job that may have ended long ago, cannot be
 * dated, and only set the count the next look compares with.  Lookers
 * may race: a stale answer yields a batch more or less.
 *
 * Return: true if a move was seen in the last second.
 */
VISIBLE_IF_KUNIT bool
swap_prefetch_cache_refaulting(struct swap_prefetch_refault_gate *g,
			       unsigned long activations, unsigned long now)
{
	bool dated = time_before(now, READ_ONCE(g->looked) + HZ);

	WRITE_ONCE(g->looked, now);
	if (activations != READ_ONCE(g->activations)) {
		WRITE_ONCE(g->activations, activations);
		if (dated)
			WRITE_ONCE(g->moved, now);
	}
	return time_before(now, READ_ONCE(g->moved) + HZ);
}
EXPORT_SYMBOL_IF_KUNIT(swap_prefetch_cache_refaulting);

static struct swap_prefetch_refault_gate swap_prefetch_file_gate;

/*
 * Offered only while the page cache refaults: a job that reads its data
 * again gets the room of the unused prefetched pages before its own
 * cache goes, and a reader that reads everything once (an indexer, a
 * backup) leaves them, as the LRU's use-once path leaves the pages that
 * were used.
 */
static unsigned long swap_prefetch_shrink_count(struct shrinker *shrinker,
						struct shrink_control *sc)
{
	unsigned long unused = kprefetchd_unused_pages();

	/* An exchange's slab room is for what kprefetchd reads. */
	if (!unused || current_is_kprefetchd())
		return SHRINK_EMPTY;
	if (!swap_prefetch_cache_refaulting(&swap_prefetch_file_gate,
					    global_node_page_state(WORKINGSET_ACTIVATE_FILE),
					    jiffies))
		return 0;
	return unused;
}

/*
 * The count is of every node: a pass over another node's pages finds none
 * of this node to drop and stops.  Only the address spaces with a marked
 * entry are walked, and only their marked entries.
 */
static unsigned long swap_prefetch_shrink_scan(struct shrinker *shrinker,
					       struct shrink_control *sc)
{
	unsigned long budget = sc->nr_to_scan, dropped = 0, offset;
	struct swap_info_struct *si;
	struct address_space *space;
	unsigned int type;

	for (type = 0; type < MAX_SWAPFILES && budget; type++) {
		si = swap_prefetch_get_type(type);
		if (!si)
			continue;
		for (offset = 0; offset < si->max && budget;
		     offset += SWAP_ADDRESS_SPACE_PAGES) {
			space = swap_address_space(swp_entry(type, offset));
			if (xa_marked(&space->i_pages, SWAP_PREFETCH_MARK))
				dropped += swap_prefetch_yield_space(space,
								     sc->nid,
								     &budget);
		}
		put_swap_device(si);
	}
	sc->nr_scanned = sc->nr_to_scan - budget;
	count_vm_events(SWAP_PREFETCH_YIELDED_PAGES, dropped);
	mm_account_reclaimed_pages(dropped);
	return dropped ?: SHRINK_STOP;
}

static int __init swap_prefetch_shrinker_init(void)
{
	struct shrinker *shrinker;

	shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "swap_prefetch");
	if (!shrinker)
		return -ENOMEM;
	shrinker->count_objects = swap_prefetch_shrink_count;
	shrinker->scan_objects = swap_prefetch_shrink_scan;
	shrinker->batch = SWAP_PREFETCH_YIELD_BATCH;
	shrinker->seeks = 0;
	shrinker_register(shrinker);
	return 0;
}

/* Caller holds swap_prefetch_mutex. */
static void swap_prefetch_apply_enabled(void)
{
	lockdep_assert_held(&swap_prefetch_mutex);
	if (READ_ONCE(swap_prefetch_on)) {
		swap_prefetch_tracker_start(&swap_prefetch_global);
		static_branch_enable(&swap_prefetch_enabled_key);
	} else {
		static_branch_disable(&swap_prefetch_enabled_key);
		/* Off means off: nothing recorded is kept for later. */
		swap_prefetch_tracker_stop(&swap_prefetch_global);
	}
}

/*
 * /sys/kernel/mm/swap_prefetch/: the switch and the pacing, beside
 * transparent_hugepage/khugepaged and ksm.  Every knob takes a decimal
 * number within its range and answers anything else with -EINVAL,
 * leaving the value as it was.
 */
static int swap_prefetch_parse(const char *buf, int min, int max, int *val)
{
	int err = kstrtoint(buf, 10, val);

	if (err || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(swap_prefetch_on));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	int val, err = swap_prefetch_parse(buf, 0, 1, &val);

	if (err)
		return err;
	mutex_lock(&swap_prefetch_mutex);
	WRITE_ONCE(swap_prefetch_on, val);
	swap_prefetch_apply_enabled();
	mutex_unlock(&swap_prefetch_mutex);
	wake_up_interruptible(&kprefetchd_wait);
	return count;
}

/*
 * Let a shorter delay or interval take effect at once: the kick ends
 * kprefetchd's timed wait, and its next round paces with the new values.
 */
static void swap_prefetch_pacing_changed(void)
{
	set_bit(0, &kprefetchd_kick);
	wake_up_interruptible(&kprefetchd_wait);
}

/* A pacing knob: the int it sets and the range it takes. */
struct swap_prefetch_knob {
	struct kobj_attribute attr;
	int *value;
	int min, max;
};

static ssize_t knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct swap_prefetch_knob *k =
		container_of(attr, struct swap_prefetch_knob, attr);

	return sysfs_emit(buf, "%d\n", READ_ONCE(*k->value));
}

static ssize_t knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	struct swap_prefetch_knob *k =
		container_of(attr, struct swap_prefetch_knob, attr);
	int val, err = swap_prefetch_parse(buf, k->min, k->max, &val);

	if (err)
		return err;
	WRITE_ONCE(*k->value, val);
	swap_prefetch_pacing_changed();
	return count;
}

#define SWAP_PREFETCH_KNOB(_name, _value, _min, _max)			\
	static struct swap_prefetch_knob _name##_knob = {		\
		.attr = __ATTR(_name, 0644, knob_show, knob_store),	\
		.value = &(_value),					\
		.min = (_min),						\
		.max = (_max),						\
	}

SWAP_PREFETCH_KNOB(delay_ms, swap_prefetch_delay_ms, 10, 600000);
SWAP_PREFETCH_KNOB(interval_ms, swap_prefetch_interval_ms, 10, 600000);
SWAP_PREFETCH_KNOB(adaptive, swap_prefetch_adaptive, 0, 1);

/*
 * The first batch in KiB, as read_ahead_kb sizes readahead, so that a
 * value means the same on every page size; a whole number of pages.
 */
static ssize_t batch_kb_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(swap_prefetch_batch_pages) *
			  (PAGE_SIZE / SZ_1K));
}

static ssize_t batch_kb_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	const int page_kb = PAGE_SIZE / SZ_1K;
	int kb, err = swap_prefetch_parse(buf, page_kb,
					  SWAP_PREFETCH_BATCH_MAX * page_kb,
					  &kb);

	if (err || kb % page_kb)
		return -EINVAL;
	WRITE_ONCE(swap_prefetch_batch_pages, kb / page_kb);
	swap_prefetch_pacing_changed();
	return count;
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute batch_kb_attr = __ATTR_RW(batch_kb);

static struct attribute *swap_prefetch_attrs[] = {
	&enabled_attr.attr,
	&delay_ms_knob.attr.attr,
	&interval_ms_knob.attr.attr,
	&batch_kb_attr.attr,
	&adaptive_knob.attr.attr,
	NULL,
};

static const struct attribute_group swap_prefetch_attr_group = {
	.attrs = swap_prefetch_attrs,
};

static int __init swap_prefetch_sysfs_init(void)
{
	struct kobject *kobj;
	int err;

	kobj = kobject_create_and_add("swap_prefetch", mm_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &swap_prefetch_attr_group);
	if (err)
		kobject_put(kobj);
	return err;
}

/*
 * debugfs swap_prefetch/tracked: the entries tracked per swap device.  An
 * entry of a device that is not swapped on, shown as "off", would be a
 * purge missed at swapoff.
 */
static int swap_prefetch_tracked_show(struct seq_file *m, void *v)
{
	unsigned long counts[MAX_SWAPFILES], total, chunks;
	struct swap_info_struct *si;
	unsigned int type;

	total = swap_prefetch_tracker_count(&swap_prefetch_global, counts,
					    MAX_SWAPFILES);
	for (type = 0; type < MAX_SWAPFILES; type++) {
		if (!counts[type])
			continue;
		seq_printf(m, "%u %lu ", type, counts[type]);
		/* Pinned, the device cannot be swapped off under us. */
		si = swap_prefetch_get_type(type);
		if (si) {
			seq_file_path(m, si->swap_file, " \t\n\\");
			put_swap_device(si);
		} else {
			seq_puts(m, "off");
		}
		seq_putc(m, '\n');
	}
	chunks = atomic_long_read(&swap_prefetch_global.nr_chunks);
	seq_printf(m, "total %lu\nchunks %lu of %lu (%lu KiB)\n", total,
		   chunks, swap_prefetch_global.max_chunks,
		   chunks * (PAGE_SIZE / SZ_1K));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swap_prefetch_tracked);

static void swap_prefetch_chunk_show(const struct swap_prefetch_chunk *c,
				     void *arg)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		seq_printf(arg, "%u %u\n", c->type, c->offsets[i]);
}

/*
 * debugfs swap_prefetch/entries: every tracked entry, "type offset", one
 * a line, newest chunk first: what a test compares with the swap entries
 * of its own pages (/proc/PID/pagemap).
 */
static int swap_prefetch_entries_show(struct seq_file *m, void *v)
{
	swap_prefetch_tracker_walk(&swap_prefetch_global,
				   swap_prefetch_chunk_show, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swap_prefetch_entries);

static void __init swap_prefetch_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("swap_prefetch", NULL);

	debugfs_create_file("tracked", 0400, dir, NULL,
			    &swap_prefetch_tracked_fops);
	debugfs_create_file("entries", 0400, dir, NULL,
			    &swap_prefetch_entries_fops);
}

static int __init swap_prefetch_init(void)
{
	struct swap_prefetch_shard __percpu *shards;
	struct task_struct *thread;
	int err;

	err = percpu_counter_init(&swap_prefetch_nr_unused, 0, GFP_KERNEL);
	if (err)
		return err;
	/*
	 * A chunk page per 1024 pages of RAM, under 0.1% of it at the cap,
	 * and only while that much is swapped out: about one entry per page
	 * of RAM.  Prefetch can never bring back more than fits in free
	 * memory, so older entries would only be read to be dropped again.
	 * The 2005 cap, 5% of RAM worth of entries, tracked eight times RAM.
	 */
	shards = swap_prefetch_shards_alloc(nr_node_ids);
	if (!shards)
		return -ENOMEM;
	swap_prefetch_tracker_init(&swap_prefetch_global, shards, nr_node_ids,
				   totalram_pages() / 1024);
	swap_prefetch_global.owners = kprefetchd_owners;
	swap_prefetch_global.fair = &kprefetchd_fair;

	thread = kthread_run(kprefetchd, NULL, "kprefetchd");
	if (IS_ERR(thread)) {
		err = PTR_ERR(thread);
		pr_err("failed to start kprefetchd: %d\n", err);
		return err;
	}
	WRITE_ONCE(kprefetchd_task, thread);

	err = swap_prefetch_shrinker_init();
	if (err)
		pr_err("no shrinker, unused pages go at the LRU's pace: %d\n",
		       err);
	err = swap_prefetch_sysfs_init();
	if (err)
		pr_err("no /sys/kernel/mm/swap_prefetch: %d\n", err);
	swap_prefetch_debugfs_init();
	mutex_lock(&swap_prefetch_mutex);
	swap_prefetch_apply_enabled();
	mutex_unlock(&swap_prefetch_mutex);
	return 0;
}
late_initcall(swap_prefetch_init);
