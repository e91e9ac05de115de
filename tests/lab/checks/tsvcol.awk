# tsvcol.awk - print chosen columns of a TSV file with a header line, by name.
#
#   gawk -F'\t' -v cols=key,total -f tsvcol.awk FILE
#
# Prints the named columns of every row after the header, tab-separated, in
# the order of cols.  A name missing from the header is an error (exit 2),
# so a renamed column fails loudly instead of yielding empty values.
BEGIN { OFS = "\t"; n = split(cols, want, ",") }
NR == 1 {
	for (i = 1; i <= NF; i++) idx[$i] = i
	for (j = 1; j <= n; j++)
		if (!(want[j] in idx)) {
			printf "tsvcol: no column '%s' in the header of %s\n", want[j], FILENAME > "/dev/stderr"
			bad = 1; exit 2
		}
	next
}
{
	line = ""
	for (j = 1; j <= n; j++) line = line (j > 1 ? OFS : "") $(idx[want[j]])
	print line
}
END { if (bad) exit 2 }
