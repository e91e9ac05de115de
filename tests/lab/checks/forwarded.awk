# forwarded.awk - which HAProxy request lines were passed to a server, read
# with awk alone, to compare with what the server (NGINX) logged.
#
#   gawk -v shape=httplog|edge|tcplog [-v lb=NAME] -f forwarded.awk FILE
#
# One row per request line (event lines are skipped), tab-separated:
#   lb  client  server  fwd
# client has an IPv4-mapped "::ffff:" prefix removed; server is the %s
# field; fwd is
#   1  the server answered: Tr >= 0 (http), or a server was connected and
#      sent bytes (tcplog: Tc >= 0 and %B > 0): NGINX logged the request
#   0  no server was connected (<NOSRV>, Tc = -1): NGINX never saw it
#   ?  connected but no answer logged (Tr = -1, or tcplog without bytes):
#      NGINX may or may not have logged it (a client that gave up)
# Shapes: httplog (any syslog wrapper, "client:port [date] fe be/srv
# TR/Tw/Tc/Tr/Ta"), edge (lb2's LAB_HAP_EDGE: "date client:port be/srv
# status bytes TR/Tw/Tc/Tr/Ta"), tcplog ("client:port [date] fe be/srv
# Tw/Tc/Tt bytes").
BEGIN {
	OFS = "\t"
	if (shape !~ /^(httplog|edge|tcplog)$/) {
		print "forwarded: unknown shape '" shape "'" > "/dev/stderr"; exit 2
	}
}

function client(c) {
	sub(/:[0-9]+$/, "", c)
	sub(/^<[0-9]+>/, "", c)
	sub(/^::ffff:/, "", c)
	return c
}

function row(c, srv, tc, ans) {
	split(srv, s, "/")
	if (s[2] == "<NOSRV>" || tc < 0) f = 0
	else f = ans ? 1 : "?"
	print lb, client(c), s[2], f
}

shape == "httplog" || shape == "tcplog" {
	for (i = 1; i < NF; i++)
		if ($(i + 1) ~ /^\[[0-9][0-9]\/[A-Z][a-z][a-z]\/[0-9]{4}:[0-9:.]{12}\]$/ &&
		    $i ~ /^(<[0-9]+>)?[0-9A-Fa-f:.]+:[0-9]+$/)
			break
	if (i == NF) next
	split($(i + 4), t, "/")
	if (shape == "httplog") row($i, $(i + 3), t[3], t[4] >= 0)
	else row($i, $(i + 3), t[2], $(i + 5) > 0)
}

shape == "edge" {
	for (i = 1; i < NF; i++)
		if ($i ~ /^[0-9][0-9]\/[A-Z][a-z][a-z]\/[0-9]{4}:[0-9:.]{12}$/ && $(i + 1) ~ /^[0-9A-Fa-f:.]+:[0-9]+$/)
			break
	if (i == NF) next
	split($(i + 5), t, "/")
	row($(i + 1), $(i + 2), t[3], t[4] >= 0)
}
