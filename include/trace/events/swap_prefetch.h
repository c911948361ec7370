/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM swap_prefetch

#if !defined(_TRACE_SWAP_PREFETCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SWAP_PREFETCH_H

#include <linux/swap_prefetch.h>
#include <linux/tracepoint.h>

/* Export the enum values so that perf and bpftrace can decode them. */
TRACE_DEFINE_ENUM(SWAP_PREFETCH_GO);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_BUSY);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_FREE_FALLING);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_SWAP_IO);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_CPU_BUSY);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_LAPTOP_MODE);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_LOW_FREE);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_MAPPED);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_SWAP_FULL);

TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_DONE);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_EMPTY);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_LOW_FREE);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_BUSY);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_NOMEM);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_STOP_EXIT);

TRACE_DEFINE_ENUM(SWAP_PREFETCH_ACT_ALLOCSTALL);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_ACT_SCAN_KSWAPD);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_ACT_SCAN_DIRECT);
TRACE_DEFINE_ENUM(SWAP_PREFETCH_ACT_OOM_KILL);

/*
 * A check that did not read: why, what pressure the VM saw since the last
 * check, and when kprefetchd looks again.
 */
TRACE_EVENT(swap_prefetch_delay,

	TP_PROTO(enum swap_prefetch_verdict verdict, unsigned int activity,
		 unsigned int next_ms, unsigned long nr_chunks),

	TP_ARGS(verdict, activity, next_ms, nr_chunks),

	TP_STRUCT__entry(
		__field(int, verdict)
		__field(unsigned int, activity)
		__field(unsigned int, next_ms)
		__field(unsigned long, nr_chunks)
	),

	TP_fast_assign(
		__entry->verdict = verdict;
		__entry->activity = activity;
		__entry->next_ms = next_ms;
		__entry->nr_chunks = nr_chunks;
	),

	TP_printk("verdict=%s activity=%s next_ms=%u chunks=%lu",
		  __print_symbolic(__entry->verdict,
				   { SWAP_PREFETCH_GO, "go" },
				   { SWAP_PREFETCH_BUSY, "busy" },
				   { SWAP_PREFETCH_FREE_FALLING, "free_falling" },
				   { SWAP_PREFETCH_SWAP_IO, "swap_io" },
				   { SWAP_PREFETCH_CPU_BUSY, "cpu_busy" },
				   { SWAP_PREFETCH_LAPTOP_MODE, "laptop_mode" },
				   { SWAP_PREFETCH_LOW_FREE, "low_free" },
				   { SWAP_PREFETCH_MAPPED, "mapped" },
				   { SWAP_PREFETCH_SWAP_FULL, "swap_full" }),
		  __entry->activity ?
		  __print_flags(__entry->activity, "|",
				{ 1 << SWAP_PREFETCH_ACT_ALLOCSTALL, "allocstall" },
				{ 1 << SWAP_PREFETCH_ACT_SCAN_KSWAPD, "pgscan_kswapd" },
				{ 1 << SWAP_PREFETCH_ACT_SCAN_DIRECT, "pgscan_direct" },
				{ 1 << SWAP_PREFETCH_ACT_OOM_KILL, "oom_kill" }) :
		  "none",
		  __entry->next_ms, __entry->nr_chunks)
);

/*
 * A round that read: how much of its batch, why it stopped, and how many
 * prefetched pages are in the swap cache and not used yet.
 */
