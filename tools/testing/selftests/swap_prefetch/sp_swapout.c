// SPDX-License-Identifier: GPL-2.0
/*
 * What tracking costs the swap-out path: a hog pushes about twice RAM
 * through swap, in alternating runs with swap prefetch on and off, in
 * one boot.  With it on, the delay is ten minutes, so kprefetchd records
 * but never reads: the runs differ only by the records.  Prints one line
 * per run (seconds, MiB swapped out, the tracker's chunks afterwards) and
 * the median of each side.
 *
 *   sp_swapout [--runs N] [--hog-mib M]
 *
 * N runs each way (default 5), a hog of M MiB (default twice MemTotal).
 * Needs root, swap of at least the hog's size and CONFIG_SWAP_PREFETCH.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/mount.h>

#include "sp_util.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define DEBUGFS		"/sys/kernel/debug/"
#define TRACKED		DEBUGFS "swap_prefetch/tracked"

static const char * const counters[] = {
	"pswpout", "swap_prefetch_recorded_pages", "swap_prefetch_contended_swapouts",
	"swap_prefetch_nomem_pages", "swap_prefetch_recycled_pages",
};

/* The tracker's chunk pages, from debugfs; -1 without it. */
static long tracked_chunks(void)
{
	char line[256];
	long chunks = -1, max;
	FILE *f = fopen(TRACKED, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "chunks %ld of %ld", &chunks, &max) == 2)
			break;
	if (f)
		fclose(f);
	return chunks;
}

static void print_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--runs N] [--hog-mib M]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "hog-mib", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	long before[ARRAY_SIZE(counters)], after[ARRAY_SIZE(counters)];
	double secs[2][64], t0, s;
	int runs = 5, n[2] = { 0, 0 }, run, on, c;
	size_t hog_mib = sp_meminfo("MemTotal") / 1024 * 2, i;

	while ((c = getopt_long(argc, argv, "r:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'm':
			hog_mib = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (runs < 1 || runs > 64 || !hog_mib)
		print_usage(argv[0]);
	if (access(SP_KNOBS "enabled", W_OK)) {
		fprintf(stderr, "no writable %senabled: %s\n", SP_KNOBS,
			"needs root and CONFIG_SWAP_PREFETCH");
		return 2;
	}
	if (sp_meminfo("SwapTotal") < (long)hog_mib * 1024) {
		fprintf(stderr, "swap (%ld KiB) smaller than the hog (%zu MiB)\n",
			sp_meminfo("SwapTotal"), hog_mib);
		return 2;
	}
	if (access(TRACKED, F_OK))
		mount("none", DEBUGFS, "debugfs", 0, NULL);
	sp_write(SP_KNOBS "delay_ms", "600000");

	/* Off, on, on, off, ...: a drift over the boot hits both sides. */
	for (run = 0; run < 2 * runs; run++) {
		on = (run + run / 2) % 2;
		sp_write(SP_KNOBS "enabled", on ? "1" : "0");
		for (i = 0; i < ARRAY_SIZE(counters); i++)
			before[i] = sp_vmstat(counters[i]);
		t0 = sp_now();
		if (sp_run_hog(hog_mib)) {
			fprintf(stderr, "the hog of %zu MiB failed\n", hog_mib);
			return 1;
		}
		s = sp_now() - t0;
		for (i = 0; i < ARRAY_SIZE(counters); i++)
			after[i] = sp_vmstat(counters[i]);
		secs[on][n[on]++] = s;
		printf("swapout: run=%d prefetch=%s seconds=%.3f swapout_mib=%ld chunks=%ld",
		       run, on ? "on" : "off", s,
		       (after[0] - before[0]) * (long)sp_page_size() >> 20,
		       tracked_chunks());
		for (i = 1; i < ARRAY_SIZE(counters); i++)
			printf(" %s=%ld", counters[i] + strlen("swap_prefetch_"),
			       after[i] - before[i]);
		printf("\n");
		fflush(stdout);
	}
	sp_write(SP_KNOBS "enabled", "1");
	printf("swapout: median off=%.3f on=%.3f ratio=%.4f\n",
	       sp_median(secs[0], n[0]), sp_median(secs[1], n[1]),
	       sp_median(secs[1], n[1]) / sp_median(secs[0], n[0]));
	return 0;
}
