# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the swap prefetch scripts; sourced, never run.
#
# Environment:
#   SWAP_PREFETCH_CACHE  cache folder for the kernel tree and build outputs
#                        (default /var/tmp/swap-prefetch; must be outside
#                        the repository or git-ignored)
#   JOBS                 parallel make jobs (default: nproc)

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SWAP_PREFETCH_CACHE:-/var/tmp/swap-prefetch}
TREE=$CACHE/linux-source-6.12
TARBALL=/usr/src/linux-source-6.12.tar.xz
JOBS=${JOBS:-$(nproc)}

msg() { printf '%s: %s\n' "${myname:-${0##*/}}" "$*"; }
die() { printf '%s: error: %s\n' "${myname:-${0##*/}}" "$*" >&2; exit 1; }

# Debian packages every script may need, by the command that proves them.
need_packages() {
	missing=
	for pair in "$@"; do
		cmd=${pair%%:*}
		pkg=${pair#*:}
		case $cmd in
		/*) [ -e "$cmd" ] || missing="$missing $pkg" ;;
		*) command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg" ;;
		esac
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing packages:$missing; run as root or: apt-get install$missing"
	fi
	msg "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null ||
		die "apt-get update failed; check the network or /etc/apt/sources.list"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
}

# rsync: the kernel's headers_install (selftests/mm, make kselftest).
need_build_packages() {
	need_packages gcc:gcc make:make flex:flex bison:bison bc:bc \
		perl:perl python3:python3 git:git xz:xz-utils ccache:ccache \
		cpio:cpio patch:patch rsync:rsync \
		/usr/include/libelf.h:libelf-dev \
		/usr/include/openssl/ssl.h:libssl-dev \
		"$TARBALL:linux-source-6.12"
}

need_qemu_packages() {
	need_packages qemu-system-x86_64:qemu-system-x86 \
		/usr/share/qemu/qboot.rom:qemu-system-data \
		/bin/busybox:busybox-static \
		/sbin/mke2fs:e2fsprogs \
		/usr/lib/x86_64-linux-gnu/libc.a:libc6-dev
}

# The cache must not be inside the repository unless git ignores it.
check_cache_location() {
	mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
	case $(cd "$CACHE" && pwd)/ in
	"$REPO"/*)
		git -C "$REPO" check-ignore -q "$CACHE" ||
			die "cache $CACHE is inside the repository and not git-ignored"
		;;
	esac
}

kernel_version() {
	make -s -C "$TREE" kernelversion 2>/dev/null
}

# make in the cache tree, with ccache, out of tree.
kmake() {
	out=$1
	shift
	make -s -C "$TREE" O="$out" CC="ccache gcc" -j"$JOBS" "$@"
}

# Build a config from tinyconfig plus fragments (later ones override), and
# check every option asked for reached .config: merge_config drops what
# it cannot satisfy without a word.
make_config() {
	out=$1
	shift
	mkdir -p "$out"
	kmake "$out" tinyconfig >/dev/null
	KCONFIG_CONFIG=$out/.config "$TREE/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "$@" >/dev/null ||
		die "merge_config failed for $*"
	kmake "$out" olddefconfig >/dev/null
	cat "$@" | awk '
		/^CONFIG_[A-Z0-9_]+=/ { sym = $0; sub(/=.*/, "", sym); want[sym] = $0 }
		/^# CONFIG_[A-Z0-9_]+ is not set/ { want[$2] = $0 }
		END { for (s in want) print want[s] }' >"$out/.wanted"
	while read -r line; do
		case $line in
		"# "*) sym=${line#\# }; sym=${sym%% *}
		       ! grep -q "^$sym=" "$out/.config" ;;
		*) grep -qxF "$line" "$out/.config" ;;
		esac || die "'$line' did not reach $out/.config"
	done <"$out/.wanted"
}

# QEMU accelerator: KVM only if a probe boot works (it hangs on some
# hosts).  The answer is kept per kernel build, the probe costs 20 s.
qemu_accel() {
	if [ -n "${SWAP_PREFETCH_ACCEL:-}" ]; then
		echo "$SWAP_PREFETCH_ACCEL"
		return
	fi
	kernel=${1:-}
	# No /dev/kvm is an answer too, not an error (set -e).
	stamp="$(stat -c %Y "$kernel" 2>/dev/null || :) $(stat -c %Y /dev/kvm 2>/dev/null || :)"
	# One answer per kernel: the guest and the debug guest alternate.
	cachefile=$CACHE/accel.$(printf '%s' "$kernel" | cksum | cut -d' ' -f1)
	if [ -f "$cachefile" ] && [ "$(sed -n 1p "$cachefile")" = "$stamp" ]; then
		sed -n 2p "$cachefile"
		return
	fi
	accel=tcg
	# A booted kernel without a root panics at once: that is the sign.
	if [ -w /dev/kvm ] && [ -f "$kernel" ] &&
	   (timeout 20 qemu-system-x86_64 -enable-kvm -cpu host -m 64 \
		-display none -no-reboot -kernel "$kernel" \
		-append "console=ttyS0 panic=-1" -serial stdio </dev/null \
		2>/dev/null | grep -q "Kernel panic") 2>/dev/null; then
		accel=kvm
	fi
	printf '%s\n%s\n' "$stamp" "$accel" >"$cachefile"
	echo "$accel"
}

