// SPDX-License-Identifier: GPL-2.0
/*
 * Swap prefetch stress: swapoff/swapon, memcg limits, OOM, fault injection
 * and churn while kprefetchd reads, each checked for lost or corrupted
 * pages.  Meant for a debug kernel (KASAN, lockdep, DEBUG_VM, kmemleak):
 * whoever runs it also checks the kernel log for splats.
 *
 * Needs root, swap and CONFIG_SWAP_PREFETCH; skips otherwise.  Working sets
 * are an eighth of RAM, pushed out by memory.max squeezes: far cheaper
 * under a debug kernel than a machine-wide hog.  SP_SWAP2 names a second
 * block device to use as swap (with a higher priority); SP_STRESS_SECONDS
 * the churn duration (default 30).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "sp_util.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_STRESS	CGROUP_ROOT "/swap_prefetch_stress"
#define FAULT_DIR	"/sys/kernel/debug/"
#define TRACKED		"/sys/kernel/debug/swap_prefetch/tracked"

static size_t ws_mib;
static char swap1[64];
static const char *swap2;

static void set_knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), SP_KNOBS "%s", name);
	if (sp_write(path, val))
		ksft_exit_fail_msg("cannot set %s\n", path);
}

/* Prefetch within a second of idleness, so that every step overlaps it. */
static void fast_prefetch(bool on)
{
	set_knob("delay_ms", "1000");
	set_knob("interval_ms", "100");
	set_knob("enabled", on ? "1" : "0");
}

static long read_long(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* The first swap device in /proc/swaps. */
static bool find_swap_device(void)
{
	char line[256];
	FILE *f = fopen("/proc/swaps", "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s", swap1) == 1;
	fclose(f);
	return found;
}

static bool make_cgroup(const char *path, const char *max, const char *swap_max)
{
	char file[256];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK))
		return false;
	sp_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(path, 0755) && errno != EEXIST)
		return false;
	snprintf(file, sizeof(file), "%s/memory.max", path);
	if (sp_write(file, max))
		return false;
	snprintf(file, sizeof(file), "%s/memory.swap.max", path);
	sp_write(file, swap_max);
	return true;
}

static void enter_cgroup(const char *path)
{
	char file[256], pid[32];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (sp_write(file, pid))
		_exit(3);
}

#define CGROUP_SQUEEZE	CGROUP_STRESS "_squeeze"

/* Move this process into @path (or back to the root) for new charges. */
static void move_self(const char *path)
{
	char file[256], pid[32];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (sp_write(file, pid))
		ksft_exit_fail_msg("cannot move into %s\n", path);
}

/*
 * Push this process's memory out to swap by lowering its group's
 * memory.max for a moment: limit reclaim, recorded like any other, and
 * far cheaper under a debug kernel than a machine-wide hog.
 */
static void squeeze_out(void)
{
	if (sp_write(CGROUP_SQUEEZE "/memory.max", "4194304") ||
	    sp_write(CGROUP_SQUEEZE "/memory.max", "max"))
		ksft_exit_fail_msg("memory.max squeeze failed\n");
}

/*
 * Entries debugfs says are tracked for swap device @dev, or -1 without
 * debugfs; adds to *@off those of devices no longer swapped on.
 */
static long tracked_for(const char *dev, long *off)
{
	char line[512], path[256];
	unsigned int type;
	long n, on = 0;
	FILE *f = fopen(TRACKED, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %ld %255s", &type, &n, path) != 3)
			continue;
		if (!strcmp(path, "off"))
			*off += n;
		else if (!strcmp(path, dev))
			on += n;
	}
	fclose(f);
	return on;
}

static void show_tracked(void)
{
	char line[512];
	FILE *f = fopen(TRACKED, "r");

	while (f && fgets(line, sizeof(line), f))
		ksft_print_msg("tracked: %s", line);
	if (f)
		fclose(f);
}

/*
 * With only the first device (type 0) on, push the set out to it: debugfs
 * must name that device for its entries, not call them "off".
 */
