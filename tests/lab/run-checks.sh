#!/bin/sh
# run-checks.sh - the end-to-end lab: replay the tarpit-flood incident on real
# HAProxy and NGINX (tests/lab/incident.sh, in its own network namespace),
# then check the lbt programs against what the client really sent
# (truth.tsv, phases.tsv) and against counts made with awk on the logs;
# then the post-mortem incident (tests/lab/incident2.sh, run in its own
# namespace while the first incident's checks run) against its truth
# (checks-postmortem.sh).
#
# usage: sh tests/lab/run-checks.sh BINDIR      (make check-lab)
#
# Environment:
#   LBT_LAB_QUICK=1     short phases (incident.sh --quick, about 30 s instead of 75 s)
#   LBT_LAB_KEEP=DIR    keep the run's output in DIR (a new or empty directory;
#                       default: kept only when a check fails, in the
#                       temporary directory named at the end)
#   LBT_LAB_FROM=DIR    check an existing incident output instead of a new run
#                       (for working on the checks; no namespace needed);
#                       incident 2's output is taken from DIR/incident2
#                       (where a kept run has it), or LBT_LAB_FROM2=DIR2
#   LBT_LAB_SERIAL=1    run incident 2 after the first incident's checks, not
#                       during them (for timing-sensitive work on it)
#   LBT_LAB_ONLY=1|2    one incident only
#
# Prints one "ok N - what" or "not ok N - what" line per assertion (with
# "#" lines of detail under it), "skip: ..." for what cannot be checked yet,
# and last "lab: N passed, M failed".  Exits 1 on any failure.  Needs root
# (network namespace), gawk and the lab's packages (make deps).  The awk
# helpers are in tests/lab/checks/; every expected number is computed there
# from the logs or from truth.tsv, never taken from lbt's output.
set -u

