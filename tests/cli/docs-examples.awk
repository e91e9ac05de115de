# Cut the examples out of README.md or a man page (tests/cli/t0060).
# Every example carries a marker on the line before it:
#   README.md:  <!-- lbt-example: run DIR -->     (DIR under the top, e.g.
#               <!-- lbt-example: skip WHY -->     tests/data/incident)
#   man page:   .\" lbt-example: run DIR
#               .\" lbt-example: skip WHY
# An example is a fenced block of README.md holding a "$ " line (or any
# sh/console block), or, in a man page's EXAMPLES, a ".Dl $ ..." line or a
# .Bd -literal block holding a "$ " line.  For example N this writes, in
# the directory `out`:
#   N.where  "FILE:LINE run DIR" or "FILE:LINE skip WHY" or "FILE:LINE unmarked"
#   N.cmd.K  the K-th command ("$ " dropped; continued after a trailing
#            "\" or "|")
#   N.exp    the lines the text shows as its output, in order
# Man escapes are undone (\e \& \- \(dq \(->).
function unroff(s) {
	gsub(/\\&/, "", s); gsub(/\\e/, "\\", s); gsub(/\\-/, "-", s)
	gsub(/\\\(dq/, "\"", s); gsub(/\\\(->/, "\342\206\222", s)
	return s
}
function start(line) {
	n++; ncmd = 0; cont = 0
	where = FILENAME ":" line " " (mark == "" ? "unmarked" : mark)
	print where > (out "/" n ".where"); close(out "/" n ".where")
	printf "" > (out "/" n ".exp"); close(out "/" n ".exp")
	mark = ""
}
function text(s,    f) {
	if (cont) {
		f = out "/" n ".cmd." ncmd
		print s >> f; close(f)
		cont = s ~ /[\\|][ \t]*$/
	} else if (s ~ /^\$ /) {
		ncmd++
		f = out "/" n ".cmd." ncmd
		print substr(s, 3) > f; close(f)
		cont = s ~ /[\\|][ \t]*$/
	} else {
		f = out "/" n ".exp"
		print s >> f; close(f)
	}
}
BEGIN { man = 0 }
FNR == 1 { man = FILENAME ~ /\.[1-8]$/; inblock = 0; mark = ""; sect = "" }
# README.md
!man && /^<!-- lbt-example: (run|skip) .* -->$/ {
	mark = $0; sub(/^<!-- lbt-example: /, "", mark); sub(/ -->$/, "", mark); next
}
!man && /^```/ {
	if (!inblock) {
		inblock = 1; lang = substr($0, 4); nb = 0; bstart = FNR; next
	}
	inblock = 0
	isex = lang == "sh" || lang == "console"
	for (i = 1; i <= nb; i++) if (b[i] ~ /^\$ /) isex = 1
	if (isex) {
		start(bstart)
		for (i = 1; i <= nb; i++) text(b[i])
	}
	mark = ""
	next
}
!man && inblock { b[++nb] = $0; next }
# man pages
man && /^\.Sh / { sect = $2; next }
man && sect != "EXAMPLES" { next }
man && /^\.\\" lbt-example: (run|skip) / { mark = $0; sub(/^\.\\" lbt-example: /, "", mark); next }
man && /^\.Dl \$ / { start(FNR); text(unroff(substr($0, 5))); next }
man && /^\.Bd -literal/ { inblock = 1; nb = 0; bstart = FNR; next }
man && inblock && /^\.Ed/ {
	inblock = 0; isex = 0
	for (i = 1; i <= nb; i++) if (b[i] ~ /^\$ /) isex = 1
	if (isex) {
		start(bstart)
		for (i = 1; i <= nb; i++) text(b[i])
	}
	mark = ""
	next
}
man && inblock { b[++nb] = unroff($0); next }
