// SPDX-License-Identifier: GPL-2.0
/*
 * Swap prefetch selftests: drive real swap pressure and check that
 * kprefetchd brings the working set back when idle, keeps it on swap,
 * backs off under foreground work, is cheap to drop, and is off when off.
 *
 * Needs root, swap, and a kernel with CONFIG_SWAP_PREFETCH; skips
 * otherwise.  The working set is 32 MiB and the hog as large as RAM, which
 * suits a small VM; SP_WS_MIB and SP_HOG_MIB (in MiB) override them.
 * Test names as arguments run only those tests (see tests[] below).
 * SP_SCRATCH names a block device or a file on a disk filesystem that the
 * writeback test may overwrite (default: a file in /var/tmp, if that is
 * on a disk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "../kselftest.h"
#include "sp_util.h"

#define SYSCTL_DIR	"/proc/sys/vm/"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_TEST	CGROUP_ROOT "/swap_prefetch_test"

static size_t ws_mib = 32, hog_mib;

static const char * const tunables[] = {
	"swap_prefetch", "swap_prefetch_delay_ms", "swap_prefetch_interval_ms",
	"swap_prefetch_batch", "swap_prefetch_adaptive",
};

static char saved[ARRAY_SIZE(tunables)][32];

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int set_vm(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	return sp_write(path, val);
}

static long get_vm(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static void restore_tunables(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tunables); i++)
		if (saved[i][0])
			set_vm(tunables[i], saved[i]);
	rmdir(CGROUP_TEST);
}

static void restore_on_signal(int sig)
{
	restore_tunables();
	_exit(KSFT_FAIL);
}

static void save_tunables(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tunables); i++) {
		snprintf(path, sizeof(path), SYSCTL_DIR "%s", tunables[i]);
		if (read_file(path, saved[i], sizeof(saved[i])))
			ksft_exit_fail_msg("cannot read %s\n", path);
	}
	atexit(restore_tunables);
	signal(SIGINT, restore_on_signal);
	signal(SIGTERM, restore_on_signal);
}

/* Short delays so that each test waits seconds, not minutes. */
static void fast_pacing(int enabled)
{
	set_vm("swap_prefetch_delay_ms", "1000");
	set_vm("swap_prefetch_interval_ms", "200");
	set_vm("swap_prefetch_batch", "256");
	set_vm("swap_prefetch_adaptive", "1");
	set_vm("swap_prefetch", enabled ? "1" : "0");
}

struct ws {
	char *buf;
	size_t len, pages;
};

/* A working set, pushed out by a hog; false if too little left RAM. */
static bool ws_swap_out(struct ws *w)
{
	size_t swapped;

	w->len = ws_mib << 20;
	w->pages = w->len / sp_page_size();
	w->buf = sp_alloc(w->len);
	sp_fill(w->buf, w->len);
	if (sp_run_hog(hog_mib))
		ksft_exit_fail_msg("memory hog failed\n");
	swapped = sp_count_swapped(w->buf, w->len);
	ksft_print_msg("%zu of %zu pages swapped out, %zu resident\n",
		       swapped, w->pages, sp_count_resident(w->buf, w->len));
	return swapped >= w->pages / 2;
}

static void ws_free(struct ws *w)
{
	munmap(w->buf, w->len);
}

/* Set pacing, swap a set out; if the hog could not, report a skip. */
static bool swapped_out_or_skip(struct ws *w, int enabled, const char *name)
{
	fast_pacing(enabled);
	if (ws_swap_out(w))
		return true;
	ws_free(w);
	ksft_test_result_skip("%s: hog did not push the set out\n", name);
	return false;
}

static const char * const counters[] = {
	"swap_prefetch_recorded", "swap_prefetch_read", "swap_prefetch_stale",
	"swap_prefetch_skipped", "swap_prefetch_delayed", "pswpout", "pgmajfault",
};

static void read_counters(long *val)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters); i++)
		val[i] = sp_vmstat(counters[i]);
}

/* Wait until @pct of the set is back, polling; seconds taken or -1. */
static int wait_resident(struct ws *w, unsigned int pct, int timeout_s)
{
	long before[ARRAY_SIZE(counters)], after[ARRAY_SIZE(counters)];
	size_t i;
	int s;

	read_counters(before);
	for (s = 0; s <= timeout_s; s++) {
		if (sp_count_resident(w->buf, w->len) * 100 >= w->pages * pct)
			return s;
		sleep(1);
	}
	/* Say why, for whoever reads the TAP log. */
	read_counters(after);
	ksft_print_msg("%zu of %zu pages back after %d s; MemFree %ld KiB\n",
		       sp_count_resident(w->buf, w->len), w->pages, timeout_s,
		       sp_meminfo("MemFree"));
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		ksft_print_msg("  %s +%ld\n", counters[i], after[i] - before[i]);
	return -1;
}