[ $# -eq 1 ] || { echo "usage: sh $0 BINDIR" >&2; exit 2; }
[ -x "$1/lbt-cat" ] || { echo "lab: no lbt-cat in $1 (build first: make)" >&2; exit 2; }
bin=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
lab=$top/tests/lab
chk=$lab/checks
LC_ALL=C TZ=UTC
export LC_ALL TZ

if [ -z "${LBT_LAB_FROM:-}${LBT_LAB_FROM2:-}" ] && [ "$(id -u)" -ne 0 ]; then
	echo "lab: cannot run: needs root to create a network namespace"
	echo "lab: 0 passed, 1 failed"
	exit 1
fi
for p in gawk zstd; do
	command -v $p >/dev/null 2>&1 || {
		echo "lab: cannot run: $p is missing (run make deps as root)"
		echo "lab: 0 passed, 1 failed"
		exit 1
	}
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lbt-lab.XXXXXX") || exit 1
tmp=$work/t
mkdir -p "$tmp"
out=${LBT_LAB_FROM:-$work/incident}
out2=$work/incident2
if [ -n "${LBT_LAB_FROM2:-}" ]; then out2=$LBT_LAB_FROM2
elif [ -n "${LBT_LAB_FROM:-}" ]; then out2=$LBT_LAB_FROM/incident2
fi
only=${LBT_LAB_ONLY:-}
inc_pid=""
inc2_pid=""
kept=0
n=0 pass=0 fail=0

# On exit: stop the incident if it still runs (its own trap then stops
# HAProxy, NGINX, the client and deletes the namespace), and remove the
# scratch directory unless settle_output kept the run in it.
finish() {
	rc=$?
	trap - EXIT INT TERM
	for p in $inc_pid $inc2_pid; do
		if kill -0 "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		fi
	done
	rm -rf "$tmp"
	[ "$kept" = 1 ] || rm -rf "$work"
	exit "$rc"
}

# settle_output - before the summary line: the run's output goes to
# LBT_LAB_KEEP when that is set, else stays where it is when a check failed
# (a run cannot be repeated exactly), else is removed on exit.
settle_output() {
	# incident 2's output goes inside the first one's (incident2/)
	if [ -d "$work/incident2" ]; then
		mv "$work/incident2.log" "$work/incident2/incident2-run.txt" 2>/dev/null
		mkdir -p "$work/incident"
		mv "$work/incident2" "$work/incident/incident2"
	fi
	[ -d "$work/incident" ] || return 0
	# the run's own log, renamed so that it is not taken for an access log
	mv "$work/incident.log" "$work/incident/incident-run.txt" 2>/dev/null
	if [ -n "${LBT_LAB_KEEP:-}" ]; then
		# an existing directory is never overwritten, only an empty one replaced
		if { rmdir "$LBT_LAB_KEEP" 2>/dev/null || [ ! -e "$LBT_LAB_KEEP" ]; } &&
			mv "$work/incident" "$LBT_LAB_KEEP"; then
			echo "# output kept in $LBT_LAB_KEEP"
			return 0
		fi
		echo "# $LBT_LAB_KEEP exists, not overwritten"
		kept=1
	elif [ "$fail" -gt 0 ]; then
		kept=1
	fi
	[ "$kept" = 0 ] || echo "# output of the run kept in $work/incident"
}
trap finish EXIT
trap 'echo "lab: interrupted"; exit 130' INT
trap 'echo "lab: interrupted"; exit 143' TERM

# t WHAT CMD [ARGS...] - run one assertion: CMD returns 0 when it holds; what
# it prints (numbers on success, the difference on failure) follows as "#".
t() {
	what=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/why" 2>&1; then
		pass=$((pass + 1))
		echo "ok $n - $what"
	else
		fail=$((fail + 1))
		echo "not ok $n - $what"
	fi
	sed 's/^/#   /' "$tmp/why"
}

# col FILE COLUMN,... - columns of a TSV file with a header, by name
col() { gawk -F'\t' -v cols="$2" -f "$chk/tsvcol.awk" "$1"; }

# ms ISO-TIME - epoch milliseconds of an ISO 8601 time
ms() { date -u -d "$1" +%s%3N; }

# same A B - the two files are equal; show the start of the difference
same() {
	cmp -s "$1" "$2" && return 0
	diff "$1" "$2" | head -8
	return 1
}

# ran WHAT STATUS - a program run for a check exited 0; else say so and
# fail: output cut short by a crash (128+signal) is nothing to compare
ran() {
	[ "$2" -eq 0 ] && return 0
	echo "$1: exit status $2"
	return 1
}

# ---------------------------------------------------------------------------
# The run

run_incident() {
	mode=""
	[ "${LBT_LAB_QUICK:-0}" = 1 ] && mode=--quick
	t0=$(date +%s)
	# shellcheck disable=SC2086
	bash "$lab/incident.sh" --out "$out" $mode >"$work/incident.log" 2>&1 &
	inc_pid=$!
	wait "$inc_pid"
	rc=$?
	inc_pid=""
	secs=$(($(date +%s) - t0))
	echo "incident.sh ${mode:-(full)}: exit $rc after $secs s, output in $out"
	[ "$rc" -eq 0 ] || { tail -20 "$work/incident.log"; return 1; }
	for f in truth.tsv phases.tsv haproxy-httplog.log run/events.tsv conf/offenders.lst; do
		[ -s "$out/$f" ] || { echo "missing: $out/$f"; return 1; }
	done
}

# incident 2 in the background (started once the first incident is done,
# so that the two namespaces never run at once), then its status
run_incident2_start() {
	mode=""
	[ "${LBT_LAB_QUICK:-0}" = 1 ] && mode=--quick
	inc2_t0=$(date +%s)
	# shellcheck disable=SC2086
	bash "$lab/incident2.sh" --out "$out2" $mode >"$work/incident2.log" 2>&1 &
	inc2_pid=$!
}
run_incident2() {
	wait "$inc2_pid"
	rc=$?
	inc2_pid=""
	echo "incident2.sh ${mode:-(full)}: exit $rc after $(($(date +%s) - inc2_t0)) s, output in $out2"
	[ "$rc" -eq 0 ] || { tail -20 "$work/incident2.log"; return 1; }
	for f in truth.tsv phases.tsv events.tsv expected-events.tsv run/ns; do
		[ -s "$out2/$f" ] || { echo "missing: $out2/$f"; return 1; }
	done
}

# lab_cleaned [DIR] - the namespace is gone and nothing the lab started
# still runs: no process has the run's output directory on its command
# line (HAProxy, NGINX, the syslog sink and the client all do while they run).
lab_cleaned() {
	d=${1:-$out}
	ns=$(cat "$d/run/ns")
	if ip netns list | grep -qw "$ns"; then echo "namespace $ns still there"; return 1; fi
	left=""
	for c in /proc/[0-9]*/cmdline; do
		if { tr '\0' ' ' <"$c"; } 2>/dev/null | grep -qF -- "$d/"; then
			p=${c#/proc/}
			left="$left ${p%/cmdline}"
		fi
	done
	if [ -n "$left" ]; then
		for p in $left; do echo "still running: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done
		return 1
	fi
	echo "namespace $ns deleted, no process left"
}

if [ -n "${LBT_LAB_FROM:-}" ]; then
	echo "# checking the existing output in $out (LBT_LAB_FROM)"
	[ -s "$out/truth.tsv" ] || { echo "lab: no truth.tsv in $out"; exit 1; }
elif [ "$only" = 2 ]; then
	[ -n "${LBT_LAB_FROM2:-}" ] || run_incident2_start
else
	t "incident replayed on HAProxy and NGINX in a network namespace" run_incident
	if [ "$fail" -gt 0 ]; then
		settle_output
		echo "lab: $pass passed, $fail failed"
		exit 1
	fi
	t "the lab stopped everything it started" lab_cleaned
	[ "$only" = 1 ] || [ "${LBT_LAB_SERIAL:-0}" = 1 ] || run_incident2_start
fi

# ---------------------------------------------------------------------------
# Incident 2, the post-mortem (incident2.sh, checks-postmortem.sh): run last
# (section 9), or alone with LBT_LAB_ONLY=2

incident2_checks() {
	[ "$only" != 1 ] || return 0
	if [ -z "${LBT_LAB_FROM:-}${LBT_LAB_FROM2:-}" ]; then
		[ -n "$inc2_pid" ] || run_incident2_start # LBT_LAB_SERIAL=1
		t "incident 2 replayed on three HAProxy and three NGINX in a network namespace" run_incident2 &&
			t "incident 2: the lab stopped everything it started" lab_cleaned "$out2"
	elif [ ! -d "$out2" ]; then
		echo "skip: incident 2: no output in $out2"
	else
		echo "# checking incident 2's existing output in $out2"
	fi
	[ -d "$out2" ] || return 0
	# shellcheck disable=SC1091 # checked on its own
	type lbs_col >/dev/null 2>&1 || . "$lab/checks-lbs.sh" >/dev/null # its helpers
	# shellcheck disable=SC1091 # checked on its own
	. "$lab/checks-postmortem.sh"
}
if [ "$only" = 2 ]; then
	echo "# the first incident left out (LBT_LAB_ONLY=2)"
	incident2_checks
	settle_output
	echo "lab: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

# ---------------------------------------------------------------------------
# What the run was: phases, offenders and the flooded UUID, from the lab's
# own files (phases.tsv, offenders.lst, truth.tsv)

phase_start() { gawk -F'\t' -v p="$1" '$1 == p { print int($2 / 1000) }' "$out/phases.tsv"; }
phase_end() { gawk -F'\t' -v p="$1" '$1 == p { print int($3 / 1000) }' "$out/phases.tsv"; }
tarpit_start=$(phase_start tarpit)
tarpit_end=$(phase_end tarpit)
# the reload to deny completed: until then the tarpit rule was in force
deny_ready=$(gawk -F'\t' '$2 == "reload" && $3 == "deny" { print int($1 / 1000); exit }' "$out/run/events.tsv")
reject_ready=$(gawk -F'\t' '$2 == "reload" && $3 == "reject" { print int($1 / 1000); exit }' "$out/run/events.tsv")
off4=$(grep -v : "$out/conf/offenders.lst")
off6=$(grep : "$out/conf/offenders.lst")
decoy4=203.0.113.8
decoy6=2001:db8:bad:2::/64
# The requests of lb1's fe_http (the one LB of the single-LB checks): the
# truth.tsv rows with those lb and frontend columns (all rows of a run
# without them).
gawk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	!("lb" in c) || ($(c["lb"]) == "lb1" && $(c["frontend"]) == "fe_http")' "$out/truth.tsv" >"$tmp/truth-lb1.tsv"
gawk -F'\t' -f "$chk/net.awk" -f "$chk/truth.awk" "$tmp/truth-lb1.tsv" | sort >"$tmp/truth.src"
flood_uuid=$(gawk -F'\t' -f "$chk/net.awk" -v a="$off4" -v b="$off6" \
	-e 'NR > 1 { s = net($2) } NR > 1 && (s == a || s == b) { print $6 }' "$out/truth.tsv" | sort -u)
# the first request of an offender (ms)
flood_first=$(gawk -F'\t' -f "$chk/net.awk" -v a="$off4" -v b="$off6" \
	-e 'NR > 1 { s = net($2) } NR > 1 && (s == a || s == b) && (!m || $1 < m) { m = $1 }
	END { print int(m / 1000) }' "$out/truth.tsv")

# The lab did what it says: the two sources that sent the most are the two
# of offenders.lst, they sent only the flooded UUID, the decoys sent too,
# and the flood began with the tarpit phase (each flood thread waits up to
# 0.25 s before its first request).
truth_sane() {
	top2=$(sort -t "$(printf '\t')" -k2,2nr "$tmp/truth.src" | head -2 | cut -f1 | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$off4" "$off6" | sort | tr '\n' ' ')
	echo "offenders.lst: ${want% }; flooded UUID: $flood_uuid"
	echo "tarpit phase: $tarpit_start .. $tarpit_end ms; reload to deny ready at $deny_ready ms"
	d=$((flood_first - tarpit_start))
	echo "first offender request $d ms after the start of the tarpit phase"
	if [ "$d" -lt 0 ] || [ "$d" -gt 1000 ]; then echo "the flood did not start with the tarpit phase"; return 1; fi
	[ "$top2" = "$want" ] || { echo "the two biggest senders in truth.tsv are $top2"; return 1; }
	[ "$(echo "$flood_uuid" | wc -w)" -eq 1 ] || { echo "offenders sent several UUIDs"; return 1; }
	for d in $decoy4 $decoy6; do
		grep -q "^$d	" "$tmp/truth.src" || { echo "decoy $d sent nothing"; return 1; }
	done
	if [ -z "$tarpit_start" ] || [ -z "$deny_ready" ] || [ -z "$reject_ready" ]; then
		echo "no tarpit phase, deny reload or reject reload"; return 1
	fi
}
t "truth.tsv: the offenders of offenders.lst flooded one UUID from the tarpit phase on; decoys present" truth_sane

# ---------------------------------------------------------------------------
# 1. lbt-cat parses every request line of every log

tpl=$(cat "$out/haproxy-compact.template")
cfg=$out/conf/haproxy-tarpit.cfg
ngx=$out/conf/nginx.conf

# cat_file FILE SHAPE LBT-OPTIONS... - lbt-cat reads FILE without a malformed
# line, its records are the request lines counted by awk (logcount.awk, by
# shape), and --events adds exactly the event lines
cat_file() {
	f=$1 shape=$2
	shift 2
	set -- "$@" "$out/$f"
	"$bin/lbt-cat" "$@" >"$tmp/cat.tsv" 2>"$tmp/cat.err"
	rc=$?
	"$bin/lbt-cat" --events "$@" >"$tmp/catev.tsv" 2>/dev/null
	rcev=$?
	# shellcheck disable=SC2046 # three numbers
	set -- $(gawk -v shape="$shape" -f "$chk/logcount.awk" "$out/$f")
	req=$1 ev=$2 other=$3
	recs=$(($(wc -l <"$tmp/cat.tsv") - 1))
	all=$(($(wc -l <"$tmp/catev.tsv") - 1))
	echo "$f: awk: $req request lines, $ev event lines, $other others; lbt-cat: $recs records, $((all - recs)) events"
	ok=0
	# no request line: lbt-cat's answer is empty, exit 2 (docs/exit-status.md)
	[ "$req" -eq 0 ] && [ "$rc" -eq 2 ] && rc=0
	ran lbt-cat "$rc" || ok=1
	ran "lbt-cat --events" "$rcev" || ok=1
	# the note of an empty answer counts its lines ("0 malformed"): not a complaint
	if grep -v ': no request in the input (' "$tmp/cat.err" | grep -E 'malformed|:[0-9]+: '; then
		ok=1
	fi
	[ "$other" -eq 0 ] || { echo "awk: $other lines are neither requests nor events"; ok=1; }
	[ "$recs" -eq "$req" ] || { echo "records $recs != request lines $req"; ok=1; }
	[ "$all" -eq $((req + ev)) ] || { echo "with --events $all != $((req + ev))"; ok=1; }
	return $ok
}

# fields FILE SHAPE LBT-OPTIONS... - per line, the fields lbt-cat parsed
# equal those awk reads (logfields.awk): line time client port status term
# Tw fc key
fields() {
	f=$1 shape=$2
	shift 2
	gawk -v shape="$shape" -f "$chk/logfields.awk" "$out/$f" | cut -f1-9 >"$tmp/want.f"
	"$bin/lbt-cat" "$@" "$out/$f" 2>/dev/null >"$tmp/cat.tsv"
	ran lbt-cat $? || return 1
	col "$tmp/cat.tsv" line,time,client,port,status,term,Tw,fc,key >"$tmp/got.f"
	echo "$f: $(wc -l <"$tmp/want.f") lines compared"
	[ -s "$tmp/want.f" ] || { echo "awk found no request line"; return 1; }
	same "$tmp/want.f" "$tmp/got.f"
}

# The logs of one run, and how to read each.  Every *.log of the output
# must be listed, so that a new log of the lab is not left out silently.
httplogs="haproxy-httplog.log haproxy-httplog-rfc3164.log haproxy-httplog-local.log \
haproxy-httplog-short.log haproxy-httplog-timed.log haproxy-httplog-iso.log \
haproxy-httplog-priority.log"
for f in $(cd "$out" && ls -- *.log); do
	case " $httplogs " in
	*" $f "*)
		t "lbt-cat $f: every request line, 0 malformed" cat_file "$f" httplog --format haproxy-httplog
		t "lbt-cat $f: time client port status term Tw fc key as awk reads them" \
			fields "$f" httplog --format haproxy-httplog
		continue ;;
	esac
	case $f in
	haproxy-compact.log)
		t "lbt-cat $f (--log-format template): every request line, 0 malformed" \
			cat_file "$f" compact --log-format "$tpl"
		t "lbt-cat $f (--haproxy-cfg, fe_compact): every request line, 0 malformed" \
			cat_file "$f" compact --haproxy-cfg "$cfg" --frontend fe_compact
		t "lbt-cat $f: time client port status term Tw fc key as awk reads them" \
			fields "$f" compact --log-format "$tpl" ;;
	# Only HAProxy's "Proxy ... stopped" lines: fe_http is the one frontend
	# the incident sends to, the other frontends log their shutdown.
	haproxy-clf.log) t "lbt-cat $f: event lines only" cat_file "$f" httplog --format haproxy-clf ;;
	haproxy-httpslog.log) t "lbt-cat $f: event lines only" cat_file "$f" httplog --format haproxy-httpslog ;;
	# fe_tcp's pings (several LBs) or its event lines only (one LB)
	haproxy-tcplog.log) t "lbt-cat $f: every request line, 0 malformed" cat_file "$f" httplog --format haproxy-tcplog ;;
	haproxy-lb2.log)
		lb2cfg=$out/conf/haproxy-lb2-tarpit.cfg
		t "lbt-cat $f (--haproxy-cfg, fe_edge: custom format, rfc5424): every request line, 0 malformed" \
			cat_file "$f" edge --haproxy-cfg "$lb2cfg" --frontend fe_edge
		t "lbt-cat $f: time client port status term Tw fc key as awk reads them" \
			fields "$f" edge --haproxy-cfg "$lb2cfg" --frontend fe_edge ;;
	haproxy-mixed.log)
		echo "skip: lbt-cat $f: httplog and tcplog lines in one file need a format per frontend" \
			"(--input with haproxy.cfg); its lines are checked with awk below" ;;
	haproxy-legacy.log)
		t "lbt-cat $f: event lines only" cat_file "$f" httplog --haproxy-cfg "$cfg" --frontend fe_legacy ;;
	nginx-combined.log | nginx-syslog.log)
		t "lbt-cat $f: every request line, 0 malformed" cat_file "$f" nginx --format nginx-combined
		t "lbt-cat $f: time client status key as awk reads them" fields "$f" nginx --format nginx-combined ;;
	nginx-main.log)
		t "lbt-cat $f (--nginx-conf, main): every request line, 0 malformed" \
			cat_file "$f" nginx --nginx-conf "$ngx" --log-name main
		t "lbt-cat $f: time client status key as awk reads them" \
			fields "$f" nginx --nginx-conf "$ngx" --log-name main ;;
	nginx-json.log)
		t "lbt-cat $f (--nginx-conf, json): every request line, 0 malformed" \
			cat_file "$f" nginx-json --nginx-conf "$ngx" --log-name json ;;
	haproxy-httplog-rfc5424.log)
		echo "skip: lbt-cat $f: a lab artefact, not a log format: its structured-data field" \
			"carries the compact line (log-format-sd, see extract_sd.py); its two halves are" \
			"checked as haproxy-compact.log and haproxy-httplog.log" ;;
	nginx-error.log | nginx-error-syslog.log)
		echo "skip: lbt-cat $f: NGINX error log, not an access log" ;;
	*) t "lbt-cat $f: a log this script knows how to read" sh -c "echo 'unknown log $f: add it to $0'; false" ;;
	esac