static bool first_device_named(void)
{
	long off = 0, on;
	bool ok;

	if (access(TRACKED, R_OK))
		return true;
	if (swapoff(swap2)) {
		ksft_print_msg("swapoff %s: %s\n", swap2, strerror(errno));
		return false;
	}
	/* Read nothing yet: the entries must still be there to be named. */
	set_knob("delay_ms", "600000");
	squeeze_out();
	on = tracked_for(swap1, &off);
	show_tracked();
	fast_prefetch(true);
	ok = on > 0 && !off;
	ksft_print_msg("%s alone: %ld entries tracked for it, %ld shown off%s\n",
		       swap1, on, off, ok ? "" : ": debugfs misnames a live device");
	if (swapon(swap2, SWAP_FLAG_PREFER | 10)) {
		ksft_print_msg("swapon %s: %s\n", swap2, strerror(errno));
		return false;
	}
	return ok;
}

/*
 * Swap @dev off and on again, counting in *@purged the entries it had
 * before and in *@left those of swapped-off devices still tracked after.
 */
static int cycle_swap(const char *dev, int prio, long *purged, long *left)
{
	long before = tracked_for(dev, left);

	if (swapoff(dev))
		return -1;
	if (before > 0)
		*purged += before;
	tracked_for(dev, left);
	return swapon(dev, prio);
}

static void test_swapoff_loop(void)
{
	const char *name = "swapoff/swapon while prefetching loses no page";
	size_t len = ws_mib << 20, bad;
	long stale0 = sp_vmstat("swap_prefetch_stale_pages");
	long read0 = sp_vmstat("swap_prefetch_read_pages");
	long purged = 0, left = 0;
	int round, failed = 0, overlapped = 0;
	char *buf;

	if (!make_cgroup(CGROUP_SQUEEZE, "max", "max")) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	fast_prefetch(true);
	move_self(CGROUP_SQUEEZE);
	buf = sp_alloc(len);
	sp_fill(buf, len);
	if (swap2)
		failed += !first_device_named();
	for (round = 0; round < 3; round++) {
		long r0 = sp_vmstat("swap_prefetch_read_pages");
		int t;

		squeeze_out();
		/* Swap off while kprefetchd is reading, not before. */
		for (t = 0; t < 300 && sp_vmstat("swap_prefetch_read_pages") == r0; t++)
			usleep(100000);
		overlapped += sp_vmstat("swap_prefetch_read_pages") != r0;
		if (!round)
			show_tracked();
		if (swap2 && cycle_swap(swap2, SWAP_FLAG_PREFER | 10, &purged, &left)) {
			ksft_print_msg("round %d: swapoff/swapon %s: %s\n",
				       round, swap2, strerror(errno));
			failed++;
		}
		if (cycle_swap(swap1, 0, &purged, &left)) {
			ksft_print_msg("round %d: swapoff/swapon %s: %s\n",
				       round, swap1, strerror(errno));
			failed++;
		}
	}
	bad = sp_verify(buf, len);
	ksft_print_msg("%d rounds on %s%s%s, %d during reads: %ld read, %ld stale, %zu bad pages\n",
		       round, swap1, swap2 ? " and " : "", swap2 ? swap2 : "",
		       overlapped, sp_vmstat("swap_prefetch_read_pages") - read0,
		       sp_vmstat("swap_prefetch_stale_pages") - stale0, bad);
	if (access(TRACKED, R_OK)) {
		ksft_print_msg("no %s: tracked entries not checked\n", TRACKED);
	} else {
		ksft_print_msg("entries of swapped-off devices: %ld before swapoff, %ld after\n",
			       purged, left);
		/* Nothing tracked at any swapoff would have checked nothing. */
		failed += left || !purged;
	}
	ksft_test_result(!failed && !bad && overlapped, "%s\n", name);
	munmap(buf, len);
	move_self(CGROUP_ROOT);
}

/*
 * memory.stat against memory.current and memory.swap.current: prefetched
 * pages are swap cache charged to the group, and keep their swap slot.
 * The stat may lag by a flush batch (64 pages per CPU).
 */
static bool memcg_stat_consistent(void)
{
	const char *stat = CGROUP_STRESS "/memory.stat";
	long slack = 64L * getpagesize() * sysconf(_SC_NPROCESSORS_ONLN);
	long anon = sp_keyed(stat, "anon");
	long cached = sp_keyed(stat, "swapcached");
	long cur = read_long(CGROUP_STRESS "/memory.current");
	long swap = read_long(CGROUP_STRESS "/memory.swap.current");

	ksft_print_msg("KiB: memory.stat anon %ld swapcached %ld, current %ld, swap.current %ld\n",
		       anon >> 10, cached >> 10, cur >> 10, swap >> 10);
	return anon >= 0 && cached >= 0 && cur >= 0 && swap >= 0 &&
	       anon <= cur + slack && cached <= cur + slack &&
	       cached <= swap + slack;
}

