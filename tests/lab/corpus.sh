#!/bin/bash
# corpus.sh - one case of the incident corpus (docs/eval.md): an incident
# class played on real HAProxy and NGINX in a private network namespace,
# with its parameters drawn from a seed, and its truth written from the
# client's own records.
#
# usage: tests/lab/corpus.sh --class CLASS --seed N --out DIR
#
#   classes: flood-tarpit retry-storm surge distributed slow-headers
#            dns-crashloop midnight-shapes calm
#
# Output (DIR): haproxy-lbN.log (one per load balancer, in the shape the
# seed chose: rsyslog-traditional, rfc5424, stdout-iso, custom), conf/
# (haproxy-lbN-MODE.cfg, nginx-*.conf), sources.txt (the lbt inputs),
# plan.json (what the seed decided), truth.tsv (one line per request),
# events.tsv (what the hook did, when), truth.json (what lbt must say).
# About 35-45 s a case, up to a minute more for midnight-shapes (it waits
# for a whole minute to place local midnight inside the run).
set -eu

# shellcheck disable=SC2034 # read by lib.sh
LAB_PROG=corpus
here=$(cd "$(dirname "$0")" && pwd)

# --hook OUT KIND ARG: run by the client inside the namespace
if [ "${1:-}" = --hook ]; then
	out=$2 kind=$3 arg=$4
	# shellcheck disable=SC1091
	. "$out/run/env"
	export TZ=$LAB_TZ
	. "$here/lib.sh"
	LAB_NS=$HOOK_NS LAB_OUT=$out LAB_CONF=$out/conf LAB_RUN=$out/run
	case $kind in
	reload)
		gen=$(($(cat "$LAB_RUN/gen" 2>/dev/null || echo 0) + 1))
		echo "$gen" >"$LAB_RUN/gen"
		for spec in $PLAN_LBS; do
			lb=${spec%%:*}
			sed "s/\"ready $lb $arg\"/\"ready $lb $arg g$gen\"/" "$LAB_CONF/haproxy-$lb-$arg.cfg" \
				>"$LAB_CONF/haproxy-$lb.cfg"
			haproxy -c -q -f "$LAB_CONF/haproxy-$lb.cfg" || lab_die "haproxy -c failed ($lb $arg)"
		done
		for spec in $PLAN_LBS; do
			kill -USR2 "$(lab_pid "haproxy-${spec%%:*}")"
		done
		for spec in $PLAN_LBS; do
			lb=${spec%%:*}
			mon=$(echo "$spec" | cut -d: -f3)
			"$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 "$mon" /ready \
				--expect "ready $lb $arg g$gen" --timeout 15 || lab_die "reload of $lb failed"
		done
		;;
	app-stop) lab_stop "nginx-$arg" QUIT TERM ;;
	app-start)
		lab_bg "nginx-$arg" "$LAB_OUT/nginx-$arg.stdout" "$LAB_OUT/nginx-$arg.stderr" \
			nginx -c "$LAB_CONF/nginx-$arg.conf" -p "$LAB_RUN/" -g "daemon off;"
		"$LAB_PY" "$LAB_DIR/client.py" wait 192.0.2.23 8080 /health --timeout 10 \
			|| lab_die "$arg did not start"
		;;
	*) lab_die "unknown hook '$kind'" ;;
	esac
	printf '%s\t%s\t%s\n' "$(date +%s%6N)" "$kind" "$arg" >>"$LAB_RUN/hook.log"
	exit 0
fi

cls="" seed="" out=""
while [ $# -gt 0 ]; do
	case $1 in
	--class) cls=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "usage: $0 --class CLASS --seed N --out DIR" >&2; exit 1 ;;
	esac
done
[ -n "$cls" ] && [ -n "$seed" ] && [ -n "$out" ] || { echo "usage: $0 --class CLASS --seed N --out DIR" >&2; exit 1; }

# The plan first (in a scratch directory: lab_init empties conf/ and run/),
# for the zone: midnight-shapes needs local midnight inside the run.
mkdir -p "$out"
out=$(cd "$out" && pwd)
/usr/bin/python3 "$here/corpus.py" plan --class "$cls" --seed "$seed" --out "$out/.plan"
# shellcheck disable=SC1091
. "$out/.plan/plan.env"
tz_posix=UTC tz_lbt=UTC midnight_us=""
if [ -n "$PLAN_MIDNIGHT_S" ]; then
	# The next whole minute at least 8 s (the start-up) + PLAN_MIDNIGHT_S
	# away becomes local midnight: offset = -M mod 1 day, in minutes.
	now=$(date +%s)
	m=$(((now + 8 + ${PLAN_MIDNIGHT_S%.*} + 59) / 60 * 60))
	off=$(((86400 - m % 86400) % 86400))
	[ $off -le 43200 ] || off=$((off - 86400))
	sign=+ psign=-
	[ $off -ge 0 ] || { sign=- psign=+; off=$((-off)); }
	hm=$(printf '%02d:%02d' $((off / 3600)) $((off % 3600 / 60)))
	tz_lbt=$sign$hm tz_posix=LBT$psign$hm # POSIX TZ counts west of UTC
	midnight_us=$((m * 1000000))
fi
LAB_TZ=$tz_posix
. "$here/lib.sh"

