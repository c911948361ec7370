/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Swap prefetch: hooks for the swap-out and swap-in paths, and the policy
 * types that kprefetchd and its KUnit tests share.
 */
#ifndef _LINUX_SWAP_PREFETCH_H
#define _LINUX_SWAP_PREFETCH_H

#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/writeback.h>
#include <linux/xarray.h>

#ifdef CONFIG_SWAP_PREFETCH

DECLARE_STATIC_KEY_FALSE(swap_prefetch_enabled_key);
extern struct task_struct *kprefetchd_task;

void __swap_prefetch_record(swp_entry_t entry, unsigned long nr, int nid);
void __swap_prefetch_record_shmem(swp_entry_t entry, unsigned long nr, int nid);
void swap_prefetch_forget_type(int type);
bool swap_prefetch_folio_unused(struct folio *folio);
void __swap_prefetch_note_use(struct folio *folio, struct address_space *space,
			      pgoff_t index);
void __swap_prefetch_note_drop(struct xa_state *xas, void *shadow);
void __swap_prefetch_mark_new(struct xa_state *xas, bool refault);
bool swap_prefetch_reclaim_folio(struct folio *folio);

/*
 * A page that kprefetchd read and nobody has used yet carries this mark
 * on its entry in the swap cache's xarray, until it is used or leaves the
 * swap cache.  The swap cache has no use of its own for marks: its folios
 * are never tagged dirty (noop_dirty_folio()) nor for writeback
 * (mapping_set_no_writeback_tags()).  The xarray's own flag says whether
 * any entry is marked, so address spaces without prefetched pages pay
 * one test of a flag.
 */
#define SWAP_PREFETCH_MARK	XA_MARK_2
/*
 * With SWAP_PREFETCH_MARK: the read consumed a shadow entry, so the first
 * real use is a refault, and is counted as one then.
 */
#define SWAP_PREFETCH_REFAULT_MARK	XA_MARK_1

/*
 * kprefetchd's reads are not refaults: they must not count as workingset
 * refaults, activate the folio or stall in PSI.
 */
static inline bool current_is_kprefetchd(void)
{
	return current == READ_ONCE(kprefetchd_task);
}

/**
 * swap_prefetch_nr_to_track - how many entries of a folio reclaim may record
 * @folio: a locked folio that reclaim is about to remove from the swap cache
 * @on_purpose: reclaim was asked for (MADV_PAGEOUT, memory.reclaim)
 *
 * Must be sampled before __remove_mapping(), which clears folio->swap.
 * Only anonymous folios count here: a process mapped them.  A swap cache
 * folio that is not anonymous was never mapped since it was read: one
 * that readahead, MADV_WILLNEED, zswap's writeback or prefetch itself
 * read and nobody used - zswap chose it as the coldest of its pool - or
 * shmem's, which shmem records as it writes it out
 * (swap_prefetch_record_shmem()).  Pages pushed out on purpose are not
 * wanted soon, so they are not recorded either; shmem's are, as
 * shmem_writepage() cannot tell MADV_PAGEOUT or memory.reclaim from
 * other reclaim.
 *
 * Return: the number of swap entries to record, or 0.
 */
static inline unsigned long swap_prefetch_nr_to_track(struct folio *folio,
						      bool on_purpose)
{
	if (!static_branch_unlikely(&swap_prefetch_enabled_key) || on_purpose)
		return 0;
	if (!folio_test_swapcache(folio) || !folio_test_anon(folio))
		return 0;
	return folio_nr_pages(folio);
}

/*
 * Called on the reclaim hot path once the folio is written out, while it
 * still holds its slot in the swap cache.  If the folio stays after all,
 * kprefetchd finds it cached and skips it.
 */
static inline void swap_prefetch_record(struct folio *folio, unsigned long nr)
{
	if (nr && static_branch_unlikely(&swap_prefetch_enabled_key))
		__swap_prefetch_record(folio->swap, nr, folio_nid(folio));
}

