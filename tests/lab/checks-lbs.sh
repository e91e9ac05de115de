# shellcheck shell=sh disable=SC2154,SC2015,SC2016
# SC2154: the variables of run-checks.sh, which sources this file; SC2015:
# "A && B || fail" on purpose; SC2016: awk programs in single quotes.
# checks-lbs.sh - the incident on two load balancers and NGINX: lab-side
# checks (awk on the logs against the client's truth) and the checks the
# coming multi-input lbt feature must pass (--input / --sources: lb1 + lb2 +
# NGINX in one command), dormant until lbt-cat --help lists the option.
#
# Sourced by run-checks.sh after the single-LB checks; uses its t, col,
# same, $bin, $out, $tmp and $chk.  What the run was comes from the lab's
# own files: truth.tsv (lb and frontend columns), lbs.tsv (each LB's
# frontend, addresses, maxconn, log and its shape for checks/*.awk),
# sources*.txt (the lbt inputs), conf/.  The helpers read the run in
# $lbout (default $out; checks-postmortem.sh points it at incident 2's).

tab=$(printf '\t')
lbout=$out

# lbs_col LB COLUMN - one field of lbs.tsv
lbs_col() { gawk -F'\t' -v lb="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) n[$i] = i; next }
	$1 == lb { print $(n[c]) }' "$lbout/lbs.tsv"; }

# lbs_names TIER - the names of lbs.tsv: lb (a frontend) or app (none)
lbs_names() { gawk -F'\t' -v t="$1" 'NR > 1 && (t == "lb") == ($2 != "-") { print $1 }' "$lbout/lbs.tsv"; }

# truth_of LB FRONTEND - the rows of truth.tsv (header kept) that went there
truth_of() {
	gawk -F'\t' -v lb="$1" -v fe="$2" 'NR == 1 { for (i = 1; i <= NF; i++) n[$i] = i; print; next }
		$(n["lb"]) == lb && $(n["frontend"]) == fe' "$lbout/truth.tsv"
}

# fields_of LB - logfields.awk rows of the LB's log (shape from lbs.tsv)
fields_of() {
	gawk -v shape="$(lbs_col "$1" shape)" -f "$chk/logfields.awk" "$lbout/$(lbs_col "$1" log)"
}

# truth_dst - every truth.tsv row's lb column names the LB (lbs.tsv) whose
# address it connected to; prints the requests per lb and frontend
truth_dst() {
	gawk -F'\t' -v OFS='\t' 'NR == FNR { if (FNR > 1) { n = split($3, a, ","); for (i = 1; i <= n; i++) at[a[i]] = $1 }; next }
		FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ d = $(c["dst"]); sub(/:[0-9]+$/, "", d); gsub(/[][]/, "", d)
		  if (at[d] != $(c["lb"])) { bad++; if (bad < 4) print "row " FNR ": dst " $(c["dst"]) " is " at[d] ", lb column " $(c["lb"]) }
		  n2[$(c["lb"]) "\t" $(c["frontend"])]++ }
		END { for (k in n2) print "  " k ": " n2[k] " requests"; exit bad > 0 }' "$lbout/lbs.tsv" "$lbout/truth.tsv"
}

# The truth says, for every request, which LB it went to: its lb and
# frontend columns agree with the address it connected to (lbs.tsv), the
# flood went to both LBs from both offenders, as did every legitimate
# source of the single-LB run, and lb1's TCP frontend got its pings.
lbs_truth() {
	truth_dst || return 1
	ok=0
	for lb in lb1 lb2; do
		for s in "$off4" "$off6"; do
			k=$(truth_of "$lb" "$(lbs_col "$lb" frontend)" | gawk -F'\t' -f "$chk/net.awk" -v s="$s" \
				-e 'NR > 1 && net($2) == s' | wc -l)
			echo "$lb: $k requests from offender $s"
			[ "$k" -gt 0 ] || ok=1
		done
		for s in $decoy4 $decoy6; do
			k=$(truth_of "$lb" "$(lbs_col "$lb" frontend)" | gawk -F'\t' -f "$chk/net.awk" -v s="$s" \
				-e 'NR > 1 && net($2) == s' | wc -l)
			[ "$k" -gt 0 ] || { echo "$lb: no request from $s"; ok=1; }
		done
	done
	k=$(truth_of lb1 fe_tcp | wc -l)
	echo "lb1 fe_tcp: $((k - 1)) requests"
	[ "$k" -gt 1 ] || ok=1
	return $ok
}