/* A child of the group fills 48 MiB with a 24 MiB limit, waits, checks. */
static void test_memcg_limit(void)
{
	const char *name = "prefetch keeps a memcg under memory.max, no OOM";
	long max = 24 << 20, peak = 0, cur, max0, oom0, swapped;
	long max_idle, oom_idle;
	int ready[2], done[2], status, i;
	bool stat_ok;
	char go;
	pid_t pid;

	if (!make_cgroup(CGROUP_STRESS, "25165824", "max")) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	fast_prefetch(true);
	if (pipe(ready) || pipe(done))
		ksft_exit_fail_msg("pipe\n");
	pid = fork();
	if (!pid) {
		size_t len = 48 << 20;
		char *buf;

		enter_cgroup(CGROUP_STRESS);
		buf = sp_alloc(len);
		sp_fill(buf, len);
		write(ready[1], "x", 1);
		/* Wait for the parent, then check every page. */
		read(done[0], &go, 1);
		_exit(sp_verify(buf, len) ? 1 : 0);
	}
	read(ready[0], &go, 1);
	max0 = sp_keyed(CGROUP_STRESS "/memory.events", "max");
	oom0 = sp_keyed(CGROUP_STRESS "/memory.events", "oom_kill");
	swapped = read_long(CGROUP_STRESS "/memory.swap.current");
	/* Idle for a while: prefetch may run, but must keep out of the group. */
	for (i = 0; i < 80; i++) {
		cur = read_long(CGROUP_STRESS "/memory.current");
		if (cur > peak)
			peak = cur;
		usleep(100000);
	}
	/* Before the child touches its set again, which hits the limit. */
	max_idle = sp_keyed(CGROUP_STRESS "/memory.events", "max") - max0;
	oom_idle = sp_keyed(CGROUP_STRESS "/memory.events", "oom_kill") - oom0;
	stat_ok = memcg_stat_consistent();
	ksft_print_msg("swapped %ld KiB; memory.current peak %ld KiB of %ld\n",
		       swapped >> 10, peak >> 10, max >> 10);
	ksft_print_msg("while idle: max events +%ld, oom_kill +%ld\n",
		       max_idle, oom_idle);
	write(done[1], "x", 1);
	waitpid(pid, &status, 0);
	ksft_test_result(swapped > 0 && peak <= max && !max_idle && !oom_idle && stat_ok &&
			 sp_keyed(CGROUP_STRESS "/memory.events", "oom_kill") == 0 &&
			 WIFEXITED(status) && !WEXITSTATUS(status),
			 "%s\n", name);
	for (i = 0; i < 2; i++) {
		close(ready[i]);
		close(done[i]);
	}
	rmdir(CGROUP_STRESS);
}

/*
 * OOM kills in a small group whose job needs twice its memory and swap:
 * only its tasks are candidates, so each job costs exactly one kill
 * unless something else, such as prefetch, adds pressure.
 */
static long oom_kills(bool prefetch)
{
	const char *grp = CGROUP_STRESS "_oom";
	long before, after;
	int i;

	fast_prefetch(prefetch);
	if (!make_cgroup(grp, "33554432", "16777216"))
		return -1;
	before = sp_keyed("/proc/vmstat", "oom_kill");
	for (i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (!pid) {
			enter_cgroup(grp);
			sp_run_hog(96);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		usleep(500000);
	}
	after = sp_keyed("/proc/vmstat", "oom_kill");
	rmdir(grp);
	return after - before;
}

static void test_oom(void)
{
	const char *name = "prefetch adds no OOM kill and loses no page";
	size_t len = ws_mib << 20;
	long off, on;
	char *buf;

	if (!make_cgroup(CGROUP_SQUEEZE, "max", "max")) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	/* A swapped-out set gives prefetch work while the jobs run. */
	move_self(CGROUP_SQUEEZE);
	buf = sp_alloc(len);
	sp_fill(buf, len);
	fast_prefetch(false);
	squeeze_out();
	off = oom_kills(false);
	squeeze_out();
	on = oom_kills(true);
	move_self(CGROUP_ROOT);
	ksft_print_msg("OOM kills for 3 jobs: %ld with prefetch off, %ld on\n",
		       off, on);
	ksft_test_result(off >= 0 && on >= 0 && on <= off &&
			 !sp_verify(buf, len), "%s\n", name);
	munmap(buf, len);
}

static int fault_set(const char *attr, const char *val)
{
	char path[128];
	int ret = 0;

	snprintf(path, sizeof(path), FAULT_DIR "failslab/%s", attr);
	ret |= sp_write(path, val);
	snprintf(path, sizeof(path), FAULT_DIR "fail_page_alloc/%s", attr);
	ret |= sp_write(path, val);
	return ret;
}

/* Mark tasks by name for fault injection (task-filter); how many. */
static int make_it_fail(const char *comm, const char *val)
{
	char path[300], name[64];
	struct dirent *de;
	int n = 0, fd;
	ssize_t len;
	DIR *proc = opendir("/proc");

	if (!proc)
		return 0;
	while ((de = readdir(proc))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (len <= 0)
			continue;
		name[len] = 0;
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, comm))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/make-it-fail", de->d_name);
		n += !sp_write(path, val);
	}
	closedir(proc);
	return n;
}

