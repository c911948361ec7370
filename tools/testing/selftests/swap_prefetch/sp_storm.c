// SPDX-License-Identifier: GPL-2.0
/*
 * A swap storm with pauses, for the swap prefetch benchmark: "show that
 * make -jhuge has no regressions" (linux-mm, 2007).
 *
 * A job larger than RAM runs in phases.  Each phase writes every page of
 * its working set, which swaps; then the job shrinks (drops the
 * upper half of its memory, as a build drops a finished step's) and
 * pauses longer than the prefetch delay, so that prefetch gets to run on
 * what the phase swapped out; the next phase grows again and touches
 * everything.  The time of the active phases is what a regression would
 * lengthen; the pauses are not counted.
 */
#define _GNU_SOURCE
#include <getopt.h>

#include "sp_util.h"

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--label name] [--mib MiB] [--phases N] [--passes N]\n"
		"          [--pause s]\n"
		"Runs phases of a job larger than RAM with pauses between them and\n"
		"prints the time of the active phases.\n", prog);
	exit(2);
}

/* Write one word in every page of [buf, buf + len), @passes times. */
static void touch_pages(char *buf, size_t len, unsigned int passes)
{
	size_t psz = sp_page_size(), off;
	unsigned int p;

	for (p = 0; p < passes; p++)
		for (off = 0; off < len; off += psz)
			buf[off] += p + 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "mib", required_argument, NULL, 'm' },
		{ "phases", required_argument, NULL, 'p' },
		{ "passes", required_argument, NULL, 'P' },
		{ "pause", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int phases = 3, passes = 1, pause_s = 8, i;
	long in0, out0, read0;
	const char *label = "storm";
	size_t mib = 0, len;
	double active = 0;
	char *buf;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			label = optarg;
			break;
		case 'm':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			phases = strtoul(optarg, NULL, 0);
			break;
		case 'P':
			passes = strtoul(optarg, NULL, 0);
			break;
		case 's':
			pause_s = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (optind < argc || !phases || !passes)
		print_usage(argv[0]);
	/* By default a quarter more than RAM: every phase swaps. */
	if (!mib)
		mib = sp_meminfo("MemTotal") / 1024 * 5 / 4;
	len = mib << 20;
	buf = sp_alloc(len);
	in0 = sp_vmstat("pswpin");
	out0 = sp_vmstat("pswpout");
	read0 = sp_vmstat("swap_prefetch_read_pages");
	for (i = 0; i < phases; i++) {
		double t0 = sp_now();

		touch_pages(buf, len, passes);
		/* Shrink: the upper half is done with, for now. */
		madvise(buf + len / 2, len / 2, MADV_DONTNEED);
		active += sp_now() - t0;
		if (i + 1 < phases)
			sleep(pause_s);
	}
	/* pswpin counts prefetch reads too; prefetched is their share. */
	printf("storm label=%s mib=%zu phases=%u passes=%u pause_s=%u active_s=%.2f",
	       label, mib, phases, passes, pause_s, active);
	printf(" pswpin=%ld pswpout=%ld prefetched=%ld\n",
	       sp_vmstat("pswpin") - in0, sp_vmstat("pswpout") - out0,
	       sp_vmstat("swap_prefetch_read_pages") - read0);
	return 0;
}
