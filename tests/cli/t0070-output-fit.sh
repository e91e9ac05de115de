#!/bin/sh
# What a person sees on an 80x40 terminal (tmux): no line over 80 columns
# for any program on the bundled incident, the figures that matter still
# on the screen (counted here with awk on the log), colour only on a
# terminal that shows it; and in a pipe, lbt-tarpit's summary stays text.
. "$LBT_TOP/tests/cli/lib.sh"

test_have tmux || missing tmux
test_have zstd || missing zstd
inc=$DATA/incident
log=$inc/haproxy-httplog.log.zst
cfg=$inc/haproxy-tarpit.cfg
zstd -dc "$log" > plain.log || missing "the incident log"
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
# A session that outlives the others: the server must not exit between
# two screens (a new session racing its exit fails).
tmux -u -S "$sock" -f /dev/null new-session -d -s keep "sleep 300" || missing "a tmux server"

# screen NAME [ENV=V...] -- CMD...: run CMD in an 80x40 tmux pane (from the
# incident's directory) and write what the pane shows to NAME (wrapped
# lines joined, so that a line longer than 80 columns stays one line) and
# NAME.esc (with the escape sequences of colour).  Waits at most 20 s.
screen() {
	_name=$1; shift
	_env=
	while [ "$1" != "--" ]; do _env="$_env $1"; shift; done
	shift
	printf 'cd %s && env%s PATH="%s" "$@"; echo "__done $?"; sleep 60\n' \
	    "$inc" "$_env" "$PATH" > "$_name.sh"
	tmux -u -S "$sock" -f /dev/null new-session -d -x 80 -y 40 -s "$_name" \
	    "sh $tmp/$_name.sh $*" || return 1
	_i=0
	while [ $_i -lt 200 ]; do
		tmux -S "$sock" capture-pane -p -J -S -200 -t "$_name" > "$_name" 2>/dev/null
		grep -q "^__done" "$_name" && break
		sleep 0.1; _i=$((_i + 1))
	done
	tmux -S "$sock" capture-pane -p -e -S -200 -t "$_name" > "$_name.esc"
	tmux -S "$sock" kill-session -t "$_name"
	grep -q "^__done" "$_name" || { echo "$_name: no end in 20 s"; cat "$_name"; return 1; }
}

# fits NAME [WIDTH]: no line of NAME is wider than WIDTH (80) columns
# (an ellipsis, an arrow, an "about" are one column each).
fits() {
	sed 's/\xe2\x80\xa6/./g; s/\xe2\x86\x92/>/g; s/\xe2\x89\x88/~/g; s/\xc3\x97/x/g' "$1" |
	    awk -v n="$1" -v w="${2:-80}" 'length($0) > w + 0 {
		print n ": " length($0) " columns: " $0; bad = 1 }
	    END { exit bad }'
}

# A line of the screen holds every word given (in this order).
line_has() {
	_f=$1; shift
	_re=$(printf '%s' "$*" | sed 's/[.[\*^$/]/\\&/g; s/ /.* /g')
	grep -q -- "$_re" "$_f" || { echo "no line with: $*"; cat "$_f"; return 1; }
}

pt=$(awk '$10 ~ /^PT/' plain.log | wc -l)
src7=$(awk '$1 ~ /^203\.0\.113\.7:/' plain.log | wc -l)
hot=$(grep -c f768064f-9585-47ad-a39e-ed24c2c063fe plain.log)
requests=$(awk '$2 ~ /^\[/' plain.log | wc -l)
net64=$(awk '$1 ~ /^2001:db8:bad:1:/' plain.log | wc -l)
pt7=$(awk '$1 ~ /^203\.0\.113\.7:/ && $10 ~ /^PT/' plain.log | wc -l)
first=$(head -n 1 plain.log | sed 's/^::ffff://; s/:[0-9]* .*//')

expect_success 'lbt-offenders fits 80 columns and keeps source, requests, share, ratio' '
	screen off -- lbt-offenders --top 10 haproxy-httplog.log.zst && fits off &&
	line_has off source requests share ratio && line_has off 203.0.113.7 "$src7" &&
	[ "$(grep -c "^[0-9a-f:./]*  " off)" -ge 10 ]
'
expect_success 'lbt-rate fits 80 columns with the hot key whole and its total' '
	screen rate -- lbt-rate --top 3 haproxy-httplog.log.zst && fits rate &&
	line_has rate f768064f-9585-47ad-a39e-ed24c2c063fe "$hot"
'
expect_success 'lbt-cat fits 80 columns: a compact default, the first client whole' '
	screen cat -- lbt-cat --until 07:45:12 haproxy-httplog.log.zst && fits cat &&
	line_has cat time client status && line_has cat 2026-11-30T07:45:10.548Z "$first" 200
'
expect_success 'lbt-cat --wide shows every column (lines longer than 80)' '
	screen catw -- lbt-cat --wide --until 07:45:12 haproxy-httplog.log.zst &&
	! fits catw > /dev/null && line_has catw frontend backend server