/*
 * shmem_writepage() has just handed @nr pages of shmem, from node @nid,
 * to swap @entry on and after for reclaim (@wbc->for_reclaim), and
 * swap_writepage() took them: zswap stored them or their write has
 * started.  They were in use, as the anonymous pages reclaim records are.
 */
static inline void swap_prefetch_record_shmem(swp_entry_t entry,
					      unsigned long nr, int nid,
					      struct writeback_control *wbc)
{
	if (static_branch_unlikely(&swap_prefetch_enabled_key) &&
	    wbc->for_reclaim)
		__swap_prefetch_record_shmem(entry, nr, nid);
}

/*
 * add_to_swap_cache() stored a folio read from swap at @xas, with the
 * xarray locked, replacing @shadow (NULL if there was none): if kprefetchd
 * is reading it, it is marked there, before any lookup can find it.  Only
 * the read path passes a shadow pointer: a swap-out that kprefetchd makes
 * in direct reclaim is not marked.
 */
static inline void swap_prefetch_note_add(struct xa_state *xas, void *shadow)
{
	if (static_branch_unlikely(&swap_prefetch_enabled_key) &&
	    current_is_kprefetchd())
		__swap_prefetch_mark_new(xas, shadow);
}

/*
 * A swap cache lookup found @folio at @index of @space for a fault, a
 * shmem swap-in or swapoff: if prefetch read it, it was worth reading.
 */
static inline void swap_prefetch_note_use(struct folio *folio,
					  struct address_space *space,
					  pgoff_t index)
{
	if (xa_marked(&space->i_pages, SWAP_PREFETCH_MARK))
		__swap_prefetch_note_use(folio, space, index);
}

/*
 * The folio at @xas leaves the swap cache: reclaimed (a @shadow is left)
 * or its slot freed.  The mark must go with it, or the shadow entry would
 * keep it and pass it on to the next folio at that index.  Called with
 * the xarray locked.
 */
static inline void swap_prefetch_note_drop(struct xa_state *xas, void *shadow)
{
	if (xa_marked(xas->xa, SWAP_PREFETCH_MARK))
		__swap_prefetch_note_drop(xas, shadow);
}

#else /* !CONFIG_SWAP_PREFETCH */

static inline unsigned long swap_prefetch_nr_to_track(struct folio *folio,
						      bool on_purpose)
{
	return 0;
}

static inline void swap_prefetch_record(struct folio *folio, unsigned long nr)
{
}

static inline void swap_prefetch_forget_type(int type)
{
}

static inline void swap_prefetch_record_shmem(swp_entry_t entry,
					      unsigned long nr, int nid,
					      struct writeback_control *wbc)
{
}

static inline void swap_prefetch_note_add(struct xa_state *xas, void *shadow)
{
}

static inline void swap_prefetch_note_use(struct folio *folio,
					  struct address_space *space,
					  pgoff_t index)
{
}

static inline void swap_prefetch_note_drop(struct xa_state *xas, void *shadow)
{
}

static inline bool current_is_kprefetchd(void)
{
	return false;
}

#endif /* CONFIG_SWAP_PREFETCH */

#ifdef CONFIG_SWAP_PREFETCH
/*
 * Mechanism and policy below are split so that KUnit can drive private
 * instances with plain inputs; kprefetchd owns the only global instance.
 */

/**
 * struct swap_prefetch_chunk - a page of swapped-out offsets of one device
 * @list: on &swap_prefetch_tracker.chunks, newest chunk first
 * @llnode: on &swap_prefetch_tracker.full until kprefetchd collects it
 * @type: the swap type of every offset in the chunk
 * @memcg: the id of the memory cgroup every page of the chunk was charged
 *	to when it was swapped out (0 without memcg)
 * @gen: &swap_prefetch_tracker.gen[@type] when the chunk was opened; a
 *	purge of @type moves that on, and the chunk is stale from then on
 * @nr: offsets held, oldest first
 * @nid: the node every page of the chunk was on when it was swapped out
 * @offsets: swap offsets, the newest at @nr - 1
 *
 * Four bytes per tracked page, and no index: an entry swapped in or freed
 * since its record is found cached or free when kprefetchd reads it.
 */
