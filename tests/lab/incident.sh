#!/bin/bash
# incident.sh - replay the "one UUID flooded" incident on the lab and record
# what the client really sent next to what HAProxy and NGINX logged.
#
# usage: tests/lab/incident.sh [--out DIR] [--quick] [--single-lb] [--save DIR]
#
#   --out DIR    output directory (default: /tmp/lbtincident.PID)
#   --quick      short phases (6/8/5/5/4 s instead of 20/20/10/10/10 s)
#   --single-lb  lb1 only, as the committed capture was made (no lb2, no
#                traffic through fe_tcp, no global log target)
#   --save DIR   (implies --single-lb) afterwards compress the capture into
#                DIR with zstd -19 (httplog raw and rfc3164, compact, nginx
#                combined, truth.tsv, phases.tsv) and write DIR/README.md
#
# Load balancers (clients choose one per thread, as DNS round robin would;
# the lb column of truth.tsv says which):
#   lb1  HAProxy, fe_http on 192.0.2.1, 192.0.2.9 and 2001:db8::1 port 80,
#        maxconn 20, option httplog (raw, every syslog wrapper, and
#        haproxy-mixed.log: every proxy and the global log target in one
#        rfc3164 file, with fe_tcp's tcplog lines of 198.51.100.30)
#   lb2  a second HAProxy instance: fe_edge on 192.0.2.3 and 2001:db8::3
#        port 80, maxconn 30, the custom format LAB_HAP_EDGE (no %ft)
#        through rfc5424 with host lb2: haproxy-lb2.log
#   web1 NGINX behind both (nginx-json.log: escape=json)
# Phases (names as in phases.tsv and the phase column of truth.tsv):
#   baseline  8 legitimate sources ping 8 UUIDs, about 10 req/s in total
#   tarpit    + flood of one UUID from 203.0.113.7 and 8 addresses of
#             2001:db8:bad:1::/64; rule: tarpit above 10 req/s per source
#   deny      reload (both LBs): deny_status 429 instead of tarpit
#   reject    reload: + tcp-request connection reject for the offenders
#   calm      flood stops, legitimate traffic goes on
# Output (DIR): haproxy-*.log, nginx-*.log, truth.tsv, phases.tsv,
# haproxy-compact.log (cut out of the rfc5424 target, see extract_sd.py),
# conf/haproxy-{tarpit,deny,reject}.cfg, conf/haproxy-lb2-{...}.cfg,
# run/events.tsv (reloads), lbs.tsv (one line per LB and server: name,
# frontend, addresses, maxconn, log, shape, config) and the lbt inputs
# of the run: sources.txt (lb1 + lb2 + NGINX, each with its
# configuration), sources-formats.txt (the same by format name),
# sources-mixed.txt (haproxy-mixed.log read per frontend).
set -eu

# shellcheck disable=SC2034 # read by lib.sh
LAB_PROG=incident
. "$(dirname "$0")/lib.sh"

out=""
quick=""
save=""
single=""
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	--save) save=${2:?--save needs a directory}; shift 2 ;;
	--save=*) save=${1#--save=}; shift ;;
	--quick) quick=--quick; shift ;;
	--single-lb) single=--single-lb; shift ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "usage: $0 [--out DIR] [--quick] [--single-lb] [--save DIR]" >&2; exit 1 ;;
	esac
done
[ -n "$out" ] || out=/tmp/lbtincident.$$
if [ -n "$save" ]; then
	mkdir -p "$save"
	save=$(cd "$save" && pwd)
	single=--single-lb # the committed capture is the single-LB run
fi

lab_require zstd:zstd
t0=$(date +%s)
lab_traps
lab_init "$out"
lab_msg "namespace $LAB_NS, output $LAB_OUT"

LAB_SD=1   # compact template as rfc5424 structured data of fe_http
LAB_DEAD=0 # no dead server: only the incident in the logs
# HAProxy's own lines (global log target) in haproxy-mixed.log
[ -n "$single" ] || LAB_GLOBAL_LOG=1
[ -n "$single" ] || LAB_SINKS_EXTRA="$LAB_LB2_PORT $LAB_LB2_LOG"
lab_cert
lab_write_env tarpit
lab_start_sink
lab_start_nginx
lab_start_haproxy tarpit
cp "$LAB_CONF/haproxy.cfg" "$LAB_CONF/haproxy-tarpit.cfg"
[ -n "$single" ] || lab_start_lb2 tarpit

