# SPDX-License-Identifier: GPL-2.0
# Runs inside the Debian guest (bash), started by /sbin/sp-init (itself
# started by systemd, or PID 1): make kselftest against the shared tree,
# then the redis wake-up benchmark.
# W, IDLE, PARTS and SCENARIOS are set by scripts/debian-guest above this
# line.
# Disks: vda root (copy-on-write), vdb swap (throttled), vdc scratch for
# the writeback test (throttled), vdd work space; 9p: src (the patched
# tree, read-only), io (this folder, results go here).
IO=/mnt/io
SOCK=/tmp/redis.sock
vm() { echo "$2" >"/proc/sys/vm/$1"; }
say() { echo "debian: $*"; }

mkswap /dev/vdb >/dev/null && swapon /dev/vdb || { say "no swap"; exit 1; }
# The work disk is kept between runs: make kselftest's headers, built
# once, take 20 minutes under TCG.
mkdir -p /work
mount /dev/vdd /work 2>/dev/null ||
	{ mkfs.ext4 -q -F /dev/vdd && mount /dev/vdd /work; } ||
	{ say "no work disk"; exit 1; }
rm -rf /work/flood
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro \
	src /src || { say "the kernel tree is not shared"; exit 1; }
say "$(grep -E 'MemTotal|SwapTotal' /proc/meminfo | tr -s ' ' | paste -sd' ')"
# Without a usable TSC under TCG the clock ticks in 4 ms steps, and so do
# the latency percentiles: say which clock this boot has.
say "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

run_kselftest() {
	mkdir -p /work/kbuild
	cp "$IO/kernel.config" /work/kbuild/.config
	say "kselftest begin: make -C /src O=/work/kbuild kselftest TARGETS=swap_prefetch"
	t0=$(date +%s)
	# As a kernel CI box runs it: the tree's top-level make, which
	# installs the UAPI headers first; SP_SCRATCH for the writeback test.
	# Through a pipe: the kselftest runner reopens /dev/stdout, which on a
	# plain file would start a second offset writing over make's.
	SP_SCRATCH=/dev/vdc make -C /src O=/work/kbuild -j2 \
		kselftest TARGETS=swap_prefetch 2>&1 | cat >"$IO/kselftest.log"
	rc=${PIPESTATUS[0]}
	say "kselftest exit status $rc after $(($(date +%s) - t0)) s"
	echo "$rc" >"$IO/kselftest.rc"
	show_memory "after make kselftest"
}

# Where the memory is: for whoever reads the console log.
show_memory() {
	say "$1: $(free -m | awk '/^Mem/ { printf "used %d free %d cache %d MiB", $3, $4, $6 }
		/^Swap/ { printf ", swap used %d MiB", $3 }'); largest:" \
		"$(ps -eo rss=,comm= --sort=-rss | head -4 |
		   awk '{ printf "%s %d MiB; ", $2, $1 / 1024 }')"
}