struct swap_prefetch_chunk {
	struct list_head list;
	struct llist_node llnode;
	unsigned short type;
	unsigned short memcg;
	unsigned int gen;
	unsigned int nr;
	int nid;
	u32 offsets[];
};

/* Offsets that fit in a chunk of one page: 1014 with 4 KiB pages. */
#define SWAP_PREFETCH_CHUNK_SLOTS					\
	((PAGE_SIZE - offsetof(struct swap_prefetch_chunk, offsets)) /	\
	 sizeof(u32))

/*
 * Open chunks per node in a shard: the memory cgroup recorded last, and
 * the one before it.
 */
#define SWAP_PREFETCH_OPEN_PER_NODE	2

/**
 * struct swap_prefetch_shard - where the swap-outs of one CPU are recorded
 * @lock: protects @open; the swap-out path only trylocks it
 * @open: per node, %SWAP_PREFETCH_OPEN_PER_NODE chunks being filled with
 *	that node's pages, each of one group, the last recorded first; or
 *	NULL
 *
 * Open chunks per node: on a CPU that runs the kswapd of two nodes, or
 * direct reclaim that goes from node to node, each node's records still
 * fill whole chunks; and two per node, as reclaim that goes from group
 * to group and back fills two groups' chunks.
 */
struct swap_prefetch_shard {
	spinlock_t lock;	/* see "Locking" in mm/swap_prefetch.c */
	struct swap_prefetch_chunk *open[];
};

/*
 * Keeps, in order and in place, the offsets of @nr of swap @type still
 * worth reading; returns how many.
 */
typedef unsigned int (*swap_prefetch_sieve_t)(unsigned int type, u32 *offsets,
					      unsigned int nr);

/* A fair trim's scratch memory (mm/swap_prefetch.c). */
struct swap_prefetch_fair;

/*
 * Writes into @ids the owner of each of the @nr offsets of swap @type:
 * its memory cgroup's id, 0 for none.  Returns false if it cannot tell
 * (the device is going away); the offsets then count as nobody's.
 */
typedef bool (*swap_prefetch_owners_t)(unsigned int type, const u32 *offsets,
				       unsigned int nr, unsigned short *ids);

/**
 * struct swap_prefetch_tracker - swapped-out entries, most recent first
 * @shards: one per CPU
 * @nr_nodes: the open chunks of each shard: nodes 0 to @nr_nodes - 1
 * @full: chunks filled by swap-out, newest first, not yet collected
 * @lock: protects @chunks; never taken on the swap paths
 * @chunks: collected chunks, newest first
 * @nr_chunks: chunks allocated: open, full and collected
 * @max_chunks: cap on @nr_chunks; beyond it the oldest are recycled
 * @trim: bit 0 is set when @nr_chunks nears the cap and kprefetchd should
 *	free the oldest chunks
 * @gen: per swap type, moved on by each purge of that type
 * @owners: tells whose each entry is, so that a trim takes from the
 *	groups that hold the most (see swap_prefetch_fair_level()); NULL:
 *	a trim takes the oldest entries, whoever's they are
 * @fair: scratch memory for a fair trim, or NULL to allocate it per trim
 * @stopped: set by swap_prefetch_tracker_stop(): records are refused
 */
struct swap_prefetch_tracker {
	struct swap_prefetch_shard __percpu *shards;
	unsigned int nr_nodes;
	struct llist_head full;
	struct mutex lock;	/* see "Locking" in mm/swap_prefetch.c */
	struct list_head chunks;
	atomic_long_t nr_chunks;
	unsigned long max_chunks;
	unsigned long trim;
	unsigned int gen[MAX_SWAPFILES];
	swap_prefetch_owners_t owners;
	struct swap_prefetch_fair *fair;
	bool stopped;
};

