# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (busybox sh): the swap-out / idle / re-activate
# scenario, every variant in the same boot.  W, HOG, IDLE, SCENARIOS,
# STORM_RUNS and LRUS are set by scripts/demo above this line.  The
# first LRU of LRUS runs everything; each further one runs the prefetch
# comparison and the background scenarios again, switched at run time,
# with "@" and its name in their labels.
knob() { echo "$2" >"/sys/kernel/mm/swap_prefetch/$1"; }
# CPU time in ns from schedstat (CONFIG_SCHED_INFO); ticks would read 0.
# Busybox here has no pgrep: look the thread up by name.
kprefetchd_cpu_ns() {
	for d in /proc/[0-9]*; do
		if [ "$(cat "$d/comm" 2>/dev/null)" = kprefetchd ] &&
		   [ -r "$d/schedstat" ]; then
			awk '{ print $1 }' "$d/schedstat"
			return
		fi
	done
	echo -1
}
# The swap area: /mnt/swapfile on the root disk's ext4, or /dev/vda.
SWAP=$(awk 'NR == 2 { print $1 }' /proc/swaps)
bench() { /bin/sp_bench --ws "$W" --hog "$HOG" --swapdev "$SWAP" "$@"; }
# The background's files: on the disk that holds swap (the root disk's
# ext4), or on the second disk when swap has a disk of its own.
if [ -f /mnt/journal ] && [ -f /mnt/data ]; then
	JOURNAL=/mnt/journal
	DATA=/mnt/data
	echo "demo: swap file, journal and indexer on one disk ($SWAP)"
else
	JOURNAL=/dev/vdb
	DATA=/dev/vdb
	echo "demo: swap on $SWAP, journal and indexer on /dev/vdb"
fi
# Switch the LRU: classic or mglru.
set_lru() {
	[ -w /sys/kernel/mm/lru_gen/enabled ] || return 1
	case $1 in
	classic) echo n >/sys/kernel/mm/lru_gen/enabled ;;
	*) echo y >/sys/kernel/mm/lru_gen/enabled ;;
	esac
	echo "demo: LRU $1 (lru_gen/enabled $(cat /sys/kernel/mm/lru_gen/enabled))"
}
# The first LRU's labels carry no suffix: the main table is its.
FIRST_LRU=${LRUS%% *}
set_lru "$FIRST_LRU" || FIRST_LRU=classic
SUFFIX=

if [ ! -e /sys/kernel/mm/swap_prefetch/enabled ]; then
	echo "demo: this kernel has no /sys/kernel/mm/swap_prefetch"
	exit 1
fi
echo "demo: W=${W} MiB hog=${HOG} MiB idle=${IDLE} s delay=$(cat /sys/kernel/mm/swap_prefetch/delay_ms) ms adaptive=$(cat /sys/kernel/mm/swap_prefetch/adaptive)"

knob enabled 0
bench --no-swapout --idle 0 --label never_swapped
bench --pageout --idle 0 --label all_in_swap_cache
bench --idle "$IDLE" --label "no_prefetch$SUFFIX" --trace /tmp/trace
bench --idle 0 --peer willneed --label willneed
bench --idle 0 --peer swapoff --label swapoff
if [ -d /sys/kernel/mm/damon/admin ]; then
	bench --idle 0 --peer damon --label damon
else
	echo "demo: no DAMON sysfs in this kernel: no DAMON peer"
fi

