# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (busybox sh): the swap_prefetch kselftests.
echo "selftests: begin"
# The second virtio disk is scratch space for the writeback test.
[ -b /dev/vdb ] && export SP_SCRATCH=/dev/vdb
# SP_TESTS, set by scripts/selftests --only: the tests to run.
# shellcheck disable=SC2086
/bin/swap_prefetch_test ${SP_TESTS:-}
echo "selftests: exit status $?"
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
