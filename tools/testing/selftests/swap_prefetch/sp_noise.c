// SPDX-License-Identifier: GPL-2.0
/*
 * Background activity of a machine nobody is using, for the swap prefetch
 * benchmark: memory churn (a garbage collector, a browser tab), a journal
 * (small writes and fsync), a page-cache reader (an indexer), a periodic
 * CPU waker, and a grower that keeps what it writes (a container's cache
 * at its memory.high).  With --cgroup, in that cgroup v2 group.  Runs the
 * ones asked for until SIGTERM or SIGINT,
 * then prints one line with the throughput each achieved, so that the
 * benchmark can check that prefetch did not slow them down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "sp_util.h"

static atomic_int stopping;
/* The waker's loop sums into it, so that the loop is not optimised away. */
unsigned long spin_sink;

struct noise {
	const char *label;
	unsigned int churn_mib_s;	/* allocate, touch, free: MiB/s */
	unsigned int churn_pace_ms;	/* one burst this often */
	const char *writer;		/* journal: device or file */
	unsigned int write_kib;		/* written and synced at a time */
	unsigned int write_every_ms;	/* one write this often */
	const char *reader;		/* indexer: device or file */
	unsigned int reader_mib_s;
	unsigned int cpu_pct;		/* waker: busy share of each 100 ms */
	unsigned int grow_mib_s;	/* grower: MiB/s written and kept */
	unsigned int grow_keep_mib;	/* the most it keeps */
	const char *cgroup;		/* cgroup v2 directory to run in */
	/* results */
	atomic_int failed;
	double churned_mib, churn_s, writes, write_s, read_mib, cpu_loops, cpu_busy_s;
	double grown_mib;
};

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stopping, 1);
}

static bool stop_now(void)
{
	return atomic_load(&stopping);
}

/* Sleep until @t (sp_now() seconds), unless asked to stop. */
static void sleep_until(double t)
{
	double now = sp_now();

	if (t > now && !stop_now())
		usleep((t - now) * 1e6);
}

/*
 * Every pace (a quarter of a second unless told): map rate x pace, at
 * most 16 MiB, write every page, unmap it.
 */
static void *churn(void *arg)
{
	struct noise *n = arg;
	size_t len = ((size_t)n->churn_mib_s << 20) / 1000 * n->churn_pace_ms;
	double next = sp_now();

	if (len > (16UL << 20))
		len = 16UL << 20;

	while (!stop_now()) {
		double t0 = sp_now();
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		memset(p, 0x5a, len);
		munmap(p, len);
		n->churn_s += sp_now() - t0;
		n->churned_mib += len / 1048576.0;
		next += n->churn_pace_ms / 1000.0;
		sleep_until(next);
	}
	return NULL;
}

/*
 * A journal: 16 KiB (or --write-kib) appended and synced every 1.5 s (or
 * --write-every ms), in a 64 MiB ring.
 */
static void *writer(void *arg)
{
	struct noise *n = arg;
	const size_t len = (size_t)n->write_kib << 10, ring = 64 << 20;
	double next = sp_now();
	char *buf = malloc(len);
	off_t off = 0;
	int fd = open(n->writer, O_WRONLY);

	if (fd < 0 || !buf) {
		perror(n->writer);
		atomic_store(&n->failed, 1);
		free(buf);
		return NULL;
	}
	memset(buf, 'j', len);
	while (!stop_now()) {
		double t0 = sp_now();

		if (pwrite(fd, buf, len, off) != (ssize_t)len || fdatasync(fd))
			break;
		n->write_s += sp_now() - t0;
		n->writes++;
		off = (off + len) % ring;
		next += n->write_every_ms / 1000.0;
		sleep_until(next);
	}
	close(fd);
	free(buf);
	return NULL;
}

/*
 * An indexer: buffered 1 MiB reads at a steady rate, front to back, from
 * past the journal's ring, so that the two can share a disk.
 */
static void *reader(void *arg)
{
	struct noise *n = arg;
	const size_t chunk = 1 << 20, start = 64 << 20;
	double next = sp_now();
	char *buf = malloc(chunk);
	off_t off = start;
	int fd = open(n->reader, O_RDONLY);

	if (fd < 0 || !buf) {
		perror(n->reader);
		atomic_store(&n->failed, 1);
		free(buf);
		return NULL;
	}
	while (!stop_now()) {
		ssize_t got = pread(fd, buf, chunk, off);

		if (got < 0)
			break;
		off = got < (ssize_t)chunk ? start : off + got;
		n->read_mib += got / 1048576.0;
		next += 1.0 / n->reader_mib_s;
		sleep_until(next);
	}
	close(fd);
	free(buf);
	return NULL;
}

/* A periodic waker: spin cpu_pct ms of every 100 ms, counting loops. */
static void *waker(void *arg)
{
	struct noise *n = arg;
	double next = sp_now();

	while (!stop_now()) {
		double t0 = sp_now(), end = t0 + n->cpu_pct / 1000.0;

		while (sp_now() < end) {
			unsigned int i;

			for (i = 0; i < 10000; i++)
				spin_sink += i;
			n->cpu_loops += 10000;
		}
		n->cpu_busy_s += sp_now() - t0;
		next += 0.1;
		sleep_until(next);
	}
	return NULL;
}

/*
 * A grower: 1 MiB mapped and written every 1/rate seconds and kept, in a
 * ring of grow_keep_mib, the oldest unmapped once the ring is full.  In a
 * group held below that, its own reclaim swaps out the oldest as fast as
 * it writes, and unmapping frees their swap.
 */
