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

need_build_packages() {
	need_packages gcc:gcc make:make flex:flex bison:bison bc:bc \
		perl:perl python3:python3 git:git xz:xz-utils ccache:ccache \
		cpio:cpio patch:patch \
		/usr/include/libelf.h:libelf-dev \
		/usr/include/openssl/ssl.h:libssl-dev \
		"$TARBALL:linux-source-6.12"
}

need_qemu_packages() {
	need_packages qemu-system-x86_64:qemu-system-x86 \
		/usr/share/qemu/qboot.rom:qemu-system-data \
		/bin/busybox:busybox-static \
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

# Build a config from tinyconfig plus fragments, and check every option
# asked for reached .config: merge_config drops what it cannot satisfy.
make_config() {
	out=$1
	shift
	mkdir -p "$out"
	kmake "$out" tinyconfig >/dev/null
	KCONFIG_CONFIG=$out/.config "$TREE/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "$@" >/dev/null ||
		die "merge_config failed for $*"
	kmake "$out" olddefconfig >/dev/null
	for frag in "$@"; do
		grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' \
			"$frag" | while read -r line; do
			grep -qxF "$line" "$out/.config" ||
				die "$line from ${frag##*/} did not reach $out/.config"
		done || exit 1
	done
}

# QEMU accelerator: KVM only if a probe boot works (it hangs on some hosts).
qemu_accel() {
	if [ -n "${SWAP_PREFETCH_ACCEL:-}" ]; then
		echo "$SWAP_PREFETCH_ACCEL"
		return
	fi
	if [ -w /dev/kvm ] && [ -n "${1:-}" ] &&
	   timeout 20 qemu-system-x86_64 -enable-kvm -m 64 -display none \
		-no-reboot -kernel "$1" -append "console=ttyS0 panic=-1 swap_prefetch_probe" \
		-serial stdio 2>/dev/null | grep -q "Run /init\|Kernel panic"; then
		echo kvm
	else
		echo tcg
	fi
}
