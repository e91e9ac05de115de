#!/bin/bash
# make check-fresh: the README's two commands on a Debian 12 that has never
# seen lbtriage.
#
# A minimal root (debootstrap --variant=minbase) with only what a new machine
# of this kind ships (gcc, make, git, python3, ca-certificates) receives a
# clone of the committed HEAD; inside it, as root, `make demo` and then
# `make check` must each pass on their first try.  The root runs in mount and
# PID namespaces of its own (unshare), so every mount and every process it
# started vanishes with it, on success, failure or SIGTERM; the root itself is
# removed on exit.  The base root is cached as a tarball (LBT_FRESH_CACHE,
# default /var/cache/lbtriage): a second run downloads nothing for it.
#
#   tests/fresh/run.sh            build or reuse the base, run the two commands
#   LBT_FRESH_KEEP=1 ...          keep the root for a look (path printed)
set -euo pipefail

suite=bookworm
base_pkgs="gcc make git python3 ca-certificates"
cache=${LBT_FRESH_CACHE:-/var/cache/lbtriage}
top=$(cd "$(dirname "$0")/../.." && pwd)

step() { printf '\n== fresh: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
die() { echo "fresh: $*" >&2; exit 1; }

# inside ROOT: the part that runs in the new mount and PID namespaces.
if [ "${1:-}" = --inside ]; then
	root=$2
	# The root must be a mount point, as / is on a real machine: `ip netns
	# exec` (the lab) runs "mount --make-rslave /".
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs tmpfs "$root/run"
	run_in_root() {
		chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/sh -c "cd /root/lbtriage && $1"
	}
	step "make demo"
	run_in_root "make demo" || die "make demo failed on its first run"
	step "make check"
	run_in_root "make check" || die "make check failed on its first run"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, namespaces)"

# The Debian mirror this machine's own apt uses (comments left out).
mirror=""
for u in $(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources 2>/dev/null | sed 's/#.*//' |
    grep -Eo 'https?://[^ ]+' | sort -u); do
	case "$u" in */debian|*/debian/) mirror=${u%/}; break ;; esac
done
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=${mirror%/debian}/debian-security

if ! command -v debootstrap >/dev/null; then
	step "installing debootstrap on the host"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
fi

key=$(printf '%s %s %s\n' "$suite" "$mirror" "$base_pkgs" | md5sum | cut -c1-12)
tarball=$cache/fresh-$suite-minbase-$key.tar
work=$(mktemp -d /var/tmp/lbt-fresh.XXXXXX)
root=$work/root
child=""

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# unshare --fork ignores SIGTERM while it waits for its child, so only
	# SIGKILL stops it; --kill-child then kills the whole PID namespace.
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -KILL "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	# The mounts lived in the child's namespace only; refuse to delete
	# through one that is somehow still here.
	if findmnt -rn -o TARGET | grep -q "^$work/"; then
		echo "fresh: mounts remain under $work; not removing it" >&2
	elif [ "${LBT_FRESH_KEEP:-0}" = 1 ]; then
		echo "fresh: root kept in $root" >&2
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

if [ ! -s "$tarball" ]; then
	step "debootstrap --variant=minbase $suite from $mirror (cached afterwards)"
	mkdir -p "$cache" "$work/base"
	debootstrap --variant=minbase --include="${base_pkgs// /,}" \
		"$suite" "$work/base" "$mirror" > "$work/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
	cat > "$work/base/etc/apt/sources.list" <<-EOF
	deb $mirror $suite main
	deb $mirror $suite-updates main
	deb $security $suite-security main
	EOF
	rm -rf "$work/base/var/cache/apt/archives"/*.deb "$work/base/var/lib/apt/lists"/*
	tar -C "$work/base" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -rf "$work/base"
else
	step "base root from the cache: $tarball"
fi

mkdir -p "$root"
tar -C "$root" -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
step "git clone of the committed HEAD ($(git -C "$top" rev-parse --short HEAD))"
git clone -q "$top" "$root/root/lbtriage"
[ -z "$(git -C "$top" status --porcelain)" ] ||
	echo "fresh: note: uncommitted changes in $top are not part of this run" >&2

# --kill-child: when unshare dies (SIGKILL from cleanup), the PID namespace's first
# process is killed, and with it every process of the run.
unshare --mount --pid --fork --kill-child --propagation private \
	bash "$0" --inside "$root" &
child=$!
rc=0
wait "$child" || rc=$?
child=""
[ "$rc" -eq 0 ] || die "failed (exit $rc)"
step "passed: make demo and make check on a fresh $suite"
