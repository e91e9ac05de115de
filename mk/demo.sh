#!/bin/sh
# make demo: the bundled incident as the operator sees it at 00:11.
# tests/data/incident: a real HAProxy 2.6 tarpit flood (see its README.md).
# First the one command (lbt-triage), then the three programs it is made of,
# briefly.
set -eu
bin=$(cd "$1" && pwd)
inc=tests/data/incident
log=$inc/haproxy-httplog.log.zst
cfg=$inc/haproxy-tarpit.cfg
if [ -t 1 ]; then bold='\033[1m' plain='\033[0m'; else bold='' plain=''; fi
say() { printf "\n${bold}\$ %s${plain}\n" "$*"; }
# run CMD...: show and run it.  lbt-triage exits 4 for an anomaly over by
# now and 5 for one still going on: findings, not failures (the table of
# docs/exit-status.md: 1 error, 2 no records, 3 an input not read).
run() {
	say "$*"
	rc=0; "$@" || rc=$?
	case "$1:$rc" in
	*:0 | lbt-triage:[45]) ;;
	*) echo "demo: $1 failed (exit $rc: $(meaning "$rc"))" >&2; exit 1 ;;
	esac
}
# meaning STATUS: its line of docs/exit-status.md, in words.
meaning() {
	case $1 in
	0) echo "calm" ;; 1) echo "an error" ;; 2) echo "no records" ;;
	3) echo "an input that could not be read" ;; 4) echo "an anomaly, over by now" ;;
	5) echo "an anomaly, still going on" ;; *) echo "not an lbt status" ;;
	esac
}
PATH="$bin:$PATH"; export PATH
run lbt-triage --haproxy-cfg "$cfg" --frontend fe_http "$log"
printf '%s\n' "(exit status $rc: $(meaning "$rc"); see docs/exit-status.md)"
printf '\n%s\n' "The programs it is made of, one question each:"
run lbt-rate --table --top 1 "$log"
run lbt-offenders --table --top 3 --no-geoip "$log"
run lbt-tarpit --table --summary --haproxy-cfg "$cfg" --frontend fe_http "$log"