# What each LB is, and the lbt inputs of the run (see tests/lab/README.md).
write_inputs() {
	printf 'lb\tfrontend\taddresses\tmaxconn\tlog\tshape\tconfig\n'
	printf 'lb1\tfe_http\t%s,192.0.2.9,%s\t20\thaproxy-httplog-rfc3164.log\thttplog\tconf/haproxy-tarpit.cfg\n' \
		"$LAB_LB4" "$LAB_LB6"
	printf 'lb2\tfe_edge\t%s,%s\t%s\t%s\tedge\tconf/haproxy-lb2-tarpit.cfg\n' \
		"$LAB_LB2_4" "$LAB_LB2_6" "$LAB_LB2_MAXCONN" "$LAB_LB2_LOG"
	printf 'web1\t-\t%s,%s\t-\tnginx-json.log\tnginx-json\tconf/nginx.conf\n' "$LAB_APP4" "$LAB_APP6"
} >"$LAB_OUT/lbs.tsv"
write_sources() {
	local head='# lbt inputs of this run, one a line: PATH (relative to this file), then
# key=value words: format=NAME, or haproxy-cfg=FILE [frontend=NAME] (no
# frontend: each line by its %ft), or nginx-conf=FILE log-name=NAME;
# lb=NAME (load balancer or server); tier=lb|app (the tiers see the same
# requests: an app line is a request an lb line forwarded)'
	printf '%s\n' "$head" >"$LAB_OUT/sources.txt"
	cat >>"$LAB_OUT/sources.txt" <<EOF
haproxy-httplog-rfc3164.log haproxy-cfg=conf/haproxy-tarpit.cfg frontend=fe_http lb=lb1 tier=lb
$LAB_LB2_LOG haproxy-cfg=conf/haproxy-lb2-tarpit.cfg frontend=fe_edge lb=lb2 tier=lb
nginx-json.log nginx-conf=conf/nginx.conf log-name=json lb=web1 tier=app
EOF
	printf '%s\n' "$head" >"$LAB_OUT/sources-formats.txt"
	cat >>"$LAB_OUT/sources-formats.txt" <<EOF
haproxy-httplog.log format=haproxy-httplog lb=lb1 tier=lb
$LAB_LB2_LOG haproxy-cfg=conf/haproxy-lb2-tarpit.cfg frontend=fe_edge lb=lb2 tier=lb
nginx-json.log format=nginx-json lb=web1 tier=app
EOF
	printf '%s\n' "$head" >"$LAB_OUT/sources-mixed.txt"
	echo "haproxy-mixed.log haproxy-cfg=conf/haproxy-tarpit.cfg lb=lb1 tier=lb" >>"$LAB_OUT/sources-mixed.txt"
}
if [ -z "$single" ]; then
	write_inputs
	write_sources
fi

lab_msg "running the incident${quick:+ (quick)}${single:+ (lb1 only)}"
lab_run_client incident --out "$LAB_OUT" --hook "$LAB_RUN/hook" $quick $single

sleep 1.5 # tarpits and syslog datagrams in flight
lab_teardown

"$LAB_PY" "$LAB_DIR/extract_sd.py" "$LAB_OUT/haproxy-httplog-rfc5424.log" \
	"$LAB_OUT/haproxy-httplog.log" "$LAB_OUT/haproxy-compact.log"
printf '%s\n' "$LAB_HAP_COMPACT" >"$LAB_OUT/haproxy-compact.template"

secs=$(($(date +%s) - t0))
lab_msg "done in $secs s, output in $LAB_OUT"
more=""
[ -n "$single" ] || more="$LAB_LB2_LOG haproxy-mixed.log haproxy-tcplog.log nginx-json.log"
# shellcheck disable=SC2086 # file names
(cd "$LAB_OUT" && wc -l haproxy-httplog.log haproxy-httplog-rfc3164.log \
	haproxy-compact.log $more nginx-combined.log truth.tsv | sed 's/^/    /' >&2)
