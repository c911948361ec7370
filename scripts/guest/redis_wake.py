#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The client side of the Debian guest's application benchmark, with
redis-py (Debian's python3-redis) over the server's unix socket.

load: fill the server with W MiB of 64 KiB values, each derived from its
key so that a read can be checked.  pass: read every key once, in key
order, as a user coming back to the application would; print the time of
the whole pass, request latency percentiles and the values that did not
match.  sample: log the server's resident and swapped memory and the swap cache
every half second until it exits, from one process (a shell loop forking every half
second would look like foreground activity to kprefetchd).  willneed: an
agent's second step - process_madvise(MADV_WILLNEED) over the server's
private writable mappings, from outside it (root); prints its time.
"""

import argparse
import ctypes
import hashlib
import os
import sys
import time

import redis

VALUE_BYTES = 65536


def key(i):
    return f"w:{i:07d}"


def value(k):
    return hashlib.blake2b(k.encode(), digest_size=64).digest() * (VALUE_BYTES // 64)


def load(r, mib):
    n = mib * 1024 * 1024 // VALUE_BYTES
    pipe = r.pipeline(transaction=False)
    for i in range(n):
        k = key(i)
        pipe.set(k, value(k))
        if i % 64 == 63:
            pipe.execute()
    pipe.execute()
    got = r.dbsize()
    if got != n:
        sys.exit(f"redis_wake: loaded {got} keys, wanted {n}")


def percentile(sorted_xs, p):
    return sorted_xs[min(len(sorted_xs) - 1, int(len(sorted_xs) * p / 100))]


def full_pass(r):
    n = r.dbsize()
    lat = []
    bad = 0
    t0 = time.perf_counter()
    for i in range(n):
        k = key(i)
        s = time.perf_counter()
        v = r.get(k)
        lat.append(time.perf_counter() - s)
        if v != value(k):
            bad += 1
    total = time.perf_counter() - t0
    if not n:
        sys.exit("redis_wake: the server holds no keys")
    lat.sort()
    print(f"requests={n} pass_s={total:.3f} "
          f"p50_ms={percentile(lat, 50) * 1e3:.3f} "
          f"p99_ms={percentile(lat, 99) * 1e3:.3f} "
          f"max_ms={lat[-1] * 1e3:.3f} bad_values={bad}")


def status_kib(pid):
    rss = swap = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmSwap:"):
                swap = int(line.split()[1])
    return rss, swap


def swap_cached_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("SwapCached:"):
                return int(line.split()[1])
    return 0


def sample(pid, label, out):
    t0 = time.monotonic()
    with open(out, "a") as f:
        while True:
            try:
                rss, swap = status_kib(pid)
            except (FileNotFoundError, ProcessLookupError):
                return
            ms = int((time.monotonic() - t0) * 1000)
            # Prefetched pages are swap cache, not RSS, until touched.
            f.write(f"{label} {ms} {rss} {swap} {swap_cached_kib()}\n")
            f.flush()
            time.sleep(0.5)


# x86_64 system call numbers (the guest's), and MADV_WILLNEED.
SYS_PIDFD_OPEN = 434
SYS_PROCESS_MADVISE = 440
MADV_WILLNEED = 3
IOV_MAX = 1024


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def private_writable(pid):
    """The server's private writable mappings: its heap and anonymous memory."""
    spans = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            if fields[1].startswith("rw") and fields[1][3] == "p":
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                spans.append((lo, hi - lo))
    return spans


def willneed(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        sys.exit(f"redis_wake: pidfd_open({pid}): {os.strerror(ctypes.get_errno())}")
    spans = private_writable(pid)
    t0 = time.perf_counter()
    for i in range(0, len(spans), IOV_MAX):
        part = spans[i:i + IOV_MAX]
        iov = (Iovec * len(part))(*[Iovec(lo, n) for lo, n in part])
        if libc.syscall(SYS_PROCESS_MADVISE, pidfd, iov, len(part),
                        MADV_WILLNEED, 0) < 0:
            sys.exit("redis_wake: process_madvise: "
                     f"{os.strerror(ctypes.get_errno())}")
    os.close(pidfd)
    print(f"willneed_s={time.perf_counter() - t0:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sock", required=True, help="the server's unix socket")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ld = sub.add_parser("load", help="fill the server")
    ld.add_argument("--mib", type=int, required=True, help="dataset size")
    sub.add_parser("pass", help="read every key once and report")
    sm = sub.add_parser("sample", help="log the server's memory")
    sm.add_argument("--pid", type=int, required=True)
    sm.add_argument("--label", required=True)
    sm.add_argument("--out", required=True)
    wn = sub.add_parser("willneed", help="MADV_WILLNEED the server's memory")
    wn.add_argument("--pid", type=int, required=True)
    args = ap.parse_args()
    if args.cmd == "sample":
        sample(args.pid, args.label, args.out)
        return
    if args.cmd == "willneed":
        willneed(args.pid)
        return
    r = redis.Redis(unix_socket_path=args.sock)
    if args.cmd == "load":
        load(r, args.mib)
    else:
        full_pass(r)


if __name__ == "__main__":
    main()