# lb_vs_truth LB - per source, the LB's log lines = the requests truth.tsv
# sent to that LB's frontend - those it cannot have logged (truth.awk's
# never), within its unknown; the statuses alike, within the same unknown
# (the logic of run-checks.sh's truth_vs_log, for any LB of lbs.tsv).
lb_vs_truth() {
	lb=$1 fe=$(lbs_col "$1" frontend)
	truth_of "$lb" "$fe" | gawk -F'\t' -f "$chk/net.awk" -f "$chk/truth.awk" | sort >"$tmp/$lb.truth"
	fields_of "$lb" | gawk -F'\t' -f "$chk/net.awk" -f "$chk/logsources.awk" | sort >"$tmp/$lb.logsrc"
	[ -s "$tmp/$lb.truth" ] && [ -s "$tmp/$lb.logsrc" ] || { echo "$lb: no truth or no log line"; return 1; }
	ok=0 sent_all=0 logged_all=0
	while IFS="$tab" read -r s sent never unk t2 t3 t4 t429 t5; do
		# shellcheck disable=SC2046 # six numbers, or none
		set -- $(gawk -F'\t' -v s="$s" '$1 == s' "$tmp/$lb.logsrc" | cut -f2-7)
		l=${1:-0} l2=${2:-0} l3=${3:-0} l4=${4:-0} l429=${5:-0} l5=${6:-0}
		lo=$((sent - never - unk)) hi=$((sent - never))
		dev=$(( (l2 > t2 ? l2 - t2 : t2 - l2) + (l3 > t3 ? l3 - t3 : t3 - l3) +
			(l4 > t4 ? l4 - t4 : t4 - l4) + (l429 > t429 ? l429 - t429 : t429 - l429) +
			(l5 > t5 ? l5 - t5 : t5 - l5) ))
		sent_all=$((sent_all + sent)) logged_all=$((logged_all + l))
		show=0
		case $s in "${off4:-}" | "${off6:-}") show=1 ;; esac
		if [ "$l" -lt "$lo" ] || [ "$l" -gt "$hi" ] || [ "$dev" -gt "$unk" ]; then ok=1 show=1; fi
		[ $show = 1 ] && echo "$lb $s: sent $sent, never logged $never, unknown $unk; logged $l" \
			"(expected $lo..$hi); statuses off by $dev"
	done <"$tmp/$lb.truth"
	echo "$lb ($fe): $sent_all requests sent, $logged_all logged"
	cut -f1 "$tmp/$lb.truth" >"$tmp/$lb.names"
	if cut -f1 "$tmp/$lb.logsrc" | grep -vxF -f "$tmp/$lb.names"; then echo "(sources in $lb's log, never sent there)"; ok=1; fi
	return $ok
}

# lb1's TCP frontend: its tcplog lines (haproxy-tcplog.log) are the
# requests truth.tsv sent through it, none lost (one request a connection;
# none of them is refused or times out in this incident)
tcp_vs_truth() {
	sent=$(truth_of lb1 fe_tcp | gawk -F'\t' 'NR > 1 && $8 == 200' | wc -l)
	other=$(truth_of lb1 fe_tcp | gawk -F'\t' 'NR > 1 && $8 != 200' | wc -l)
	logged=$(gawk -v shape=tcplog -v lb=lb1 -f "$chk/forwarded.awk" "$out/haproxy-tcplog.log" | grep -c "^lb1$tab$TCP_SRC$tab")
	echo "fe_tcp: $sent requests answered 200 and $other others (truth), $logged tcplog lines of $TCP_SRC"
	[ "$sent" -gt 0 ] && [ "$other" -eq 0 ] && [ "$logged" -eq "$sent" ]
}
TCP_SRC=198.51.100.30