server_majflt() { awk '{ print $12 }' "/proc/$(pidof redis-server)/stat"; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
prefetched() { vmstat swap_prefetch_read_pages; }

# Read every file the server maps (its binary, libc, the loader...) into
# the page cache, as a prefetch of mapped files would: what the server
# still faults on after that is its anonymous memory.
warm_mapped_files() {
	awk '$6 ~ /^\// { print $6 }' "/proc/$(pidof redis-server)/maps" |
		sort -u | while read -r f; do cat "$f" >/dev/null; done
}

start_server() {
	redis-server --port 0 --unixsocket "$SOCK" --save '' \
		--appendonly no --daemonize yes --logfile /tmp/redis.log
	for _ in $(seq 50); do
		[ -S "$SOCK" ] && return 0
		sleep 0.2
	done
	say "redis-server did not start"; cat /tmp/redis.log
	return 1
}

stop_server() {
	pid=$(pidof redis-server) || return 0
	kill "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
}

# The job that needs most of RAM, then exits: anonymous memory, every
# byte written once (stress-ng --vm was seen finishing 0 passes under
# TCG and swapping nothing in one run of a pair)...
job_anon() {
	mib=$(awk '/^MemTotal/ { print int($2 / 1024 * 9 / 10) }' /proc/meminfo)
	python3 -c "import sys; b = b'\\1' * ($mib << 20); sys.exit(len(b) != $mib << 20)" ||
		say "the job failed"
}

# ...or page cache: metadata of the whole root filesystem, then files
# larger than RAM read once, as updatedb plus a backup would.
job_pagecache() {
	find / -xdev >/dev/null 2>&1
	cat /work/flood/* >/dev/null
}

# kprefetchd's decisions during the idle period, from its trace events,
# counted: its verdicts, why its rounds stopped, what it exchanged.
EVENTS=/sys/kernel/tracing/events/swap_prefetch/enable
trace_on() {
	[ -w "$EVENTS" ] || return 0
	: >/sys/kernel/tracing/trace
	echo 1 >"$EVENTS"
}
trace_tally() {
	[ -w "$EVENTS" ] || return 0
	echo 0 >"$EVENTS"
	say "$1 kprefetchd $(grep -oE 'verdict=[a-z_]+|stop=[a-z_]+|activity=[a-z_|]+' \
		/sys/kernel/tracing/trace | sort | uniq -c |
		awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }') $(
		grep -oE 'dropped=[0-9]+ reused=[0-9]+ slab=[0-9]+' /sys/kernel/tracing/trace |
		tr '=' ' ' | awk '{ n++; d += $2; r += $4; sl += $6 }
			END { printf "exchanges:%d dropped:%d reused:%d slab:%d", n, d, r, sl }')"
}

# After the server went out to swap, a job that leaves memory full of
# page cache or of dentries and inodes, then ends: the seed's "backups,
# slocate".  MODE (below) chooses how it runs: memcg, in its own scope
# held at memory.high (as a backup.service could be); dontneed, dropping
# what it read (Debian's nocache); otherwise as it is.
BACKUP_HIGH=32M
run_job() {
	case $mode in
	memcg)
		if [ "$(cat /proc/1/comm)" = systemd ]; then
			systemd-run --quiet --scope -p MemoryHigh=$BACKUP_HIGH -- "$@"
		else
			(mkdir -p /sys/fs/cgroup/job &&
			 echo $BACKUP_HIGH >/sys/fs/cgroup/job/memory.high &&
			 echo $BASHPID >/sys/fs/cgroup/job/cgroup.procs && "$@")
		fi ;;
	dontneed) nocache "$@" ;;
	*) "$@" ;;
	esac
}
# GNU tar reads no file data when its archive is /dev/null: a pipe.
job_backup() {
	job_anon
	run_job sh -c 'tar cf - /usr /work/gen 2>/dev/null | cat >/dev/null'
}
# plocate's updatedb over the root filesystem, whose /work holds a tree of
# small files; not the shared folders, and a new database each time (an
# old one would spare it the directories that did not change).
job_updatedb() {
	job_anon
	rm -f /tmp/plocate.db
	run_job updatedb --add-prunefs 9p --add-prunepaths "/src /mnt/io" \
		-o /tmp/plocate.db
}
# Files beside /usr so that the backup reads twice RAM, and the tree the
# indexer walks: made once, kept on the work disk.
make_job_files() {
	mem=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	gen=$((mem * 2 - $(du -sm /usr | cut -f1)))
	mkdir -p /work/gen
	i=0
	while [ "$i" -lt $(((gen + 63) / 64)) ]; do
		[ -f "/work/gen/g$i" ] ||
			dd if=/dev/urandom of="/work/gen/g$i" bs=1M count=64 status=none
		i=$((i + 1))
	done
	if [ ! -f /work/tree/.done ]; then
		say "making /work/tree: $TREE_FILES small files, once"
		rm -rf /work/tree
		python3 -c "
import os
for d in range($TREE_FILES // 500):
    p = '/work/tree/d%04d' % d
    os.makedirs(p)
    for f in range(500):
        with open('%s/f%03d' % (p, f), 'w') as o:
            o.write('x')
" && sync && touch /work/tree/.done
	fi
}
TREE_FILES=150000

# MODE: 0 prefetch off, 1 on, files: on, and the server's mapped files
# read back just before the pass - what is left of the wake-up cost once
# file refaults are taken out too (objection 4, "half a solution");
# memcg and dontneed: on, with the job run so (run_job); agent: off, and
# after the job an agent that knows it and the server reclaims W of the
# page cache (memory.reclaim, swappiness=0) and then
# process_madvise(MADV_WILLNEED)s the server's memory.
one_run() {
	scenario=$1 mode=$2
	stop_server
	swapoff /dev/vdb && swapon /dev/vdb
	sync
	vm drop_caches 3
	case $mode in 0|agent) enable=0 ;; *) enable=1 ;; esac
	echo "$enable" >/sys/kernel/mm/swap_prefetch/enabled
	start_server || return 1
	python3 "$IO/redis_wake.py" --sock "$SOCK" load --mib "$W" || return 1
	show_memory "$scenario/$mode loaded"
	# In use before the job, as an application would be; and the floor.
	base=$(python3 "$IO/redis_wake.py" --sock "$SOCK" pass |
		sed 's/\([a-z0-9_]*\)=/resident_\1=/g')
	[ -n "$base" ] || return 1
	python3 "$IO/redis_wake.py" --sock "$SOCK" sample \
		--pid "$(pidof redis-server)" --label "$scenario,$mode" \
		--out "$IO/resident.txt" &
	sampler=$!
	flt0=$(server_majflt)
	pf0=$(prefetched)
	t0=$(date +%s%N)
	"job_$scenario"
	t1=$(date +%s%N)
	show_memory "$scenario/$mode after the job"
	swapped=$(awk '/^VmSwap/ { print $2 }' "/proc/$(pidof redis-server)/status")
	ex0=$(vmstat swap_prefetch_exchanged_pages)
	fri0=$(vmstat workingset_refault_file)
	trace_on
	agent=
	if [ "$mode" = agent ]; then
		ta=$(date +%s%N)
		echo "${W}M swappiness=0" >/sys/fs/cgroup/memory.reclaim
		python3 "$IO/redis_wake.py" --sock "$SOCK" willneed \
			--pid "$(pidof redis-server)" >/dev/null
		agent=" agent_ms=$((($(date +%s%N) - ta) / 1000000))"
	fi
	sleep "$IDLE"
	trace_tally "$scenario/$mode"
	show_memory "$scenario/$mode after idle"
	fri1=$(vmstat workingset_refault_file)
	flt1=$(server_majflt)
	pf1=$(prefetched)
	ex1=$(vmstat swap_prefetch_exchanged_pages)
	cache=$(awk '/^(Cached|Buffers):/ { s += $2 } END { print s }' /proc/meminfo)
	slab=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
	[ "$mode" = files ] && warm_mapped_files
	# Over the pass, system-wide: pages read from swap, file refaults.
	sin1=$(vmstat pswpin) fre1=$(vmstat workingset_refault_file)
	line=$(python3 "$IO/redis_wake.py" --sock "$SOCK" pass) || return 1
	flt2=$(server_majflt)
	sin2=$(vmstat pswpin) fre2=$(vmstat workingset_refault_file)
	stop_server
	wait "$sampler"
	echo "app scenario=$scenario prefetch=$mode job_s=$(((t1 - t0) / 1000000000)).$(((t1 - t0) / 100000000 % 10)) swapped_kib=$swapped majflt_idle=$((flt1 - flt0)) majflt_pass=$((flt2 - flt1)) pswpin_pass=$((sin2 - sin1)) file_refaults_pass=$((fre2 - fre1)) prefetched=$((pf1 - pf0)) exchanged=$((ex1 - ex0)) file_refaults_idle=$((fri1 - fri0)) pagecache_kib=$cache slab_kib=$slab$agent $line $base" |
		tee -a "$IO/app.txt"
}

run_app() {
	say "app begin: W=$W MiB, idle $IDLE s"
	mkdir -p /work/flood
	mem=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	for i in 1 2 3 4; do
		dd if=/dev/zero of="/work/flood/f$i" bs=1M count=$((mem / 2)) \
			status=none
	done
	case " $SCENARIOS " in
	*" backup "*|*" updatedb "*) make_job_files ;;
	esac
	for scenario in $SCENARIOS; do
		case $scenario in
		backup) modes="0 1 files memcg dontneed agent" ;;
		updatedb) modes="0 1 memcg" ;;
		*) modes="0 1 files" ;;
		esac
		for mode in $modes; do
			one_run "$scenario" "$mode" || say "run $scenario $mode failed"
		done
	done
	grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
	say "app end"
}

case " $PARTS " in *" kselftest "*) run_kselftest ;; esac
case " $PARTS " in *" app "*) run_app ;; esac