static long swap_used_kib(void)
{
	return sp_meminfo("SwapTotal") - sp_meminfo("SwapFree");
}

static void test_prefetch_happens_hog(void)
{
	const char *name = "prefetch happens after a hog, pages stay on swap";
	long read0 = sp_vmstat("swap_prefetch_read"), used0, used1;
	struct ws w;
	size_t swapped;
	int s;

	if (!swapped_out_or_skip(&w, 1, name))
		return;
	used0 = swap_used_kib();
	swapped = sp_count_swapped(w.buf, w.len);
	s = wait_resident(&w, 90, 60);
	used1 = swap_used_kib();
	ksft_print_msg("back after %d s; read %ld pages; swap used %ld -> %ld KiB\n",
		       s, sp_vmstat("swap_prefetch_read") - read0, used0, used1);
	ksft_print_msg("swap PTEs: %zu, were %zu\n",
		       sp_count_swapped(w.buf, w.len), swapped);
	/*
	 * Prefetch fills the swap cache without mapping: the PTEs stay swap
	 * entries and the swap slots stay in use.
	 */
	ksft_test_result(s >= 0 && used1 >= used0 * 9 / 10 &&
			 sp_count_swapped(w.buf, w.len) >= swapped * 9 / 10 &&
			 sp_verify(w.buf, w.len) == 0, "%s\n", name);
	ws_free(&w);
}

static int cgroup_enter(const char *path)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return sp_write(path, pid);
}

/* Move into a fresh memory cgroup of our own; false if there is none. */
static bool enter_test_cgroup(void)
{
	return !sp_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory") &&
	       !(mkdir(CGROUP_TEST, 0755) && errno != EEXIST) &&
	       !cgroup_enter(CGROUP_TEST "/cgroup.procs");
}

static void test_prefetch_happens_memcg(void)
{
	const char *name = "prefetch happens after a memory.max squeeze";
	char limit[32];
	struct ws w;
	size_t swapped;
	int s;

	fast_pacing(1);
	if (!enter_test_cgroup()) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	w.len = ws_mib << 20;
	w.pages = w.len / sp_page_size();
	w.buf = sp_alloc(w.len);
	/* A quarter of the set fits: the rest goes to swap as it is written. */
	snprintf(limit, sizeof(limit), "%zu", w.len / 4);
	sp_write(CGROUP_TEST "/memory.max", limit);
	sp_fill(w.buf, w.len);
	swapped = sp_count_swapped(w.buf, w.len);
	/* The squeeze ends: the group may grow again, and goes idle. */
	sp_write(CGROUP_TEST "/memory.max", "max");
	s = wait_resident(&w, 90, 60);
	ksft_print_msg("%zu of %zu pages swapped by the squeeze, back after %d s\n",
		       swapped, w.pages, s);
	ksft_test_result(swapped >= w.pages / 2 && s >= 0 &&
			 sp_verify(w.buf, w.len) == 0, "%s\n", name);
	ws_free(&w);
	cgroup_enter(CGROUP_ROOT "/cgroup.procs");
	rmdir(CGROUP_TEST);
}

/* Major faults to re-touch a swapped-out set after an idle period. */
static long refault_after_idle(int enabled, unsigned int idle_s)
{
	struct ws w;
	long flt0, flt;

	fast_pacing(enabled);
	if (!ws_swap_out(&w)) {
		ws_free(&w);
		return -1;
	}
	sleep(idle_s);
	flt0 = sp_majflt();
	sp_retouch(w.buf, w.len);
	flt = sp_majflt() - flt0;
	if (sp_verify(w.buf, w.len))
		flt = -2;
	ws_free(&w);
	return flt;
}

static void test_refault_latency(void)
{
	const char *name = "fewer major faults after idle with prefetch";
	long off = refault_after_idle(0, 20), on = refault_after_idle(1, 20);

	ksft_print_msg("major faults re-touching %zu MiB: %ld without, %ld with prefetch\n",
		       ws_mib, off, on);
	if (off == -1 || on == -1) {
		ksft_test_result_skip("%s: hog did not push the set out\n", name);
		return;
	}
	/* Direction and a generous margin, not a time. */
	ksft_test_result(off > 0 && on >= 0 && on * 4 < off, "%s\n", name);
}