# kprefetchd's own account of the prefetch run: its verdicts and why
# its rounds stopped, from its trace events, counted.
EVENTS=/sys/kernel/tracing/events/swap_prefetch/enable
# DEMO_TRACE: who reclaims, too (kswapd's wakers, direct reclaimers).
VMSCAN=/sys/kernel/tracing/events/vmscan
trace_vmscan() {
	[ -n "$DEMO_TRACE" ] && [ -d "$VMSCAN" ] || return 0
	for e in mm_vmscan_wakeup_kswapd mm_vmscan_direct_reclaim_begin \
		 mm_vmscan_kswapd_wake; do
		echo "$1" >"$VMSCAN/$e/enable"
	done
}
trace_on() {
	[ -w "$EVENTS" ] || return 0
	: >/sys/kernel/tracing/trace
	echo 1 >"$EVENTS"
	trace_vmscan 1
}
# What kprefetchd decided during a run: its verdicts, why rounds stopped,
# and what its exchanges dropped of page cache (and found used again).
trace_tally() {
	[ -w "$EVENTS" ] || return 0
	echo 0 >"$EVENTS"
	trace_vmscan 0
	echo "demo: $1 kprefetchd $(grep -oE 'verdict=[a-z_]+|stop=[a-z_]+|activity=[a-z_|]+' \
		/sys/kernel/tracing/trace | sort | uniq -c |
		awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }') $(
		grep -oE 'dropped=[0-9]+ reused=[0-9]+ slab=[0-9]+' /sys/kernel/tracing/trace |
		tr '=' ' ' | awk '{ n++; d += $2; r += $4; sl += $6 }
			END { printf "exchanges:%d dropped:%d reused:%d slab:%d", n, d, r, sl }')"
}
trace_summary() {
	trace_tally "$1"
	# The events themselves, for whoever reads the console log.
	grep -E 'swap_prefetch_(delay|round):' /sys/kernel/tracing/trace |
		head -300 | sed 's/^ */kptrace: /'
}

knob enabled 1
t0=$(kprefetchd_cpu_ns)
trace_on
bench --idle "$IDLE" --label "prefetch$SUFFIX" --trace /tmp/trace
trace_summary "prefetch$SUFFIX"
t1=$(kprefetchd_cpu_ns)
[ "$t0" -ge 0 ] && echo "demo: kprefetchd_cpu_ns=$((t1 - t0))"
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
sed 's/^/trace: /' /tmp/trace

