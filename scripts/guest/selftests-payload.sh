# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (busybox sh): the swap_prefetch kselftests, once
# per LRU in SP_LRUS (classic, mglru), switched at run time, then the
# tests in SP_THP_TESTS once more with transparent hugepages "always".
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
# One pass of the push-out and refault tests with THP "always": large
# folios are swapped out whole (or split), recorded page by page.
THP=/sys/kernel/mm/transparent_hugepage/enabled
if [ -n "${SP_THP_TESTS:-}" ] && [ -w "$THP" ]; then
	old=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")
	echo always >"$THP"
	echo "selftests: THP $(cat "$THP")"
	# shellcheck disable=SC2086
	/bin/swap_prefetch_test $SP_THP_TESTS || status=$?
	echo "$old" >"$THP"
fi
echo "selftests: exit status $status"
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
