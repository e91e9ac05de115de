# truth.awk - what the client sent and got, per source network (truth.tsv
# of client.py; use with net.awk).
#
#   gawk -F'\t' -f net.awk -f truth.awk truth.tsv
#
# One row per source: source sent never unknown 2xx 3xx 4xx 429 5xx
#   never    requests HAProxy cannot have logged: refused by "tcp-request
#            connection reject" (result "reset" while the reject rule was in
#            force, i.e. phase "reject"), never accepted (connect-timeout,
#            refused)
#   unknown  other errors (client timeout, eof, a reset in another phase):
#            the connection may or may not have reached a log line
#   2xx..5xx the HTTP statuses received, as lbt-offenders buckets them
NR == 1 { next }
{
	s = net($2); r = $8
	sent[s]++
	if (r ~ /^[0-9]+$/) {
		b = (r == 429) ? "429" : substr(r, 1, 1) "xx"
		st[s, b]++
	} else if ((r == "reset" && $7 == "reject") || r == "connect-timeout" || r == "refused")
		never[s]++
	else
		unknown[s]++
}
END {
	for (s in sent)
		printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", s, sent[s], never[s], unknown[s],
			st[s, "2xx"], st[s, "3xx"], st[s, "4xx"], st[s, "429"], st[s, "5xx"]
}