static void *grower(void *arg)
{
	struct noise *n = arg;
	const size_t step = 1 << 20;
	unsigned int nr = n->grow_keep_mib, head = 0;
	char **ring = calloc(nr, sizeof(*ring));
	double next = sp_now();

	if (!ring) {
		atomic_store(&n->failed, 1);
		return NULL;
	}
	while (!stop_now()) {
		if (ring[head])
			munmap(ring[head], step);
		ring[head] = mmap(NULL, step, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ring[head] == MAP_FAILED) {
			ring[head] = NULL;
			atomic_store(&n->failed, 1);
			break;
		}
		memset(ring[head], 0x67, step);
		head = (head + 1) % nr;
		n->grown_mib++;
		next += 1.0 / n->grow_mib_s;
		sleep_until(next);
	}
	for (head = 0; head < nr; head++)
		if (ring[head])
			munmap(ring[head], step);
	free(ring);
	return NULL;
}

/* Move this process into the cgroup v2 directory @dir. */
static void enter_cgroup(const char *dir)
{
	char path[512], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (sp_write(path, pid)) {
		fprintf(stderr, "sp_noise: cannot enter cgroup %s: %s\n", dir,
			strerror(errno));
		exit(1);
	}
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--label name] [--churn MiB/s [--churn-pace ms]]\n"
		"          [--writer path [--write-kib KiB] [--write-every ms]]\n"
		"          [--reader path --reader-rate MiB/s] [--cpu percent]\n"
		"          [--grow MiB/s [--grow-keep MiB]] [--cgroup dir]\n"
		"Runs background activity until SIGTERM, then prints its throughput.\n",
		prog);
	exit(2);
}

static void parse(int argc, char **argv, struct noise *n)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "churn", required_argument, NULL, 'c' },
		{ "churn-pace", required_argument, NULL, 'P' },
		{ "writer", required_argument, NULL, 'w' },
		{ "write-kib", required_argument, NULL, 'k' },
		{ "write-every", required_argument, NULL, 'e' },
		{ "reader", required_argument, NULL, 'r' },
		{ "reader-rate", required_argument, NULL, 'R' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "grow", required_argument, NULL, 'g' },
		{ "grow-keep", required_argument, NULL, 'K' },
		{ "cgroup", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	*n = (struct noise){
		.label = "noise", .reader_mib_s = 4, .churn_pace_ms = 250,
		.write_kib = 16, .write_every_ms = 1500, .grow_keep_mib = 64,
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			n->label = optarg;
			break;
		case 'c':
			n->churn_mib_s = strtoul(optarg, NULL, 0);
			break;
		case 'P':
			n->churn_pace_ms = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			n->writer = optarg;
			break;
		case 'k':
			n->write_kib = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			n->write_every_ms = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			n->reader = optarg;
			break;
		case 'R':
			n->reader_mib_s = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			n->cpu_pct = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			n->grow_mib_s = strtoul(optarg, NULL, 0);
			break;
		case 'K':
			n->grow_keep_mib = strtoul(optarg, NULL, 0);
			break;
		case 'C':
			n->cgroup = optarg;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (optind < argc || n->cpu_pct > 100 || !n->reader_mib_s ||
	    !n->churn_pace_ms || n->churn_pace_ms > 60000 ||
	    !n->write_kib || n->write_kib > 65536 || !n->write_every_ms ||
	    !n->grow_keep_mib || n->grow_keep_mib > 65536 ||
	    (!n->churn_mib_s && !n->writer && !n->reader && !n->cpu_pct &&
	     !n->grow_mib_s))
		print_usage(argv[0]);
}

int main(int argc, char **argv)
{
	pthread_t threads[5];
	unsigned int nr = 0, i;
	struct noise n;
	double t0, span;

	parse(argc, argv, &n);
	if (n.cgroup)
		enter_cgroup(n.cgroup);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = sp_now();
	if (n.churn_mib_s)
		pthread_create(&threads[nr++], NULL, churn, &n);
	if (n.writer)
		pthread_create(&threads[nr++], NULL, writer, &n);
	if (n.reader)
		pthread_create(&threads[nr++], NULL, reader, &n);
	if (n.cpu_pct)
		pthread_create(&threads[nr++], NULL, waker, &n);
	if (n.grow_mib_s)
		pthread_create(&threads[nr++], NULL, grower, &n);
	while (!stop_now())
		pause();
	span = sp_now() - t0;
	for (i = 0; i < nr; i++)
		pthread_join(threads[i], NULL);
	/* One line, so that nothing else on the console can split it. */
	printf("noise label=%s seconds=%.1f", n.label, span);
	printf(" churn_mib_s=%.2f churn_ms_per_mib=%.2f",
	       n.churned_mib / span,
	       n.churned_mib ? 1000 * n.churn_s / n.churned_mib : 0);
	printf(" writes_per_s=%.3f write_ms=%.2f", n.writes / span,
	       n.writes ? 1000 * n.write_s / n.writes : 0);
	printf(" read_mib_s=%.2f cpu_mloops_per_busy_s=%.2f grow_mib_s=%.2f\n",
	       n.read_mib / span,
	       n.cpu_busy_s ? n.cpu_loops / 1e6 / n.cpu_busy_s : 0,
	       n.grown_mib / span);
	fflush(stdout);
	return atomic_load(&n.failed) ? 1 : 0;
}
