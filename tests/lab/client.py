#!/usr/bin/python3
"""Traffic client for the lbtriage lab (tests/lab/lab.sh, tests/lab/incident.sh).

Runs inside the lab network namespace, binds every connection to a
documentation address (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
2001:db8::/32) and records one line per request it sends in OUT/truth.tsv:

    send_us src sport method path uuid phase result dur_us dst

send_us is the wall clock (epoch microseconds) just before connect(); result
is the HTTP status, or an error word (timeout, connect-timeout, reset, eof,
refused, tls-error, ...); dur_us runs from send_us to the end of the
response (or the error); dst is the address:port the client connected to.

Sub-commands:
    addrs                       print every source address the lab must assign
    wait HOST PORT PATH [--expect TEXT] [--also HOST,PORT,PATH[,EXPECT]]... [--times] [--timeout S]
    srvwait SOCK[,SOCK...] BACKEND UP|DOWN SERVER... [--timeout S]
    sockcmd SOCK COMMAND        one command to an HAProxy stats socket
    lab --out DIR --hook CMD [--quick]
    incident --out DIR --hook CMD [--quick] [--single-lb]
    incident2 --out DIR --hook CMD [--quick]
    expect2 --out DIR           incident 2: expected-events.tsv from its truth
    summary TRUTH.tsv           counts per phase and source (Markdown)

Every loop is bounded in count and in time.  Standard library only.
"""
import argparse
import errno
import os
import random
import re
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time

# --------------------------------------------------------------------------
# Addresses, ports, keys

LB4 = "192.0.2.1"          # HAProxy IPv4 address (specific IPv4 listener)
LB4_DUAL = "192.0.2.9"     # second IPv4 address: reaches the [::]:P v4v6 listener
LB6 = "2001:db8::1"        # HAProxy IPv6 address
LB2_4 = "192.0.2.3"        # second HAProxy instance (lb2: fe_edge in the incident)
LB2_6 = "2001:db8::3"
LB3_4 = "192.0.2.4"        # third HAProxy instance (lb3, incident 2)
LB3_6 = "2001:db8::4"
APP4 = "192.0.2.2"         # NGINX (also reachable directly)
APP6 = "2001:db8::2"
APPS2 = ["192.0.2.21", "192.0.2.22", "192.0.2.23"]   # incident 2: app1..app3

PORT = dict(http=80, nocap=81, tcp=82, clf=83, legacy=84, compact=85,
            https=443, monitor=8999, nginx=8080, nginx_dual=8081)

CLIENTS4 = ["192.0.2.10", "192.0.2.11", "192.0.2.12", "192.0.2.13",
            "198.51.100.20", "198.51.100.21", "198.51.100.30", "198.51.100.31",
            "198.51.100.66", "198.51.100.99",
            "203.0.113.7", "203.0.113.8", "203.0.113.50", "203.0.113.51",
            # incident 2: the customers
            "198.51.100.101", "203.0.113.103", "192.0.2.104", "198.51.100.106"]
FLOOD6 = ["2001:db8:bad:1:" + s for s in (
    "52e6:f2a7:269e:6513", "a6a3:c5c:128b:d23f", "892f:1818:5d9d:9531",
    "ed9:e8e2:81e7:36f6", "999:1600:6f03:6b0d", "11e2:3d9c:1738:8d11",
    "6cad:f21:d3ac:90c1", "1fb1:f28c:3926:a170")]
CLIENTS6 = ["2001:db8:1::10", "2001:db8:2::20", "2001:db8:3::30",
            "2001:db8:4::40", "2001:db8:66::66", "2001:db8:99::99",
            "2001:db8:bad:2::5",
            "2001:db8:cb::b", "2001:db8:ce::e"] + FLOOD6   # last two: incident 2

UUIDS = ["f768064f-9585-47ad-a39e-ed24c2c063fe",
         "5966eb44-e0c6-4744-9511-3dc30e9a8df5",
         "b9c48cb0-1720-400e-8ca8-2984fcb042d9",
         "a83c546d-bc4d-43dc-96c9-3f01a9f18630",
         "ace970fc-cddb-4416-a396-6023df2d5c05",
         "00633256-e25f-471d-8fe2-c4e12b5eadad",
         "e66c0e98-1942-4e8a-b4c6-049fa9998118",
         "3c19c840-d9f9-4acd-a62d-2465be71c2d9"]
RID = "e7f137f5-a11b-4c7d-b5a6-b47b57a73cab"
SLUG_KEY = "k3v9q2x7m1p8r4t6w0y5za"        # new-style ping key
SLUG_KEY_OLD = "fqOOd6-F4MMNuCEnzTU01w"    # old-style (base64url) ping key
HOST = "hc-ping.com"

UA_CURL = b"curl/7.88.1"
UA_WGET = b"Wget/1.21.3"
UA_PYREQ = b"python-requests/2.31.0"
UA_MOZ = b"Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
UA_ODD = b'hc-client "beta" caf\xc3\xa9 {x|y} #1'
UA_GO = b"Go-http-client/1.1"

KEY_RE = re.compile(rb"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                    rb"[0-9a-fA-F]{4}-[0-9a-fA-F]{12})|^/([A-Za-z0-9_-]{22}/[a-z0-9_-]+)")


def now_us():
    return time.time_ns() // 1000


def esc(b):
    """bytes -> printable TSV-safe text (\\xHH for controls, non-ASCII, backslash)."""
    if isinstance(b, str):
        b = b.encode("utf-8", "surrogateescape")
    out = []
    for c in b:
        if 0x20 <= c < 0x7F and c != 0x5C:
            out.append(chr(c))
        else:
            out.append("\\x%02X" % c)
    return "".join(out) or "-"


def key_of(path):
    if not path:
        return "-"
    if isinstance(path, str):
        path = path.encode("utf-8", "surrogateescape")
    m = KEY_RE.search(path)
    if not m:
        return "-"
    return (m.group(1) or m.group(2)).decode("ascii")


# --------------------------------------------------------------------------
# Where a connection went: (address, port) -> (LB name, frontend), for the
# lb and frontend columns of truth.tsv.  The lab and incident 1 use the
# default table; incident 2 installs its own (set_endpoints).

def _default_endpoints():
    t = {}
    fe = dict(http="fe_http", nocap="fe_nocap", tcp="fe_tcp", clf="fe_clf",
              legacy="fe_legacy", compact="fe_compact", https="fe_https")
    for addr in (LB4, LB4_DUAL, LB6):
        for name, f in fe.items():
            t[(addr, PORT[name])] = ("lb1", f)
    for addr in (LB2_4, LB2_6):
        t[(addr, 80)] = ("lb2", "fe_edge")
    for addr in (APP4, APP6):
        for port in (PORT["nginx"], PORT["nginx_dual"]):
            t[(addr, port)] = ("web1", "-")
    return t


ENDPOINTS = _default_endpoints()


def set_endpoints(table):
    ENDPOINTS.clear()
    ENDPOINTS.update(table)


def endpoint(dst, port):
    return ENDPOINTS.get((dst, port), ("-", "-"))


# --------------------------------------------------------------------------
# Truth file

class Truth:
    COLUMNS = ["send_us", "src", "sport", "method", "path", "uuid", "phase",
               "result", "dur_us", "dst", "lb", "frontend"]

    def __init__(self, path, extra=()):
        """extra: names of columns after the common ones (incident 2)."""
        self.extra = list(extra)
        self.f = open(path, "w")
        self.f.write("\t".join(self.COLUMNS + self.extra) + "\n")
        self.lock = threading.Lock()
        self.n = 0

    def add(self, t0, src, sport, method, path, phase, result, t1, dst, port, **extra):
        dsts = ("[%s]:%d" if ":" in dst else "%s:%d") % (dst, port)
        lb, fe = endpoint(dst, port)
        line = "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s" % (
            t0, src, sport if sport else "-", esc(method) if method else "-",
            esc(path) if path is not None else "-", key_of(path), phase,
            result, max(0, t1 - t0), dsts, lb, fe)
        for k in self.extra:
            line += "\t%s" % extra.get(k, "-")
        with self.lock:
            self.f.write(line + "\n")
            self.n += 1

    def close(self):
        self.f.close()


# --------------------------------------------------------------------------
# Low level: sockets, HTTP/1.x, TLS, HTTP/2

