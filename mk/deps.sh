#!/bin/sh
# Install the Debian packages lbtriage builds and tests with, when missing.
#
#   sh mk/deps.sh                 as root: apt-get update, then apt-get install -y
#                                 what is missing; otherwise say what to run (exit 1)
#   sh mk/deps.sh --build-check   install nothing: name the missing build packages
#                                 and the apt-get line, exit 1 (make's guard when
#                                 pkg-config finds nothing)
#   sh mk/deps.sh --list          print every package, one a line
#
# BUILD: what `make` needs.  TEST: every program a test, the lab, the demo or
# the benchmark calls that a new Debian 12 machine (gcc, make, git, python3)
# lacks.  A test never relies on a tool that happens to be on the developer's
# machine: tests/fresh proves the list in a clean root.
set -eu
BUILD="build-essential pkg-config libzstd-dev libpcre2-dev libsqlite3-dev
libmaxminddb-dev zlib1g-dev libjansson-dev libcbor-dev check"
# mandoc: man page lint and SYNOPSIS tests; zstd gzip sqlite3 gawk bc:
# fixtures and independent counts; curl haproxy nginx iproute2 openssl
# python3 procps: the lab; libmaxmind-db-writer-perl: GeoIP test databases;
# nftables: nft -c on lbt-deny's output; chromium: renders lbt-timeline's
# HTML page headless for a screenshot; time valgrind (and haproxy's halog):
# make bench's peak RSS and instruction counts; cmark: renders lbt's
# Markdown in the output-safety test; clang and libclang-rt-14-dev (its
# sanitizer runtimes, which clang alone does not pull in): make tsan;
# tmux: an 80x40 terminal for the width and colour test (t0070); man-db:
# lbt help NAME in the examples test.
TEST="mandoc zstd gzip sqlite3 gawk bc curl haproxy nginx iproute2 openssl
python3 procps libmaxmind-db-writer-perl nftables chromium time valgrind cmark
clang libclang-rt-14-dev tmux man-db"

missing_of() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			printf ' %s' "$p"
	done
}

case "${1:-}" in
--list)
	printf '%s\n' $BUILD $TEST
	exit 0 ;;
--build-check)
	missing=$(missing_of $BUILD)
	if [ -z "$missing" ]; then
		echo "lbtriage: pkg-config finds none of: libzstd libpcre2-8 sqlite3 libmaxminddb zlib jansson libcbor (PKG_CONFIG_PATH?)" >&2
	else
		echo "lbtriage: missing build packages:$missing; run: apt-get install -y$missing (or make demo / make check as root)" >&2
	fi
	exit 1 ;;
"") ;;
*)
	echo "usage: sh mk/deps.sh [--build-check | --list]" >&2
	exit 2 ;;
esac

missing=$(missing_of $BUILD $TEST)
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "lbtriage needs these Debian packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "lbtriage: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# The lab starts its own haproxy and nginx; keep the packages' services from
# starting at install time (only when no policy is in place already).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -q --no-install-recommends $missing >&2
