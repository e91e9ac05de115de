# logfields.awk - the fields of HAProxy and NGINX request lines, read with
# awk alone, to compare with what lbt-cat parsed.
#
#   TZ=UTC gawk -v shape=httplog|compact|edge|nginx -f logfields.awk FILE
#
# One row per request line (event lines are skipped), tab-separated:
#   line  time  client  port  status  term  Tw  fc  key  dur
# dur (httplog only) is the request's duration in ms as HAProxy's timers
# give it: Ta, or, when Ta is -1, the sum of the timers TR Tw Tc Tr that
# are not -1; the request ends at time + dur.
# line is the line number in FILE; time is ISO 8601 UTC with milliseconds
# (httplog: the [%tr] date; compact: %Ts%ms); client has an IPv4-mapped
# "::ffff:" prefix removed, as lbt does; key is the first UUID of the path,
# lower-cased, or empty.  The httplog line may carry any syslog wrapper: the
# message is found at the "client:port [date]" pair; edge (lb2's template,
# LAB_HAP_EDGE) at the "date client:port" pair.  nginx: combined or
# main, with or without a syslog header (NGINX's own time, whole seconds, zone +0000 only), no port, term, Tw, fc.
BEGIN {
	OFS = "\t"
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
	for (i = 1; i <= 12; i++) mon[m[i]] = sprintf("%02d", i)
	uuid = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
}

# "[30/Nov/2026:07:45:10.548]" -> "2026-11-30T07:45:10.548Z"
function isodate(d) {
	return substr(d, 9, 4) "-" mon[substr(d, 5, 3)] "-" substr(d, 2, 2) "T" \
		substr(d, 14, 12) "Z"
}

# 1796024710548 (epoch ms) -> "2026-11-30T07:45:10.548Z"; needs TZ=UTC
function isoms(ms) {
	return strftime("%Y-%m-%dT%H:%M:%S", int(ms / 1000), 1) sprintf(".%03dZ", ms % 1000)
}

function keyof(path) {
	return match(path, uuid) ? tolower(substr(path, RSTART, RLENGTH)) : ""
}

function client(c) {
	sub(/^::ffff:/, "", c)
	return c
}

shape == "httplog" {
	for (i = 1; i < NF; i++) {
		cp = $i
		sub(/^<[0-9]+>/, "", cp) # "short" and "priority" wrappers: <PRI>msg
		if ($(i + 1) ~ /^\[[0-9][0-9]\/[A-Z][a-z][a-z]\/[0-9]{4}:[0-9:.]{12}\]$/ &&
		    cp ~ /^[0-9A-Fa-f:.]+:[0-9]+$/)
			break
	}
	if (i == NF) next
	port = cp; sub(/:[0-9]+$/, "", cp); sub(/.*:/, "", port)
	split($(i + 4), t, "/")         # TR/Tw/Tc/Tr/Ta
	split($(i + 10), c, "/")        # ac/fc/bc/sc/rc
	path = ($(NF - 2) ~ /^"[A-Z]+$/) ? $(NF - 1) : ""
	dur = t[5] >= 0 ? t[5] : (t[1] > 0 ? t[1] : 0) + (t[2] > 0 ? t[2] : 0) + \
	    (t[3] > 0 ? t[3] : 0) + (t[4] > 0 ? t[4] : 0)
	print FNR, isodate($(i + 1)), client(cp), port, $(i + 5), $(i + 9), t[2], c[2], keyof(path), dur
}

# date client:port be/srv status bytes TR/Tw/Tc/Tr/Ta tsc ac/fc/bc/sc/rc sq/bq "request"
shape == "edge" {
	for (i = 1; i < NF; i++)
		if ($i ~ /^[0-9][0-9]\/[A-Z][a-z][a-z]\/[0-9]{4}:[0-9:.]{12}$/ && $(i + 1) ~ /^[0-9A-Fa-f:.]+:[0-9]+$/)
			break
	if (i == NF) next
	cp = $(i + 1); port = cp; sub(/:[0-9]+$/, "", cp); sub(/.*:/, "", port)
	split($(i + 5), t, "/")
	split($(i + 7), c, "/")
	path = ($(NF - 2) ~ /^"[A-Z]+$/) ? $(NF - 1) : ""
	print FNR, isodate("[" $i "]"), client(cp), port, $(i + 3), $(i + 6), t[2], c[2], keyof(path)
}

shape == "compact" && $1 ~ /^[0-9]{13}$/ && NF >= 27 {
	path = $24; gsub(/"/, "", path)
	print FNR, isoms($1), client($2), $3, $13, $15, $8, $17, keyof(path)
}

shape == "nginx" && match($0, /[^ ]+ - [^ ]+ \[[0-9]{2}\/[A-Z][a-z]{2}\/[0-9]{4}:[0-9:]{8} \+0000\] "/) {
	split(substr($0, RSTART, RLENGTH), f, " ")
	d = substr(f[4], 2)
	t = substr(d, 8, 4) "-" mon[substr(d, 4, 3)] "-" substr(d, 1, 2) "T" substr(d, 13, 8) ".000Z"
	rest = substr($0, RSTART + RLENGTH)     # METHOD PATH VERSION" STATUS BYTES ...
	split(rest, r, " ")
	status = r[4]
	print FNR, t, client(f[1]), "", status, "", "", "", keyof(r[2])
}
