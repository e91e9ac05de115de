#!/usr/bin/python3
"""Cut the structured-data field out of HAProxy rfc5424 lines.

Usage: extract_sd.py RFC5424.log RAW.log OUT.log

HAProxy 2.6 cannot send two log-formats for one frontend, so the incident
run puts the compact template in `log-format-sd` of fe_http: every rfc5424
line is then  <PRI>1 TS HOST haproxy PID - <compact line> <httplog line>.
Both parts are rendered by the same function from the same stream, so the
SD part is exactly what `log-format <compact>` would have logged.

The httplog part of every line must be one of the lines of RAW.log (the
raw target of the same frontend); it is matched by content, not position,
because two threads may interleave differently on two UDP targets.  Lines
whose SD is "-" (server/proxy events, which do not use log-format-sd) are
copied as their message, as a compact-format target would have received
them.  Exits 1 if any line cannot be matched.
"""
import collections
import re
import sys

HDR = re.compile(rb"^<\d+>1 \S+ \S+ \S+ \S+ \S+ ")
# start of an httplog message: ip:port [dd/Mon/yyyy:
MSG = re.compile(rb" (\S+:\d+ \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\] )")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n")[2] + "\n")
        return 2
    raw = collections.Counter(open(argv[1], "rb").read().splitlines())
    out = open(argv[2], "wb")
    n = bad = events = 0
    for line in open(argv[0], "rb").read().splitlines():
        m = HDR.match(line)
        if not m:
            bad += 1
            sys.stderr.write("extract_sd: no rfc5424 header: %r\n" % line[:120])
            continue
        rest = line[m.end():]
        if rest.startswith(b"- "):
            out.write(rest[2:] + b"\n")
            if raw.get(rest[2:], 0) > 0:
                raw[rest[2:]] -= 1
            events += 1
            continue
        found = None
        for mm in MSG.finditer(rest):
            if raw.get(rest[mm.start(1):], 0) > 0:
                found = mm
                break
        if not found:
            bad += 1
            sys.stderr.write("extract_sd: no matching raw line: %r\n" % line[:160])
            continue
        raw[rest[found.start(1):]] -= 1
        out.write(rest[:found.start()] + b"\n")
        n += 1
    out.close()
    left = sum(v for v in raw.values() if v > 0)
    sys.stderr.write("extract_sd: %d traffic lines, %d event lines, %d unmatched, "
                     "%d raw lines without rfc5424 twin\n" % (n, events, bad, left))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