static void test_fault_injection(void)
{
	const char *name = "allocation failures in kprefetchd and kswapd lose no page";
	long nomem0 = sp_vmstat("swap_prefetch_nomem_pages");
	long read0 = sp_vmstat("swap_prefetch_read_pages");
	long recycled0 = sp_vmstat("swap_prefetch_recycled_pages");
	size_t len = ws_mib << 20, pages = len / sp_page_size(), bad, swapped;
	int tries, marked;
	char *buf;

	if (!make_cgroup(CGROUP_SQUEEZE, "max", "max")) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	if (access(FAULT_DIR "failslab/probability", W_OK) &&
	    access("/sys/kernel/debug", F_OK) == 0)
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(FAULT_DIR "failslab/probability", W_OK) ||
	    access(FAULT_DIR "fail_page_alloc/probability", W_OK)) {
		ksft_test_result_skip("%s: no failslab/fail_page_alloc in debugfs\n",
				      name);
		return;
	}
	fast_prefetch(true);
	move_self(CGROUP_SQUEEZE);
	buf = sp_alloc(len);
	sp_fill(buf, len);
	/*
	 * Only marked tasks fail: kprefetchd, kswapd, and a child that only
	 * squeezes; never this process, whose failed faults would OOM.
	 */
	fault_set("task-filter", "Y");
	fault_set("verbose", "0");
	fault_set("interval", "1");
	fault_set("times", "-1");
	fault_set("probability", "20");
	sp_write(FAULT_DIR "failslab/ignore-gfp-wait", "N");
	sp_write(FAULT_DIR "fail_page_alloc/ignore-gfp-wait", "N");
	sp_write(FAULT_DIR "fail_page_alloc/ignore-gfp-highmem", "N");
	marked = make_it_fail("kprefetchd", "1") + make_it_fail("kswapd0", "1");
	/*
	 * A marked child squeezes the group, so reclaim records in its
	 * context; its own syscalls may fail, so it tries until the set is
	 * out.  One CI run needed 7 tries, another got nothing out in 20.
	 */
	for (tries = 0; tries < 60 && sp_count_swapped(buf, len) < pages / 2; tries++) {
		if (!fork()) {
			sp_write("/proc/self/make-it-fail", "1");
			sp_write(CGROUP_SQUEEZE "/memory.max", "4194304");
			_exit(0);
		}
		wait(NULL);
	}
	swapped = sp_count_swapped(buf, len);
	sp_write(CGROUP_SQUEEZE "/memory.max", "max");
	sleep(6);
	make_it_fail("kprefetchd", "0");
	make_it_fail("kswapd0", "0");
	fault_set("probability", "0");
	bad = sp_verify(buf, len);
	ksft_print_msg("20%% of allocations failing in %d threads: %zu of %zu out, %d squeezes\n",
		       marked, swapped, pages, tries);
	ksft_print_msg("%ld read, %ld not recorded, %ld recycled, %zu bad pages\n",
		       sp_vmstat("swap_prefetch_read_pages") - read0,
		       sp_vmstat("swap_prefetch_nomem_pages") - nomem0,
		       sp_vmstat("swap_prefetch_recycled_pages") - recycled0,
		       bad);
	if (swapped < pages / 2 && !bad)
		ksft_test_result_skip("%s: the set did not go out in %d squeezes\n",
				      name, tries);
	else
		ksft_test_result(marked == 2 && swapped >= pages / 2 && !bad,
				 "%s\n", name);
	munmap(buf, len);
	move_self(CGROUP_ROOT);
}