done

# The same requests in every HAProxy rendering give the same records (the
# fields all of them carry), and NGINX's four access logs agree.
hapflds=time,client,port,frontend,backend,server,method,path,status,bytes,TR,Tw,Tc,Tr,Ta,term,ac,fc,bc,sc,rc,sq,bq,key
ngxflds=client,method,path,status,bytes,ua,key

# records FIELDS FILE LBT-OPTIONS... - the sorted FIELDS of FILE's records;
# fails when lbt-cat does
records() {
	flds=$1 f=$2
	shift 2
	"$bin/lbt-cat" "$@" "$out/$f" 2>/dev/null >"$tmp/rec.tsv"
	ran "lbt-cat $f" $? >&2 || return 1
	col "$tmp/rec.tsv" "$flds" | sort
}

renderings() {
	records $hapflds haproxy-httplog.log --format haproxy-httplog >"$tmp/ref.r" || return 1
	[ -s "$tmp/ref.r" ] || { echo "no record in haproxy-httplog.log"; return 1; }
	for f in $httplogs; do
		records $hapflds "$f" --format haproxy-httplog >"$tmp/got.r" || return 1
		same "$tmp/ref.r" "$tmp/got.r" || { echo "($f differs from haproxy-httplog.log)"; return 1; }
	done
	# The compact line's time is the accept date (%Ts%ms), the httplog one the
	# request date (%tr), a few ms later when the request came late; and
	# HAProxy renders the structured data (the compact line) apart from the
	# message, so the connection counters read by each may differ when
	# another thread accepted or closed in between.  Compare the other
	# fields (times and fc are checked against awk above).
	f2=client,port,frontend,backend,server,method,path,status,bytes,TR,Tw,Tc,Tr,Ta,term,sq,bq,key
	records $f2 haproxy-httplog.log --format haproxy-httplog >"$tmp/ref.r" || return 1
	records $f2 haproxy-compact.log --log-format "$tpl" >"$tmp/got.r" || return 1
	same "$tmp/ref.r" "$tmp/got.r" || { echo "(haproxy-compact.log differs from haproxy-httplog.log)"; return 1; }
	echo "$(wc -l <"$tmp/ref.r") records alike in $(echo "$httplogs" | wc -w) httplog files and the compact one"
	records $ngxflds nginx-combined.log --format nginx-combined >"$tmp/ref.r" || return 1
	[ -s "$tmp/ref.r" ] || { echo "no record in nginx-combined.log"; return 1; }
	records $ngxflds nginx-syslog.log --format nginx-combined >"$tmp/got.r" || return 1
	same "$tmp/ref.r" "$tmp/got.r" || { echo "(nginx-syslog.log differs from nginx-combined.log)"; return 1; }
	for v in main json; do
		records $ngxflds nginx-$v.log --nginx-conf "$ngx" --log-name $v >"$tmp/got.r" || return 1
		same "$tmp/ref.r" "$tmp/got.r" || { echo "(nginx-$v.log differs from nginx-combined.log)"; return 1; }
	done
	echo "$(wc -l <"$tmp/ref.r") records alike in the 4 NGINX access logs"
}
t "lbt-cat: every rendering of the same requests gives the same records" renderings