# Background scenarios: what a machine nobody is using still does, during
# the idle period, each with prefetch off then on in this same boot.
# The journal and the indexer use $JOURNAL and $DATA, on the disk that
# holds swap; the _2disk rows put them on /dev/vdb, a second disk, as the
# demo did before (the journal writes its first 64 MiB, the indexer reads
# past them).  syncN: N KiB written and synced every 2 s.
scenario() {
	name=$1
	shift
	knob enabled 0
	bench --idle "$IDLE" --label "${name}${SUFFIX}_off" --background "$*"
	knob enabled 1
	bench --idle "$IDLE" --label "${name}${SUFFIX}_on" --background "$*"
}
# sp_bench with prefetch set to STATE (0 or 1), from an empty page cache,
# for the idle period: fresh_bench STATE LABEL sp_bench-arguments...
fresh_bench() {
	knob enabled "$1"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	label=$2
	shift 2
	trace_on
	bench --idle "$IDLE" --label "$label" "$@"
	trace_tally "$label"
	[ -z "$DEMO_TRACE" ] || grep -v '^#' /sys/kernel/tracing/trace |
		grep -v swap_prefetch_read: | tail -400 | sed 's/^ */kptrace: /'
}
# NAME with prefetch off, then on, each from an empty page cache; RUN,
# if set, ends both labels (.2, .3 for repeated pairs):
# off_then_on NAME sp_bench-arguments...
RUN=
off_then_on() {
	name=$1
	shift
	fresh_bench 0 "${name}${SUFFIX}_off${RUN}" "$@"
	fresh_bench 1 "${name}${SUFFIX}_on${RUN}" "$@"
}
ram_mib() { awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo; }
# A page-cache job after the idle period, as a backup or a build that
# starts later would be: read half the RAM of the second disk twice, then
# re-touch W.  Shows how long prefetched pages survive and who pays.
# Three pairs, off and on interleaved, so that drift falls on both; each
# pair is followed by the same job on a machine where W never left RAM
# (_resident), the state prefetch restores.
pagecache() {
	job=/dev/vdb:$(($(ram_mib) / 2))
	for RUN in "" .2 .3; do
		off_then_on pagecache --then-read "$job"
		fresh_bench 0 "pagecache${SUFFIX}_resident${RUN}" --no-swapout \
			--then-read "$job"
	done
	RUN=
}
# zswap on for this row only: W is compressed into RAM as it goes out,
# and what zswap cannot hold goes to the swap disk.
zswap_row() {
	z=/sys/module/zswap/parameters/enabled
	if [ ! -w "$z" ]; then
		echo "demo: no zswap in this kernel: no zswap row"
		return
	fi
	echo Y >"$z"
	off_then_on zswap
	echo N >"$z"
}
# A backup-like job: it reads twice RAM of the second disk while the hog
# pushes W out, then ends.  The disk stays open meanwhile, so that the
# job's page cache outlives it as a filesystem's would (the last close of
# a block device drops its cache).
backup() {
	exec 9</dev/vdb
	off_then_on backup --job-reads "/dev/vdb:$(($(ram_mib) * 2))"
	exec 9<&-
}
# After the swap-out, a backup reads twice RAM of the second disk and
# ends, leaving its page cache: memory is full of pages read once
# (backup_after).  Beside it, in the same boot, what a maintainer would
# do instead: the backup in its own cgroup held at memory.high, as a
# backup.service would be (backup_memcg, prefetch on); the backup
# dropping what it read, as under nocache(1) (backup_dontneed, prefetch
# on); and an agent that knows the job and the application: after the
# job, memory.reclaim of W's size with swappiness=0, then
# process_madvise(MADV_WILLNEED) of W (backup_agent, prefetch off).
backup_after() {
	exec 9</dev/vdb
	set -- --job-reads "/dev/vdb:$(($(ram_mib) * 2))" --job-after
	off_then_on backup_after "$@"
	if cg_tree && mkdir -p "$CG/system.slice/backup.service" &&
	   echo 33554432 >"$CG/system.slice/backup.service/memory.high"; then
		fresh_bench 1 "backup_memcg${SUFFIX}" "$@" \
			--job-cgroup "$CG/system.slice/backup.service"
	else
		echo "demo: no cgroup v2 memory controller: no backup_memcg row"
	fi
	fresh_bench 1 "backup_dontneed${SUFFIX}" "$@" --job-dontneed
	fresh_bench 0 "backup_agent${SUFFIX}" "$@" --peer reclaim
	exec 9<&-
}
# An indexer, as updatedb: once the hog is done, it walks a tree of small
# files on the root disk (dentries, inodes, directory and inode table
# blocks), then ends; beside it, the same walk in a cgroup held at
# memory.high, as plocate-updatedb.service could be.
updatedb() {
	if [ ! -d /mnt/tree ]; then
		echo "demo: no /mnt/tree: no updatedb row"
		return
	fi
	off_then_on updatedb --job-walk /mnt/tree
	if cg_tree && mkdir -p "$CG/system.slice/updatedb.service" &&
	   echo 33554432 >"$CG/system.slice/updatedb.service/memory.high"; then
		fresh_bench 1 "updatedb_memcg${SUFFIX}" --job-walk /mnt/tree \
			--job-cgroup "$CG/system.slice/updatedb.service"
	fi
}
# Containers as systemd lays them out, controllers enabled through
# subtree_control: the application and its hog in user.slice's session
# scope, the journal in system.slice, and a container in machine.slice
# held at a memory.high of 16 MiB that writes 2 MiB/s anew and keeps
# 64 MiB of it, so that its own reclaim swaps out about 2 MiB/s the whole
# time, the idle period included.  Its swap-out is read from its
# memory.stat (pgsteal: it has only anonymous pages) over the two runs.
CG=/sys/fs/cgroup
cg_stat() { awk -v k="$2" '$1 == k { print $2 }' "$CG/$1/memory.stat"; }
cg_tree() {
	[ -f "$CG/cgroup.controllers" ] || return 1
	for c in $(cat "$CG/cgroup.controllers"); do
		echo "+$c" >"$CG/cgroup.subtree_control" 2>/dev/null
	done
	for d in user.slice/session.scope system.slice/journal.service \
		 machine.slice/container.scope; do
		mkdir -p "$CG/$d" || return 1
		echo "+memory" >"$CG/${d%/*}/cgroup.subtree_control" || return 1
	done
	echo 16777216 >"$CG/machine.slice/container.scope/memory.high"
}
containers() {
	if ! cg_tree; then
		echo "demo: no cgroup v2 memory controller: no containers row"
		return
	fi
	echo $$ >"$CG/user.slice/session.scope/cgroup.procs"
	steal0=$(cg_stat machine.slice/container.scope pgsteal)
	t0=$(date +%s)
	/bin/sp_noise --label "containers${SUFFIX}_grower" \
		--cgroup "$CG/machine.slice/container.scope" --grow 2 &
	grower=$!
	scenario containers --cgroup "$CG/system.slice/journal.service" \
		--writer "$JOURNAL"
	steal=$(($(cg_stat machine.slice/container.scope pgsteal) - steal0))
	kill -TERM "$grower"
	wait "$grower"
	t=$(($(date +%s) - t0))
	echo $$ >"$CG/cgroup.procs"
	echo "demo: containers$SUFFIX container swapped out $((steal * 4 / 1024)) MiB in $t s ($((steal * 4 / t)) KiB/s), memory.events high $(awk '$1 == "high" { print $2 }' "$CG/machine.slice/container.scope/memory.events")"
}
run_scenarios() {
	for s in $SCENARIOS; do
		case $s in
		churn2|churn8|churn32) scenario "$s" --churn "${s#churn}" ;;
		churn*_1s|churn*_3s)
			rate=${s#churn}
			pace=${rate#*_}
			scenario "$s" --churn "${rate%_*}" --churn-pace "${pace%s}000" ;;
		journal) scenario journal --writer "$JOURNAL" ;;
		indexer) scenario indexer --reader "$DATA" --reader-rate 4 ;;
		journal_2disk) scenario journal_2disk --writer /dev/vdb ;;
		indexer_2disk) scenario indexer_2disk --reader /dev/vdb --reader-rate 4 ;;
		mix_2disk) scenario mix_2disk --churn 2 --writer /dev/vdb --reader /dev/vdb --reader-rate 2 --cpu 10 ;;
		sync256|sync1024|sync2048)
			scenario "$s" --writer "$JOURNAL" --write-kib "${s#sync}" --write-every 2000 ;;
		waker) scenario waker --cpu 10 ;;
		pagecache) pagecache ;;
		backup) backup ;;
		backup_after) backup_after ;;
		updatedb) updatedb ;;
		zswap) zswap_row ;;
		mix) scenario mix --churn 2 --writer "$JOURNAL" --reader "$DATA" --reader-rate 2 --cpu 10 ;;
		containers) containers ;;
		*) echo "demo: unknown scenario $s" ;;
		esac
	done
}
run_scenarios
# The other LRUs: the prefetch comparison and the scenarios again.
for lru in ${LRUS#"$FIRST_LRU"}; do
	set_lru "$lru" || { echo "demo: no lru_gen: $lru left out"; continue; }
	SUFFIX=@$lru
	knob enabled 0
	bench --idle "$IDLE" --label "no_prefetch$SUFFIX"
	knob enabled 1
	bench --idle "$IDLE" --label "prefetch$SUFFIX"
	run_scenarios
done
set_lru "$FIRST_LRU" >/dev/null || true
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat-end: /'

# The swapstorm objection: a job larger than RAM in phases, with pauses
# longer than the delay (and PSI's 2 s update) in which prefetch runs;
# off and on interleaved.
i=0
while [ "$i" -lt "$STORM_RUNS" ]; do
	for state in 0 1; do
		knob enabled "$state"
		t0=$(kprefetchd_cpu_ns)
		/bin/sp_storm --label "storm_$state" --pause 12
		t1=$(kprefetchd_cpu_ns)
		echo "storm-cpu label=storm_$state kprefetchd_cpu_ns=$((t1 - t0))"
	done
	i=$((i + 1))
done