/**
 * struct swap_prefetch_candidate - a tracked entry, as kprefetchd pops it
 * @entry: the swap entry
 * @gen: its chunk's generation, checked again once the device is pinned
 * @nid: the node its page was on, and the node it is read back to
 * @memcg: the id of the memory cgroup it was charged to when swapped out
 */
struct swap_prefetch_candidate {
	swp_entry_t entry;
	unsigned int gen;
	int nid;
	unsigned short memcg;
};

/* How many memory cgroups without room one round passes over. */
#define SWAP_PREFETCH_HELD_GROUPS	8

/**
 * struct swap_prefetch_groups - memory cgroups a round passes over
 * @nr: how many of @id are in use
 * @id: their ids
 *
 * A group without room for prefetched pages holds back its own entries,
 * as a node without room does; kprefetchd notes each such group it meets
 * in a round, and the round's later pops leave its chunks in place.
 */
struct swap_prefetch_groups {
	unsigned int nr;
	unsigned short id[SWAP_PREFETCH_HELD_GROUPS];
};

/**
 * struct swap_prefetch_zone_snap - one zone's free pages and watermark
 * @free: NR_FREE_PAGES
 * @high: high watermark, boost included
 */
struct swap_prefetch_zone_snap {
	unsigned long free;
	unsigned long high;
};

/**
 * struct swap_prefetch_snapshot - what the idle check looks at, in pages
 * @activity: pressure seen since the last check, a mask of
 *	BIT(&enum swap_prefetch_activity_item)
 * @free_falling: free memory is falling, or not yet known to be steady
 *	(swap_prefetch_trend_update())
 * @nr_nodes: nodes with memory
 * @nodes_short: nodes with memory of which a populated zone lacks room
 * @swap_contended: others kept the swap disks busy a third of the time or
 *	more over the last window of a second (swap_prefetch_io_contended())
 * @cpu_busy: others kept more than half of the CPUs' time busy
 * @laptop_mode: vm.laptop_mode is set
 * @mapped: mapped file and anonymous pages
 * @slab: slab pages that reclaim cannot take back (reclaimable slab is
 *	memory to be had, as the page cache is)
 * @prefetched: pages prefetch read that are still in the swap cache and
 *	were not used yet
 * @totalram: usable RAM
 * @swap_full: more than half of swap is in use
 * @exchange: page cache a stream left, or slab an indexer left, may make
 *	room on a node that has none (struct swap_prefetch_exchange)
 */
struct swap_prefetch_snapshot {
	unsigned int activity;
	bool free_falling;
	unsigned int nr_nodes;
	unsigned int nodes_short;
	bool swap_contended;
	bool cpu_busy;
	bool laptop_mode;
	unsigned long mapped;
	unsigned long slab;
	unsigned long prefetched;
	unsigned long totalram;
	bool swap_full;
	bool exchange;
};

/*
 * Why a round did or did not prefetch; also reported by trace events.
 * Pressure (BUSY, FREE_FALLING) and others' I/O on the swap disks
 * (SWAP_IO) restart the delay; a busy CPU (CPU_BUSY) only skips the round;
 * the others are a lack of room.
 */
enum swap_prefetch_verdict {
	SWAP_PREFETCH_GO,
	SWAP_PREFETCH_BUSY,
	SWAP_PREFETCH_FREE_FALLING,
	SWAP_PREFETCH_SWAP_IO,
	SWAP_PREFETCH_CPU_BUSY,
	SWAP_PREFETCH_LAPTOP_MODE,
	SWAP_PREFETCH_LOW_FREE,
	SWAP_PREFETCH_MAPPED,
	SWAP_PREFETCH_SWAP_FULL,
};

