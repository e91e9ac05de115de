# pmlog.awk - the lines of incident 2's HAProxy logs (option httplog with
# the captures {Host|queue(be_app)}, through rfc5424), read with awk alone.
#
#   gawk -f pmlog.awk haproxy-lb1.log [haproxy-lb2.log ...]
#
# One row per line, tab-separated:
#   req  t_ms  lb  client  status  term  Tw  server  queue  key
#   ev   t_ms  lb  -       -       -     -   -       -      message
# t_ms is epoch milliseconds: of the request date [%tr] for a request line,
# of the rfc5424 header for an event line ("Server be_app/app3 is DOWN, ...",
# "Proxy fe_api stopped ...").  lb is the rfc5424 host name; client has an
# IPv4-mapped "::ffff:" prefix removed; server is %s ("<NOSRV>" when no
# server took it); queue is the second capture (queue(be_app) when the
# request arrived, "-" when absent); key the UUID of the path.
BEGIN {
	OFS = "\t"
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
	for (i = 1; i <= 12; i++) mon[m[i]] = i
	uuid = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
}

# "2026-12-01T20:28:11.335578+00:00" -> epoch ms (the lab logs in UTC)
function isoms(s) {
	return mktime(substr(s, 1, 4) " " substr(s, 6, 2) " " substr(s, 9, 2) " " \
		substr(s, 12, 2) " " substr(s, 15, 2) " " substr(s, 18, 2), 1) * 1000 + substr(s, 21, 3)
}

# "[01/Dec/2026:20:28:11.333]" -> epoch ms
function trms(s) {
	return mktime(substr(s, 9, 4) " " mon[substr(s, 5, 3)] " " substr(s, 2, 2) " " \
		substr(s, 14, 2) " " substr(s, 17, 2) " " substr(s, 20, 2), 1) * 1000 + substr(s, 23, 3)
}

$1 ~ /^<[0-9]+>1$/ {
	lb = $3
	# <PRI>1 TIME HOST APP PID MSGID SD MESSAGE: the message is $8...
	if ($8 ~ /^[0-9A-Fa-f:.]+:[0-9]+$/ && $9 ~ /^\[[0-9][0-9]\/[A-Z][a-z][a-z]\/[0-9]{4}:[0-9:.]{12}\]$/) {
		c = $8; sub(/:[0-9]+$/, "", c); sub(/^::ffff:/, "", c)
		split($12, t, "/")
		split($11, bs, "/")
		q = "-"
		if (match($0, /\{[^}]*\}/)) {
			split(substr($0, RSTART + 1, RLENGTH - 2), cap, "|")
			q = cap[2]
		}
		k = match($0, uuid) ? tolower(substr($0, RSTART, RLENGTH)) : "-"
		print "req", trms($9), lb, c, $13, $17, t[2], bs[2], q, k
	} else {
		msg = $0
		sub(/^<[0-9]+>1 [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", msg)
		print "ev", isoms($2), lb, "-", "-", "-", "-", "-", "-", msg
	}
}