# ---------------------------------------------------------------------------
# The analyses read the raw httplog file of fe_http; awk reads the same file.

lf=$out/haproxy-httplog.log
gawk -v shape=httplog -f "$chk/logfields.awk" "$lf" >"$tmp/fields.tsv"
gawk -F'\t' -f "$chk/net.awk" -f "$chk/logsources.awk" "$tmp/fields.tsv" | sort >"$tmp/log.src"
# logged SOURCE - the log.src row of a source (requests 2xx 3xx 4xx 429 5xx pt held)
logged() { gawk -F'\t' -v s="$1" '$1 == s' "$tmp/log.src"; }

# 2. lbt-rate: the flooded UUID first, its jump at the flood start

rate_first() {
	"$bin/lbt-rate" --format haproxy-httplog "$lf" >"$tmp/rate.tsv" || return 1
	col "$tmp/rate.tsv" key,total,peak_rps,jump_start,jump_end | head -1 >"$tmp/rate.1"
	read -r key total peak js je <"$tmp/rate.1"
	want=$(gawk -F'\t' -v k="$flood_uuid" '$9 == k' "$tmp/fields.tsv" | wc -l)
	echo "first: $key, $total requests (awk: $want), peak $peak/s, jump $js .. $je"
	[ "$key" = "$flood_uuid" ] && [ "$total" -eq "$want" ]
}
t "lbt-rate names the flooded UUID first (truth.tsv), with its request count (awk)" rate_first

rate_jump() {
	read -r key total peak js je <"$tmp/rate.1"
	[ -n "$js" ] || { echo "no jump_start for $key"; return 1; }
	d=$(($(ms "$js") - tarpit_start))
	echo "jump_start $js is $d ms from the start of the tarpit phase (flood start)"
	[ "$d" -ge -2000 ] && [ "$d" -le 2000 ]
}
t "lbt-rate: the jump starts within 2 s of the flood start (phases.tsv)" rate_jump

# 3. lbt-offenders: the two offenders first, exact counts, decoys apart

"$bin/lbt-offenders" --no-geoip --top 0 --format haproxy-httplog "$lf" >"$tmp/off.tsv" 2>"$tmp/off.err"
off_rc=$?
col "$tmp/off.tsv" source,requests,status,tarpit,held_s >"$tmp/off.c"

off_top2() {
	ran lbt-offenders "$off_rc" || return 1
	ok=0
	for r in 1 2; do
		# shellcheck disable=SC2046 # source requests ...
		set -- $(sed -n "${r}p" "$tmp/off.c")
		set -- "$1" "$2" "$(logged "$1" | cut -f2)"
		echo "rank $r: $1, $2 requests (awk: $3)"
		case $1 in "$off4" | "$off6") ;; *) echo "  not an offender"; ok=1 ;; esac
		[ "$2" = "$3" ] || ok=1
	done
	[ "$(head -2 "$tmp/off.c" | cut -f1 | sort -u | wc -l)" -eq 2 ] || ok=1
	return $ok
}
t "lbt-offenders ranks $off4 and $off6 first and second, request counts = awk's" off_top2

off_decoys() {
	ran lbt-offenders "$off_rc" || return 1
	ok=0
	for d in $decoy4 $decoy6; do
		r=$(cut -f1 "$tmp/off.c" | grep -nxF "$d" | cut -d: -f1)
		got=$(gawk -F'\t' -v s="$d" '$1 == s { print $2 }' "$tmp/off.c")
		want=$(logged "$d" | cut -f2)
		echo "decoy $d: rank ${r:-none}, ${got:-no} requests (awk: $want)"
		[ -n "$r" ] && [ "$r" -gt 2 ] && [ "$got" = "$want" ] || ok=1
	done
	# nothing merged the offender with its decoy: no /24 or /48 row
	if cut -f1 "$tmp/off.c" | grep -E '/(2[0-4]|4[0-8])$'; then ok=1; fi
	return $ok
}
t "lbt-offenders keeps the decoys $decoy4 and $decoy6 apart, lower-ranked, exact" off_decoys

# Every source: requests, status mix, tarpitted and held seconds as awk
# counts them (the status mix in lbt-offenders' notation).
off_all() {
	gawk -F'\t' -v OFS='\t' '{
		st = ""
		split("2xx 3xx 4xx 429 5xx", b, " ")
		for (i = 1; i <= 5; i++) if ($(i + 2) > 0) st = st (st == "" ? "" : " ") b[i] ":" $(i + 2)
		print $1, $2, st, $8, $9
	}' "$tmp/log.src" | sort >"$tmp/want.o"
	ran lbt-offenders "$off_rc" || return 1
	sort "$tmp/off.c" >"$tmp/got.o"
	echo "$(wc -l <"$tmp/want.o") sources compared (source requests status tarpit held_s)"
	same "$tmp/want.o" "$tmp/got.o" && ! grep . "$tmp/off.err"
}
t "lbt-offenders: every source's requests, status mix, tarpit and held_s = awk's" off_all