'
expect_success 'lbt-cat --raw on a terminal prints the lines as they are' '
	screen raw -- lbt-cat --raw --term PT --until 07:45:31 haproxy-httplog.log.zst &&
	grep -q "^203\.0\.113\.7:[0-9]* \[30/Nov/2026:07:45:30\.708\] .* PT-- " raw &&
	grep -q "^__done 0" raw
'
expect_success 'lbt-timeline fits 80 columns and counts the requests' '
	screen tl -- lbt-timeline haproxy-httplog.log.zst && fits tl &&
	line_has tl "$requests requests"
'
expect_success 'lbt-tarpit fits 80 columns with the tarpitted count' '
	screen tp -- lbt-tarpit --haproxy-cfg haproxy-tarpit.cfg --frontend fe_http \
	    haproxy-httplog.log.zst && fits tp && line_has tp "tarpitted (PT)" "$pt;"
'
expect_success 'lbt-triage fits 80 columns and says ANOMALY' '
	screen tr -- lbt-triage --haproxy-cfg haproxy-tarpit.cfg --frontend fe_http \
	    haproxy-httplog.log.zst && fits tr && line_has tr ANOMALY &&
	line_has tr "$requests requests"
'
expect_success 'lbt-audit and lbt-formats fit 80 columns' '
	screen au -- lbt-audit --frontend fe_http haproxy-tarpit.cfg haproxy-httplog.log.zst &&
	fits au && line_has au maxconn-reached &&
	screen fm -- lbt-formats --detect haproxy-httplog.log.zst && fits fm
'
expect_success 'a terminal shows ANOMALY in colour (red)' '
	grep "ANOMALY" tr.esc | grep -q "$(printf "\033")\[[0-9;]*31[0-9;]*m"
'
expect_success 'TERM=dumb and NO_COLOR=1 give no escape byte' '
	screen dumb TERM=dumb -- lbt-triage --haproxy-cfg haproxy-tarpit.cfg \
	    --frontend fe_http haproxy-httplog.log.zst &&
	screen noc NO_COLOR=1 -- lbt-offenders --top 3 haproxy-httplog.log.zst &&
	line_has dumb ANOMALY && line_has noc 203.0.113.7 &&
	! grep -q "$(printf "\033")\[[0-9;]*m" dumb.esc noc.esc
'
expect_success 'COLUMNS=60 without a terminal: a --table fits 60 columns' '
	COLUMNS=60 lbt-offenders --table --top 3 "$log" > c60 &&
	fits c60 60 && line_has c60 203.0.113.7 "$src7"
'
# -f/--fields: lbt-cat's name, in every program and mode.
expect_success 'lbt-offenders -f source,ratio: those columns in TSV, JSON and a table' '
	lbt-offenders --top 2 -f source,ratio "$log" > f.tsv &&
	printf "source\tratio\n2001:db8:bad:1::/64\tnew\n203.0.113.7\tnew\n" > f.want &&
	test_cmp f.want f.tsv &&
	lbt-offenders --top 1 --json --fields requests,source "$log" > f.json &&
	echo "{\"source\":\"2001:db8:bad:1::/64\",\"requests\":$net64}" > fj.want &&
	test_cmp fj.want f.json &&
	lbt-offenders --top 2 --table --fields source,requests "$log" > f.tab &&
	line_has f.tab 203.0.113.7 "$src7" && [ "$(awk "{ print NF }" f.tab | sort -u)" = 2 ]
'
expect_success 'lbt-rate --fields and lbt-tarpit --fields pick their columns' '
	lbt-rate --top 1 --fields key,total "$log" > r.tsv &&
	printf "key\ttotal\nf768064f-9585-47ad-a39e-ed24c2c063fe\t%s\n" "$hot" > r.want &&
	test_cmp r.want r.tsv &&
	lbt-tarpit --maxconn 20 --by-source --top 1 --fields source,tarpitted "$log" > t.tsv 2>/dev/null &&
	printf "source\ttarpitted\n203.0.113.7\t%s\n" "$pt7" > t.want && test_cmp t.want t.tsv
'
# In a pipe: the tables are TSV, but the summary a person reads stays text.
expect_success 'lbt-tarpit | cat: the summary is text lines, not one TSV row' '
	lbt-tarpit --haproxy-cfg "$cfg" --frontend fe_http "$log" > piped 2> piped.err &&
	line_has piped "tarpitted (PT)" "$pt;" && line_has piped "held, sum of Tw" &&
	! grep -q "$(printf "\t")" piped && fits piped
'
expect_success 'lbt-tarpit --tsv | cat: the summary row a script asked for' '
	lbt-tarpit --tsv --haproxy-cfg "$cfg" --frontend fe_http "$log" > tsv 2>/dev/null &&
	[ "$(head -n 1 tsv | cut -f 4)" = tarpitted ] && [ "$(sed -n 2p tsv | cut -f 4)" = "$pt" ]
'
test_done