/* Why a round stopped reading; paces the next round, and is traced. */
enum swap_prefetch_stop {
	SWAP_PREFETCH_STOP_DONE,	/* read its whole batch */
	SWAP_PREFETCH_STOP_EMPTY,	/* nothing left to read */
	SWAP_PREFETCH_STOP_LOW_FREE,	/* the rest is held: node, group */
	SWAP_PREFETCH_STOP_BUSY,	/* foreground activity started */
	SWAP_PREFETCH_STOP_NOMEM,	/* no folio though its node had room */
	SWAP_PREFETCH_STOP_EXIT,	/* kprefetchd is stopping */
};

/*
 * Signs of memory pressure on the whole machine whose change between two
 * checks means "not idle": global reclaim and what follows it, and any
 * OOM kill (6.12 counts a memory cgroup's too).  A memory cgroup's own
 * reclaim, at its memory.high or memory.max, is not among them (6.12
 * counts it in the group's events only), nor are swap-out, swap-in and
 * PSI: they are the owner group's pressure, which holds back that group's
 * entries only (struct swap_prefetch_watch).  Allocations and file faults
 * are not among them either: churn that frees what it takes leaves free
 * memory where it was (struct swap_prefetch_trend tells the two apart).
 */
enum swap_prefetch_activity_item {
	SWAP_PREFETCH_ACT_ALLOCSTALL,
	SWAP_PREFETCH_ACT_SCAN_KSWAPD,
	SWAP_PREFETCH_ACT_SCAN_DIRECT,
	SWAP_PREFETCH_ACT_OOM_KILL,
	NR_SWAP_PREFETCH_ACT,
};

/* How many memory cgroups kprefetchd keeps the pressure of. */
#define SWAP_PREFETCH_WATCHED_GROUPS	16
/* The least a group stays held after its pressure moved, in ms. */
#define SWAP_PREFETCH_GROUP_HOLD_MIN_MS	3000

/**
 * struct swap_prefetch_group_seen - one memory cgroup's pressure, last seen
 * @used: the slot holds a group
 * @id: the group's memory cgroup id; 0 for the whole machine without them
 * @pressure: a count that grows with its memory pressure: its PSI memory
 *	"some" stall (memory.pressure) in ns, its reclaim scans and its
 *	major faults
 * @moved: jiffies of the look that saw @pressure move
 * @seen: jiffies of the last look, to pick a slot to reuse
 */
struct swap_prefetch_group_seen {
	bool used;
	unsigned short id;
	u64 pressure;
	unsigned long moved;
	unsigned long seen;
};

/**
 * struct swap_prefetch_watch - the pressure of the groups kprefetchd reads for
 * @g: the groups, the least recently looked at reused first
 *
 * A group whose pressure moved since kprefetchd last looked holds back its
 * own entries for a while after that look, as the whole machine's
 * pressure holds back all of them; another group's pressure does not.
 */
struct swap_prefetch_watch {
	struct swap_prefetch_group_seen g[SWAP_PREFETCH_WATCHED_GROUPS];
};

/**
 * struct swap_prefetch_exchange_counts - what reclaim did, free-running
 * @swapped_out: pages written out to swap (PSWPOUT)
 * @stolen: file pages reclaimed
 * @file: pages on the file LRU lists now (not free-running)
 * @refaulted: file pages refaulted
 * @used: prefetched pages used
 * @slab: pages of reclaimable slab now (not free-running)
 */
struct swap_prefetch_exchange_counts {
	unsigned long swapped_out;
	unsigned long stolen;
	unsigned long file;
	unsigned long refaulted;
	unsigned long used;
	unsigned long slab;
};

/*
 * Pages written to swap beside a stream: MGLRU sends a few anonymous
 * pages out while a backup goes through the page cache.  Fewer than one
 * for every this many file pages reclaimed is no swap-out.
 */
#define SWAP_PREFETCH_STREAM_SWAP_SHARE	8

/* The most an exchange shrinks slab at: half of each cache in a call. */
#define SWAP_PREFETCH_SLAB_PRIORITY_MIN	2