# The log against the client's truth, per source: a request is in the log
# unless HAProxy never accepted it (connect-timeout, refused) or refused it
# at the TCP level (result "reset" in the reject phase: "tcp-request
# connection reject" closes before any HTTP processing and logs nothing);
# so logged = sent - never.  A request that ended in another error (client
# timeout, eof) may or may not have been logged: it widens the bounds by one
# ("unknown", 0 in the runs seen so far).  The HTTP statuses the client got
# are those logged, bucket by bucket, within the same "unknown".
truth_vs_log() {
	ok=0
	while IFS="$(printf '\t')" read -r s sent never unk t2 t3 t4 t429 t5; do
		# shellcheck disable=SC2046 # six numbers, or none
		set -- $(logged "$s" | cut -f2-7)
		l=${1:-0} l2=${2:-0} l3=${3:-0} l4=${4:-0} l429=${5:-0} l5=${6:-0}
		lo=$((sent - never - unk)) hi=$((sent - never))
		dev=$(( (l2 > t2 ? l2 - t2 : t2 - l2) + (l3 > t3 ? l3 - t3 : t3 - l3) +
			(l4 > t4 ? l4 - t4 : t4 - l4) + (l429 > t429 ? l429 - t429 : t429 - l429) +
			(l5 > t5 ? l5 - t5 : t5 - l5) ))
		case $s in "$off4" | "$off6" | "$decoy4" | "$decoy6") show=1 ;; *) show=0 ;; esac
		if [ "$l" -lt "$lo" ] || [ "$l" -gt "$hi" ] || [ "$dev" -gt "$unk" ]; then ok=1 show=1; fi
		[ $show = 1 ] && echo "$s: sent $sent, never logged $never, unknown $unk; logged $l" \
			"(expected $lo..$hi); statuses off by $dev"
	done <"$tmp/truth.src"
	cut -f1 "$tmp/truth.src" >"$tmp/truth.names"
	if cut -f1 "$tmp/log.src" | grep -vxF -f "$tmp/truth.names"; then echo "(sources logged, never sent)"; ok=1; fi
	return $ok
}
t "every source: log lines = requests sent - never logged (truth.tsv), statuses alike" truth_vs_log

# 4. lbt-tarpit: held seconds = sum of Tw over PT lines; saturation in the tarpit phase

"$bin/lbt-tarpit" --tsv --haproxy-cfg "$cfg" --frontend fe_http "$lf" >"$tmp/tp.sum" 2>"$tmp/tp.err"
tp_rc=$?
tp_held() {
	ran lbt-tarpit "$tp_rc" || return 1
	col "$tmp/tp.sum" frontend,tarpitted,held_s,maxconn,maxconn_from >"$tmp/tp.1"
	IFS="$(printf '\t')" read -r fe pt held mc from <"$tmp/tp.1"
	want=$(gawk -F'\t' '$6 ~ /^PT/ { n++; s += $7 } END { printf "%d %d.%03d", n, int(s / 1000), s % 1000 }' \
		"$tmp/fields.tsv")
	echo "$fe: $pt tarpitted, held $held s, maxconn $mc ($from); awk: $want"
	[ "$pt $held" = "$want" ] && [ "$mc" = 20 ]
}
t "lbt-tarpit: held seconds (Tw) = awk's sum of Tw over PT lines, to the ms" tp_held

tp_held_compact() {
	"$bin/lbt-tarpit" --tsv --maxconn 20 --log-format "$tpl" "$out/haproxy-compact.log" >"$tmp/tpc.sum" 2>/dev/null
	ran lbt-tarpit $? || return 1
	held=$(col "$tmp/tpc.sum" held_s)
	want=$(gawk -v shape=compact -f "$chk/logfields.awk" "$out/haproxy-compact.log" |
		gawk -F'\t' '$6 ~ /^PT/ { s += $7 } END { printf "%d.%03d", int(s / 1000), s % 1000 }')
	echo "compact: held $held s; awk: $want"
	[ "$held" = "$want" ]
}
t "lbt-tarpit on the compact log (Tt timers): held seconds = awk's sum" tp_held_compact

tp_sources() {
	"$bin/lbt-tarpit" --tsv --maxconn 20 --by-source --format haproxy-httplog "$lf" >"$tmp/tps.tsv" 2>/dev/null
	ran lbt-tarpit $? || return 1
	col "$tmp/tps.tsv" source,requests,tarpitted,held_s | sort >"$tmp/got.s"
	cut -f1,2,8,9 "$tmp/log.src" | sort >"$tmp/want.s"
	echo "$(wc -l <"$tmp/want.s") sources compared (source requests tarpitted held_s)"
	same "$tmp/want.s" "$tmp/got.s"
}
t "lbt-tarpit --by-source: each source's tarpitted and held seconds = awk's" tp_sources

# Saturation: the periods at >= 90 % of maxconn 20 (18 slots).  The tarpit
# rule is in force from the flood start (tarpit phase) until the reload to
# deny is complete; a request tarpitted just before holds its slot for
# "timeout tarpit 1s" more, +0.5 s for its own accept and timers.  On a quiet
# machine every logged period lies in [flood start, deny ready + 1.5 s].  The
# flood goes on through the deny phase, answered at once; but on a loaded
# machine (2 cores, a build beside the lab) HAProxy answers it late enough
# that its connections alone can fill 18 slots.  The tolerance follows the
# schedule: a period may reach until the reload to reject is complete + 1.5 s
# (the flood's last connections), is reported when it lies past deny ready,
# and the first one begins within 2 s of the flood start (52 flood threads,
# 1 s holds, 20 slots: full in well under a second).
tp_saturation() {
	"$bin/lbt-tarpit" --maxconn 20 --periods --format haproxy-httplog "$lf" >"$tmp/tpp.tsv" 2>/dev/null
	ran lbt-tarpit $? || return 1
	gawk -F'\t' -v OFS='\t' 'NR == 1 || $3 == "logged"' "$tmp/tpp.tsv" >"$tmp/tpp.l"
	col "$tmp/tpp.l" start,end,seconds,peak >"$tmp/tpp.c"
	lo=$tarpit_start hi=$((reject_ready + 1500))
	[ -s "$tmp/tpp.c" ] || { echo "no period at >= 90 % of maxconn"; return 1; }
	ok=0 first=""
	while read -r s e secs peak; do
		a=$(ms "$s") b=$(ms "$e")
		[ -n "$first" ] || first=$a
		echo "period $s .. $e ($secs s, peak $peak): starts $((a - lo)) ms after the flood start," \
			"ends $((b - deny_ready)) ms after the deny reload"
		if [ "$a" -lt "$lo" ] || [ "$b" -gt "$hi" ]; then echo "  outside [flood start, reject ready + 1.5 s]"; ok=1
		elif [ "$b" -gt $((deny_ready + 1500)) ]; then echo "  (into the deny phase: a loaded machine)"; fi
	done <"$tmp/tpp.c"
	[ $((first - lo)) -le 2000 ] || { echo "the first period starts late"; ok=1; }
	return $ok
}
t "lbt-tarpit: saturation (>= 90 % of maxconn 20) starts with the flood, ends with it" tp_saturation