/* Keep swapping until killed: a foreground job that never idles. */
static pid_t start_foreground_swapper(void)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;)
			sp_run_hog(hog_mib);
	}
	return pid;
}

static void test_backs_off(void)
{
	const char *name = "reads nothing while the foreground swaps, resumes after";
	long during, after, read0;
	struct ws w;
	pid_t fg;
	int s;

	if (!swapped_out_or_skip(&w, 1, name))
		return;
	fg = start_foreground_swapper();
	/* Let the first swap-out of the job register as activity. */
	sleep(1);
	read0 = sp_vmstat("swap_prefetch_read");
	sleep(10);
	during = sp_vmstat("swap_prefetch_read") - read0;
	kill(fg, SIGKILL);
	waitpid(fg, NULL, 0);
	read0 = sp_vmstat("swap_prefetch_read");
	s = wait_resident(&w, 50, 60);
	after = sp_vmstat("swap_prefetch_read") - read0;
	ksft_print_msg("read %ld pages during 10 s of foreground swapping, %ld after (%d s)\n",
		       during, after, s);
	ksft_test_result(during == 0 && after > 0, "%s\n", name);
	ws_free(&w);
}

/*
 * Where the writeback test may write: SP_SCRATCH, or a file in /var/tmp
 * unless that is in memory, where nothing is ever written back.
 */
static int open_scratch(void)
{
	const char *path = getenv("SP_SCRATCH");
	struct statfs fs;

	if (!path) {
		path = "/var/tmp/swap_prefetch_scratch";
		if (statfs("/var/tmp", &fs) || fs.f_type == 0x01021994 ||
		    fs.f_type == 0x858458f6)	/* tmpfs, ramfs */
			return -1;
	}
	return open(path, O_WRONLY | O_CREAT, 0600);
}

/* Rewrite the same 8 MiB and fsync it until killed: writeback, no swap. */
static pid_t start_foreground_writer(int fd)
{
	const size_t len = 8 << 20;
	unsigned int round = 0;
	pid_t pid = fork();
	char *buf;

	if (pid)
		return pid;
	buf = malloc(len);
	if (!buf)
		_exit(1);
	for (;;) {
		memset(buf, ++round, len);
		if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd))
			_exit(1);
	}
}

static void test_backs_off_writeback(void)
{
	const char *name = "reads nothing while the foreground writes back, resumes after";
	long during, after, read0, wb_peak = 0;
	struct ws w;
	int fd, s, i;
	pid_t fg;

	fd = open_scratch();
	if (fd < 0) {
		ksft_test_result_skip("%s: no disk to write to (set SP_SCRATCH)\n",
				      name);
		return;
	}
	if (!swapped_out_or_skip(&w, 1, name)) {
		close(fd);
		return;
	}
	fg = start_foreground_writer(fd);
	sleep(1);
	read0 = sp_vmstat("swap_prefetch_read");
	for (i = 0; i < 20; i++) {
		long wb = sp_meminfo("Writeback") + sp_meminfo("Dirty");

		if (wb > wb_peak)
			wb_peak = wb;
		usleep(500000);
	}
	during = sp_vmstat("swap_prefetch_read") - read0;
	kill(fg, SIGKILL);
	waitpid(fg, NULL, 0);
	/* What the writer left dirty would hold prefetch for dirty_expire. */
	fsync(fd);
	close(fd);
	read0 = sp_vmstat("swap_prefetch_read");
	s = wait_resident(&w, 50, 60);
	after = sp_vmstat("swap_prefetch_read") - read0;
	ksft_print_msg("dirty + writeback up to %ld KiB\n", wb_peak);
	ksft_print_msg("read %ld pages during 10 s of writeback, %ld after (%d s)\n",
		       during, after, s);
	if (wb_peak < 1024)
		ksft_test_result_skip("%s: the writer made no writeback\n", name);
	else
		ksft_test_result(during == 0 && after > 0, "%s\n", name);
	ws_free(&w);
}

#define TRACING		"/sys/kernel/tracing/"
#define TRACE_EVENTS	TRACING "events/swap_prefetch/"