def err_word(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    if isinstance(e, ssl.SSLError):
        return "tls-error"
    if isinstance(e, ConnectionResetError):
        return "reset"
    if isinstance(e, ConnectionRefusedError):
        return "refused"
    if isinstance(e, BrokenPipeError):
        return "epipe"
    if isinstance(e, OSError) and e.errno:
        return "err-" + errno.errorcode.get(e.errno, str(e.errno)).lower()
    return "err-" + type(e).__name__.lower()


_tls_ctx = {}


def tls_context(alpn=None):
    key = tuple(alpn or ())
    if key not in _tls_ctx:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        if alpn:
            ctx.set_alpn_protocols(list(alpn))
        _tls_ctx[key] = ctx
    return _tls_ctx[key]


class Conn:
    """One TCP (optionally TLS) connection bound to a source address."""

    def __init__(self, src, dst, port, timeout=10.0):
        fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
        self.s = socket.socket(fam, socket.SOCK_STREAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind((src, 0))
        self.sport = self.s.getsockname()[1]
        self.timeout = timeout
        self.src, self.dst, self.port = src, dst, port

    def connect(self):
        self.s.settimeout(self.timeout)
        try:
            self.s.connect((self.dst, self.port))
        except socket.timeout:
            raise ConnectTimeout()

    def starttls(self, sni=None, alpn=None):
        self.s = tls_context(alpn).wrap_socket(self.s, server_hostname=sni)

    def close(self, rst=False):
        try:
            if rst:
                self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                  struct.pack("ii", 1, 0))
            self.s.close()
        except OSError:
            pass


class ConnectTimeout(Exception):
    pass


def read_response(s, head=False):
    """Read one HTTP/1.x response; return (status, keepalive)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            if not buf:
                return "eof", False
            break
        buf += d
        if len(buf) > 1 << 20:
            break
    hdr, _, body = buf.partition(b"\r\n\r\n")
    lines = hdr.split(b"\r\n")
    parts = lines[0].split(None, 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return "badresp", False
    status = int(parts[1])
    clen, chunked, close = None, False, parts[0] == b"HTTP/1.0"
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        k = k.strip().lower()
        v = v.strip().lower()
        if k == b"content-length" and v.isdigit():
            clen = int(v)
        elif k == b"transfer-encoding" and b"chunked" in v:
            chunked = True
        elif k == b"connection":
            close = v == b"close"
    if head or status in (204, 304) or 100 <= status < 200:
        return status, not close
    if clen is not None:
        while len(body) < clen:
            d = s.recv(65536)
            if not d:
                break
            body += d
    elif chunked:
        while not body.endswith(b"0\r\n\r\n"):
            d = s.recv(65536)
            if not d:
                break
            body += d
    else:
        while True:
            d = s.recv(65536)
            if not d:
                break
        close = True
    return status, not close


def build_request(method, path, host=HOST, ua=UA_CURL, body=None,
                  headers=None, close=True, version=b"HTTP/1.1"):
    if isinstance(method, str):
        method = method.encode()
    if isinstance(path, str):
        path = path.encode()
    r = [method + b" " + path + b" " + version]
    if host is not None:
        r.append(b"Host: " + (host.encode() if isinstance(host, str) else host))
    if ua is not None:
        r.append(b"User-Agent: " + ua)
    r.append(b"Accept: */*")
    for k, v in (headers or []):
        r.append(k + b": " + v)
    if body is not None:
        r.append(b"Content-Type: text/plain")
        r.append(b"Content-Length: %d" % len(body))
    if close:
        r.append(b"Connection: close")
    return b"\r\n".join(r) + b"\r\n\r\n" + (body or b"")


def h2_exchange(s, authority, path, ua, method=b"GET", timeout=10.0):
    """Minimal HTTP/2 client (prior TLS+ALPN): one request on stream 1."""
    def frame(ftype, flags, sid, payload):
        return (struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) +
                struct.pack(">I", sid) + payload)

    def hint(v, bits, first):
        mx = (1 << bits) - 1
        if v < mx:
            return bytes([first | v])
        out = [first | mx]
        v -= mx
        while v >= 128:
            out.append((v & 127) | 128)
            v >>= 7
        out.append(v)
        return bytes(out)

    def lit(name, value):  # literal header field without indexing, new name
        return b"\x00" + hint(len(name), 7, 0) + name + hint(len(value), 7, 0) + value

    block = (lit(b":method", method) + lit(b":scheme", b"https") +
             lit(b":authority", authority) + lit(b":path", path) +
             lit(b"user-agent", ua) + lit(b"accept", b"*/*"))
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") +
              frame(1, 0x5, 1, block))
    static = {8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500}
    buf = b""
    status = None
    deadline = time.monotonic() + timeout
    done = False
    while not done and time.monotonic() < deadline:
        while len(buf) < 9:
            d = s.recv(65536)
            if not d:
                return status or "eof"
            buf += d
        ln = struct.unpack(">I", b"\0" + buf[:3])[0]
        ftype, flags = buf[3], buf[4]
        sid = struct.unpack(">I", buf[5:9])[0] & 0x7FFFFFFF
        while len(buf) < 9 + ln:
            d = s.recv(65536)
            if not d:
                return status or "eof"
            buf += d
        payload, buf = buf[9:9 + ln], buf[9 + ln:]
        if ftype == 4 and not flags & 1:
            s.sendall(frame(4, 1, 0, b""))
        elif ftype == 1 and sid == 1:
            p = payload
            while p and (p[0] & 0xE0) == 0x20:   # dynamic table size update
                p = p[1:]
            if p:
                b0 = p[0]
                if b0 & 0x80:
                    status = static.get(b0 & 0x7F, "h2-idx%d" % (b0 & 0x7F))
                elif ((b0 & 0xC0) == 0x40 and (b0 & 0x3F) == 8) or \
                        ((b0 & 0xE0) == 0 and (b0 & 0x0F) == 8):
                    vl = p[1]
                    if not vl & 0x80 and p[2:2 + vl].isdigit():
                        status = int(p[2:2 + vl])
                    else:
                        status = "h2-huff"
                else:
                    status = "h2-unparsed"
            if flags & 1:
                done = True
        elif ftype == 0 and sid == 1 and flags & 1:
            done = True
        elif ftype == 3 and sid == 1:
            return status or "h2-rst"
        elif ftype == 7:
            return status or "h2-goaway"
    try:
        s.sendall(frame(7, 0, 0, struct.pack(">II", 1, 0)))
    except OSError:
        pass
    return status if status is not None else "timeout"


def client_hello_bytes():
    """A real TLS ClientHello, as a scanner would send it to a plain port."""
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = tls_context().wrap_bio(inc, out, server_hostname=HOST)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


# --------------------------------------------------------------------------
# One request, recorded

class Ctx:
    def __init__(self, truth):
        self.truth = truth
        self.phase = "-"
        self.lock = threading.Lock()


def do(ctx, src, dst, port, method=b"GET", path=b"/", phase=None, tls=False,
       sni=HOST, raw=None, hold=0.0, rst=False, h2=False, timeout=10.0,
       keepalive=None, close_after=False, **kw):
    """Send one request (or a raw byte string) and record it.

    raw: bytes sent verbatim instead of a built request (method/path only
         label the truth line).  hold: seconds to wait after sending raw
         bytes before reading (partial requests).  close_after: close after
         the hold without reading.  keepalive: list of (method, path, kw)
         sent on one connection, one truth line each.  Remaining keywords
         go to build_request().
    """
    if keepalive:
        method, path = keepalive[0][0], keepalive[0][1]
    if isinstance(method, str):
        method = method.encode()
    if isinstance(path, str):
        path = path.encode()
    phase = phase or ctx.phase
    t0 = now_us()
    sport = None
    c = None
    recorded = False
    try:
        c = Conn(src, dst, port, timeout)
        sport = c.sport
        t0 = now_us()
        c.connect()
        if tls:
            c.starttls(sni, ["h2"] if h2 else ["http/1.1"])
        if h2:
            result = h2_exchange(c.s, (sni or dst).encode(), path,
                                 kw.get("ua", UA_CURL), method, timeout)
        elif keepalive:
            t_req = t0
            for i, (m, p, k) in enumerate(keepalive):
                k = dict(k)
                gap = k.pop("gap", 0.3)
                if i:
                    time.sleep(gap)
                    t_req = now_us()
                m = m.encode() if isinstance(m, str) else m
                p = p.encode() if isinstance(p, str) else p
                last = i == len(keepalive) - 1
                try:
                    c.s.sendall(build_request(m, p, close=last, **k))
                    st, _ = read_response(c.s, head=(m == b"HEAD"))
                except (OSError, ssl.SSLError) as e:
                    st = err_word(e)
                ctx.truth.add(t_req, src, sport, m, p, phase, st, now_us(),
                              dst, port)
                recorded = True
                if not isinstance(st, int):
                    break
            result = None
        elif raw is not None:
            c.s.sendall(raw)
            if hold:
                time.sleep(hold)
            if close_after:
                result = "closed-by-client"
            else:
                result, _ = read_response(c.s)
        else:
            c.s.sendall(build_request(method, path, **kw))
            result, _ = read_response(c.s, head=(method == b"HEAD"))
    except ConnectTimeout:
        result = "connect-timeout"
    except (OSError, ssl.SSLError) as e:
        result = err_word(e)
    finally:
        if c is not None:
            c.close(rst=rst)
    if not recorded:
        ctx.truth.add(t0, src, sport, method, path, phase, result, now_us(),
                      dst, port)


def empty_conn(ctx, src, dst, port, phase, tls=False):
    """Connect and close without sending a byte."""
    t0 = now_us()
    c = Conn(src, dst, port, 5.0)
    try:
        c.connect()
        if tls:
            c.starttls(HOST)
        result = "closed-by-client"
    except ConnectTimeout:
        result = "connect-timeout"
    except (OSError, ssl.SSLError) as e:
        result = err_word(e)
    c.close()
    ctx.truth.add(t0, src, c.sport, b"-", None, phase, result, now_us(), dst, port)


def dst_for(src, port_name):
    if ":" in src:
        return LB6 if port_name not in ("nginx", "nginx_dual") else APP6
    return LB4 if port_name not in ("nginx", "nginx_dual") else APP4


def run_hook(hook, *args):
    if not hook:
        return
    sys.stderr.write("client: hook %s\n" % " ".join(args))
    subprocess.run([hook] + list(args), check=True, timeout=60)


# --------------------------------------------------------------------------
# Lab: every case once per listener

def lab_cases(name, port, tls=False, captures=True, haproxy=True):
    """Return (case, kwargs) for one listener; src/dst filled by the runner."""
    U = UUIDS
    hello = client_hello_bytes()
    c = [
        ("ping-v4", dict(v=4, path="/ping/" + U[0], ua=UA_CURL)),
        ("ping-v6", dict(v=6, path="/" + U[1], ua=UA_WGET)),
        ("ping-mapped", dict(v="dual", path="/ping/" + U[2] + "/start", ua=UA_CURL)),
        ("ping-exit0", dict(v=4, path="/" + U[2] + "/0", ua=UA_CURL)),
        ("ping-fail", dict(v=6, path="/ping/" + U[3] + "/fail", ua=UA_CURL)),
        ("ping-exit1", dict(v=4, path="/" + U[4] + "/1", ua=UA_WGET)),
        ("ping-rid", dict(v=6, path="/ping/" + U[6] + "?rid=" + RID, ua=UA_PYREQ)),
        ("ping-trailing-slash", dict(v=4, path="/" + U[7] + "/", ua=UA_CURL)),
        ("head", dict(v=4, method="HEAD", path="/ping/" + U[0], ua=UA_CURL)),
        ("post-log", dict(v=6, method="POST", path="/ping/" + U[5] + "/log",
                          ua=UA_CURL, body=b"backup done: 12 files, 3.4 GB\n")),
        ("slug", dict(v=4, path="/%s/db-backup" % SLUG_KEY, ua=UA_CURL)),
        ("slug-old-start", dict(v=6, path="/%s/nightly-job/start" % SLUG_KEY_OLD, ua=UA_CURL)),
        ("slug-create", dict(v=4, path="/%s/new-job?create=1" % SLUG_KEY, ua=UA_PYREQ)),
        ("uuid-uppercase", dict(v=4, path="/ping/" + U[7].upper(), ua=UA_CURL)),
        ("not-found", dict(v=6, path="/favicon.ico", ua=UA_MOZ)),
        ("not-a-uuid", dict(v=4, path="/ping/not-a-uuid", ua=UA_CURL)),
        ("ua-spaces", dict(v=4, path="/ping/" + U[1], ua=UA_MOZ)),
        ("ua-odd-bytes", dict(v=6, path="/ping/" + U[1], ua=UA_ODD)),
        ("ua-none", dict(v=4, path="/ping/" + U[1], ua=None)),
        ("referer", dict(v=4, path="/" + U[3], ua=UA_MOZ,
                         headers=[(b"Referer", b"https://example.com/a?b=\"c\"")])),
        ("http10-no-host", dict(v=4, raw=b"GET /ping/" + U[4].encode() +
                                b" HTTP/1.0\r\nUser-Agent: curl/7.88.1\r\n\r\n",
                                method="GET", path="/ping/" + U[4])),
        ("keepalive", dict(v=6, keepalive=[
            ("GET", "/ping/" + U[5] + "/start", dict(ua=UA_PYREQ)),
            ("GET", "/ping/" + U[5], dict(ua=UA_PYREQ, gap=0.4)),
            ("POST", "/ping/" + U[5] + "/log", dict(ua=UA_PYREQ, gap=0.2, body=b"x" * 40))])),
        ("odd-url-quote", dict(v=4, raw=build_request("GET", b'/ping/a"b'),
                               method="GET", path=b'/ping/a"b')),
        ("odd-url-utf8", dict(v=4, raw=build_request("GET", b"/caf\xc3\xa9"),
                              method="GET", path=b"/caf\xc3\xa9")),
        ("odd-url-brace", dict(v=6, raw=build_request("GET", b"/a{b}|c<d>"),
                               method="GET", path=b"/a{b}|c<d>")),
        ("odd-url-hash", dict(v=4, raw=build_request("GET", b"/ping/x#frag"),
                              method="GET", path=b"/ping/x#frag")),
        ("odd-url-pct", dict(v=4, path="/ping/%22q%22%20x", ua=UA_CURL)),
        ("odd-url-space", dict(v=4, raw=build_request("GET", b"/ping/a b"),
                               method="GET", path=b"/ping/a b")),
        ("long-url", dict(v=4, path="/ping/" + U[6] + "?pad=" + "x" * 900, ua=UA_CURL)),
        ("badreq-hello", dict(v=4, raw=b"HELLO WORLD\r\n\r\n", method="-", path=None,
                              src="198.51.100.99")),
        ("badreq-tls-hello", dict(v=6, raw=hello, method="-", path=None,
                                  src="2001:db8:99::99")),
        ("badreq-partial-close", dict(v=4, raw=b"GET /ping/" + U[0].encode() +
                                      b" HTTP/1.1\r\nHost: hc", hold=0.3, close_after=1,
                                      method="GET", path="/ping/" + U[0], src="198.51.100.99")),
        ("badreq-partial-timeout", dict(v=6, raw=b"GET /ping/" + U[0].encode() +
                                        b" HTTP/1.1\r\nHost: hc-ping.com\r\n", hold=0.1,
                                        method="GET", path="/ping/" + U[0],
                                        src="2001:db8:99::99")),
        ("empty-conn", dict(v=4, empty=True, src="198.51.100.99")),
    ]
    if haproxy and name != "tcp":
        c.append(("denied", dict(v=4, path="/denied/" + U[0], ua=UA_CURL)))
    if name == "https":
        c = [x for x in c if x[0] not in ("badreq-tls-hello",)]
        c += [
            ("h2-get", dict(v=4, h2=True, path="/ping/" + U[0], ua=UA_CURL)),
            ("h2-get-v6", dict(v=6, h2=True, path="/" + U[1] + "/start", ua=UA_CURL)),
            ("tls-no-sni", dict(v=4, sni=None, path="/ping/" + U[2], ua=UA_CURL)),
            ("plain-http-to-tls", dict(v=4, notls=True, raw=build_request("GET", "/ping/" + U[0]),
                                       method="GET", path="/ping/" + U[0], src="198.51.100.99")),
        ]
    if not haproxy:
        c += [("xff-direct", dict(v=4, path="/ping/" + U[3], ua=UA_CURL,
                                  headers=[(b"X-Forwarded-For", b"198.51.100.77, 192.0.2.50")]))]
    return c


# Listeners run their cases in parallel and share one stick table (10 req/s
# per source): each listener starts at another offset in these pools.
SRC_POOL4 = ["192.0.2.10", "192.0.2.11", "192.0.2.12", "192.0.2.13",
             "198.51.100.20", "198.51.100.30", "198.51.100.31",
             "203.0.113.50", "203.0.113.51", "203.0.113.8"]
SRC_POOL6 = ["2001:db8:1::10", "2001:db8:2::20", "2001:db8:3::30",
             "2001:db8:4::40", "2001:db8:66::66", "2001:db8:bad:2::5"]


def lab_listener(ctx, name, pace, out_err, offset=0):
    try:
        _lab_listener(ctx, name, pace, offset)
    except Exception as e:  # report, do not hang the run
        out_err.append("%s: %r" % (name, e))
        raise


def _lab_listener(ctx, name, pace, offset):
    haproxy = not name.startswith("nginx")
    port = PORT[name]
    tls = name == "https"
    i4 = i6 = offset
    for case, kw in lab_cases(name, port, tls=tls, haproxy=haproxy):
        kw = dict(kw)
        v = kw.pop("v")
        if v == 6:
            src = kw.pop("src", SRC_POOL6[i6 % len(SRC_POOL6)])
            i6 += 1
        else:
            src = kw.pop("src", SRC_POOL4[i4 % len(SRC_POOL4)])
            i4 += 1
        if ":" in src:
            dst = APP6 if not haproxy else LB6
        elif v == "dual":
            dst = APP4 if not haproxy else LB4_DUAL
            src = "198.51.100.21"
        else:
            dst = APP4 if not haproxy else LB4
        p = port
        if v == "dual" and name == "nginx":
            p = PORT["nginx_dual"]
        phase = "%s:%s" % (name, case)
        if kw.pop("empty", False):
            empty_conn(ctx, src, dst, p, phase, tls=tls)
        else:
            use_tls = tls and not kw.pop("notls", False)
            kw.pop("notls", None)
            do(ctx, src, dst, p, phase=phase, tls=use_tls, **kw)
        time.sleep(pace)
    # tarpit / rate-limit burst (HAProxy) or limit_req burst (NGINX)
    if name == "tcp":
        return
    burst = 14
    ths = []
    for k in range(burst):
        if haproxy:
            src, dst = "198.51.100.66", LB4
            path = "/ping/" + UUIDS[0]
            phase = "%s:tarpit-burst" % name
        else:
            src, dst = "198.51.100.66", APP4
            path = "/limited/" + UUIDS[0]
            phase = "%s:limit-req-burst" % name
        t = threading.Thread(target=do, args=(ctx, src, dst, port),
                             kwargs=dict(path=path, phase=phase, tls=tls, ua=UA_GO))
        t.start()
        ths.append(t)
        time.sleep(0.01)
    for t in ths:
        t.join(20)


def cmd_lab(a):
    truth = Truth(os.path.join(a.out, "truth.tsv"))
    ctx = Ctx(truth)
    U = UUIDS
    t_start = now_us()
    phases = []

    def phase(name, t0):
        phases.append((name, t0, now_us()))

    # 1. right after start, app3 (closed port) is not yet marked DOWN:
    #    some requests go to it and are retried/redispatched.
    t0 = now_us()
    for i in range(6):
        do(ctx, SRC_POOL4[i % 3], LB4, PORT["nocap"], path="/ping/" + U[i],
           phase="nocap:redispatch", ua=UA_CURL)
    phase("redispatch", t0)
    # let the checks mark app3 DOWN before the catalogue starts
    ns = argparse.Namespace(sock=os.path.join(a.out, "run", "haproxy.sock"),
                            backend="be_app", state="DOWN", servers=["app3"], timeout=10.0)
    if cmd_srvwait(ns) != 0:
        time.sleep(3.0)

    # 2. every case on every listener, listeners in parallel
    t0 = now_us()
    errs = []
    names = ["http", "nocap", "tcp", "https", "clf", "legacy", "compact", "nginx"]
    ths = [threading.Thread(target=lab_listener, args=(ctx, n, 0.25, errs, i))
           for i, n in enumerate(names)]
    for t in ths:
        t.start()
        time.sleep(0.05)
    for t in ths:
        t.join(120)
    phase("cases", t0)
    if errs:
        sys.stderr.write("client: listener errors: %s\n" % errs)

    # 3. server DOWN / no server available / UP again
    t0 = now_us()
    run_hook(a.hook, "app-down")      # returns once app1 and app2 are DOWN
    time.sleep(0.5)
    for i, (src, dst) in enumerate([("192.0.2.10", LB4), ("2001:db8:1::10", LB6),
                                    ("198.51.100.20", LB4)]):
        do(ctx, src, dst, PORT["http"], path="/ping/" + U[i], phase="http:no-server", ua=UA_CURL)
    do(ctx, "192.0.2.11", LB4, PORT["compact"], path="/ping/" + U[3], phase="compact:no-server")
    do(ctx, "192.0.2.11", LB4, PORT["clf"], path="/ping/" + U[3], phase="clf:no-server")
    do(ctx, "192.0.2.11", LB4, PORT["legacy"], path="/ping/" + U[3], phase="legacy:no-server")
    do(ctx, "192.0.2.11", LB4, PORT["https"], tls=True, path="/ping/" + U[3], phase="https:no-server")
    run_hook(a.hook, "app-up")        # returns once app1 and app2 are UP
    time.sleep(0.5)
    do(ctx, "192.0.2.10", LB4, PORT["http"], path="/ping/" + U[0], phase="http:server-up")
    phase("server-down-up", t0)

    # 4. reload (master-worker USR2), then traffic on the new worker
    t0 = now_us()
    run_hook(a.hook, "reload")
    for i, (src, dst) in enumerate([("192.0.2.10", LB4), ("2001:db8:2::20", LB6)]):
        do(ctx, src, dst, PORT["http"], path="/ping/" + U[i], phase="http:after-reload")
    phase("reload", t0)

    # 5. background traffic (full mode only): bounded mix on every listener
    if not a.quick:
        t0 = now_us()
        background(ctx, seconds=30.0, rate=20.0)
        phase("background", t0)

    time.sleep(1.5)  # let tarpits/timeouts finish and logs flush
    truth.close()
    write_phases(a.out, phases)
    sys.stderr.write("client: %d truth lines\n" % truth.n)
    return 1 if errs else 0


def background(ctx, seconds, rate):
    """Poisson-ish mix over all listeners; at most seconds*rate requests."""
    rnd = random.Random(42)
    end = time.monotonic() + seconds
    n_max = int(seconds * rate)
    listeners = ["http", "http", "http", "nocap", "https", "clf", "legacy",
                 "compact", "tcp", "nginx"]
    ths = []
    n = 0
    while time.monotonic() < end and n < n_max:
        name = rnd.choice(listeners)
        src = rnd.choice(SRC_POOL4 + SRC_POOL6)
        haproxy = name != "nginx"
        dst = (LB6 if ":" in src else LB4) if haproxy else (APP6 if ":" in src else APP4)
        u = rnd.choice(UUIDS)
        path = rnd.choice(["/ping/" + u, "/" + u, "/ping/" + u + "/start",
                           "/" + u + "/fail", "/ping/" + u + "/0"])
        method = rnd.choice(["GET"] * 8 + ["HEAD", "POST"])
        kw = dict(path=path, method=method, phase="background",
                  tls=(name == "https"), ua=rnd.choice([UA_CURL, UA_WGET, UA_PYREQ, UA_MOZ]))
        if method == "POST":
            kw["body"] = b"ok\n"
        t = threading.Thread(target=do, args=(ctx, src, dst, PORT[name]), kwargs=kw)
        t.start()
        ths.append(t)
        n += 1
        time.sleep(rnd.expovariate(rate))
        ths = [t for t in ths if t.is_alive()]
    for t in ths:
        t.join(15)


def write_phases(out, phases):
    with open(os.path.join(out, "phases.tsv"), "w") as f:
        f.write("phase\tstart_us\tend_us\n")
        for name, t0, t1 in phases:
            f.write("%s\t%d\t%d\n" % (name, t0, t1))


# --------------------------------------------------------------------------
# Incident: steady legitimate pings, then one UUID flooded

LEGIT = [  # (source, destination, ua, uuid indexes, path style)
    ("192.0.2.10", LB4, UA_CURL, (0, 1), "ping"),
    ("192.0.2.11", LB4, UA_WGET, (2, 3), "root"),
    ("198.51.100.20", LB4, UA_CURL, (4, 5), "startstop"),
    ("198.51.100.21", LB4_DUAL, UA_PYREQ, (6, 7), "ping"),      # logged ::ffff:
    ("203.0.113.8", LB4, UA_CURL, (1, 2), "root"),              # decoy: offender's /24
    ("2001:db8:1::10", LB6, UA_CURL, (3, 4), "ping"),
    ("2001:db8:2::20", LB6, UA_MOZ, (5, 6), "exit"),
    ("2001:db8:bad:2::5", LB6, UA_CURL, (7, 0), "ping"),        # decoy: offender's /48
]
FLOOD4 = "203.0.113.7"
FLOOD_UUID = UUIDS[0]
TCP_SRC = "198.51.100.30"     # pings through lb1's fe_tcp (tcplog) in the incident


def other_lb(dst):
    """The lb2 address of the family of an lb1 address (DNS round robin)."""
    return LB2_6 if ":" in dst else LB2_4


class Plan:
    def __init__(self, quick, lbs=2):
        if quick:
            self.phases = [("baseline", 6.0), ("tarpit", 8.0), ("deny", 5.0),
                           ("reject", 5.0), ("calm", 4.0)]
        else:
            self.phases = [("baseline", 20.0), ("tarpit", 20.0), ("deny", 10.0),
                           ("reject", 10.0), ("calm", 10.0)]
        self.lbs = lbs               # 1: lb1 only (the committed capture); 2: lb1 + lb2
        self.legit_period = 1.6      # per slot; 2 slots per source -> 1.25 req/s
        self.legit_slots = 2         # with 2 LBs: slot 0 -> lb1, slot 1 -> lb2
        # flood threads: with 2 LBs twice as many, thread k on LB k % 2, so
        # that each LB sees the flood the single LB saw (20 + 8 x 4 threads)
        self.flood_threads4 = 20 * lbs
        self.flood_threads6 = 4 * lbs  # per IPv6 address (8 addresses)
        self.flood_interval = 0.25   # min seconds between starts, per thread
        self.flood_max = 400         # requests per flood thread, at most
        self.tcp_period = 1.6        # TCP_SRC through fe_tcp (2 LBs only)
        self.timeout = 10.0


def legit_slot(ctx, st, src, dst, ua, idx, style, slot, plan, rnd):
    period = plan.legit_period
    t_next = time.monotonic() + rnd.uniform(0, period)
    n = 0
    n_max = int(st.total / period) + 2
    k = slot
    while not st.stop_legit.is_set() and n < n_max:
        delay = t_next - time.monotonic()
        if delay > 0 and st.stop_legit.wait(delay):
            break
        u = UUIDS[idx[k % len(idx)]]
        method, body = "GET", None
        if style == "ping":
            path = "/ping/" + u
        elif style == "root":
            path = "/" + u
        elif style == "startstop":
            path = "/ping/" + u + ("/start" if k % 2 == 0 else "")
        else:
            path = "/" + u + "/" + str(0 if k % 5 else 1)
        if k % 7 == 3:
            method = "HEAD"
        elif k % 11 == 5:
            method, body = "POST", b"exit=0 duration=12s\n"
        do(ctx, src, dst, PORT["http"], method=method, path=path, ua=ua,
           body=body, timeout=plan.timeout)
        n += 1
        k += plan.legit_slots
        t_next = max(t_next + period * rnd.uniform(0.9, 1.1), time.monotonic())


def tcp_slot(ctx, st, plan, rnd):
    """A client whose pings go through lb1's TCP frontend (tcplog lines)."""
    t_next = time.monotonic() + rnd.uniform(0, plan.tcp_period)
    n, n_max = 0, int(st.total / plan.tcp_period) + 2
    while not st.stop_legit.is_set() and n < n_max:
        delay = t_next - time.monotonic()
        if delay > 0 and st.stop_legit.wait(delay):
            break
        do(ctx, TCP_SRC, LB4, PORT["tcp"], path="/ping/" + UUIDS[n % 2 + 4],
           ua=UA_WGET, timeout=plan.timeout)
        n += 1
        t_next = max(t_next + plan.tcp_period * rnd.uniform(0.9, 1.1), time.monotonic())


def flood_thread(ctx, st, src, dst, plan, rnd):
    n = 0
    time.sleep(rnd.uniform(0, plan.flood_interval))
    while not st.stop_flood.is_set() and n < plan.flood_max:
        t = time.monotonic()
        do(ctx, src, dst, PORT["http"], path="/ping/" + FLOOD_UUID, ua=UA_GO,
           timeout=plan.timeout)
        n += 1
        rest = plan.flood_interval - (time.monotonic() - t)
        if rest > 0 and st.stop_flood.wait(rest):
            break


class State:
    def __init__(self, total):
        self.stop_legit = threading.Event()
        self.stop_flood = threading.Event()
        self.total = total


def cmd_incident(a):
    plan = Plan(a.quick, 1 if a.single_lb else 2)
    truth = Truth(os.path.join(a.out, "truth.tsv"))
    ctx = Ctx(truth)
    total = sum(d for _, d in plan.phases)
    st = State(total)
    legit = []
    for i, (src, dst, ua, idx, style) in enumerate(LEGIT):
        for slot in range(plan.legit_slots):
            # as a client re-resolving the name: one slot per LB address
            d = dst if plan.lbs == 1 or slot % 2 == 0 else other_lb(dst)
            legit.append(threading.Thread(
                target=legit_slot, daemon=True,
                args=(ctx, st, src, d, ua, idx, style, slot, plan,
                      random.Random(i * 10 + slot))))
    if plan.lbs > 1:
        legit.append(threading.Thread(target=tcp_slot, daemon=True,
                                      args=(ctx, st, plan, random.Random(90))))
    flood = []
    for k in range(plan.flood_threads4):
        d = LB4 if k % plan.lbs == 0 else LB2_4
        flood.append(threading.Thread(target=flood_thread, daemon=True,
                                      args=(ctx, st, FLOOD4, d, plan, random.Random(100 + k))))
    for j, a6 in enumerate(FLOOD6):
        for k in range(plan.flood_threads6):
            d = LB6 if k % plan.lbs == 0 else LB2_6
            flood.append(threading.Thread(target=flood_thread, daemon=True,
                                          args=(ctx, st, a6, d, plan,
                                                random.Random(200 + 10 * j + k))))
    phases = []
    hard_end = time.monotonic() + total + 60
    for name, dur in plan.phases:
        t0 = now_us()
        ctx.phase = name
        sys.stderr.write("client: phase %s (%.0f s)\n" % (name, dur))
        if name in ("deny", "reject"):
            run_hook(a.hook, "phase", name)
        if name == "baseline":
            for t in legit:
                t.start()
        elif name == "tarpit":
            for t in flood:
                t.start()
        elif name == "calm":
            st.stop_flood.set()
        end = t0 / 1e6 + dur
        while time.time() < end and time.monotonic() < hard_end:
            time.sleep(min(0.2, max(0.0, end - time.time())))
        # the next phase's reload prepared (configurations, checks, state
        # dumps: seconds on a loaded machine) while this one goes on, as it
        # changes nothing the customers see: the next phase opens with the
        # reload itself, back to back with this one
        if i + 1 < len(plan.phases) and (0.0, "reload") in plan.phases[i + 1][2]:
            run_hook(a.hook, "reload-prepare", "limit")
        phases.append((name, t0, now_us()))
    st.stop_flood.set()
    st.stop_legit.set()
    for t in legit + flood:
        t.join(max(0.1, hard_end - time.monotonic()))
    alive = sum(t.is_alive() for t in legit + flood)
    time.sleep(1.0)
    truth.close()
    write_phases(a.out, phases)
    sys.stderr.write("client: %d truth lines, %d threads still alive\n" % (truth.n, alive))
    return 0


# --------------------------------------------------------------------------
# Incident 2 ("the post-mortem"): three LBs, one leaves the DNS rotation; a
# backend of three NGINX servers, app3 really stopped and started several
# times; HAProxy sheds load (503) when the backend queue is long; customers
# send steady batches, the naive ones re-send the whole batch at the first
# failure (Promise.all style), far above their own rate; a per-source rate
# limit (429) applied by a reload; then calm.

PM_LBS = [("lb1", LB4, LB6), ("lb2", LB2_4, LB2_6), ("lb3", LB3_4, LB3_6)]
PM_FRONTEND = "fe_api"
PM_GONE = "lb3"              # the LB that leaves the DNS rotation
PM_APP = "app3"              # the server that goes DOWN and UP
# (name, source, behaviour): naive customers re-send the whole batch at the
# first 429/5xx/error answer, polite ones retry the failed requests once
PM_CUSTOMERS = [("cust-a", "198.51.100.101", "naive"),
                ("cust-b", "2001:db8:cb::b", "naive"),
                ("cust-c", "203.0.113.103", "polite"),
                ("cust-d", "192.0.2.104", "polite"),
                ("cust-e", "2001:db8:ce::e", "polite"),
                ("cust-f", "198.51.100.106", "polite")]


def pm_endpoints():
    t = {}
    for lb, a4, a6 in PM_LBS:
        t[(a4, 80)] = (lb, PM_FRONTEND)
        t[(a6, 80)] = (lb, PM_FRONTEND)
    for i, a in enumerate(APPS2):
        t[(a, 8080)] = ("app%d" % (i + 1), "-")
    return t


def pm_keys(name, n):
    """The customer's own check UUIDs (stable across runs)."""
    import uuid
    ns = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # the URL namespace
    return [str(uuid.uuid5(ns, "https://hc-ping.com/lbtlab/%s/%d" % (name, i)))
            for i in range(n)]


class Plan2:
    """Phase schedule; actions at offsets (s) from the start of a phase.

    app3's first DOWN lasts longer than a customer's period (5 s), so that
    every customer's batch meets the overload at least once in the flap
    phase whatever its offset; it stays DOWN through the limit phase."""

    def __init__(self, quick):
        if quick:
            self.phases = [("baseline", 6.0, []),
                           ("rotation", 4.0, [(0.0, "dns-remove")]),
                           ("flap", 12.0, [(0.0, "app-stop"), (6.5, "app-start"),
                                           (9.0, "app-stop")]),
                           ("limit", 6.0, [(0.0, "reload")]),
                           ("recover", 7.0, [(0.0, "app-start")]),
                           ("calm", 6.0, [])]
        else:
            self.phases = [("baseline", 8.0, []),
                           ("rotation", 5.0, [(0.0, "dns-remove")]),
                           ("flap", 18.0, [(0.0, "app-stop"), (7.0, "app-start"),
                                           (10.0, "app-stop"), (12.5, "app-start"),
                                           (15.0, "app-stop")]),
                           ("limit", 7.0, [(0.0, "reload")]),
                           ("recover", 7.0, [(0.0, "app-start")]),
                           ("calm", 7.0, [])]
        self.period = 5.0          # a batch every 5 s per customer: 1 req/s
        self.batch = 5             # requests per batch, one key each
        # naive customers re-send until 2.2 s before their next tick: the
        # rate counter (http_req_rate(1s)) is then back to 0 at each tick
        self.storm_window = self.period - 2.2
        self.resend_pause = 0.03   # naive: pause before re-sending the batch
        self.resend_max = 40       # naive: re-sends per tick, at most
        self.polite_backoff = 1.5  # polite: wait, then retry the failed ones once
        self.timeout = 4.0         # per request (socket) timeout
        self.total = sum(d for _, d, _ in self.phases)


def pm_bad(result):
    """An answer a customer retries: 429, 5xx, or no answer (-1)."""
    return not isinstance(result, int) or result == 429 or result >= 500


class PmState:
    def __init__(self, truth, plan):
        self.truth = truth
        self.plan = plan
        self.phase = "-"
        self.lbs = [lb for lb, _, _ in PM_LBS]   # the DNS rotation
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.next_id = 1
        self.threads = []

    def new_id(self):
        with self.lock:
            i = self.next_id
            self.next_id += 1
            return i


def pm_request(st, cust, src, behaviour, lb, key, rid, tick, attempt, retry_of, done):
    """One GET /ping/KEY to LB, recorded in truth.tsv as request RID;
    done(result) after."""
    addr = [a6 if ":" in src else a4 for n, a4, a6 in PM_LBS if n == lb][0]
    phase = st.phase
    path = "/ping/" + key
    t0 = now_us()
    sport, c = None, None
    try:
        c = Conn(src, addr, 80, st.plan.timeout)
        sport = c.sport
        t0 = now_us()
        c.connect()
        c.s.sendall(build_request("GET", path, ua=b"hc-sdk/2.1 (" + behaviour.encode() + b")"))
        result, _ = read_response(c.s)
    except ConnectTimeout:
        result = "connect-timeout"
    except (OSError, ssl.SSLError) as e:
        result = err_word(e)
    finally:
        if c is not None:
            c.close()
    st.truth.add(t0, src, sport, "GET", path, phase, result, now_us(), addr, 80,
                 id=rid, tick=tick, attempt=attempt, retry_of=retry_of or "-",
                 customer=cust, behaviour=behaviour)
    done(result)


class Batch:
    """Requests sent in parallel; wait for the first failure or for all."""

    def __init__(self, st, cust, src, behaviour, lb, keys, tick, attempt, originals):
        self.cv = threading.Condition()
        self.pending = len(keys)
        self.failed = []           # keys whose answer was bad
        self.ids = {k: st.new_id() for k in keys}
        for k in keys:
            t = threading.Thread(target=pm_request, daemon=True,
                                 args=(st, cust, src, behaviour, lb, k, self.ids[k],
                                       tick, attempt, originals.get(k), self._done(k)))
            st.threads.append(t)
            t.start()

    def _done(self, key):
        def f(result):
            with self.cv:
                self.pending -= 1
                if pm_bad(result):
                    self.failed.append(key)
                self.cv.notify_all()
        return f

    def wait(self, first_failure, timeout):
        """True when a failure came (first_failure) or all are done."""
        end = time.monotonic() + timeout
        with self.cv:
            while self.pending and not (first_failure and self.failed):
                left = end - time.monotonic()
                if left <= 0:
                    break
                self.cv.wait(left)
            return bool(self.failed) if first_failure else not self.pending


def pm_customer(st, cust, src, behaviour, offset):
    plan = st.plan
    keys = pm_keys(cust, plan.batch)
    rr = PM_CUSTOMERS.index((cust, src, behaviour))   # its place in the rotation
    tick = time.monotonic() + offset
    # every phase may run late (a slow hook lengthens it, cmd_incident2):
    # ticks until the client stops it, bounded by the same hard end
    n_ticks = int((plan.total + 60) / plan.period) + 2
    for k in range(n_ticks):
        delay = tick - time.monotonic()
        if delay > 0 and st.stop.wait(delay):
            return
        if st.stop.is_set():
            return
        with st.lock:
            lb = st.lbs[rr % len(st.lbs)]     # its resolver's answer this time
        rr += 1
        b = Batch(st, cust, src, behaviour, lb, keys, k, 0, {})
        if behaviour == "naive":
            # Promise.all: the first failure rejects, the whole batch is sent
            # again at once; the requests still in flight go on
            b.wait(True, plan.timeout + 1)
            originals = dict(b.ids)        # retry_of: the first send of each key
            n = 0
            while b.failed and n < plan.resend_max and \
                    time.monotonic() < tick + plan.storm_window and not st.stop.is_set():
                time.sleep(plan.resend_pause)
                n += 1
                b = Batch(st, cust, src, behaviour, lb, keys, k, n, originals)
                b.wait(True, plan.timeout + 1)
        else:
            b.wait(False, plan.timeout + 1)
            if b.failed and time.monotonic() + plan.polite_backoff < tick + plan.period - 0.5:
                time.sleep(plan.polite_backoff)
                retry = list(b.failed)
                Batch(st, cust, src, behaviour, lb, retry, k, 1, dict(b.ids)).wait(False, plan.timeout + 1)
        tick += plan.period
        while tick < time.monotonic():      # a slow batch: skip the missed ticks
            tick += plan.period


def pm_event(out, kind, subject, detail="-", t=None):
    with open(os.path.join(out, "events.tsv"), "a") as f:
        f.write("%d\t%s\t%s\t%s\n" % (t or now_us(), kind, subject, detail))


def cmd_incident2(a):
    set_endpoints(pm_endpoints())
    plan = Plan2(a.quick)
    truth = Truth(os.path.join(a.out, "truth.tsv"),
                  extra=["id", "tick", "attempt", "retry_of", "customer", "behaviour"])
    st = PmState(truth, plan)
    ev = os.path.join(a.out, "events.tsv")
    if not os.path.exists(ev):
        with open(ev, "w") as f:
            f.write("time_us\tkind\tsubject\tdetail\n")
    custs = []
    for i, (cust, src, behaviour) in enumerate(PM_CUSTOMERS):
        offset = plan.period * i / len(PM_CUSTOMERS) + 0.1
        custs.append(threading.Thread(target=pm_customer, daemon=True,
                                      args=(st, cust, src, behaviour, offset)))
    phases = []
    hard_end = time.monotonic() + plan.total + 60
    for i, (name, dur, actions) in enumerate(plan.phases):
        # A phase starts when the previous one ended; its actions at their
        # offsets from its start (at once when a slow hook made one late);
        # it lasts its duration, and after its last action at least as long
        # as the schedule gives after it (a slow reload or start on a loaded
        # machine lengthens the phase, never shortens what follows it).
        t0 = now_us()
        start = time.time()
        st.phase = name
        sys.stderr.write("client: phase %s (%.0f s)\n" % (name, dur))
        if name == "baseline":
            for t in custs:
                t.start()
        end = start + dur
        for off, act in actions:
            wait = start + off - time.time()
            if wait > 0:
                time.sleep(wait)
            if act == "dns-remove":
                with st.lock:
                    st.lbs.remove(PM_GONE)
                pm_event(a.out, "dns-remove", PM_GONE, "rotation: " + ",".join(st.lbs))
            else:
                run_hook(a.hook, act, *([PM_APP] if act.startswith("app-") else ["limit"]))
            end = max(end, time.time() + dur - off)
        while time.time() < end and time.monotonic() < hard_end:
            time.sleep(min(0.2, max(0.0, end - time.time())))
        # the next phase's reload prepared (configurations, checks, state
        # dumps: seconds on a loaded machine) while this one goes on, as it
        # changes nothing the customers see: the next phase opens with the
        # reload itself, back to back with this one
        if i + 1 < len(plan.phases) and (0.0, "reload") in plan.phases[i + 1][2]:
            run_hook(a.hook, "reload-prepare", "limit")
        phases.append((name, t0, now_us()))
    st.stop.set()
    for t in custs:
        t.join(max(0.1, hard_end - time.monotonic()))
    for t in list(st.threads):
        t.join(max(0.1, min(plan.timeout + 1, hard_end - time.monotonic())))
    alive = sum(t.is_alive() for t in custs + st.threads)
    time.sleep(1.0)
    truth.close()
    write_phases(a.out, phases)
    pm_rates(a.out)
    sys.stderr.write("client: %d truth lines, %d threads still alive\n" % (truth.n, alive))
    return 0


def pm_read(out):
    with open(os.path.join(out, "truth.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, ln.rstrip("\n").split("\t"))) for ln in f]
    with open(os.path.join(out, "phases.tsv")) as f:
        next(f)
        phases = [(p[0], int(p[1]), int(p[2])) for p in
                  (ln.rstrip("\n").split("\t") for ln in f)]
    with open(os.path.join(out, "events.tsv")) as f:
        next(f)
        events = [ln.rstrip("\n").split("\t") for ln in f]
    return rows, phases, events


def pm_rates(out):
    """rates.tsv: per customer and phase, requests sent, rate, ratio to the
    customer's own baseline (its rate over baseline + rotation, the healthy
    time before the incident), re-sends, answers that were not 2xx."""
    rows, phases, _ = pm_read(out)
    dur = {p: (t1 - t0) / 1e6 for p, t0, t1 in phases}
    healthy = ("baseline", "rotation")
    with open(os.path.join(out, "rates.tsv"), "w") as f:
        f.write("customer\tsrc\tbehaviour\tphase\trequests\tseconds\trps\tbaseline_rps\tratio\tresends\tfailed\n")
        for cust, src, behaviour in PM_CUSTOMERS:
            mine = [r for r in rows if r["customer"] == cust]
            base_n = sum(1 for r in mine if r["phase"] in healthy)
            base = base_n / sum(dur[p] for p in healthy)
            for p, _, _ in phases:
                rp = [r for r in mine if r["phase"] == p]
                n = len(rp)
                rps = n / dur[p]
                f.write("%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%d\t%d\n" % (
                    cust, src, behaviour, p, n, dur[p], rps, base,
                    rps / base if base else 0.0,
                    sum(1 for r in rp if r["retry_of"] != "-"),
                    sum(1 for r in rp if not r["result"].startswith("2"))))


def cmd_expect2(a):
    """expected-events.tsv: what a timeline of incident 2 must report, from
    the client's own records (truth.tsv, phases.tsv, events.tsv, rates.tsv):
    time_us time kind subject count detail, one event a line.  Kinds:
    lb-gone (the LB left the DNS rotation), server-down / server-up (app3
    stopped / started), reload (per LB, ready), shed-503 and rate-limit-429
    (per LB and phase: the first such answer and how many), rate-limit-429-
    source (per source: the first 429 and how many), retry-storm (a
    customer's phase above 20x its baseline: its first re-send there and
    its requests in the phase), quiet (baseline, calm: nothing to report).
    count is "-" where an event has no number."""
    rows, phases, events = pm_read(a.out)
    ph = {p: (t0, t1) for p, t0, t1 in phases}
    out = []

    def iso(us):
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 1000000)) + \
            ".%03dZ" % (us // 1000 % 1000)

    def add(t, kind, subject, count, detail):
        out.append((t, kind, subject, count, detail))

    for t, kind, subject, detail in events:
        t = int(t)
        if kind == "dns-remove":
            last = max([int(r["send_us"]) for r in rows if r["lb"] == subject] or [0])
            n = sum(1 for r in rows if r["lb"] == subject)
            add(t, "lb-gone", subject, "-", "%d requests before, none after; last sent %s" % (n, iso(last)))
        elif kind == "server-stop":
            add(t, "server-down", "be_app/" + subject, "-", "stopped; %s" % detail)
        elif kind == "server-start":
            add(t, "server-up", "be_app/" + subject, "-", "started; %s" % detail)
        elif kind == "reload":
            add(t, "reload", subject, "-", detail)
    # 503 and 429 answers, per LB and phase: first time and count
    for code, kind in ((503, "shed-503"), (429, "rate-limit-429")):
        seen = {}
        for r in rows:
            if r["result"] == str(code):
                k = (r["lb"], r["phase"])
                t = int(r["send_us"])
                f, n = seen.get(k, (t, 0))
                seen[k] = (min(f, t), n + 1)
        for (lb, p), (f, n) in sorted(seen.items(), key=lambda kv: kv[1][0]):
            add(f, kind, lb, n, "phase %s" % p)
    # 429s per source
    per = {}
    for r in rows:
        if r["result"] == "429":
            f, n = per.get(r["src"], (int(r["send_us"]), 0))
            per[r["src"]] = (min(f, int(r["send_us"])), n + 1)
    for src, (f, n) in sorted(per.items(), key=lambda kv: kv[1][0]):
        add(f, "rate-limit-429-source", src, n, "answers 429 to this source")
    # retry storms: a customer's phase above 20x its baseline
    with open(os.path.join(a.out, "rates.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for ln in f:
            r = dict(zip(head, ln.rstrip("\n").split("\t")))
            if float(r["ratio"]) > 20:
                first = min([int(x["send_us"]) for x in rows
                             if x["customer"] == r["customer"] and x["phase"] == r["phase"]
                             and x["retry_of"] != "-"] or [ph[r["phase"]][0]])
                add(first, "retry-storm", r["src"], int(r["requests"]),
                    "phase %s: %s req/s, %sx its baseline %s req/s, %s re-sends" % (
                        r["phase"], r["rps"], r["ratio"], r["baseline_rps"], r["resends"]))
    for p in ("baseline", "calm"):
        add(ph[p][0], "quiet", p, 0, "nothing to report until %s" % iso(ph[p][1]))
    out.sort(key=lambda e: e[0])
    with open(os.path.join(a.out, "expected-events.tsv"), "w") as f:
        f.write("time_us\ttime\tkind\tsubject\tcount\tdetail\n")
        for t, kind, subject, count, detail in out:
            f.write("%d\t%s\t%s\t%s\t%s\t%s\n" % (t, iso(t), kind, subject, count, detail))
    return 0


# --------------------------------------------------------------------------
# Helpers for the shell scripts

def _http_ok(host, port, path, expect):
    """One GET; (True, status line) when it answered 200 (with EXPECT)."""
    try:
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect((host, port))
        s.sendall(build_request("GET", path, host="lab-wait", ua=b"lab-wait"))
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
        s.close()
        first = data.split(b"\r\n", 1)[0]
        return (b" 200 " in first and (not expect or expect.encode() in data),
                first.decode("latin-1"))
    except OSError as e:
        return False, str(e)


def cmd_wait(a):
    """Until HOST:PORT PATH answers 200 (and each --also HOST,PORT,PATH[,EXPECT]
    target too: one process for several servers); --times prints
    "HOST:PORT<TAB>epoch_us" for each once it answered."""
    targets = [(a.host, a.port, a.path, a.expect)]
    for spec in a.also:
        f = spec.split(",", 3)
        targets.append((f[0], int(f[1]), f[2], f[3] if len(f) > 3 else ""))
    deadline = time.monotonic() + a.timeout
    last = {}
    while targets and time.monotonic() < deadline:
        left = []
        for t in targets:
            ok, last[t] = _http_ok(*t)
            if ok and a.times:    # say when each answered
                print("%s:%d\t%d" % (t[0], t[1], now_us()), flush=True)
            if not ok:
                left.append(t)
        targets = left
        if targets:
            time.sleep(0.2)
    for t in targets:
        sys.stderr.write("client: wait %s:%d%s failed: %s\n" % (t[0], t[1], t[2], last.get(t, "")))
    return 1 if targets else 0


def cmd_srvwait(a):
    """Poll HAProxy 'show stat' until every named server has the wanted state.
    SOCK may name several sockets (comma-separated): each must get there;
    prints "SOCK<TAB>epoch_us" for each once it did."""
    deadline = time.monotonic() + a.timeout
    socks = a.sock.split(",")
    state = {}
    while socks and time.monotonic() < deadline:
        left = []
        for sock in socks:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(2)
                s.connect(sock)
                s.sendall(b"show stat\n")
                data = b""
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    data += d
                s.close()
                state = {}
                for ln in data.decode("latin-1").splitlines():
                    f = ln.split(",")
                    if len(f) > 17 and f[0] == a.backend:
                        state[f[1]] = f[17].split()[0] if f[17] else ""
                if all(state.get(n) == a.state for n in a.servers):
                    print("%s\t%d" % (sock, now_us()), flush=True)
                    continue
            except OSError:
                pass
            left.append(sock)
        socks = left
        if socks:
            time.sleep(0.1)
    if socks:
        sys.stderr.write("client: servers of %s not %s (%s): %s\n" % (
            a.backend, a.state, ",".join(socks), state))
        return 1
    return 0


def cmd_sockcmd(a):
    """Send one command to an HAProxy stats socket, print the answer."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(a.sock)
    s.sendall(a.command.encode() + b"\n")
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    s.close()
    sys.stdout.buffer.write(data)
    return 0


def cmd_addrs(a):
    for x in [LB4, LB4_DUAL, LB2_4, LB3_4, APP4] + APPS2 + CLIENTS4:
        print(x)
    for x in [LB6, LB2_6, LB3_6, APP6] + CLIENTS6:
        print(x)
    return 0


def cmd_summary(a):
    counts = {}
    results = {}
    phases = []
    srcs = []
    with open(a.truth) as f:
        next(f)
        for ln in f:
            p = ln.rstrip("\n").split("\t")
            src, phase, res = p[1], p[6], p[7]
            if phase not in phases:
                phases.append(phase)
            if src not in srcs:
                srcs.append(src)
            counts[(phase, src)] = counts.get((phase, src), 0) + 1
            results.setdefault((phase, src), {})
            results[(phase, src)][res] = results[(phase, src)].get(res, 0) + 1

    def grp(s):
        if s == FLOOD4:
            return FLOOD4
        if s.startswith("2001:db8:bad:1:"):
            return "2001:db8:bad:1::/64 (%d addrs)" % len(FLOOD6)
        return s
    rows = {}
    order = []
    for (phase, src), n in counts.items():
        g = grp(src)
        if g not in order:
            order.append(g)
        rows.setdefault(g, {}).setdefault(phase, {})
        for r, k in results[(phase, src)].items():
            rows[g][phase][r] = rows[g][phase].get(r, 0) + k
    print("| source | " + " | ".join(phases) + " | total |")
    print("|---" * (len(phases) + 2) + "|")
    for g in sorted(order, key=lambda g: (g.startswith("2001:db8:bad:1") or g == FLOOD4, g)):
        cells = []
        tot = 0
        for ph in phases:
            d = rows[g].get(ph, {})
            n = sum(d.values())
            tot += n
            cells.append(str(n) if n else "")
        print("| %s | %s | %d |" % (g, " | ".join(cells), tot))
    print()
    print("Results per phase (status or error word: count):")
    print()
    for ph in phases:
        d = {}
        for (p2, src), r in results.items():
            if p2 == ph:
                for k, v in r.items():
                    d[k] = d.get(k, 0) + v
        print("* %s: %s" % (ph, ", ".join("%s %d" % kv for kv in
                                          sorted(d.items(), key=lambda kv: -kv[1]))))
    # what the flood did to everybody else
    durs = {}
    with open(a.truth) as f:
        next(f)
        for ln in f:
            p = ln.rstrip("\n").split("\t")
            if p[1] != FLOOD4 and not p[1].startswith("2001:db8:bad:1:"):
                durs.setdefault(p[6], []).append(int(p[8]) / 1000.0)
    if durs:
        print()
        print("Duration of the other (legitimate) requests, ms:")
        print()
        print("| phase | requests | p50 | p95 | max |")
        print("|---|---|---|---|---|")
        for ph in phases:
            v = sorted(durs.get(ph, []))
            if v:
                print("| %s | %d | %.1f | %.1f | %.0f |" % (
                    ph, len(v), v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.95))], v[-1]))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("addrs")
    p.set_defaults(fn=cmd_addrs)
    p = sub.add_parser("wait")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("path")
    p.add_argument("--expect", default="")
    p.add_argument("--also", action="append", default=[],
                   help="HOST,PORT,PATH[,EXPECT]: one more target to wait for")
    p.add_argument("--times", action="store_true",
                   help='print "HOST:PORT<TAB>epoch_us" as each answers')
    p.add_argument("--timeout", type=float, default=20.0)
    p.set_defaults(fn=cmd_wait)
    p = sub.add_parser("sockcmd")
    p.add_argument("sock")
    p.add_argument("command")
    p.set_defaults(fn=cmd_sockcmd)
    p = sub.add_parser("srvwait")
    p.add_argument("sock")
    p.add_argument("backend")
    p.add_argument("state", help="UP or DOWN")
    p.add_argument("servers", nargs="+")
    p.add_argument("--timeout", type=float, default=15.0)
    p.set_defaults(fn=cmd_srvwait)
    for name, fn in (("lab", cmd_lab), ("incident", cmd_incident)):
        p = sub.add_parser(name)
        p.add_argument("--out", required=True)
        p.add_argument("--hook", default="")
        p.add_argument("--quick", action="store_true")
        if name == "incident":
            p.add_argument("--single-lb", action="store_true",
                           help="lb1 only, as the committed capture (no lb2, no fe_tcp)")
        p.set_defaults(fn=fn)
    p = sub.add_parser("incident2")
    p.add_argument("--out", required=True)
    p.add_argument("--hook", default="")
    p.add_argument("--quick", action="store_true")
    p.set_defaults(fn=cmd_incident2)
    p = sub.add_parser("expect2")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_expect2)
    p = sub.add_parser("summary")
    p.add_argument("truth")
    p.set_defaults(fn=cmd_summary)
    a = ap.parse_args()
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