# The "fc at maxconn" evidence: the 10 s buckets (epoch-aligned) where the
# logged fc reached 19 or 20 are exactly those awk finds in the log, each
# with an evidence line that logged such an fc.  fc is the count when the
# line is logged, at the request's end, so a request counts in the bucket
# of its date + dur (logfields.awk's duration from the timers); the tarpit phase
# has some (it held all 20 slots); and, with the tolerance of tp_saturation,
# each overlaps [flood start, reject ready + 1.5 s].
tp_full() {
	"$bin/lbt-tarpit" --maxconn 20 --step 10s --full --top 0 --format haproxy-httplog "$lf" >"$tmp/tpf.tsv" 2>/dev/null
	ran lbt-tarpit $? || return 1
	col "$tmp/tpf.tsv" time,fc_max,evidence >"$tmp/tpf.c"
	[ -s "$tmp/tpf.c" ] || { echo "no full bucket"; return 1; }
	gawk -F'\t' -v OFS='\t' '{
		split($2, d, /[-T:.Z]/)
		end_ms = mktime(d[1] " " d[2] " " d[3] " " d[4] " " d[5] " " d[6], 1) * 1000 + d[7] + $10
		b = int(end_ms / 10000) * 10
		if ($8 != "-" && $8 + 0 > max[b] + 0) max[b] = $8
	} END { for (b in max) if (max[b] >= 19)
		print strftime("%Y-%m-%dT%H:%M:%SZ", b, 1), max[b] }' "$tmp/fields.tsv" | sort >"$tmp/tpf.want"
	cut -f1,2 "$tmp/tpf.c" | sed 's/\.000Z\t/Z\t/' | sort >"$tmp/tpf.got"
	same "$tmp/tpf.want" "$tmp/tpf.got" || { echo "(awk's full buckets, then lbt's)"; return 1; }
	ok=0 intarpit=0
	while read -r s fc ev; do
		a=$(ms "$s")
		line=${ev##*:}
		evfc=$(gawk -F'\t' -v l="$line" '$1 == l { print $8 }' "$tmp/fields.tsv")
		echo "full bucket $s: fc $fc, e.g. $ev (fc $evfc)"
		[ "$evfc" = "$fc" ] || { echo "  the evidence line logged fc $evfc"; ok=1; }
		if [ $((a + 10000)) -le "$tarpit_start" ] || [ "$a" -gt $((reject_ready + 1500)) ]; then
			echo "  outside [flood start, reject ready + 1.5 s]"; ok=1
		elif [ "$a" -le $((deny_ready + 1500)) ]; then intarpit=1
		else echo "  (in the deny phase: a loaded machine)"; fi
	done <"$tmp/tpf.c"
	[ $intarpit = 1 ] || { echo "no full bucket in the tarpit phase"; ok=1; }
	return $ok
}
t "lbt-tarpit --full: the fc-at-maxconn buckets and evidence are awk's, in the flood" tp_full

# 5. lbt-index, then --db: the same output as from the logs

# db_same MASK NAME PROGRAM VARIANTS RAW-INPUT... - run PROGRAM with each of
# VARIANTS (option lists separated by ';') on the raw input and on
# $tmp/NAME.db; stdout and stderr must be equal.  The detection notes of the
# raw run are left out (they are about reading files: the index has none
# to detect).  MASK=1 replaces the evidence pointers (file:line) by
# "<evidence>" first: which of several fitting lines a program names may
# depend on the order it reads the records in, and the index gives them in
# time order, the logs in the order HAProxy wrote them; MASK=0 compares
# them too.
db_same() {
	mask=$1 name=$2 prog=$3 variants="$4;"
	shift 4
	ok=0
	while [ -n "$variants" ]; do
		v=${variants%%;*}
		variants=${variants#*;}
		# shellcheck disable=SC2086
		"$bin/$prog" $v "$@" >"$tmp/raw.out" 2>"$tmp/raw.err"
		rc1=$?
		# shellcheck disable=SC2086
		"$bin/$prog" $v --db "$tmp/$name.db" >"$tmp/db.out" 2>"$tmp/db.err"
		rc2=$?
		if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ ! -s "$tmp/raw.out" ]; then
			echo "$prog $v: exit $rc1 from the log, $rc2 from the index, $(wc -l <"$tmp/raw.out") lines"
			head -3 "$tmp/raw.err" "$tmp/db.err"
			ok=1
			continue
		fi
		for f in raw db; do
			grep -v 'format detected as' "$tmp/$f.err" >>"$tmp/$f.out"
			if [ "$prog" = lbt-cat ]; then # the index gives the records in time order
				sort "$tmp/$f.out" >"$tmp/$f.s"
			elif [ "$mask" = 1 ]; then
				sed -E 's#[^[:space:](]+\.log:[0-9]+#<evidence>#g' "$tmp/$f.out" >"$tmp/$f.s"
			else
				cp "$tmp/$f.out" "$tmp/$f.s"
			fi
		done
		if cmp -s "$tmp/raw.s" "$tmp/db.s"; then
			echo "$prog $v: $(wc -l <"$tmp/raw.s") lines alike"
		elif [ $ok = 1 ]; then
			echo "$prog $v: differs too"
		elif [ "$mask" = 0 ] && ev_diff; then
			ok=1
		else
			echo "$prog $v: differs (< log, > index):"
			diff "$tmp/raw.s" "$tmp/db.s" | cut -c1-240 | head -6
			ok=1
		fi
	done
	return $ok
}

# ev_diff - when the outputs differ only in their evidence pointers, show
# the first pairs that differ (log, index) and succeed
ev_diff() {
	for f in raw db; do
		sed -E 's#[^[:space:](]+\.log:[0-9]+#<evidence>#g' "$tmp/$f.s" >"$tmp/$f.m"
		grep -oE '[^[:space:](]+\.log:[0-9]+' "$tmp/$f.s" | sed 's#.*/##' >"$tmp/$f.e"
	done
	cmp -s "$tmp/raw.m" "$tmp/db.m" || return 1
	echo "$prog $v: evidence differs (log -> index):" \
		"$(paste -d' ' "$tmp/raw.e" "$tmp/db.e" | gawk '$1 != $2 { printf "%s%s -> %s", n++ ? ", " : "", $1, $2 }
			END { if (n > 3) printf " (%d in all)", n }' | cut -c1-200)"
}

index_db() {
	name=$1
	shift
	rm -f "$tmp/$name.db"
	"$bin/lbt-index" -d "$tmp/$name.db" "$@" 2>&1
}

offvar="--no-geoip --top 0;--no-geoip --top 0 --by held"
tpvar="--maxconn 20;--maxconn 20 --periods;--maxconn 20 --by-source;--maxconn 20 --series;--maxconn 20 --full;--maxconn 20 --notes"

db_checks() { # name raw-input...
	name=$1
	shift
	t "lbt-cat --db $name: the same records as from the log" \
		db_same 0 "$name" lbt-cat "--tsv;--json" "$@"
	t "lbt-rate --db $name: the same output as from the log" \
		db_same 0 "$name" lbt-rate "--top 0;--series --top 0" "$@"
	t "lbt-offenders --db $name: the same output as from the log (evidence lines aside)" \
		db_same 1 "$name" lbt-offenders "$offvar" "$@"
	t "lbt-tarpit --db $name: the same output as from the log (evidence lines aside)" \
		db_same 1 "$name" lbt-tarpit "$tpvar" "$@"
	t "lbt-offenders --db $name: the same evidence lines (file:line) as from the log" \
		db_same 0 "$name" lbt-offenders "$offvar" "$@"
	t "lbt-tarpit --db $name: the same evidence lines (file:line) as from the log" \
		db_same 0 "$name" lbt-tarpit "$tpvar" "$@"
}

# shellcheck disable=SC2016
[ -x "$bin/lbt-index" ] || t "lbt-index is built" sh -c 'echo "no $1/lbt-index"; false' sh "$bin"
t "lbt-index: haproxy-httplog.log" index_db httplog --format haproxy-httplog "$lf" &&
	db_checks httplog --format haproxy-httplog "$lf"
t "lbt-index: haproxy-compact.log (--log-format)" index_db compact --log-format "$tpl" "$out/haproxy-compact.log" &&
	db_checks compact --log-format "$tpl" "$out/haproxy-compact.log"
# two files, two formats (one with the syslog host lb1), one index
idx_two() {
	index_db two --format haproxy-httplog "$out/haproxy-httplog-rfc3164.log" &&
		"$bin/lbt-index" -d "$tmp/two.db" --format nginx-combined "$out/nginx-combined.log" 2>&1
}
t "lbt-index: haproxy-httplog-rfc3164.log + nginx-combined.log in one index" idx_two &&
	db_checks two "$out/haproxy-httplog-rfc3164.log" "$out/nginx-combined.log"

# 6. Several load balancers (lb2, NGINX JSON, the mixed file): lab-side
# checks, and those of lbt's multi-input feature (dormant until it is built)

# shellcheck disable=SC1091 # checked on its own
. "$lab/checks-lbs.sh"