/* A whole tracefs file as one string; the caller frees it. */
static char *read_whole(const char *path)
{
	size_t len = 0, size = 1 << 16;
	char *buf = malloc(size + 1);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len)) > 0) {
		len += n;
		if (len == size) {
			char *bigger = realloc(buf, 2 * size + 1);

			if (!bigger)
				break;
			buf = bigger;
			size *= 2;
		}
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/* Does a swap_prefetch_round line report pages read? */
static bool trace_has_round_with_reads(const char *trace)
{
	const char *p = trace;
	unsigned int batch, nr_read;

	while ((p = strstr(p, "swap_prefetch_round: "))) {
		p += strlen("swap_prefetch_round: ");
		if (sscanf(p, "batch=%u read=%u", &batch, &nr_read) == 2 &&
		    nr_read > 0 && nr_read <= batch)
			return true;
	}
	return false;
}

/* One example of an event, for whoever reads the log. */
static void print_first_line(const char *trace, const char *event)
{
	const char *p = strstr(trace, event), *start, *end;

	if (!p)
		return;
	for (start = p; start > trace && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	ksft_print_msg("  %.*s\n", (int)(end ? end - start : (long)strlen(start)),
		       start);
}

static void test_trace_events(void)
{
	const char *name = "trace events report back-offs and rounds";
	bool delay_ok, round_ok, fmt_ok;
	char *trace, *fmt1, *fmt2;
	struct ws w;
	int s;

	if (access(TRACE_EVENTS "enable", W_OK)) {
		ksft_test_result_skip("%s: no tracefs or no swap_prefetch events\n",
				      name);
		return;
	}
	/* Enum names must be resolved to numbers for perf and bpftrace. */
	fmt1 = read_whole(TRACE_EVENTS "swap_prefetch_round/format");
	fmt2 = read_whole(TRACE_EVENTS "swap_prefetch_delay/format");
	fmt_ok = fmt1 && strstr(fmt1, "print fmt") &&
		 !strstr(fmt1, "SWAP_PREFETCH_") &&
		 fmt2 && strstr(fmt2, "print fmt") &&
		 !strstr(fmt2, "SWAP_PREFETCH_");
	free(fmt1);
	free(fmt2);
	/* Opening the buffer for writing with O_TRUNC clears it. */
	close(open(TRACING "trace", O_WRONLY | O_TRUNC));
	sp_write(TRACE_EVENTS "enable", "1");
	if (!swapped_out_or_skip(&w, 1, name)) {
		sp_write(TRACE_EVENTS "enable", "0");
		return;
	}
	s = wait_resident(&w, 50, 60);
	sp_write(TRACE_EVENTS "enable", "0");
	trace = read_whole(TRACING "trace");
	if (!trace)
		ksft_exit_fail_msg("cannot read " TRACING "trace\n");
	/* The hog's swap-out is what held prefetch back. */
	delay_ok = strstr(trace, "verdict=busy activity=") &&
		   strstr(trace, "pswpout");
	round_ok = trace_has_round_with_reads(trace);
	ksft_print_msg("back after %d s; enums resolved: %s, busy on pswpout: %s, reads: %s\n",
		       s, fmt_ok ? "yes" : "no", delay_ok ? "yes" : "no",
		       round_ok ? "yes" : "no");
	print_first_line(trace, "swap_prefetch_delay: ");
	print_first_line(trace, "swap_prefetch_round: ");
	ksft_test_result(fmt_ok && delay_ok && round_ok && s >= 0, "%s\n", name);
	free(trace);
	ws_free(&w);
}

static void test_drops_cheaply(void)
{
	const char *name = "prefetched pages are reclaimed without swap writes";
	size_t mapped, cached, left;
	long out0, out1;
	char limit[32];
	struct ws w;

	fast_pacing(1);
	if (!enter_test_cgroup()) {
		ksft_test_result_skip("%s: no cgroup v2 memory controller\n", name);
		return;
	}
	if (!ws_swap_out(&w) || wait_resident(&w, 90, 60) < 0) {
		ksft_test_result_skip("%s: set not swapped out and prefetched\n", name);
		goto out;
	}
	set_vm("swap_prefetch", "0");
	/* Prefetched: in the swap cache, PTE still a swap entry. */
	cached = sp_count_swapped(w.buf, w.len);
	mapped = w.pages - cached;
	out0 = sp_vmstat("pswpout");
	/* Renewed pressure on this group only: a quarter of the set fits. */
	snprintf(limit, sizeof(limit), "%zu", w.len / 4);
	sp_write(CGROUP_TEST "/memory.max", limit);
	out1 = sp_vmstat("pswpout");
	left = sp_count_resident(w.buf, w.len);
	ksft_print_msg("%zu prefetched + %zu mapped pages; squeeze left %zu, wrote %ld pages\n",
		       cached, mapped, left, out1 - out0);
	/*
	 * Only pages that were mapped (dirty, no swap copy) may need a write;
	 * the prefetched ones still have theirs.
	 */
	ksft_test_result(cached > 0 && left < w.pages / 2 &&
			 out1 - out0 <= (long)(mapped + cached / 10) &&
			 sp_verify(w.buf, w.len) == 0, "%s\n", name);
out:
	sp_write(CGROUP_TEST "/memory.max", "max");
	ws_free(&w);
	cgroup_enter(CGROUP_ROOT "/cgroup.procs");
	rmdir(CGROUP_TEST);
}

static void test_off_means_off(void)
{
	const char *name = "vm.swap_prefetch=0 records and reads nothing";
	long rec0, read0, rec, rd;
	struct ws w;

	fast_pacing(0);
	rec0 = sp_vmstat("swap_prefetch_recorded");
	read0 = sp_vmstat("swap_prefetch_read");
	if (!swapped_out_or_skip(&w, 0, name))
		return;
	sleep(5);
	rec = sp_vmstat("swap_prefetch_recorded") - rec0;
	rd = sp_vmstat("swap_prefetch_read") - read0;
	ksft_print_msg("while off: %ld recorded, %ld read\n", rec, rd);
	ksft_test_result(rec == 0 && rd == 0, "%s\n", name);
	ws_free(&w);
}

static void test_bad_values(void)
{
	static const struct {
		const char *name, *val;
	} bad[] = {
		{ "swap_prefetch", "2" }, { "swap_prefetch", "-1" },
		{ "swap_prefetch", "abc" }, { "swap_prefetch", "4294967297" },
		{ "swap_prefetch_delay_ms", "9" },
		{ "swap_prefetch_delay_ms", "600001" },
		{ "swap_prefetch_interval_ms", "0" },
		{ "swap_prefetch_batch", "0" }, { "swap_prefetch_batch", "1025" },
		{ "swap_prefetch_adaptive", "2" },
	};
	size_t i;
	int ok = 1;

	set_vm("swap_prefetch", "1");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		long before = get_vm(bad[i].name);
		int ret = set_vm(bad[i].name, bad[i].val);

		if (ret != -EINVAL || get_vm(bad[i].name) != before) {
			ksft_print_msg("%s=%s: got %d (%s), value %ld -> %ld\n",
				       bad[i].name, bad[i].val, ret, strerror(-ret),
				       before, get_vm(bad[i].name));
			ok = 0;
		}
	}
	ksft_test_result(ok, "out-of-range and non-numeric values get EINVAL, setting unchanged\n");
}

static void test_unprivileged_write(void)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(set_vm("swap_prefetch", "0") == -EACCES ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		ksft_test_result_skip("unprivileged write refused: cannot drop privileges\n");
		return;
	}
	ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status) &&
			 get_vm("swap_prefetch") == 1,
			 "unprivileged write refused\n");
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "bad_values", test_bad_values },
	{ "unprivileged", test_unprivileged_write },
	{ "off", test_off_means_off },
	{ "hog", test_prefetch_happens_hog },
	{ "memcg", test_prefetch_happens_memcg },
	{ "refault", test_refault_latency },
	{ "backs_off", test_backs_off },
	{ "writeback", test_backs_off_writeback },
	{ "trace", test_trace_events },
	{ "drops", test_drops_cheaply },
};

static bool wanted(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned int selected = 0;
	const char *env;
	size_t i;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (access(SYSCTL_DIR "swap_prefetch", F_OK))
		ksft_exit_skip("no vm.swap_prefetch: kernel without CONFIG_SWAP_PREFETCH\n");
	if (sp_meminfo("SwapTotal") <= 0)
		ksft_exit_skip("no swap is on\n");
	env = getenv("SP_WS_MIB");
	if (env)
		ws_mib = strtoul(env, NULL, 0);
	/* As large as RAM: whatever else was resident has to make room. */
	hog_mib = sp_meminfo("MemTotal") / 1024;
	env = getenv("SP_HOG_MIB");
	if (env)
		hog_mib = strtoul(env, NULL, 0);

	/* Test names on the command line run only those tests. */
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		selected += wanted(tests[i].name, argc, argv);
	if (!selected)
		ksft_exit_fail_msg("no such test; the names are in tests[]\n");
	ksft_set_plan(selected);
	save_tunables();
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (wanted(tests[i].name, argc, argv))
			tests[i].fn();
	ksft_finished();
}