lab_require zstd:zstd
lab_traps
lab_init "$out"
rm -f "$out"/truth.json "$out"/haproxy-lb*.log "$out"/*.raw
mv "$out/.plan/conf/"* "$LAB_CONF/"
mv "$out/.plan/plan.json" "$out/.plan/plan.env" "$out/.plan/addrs.txt" "$out/"
rm -rf "$out/.plan"
sed -i "s|$out/.plan|$out|g" "$LAB_CONF"/*.cfg "$LAB_CONF"/*.conf
lab_msg "$cls seed $seed: namespace $LAB_NS, output $out, TZ $TZ"
# the case's own addresses (those client.py addrs gave are there already)
while read -r a; do
	case $a in
	*:*) echo "addr add $a/128 dev lo nodad" ;;
	*) echo "addr add $a/32 dev lo" ;;
	esac
done <"$out/addrs.txt" | ip -n "$LAB_NS" -force -batch - 2>/dev/null || true
mkdir -p "$LAB_RUN/nginx-tmp"
cat >"$LAB_RUN/env" <<EOF
HOOK_NS=$LAB_NS
LAB_TZ=$TZ
PLAN_LBS='$PLAN_LBS'
EOF
cat >"$LAB_RUN/hook" <<EOF
#!/bin/sh
exec /bin/bash "$here/corpus.sh" --hook "$out" "\$@"
EOF
chmod 755 "$LAB_RUN/hook"

# syslog sink: one port per load balancer that logs through syslog
sinks=""
for spec in $PLAN_LBS; do
	IFS=: read -r lb shape _ port <<EOF
$spec
EOF
	[ "$shape" = stdout-iso ] || sinks="$sinks $port=$out/$lb.raw"
done
if [ -n "$sinks" ]; then
	# shellcheck disable=SC2086
	lab_bg sink /dev/null "$out/sink.stderr" "$LAB_PY" "$LAB_DIR/syslog_sink.py" \
		--ready "$LAB_RUN/sink.ready" $sinks
	for _ in $(seq 1 50); do
		[ -s "$LAB_RUN/sink.ready" ] && break
		sleep 0.1
	done
	[ -s "$LAB_RUN/sink.ready" ] || lab_die "syslog sink did not start"
fi

start_nginx() { # name address
	lab_bg "nginx-$1" "$out/nginx-$1.stdout" "$out/nginx-$1.stderr" \
		nginx -c "$LAB_CONF/nginx-$1.conf" -p "$LAB_RUN/" -g "daemon off;"
	lab_nsexec "$LAB_PY" "$LAB_DIR/client.py" wait "$2" 8080 /health --timeout 15 \
		|| lab_die "nginx $1 did not come up"
}
start_nginx web 192.0.2.21
[ "$PLAN_APP3" = 0 ] || start_nginx app3 192.0.2.23

for spec in $PLAN_LBS; do
	IFS=: read -r lb shape mon _ <<EOF
$spec
EOF
	cp "$LAB_CONF/haproxy-$lb-normal.cfg" "$LAB_CONF/haproxy-$lb.cfg"
	lab_nsexec haproxy -c -q -f "$LAB_CONF/haproxy-$lb.cfg" || lab_die "haproxy -c failed ($lb)"
	lab_bg "haproxy-$lb" "$out/haproxy-$lb.stdout" "$out/haproxy-$lb.stderr" \
		haproxy -W -db -f "$LAB_CONF/haproxy-$lb.cfg"
done
for spec in $PLAN_LBS; do
	IFS=: read -r lb shape mon _ <<EOF
$spec
EOF
	lab_nsexec "$LAB_PY" "$LAB_DIR/client.py" wait 127.0.0.1 "$mon" /ready \
		--expect "ready $lb normal" --timeout 15 || lab_die "$lb did not come up"
done
sleep 1.2 # the first health checks: every server UP before traffic

if [ -n "$midnight_us" ]; then
	# start the traffic PLAN_MIDNIGHT_S before local midnight
	wait_us=$((midnight_us - ${PLAN_MIDNIGHT_S%.*} * 1000000 - $(date +%s%6N)))
	if [ $wait_us -gt 0 ]; then
		lab_msg "waiting $((wait_us / 1000000)) s so that local midnight falls inside the run"
		sleep "$(awk -v u=$wait_us 'BEGIN { printf "%.3f", u / 1e6 }')"
	fi
fi

lab_msg "traffic for $PLAN_DURATION s"
lab_bg client "$out/client.stdout" "$out/client.stderr" \
	"$LAB_PY" "$here/corpus.py" run --out "$out" --hook "$LAB_RUN/hook"
rc=0
wait "$(lab_pid client)" || rc=$?
rm -f "$LAB_RUN/client.pid"
[ $rc = 0 ] || lab_die "the client failed ($rc), see $out/client.stderr"
sleep 1 # tarpits and datagrams in flight
lab_teardown

# The log of each load balancer in its shape.
for spec in $PLAN_LBS; do
	IFS=: read -r lb shape _ _ <<EOF
$spec
EOF
	case $shape in
	# rsyslog's traditional file format: the RFC 3164 datagram without PRI
	rsyslog-traditional) sed 's/^<[0-9]*>//' "$out/$lb.raw" >"$out/haproxy-$lb.log" ;;
	# rsyslog's RFC 5424 file format keeps the datagram as it came
	rfc5424 | custom) cp "$out/$lb.raw" "$out/haproxy-$lb.log" ;;
	stdout-iso) cp "$out/haproxy-$lb.stdout" "$out/haproxy-$lb.log" ;;
	esac
done
rm -f "$out"/*.raw
# A load balancer that logged nothing is a broken run, never a case to score
for spec in $PLAN_LBS; do
	[ -s "$out/haproxy-${spec%%:*}.log" ] || lab_die "${spec%%:*} logged nothing (see $out/sink.stderr)"
done
"$LAB_PY" "$here/corpus.py" sources --out "$out" --tz "$tz_lbt"
[ -z "$midnight_us" ] || printf '%s\n' "$midnight_us" >"$out/midnight_us"
"$LAB_PY" "$here/corpus.py" truth --out "$out"
lab_msg "done: $(wc -l <"$out/truth.tsv") requests; $(cd "$out" && wc -l haproxy-lb*.log | tail -1)"
