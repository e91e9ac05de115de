#!/bin/bash
# lab.sh - run HAProxy 2.6 in front of NGINX in a private network namespace,
# send a catalogue of requests (normal pings, 404s, tarpit, deny, bad
# requests, odd bytes, TLS, HTTP/2, server DOWN/UP, reload) from
# documentation addresses, and collect every log format the lab produces.
#
# usage: tests/lab/lab.sh [--out DIR] [--quick]
#
#   --out DIR   output directory (default: /tmp/lbtlab.PID)
#   --quick     only the catalogue (about 30 s); without it 30 s of mixed
#               background traffic follow
#
# Output (DIR): haproxy-*.log, nginx-*.log (one file per log format),
# truth.tsv (one line per request sent), phases.tsv, conf/ (the
# configurations used), *.stderr.  Needs root; installs haproxy, nginx,
# openssl, python3 with apt-get when missing.
set -eu

# shellcheck disable=SC2034 # read by lib.sh
LAB_PROG=lab
. "$(dirname "$0")/lib.sh"

out=""
quick=""
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	--quick) quick=--quick; shift ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "usage: $0 [--out DIR] [--quick]" >&2; exit 1 ;;
	esac
done
[ -n "$out" ] || out=/tmp/lbtlab.$$

lab_require # the standard set
t0=$(date +%s)
lab_traps
lab_init "$out"
lab_msg "namespace $LAB_NS, output $LAB_OUT"
lab_msg "$(lab_versions | tr '\n' ' ')"

LAB_SD=0
LAB_DEAD=1
lab_cert
lab_write_env tarpit
lab_start_sink
lab_start_nginx
lab_start_haproxy tarpit
printf '%s\n' "$LAB_HAP_COMPACT" >"$LAB_OUT/haproxy-compact.template"
printf '%s\n' "$LAB_HAP_LEGACY" >"$LAB_OUT/haproxy-legacy.template"
printf '%s\n' "$LAB_NGINX_JSON" >"$LAB_OUT/nginx-json.template"
printf '%s\n' "$LAB_NGINX_MAIN" >"$LAB_OUT/nginx-main.template"

lab_msg "sending traffic${quick:+ (quick)}"
lab_run_client lab --out "$LAB_OUT" --hook "$LAB_RUN/hook" $quick

sleep 1 # tarpits, timeouts and syslog datagrams in flight
lab_teardown
lab_msg "done in $(($(date +%s) - t0)) s, output in $LAB_OUT; lines per file:"
(cd "$LAB_OUT" && wc -l haproxy-*.log nginx-*.log truth.tsv | sed 's/^/    /' >&2)