# 7. lbt-timeline: the incident's story against the lab's schedule
# (phases.tsv, run/events.tsv), its offenders (offenders.lst), truth.tsv and
# awk on the log, as tests/cli/t6001-timeline-incident.sh checks it on the
# committed capture.  The capture's tolerances (1 s: one bucket) hold for
# what the client starts (the flood, at the tarpit phase); what a reload
# changes happens here between the phase start (the reload is signalled)
# and its completion (run/events.tsv: deny_ready, reject_ready), which a
# loaded machine puts up to several seconds later: those windows run from
# the phase start - 1 s (an episode's time is the start of its 1 s bucket)
# to the reload's completion + 1 s (the bucket the first changed line falls in).

# shellcheck disable=SC2016
[ -x "$bin/lbt-timeline" ] || t "lbt-timeline is built" sh -c 'echo "no $1/lbt-timeline"; false' sh "$bin"
deny_start=$(phase_start deny)
reject_start=$(phase_start reject)
calm_start=$(phase_start calm)
"$bin/lbt-timeline" --tsv --haproxy-cfg "$cfg" --frontend fe_http "$lf" >"$tmp/tl.tsv" 2>"$tmp/tl.err"
tl_rc=$?
# the log's request lines as "line ms source key status term": the request
# date (%tr, the time lbt-timeline buckets a line by) in epoch ms, the source
# as lbt names it (net.awk)
gawk -F'\t' -v OFS='\t' -f "$chk/net.awk" -e '{
	split($2, d, /[-T:.Z]/)
	print $1, mktime(d[1] " " d[2] " " d[3] " " d[4] " " d[5] " " d[6], 1) * 1000 + d[7], net($3), $9, $5, $6
}' "$tmp/fields.tsv" >"$tmp/tl.lines"

# tl_at KIND SUBJECT - the times (epoch ms) of the events of KIND about SUBJECT
tl_at() { gawk -F'\t' -v k="$1" -v s="$2" 'NR > 1 && $3 == k && $5 == s { print int($2 / 1000) }' "$tmp/tl.tsv"; }
# tl_n KIND - how many events of KIND
tl_n() { gawk -F'\t' -v k="$1" 'NR > 1 && $3 == k { n++ } END { print n + 0 }' "$tmp/tl.tsv"; }
# in_window WHAT LO HI REF REFNAME - every time (ms) on stdin lies in
# [LO, HI]; prints each as an offset from REF; fails when there is none
in_window() {
	gawk -v what="$1" -v lo="$2" -v hi="$3" -v ref="$4" -v rn="$5" '{
		n++; bad = $1 < lo || $1 > hi; nb += bad
		printf "%s at %+d ms from %s (window %+d .. %+d ms)%s\n", what, $1 - ref, rn, lo - ref, hi - ref,
			bad ? ": outside" : ""
	} END { if (!n) print what ": none"; exit !(n > 0 && nb == 0) }'
}
tl_ok() { ran lbt-timeline "$tl_rc" && ! grep . "$tmp/tl.err"; }

# The flooded UUID rises with the flood (the tarpit phase start, within the
# 1 s bucket: the flood threads start within 0.25 s, truth_sane checks 1 s),
# and may rise a second time once deny answers the flood at once.
tl_key() {
	tl_ok || return 1
	tl_at rise "$flood_uuid" >"$tmp/tl.r"
	[ "$(wc -l <"$tmp/tl.r")" -le 2 ] || { echo "$(wc -l <"$tmp/tl.r") rises of $flood_uuid"; return 1; }
	head -1 "$tmp/tl.r" | in_window "rise" $((tarpit_start - 1000)) $((tarpit_start + 1000)) "$tarpit_start" "the tarpit phase" || return 1
	[ "$(wc -l <"$tmp/tl.r")" -eq 1 ] ||
		sed 1d "$tmp/tl.r" | in_window "second rise" $((deny_start - 1000)) $((deny_ready + 1000)) "$deny_ready" "deny ready"
}
t "lbt-timeline: the flooded UUID rises within 1 s of the tarpit phase, again (if at all) at deny" tl_key

# The new heavy sources are exactly offenders.lst, each from the flood start.
tl_new() {
	tl_ok || return 1
	gawk -F'\t' 'NR > 1 && $3 == "new_source" { print $5 }' "$tmp/tl.tsv" | sort >"$tmp/tl.new"
	sort "$out/conf/offenders.lst" >"$tmp/tl.off"
	same "$tmp/tl.off" "$tmp/tl.new" || { echo "(offenders.lst, then lbt's new sources)"; return 1; }
	while read -r s; do tl_at new_source "$s"; done <"$tmp/tl.off" |
		in_window "new source" $((tarpit_start - 1000)) $((tarpit_start + 1000)) "$tarpit_start" "the tarpit phase"
}
t "lbt-timeline: the new heavy sources are offenders.lst, from the tarpit phase start" tl_new

# PT lines give way to PR lines (tarpit replaced by deny) once, in the
# reload window of the deny phase, and within one bucket (1 s) of the first
# PR line awk finds (the deny episode may start at the bucket after it when
# that bucket holds only a few).
tl_switch() {
	tl_ok || return 1
	[ "$(tl_n switch)" -eq 1 ] || { echo "$(tl_n switch) switch events (want 1: tarpit->deny)"; return 1; }
	tl_at switch "tarpit->deny" | in_window "switch tarpit->deny" $((deny_start - 1000)) $((deny_ready + 1000)) "$deny_ready" "deny ready" || return 1
	pr=$(gawk -F'\t' '$6 ~ /^PR/ && (!m || $2 < m) { m = $2 } END { print m + 0 }' "$tmp/tl.lines")
	tl_at switch "tarpit->deny" | in_window "switch" $((pr - 1000)) $((pr + 1000)) "$pr" "the first PR line (awk)"
}
t "lbt-timeline: the tarpit gives way to deny once, between the deny phase and its reload" tl_switch

# Under reject the offenders vanish: each at its last logged request (awk),
# between the reject phase start - 1 s (the flood sends until the rule
# holds, 52 threads at 4 req/s) and the reject reload's completion + 1 s;
# nothing logged after it, nothing logged says why, while truth.tsv has
# their refused connections (result "reset").
tl_vanish() {
	tl_ok || return 1
	[ "$(tl_n vanish)" -eq 2 ] || { echo "$(tl_n vanish) vanish events (want 2)"; return 1; }
	ok=0
	while read -r s; do
		v=$(tl_at vanish "$s")
		last=$(gawk -F'\t' -v s="$s" '$3 == s && $2 > m { m = $2 } END { print m + 0 }' "$tmp/tl.lines")
		echo "$s: vanishes at $v; its last log line (awk) at $last"
		[ "$v" = "$last" ] || ok=1
		echo "${v:-0}" | in_window "  vanish" $((reject_start - 1000)) $((reject_ready + 1000)) "$reject_ready" "reject ready" || ok=1
		why=$(gawk -F'\t' -v s="$s" 'NR > 1 && $3 == "vanish" && $5 == s { print $26 }' "$tmp/tl.tsv")
		case $why in *"nothing in the logs says why"*) ;; *) echo "  says: $why"; ok=1 ;; esac
	done <"$tmp/tl.off"
	resets=$(gawk -F'\t' -f "$chk/net.awk" -v a="$off4" -v b="$off6" \
		-e 'NR > 1 && $7 == "reject" && $8 == "reset" && (net($2) == a || net($2) == b) { n++ } END { print n + 0 }' \
		"$out/truth.tsv")
	echo "truth.tsv: $resets offender connections reset in the reject phase, none logged"
	[ "$resets" -gt 0 ] || ok=1
	return $ok
}
t "lbt-timeline: the offenders vanish at their last line under reject, nothing logged says why" tl_vanish