TRACE_EVENT(swap_prefetch_round,

	TP_PROTO(unsigned int batch, unsigned int nr_read,
		 unsigned int nr_stale, unsigned int nr_skipped,
		 enum swap_prefetch_stop stop, unsigned long nr_chunks,
		 unsigned long nr_unused),

	TP_ARGS(batch, nr_read, nr_stale, nr_skipped, stop, nr_chunks,
		nr_unused),

	TP_STRUCT__entry(
		__field(unsigned int, batch)
		__field(unsigned int, nr_read)
		__field(unsigned int, nr_stale)
		__field(unsigned int, nr_skipped)
		__field(int, stop)
		__field(unsigned long, nr_chunks)
		__field(unsigned long, nr_unused)
	),

	TP_fast_assign(
		__entry->batch = batch;
		__entry->nr_read = nr_read;
		__entry->nr_stale = nr_stale;
		__entry->nr_skipped = nr_skipped;
		__entry->stop = stop;
		__entry->nr_chunks = nr_chunks;
		__entry->nr_unused = nr_unused;
	),

	TP_printk("batch=%u read=%u stale=%u skipped=%u stop=%s chunks=%lu unused=%lu",
		  __entry->batch, __entry->nr_read, __entry->nr_stale,
		  __entry->nr_skipped,
		  __print_symbolic(__entry->stop,
				   { SWAP_PREFETCH_STOP_DONE, "done" },
				   { SWAP_PREFETCH_STOP_EMPTY, "empty" },
				   { SWAP_PREFETCH_STOP_LOW_FREE, "low_free" },
				   { SWAP_PREFETCH_STOP_BUSY, "busy" },
				   { SWAP_PREFETCH_STOP_NOMEM, "nomem" },
				   { SWAP_PREFETCH_STOP_EXIT, "exit" }),
		  __entry->nr_chunks, __entry->nr_unused)
);

/*
 * A page read into the swap cache: its swap entry's type and offset, and
 * whether an exchange made its room (of page cache, or of slab where the
 * page cache lacked it) or it took free memory.
 */
TRACE_EVENT(swap_prefetch_read,

	TP_PROTO(unsigned int type, unsigned long offset, bool exchanged),

	TP_ARGS(type, offset, exchanged),

	TP_STRUCT__entry(
		__field(unsigned int, type)
		__field(unsigned long, offset)
		__field(bool, exchanged)
	),

	TP_fast_assign(
		__entry->type = type;
		__entry->offset = offset;
		__entry->exchanged = exchanged;
	),

	TP_printk("type=%u offset=%lu room=%s", __entry->type, __entry->offset,
		  __entry->exchanged ? "exchange" : "free")
);

/*
 * An exchange on a node without room: the entries it popped, the page
 * cache pages it dropped for them (up to the high watermarks too), the
 * oldest file folios it found used again (MGLRU; more of those than pages
 * dropped stop it), and the slab pages shrinking freed where the page
 * cache lacked the room.
 */
TRACE_EVENT(swap_prefetch_exchange,

	TP_PROTO(int nid, unsigned int nr_popped, unsigned long nr_dropped,
		 unsigned long nr_reused, unsigned long nr_slab),

	TP_ARGS(nid, nr_popped, nr_dropped, nr_reused, nr_slab),

	TP_STRUCT__entry(
		__field(int, nid)
		__field(unsigned int, nr_popped)
		__field(unsigned long, nr_dropped)
		__field(unsigned long, nr_reused)
		__field(unsigned long, nr_slab)
	),

	TP_fast_assign(
		__entry->nid = nid;
		__entry->nr_popped = nr_popped;
		__entry->nr_dropped = nr_dropped;
		__entry->nr_reused = nr_reused;
		__entry->nr_slab = nr_slab;
	),

	TP_printk("nid=%d popped=%u dropped=%lu reused=%lu slab=%lu",
		  __entry->nid, __entry->nr_popped, __entry->nr_dropped,
		  __entry->nr_reused, __entry->nr_slab)
);

/*
 * A trim near the cap: the dead entries it dropped, the live ones it
 * recycled, and the chunks left.  Live entries are recycled only when
 * swap-out outran prefetch: a group that holds more than an even share
 * loses its oldest first.
 */
TRACE_EVENT(swap_prefetch_trim,

	TP_PROTO(unsigned long nr_dead, unsigned long nr_recycled,
		 unsigned long nr_chunks),

	TP_ARGS(nr_dead, nr_recycled, nr_chunks),

	TP_STRUCT__entry(
		__field(unsigned long, nr_dead)
		__field(unsigned long, nr_recycled)
		__field(unsigned long, nr_chunks)
	),

	TP_fast_assign(
		__entry->nr_dead = nr_dead;
		__entry->nr_recycled = nr_recycled;
		__entry->nr_chunks = nr_chunks;
	),

	TP_printk("dead=%lu recycled=%lu chunks=%lu",
		  __entry->nr_dead, __entry->nr_recycled, __entry->nr_chunks)
);

#endif /* _TRACE_SWAP_PREFETCH_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
