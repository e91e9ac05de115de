#!/bin/sh
# make demo: the first minutes of the bundled incident, as the operator sees them.
# tests/data/incident: a real HAProxy 2.6 tarpit flood (see its README.md).
set -eu
bin=$(cd "$1" && pwd)
log=tests/data/incident/haproxy-httplog.log.zst
cfg=tests/data/incident/haproxy-tarpit.cfg
if [ -t 1 ]; then bold='\033[1m' plain='\033[0m'; else bold='' plain=''; fi
say() { printf "\n${bold}\$ %s${plain}\n" "$*"; }
run() { say "$*"; "$@"; }
PATH="$bin:$PATH"; export PATH
run lbt-formats --detect "$log"
run lbt-rate --table --top 3 "$log"
run lbt-offenders --table --top 5 --no-geoip "$log"
run lbt-tarpit --table --haproxy-cfg "$cfg" --frontend fe_http "$log"
