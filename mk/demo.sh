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
# run CMD...: show and run it.  lbt-triage exits 2, 3 or 4 for no records,
# an anomaly over by now, an ongoing one: findings, not failures.
run() {
	say "$*"
	rc=0; "$@" || rc=$?
	case "$1:$rc" in
	*:0 | lbt-triage:[234]) ;;
	*) echo "demo: $1 failed (exit $rc)" >&2; exit 1 ;;
	esac
}
PATH="$bin:$PATH"; export PATH
run lbt-triage --haproxy-cfg "$cfg" --frontend fe_http "$log"
case $rc in
0) what="calm" ;; 2) what="no records" ;; 3) what="an anomaly, over by now" ;; *) what="ongoing" ;;
esac
printf '%s\n' "(exit status $rc: $what; see man lbt-triage)"
printf '\n%s\n' "The programs it is made of, one question each:"
run lbt-rate --table --top 1 "$log"
run lbt-offenders --table --top 3 --no-geoip "$log"
run lbt-tarpit --table --summary --haproxy-cfg "$cfg" --frontend fe_http "$log"
