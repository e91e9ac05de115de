#!/usr/bin/python3
"""Keep a few lines of each shape of a log file, in their original order.

Usage: pick_lines.py [-k N] [-c] [-x REGEX]... [-r OLD=NEW]... IN OUT

A line's shape is its HTTP status plus the line with UUIDs, addresses,
numbers and long runs of one character replaced by placeholders, so "the same case seen again" (a
burst of tarpitted requests, a hundred 200 pings) collapses to N lines (default
2) while every distinct case is kept.  IPv4, IPv6 and IPv4-mapped addresses,
lowercase and uppercase UUIDs stay distinct shapes.  -c (coarse) also
blanks the text inside "...", {...} and [...], for files whose point is
the wrapper around lines already kept elsewhere.  -x removes what REGEX
matches before the shape is computed (fields that only add variety).  -r replaces a literal
string in the kept lines (to remove the run's temporary paths).  Bytes are
kept as they are (NGINX error.log may hold raw request bytes).
"""
import re
import sys

SUBS = [
    (re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), b"<u>"),
    (re.compile(rb"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"), b"<U>"),
    (re.compile(rb"::ffff:\d+\.\d+\.\d+\.\d+"), b"<m4>"),
    (re.compile(rb"2001:db8[0-9a-f:]*"), b"<v6>"),
    (re.compile(rb"\d+\.\d+\.\d+\.\d+"), b"<v4>"),
    (re.compile(rb"(.)\1{15,}"), rb"\1*"),
    (re.compile(rb"\\x[0-9A-F]{2}"), rb"\\\\x"),
    (re.compile(rb"\d+"), b"0"),
]


# the HTTP status, which the digit placeholder would hide
STATUS = [
    re.compile(rb'"status":(\d+)'),                                  # nginx json
    re.compile(rb'" (\d{3}) '),                                      # combined, clf
    re.compile(rb'\] \S+ \S+ [-+\d/]+ (-?\d+) '),                     # httplog family
    re.compile(rb'^\d{13} \S+ \d+ \S+ \S+ \S+ (?:-?\d+ ){6}(-?\d+) '),  # compact
]


COARSE = [
    (re.compile(rb'"[^"]*"'), b'"~"'),
    (re.compile(rb"\{[^}]*\}"), b"{~}"),
    (re.compile(rb"\[[^\]]*\]"), b"[~]"),
]


def shape(line, coarse=False, drop=()):
    status = b""
    for rx in STATUS:
        m = rx.search(line)
        if m:
            status = m.group(1)
            break
    for rx in drop:
        line = rx.sub(b"", line)
    if coarse:
        for rx, rep in COARSE:
            line = rx.sub(rep, line)
    for rx, rep in SUBS:
        line = rx.sub(rep, line)
    return status + b" " + line


def main(argv):
    k = 2
    coarse = False
    drop = []
    repl = []
    args = list(argv)
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "-k":
            k = int(args.pop(0))
        elif a == "-c":
            coarse = True
        elif a == "-x":
            drop.append(re.compile(args.pop(0).encode()))
        elif a == "-r":
            old, new = args.pop(0).split("=", 1)
            repl.append((old.encode(), new.encode()))
        else:
            sys.stderr.write(__doc__.split("\n")[2] + "\n")
            return 2
    if len(args) != 2:
        sys.stderr.write(__doc__.split("\n")[2] + "\n")
        return 2
    seen = {}
    kept = 0
    with open(args[0], "rb") as f, open(args[1], "wb") as out:
        for line in f:
            s = shape(line, coarse, drop)
            if seen.get(s, 0) >= k:
                continue
            seen[s] = seen.get(s, 0) + 1
            for old, new in repl:
                line = line.replace(old, new)
            out.write(line)
            kept += 1
    sys.stderr.write("pick_lines: %s: %d lines kept, %d shapes\n" % (args[1], kept, len(seen)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
