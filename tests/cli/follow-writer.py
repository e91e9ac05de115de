# A bounded writer for the --follow tests (t8050, t2007, t3005):
# python3 follow-writer.py LOG SECONDS RATE SWITCH [EVENTS]
# appends RATE HAProxy httplog lines a second to LOG
# for SECONDS seconds, stamped when written; half from 203.0.113.7,
# answered 200 by a server until second SWITCH, then 429 by the LB itself
# (<NOSRV>: what a deny rule does), half from 198.51.100.0/24, always 200.
# EVENTS: rotate@S (mv LOG LOG.1 and a new LOG), truncate@S (LOG emptied
# in place) at the start of second S.  Prints its own counts: lines, the
# watched network's 200s and 429s.
import os, sys, time
log, secs, rate, switch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
events = sys.argv[5].split(',') if len(sys.argv) > 5 else []
def line(t, ip, status):
    stamp = time.strftime('%d/%b/%Y:%H:%M:%S', time.gmtime(t)) + '.%03d' % int(t % 1 * 1000)
    if status == 429:
        return ('%s:40000 [%s] fe_http fe_http/<NOSRV> -1/-1/-1/-1/0 429 200 - - PR-- '
                '1/1/0/0/0 0/0 "GET /ping/a HTTP/1.1"\n' % (ip, stamp))
    return ('%s:40000 [%s] fe_http be_app/app1 0/0/0/1/1 200 125 - - ---- '
            '1/1/0/0/0 0/0 "GET /ping/a HTTP/1.1"\n' % (ip, stamp))
out = open(log, 'a')
lines = w200 = w429 = 0
start = int(time.time()) + 1
while time.time() < start:
    time.sleep(0.01)
for s in range(secs):
    if 'rotate@%d' % s in events:
        out.close(); os.rename(log, log + '.1'); out = open(log, 'a')
    if 'truncate@%d' % s in events:
        out.close(); out = open(log, 'w')
    for i in range(rate):
        t = start + s + i / rate
        if i % 2 == 0:
            status = 429 if s >= switch else 200
            out.write(line(t, '203.0.113.7', status))
            w200 += status == 200; w429 += status == 429
        else:
            out.write(line(t, '198.51.100.%d' % (i % 50 + 1), 200))
        lines += 1
        if i % 100 == 99:
            out.flush()
    out.flush()
    while time.time() < start + s + 1:
        time.sleep(0.01)
print(lines, w200, w429)
