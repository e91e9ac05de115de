#!/bin/sh
# Install the Debian packages lbtriage builds and tests with, when missing.
# As root: apt-get update, then apt-get install -y.  Otherwise: say what to run.
set -eu
PKGS="build-essential pkg-config libzstd-dev libpcre2-dev libsqlite3-dev
libmaxminddb-dev zlib1g-dev libjansson-dev libcbor-dev check mandoc zstd gzip
sqlite3 gawk bc curl haproxy nginx iproute2 openssl python3 libmaxmind-db-writer-perl"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
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
