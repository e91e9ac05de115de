# net.awk - the source network of a client address, as lbt names it (used
# with -f before truth.awk and logsources.awk).
#
# net(addr): an IPv4 address is its own source ("203.0.113.7"); an IPv6
# address becomes its /64 in RFC 5952 form ("2001:db8:bad:1::/64"); an
# IPv4-mapped address ("::ffff:a.b.c.d") is IPv4.  Written for this check
# only, without lbt's code: expand to 8 groups, keep 4, compress the
# longest run of zero groups.
function net(a,    g, n, i, j, k, h, t, out, best, blen, run) {
	sub(/^::ffff:/, "", a)
	if (a !~ /:/) return a
	# expand "x::y" to 8 groups
	n = split(a, h, "::")
	if (n == 2) {
		k = (h[1] == "" ? 0 : split(h[1], t, ":"))
		j = (h[2] == "" ? 0 : split(h[2], t, ":"))
		out = h[1]
		for (i = 0; i < 8 - k - j; i++) out = out (out == "" ? "" : ":") "0"
		if (h[2] != "") out = out ":" h[2]
		a = out
	}
	split(a, g, ":")
	for (i = 1; i <= 8; i++) g[i] = (i <= 4) ? sprintf("%x", strtonum("0x" g[i])) : "0"
	# longest run of zero groups (at least 2), the first one on ties
	best = 0; blen = 0; run = 0
	for (i = 1; i <= 8; i++) {
		run = (g[i] == "0") ? run + 1 : 0
		if (run > blen) { blen = run; best = i - run + 1 }
	}
	out = ""
	for (i = 1; i <= 8; i++) {
		if (blen >= 2 && i == best) { out = out "::"; i += blen - 1; continue }
		out = out ((out == "" || out ~ /::$/) ? "" : ":") g[i]
	}
	return out "/64"
}