/*
 * Each child checks random pages of its set in bursts of half a second,
 * resting three seconds in between: prefetch reads during the rests, and
 * the next burst faults on what it brought back.
 */
static pid_t start_checker(size_t len, unsigned int seed)
{
	pid_t pid = fork();
	size_t pages = len / sp_page_size(), bad = 0;
	char *buf;

	if (pid)
		return pid;
	buf = sp_alloc(len);
	sp_fill(buf, len);
	srand(seed);
	for (;;) {
		double rest_at = sp_now() + 0.5;
		size_t p, w;

		while (sp_now() < rest_at) {
			p = rand() % pages;
			for (w = 0; w < sp_page_size() / sizeof(uint64_t); w++)
				if (((uint64_t *)(buf + p * sp_page_size()))[w] !=
				    sp_pattern(p, w)) {
					bad++;
					break;
				}
		}
		if (getppid() == 1 || access("/tmp/sp_stress_stop", F_OK) == 0)
			break;
		sleep(3);
	}
	bad += sp_verify(buf, len);
	_exit(bad ? 1 : 0);
}

static void test_churn(unsigned int seconds)
{
	const char *name = "checksummed sets survive swap churn with prefetch";
	pid_t pids[3];
	int i, status, failed = 0;
	double end = sp_now() + seconds;
	long read0 = sp_vmstat("swap_prefetch_read_pages"), r0 = read0;
	unsigned int bursts = 0, overlapped = 0;
	int t;

	if (!make_cgroup(CGROUP_SQUEEZE, "max", "max")) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	unlink("/tmp/sp_stress_stop");
	fast_prefetch(true);
	/* The checkers are born in the group, so their sets are charged there. */
	move_self(CGROUP_SQUEEZE);
	for (i = 0; i < 3; i++)
		pids[i] = start_checker(ws_mib << 20, i + 1);
	move_self(CGROUP_ROOT);
	sleep(1);
	/*
	 * A second of thrashing in half of the sets' size, then idle long
	 * enough for prefetch to bring them back, again and again.
	 */
	while (sp_now() < end) {
		char limit[32];

		snprintf(limit, sizeof(limit), "%zu", (ws_mib << 20) * 3 / 2);
		sp_write(CGROUP_SQUEEZE "/memory.max", limit);
		sleep(1);
		sp_write(CGROUP_SQUEEZE "/memory.max", "max");
		bursts++;
		/* Give kprefetchd a chance to read between the checkers' bursts. */
		for (t = 0; t < 80 && sp_vmstat("swap_prefetch_read_pages") == r0; t++)
			usleep(100000);
		overlapped += sp_vmstat("swap_prefetch_read_pages") != r0;
		r0 = sp_vmstat("swap_prefetch_read_pages");
	}
	close(open("/tmp/sp_stress_stop", O_CREAT | O_WRONLY, 0600));
	for (i = 0; i < 3; i++) {
		waitpid(pids[i], &status, 0);
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	unlink("/tmp/sp_stress_stop");
	ksft_print_msg("%u squeezes in %u s, %u then read; %d of 3 sets corrupted; %ld read\n",
		       bursts, seconds, overlapped, failed,
		       sp_vmstat("swap_prefetch_read_pages") - read0);
	ksft_test_result(!failed, "%s\n", name);
}

int main(int argc, char **argv)
{
	const char *env;
	unsigned int seconds = 30;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (access(SP_KNOBS "enabled", F_OK))
		ksft_exit_skip("no " SP_KNOBS ": kernel without CONFIG_SWAP_PREFETCH\n");
	if (!find_swap_device())
		ksft_exit_skip("no swap is on\n");
	swap2 = getenv("SP_SWAP2");
	if (swap2 && swapon(swap2, SWAP_FLAG_PREFER | 10) && errno != EBUSY)
		ksft_exit_fail_msg("swapon %s: %s (run mkswap on it first)\n",
				   swap2, strerror(errno));
	env = getenv("SP_STRESS_SECONDS");
	if (env)
		seconds = strtoul(env, NULL, 0);
	/* Sets of an eighth of RAM, so that swapoff always has room. */
	ws_mib = sp_meminfo("MemTotal") / 1024 / 8;

	ksft_set_plan(5);
	test_swapoff_loop();
	test_memcg_limit();
	test_oom();
	test_fault_injection();
	test_churn(seconds);
	rmdir(CGROUP_SQUEEZE);
	set_knob("enabled", "1");
	ksft_finished();
}
