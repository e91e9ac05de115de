#!/bin/sh
# run-lbt.sh BINDIR CASE ANSWERS - what lbt says about one case of the
# corpus, as make eval scores it: lbt-timeline --json and lbt-triage --json
# over the case's sources.txt, lbt-audit --json per load balancer (its
# haproxy.cfg and its log).  A program that fails (status 1 or 3) leaves an
# empty answer and a note in ANSWERS/errors.txt; the scorer then counts
# what is missing.
set -u
bin=$1 case=$2 ans=$3
mkdir -p "$ans"
: >"$ans/errors.txt"
run() { # name program args...
	name=$1
	shift
	"$@" >"$ans/$name" 2>"$ans/$name.stderr"
	rc=$?
	case $rc in
	0 | 2 | 4 | 5) ;;
	*) echo "$name: $* exited $rc" >>"$ans/errors.txt" ;;
	esac
}
run timeline.json "$bin/lbt-timeline" --json --sources "$case/sources.txt"
run triage.json "$bin/lbt-triage" --json --sources "$case/sources.txt"
# one audit per load balancer: its line of sources.txt gives the log, the
# configuration and the zone
grep -v '^#' "$case/sources.txt" | while read -r log rest; do
	cfg="" lb="" tz=UTC fe=""
	for w in $rest; do
		case $w in
		haproxy-cfg=*) cfg=${w#haproxy-cfg=} ;;
		lb=*) lb=${w#lb=} ;;
		log-tz=*) tz=${w#log-tz=} ;;
		frontend=*) fe=${w#frontend=} ;;
		esac
	done
	[ -n "$cfg" ] && [ -n "$lb" ] || continue
	run "audit-$lb.json" "$bin/lbt-audit" --json --frontend "$fe" --log-tz "$tz" --lb-name "$lb" \
		"$case/$cfg" "$case/$log"
done
[ ! -s "$ans/errors.txt" ]