/**
 * struct swap_prefetch_exchange - may use-once page cache make room?
 * @seen: the counts at the last look
 * @alone: file pages reclaimed and replaced by new page cache between looks
 *	that saw no swap-out, so far (a look with fewer pages written to
 *	swap than one for every %SWAP_PREFETCH_STREAM_SWAP_SHARE file pages
 *	reclaimed saw none)
 * @base_alone: @alone at the last look that saw a swap-out
 * @base_refaulted: file refaults then
 * @base_slab: reclaimable slab then
 * @used: prefetched pages used, when the last swap-out began
 * @read: pages read since the last swap-out began
 * @exchanged: page cache and slab pages freed for them
 * @refaulted_since: file refaults when the first of it was dropped
 * @swapping: pages went out to swap since the look before the last
 * @stopped: no exchange until the next swap-out begins
 *
 * With no node that has room, kprefetchd may drop page cache that was used
 * once, page for page, for the entries it reads, if that page cache is
 * what a stream left: since pages last went out to swap, new page cache
 * replaced more file pages than the inactive file lists now hold, and
 * few of them came back.  Where the page cache lacks the room, or is no
 * stream's, it may take reclaimable slab, as reclaim shrinks it, down to
 * twice what there was at the last swap-out, if the slab grew past that
 * by more than the inactive file lists hold: an indexer leaves dentries
 * and inodes (swap_prefetch_exchange_slab_room()).
 * It stops until pages next go out to swap when the page cache it dropped
 * is read again (more file refaults since its first drop than
 * %SWAP_CLUSTER_MAX and an eighth of what it dropped), and between the
 * next two swap-outs when fewer
 * than half of the reads since the last one were used by the time the
 * next began.
 */
struct swap_prefetch_exchange {
	struct swap_prefetch_exchange_counts seen;
	unsigned long alone;
	unsigned long base_alone;
	unsigned long base_refaulted;
	unsigned long base_slab;
	unsigned long used;
	unsigned long read;
	unsigned long exchanged;
	unsigned long refaulted_since;
	bool swapping;
	bool stopped;
};

/*
 * Others' share of the swap disks' time, in percent, from which prefetch
 * waits: a stream or a foreground's faults, not a journal's synced writes
 * or an indexer reading a few MiB/s.
 */
#define SWAP_PREFETCH_IO_BUSY_PCT	33

/**
 * struct swap_prefetch_io_window - the swap disks over a second or more
 * @span_ms: the window's length
 * @busy_ms: the time the disks had requests in flight (io_ticks)
 * @others: sectors others read and wrote on them
 * @own: sectors kprefetchd read
 */
struct swap_prefetch_io_window {
	unsigned long span_ms;
	unsigned long busy_ms;
	unsigned long others;
	unsigned long own;
};

/* Others' share of all CPUs' time, in percent, above which prefetch waits. */
#define SWAP_PREFETCH_CPU_BUSY_PCT	50

/*
 * The least that available memory may fall below the most seen over the
 * trend's span, beyond what was freed meanwhile, and still be steady:
 * kernel noise.  More memory, more noise: swap_prefetch_trend_slack().
 */
#define SWAP_PREFETCH_TREND_SLACK	(SZ_1M >> PAGE_SHIFT)
/* The growth, in MiB/s, that the trend sees within two windows. */
#define SWAP_PREFETCH_TREND_GROWTH_MIB	2
/* The trend's span in windows: with windows of a quarter, one delay. */
#define SWAP_PREFETCH_TREND_WINDOWS	5

/**
 * struct swap_prefetch_trend_window - one window of the trend
 * @start: jiffies at which it began
 * @most: the most memory available at a sample in it
 * @freed: pages freed so far (other than by reclaim), at its first sample
 */
struct swap_prefetch_trend_window {
	unsigned long start;
	unsigned long most;
	unsigned long freed;
};