# NGINX's escape=json log holds the requests the LBs forwarded: per LB (the
# address NGINX saw the connection from, realip_remote_addr, in lbs.tsv)
# and client (remote_addr, from X-Forwarded-For; the LB itself for fe_tcp),
# NGINX's lines = the LB lines a server answered (forwarded.awk fwd 1), up
# to those connected but unanswered (fwd ?, none in the runs seen so far).
nginx_vs_lbs() {
	{
		for lb in lb1 lb2; do
			gawk -v shape="$(lbs_col "$lb" shape)" -v lb="$lb" -f "$chk/forwarded.awk" "$out/$(lbs_col "$lb" log)"
		done
		# fe_tcp: no X-Forwarded-For, NGINX sees lb1's own address
		gawk -v shape=tcplog -v lb=lb1 -f "$chk/forwarded.awk" "$out/haproxy-tcplog.log" |
			gawk -F'\t' -v OFS='\t' -v a="$LAB_LB4" '{ $2 = a; print }'
	} | gawk -F'\t' -v OFS='\t' '{ k = $1 "\t" $2; if ($4 == 1) y[k]++; else if ($4 == "?") m[k]++; all[k] = 1 }
		END { for (k in all) print k, y[k] + 0, m[k] + 0 }' | sort >"$tmp/fwd.lb"
	gawk -F'\t' 'NR == FNR { if (FNR > 1 && $1 != "web1") { n = split($3, a, ","); for (i = 1; i <= n; i++) at[a[i]] = $1 }; next }
		{ r = ""; c = ""
		  if (match($0, /"realip_remote_addr":"[^"]*"/)) r = substr($0, RSTART + 22, RLENGTH - 23)
		  if (match($0, /"remote_addr":"[^"]*"/)) c = substr($0, RSTART + 15, RLENGTH - 16)
		  sub(/^::ffff:/, "", c)
		  cnt[(r in at ? at[r] : "unknown:" r) "\t" c]++ }
		END { for (k in cnt) print k "\t" cnt[k] }' "$out/lbs.tsv" "$out/nginx-json.log" | sort >"$tmp/fwd.ngx"
	ok=0 tot=0 totn=0
	# every (lb, client) of either side
	cut -f1,2 "$tmp/fwd.lb" "$tmp/fwd.ngx" | sort -u >"$tmp/fwd.keys"
	while IFS="$tab" read -r lb c; do
		y=$(gawk -F'\t' -v l="$lb" -v c="$c" '$1 == l && $2 == c { print $3 "\t" $4 }' "$tmp/fwd.lb")
		m=${y#*"$tab"} y=${y%"$tab"*}
		ng=$(gawk -F'\t' -v l="$lb" -v c="$c" '$1 == l && $2 == c { print $3 }' "$tmp/fwd.ngx")
		y=${y:-0} m=${m:-0} ng=${ng:-0}
		tot=$((tot + y)) totn=$((totn + ng))
		if [ "$ng" -lt "$y" ] || [ "$ng" -gt $((y + m)) ]; then
			echo "$lb $c: NGINX logged $ng, the LB forwarded $y (+ $m unanswered)"; ok=1
		fi
	done <"$tmp/fwd.keys"
	for lb in lb1 lb2; do
		echo "$lb: NGINX logged $(gawk -F'\t' -v l="$lb" '$1 == l { s += $3 } END { print s + 0 }' "$tmp/fwd.ngx")" \
			"of its requests, it forwarded $(gawk -F'\t' -v l="$lb" '$1 == l { s += $3 } END { print s + 0 }' "$tmp/fwd.lb")"
	done
	[ "$tot" -gt 0 ] || { echo "nothing forwarded"; ok=1; }
	return $ok
}

# haproxy-mixed.log is lb1's /var/log/haproxy.log: fe_http's httplog lines,
# fe_tcp's tcplog lines and HAProxy's own lines (proxies stopping on each
# reload, and the global log target) in one rfc3164 file.  Its httplog
# messages are those of haproxy-httplog-rfc3164.log, its tcplog messages
# those of haproxy-tcplog.log, as multisets; nothing else is in it.
mixed_file() {
	f=$out/haproxy-mixed.log
	# the message of an rfc3164 line of frontend FE
	msg='$0 ~ "\\] " fe " " { sub(/^<[0-9]+>[A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]{8} [^ ]+ [^ ]+: /, ""); print }'
	gawk -v fe=fe_http "$msg" "$f" | sort >"$tmp/mix.http"
	gawk -v fe=fe_tcp "$msg" "$f" | sort >"$tmp/mix.tcp"
	gawk '/\] fe_http / || /\] fe_tcp / { next }
		/: (Proxy [^ ]+ stopped|Server [^ ]+ is (UP|DOWN)|backend [^ ]+ has no server available)/ { ev++; if (/<HTTPCLIENT>/) g++; next }
		{ other++; if (other < 4) print "other: " $0 }
		END { printf "events %d global %d other %d\n", ev, g, other }' "$f" >"$tmp/mix.rest"
	gawk -v fe=fe_http "$msg" "$out/haproxy-httplog-rfc3164.log" | sort >"$tmp/mix.http.want"
	gawk '/\] fe_tcp / ' "$out/haproxy-tcplog.log" | sort >"$tmp/mix.tcp.want"
	# shellcheck disable=SC2046 # four words and three numbers
	set -- $(tail -1 "$tmp/mix.rest")
	ev=$2 g=$4 other=$6
	echo "haproxy-mixed.log: $(wc -l <"$tmp/mix.http") httplog lines (fe_http), $(wc -l <"$tmp/mix.tcp")" \
		"tcplog lines (fe_tcp), $ev of HAProxy's own lines ($g from the global target), $other others"
	ok=0
	[ -s "$tmp/mix.http" ] && [ -s "$tmp/mix.tcp" ] && [ "$ev" -gt 0 ] && [ "$g" -gt 0 ] || ok=1
	[ "$other" -eq 0 ] || { sed '$d' "$tmp/mix.rest"; ok=1; }
	same "$tmp/mix.http.want" "$tmp/mix.http" || { echo "(httplog lines: rfc3164 file, mixed file)"; ok=1; }
	same "$tmp/mix.tcp.want" "$tmp/mix.tcp" || { echo "(tcplog lines: haproxy-tcplog.log, mixed file)"; ok=1; }
	return $ok
}

# The exact figures per LB and across LBs, with awk on each LB's own log:
# requests, tarpitted (termination state PT..), held seconds (the sum of Tw
# over those lines, integer ms), maxconn from lbs.tsv.  Written to
# expected-lb.tsv for the multi-input checks; both LBs tarpitted some of
# the flood (the spread reached both).
lb_totals() {
	{
		printf 'lb\tfrontend\tmaxconn\trequests\ttarpitted\theld_ms\n'
		for lb in lb1 lb2; do
			fields_of "$lb" | gawk -F'\t' -v OFS='\t' -v lb="$lb" -v fe="$(lbs_col "$lb" frontend)" \
				-v mc="$(lbs_col "$lb" maxconn)" \
				'{ n++ } $6 ~ /^PT/ { pt++; held += $7 } END { print lb, fe, mc, n, pt + 0, held + 0 }'
		done
	} >"$tmp/lbtot"
	gawk -F'\t' -v OFS='\t' 'NR == 1 { print $1, $2, $3, $4, $5, "held_s"; next }
		{ print $1, $2, $3, $4, $5, sprintf("%d.%03d", int($6 / 1000), $6 % 1000); n += $4; p += $5; h += $6 }
		END { print "all", "-", "-", n, p, sprintf("%d.%03d", int(h / 1000), h % 1000) }' "$tmp/lbtot" >"$out/expected-lb.tsv"
	sed 's/^/  /' "$out/expected-lb.tsv"
	gawk -F'\t' 'NR > 1 && $1 != "all" && $5 == 0 { print $1 ": nothing tarpitted"; bad = 1 } END { exit bad }' \
		"$out/expected-lb.tsv"
}

if [ ! -s "$out/lbs.tsv" ]; then
	echo "skip: the run has one LB only (no lbs.tsv: incident.sh --single-lb or an older run)"
else
	LAB_LB4=$(lbs_col lb1 addresses | cut -d, -f1)
	t "truth.tsv: lb and frontend columns match the address connected to; the flood reached lb1 and lb2" lbs_truth
	t "lb1: fe_http's log lines = the requests truth.tsv sent to lb1, per source, statuses alike" lb_vs_truth lb1
	t "lb2: fe_edge's log lines (custom format) = the requests truth.tsv sent to lb2, per source" lb_vs_truth lb2
	t "lb1: fe_tcp's tcplog lines = the requests truth.tsv sent through it" tcp_vs_truth
	t "nginx-json.log: per LB and client, the requests the LBs forwarded (awk)" nginx_vs_lbs
	t "haproxy-mixed.log: httplog, tcplog and HAProxy's own lines, exactly those of the per-format files" mixed_file
	t "per-LB and total requests, tarpitted and held seconds (awk, expected-lb.tsv); both LBs tarpitted" lb_totals
fi

# ---------------------------------------------------------------------------
# Dormant: lbt reads several inputs in one command.  The inputs are the
# lines of sources*.txt (PATH key=value...); the feature is expected as
# --sources FILE (the file as it is) or as one --input 'PATH;k=v;...' per
# line, whichever lbt-cat --help lists.  Each check turns on by itself.

multi_flag=""
"$bin/lbt-cat" --help >"$tmp/cat.help" 2>/dev/null
# the option itself (not --input-tz or an "Input:" heading)
if grep -qE -- '(^|[ ,])--sources([ =]|$)' "$tmp/cat.help"; then multi_flag=sources
elif grep -qE -- '(^|[ ,])--input([ =]|$)' "$tmp/cat.help"; then multi_flag=input
fi

# multi_args SOURCES-FILE - the command-line words for its inputs, one a
# line (read them with a while loop: paths may not be split)
multi_args() {
	if [ "$multi_flag" = sources ]; then
		printf '%s\n%s\n' --sources "$1"
		return
	fi
	d=$(dirname "$1")
	gawk -v d="$d" '/^[ \t]*(#|$)/ { next }
		{ p = $1; if (p !~ /^\//) p = d "/" p; s = p
		  for (i = 2; i <= NF; i++) { v = $i; if (v ~ /^(haproxy-cfg|nginx-conf)=/ && v !~ /=\//) sub(/=/, "=" d "/", v); s = s ";" v }
		  print "--input"; print s }' "$1"
}

# multi PROGRAM SOURCES-FILE ARGS... - run PROGRAM on every input of the
# file plus ARGS, stdout to $tmp/multi.out, stderr to $tmp/multi.err
multi() {
	prog=$1 src=$2
	shift 2
	multi_args "$src" >"$tmp/multi.args"
	# rebuild "$@": ARGS after the input words (each line one word)
	for a in "$@"; do printf '%s\n' "$a"; done >>"$tmp/multi.args"
	set --
	while IFS= read -r a; do set -- "$@" "$a"; done <"$tmp/multi.args"
	"$bin/$prog" "$@" >"$tmp/multi.out" 2>"$tmp/multi.err"
	rc=$?
	[ "$rc" -eq 0 ] || { echo "$prog $*: exit status $rc"; head -3 "$tmp/multi.err"; return 1; }
	if grep -E 'malformed' "$tmp/multi.err"; then return 1; fi
	return 0
}

# dormant WHAT FUNCTION - a check of the multi-input feature, or its skip line
dormant() {
	if [ -z "$multi_flag" ]; then
		echo "skip: --input not built yet (lbt-cat --help lists neither --input nor --sources): $1"
		return 0
	fi
	t "$@"
}

# lbt-cat reads every input of the sources file: per (lb, frontend) the
# records awk counts in each log of lbs.tsv (the frontend of lb2 of the
# first incident from its haproxy.cfg: its format has no %ft); NGINX's
# records under their server's name
multi_cat() { # sources-file
	multi lbt-cat "$1" --tsv --fields lb,frontend || return 1
	# an absent frontend (NGINX) may be printed empty or as "-"
	tail -n +2 "$tmp/multi.out" | gawk -F'\t' -v OFS='\t' '{ if ($2 == "") $2 = "-"; n[$1 OFS $2]++ }
		END { for (k in n) print k, n[k] }' | sort >"$tmp/mc.got"
	{
		for lb in $(lbs_names lb); do
			printf '%s\t%s\t%s\n' "$lb" "$(lbs_col "$lb" frontend)" "$(fields_of "$lb" | wc -l)"
		done
		for s in $(lbs_names app); do
			printf '%s\t-\t%s\n' "$s" "$(gawk -v shape=nginx-json -f "$chk/logcount.awk" "$lbout/$(lbs_col "$s" log)" | cut -d' ' -f1)"
		done
	} | sort >"$tmp/mc.want"
	echo "$(basename "$1"): lb frontend records: $(tr '\t\n' ' ;' <"$tmp/mc.got")"
	same "$tmp/mc.want" "$tmp/mc.got"
}

# lbt-rate on the LB tier (--lb lb1,lb2: NGINX sees the same requests): the
# flooded UUID first, its total the sum of both LBs' awk counts; per LB alike
multi_rate() {
	ok=0
	for sel in lb1,lb2 lb1 lb2; do
		multi lbt-rate "$out/sources.txt" --tsv --top 1 --lb "$sel" || return 1
		# shellcheck disable=SC2046 # key total
		set -- $(col "$tmp/multi.out" key,total | head -1)
		want=0
		for lb in $(echo "$sel" | tr , ' '); do
			want=$((want + $(fields_of "$lb" | gawk -F'\t' -v k="$flood_uuid" '$9 == k' | wc -l)))
		done
		echo "--lb $sel: first $1, $2 requests (awk: $want)"
		[ "$1" = "$flood_uuid" ] && [ "$2" = "$want" ] || ok=1
	done
	return $ok
}

# lbt-offenders across both LBs: every source's requests, tarpitted and held
# seconds are the sums over both logs (awk, logsources.awk on both)
multi_offenders() {
	multi lbt-offenders "$out/sources.txt" --tsv --no-geoip --top 0 --lb lb1,lb2 || return 1
	col "$tmp/multi.out" source,requests,tarpit,held_s | sort >"$tmp/mo.got"
	{ fields_of lb1; fields_of lb2; } | gawk -F'\t' -f "$chk/net.awk" -f "$chk/logsources.awk" |
		cut -f1,2,8,9 | sort >"$tmp/mo.want"
	echo "$(wc -l <"$tmp/mo.want") sources compared (source requests tarpit held_s, lb1 + lb2)"
	same "$tmp/mo.want" "$tmp/mo.got"
}

# lbt-tarpit: one summary row per frontend, the LB's own maxconn (haproxy.cfg
# of each), its tarpitted lines and held seconds: expected-lb.tsv
multi_tarpit() {
	multi lbt-tarpit "$out/sources.txt" --tsv --lb lb1,lb2 || return 1
	col "$tmp/multi.out" lb,frontend,tarpitted,held_s,maxconn |
		gawk -F'\t' -v OFS='\t' '$1 != "(total)" { print $2, $3, $4, $5 }' | sort >"$tmp/mt.got"
	gawk -F'\t' -v OFS='\t' 'NR > 1 && $1 != "all" { print $2, $5, $6, $3 }' "$out/expected-lb.tsv" | sort >"$tmp/mt.want"
	echo "frontend tarpitted held_s maxconn: $(tr '\t\n' ' ;' <"$tmp/mt.got")"
	# and the "(total)" row across both LBs: expected-lb.tsv's "all"
	col "$tmp/multi.out" lb,tarpitted,held_s | gawk '$1 == "(total)"' >"$tmp/mt.tgot"
	gawk -F'\t' -v OFS='\t' '$1 == "all" { print "(total)", $5, $6 }' "$out/expected-lb.tsv" >"$tmp/mt.twant"
	echo "total tarpitted held_s: $(tr '\t\n' ' ;' <"$tmp/mt.tgot")"
	same "$tmp/mt.want" "$tmp/mt.got" && same "$tmp/mt.twant" "$tmp/mt.tgot"
}

# haproxy-mixed.log with lb1's haproxy.cfg: each line by its frontend's
# format, httplog and tcplog records as many as awk finds, none malformed
multi_mixed() {
	multi lbt-cat "$out/sources-mixed.txt" --tsv --fields frontend || return 1
	tail -n +2 "$tmp/multi.out" | sort | uniq -c | gawk -v OFS='\t' '{ print $2, $1 }' >"$tmp/mm.got"
	printf 'fe_http\t%s\nfe_tcp\t%s\n' "$(grep -c '\] fe_http ' "$out/haproxy-mixed.log")" \
		"$(grep -c '\] fe_tcp ' "$out/haproxy-mixed.log")" >"$tmp/mm.want"
	echo "records per frontend: $(tr '\t\n' ' ;' <"$tmp/mm.got")"
	same "$tmp/mm.want" "$tmp/mm.got"
}

if [ -s "$out/lbs.tsv" ]; then
	dormant "lbt-cat on sources.txt (lb1 + lb2 + NGINX, configurations): records per LB and frontend = awk" \
		multi_cat "$out/sources.txt"
	dormant "lbt-cat on sources-formats.txt (by format name): records per LB and frontend = awk" \
		multi_cat "$out/sources-formats.txt"
	dormant "lbt-rate --lb lb1,lb2 | lb1 | lb2: the flooded UUID first, its total = awk's per-LB sums" multi_rate
	dormant "lbt-offenders across lb1 + lb2: each source's requests, tarpit, held_s = awk's sums" multi_offenders
	dormant "lbt-tarpit across lb1 + lb2: per frontend tarpitted, held_s and its own maxconn (expected-lb.tsv)" multi_tarpit
	dormant "lbt-cat on haproxy-mixed.log with haproxy.cfg: httplog and tcplog lines by frontend, none malformed" multi_mixed
fi
