// SPDX-License-Identifier: GPL-2.0
/*
 * Swap-out / idle / re-activate workload for swap prefetch.
 *
 * Touches a working set W, pushes it out to swap with a memory hog that
 * exits, optionally lets a peer bring it back (MADV_WILLNEED through
 * process_madvise() from another process, swapoff + swapon, or a DAMON
 * kdamond with a DAMOS_WILLNEED scheme on this process), idles
 * while sampling how much of W is back in memory, then re-touches W and
 * reports the time and major faults it took.  Every byte of W is checked
 * against its pattern at the end.  With --background, sp_noise runs
 * during the idle period, as a machine's background would.  With
 * --then-read, a page-cache job follows the idle period before the
 * re-touch: it reads part of a disk twice, and the result says how much
 * of W survived it and what the job itself paid (its time per pass and
 * the page cache's own refaults).  With --job-reads, a backup-like job
 * reads a disk while the hog pushes W out (or, with --job-after, once it
 * is done), and leaves its page cache; with --job-dontneed it drops what
 * it read, with --job-cgroup it runs in a cgroup of its own.  With
 * --job-walk, an indexer walks a tree once the hog is done, as updatedb
 * does.  --peer reclaim is an agent that writes memory.reclaim with
 * swappiness=0 and then asks for W with process_madvise(MADV_WILLNEED).
 * With --hibernate, the machine hibernates instead of running the hog:
 * the snapshot's own reclaim pushes W out to fit the image into
 * image_size, the machine reboots (QEMU exits with -no-reboot), and the
 * run goes on once a boot with resume= has restored it.
 *
 * One result line per run, "key=value" separated by spaces, so that the
 * benchmark script can tabulate runs made in the same boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <ftw.h>
#include <sys/uio.h>

#include "sp_util.h"

struct options {
	unsigned long ws_mib;
	unsigned long hog_mib;
	unsigned int idle_s;
	const char *peer;	/* none, willneed, swapoff, damon */
	const char *label;
	const char *swapdev;
	const char *trace;	/* file for "label second resident%" samples */
	const char *background;	/* sp_noise arguments, run while idle */
	const char *read_dev;	/* --then-read: the disk read after idling */
	unsigned long read_mib;
	const char *job_dev;	/* --job-reads: the disk read during swap-out */
	unsigned long job_mib;
	int job_after;		/* --job-after: the job runs once the hog is done */
	int job_dontneed;	/* --job-dontneed: it drops what it read */
	const char *job_cgroup;	/* --job-cgroup: the cgroup it runs in */
	const char *walk_dir;	/* --job-walk: the tree an indexer walks */
	int no_swapout;
	int pageout;
	long hibernate_mib;	/* image_size for --hibernate; -1: no */
};

/*
 * Hibernate with an image of at most @image_mib MiB, and come back: the
 * write to /sys/power/state returns once a later boot has resumed the
 * image.  "reboot": without ACPI, "shutdown" halts and QEMU never exits.
 * Returns 0 once resumed, -1 if the machine could not hibernate.
 */
static int hibernate_and_resume(long image_mib)
{
	char size[32];
	int err;

	snprintf(size, sizeof(size), "%ld", image_mib << 20);
	if (sp_write("/sys/power/image_size", size) ||
	    sp_write("/sys/power/disk", "reboot")) {
		fprintf(stderr, "no hibernation: /sys/power/image_size or disk\n");
		return -1;
	}
	printf("hibernate: writing the image\n");
	fflush(stdout);
	err = sp_write("/sys/power/state", "disk");
	if (err) {
		fprintf(stderr, "hibernation failed: %s\n", strerror(-err));
		return -1;
	}
	printf("hibernate: resumed\n");
	fflush(stdout);
	return 0;
}

