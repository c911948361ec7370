# SPDX-License-Identifier: GPL-2.0
# Runs inside the debug guest (busybox sh): the selftests and the stress
# tests under KASAN, lockdep and kmemleak, then a kmemleak scan.
mount -t debugfs none /sys/kernel/debug 2>/dev/null
# The second disk becomes a second swap device for the swapoff test.
if [ -b /dev/vdb ] && mkswap /dev/vdb >/dev/null; then
	export SP_SWAP2=/dev/vdb
fi
echo "debug: selftests begin"
# The functional tests run in the fast guest; here, the bad-input ones.
/bin/swap_prefetch_test bad_values unprivileged
echo "debug: selftests exit status $?"
echo "debug: stress begin"
/bin/swap_prefetch_stress
echo "debug: stress exit status $?"
# The kernel's own mm selftests, with prefetch off and on: same results.
# Without address randomisation: mremap_test places mappings next to
# where mmap() put others, and a random layout can make a case fail
# (MAP_FIXED_NOREPLACE: File exists) in one run and pass in the next.
if [ -d /mm ]; then
	aslr=$(cat /proc/sys/kernel/randomize_va_space)
	echo 0 >/proc/sys/kernel/randomize_va_space
	for mode in 0 1; do
		echo "$mode" >/sys/kernel/mm/swap_prefetch/enabled
		for t in /mm/*; do
			"$t" >/tmp/mm.out 2>&1
			rc=$?
			grep -E '^(ok|not ok) ' /tmp/mm.out | sed "s|^|mm: $mode ${t##*/} |"
			echo "mm: $mode ${t##*/} exit $rc"
			# Why a case failed, for whoever compares the two runs.
			grep -B3 '^not ok ' /tmp/mm.out | grep '^# ' |
				sed "s|^|mmlog: $mode ${t##*/} |"
		done
	done
	echo 1 >/sys/kernel/mm/swap_prefetch/enabled
	echo "$aslr" >/proc/sys/kernel/randomize_va_space
fi
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Two scans: an object is reported once it stayed unreferenced.
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	echo "debug: kmemleak begin"
	cat /sys/kernel/debug/kmemleak
	echo "debug: kmemleak end"
fi
grep swap_prefetch /proc/vmstat | sed 's/^/vmstat: /'
