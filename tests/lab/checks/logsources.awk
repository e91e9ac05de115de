# logsources.awk - per source network, from the rows of hapfields.awk
# (line time client port status term Tw fc key; use with net.awk).
#
#   gawk -F'\t' -f net.awk -f logsources.awk FIELDS.tsv
#
# One row per source: source requests 2xx 3xx 4xx 429 5xx pt held
#   pt    lines whose termination state starts with PT (tarpitted)
#   held  the sum of Tw over those lines, in seconds with 3 decimals
#         (integer milliseconds summed, then divided: exact)
{
	s = net($3)
	req[s]++
	b = ($5 == 429) ? "429" : ($5 ~ /^[1-5][0-9][0-9]$/) ? substr($5, 1, 1) "xx" : "other"
	st[s, b]++
	if ($6 ~ /^PT/) { pt[s]++; held[s] += $7 }
}
END {
	for (s in req)
		printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d.%03d\n", s, req[s], st[s, "2xx"],
			st[s, "3xx"], st[s, "4xx"], st[s, "429"], st[s, "5xx"], pt[s],
			int(held[s] / 1000), held[s] % 1000
}