"$LAB_PY" "$LAB_DIR/client.py" summary "$LAB_OUT/truth.tsv" >"$LAB_OUT/summary.md"
cat "$LAB_OUT/summary.md" >&2

[ -n "$save" ] || exit 0

# ---------------------------------------------------------------------------
# Save a compressed capture with its README

lab_msg "saving the capture into $save"
rm -f "$save"/*.zst "$save"/*.cfg
for f in haproxy-httplog.log haproxy-httplog-rfc3164.log haproxy-compact.log \
	nginx-combined.log truth.tsv phases.tsv; do
	zstd -q -19 -f "$LAB_OUT/$f" -o "$save/$f.zst"
done
for m in tarpit deny reject; do
	# paths of the run replaced by a fixed prefix
	sed "s|$LAB_OUT|/var/lib/lbtlab|g" "$LAB_CONF/haproxy-$m.cfg" >"$save/haproxy-$m.cfg"
done
cp "$LAB_OUT/haproxy-compact.template" "$save/haproxy-compact.template"

count() { wc -l <"$LAB_OUT/$1" | tr -d ' '; }
phase_rows=$(awk -F'\t' 'NR > 1 { printf "| %s | %d | %d | %.1f |\n", $1, $2, $3, ($3 - $2) / 1e6 }' \
	"$LAB_OUT/phases.tsv")
reloads=$(awk -F'\t' '{ printf "* %s: reload to `%s` (generation %s) completed\n", $1, $3, $4 }' \
	"$LAB_RUN/events.tsv" 2>/dev/null || true)
hap_status=$(awk '$2 ~ /^\[/ {
		src = $1; sub(/:[0-9]+$/, "", src)
		g = (src == "203.0.113.7") ? "203.0.113.7" : (src ~ /^2001:db8:bad:1:/) ? "2001:db8:bad:1::/64" : "legitimate"
		print g "|" $6 " " $10
	}' "$LAB_OUT/haproxy-httplog.log" | sort | uniq -c |
	awk '{ n = $1; sub(/^ *[0-9]+ /, ""); split($0, a, "|"); printf "| %s | %s | %d |\n", a[1], a[2], n }' |
	sort -t'|' -k2,2 -k3,3)
{
	cat <<EOF
# Incident capture: one ping UUID flooded, tarpit -> deny -> reject

Made by \`tests/lab/incident.sh --save tests/data/incident\` on $(date -u +%Y-%m-%d)
($(lab_versions | tr '\n' ';' | sed 's/;$//; s/;/, /'), Debian 12, TZ=$TZ, 2 cores).
The run took $secs s. Everything happened inside a private network namespace on
loopback; all addresses are documentation addresses.

## Files

| file | lines | what |
|---|---|---|
| haproxy-httplog.log.zst | $(count haproxy-httplog.log) | \`option httplog\`, raw (no syslog header), fe_http (+ be_app events) |
| haproxy-httplog-rfc3164.log.zst | $(count haproxy-httplog-rfc3164.log) | the same lines via \`format rfc3164\` with \`log-send-hostname lb1\` |
| haproxy-compact.log.zst | $(count haproxy-compact.log) | the same requests in the compact template (see below) |
| nginx-combined.log.zst | $(count nginx-combined.log) | NGINX \`combined\`, real client address via realip (X-Forwarded-For from HAProxy) |
| truth.tsv.zst | $(count truth.tsv) | one line per request the client sent (header line first) |
| phases.tsv.zst | $(count phases.tsv) | phase name, start, end (epoch µs; header line first) |
| haproxy-{tarpit,deny,reject}.cfg | | the configuration of each phase (run paths replaced by /var/lib/lbtlab) |
| haproxy-compact.template | 1 | the compact log-format template |

truth.tsv columns: \`send_us src sport method path uuid phase result dur_us dst\`:
send time (epoch µs, just before connect), source address and port, method,
path (bytes outside printable ASCII as \\xHH), the key in the path, phase at
send time, result (HTTP status, or \`timeout\`, \`connect-timeout\`, \`reset\`,
\`eof\`, ...), duration until the response was read (µs), address:port
connected to. HAProxy logs \`%tr\` at accept/request time, so a line's date is
close to, but not exactly, \`send_us\` (requests wait in the listen backlog when
maxconn is reached).

## Topology and rules

* HAProxy 2.6 \`fe_http\` on 192.0.2.1:80, [2001:db8::1]:80 and [::]:80 (v4v6;
  clients connecting to 192.0.2.9 are logged as \`::ffff:a.b.c.d\`),
  \`maxconn 20\`, header captures Host and User-Agent, \`timeout tarpit 1s\`,
  stick table \`type ipv6\` with \`http_req_rate(1s)\`, tracked per source
  address (\`track-sc0 src\`, not per /64).
* tarpit phase: \`http-request tarpit if { sc_http_req_rate(0) gt 10 }\`;
  deny phase: \`http-request deny deny_status 429\` on the same condition;
  reject phase: additionally \`tcp-request connection reject if { src -f offenders.lst }\`
  with \`203.0.113.7\` and \`2001:db8:bad:1::/64\`. Phase changes are master-worker
  reloads (SIGUSR2); the stick table starts empty after each reload.
* Backend: two NGINX 1.22 servers (192.0.2.2:8080 and [2001:db8::2]:8080, same
  process) answering 200 \`OK\` for ping URLs, 404 otherwise.
* The compact file: HAProxy 2.6 has one log-format per frontend, so fe_http
  also carried \`log-format-sd "<compact template>"\`; its rfc5424 target
  therefore got \`<PRI>1 TS lb1 haproxy PID - <compact> <httplog>\`, and
  \`tests/lab/extract_sd.py\` cut the \`<compact>\` part out (every httplog part
  matched a line of the raw file). It is the exact rendering of the template
  for the same requests; event lines (\`Proxy ... stopped\`) are copied as is.

Template: \`$LAB_HAP_COMPACT\`

## Sources

* Legitimate (2 slots each, one request every ~1.6 s per slot, ~1.25 req/s per
  source, ~10 req/s in total, all phases): 192.0.2.10, 192.0.2.11,
  198.51.100.20, 198.51.100.21 (via 192.0.2.9, logged as ::ffff:198.51.100.21),
  203.0.113.8 (**decoy**: same /24 as the offender), 2001:db8:1::10,
  2001:db8:2::20, 2001:db8:bad:2::5 (**decoy**: same /48 as the offending /64).
  Paths \`/ping/<uuid>\`, \`/<uuid>\`, \`/start\`, \`/0\`, \`/1\` suffixes, some HEAD and POST.
* Flood, all \`GET /ping/f768064f-9585-47ad-a39e-ed24c2c063fe\`,
  User-Agent \`Go-http-client/1.1\`, from the start of \`tarpit\` to the end of \`reject\`:
  203.0.113.7 (20 threads) and 8 addresses in 2001:db8:bad:1::/64
  (4 threads each), each thread at most one request per 0.25 s, 10 s client timeout.
* UUIDs: f768064f-9585-47ad-a39e-ed24c2c063fe (flooded, also pinged by
  192.0.2.10 and 2001:db8:bad:2::5), 5966eb44-e0c6-4744-9511-3dc30e9a8df5,
  b9c48cb0-1720-400e-8ca8-2984fcb042d9, a83c546d-bc4d-43dc-96c9-3f01a9f18630,
  ace970fc-cddb-4416-a396-6023df2d5c05, 00633256-e25f-471d-8fe2-c4e12b5eadad,
  e66c0e98-1942-4e8a-b4c6-049fa9998118, 3c19c840-d9f9-4acd-a62d-2465be71c2d9.

## Phases

| phase | start_us | end_us | seconds |
|---|---|---|---|
$phase_rows

$reloads

## Requests per phase and source (from truth.tsv)

$(cat "$LAB_OUT/summary.md")

## HAProxy httplog lines: status and termination state per source group

| sources | status tsc | lines |
|---|---|---|
$hap_status

Not in the HAProxy logs at all: requests refused by \`tcp-request connection
reject\` (truth result \`reset\`) and connections that timed out in the listen
backlog (truth result \`connect-timeout\`).

EOF
} >"$save/README.md"
lab_msg "saved: $(du -sh "$save" | cut -f1) in $save"
