/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM swap_prefetch

#if !defined(_TRACE_SWAP_PREFETCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SWAP_PREFETCH_H

#include <linux/swap_prefetch.h>
#include <linux/tracepoint.h>

#define SWAP_PREFETCH_VERDICTS					\
	EM(SWAP_PREFETCH_GO,		"go")			\
	EM(SWAP_PREFETCH_BUSY,		"busy")			\
	EM(SWAP_PREFETCH_LOW_FREE,	"low_free")		\
	EM(SWAP_PREFETCH_WRITEBACK,	"writeback")		\
	EM(SWAP_PREFETCH_DIRTY,		"dirty")		\
	EM(SWAP_PREFETCH_MAPPED,	"mapped")		\
	EMe(SWAP_PREFETCH_SWAP_FULL,	"swap_full")

#define SWAP_PREFETCH_STOPS					\
	EM(SWAP_PREFETCH_STOP_DONE,	"done")			\
	EM(SWAP_PREFETCH_STOP_EMPTY,	"empty")		\
	EM(SWAP_PREFETCH_STOP_LOW_FREE,	"low_free")		\
	EM(SWAP_PREFETCH_STOP_BUSY,	"busy")			\
	EM(SWAP_PREFETCH_STOP_NOMEM,	"nomem")		\
	EMe(SWAP_PREFETCH_STOP_EXIT,	"exit")

/* Bit numbers in an activity mask, named after the VM events. */
#define SWAP_PREFETCH_ACTIVITY(F, Fe)				\
	F(SWAP_PREFETCH_ACT_SWAPOUT,	"pswpout")		\
	F(SWAP_PREFETCH_ACT_MAJFAULT,	"pgmajfault")		\
	F(SWAP_PREFETCH_ACT_ALLOCSTALL,	"allocstall")		\
	F(SWAP_PREFETCH_ACT_SCAN_KSWAPD, "pgscan_kswapd")	\
	F(SWAP_PREFETCH_ACT_SCAN_DIRECT, "pgscan_direct")	\
	F(SWAP_PREFETCH_ACT_OOM_KILL,	"oom_kill")		\
	Fe(SWAP_PREFETCH_ACT_ALLOC,	"pgalloc")

/* Export the enum values so that perf and bpftrace can decode them. */
#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);

SWAP_PREFETCH_VERDICTS
SWAP_PREFETCH_STOPS
SWAP_PREFETCH_ACTIVITY(EM, EMe)

#define EM_BIT(a, b)	{ 1 << (a), b },
#define EMe_BIT(a, b)	{ 1 << (a), b }

#define show_swap_prefetch_activity(mask)				\
	((mask) ? __print_flags(mask, "|",				\
		SWAP_PREFETCH_ACTIVITY(EM_BIT, EMe_BIT)) : "none")

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

/*
 * A check that did not read: why, what the VM did since the last check,
 * and when kprefetchd looks again.
 */
TRACE_EVENT(swap_prefetch_delay,

	TP_PROTO(enum swap_prefetch_verdict verdict, unsigned int activity,
		 unsigned int next_ms, unsigned long nr_tracked),

	TP_ARGS(verdict, activity, next_ms, nr_tracked),

	TP_STRUCT__entry(
		__field(int, verdict)
		__field(unsigned int, activity)
		__field(unsigned int, next_ms)
		__field(unsigned long, nr_tracked)
	),

	TP_fast_assign(
		__entry->verdict = verdict;
		__entry->activity = activity;
		__entry->next_ms = next_ms;
		__entry->nr_tracked = nr_tracked;
	),

	TP_printk("verdict=%s activity=%s next_ms=%u tracked=%lu",
		  __print_symbolic(__entry->verdict, SWAP_PREFETCH_VERDICTS),
		  show_swap_prefetch_activity(__entry->activity),
		  __entry->next_ms, __entry->nr_tracked)
);

/* A round that read: how much of its batch, and why it stopped. */
TRACE_EVENT(swap_prefetch_round,

	TP_PROTO(unsigned int batch, unsigned int nr_read,
		 unsigned int nr_stale, unsigned int nr_skipped,
		 enum swap_prefetch_stop stop, unsigned long nr_tracked),

	TP_ARGS(batch, nr_read, nr_stale, nr_skipped, stop, nr_tracked),

	TP_STRUCT__entry(
		__field(unsigned int, batch)
		__field(unsigned int, nr_read)
		__field(unsigned int, nr_stale)
		__field(unsigned int, nr_skipped)
		__field(int, stop)
		__field(unsigned long, nr_tracked)
	),

	TP_fast_assign(
		__entry->batch = batch;
		__entry->nr_read = nr_read;
		__entry->nr_stale = nr_stale;
		__entry->nr_skipped = nr_skipped;
		__entry->stop = stop;
		__entry->nr_tracked = nr_tracked;
	),

	TP_printk("batch=%u read=%u stale=%u skipped=%u stop=%s tracked=%lu",
		  __entry->batch, __entry->nr_read, __entry->nr_stale,
		  __entry->nr_skipped,
		  __print_symbolic(__entry->stop, SWAP_PREFETCH_STOPS),
		  __entry->nr_tracked)
);

#endif /* _TRACE_SWAP_PREFETCH_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