/**
 * struct swap_prefetch_trend - is free memory steady, or falling?
 * @win: the last windows, a ring
 * @cur: the current window in @win
 * @nr: windows begun since the trend was reset, up to
 *	%SWAP_PREFETCH_TREND_WINDOWS; 0: reset
 *
 * See swap_prefetch_trend_update().
 */
struct swap_prefetch_trend {
	struct swap_prefetch_trend_window win[SWAP_PREFETCH_TREND_WINDOWS];
	unsigned int cur;
	unsigned int nr;
};

/**
 * struct swap_prefetch_refault_gate - is the page cache refaulting?
 * @activations: workingset activations of file pages at the last look
 * @looked: jiffies of the last look
 * @moved: jiffies of the last look that saw the count move
 *
 * See swap_prefetch_cache_refaulting().
 */
struct swap_prefetch_refault_gate {
	unsigned long activations;
	unsigned long looked;
	unsigned long moved;
};

/* The largest batch a round may read: 4 MiB of 4 KiB pages. */
#define SWAP_PREFETCH_BATCH_MAX		1024
/* Idle rounds after which adaptive pacing stops speeding up. */
#define SWAP_PREFETCH_MAX_STREAK	16
/* The shortest wait between two rounds, however long the idle streak. */
#define SWAP_PREFETCH_MIN_INTERVAL	(msecs_to_jiffies(10) ?: 1)

/**
 * struct swap_prefetch_pacer - when the next round may run, and how big
 * @busy: bit 0 is set when activity is seen, cleared by the next round
 * @next: jiffies of the next attempt
 * @last_busy: jiffies of the last check that found the VM not idle
 * @seen_busy: @last_busy is valid
 * @streak: consecutive rounds that found the VM idle
 */
struct swap_prefetch_pacer {
	unsigned long busy;
	unsigned long next;
	unsigned long last_busy;
	bool seen_busy;
	unsigned int streak;
};

/**
 * struct swap_prefetch_tunables - the knobs, as one round reads them
 * @delay: jiffies the VM must stay quiet before prefetch reads
 * @interval: jiffies between the first idle rounds
 * @batch: pages read by the first idle round
 * @adaptive: double the batch and quarter the interval every idle round
 */
struct swap_prefetch_tunables {
	unsigned long delay;
	unsigned long interval;
	unsigned int batch;
	bool adaptive;
};

#if IS_ENABLED(CONFIG_KUNIT)
struct swap_prefetch_chunk *swap_prefetch_chunk_alloc(void);
void swap_prefetch_tracker_breathe(struct swap_prefetch_tracker *t);
void swap_prefetch_shard_collect(struct swap_prefetch_tracker *t,
				 struct swap_prefetch_shard *shard);
struct swap_prefetch_shard __percpu *
swap_prefetch_shards_alloc(unsigned int nr_nodes);
void swap_prefetch_tracker_init(struct swap_prefetch_tracker *t,
				struct swap_prefetch_shard __percpu *shards,
				unsigned int nr_nodes, unsigned long max_chunks);
long swap_prefetch_tracker_add(struct swap_prefetch_tracker *t,
			       struct swap_prefetch_shard *shard,
			       swp_entry_t entry, unsigned long nr, int nid,
			       unsigned short memcg, unsigned long *recycled,
			       bool *wake);
unsigned int swap_prefetch_tracker_pop(struct swap_prefetch_tracker *t,
				       struct swap_prefetch_candidate *c,
				       unsigned int max, const nodemask_t *nodes,
				       const struct swap_prefetch_groups *held,
				       unsigned long *stale);
bool swap_prefetch_groups_add(struct swap_prefetch_groups *g,
			      unsigned short id);
unsigned int swap_prefetch_tracker_unpop(struct swap_prefetch_tracker *t,
					 const struct swap_prefetch_candidate *c,
					 unsigned int nr, unsigned long *stale);
unsigned long swap_prefetch_tracker_stop(struct swap_prefetch_tracker *t);
s64 swap_prefetch_unused_pages(void);
bool swap_prefetch_tracker_record(struct swap_prefetch_tracker *t,
				  struct swap_prefetch_shard *shard,
				  swp_entry_t entry, unsigned long nr, int nid,
				  unsigned short memcg);