GUEST_BUILD=$CACHE/build-guest
GUEST_KERNEL=$GUEST_BUILD/arch/x86/boot/bzImage

# The patched guest kernel (not the KUnit one): tinyconfig + fragment.
build_guest_kernel() {
	msg "building guest kernel $(kernel_version) in $GUEST_BUILD"
	make_config "$GUEST_BUILD" "$REPO/scripts/configs/guest.config"
	kmake "$GUEST_BUILD" bzImage >/dev/null || die "guest kernel build failed"
}

# Static test binaries for the initramfs, built on the host from the
# patched tree (they include the tree's kselftest.h).
build_guest_tools() {
	out=$1
	mkdir -p "$out"
	for src in "$TREE"/tools/testing/selftests/swap_prefetch/*.c; do
		bin=$out/$(basename "$src" .c)
		gcc -O2 -Wall -static -o "$bin" "$src" ||
			die "cannot build ${src#"$TREE"/}"
	done
}

# The swap-related tests of the kernel's own tools/testing/selftests/mm,
# static, against the tree's UAPI headers.
MM_SELFTESTS="cow madv_populate mremap_test droppable map_populate soft-dirty mkdirty"
build_mm_selftests() {
	out=$1
	mkdir -p "$out"
	make -s -C "$TREE" O="$CACHE/build-hdr" headers_install \
		INSTALL_HDR_PATH="$CACHE/hdr" >/dev/null ||
		die "cannot install the tree's UAPI headers"
	# No liburing: cow.c's optional io_uring cases are left out.
	: >"$CACHE/hdr/local_config.h"
	for t in $MM_SELFTESTS; do
		(cd "$TREE/tools/testing/selftests/mm" &&
		 gcc -O2 -static -isystem "$CACHE/hdr/include" -I.. \
			-I"$CACHE/hdr" -o "$out/$t" "$t.c" vm_util.c \
			thp_settings.c -lrt -lpthread -lm) ||
			die "cannot build selftests/mm/$t"
	done
}

# A busybox initramfs: /init mounts, picks the LRU, turns swap on, runs
# /payload, exits.  GUEST_LRU: classic (the default) or mglru, switched
# at run time in /sys/kernel/mm/lru_gen/enabled (the kernel builds both).
build_initramfs() {
	root=$1
	payload=$2
	out=$3
	case ${GUEST_LRU:-classic} in
	classic) lru=n ;;
	mglru) lru=y ;;
	*) die "GUEST_LRU must be classic or mglru, not '$GUEST_LRU'" ;;
	esac
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" \
		"$root/tmp" "$root/sys/fs/cgroup" "$root/mnt"
	cp /bin/busybox "$root/bin/busybox"
	cp "$payload" "$root/payload"
	echo "$lru" >"$root/lru"
	echo "${GUEST_SWAP_MIB:-512}" >"$root/swap_mib"
	cat >"$root/init" <<'EOINIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo "guest: $(uname -r), $(grep MemTotal /proc/meminfo)"
if [ -w /sys/kernel/mm/lru_gen/enabled ]; then
	echo "$(cat /lru)" >/sys/kernel/mm/lru_gen/enabled
	echo "guest: lru_gen/enabled $(cat /sys/kernel/mm/lru_gen/enabled), cmdline $(cat /proc/cmdline)"
fi
# /dev/vda holds an ext4 filesystem (run_guest): swap is a file on it, as
# an installer lays it out, beside the files the background writes and
# reads.  A bare /dev/vda (GUEST_SWAP_LAYOUT=disk) is a swap partition.
if mount -t ext4 /dev/vda /mnt 2>/dev/null; then
	if fallocate -l "$(cat /swap_mib)M" /mnt/swapfile &&
	   chmod 600 /mnt/swapfile && mkswap /mnt/swapfile >/dev/null &&
	   swapon /mnt/swapfile; then
		echo "guest: swap file /mnt/swapfile on ext4 on /dev/vda: $(grep SwapTotal /proc/meminfo)"
	fi
elif mkswap /dev/vda >/dev/null && swapon /dev/vda; then
	echo "guest: swap on /dev/vda: $(grep SwapTotal /proc/meminfo)"
fi
sh /payload
echo "guest: payload exit status $?"
sync
reboot -f
EOINIT
	chmod +x "$root/init" "$root/payload"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
}

# A tree of N small files in directories of 100, as an indexer walks:
# $CACHE/tree-N, made once and kept.
make_tree() {
	[ -d "$CACHE/tree-$1" ] && return
	rm -rf "$CACHE/tree-$1.tmp"
	python3 - "$CACHE/tree-$1.tmp" "$1" <<'EOPY' || die "cannot make a tree of $1 files"
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // 10000), "d%04d" % (i // 100 % 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%02d" % (i % 100)), "w") as f:
        f.write("x")
EOPY
	mv "$CACHE/tree-$1.tmp" "$CACHE/tree-$1"
}

# The guest's /dev/vda: an ext4 filesystem that /init puts the swap file
# on, as an installer does, with the files the background uses: data
# (256 MiB, an indexer's) and journal (64 MiB, a journal's ring), written
# out, not sparse; with GUEST_TREE_FILES=N, also tree/, N one-byte files
# for an updatedb-like walk.  GUEST_SWAP_LAYOUT=disk: a bare disk for
# swap instead.
make_root_disk() {
	img=$1
	swap_mib=$2
	case ${GUEST_SWAP_LAYOUT:-file} in
	file) ;;
	disk)
		truncate -s "${swap_mib}M" "$img"
		return ;;
	*) die "GUEST_SWAP_LAYOUT must be file or disk, not '$GUEST_SWAP_LAYOUT'" ;;
	esac
	content=$CACHE/root-disk
	rm -rf "$content"
	mkdir -p "$content"
	head -c 256M /dev/zero | tr '\0' i >"$content/data"
	head -c 64M /dev/zero | tr '\0' j >"$content/journal"
	inodes=
	if [ "${GUEST_TREE_FILES:-0}" -gt 0 ]; then
		make_tree "$GUEST_TREE_FILES"
		cp -a "$CACHE/tree-$GUEST_TREE_FILES" "$content/tree"
		# One-byte files live in their inodes (inline_data).
		inodes="-N $((GUEST_TREE_FILES + 16384)) -O inline_data"
	fi
	# shellcheck disable=SC2086
	mke2fs -q -t ext4 -F $inodes -d "$content" "$img" \
		"$((swap_mib + 512 + ${GUEST_TREE_FILES:-0} / 2048))M" \
		>/dev/null ||
		die "mke2fs failed for $img"
	rm -rf "$content"
}

# Boot the guest; console goes to $log.  Disks throttled like a disk.
# acpi=noirq: PCI interrupts are routed by the BIOS's tables, as without
# ACPI; ACPI's _PRT method times out in a slow (KASAN, TCG) guest, and its
# disks then never interrupt.  ACPI still finds the CPUs.
# Returns non-zero if QEMU failed or the payload did not finish.
run_guest() {
	initrd=$1
	log=$2
	mem=${GUEST_MEM_MIB:-256}
	swap_mib=${GUEST_SWAP_MIB:-512}
	bps=${GUEST_DISK_BPS:-20971520}
	iops=${GUEST_DISK_IOPS:-500}
	accel=$(qemu_accel "$GUEST_KERNEL")
	swapimg=$CACHE/swap.img
	scratchimg=$CACHE/scratch.img
	# GUEST_KEEP_DISKS=1: boot on the disks the last boot left, if any,
	# and leave them (a resume from hibernation needs its image).
	if [ -z "${GUEST_KEEP_DISKS:-}" ] || [ ! -f "$swapimg" ] ||
	   [ ! -f "$scratchimg" ]; then
		rm -f "$swapimg" "$scratchimg"
		make_root_disk "$swapimg" "$swap_mib"
		# /dev/vdb: a disk the writeback test and the demo's
		# background may overwrite; sparse, so its size costs nothing.
		truncate -s "${GUEST_SCRATCH_MIB:-64}M" "$scratchimg"
	fi
	case $accel in
	kvm) accel_opt="-enable-kvm -cpu host" ;;
	*) accel_opt="-accel tcg" ;;
	esac
	smp=${GUEST_SMP:-1}
	throttle="throttled to $((bps / 1048576)) MiB/s and $iops IOPS"
	[ "$bps" -gt 0 ] || [ "$iops" -gt 0 ] || throttle=unthrottled
	where="a swap file on ext4 on virtio-blk"
	[ "${GUEST_SWAP_LAYOUT:-file}" = disk ] && where=virtio-blk
	msg "booting guest: $accel, $smp vCPU, ${mem} MiB RAM, ${swap_mib} MiB swap: $where $throttle"
	# shellcheck disable=SC2086
	rc=0
	timeout "${GUEST_TIMEOUT:-1800}" qemu-system-x86_64 $accel_opt \
		-m "$mem" -smp "$smp" -nographic -no-reboot \
		-kernel "$GUEST_KERNEL" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 init_on_alloc=1 acpi=noirq ${GUEST_CMDLINE_EXTRA:-}" \
		-drive "file=$swapimg,format=raw,if=virtio,cache=none,throttling.bps-total=$bps,throttling.iops-total=$iops" \
		-drive "file=$scratchimg,format=raw,if=virtio,cache=none,throttling.bps-total=$bps,throttling.iops-total=$iops" \
		</dev/null >"$log" 2>&1 || rc=$?
	[ -n "${GUEST_KEEP_DISKS:-}" ] || rm -f "$swapimg" "$scratchimg"
	if [ $rc -ne 0 ] || ! grep -q "payload exit status" "$log"; then
		tail -20 "$log" >&2
		msg "guest failed: QEMU status $rc (124: timeout), console in $log"
		return 1
	fi
}
