# logcount.awk - classify the lines of one access log, independently of lbt.
#
#   gawk -v shape=httplog|compact|edge|nginx|nginx-json -f logcount.awk FILE
#
# Prints "requests events others": request lines recognised by their shape,
# HAProxy event lines ("Proxy fe_http stopped ...", "Server be/s is DOWN"),
# and lines that are neither (must be 0 for a clean log).  Shapes:
#   httplog     client:port [dd/Mon/yyyy:hh:mm:ss.mmm] anywhere on the line
#               (every syslog wrapper: raw, rfc3164, local, short, timed, iso,
#               priority); also option httplog clf is not handled here
#   compact     the lab's compact template: 13-digit epoch ms first, 27 fields
#   edge        lb2's template (LAB_HAP_EDGE): dd/Mon/yyyy:hh:mm:ss.mmm
#               client:port ... (no brackets), any syslog wrapper
#   nginx       ... - user [dd/Mon/yyyy:hh:mm:ss +zzzz] "  (combined, main,
#               with or without a syslog header)
#   nginx-json  {"time":"...
BEGIN {
	if (shape !~ /^(httplog|compact|edge|nginx|nginx-json)$/) {
		print "logcount: unknown shape '" shape "'" > "/dev/stderr"; exit 2
	}
	date = "\\[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}\\]"
	hreq = "(^|[ :>])[0-9A-Fa-f:.]+:[0-9]+ " date " "
	ereq = "(^| )[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} [0-9A-Fa-f:.]+:[0-9]+ "
	nreq = "[^ ]+ - [^ ]+ \\[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\\] \""
	ev = "(^|[ :>])(Proxy|Server|Backend|backend) [^ ]+ (stopped|started|is (UP|DOWN|going DOWN)|has no server available|paused|resumed)"
}
{
	if (shape == "httplog" && $0 ~ hreq) req++
	else if (shape == "compact" && $1 ~ /^[0-9]{13}$/ && NF >= 27) req++
	else if (shape == "edge" && $0 ~ ereq) req++
	else if (shape == "nginx" && $0 ~ nreq) req++
	else if (shape == "nginx-json" && $0 ~ /^\{"time":"/) req++
	else if (shape != "nginx" && shape != "nginx-json" && $0 ~ ev) evs++
	else other++
}
END { printf "%d %d %d\n", req, evs, other }