bool swap_prefetch_tracker_current(struct swap_prefetch_tracker *t,
				   const struct swap_prefetch_candidate *c);
unsigned long swap_prefetch_tracker_trim(struct swap_prefetch_tracker *t,
					 swap_prefetch_sieve_t sieve,
					 unsigned long *dead);
unsigned long swap_prefetch_tracker_sift(struct swap_prefetch_tracker *t,
					 swap_prefetch_sieve_t sieve);
unsigned long swap_prefetch_tracker_purge(struct swap_prefetch_tracker *t,
					  int type);
unsigned long swap_prefetch_tracker_count(struct swap_prefetch_tracker *t,
					  unsigned long *counts,
					  unsigned int nr_types);
unsigned int swap_prefetch_fair_level(const unsigned int *counts,
				      unsigned int nr, unsigned long keep);
bool swap_prefetch_zone_ok(const struct swap_prefetch_zone_snap *z);
bool swap_prefetch_io_contended(const struct swap_prefetch_io_window *w);
unsigned int swap_prefetch_zones_short(const struct swap_prefetch_zone_snap *z,
				       unsigned int nr);
unsigned long swap_prefetch_trend_slack(unsigned long totalram,
					unsigned long window_ms);
bool swap_prefetch_trend_update(struct swap_prefetch_trend *tr,
				unsigned long avail, unsigned long freed,
				unsigned long now, unsigned long window,
				unsigned long slack);
bool swap_prefetch_cpu_busy(u64 others_ns, u64 capacity_ns);
enum swap_prefetch_verdict
swap_prefetch_idle_verdict(const struct swap_prefetch_snapshot *s);
unsigned int swap_prefetch_activity_mask(const unsigned long *prev,
					 const unsigned long *cur);
bool swap_prefetch_group_calm(struct swap_prefetch_watch *w, unsigned short id,
			      u64 pressure, unsigned long now, unsigned long hold);
void swap_prefetch_exchange_look(struct swap_prefetch_exchange *x,
				 const struct swap_prefetch_exchange_counts *now);
void swap_prefetch_exchange_account(struct swap_prefetch_exchange *x,
				    unsigned long read, unsigned long exchanged);
unsigned long
swap_prefetch_exchange_slab_room(const struct swap_prefetch_exchange *x,
				 unsigned long slab, unsigned long inactive);
int swap_prefetch_slab_priority(unsigned long slab, unsigned long nr);
bool swap_prefetch_exchange_streamed(const struct swap_prefetch_exchange *x,
				     unsigned long inactive);
void swap_prefetch_mark_busy(struct swap_prefetch_pacer *p);
unsigned long swap_prefetch_recheck(enum swap_prefetch_verdict v,
				    const struct swap_prefetch_tunables *t);
enum swap_prefetch_verdict
swap_prefetch_pace(struct swap_prefetch_pacer *p,
		   const struct swap_prefetch_snapshot *s, unsigned long now,
		   const struct swap_prefetch_tunables *t, unsigned int *batch);
void swap_prefetch_round_done(struct swap_prefetch_pacer *p,
			      enum swap_prefetch_stop stop, unsigned long now,
			      const struct swap_prefetch_tunables *t);
bool swap_prefetch_memcg_room_ok(unsigned long usage, unsigned long limit);
bool swap_prefetch_swap_room_ok(unsigned long used, unsigned long limit);
bool swap_prefetch_record_outlived(int recorded_nid, int shadow_nid);
bool swap_prefetch_cache_refaulting(struct swap_prefetch_refault_gate *g,
				    unsigned long activations,
				    unsigned long now);
#endif /* CONFIG_KUNIT */
#endif /* CONFIG_SWAP_PREFETCH */

#endif /* _LINUX_SWAP_PREFETCH_H */
