# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (busybox sh): the swap_prefetch kselftests, once
# per LRU in SP_LRUS (classic, mglru), switched at run time.
echo "selftests: begin"
# The second virtio disk is scratch space for the writeback test.
[ -b /dev/vdb ] && export SP_SCRATCH=/dev/vdb
status=0
for lru in ${SP_LRUS:-classic}; do
	case $lru in
	classic) val=n ;;
	*) val=y ;;
	esac
	if [ -w /sys/kernel/mm/lru_gen/enabled ]; then
		echo "$val" >/sys/kernel/mm/lru_gen/enabled
	elif [ "$lru" != classic ]; then
		echo "selftests: no /sys/kernel/mm/lru_gen: $lru skipped"
		continue
	fi
	echo "selftests: LRU $lru ($(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null))"
	# SP_TESTS, set by scripts/selftests --only: the tests to run.
	# shellcheck disable=SC2086
	/bin/swap_prefetch_test ${SP_TESTS:-} || status=$?
done
echo "selftests: exit status $status"
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
