# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (busybox sh): the swap_prefetch kselftests.
echo "selftests: begin"
/bin/swap_prefetch_test
echo "selftests: exit status $?"
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
