/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the swap prefetch selftest and benchmark: where the
 * pages of a buffer are (mincore() + pagemap), /proc/vmstat counters,
 * the data pattern, and a memory hog that pushes the buffer to swap.
 */
#ifndef SP_UTIL_H
#define SP_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The knobs: enabled, delay_ms, interval_ms, batch_kb, adaptive. */
#define SP_KNOBS	"/sys/kernel/mm/swap_prefetch/"

#define PM_SWAP		0x4000000000000000ULL	/* bit 62 */
#define PM_PRESENT	0x8000000000000000ULL	/* bit 63 */

static inline size_t sp_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline double sp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int sp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values; sorts @v. */
static inline double sp_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), sp_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline long sp_majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* A value of a "key value" file (vmstat, memory.events), or -1. */
static inline long sp_keyed(const char *path, const char *name)
{
	char key[64];
	long val, ret = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &val) == 2)
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	fclose(f);
	return ret;
}

/* The number a file holds (memory.current, a knob), or -1. */
static inline long sp_read_long(const char *path)
{
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%li", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

/* Is the multi-gen LRU on?  False without CONFIG_LRU_GEN. */
static inline bool sp_mglru_on(void)
{
	return sp_read_long("/sys/kernel/mm/lru_gen/enabled") > 0;
}

/* A /proc/vmstat counter, or -1 if the kernel has no such counter. */
static inline long sp_vmstat(const char *name)
{
	return sp_keyed("/proc/vmstat", name);
}

/*
 * What became of prefetched pages: used, reclaimed unused, freed unused
 * (the owner let go of the slot).  -1 each on a kernel without them.
 */
static inline void sp_usefulness(long *val)
{
	val[0] = sp_vmstat("swap_prefetch_used_pages");
	val[1] = sp_vmstat("swap_prefetch_unused_reclaimed_pages");
	val[2] = sp_vmstat("swap_prefetch_unused_freed_pages");
}

/* Write a value; returns 0 or -errno, as the kernel answered. */
static inline int sp_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A /proc/meminfo field in KiB, or -1. */
static inline long sp_meminfo(const char *name)
{
	char line[128];
	size_t n = strlen(name);
	long ret = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			ret = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return ret;
}

/* Pages of [buf, buf + len) in memory: mapped, or in the swap cache. */
static inline size_t sp_count_resident(char *buf, size_t len)
{
	size_t pages = len / sp_page_size(), i, n = 0;
	unsigned char *vec = malloc(pages);

	if (!vec || mincore(buf, len, vec)) {
		perror("mincore");
		exit(2);
	}
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

/* The pagemap entries of [buf, buf + len), to be freed; exits on error. */
static inline uint64_t *sp_pagemap(char *buf, size_t len)
{
	size_t psz = sp_page_size(), pages = len / psz;
	uint64_t *pm = malloc(pages * sizeof(*pm));
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t off = (uintptr_t)buf / psz * sizeof(*pm);

	if (!pm || fd < 0 ||
	    pread(fd, pm, pages * sizeof(*pm), off) != (ssize_t)(pages * sizeof(*pm))) {
		perror("pagemap");
		exit(2);
	}
	close(fd);
	return pm;
}

/* Pages of [buf, buf + len) whose PTE is a swap entry (not mapped). */
static inline size_t sp_count_swapped(char *buf, size_t len)
{
	size_t pages = len / sp_page_size(), i, n = 0;
	uint64_t *pm = sp_pagemap(buf, len);

	for (i = 0; i < pages; i++)
		n += (pm[i] & PM_SWAP) && !(pm[i] & PM_PRESENT);
	free(pm);
	return n;
}

static inline uint64_t sp_pattern(size_t page, size_t word)
{
	return (page * 0x9e3779b97f4a7c15ULL) ^ (word + 0x5bd1e995);
}

static inline void sp_fill(char *buf, size_t len)
{
	size_t psz = sp_page_size(), p, w, words = psz / sizeof(uint64_t);

	for (p = 0; p < len / psz; p++)
		for (w = 0; w < words; w++)
			((uint64_t *)(buf + p * psz))[w] = sp_pattern(p, w);
}

/* Pages whose content is not the pattern any more. */
static inline size_t sp_verify(char *buf, size_t len)
{
	size_t psz = sp_page_size(), p, w, bad = 0;
	size_t words = psz / sizeof(uint64_t);

	for (p = 0; p < len / psz; p++)
		for (w = 0; w < words; w++)
			if (((uint64_t *)(buf + p * psz))[w] != sp_pattern(p, w)) {
				bad++;
				break;
			}
	return bad;
}

/* Read one word per page, as an application waking up would. */
static inline double sp_retouch(char *buf, size_t len)
{
	size_t psz = sp_page_size(), p;
	double t0 = sp_now();
	uint64_t sum = 0;

	for (p = 0; p < len / psz; p++)
		sum += *(uint64_t *)(buf + p * psz);
	/* Keep the compiler from dropping the loads. */
	asm volatile("" : : "r" (sum));
	return sp_now() - t0;
}

static inline char *sp_alloc(size_t len)
{
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return buf;
}

/* Write one byte of every page of @buf: a hog's way of making it resident. */
static inline void sp_touch_pages(char *buf, size_t len)
{
	size_t i, psz = sp_page_size();

	for (i = 0; i < len; i += psz)
		buf[i] = 1;
}

/* A job that needs most of RAM for a moment, then exits. */
static inline int sp_run_hog(size_t mib)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		size_t len = mib << 20;
		char *h = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (h == MAP_FAILED)
			_exit(1);
		sp_touch_pages(h, len);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) ? -1 : 0;
}

#endif /* SP_UTIL_H */