# The frontend at maxconn: one saturation, from the first line that logged
# fc >= 19 (maxconn 20 less 1) at its end (date + duration, awk), within 2 s
# of the flood start (as tp_saturation); it ends after the tarpit phase
# (deny start - 1 s) and by the tolerance of tp_saturation (reject ready
# + 1.5 s) + 1 s (the end is the end of its bucket); the 80 % alert no later.
tl_saturation() {
	tl_ok || return 1
	gawk -F'\t' 'NR > 1 && $3 == "saturation" && $5 == "fe_http" { print int($2 / 1000), int($8 / 1000) }' \
		"$tmp/tl.tsv" >"$tmp/tl.sat"
	[ "$(wc -l <"$tmp/tl.sat")" -eq 1 ] || { echo "$(wc -l <"$tmp/tl.sat") saturation events (want 1)"; return 1; }
	read -r s e <"$tmp/tl.sat"
	full=$(gawk -F'\t' '$8 != "-" && $8 + 0 >= 19 { split($2, d, /[-T:.Z]/)
		x = mktime(d[1] " " d[2] " " d[3] " " d[4] " " d[5] " " d[6], 1) * 1000 + d[7] + $10
		if (!m || x < m) m = x } END { print m + 0 }' "$tmp/fields.tsv")
	echo "saturation from $s ms, first fc >= 19 (awk) at $full ms"
	[ "$s" = "$full" ] || return 1
	echo "$s" | in_window "saturation start" "$tarpit_start" $((tarpit_start + 2000)) "$tarpit_start" "the tarpit phase" &&
		echo "$e" | in_window "saturation end" $((deny_start - 1000)) $((reject_ready + 2500)) "$deny_ready" "deny ready" &&
		tl_at alert fe_http | in_window "alert" "$tarpit_start" "$s" "$s" "the saturation"
}
t "lbt-timeline: fe_http at maxconn from awk's first fc >= 19, through the tarpit phase; the alert no later" tl_saturation

# The incident ends in the reject phase (the flood is no longer logged
# once the reject rule holds).
tl_end() {
	tl_ok || return 1
	tl_at end all | in_window "end" "$reject_start" "$calm_start" "$reject_ready" "reject ready"
}
t "lbt-timeline: the incident ends in the reject phase" tl_end

# In the calm phase nothing but HAProxy's own stop at the lab's teardown:
# one stop event, its evidence after the log's last request line (awk).
tl_calm() {
	tl_ok || return 1
	ok=0
	if gawk -F'\t' -v c="$calm_start" 'NR > 1 && $2 / 1000 >= c && $3 != "stop" { print "in the calm:", $1, $3, $5, $26; n++ }
		END { exit n > 0 }' "$tmp/tl.tsv"; then :; else ok=1; fi
	gawk -F'\t' 'NR > 1 && $3 == "stop" { sub(/.*:/, "", $24); print $24 }' "$tmp/tl.tsv" >"$tmp/tl.stop"
	lastreq=$(tail -1 "$tmp/tl.lines" | cut -f1)
	echo "stop events at line(s): $(tr '\n' ' ' <"$tmp/tl.stop")(the last request line: $lastreq)"
	[ "$(wc -l <"$tmp/tl.stop")" -eq 1 ] && [ "$(cat "$tmp/tl.stop")" -gt "$lastreq" ] || ok=1
	return $ok
}
t "lbt-timeline: nothing in the calm phase but HAProxy's stop, after the last request" tl_calm

# Counts against awk: each rise of the key counts the key's lines of its
# episode [start, end); the 429 episode's share of all lines in it; each
# offender sent one request over and over (awk: one distinct key), which
# is a flood, not a retry storm: a storm is a set of two or more distinct
# requests re-sent after refusals (docs/timeline-design.md), so no retry
# row names an offender.
tl_counts() {
	tl_ok || return 1
	ok=0
	gawk -F'\t' -v k="$flood_uuid" 'NR > 1 && $3 == "rise" && $5 == k { print int($2 / 1000), int($8 / 1000), $15 }' \
		"$tmp/tl.tsv" >"$tmp/tl.ep"
	[ -s "$tmp/tl.ep" ] || { echo "no rise of $flood_uuid"; return 1; }
	while read -r s e c; do
		want=$(gawk -F'\t' -v s="$s" -v e="$e" -v k="$flood_uuid" '$2 >= s && $2 < e && $4 == k { n++ } END { print n + 0 }' "$tmp/tl.lines")
		echo "rise of the key $s .. $e: $c lines (awk: $want)"
		[ "$c" = "$want" ] || ok=1
	done <"$tmp/tl.ep"
	gawk -F'\t' 'NR > 1 && $3 == "errors" && $5 == "429" { print int($2 / 1000), int($8 / 1000), $17 }' "$tmp/tl.tsv" >"$tmp/tl.429"
	[ "$(wc -l <"$tmp/tl.429")" -eq 1 ] || { echo "$(wc -l <"$tmp/tl.429") episodes of 429 (want 1)"; ok=1; }
	read -r s e pct <"$tmp/tl.429"
	want=$(gawk -F'\t' -v s="$s" -v e="$e" '$2 >= s && $2 < e { n++; if ($5 == 429) k++ } END { printf "%.2f", n ? 100 * k / n : 0 }' "$tmp/tl.lines")
	echo "429s $s .. $e: $pct % of lines (awk: $want)"
	[ "$pct" = "$want" ] || ok=1
	while read -r src; do
		keys=$(gawk -F'\t' -v s="$src" '$3 == s { k[$4] = 1 } END { print length(k) }' "$tmp/tl.lines")
		got=$(gawk -F'\t' -v s="$src" 'NR > 1 && $3 == "retry" && $5 == s { n++ } END { print n + 0 }' "$tmp/tl.tsv")
		echo "$src: $got retry rows for $keys distinct requests (awk)"
		[ "$keys" -eq 1 ] && [ "$got" -eq 0 ] || ok=1
	done <"$tmp/tl.off"
	return $ok
}
t "lbt-timeline: the key's lines per rise, the 429 share, the offenders' retries = awk's" tl_counts

# 8. lbt-deny on the run's log: the ACL file holds exactly the two sources of
# offenders.lst (the lab's own list, written before the run), the decoys of
# the same /24 and /48 are not matched, and the snippet, in a frontend of
# its own added to the run's haproxy.cfg, passes haproxy -c -dW.
deny_lab() {
	"$bin/lbt-offenders" --no-geoip --top 0 "$lf" |
		"$bin/lbt-deny" --min-share 10 -o "$tmp/deny.lst" >"$tmp/deny.out" 2>"$tmp/deny.err" || return 1
	grep -v '^#' "$tmp/deny.lst" | sort >"$tmp/deny.got"
	sort "$out/conf/offenders.lst" >"$tmp/deny.want"
	same "$tmp/deny.want" "$tmp/deny.got" || return 1
	grep -q "^lbt-deny: collateral: 0 requests: the rule matches none of" "$tmp/deny.err" ||
		{ cat "$tmp/deny.err"; return 1; }
	{ printf 'frontend fe_lbt_deny\n    bind 127.0.0.1:18999\n    default_backend be_app\n'
	  cat "$tmp/deny.out"; } >"$tmp/deny-fe.cfg"
	haproxy -c -dW -f "$out/conf/haproxy-deny.cfg" -f "$tmp/deny-fe.cfg" >"$tmp/deny.c" 2>&1 ||
		{ tail -5 "$tmp/deny.c"; return 1; }
	echo "offenders.lst: $(tr '\n' ' ' <"$tmp/deny.want")"
}
t "lbt-deny: the ACL file is offenders.lst, no collateral, the snippet passes haproxy -c" deny_lab

# 9. Incident 2
incident2_checks

settle_output
echo "lab: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