/* What a process_madvise() daemon does: WILLNEED from outside. */
static double peer_willneed(char *buf, size_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	pid_t target = getpid(), pid;
	double t0 = sp_now();
	int status;

	pid = fork();
	if (!pid) {
		int pidfd = syscall(SYS_pidfd_open, target, 0);

		if (pidfd < 0 ||
		    syscall(SYS_process_madvise, pidfd, &iov, 1,
			    MADV_WILLNEED, 0) < 0) {
			perror("process_madvise");
			_exit(1);
		}
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return sp_now() - t0;
}

/*
 * A userspace agent that knows the job and the application: once the job
 * is done, it reclaims the application's size of page cache only
 * (memory.reclaim at the root with swappiness=0), then asks for the
 * application's memory back (process_madvise(MADV_WILLNEED)).
 */
static double peer_reclaim(char *buf, size_t len)
{
	double t0 = sp_now(), t;
	char req[64];
	int err;

	snprintf(req, sizeof(req), "%zu swappiness=0", len);
	err = sp_write("/sys/fs/cgroup/memory.reclaim", req);
	/* EAGAIN: it reclaimed less than asked; the reads go on anyway. */
	if (err && err != -EAGAIN) {
		fprintf(stderr, "memory.reclaim: %s\n", strerror(-err));
		return -1;
	}
	t = peer_willneed(buf, len);
	return t < 0 ? -1 : sp_now() - t0;
}

static double peer_swapoff(const char *dev)
{
	char cmd[256];
	double t0 = sp_now();

	snprintf(cmd, sizeof(cmd), "swapoff %s && swapon %s", dev, dev);
	if (system(cmd))
		return -1;
	return sp_now() - t0;
}

#define DAMON_ADMIN	"/sys/kernel/mm/damon/admin/kdamonds/"
#define DAMOS_PATTERN	"0/contexts/0/schemes/0/access_pattern/"

static int damon_set(const char *file, const char *val)
{
	char path[256];
	int ret;

	snprintf(path, sizeof(path), DAMON_ADMIN "%s", file);
	ret = sp_write(path, val);
	if (ret)
		fprintf(stderr, "DAMON: %s: %s\n", path, strerror(-ret));
	return ret;
}

/*
 * What a DAMON user can do today: a kdamond that monitors this process
 * (vaddr) with one DAMOS_WILLNEED scheme over every region, left on
 * until W is 95% back or two minutes pass.  Seconds, or -1.  A new
 * scheme's access pattern is 0-0 in size, accesses and age, which no
 * region matches: open each range to its maximum.
 */
static double peer_damon(char *buf, size_t len)
{
	size_t pages = len / sp_page_size();
	double t0 = sp_now(), t = -1;
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (damon_set("nr_kdamonds", "1") ||
	    damon_set("0/contexts/nr_contexts", "1") ||
	    damon_set("0/contexts/0/operations", "vaddr") ||
	    damon_set("0/contexts/0/targets/nr_targets", "1") ||
	    damon_set("0/contexts/0/targets/0/pid_target", pid) ||
	    damon_set("0/contexts/0/schemes/nr_schemes", "1") ||
	    damon_set("0/contexts/0/schemes/0/action", "willneed") ||
	    damon_set(DAMOS_PATTERN "sz/max", "18446744073709551615") ||
	    damon_set(DAMOS_PATTERN "nr_accesses/max", "4294967295") ||
	    damon_set(DAMOS_PATTERN "age/max", "4294967295") ||
	    damon_set("0/state", "on"))
		goto out;
	while (sp_now() - t0 < 120) {
		if (sp_count_resident(buf, len) >= pages * 95 / 100) {
			t = sp_now() - t0;
			break;
		}
		usleep(100000);
	}
	damon_set("0/state", "off");
out:
	damon_set("nr_kdamonds", "0");
	return t;
}

/* Start sp_noise, from sp_bench's own folder, with @args. */
static pid_t start_background(const char *label, const char *args)
{
	char self[PATH_MAX] = "", cmd[PATH_MAX + 512], *slash;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;

	if (len > 0)
		self[len] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(cmd, sizeof(cmd), "exec %s/sp_noise --label %s %s",
		 slash ? self : ".", label, args);
	pid = fork();
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Stop it; it prints its own throughput line.  0 if it ran cleanly. */
static int stop_background(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Read the first @mib MiB of @fd through the page cache; seconds or -1.
 * With @dontneed, drop each MiB from the page cache once read, as a
 * backup run under nocache(1) does.
 */
static double read_through_cache(int fd, unsigned long mib, int dontneed)
{
	static char chunk[1 << 20];
	double t0 = sp_now();
	unsigned long i;

	for (i = 0; i < mib; i++) {
		if (pread(fd, chunk, sizeof(chunk), i * sizeof(chunk)) !=
		    (ssize_t)sizeof(chunk))
			return -1;
		if (dontneed)
			posix_fadvise(fd, i * sizeof(chunk), sizeof(chunk),
				      POSIX_FADV_DONTNEED);
	}
	return sp_now() - t0;
}

/* "dev:MiB" into @dev and @mib; false if it is not that. */
static bool parse_dev_mib(const char *arg, const char **dev,
			  unsigned long *mib)
{
	const char *colon = strrchr(arg, ':');
	char *end;

	if (!colon || colon == arg)
		return false;
	*mib = strtoul(colon + 1, &end, 0);
	if (*end || !*mib)
		return false;
	*dev = strndup(arg, colon - arg);
	return *dev;
}

static int walk_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return 0;
}

/*
 * The job of --job-reads or --job-walk: reads its disk, or walks a tree
 * as updatedb does (every directory read and every entry's inode looked
 * at: dentries, inodes and directory blocks), and exits, 0 if it got
 * through; in its cgroup, if it has one (a backup.service with
 * memory.high).
 */
static pid_t start_job(const struct options *o)
{
	pid_t pid = fork();

	if (!pid) {
		char path[PATH_MAX], me[32];
		int fd;

		if (o->job_cgroup) {
			snprintf(path, sizeof(path), "%s/cgroup.procs",
				 o->job_cgroup);
			snprintf(me, sizeof(me), "%d", getpid());
			if (sp_write(path, me))
				_exit(1);
		}
		if (o->walk_dir)
			_exit(nftw(o->walk_dir, walk_one, 64,
				   FTW_PHYS | FTW_MOUNT) != 0);
		fd = open(o->job_dev, O_RDONLY);
		_exit(fd < 0 || read_through_cache(fd, o->job_mib,
						   o->job_dontneed) < 0);
	}
	return pid;
}

/* Wait for the job; false if it failed. */
static bool job_done(pid_t job)
{
	int status = 0;

	return waitpid(job, &status, 0) == job && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

static void print_help(const char *prog)
{
	fprintf(stderr, "usage: %s [--ws MiB] [--hog MiB] [--idle s]\n", prog);
	fprintf(stderr, "  [--peer none|willneed|swapoff|damon|reclaim] [--swapdev dev]\n");
	fprintf(stderr, "  [--no-swapout | --pageout] [--label name] [--trace file]\n");
	fprintf(stderr, "  [--background 'sp_noise arguments'] [--then-read dev:MiB]\n");
	fprintf(stderr, "  [--job-reads dev:MiB [--job-after] [--job-dontneed]\n");
	fprintf(stderr, "   [--job-cgroup dir]] [--job-walk dir [--job-cgroup dir]]\n");
	fprintf(stderr, "  [--hibernate image-MiB]\n");
	fprintf(stderr, "Touches a working set, swaps it out with a hog, idles, re-touches it.\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "ws", required_argument, NULL, 'w' },
		{ "hog", required_argument, NULL, 'g' },
		{ "idle", required_argument, NULL, 'i' },
		{ "peer", required_argument, NULL, 'p' },
		{ "swapdev", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "trace", required_argument, NULL, 't' },
		{ "background", required_argument, NULL, 'b' },
		{ "then-read", required_argument, NULL, 'r' },
		{ "job-reads", required_argument, NULL, 'j' },
		{ "job-after", no_argument, NULL, 'A' },
		{ "job-dontneed", no_argument, NULL, 'D' },
		{ "job-cgroup", required_argument, NULL, 'C' },
		{ "job-walk", required_argument, NULL, 'W' },
		{ "no-swapout", no_argument, NULL, 'n' },
		{ "pageout", no_argument, NULL, 'o' },
		{ "hibernate", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	*o = (struct options){ .ws_mib = 64, .hog_mib = 200, .idle_s = 20,
			       .peer = "none", .label = "run",
			       .swapdev = "/dev/vda", .hibernate_mib = -1 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			o->ws_mib = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			o->hog_mib = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			o->idle_s = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o->peer = optarg;
			break;
		case 'd':
			o->swapdev = optarg;
			break;
		case 'l':
			o->label = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'b':
			o->background = optarg;
			break;
		case 'r':
			if (!parse_dev_mib(optarg, &o->read_dev, &o->read_mib))
				print_help(argv[0]);
			break;
		case 'j':
			if (!parse_dev_mib(optarg, &o->job_dev, &o->job_mib))
				print_help(argv[0]);
			break;
		case 'A':
			o->job_after = 1;
			break;
		case 'D':
			o->job_dontneed = 1;
			break;
		case 'C':
			o->job_cgroup = optarg;
			break;
		case 'W':
			o->walk_dir = optarg;
			o->job_after = 1;
			break;
		case 'n':
			o->no_swapout = 1;
			break;
		case 'o':
			o->pageout = 1;
			break;
		case 'H':
			o->hibernate_mib = strtol(optarg, NULL, 0);
			if (o->hibernate_mib < 0)
				print_help(argv[0]);
			break;
		default:
			print_help(argv[0]);
		}
	}
	if (!o->ws_mib || (strcmp(o->peer, "none") && strcmp(o->peer, "willneed") &&
			   strcmp(o->peer, "swapoff") && strcmp(o->peer, "damon") &&
			   strcmp(o->peer, "reclaim")))
		print_help(argv[0]);
}

/* Mark a phase in the trace buffer, beside kprefetchd's events. */
static void mark_trace(const char *label, const char *phase)
{
	FILE *f = fopen("/sys/kernel/tracing/trace_marker", "w");

	if (!f)
		return;
	fprintf(f, "sp_bench %s: %s\n", label, phase);
	fclose(f);
}

int main(int argc, char **argv)
{
	double peer_s = 0, restore_s = -1, t0, touch_s;
	double read_s[2] = { 0, 0 };
	long file_refaults = 0, free_kib, cache_kib, cache_end_kib, ex0, ex1;
	long slab_kib, slab_end_kib, dentries, dentries_end, inodes, inodes_end;
	size_t resident_idle;
	long read0, read1, use0[3], use1[3];
	pid_t noise = 0;
	int noise_rc = 0;
	size_t len, pages, swapped, resident, bad;
	struct options o;
	FILE *trace = NULL;
	long flt0, flt;
	unsigned int tick, every;
	char *buf;

	parse(argc, argv, &o);
	len = o.ws_mib << 20;
	pages = len / sp_page_size();

	buf = sp_alloc(len);
	sp_fill(buf, len);
	if (o.pageout) {
		/*
		 * Written pages stay in the swap cache until later reclaim:
		 * this is the "everything prefetched" limit, minor faults only.
		 */
		if (madvise(buf, len, MADV_PAGEOUT)) {
			perror("MADV_PAGEOUT");
			return 2;
		}
		sleep(2);
	} else if (o.hibernate_mib >= 0) {
		if (hibernate_and_resume(o.hibernate_mib))
			return 2;
	} else if (!o.no_swapout) {
		bool has_job = o.job_dev || o.walk_dir;
		pid_t job = has_job && !o.job_after ? start_job(&o) : 0;

		if (sp_run_hog(o.hog_mib)) {
			fprintf(stderr, "the memory hog failed\n");
			return 2;
		}
		if (has_job && o.job_after)
			job = start_job(&o);
		if (job && !job_done(job)) {
			fprintf(stderr, "the job (%s) failed\n",
				o.walk_dir ? o.walk_dir : o.job_dev);
			return 2;
		}
	}
	swapped = sp_count_swapped(buf, len);

	if (!strcmp(o.peer, "willneed"))
		peer_s = peer_willneed(buf, len);
	else if (!strcmp(o.peer, "swapoff"))
		peer_s = peer_swapoff(o.swapdev);
	else if (!strcmp(o.peer, "damon"))
		peer_s = peer_damon(buf, len);
	else if (!strcmp(o.peer, "reclaim"))
		peer_s = peer_reclaim(buf, len);

	if (o.background)
		noise = start_background(o.label, o.background);
	if (o.trace)
		trace = fopen(o.trace, "a");
	free_kib = sp_meminfo("MemFree");
	/* A block device's page cache counts as Buffers. */
	cache_kib = sp_meminfo("Cached") + sp_meminfo("Buffers");
	slab_kib = sp_meminfo("Slab");
	/* What an exchange took of an indexer's slab: the first field of each. */
	dentries = sp_read_long("/proc/sys/fs/dentry-state");
	inodes = sp_read_long("/proc/sys/fs/inode-nr");
	read0 = sp_vmstat("swap_prefetch_read_pages");
	ex0 = sp_vmstat("swap_prefetch_exchanged_pages");
	sp_usefulness(use0);
	mark_trace(o.label, "idle begins");
	t0 = sp_now();
	/*
	 * Whole seconds for the plot; until W is back, every 100 ms per
	 * 128 MiB of W, at most every second.  mincore() costs CPU time in
	 * proportion to W, which the guest counts as others' against
	 * prefetch: at 1 GiB, ten samples a second made it skip rounds.
	 */
	every = o.ws_mib / 128 < 1 ? 1 : o.ws_mib / 128 > 10 ? 10 : o.ws_mib / 128;
	for (tick = 0; tick <= o.idle_s * 10; tick++) {
		double next = t0 + (tick + 1) / 10.0, now;
		size_t r = 0;

		if ((restore_s < 0 && tick % every == 0) || tick % 10 == 0)
			r = sp_count_resident(buf, len);
		if (trace && tick % 10 == 0)
			fprintf(trace, "%s %u %.1f\n", o.label, tick / 10,
				100.0 * r / pages);
		if (restore_s < 0 && r >= pages * 95 / 100)
			restore_s = sp_now() - t0;
		now = sp_now();
		if (tick < o.idle_s * 10 && next > now)
			usleep((next - now) * 1e6);
	}
	mark_trace(o.label, "idle ends");
	if (trace)
		fclose(trace);
	read1 = sp_vmstat("swap_prefetch_read_pages");
	ex1 = sp_vmstat("swap_prefetch_exchanged_pages");
	cache_end_kib = sp_meminfo("Cached") + sp_meminfo("Buffers");
	slab_end_kib = sp_meminfo("Slab");
	dentries_end = sp_read_long("/proc/sys/fs/dentry-state");
	inodes_end = sp_read_long("/proc/sys/fs/inode-nr");
	if (noise)
		noise_rc = stop_background(noise);

	resident_idle = sp_count_resident(buf, len);
	if (o.read_dev) {
		/*
		 * One open for both passes: closing a block device's last
		 * opener drops its page cache, and the second pass must find
		 * whatever the first left there.
		 */
		int fd = open(o.read_dev, O_RDONLY);

		file_refaults = sp_vmstat("workingset_refault_file");
		read_s[0] = fd < 0 ? -1 : read_through_cache(fd, o.read_mib, 0);
		read_s[1] = fd < 0 ? -1 : read_through_cache(fd, o.read_mib, 0);
		file_refaults = sp_vmstat("workingset_refault_file") - file_refaults;
		if (fd >= 0)
			close(fd);
		if (read_s[0] < 0 || read_s[1] < 0) {
			fprintf(stderr, "cannot read %lu MiB of %s: %s\n",
				o.read_mib, o.read_dev, strerror(errno));
			return 2;
		}
	}
	resident = sp_count_resident(buf, len);
	flt0 = sp_majflt();
	touch_s = sp_retouch(buf, len);
	flt = sp_majflt() - flt0;
	bad = sp_verify(buf, len);
	sp_usefulness(use1);

	/* One line, so that nothing else on the console can split it. */
	printf("result label=%s ws_mib=%lu swapped_pct=%.1f", o.label, o.ws_mib,
	       100.0 * swapped / pages);
	printf(" resident_before_touch_pct=%.1f peer=%s peer_s=%.3f",
	       100.0 * resident / pages, o.peer, peer_s);
	printf(" restore_s=%.2f touch_s=%.3f majflt=%ld prefetched=%ld bad_pages=%zu",
	       restore_s, touch_s, flt, read1 - read0, bad);
	printf(" used=%ld unused_reclaimed=%ld unused_freed=%ld",
	       use1[0] - use0[0], use1[1] - use0[1], use1[2] - use0[2]);
	printf(" resident_after_idle_pct=%.1f then_read_mib=%lu",
	       100.0 * resident_idle / pages, o.read_dev ? o.read_mib : 0);
	printf(" then_read_s=%.2f then_reread_s=%.2f file_refaults=%ld",
	       read_s[0], read_s[1], file_refaults);
	printf(" job_mib=%lu memfree_idle_kib=%ld pagecache_idle_kib=%ld",
	       o.job_dev ? o.job_mib : 0, free_kib, cache_kib);
	printf(" pagecache_end_kib=%ld exchanged=%ld", cache_end_kib, ex1 - ex0);
	printf(" slab_idle_kib=%ld slab_end_kib=%ld", slab_kib, slab_end_kib);
	printf(" dentries_idle=%ld dentries_end=%ld inodes_idle=%ld inodes_end=%ld\n",
	       dentries, dentries_end, inodes, inodes_end);
	if (noise_rc)
		fprintf(stderr, "the background activity failed (%d)\n", noise_rc);
	return bad || noise_rc ? 1 : 0;
}
