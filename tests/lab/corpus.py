#!/usr/bin/python3
"""Incident corpus of the lbtriage lab: eight classes, each parameterised by
a seed (tests/lab/corpus.sh runs them; docs/eval.md says what they are).

Sub-commands (corpus.sh calls them in this order):
    plan  --class C --seed N --out DIR   the scenario: plan.json, the
                                         configurations (conf/), sources.txt,
                                         the addresses to assign (addrs.txt)
    run   --out DIR --hook CMD           the traffic (inside the namespace):
                                         truth.tsv (one line per request)
                                         and events.tsv (what the hook did)
    truth --out DIR                      truth.json from plan.json,
                                         truth.tsv and events.tsv alone

The truth is written from the client's own records: when it sent what, from
which address, to which load balancer, what it got back, and when the hook
reloaded, stopped or started something.  Nothing here reads a log line or
an lbt output.  Every loop is bounded in count and in time.
"""
import argparse
import ipaddress
import json
import os
import random
import sys
import threading
import time
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client  # noqa: E402  (the lab's client: sockets, HTTP, truth.tsv)

CLASSES = ["flood-tarpit", "retry-storm", "surge", "distributed",
           "slow-headers", "dns-crashloop", "midnight-shapes", "calm"]

# Load balancers: name, IPv4, IPv6, monitor port, sink port.
LBS = [("lb1", "192.0.2.1", "2001:db8::1", 8991, 5181),
       ("lb2", "192.0.2.3", "2001:db8::3", 8992, 5182),
       ("lb3", "192.0.2.4", "2001:db8::4", 8993, 5183),
       ("lb4", "192.0.2.5", "2001:db8::5", 8994, 5184)]
APPS = [("app1", "192.0.2.21"), ("app2", "192.0.2.22"), ("app3", "192.0.2.23")]
FRONTEND = "fe_api"
# The log shapes a load balancer may write (docs/eval.md).
SHAPES = ["rsyslog-traditional", "rfc5424", "stdout-iso", "custom"]
CUSTOM_FORMAT = ("%tr %ci:%cp %ft %b/%s %ST %B %TR/%Tw/%Tc/%Tr/%Ta %tsc "
                 "%ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r")
UAS = ["curl/7.88.1", "python-requests/2.31.0", "Go-http-client/1.1",
       "hc-sdk-js/3.2", "Wget/1.21.3"]


def uuid_of(rnd):
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def v6(prefix48, sub, host):
    """2001:db8:X::/48 + the /64 number + the host part."""
    return str(ipaddress.IPv6Address(int(ipaddress.IPv6Network(prefix48).network_address)
                                     + (sub << 64) + host))


def source_of(addr):
    """What lbt calls a source: the IPv4 address, the IPv6 /64."""
    a = ipaddress.ip_address(addr)
    if a.version == 4:
        return str(a)
    return str(ipaddress.IPv6Network((int(a) >> 64 << 64, 64)))


# --------------------------------------------------------------------------
# Plan: everything the seed decides

def customers(rnd, n, lbs):
    """n prior customers, each with its own address (IPv4 from
    198.51.100.0/24, IPv6 from 2001:db8:c0::/48), key, rate and UA."""
    v4 = rnd.sample(range(120, 200), n)
    out = []
    for i in range(n):
        if rnd.random() < 0.5:
            src = "198.51.100.%d" % v4[i]
        else:
            src = v6("2001:db8:c0::/48", rnd.randint(1, 4000), rnd.randint(1, 1 << 40))
        out.append(dict(name="cust%d" % (i + 1), src=src, key=uuid_of(rnd),
                        rate=round(rnd.uniform(0.6, 1.6), 2), ua=rnd.choice(UAS),
                        lbs=list(lbs)))
    return out


def plan_lbs(rnd, n, shapes=None, maxconn=(15, 30)):
    shapes = shapes or [rnd.choice(SHAPES) for _ in range(n)]
    out = []
    for i in range(n):
        name, a4, a6, mon, sink = LBS[i]
        out.append(dict(name=name, a4=a4, a6=a6, monitor=mon, sink=sink,
                        shape=shapes[i], maxconn=rnd.randint(*maxconn)))
    return out


def make_plan(cls, seed):
    rnd = random.Random("%s:%d" % (cls, seed))
    p = dict(cls=cls, seed=seed, tz_offset_min=0, actions=[], roles={},
             apps=["app1", "app2"], http_request_timeout=True,
             timeout_client=10, rule="none", limit=10, tarpit_s=1)
    if cls == "flood-tarpit":
        lbs = plan_lbs(rnd, rnd.randint(1, 2))
        p.update(duration=round(rnd.uniform(34, 36), 1), rule="tarpit",
                 limit=rnd.randint(5, 12), tarpit_s=rnd.randint(1, 3))
        cust = customers(rnd, rnd.randint(4, 7), [l["name"] for l in lbs])
        start = round(rnd.uniform(7, 10), 1)
        ongoing = rnd.random() < 0.34
        end = p["duration"] if ongoing else round(p["duration"] - rnd.uniform(13, 14), 1)
        src = "203.0.113.%d" % rnd.randint(10, 250) if rnd.random() < 0.6 else \
            v6("2001:db8:d1::/48", rnd.randint(1, 999), rnd.randint(1, 1 << 40))
        key = rnd.choice(cust)["key"] if rnd.random() < 0.5 else uuid_of(rnd)
        threads = {l["name"]: l["maxconn"] + rnd.randint(4, 12) for l in lbs}
        p["flood"] = [dict(src=src, key=key, start=start, end=end, threads=threads,
                           ua="Go-http-client/1.1")]
    elif cls == "retry-storm":
        lbs = plan_lbs(rnd, rnd.randint(1, 2), maxconn=(200, 300))
        p.update(duration=round(rnd.uniform(32, 36), 1))
        cust = customers(rnd, rnd.randint(4, 6), [l["name"] for l in lbs])
        kinds = ["naive", "retry-after", "backoff"] + \
            [rnd.choice(["naive", "retry-after", "backoff"]) for _ in cust[3:]]
        rnd.shuffle(kinds)
        for c, k in zip(cust, kinds):
            c.update(sdk=k, batch=rnd.randint(4, 8), period=round(rnd.uniform(3, 5), 2),
                     rounds=rnd.randint(25, 45), keys=[uuid_of(rnd) for _ in range(8)])
        shed = round(rnd.uniform(8, 11), 1)
        p["shed"] = dict(start=shed, end=round(shed + rnd.uniform(6, 9), 1),
                         pct=rnd.randint(40, 70), retry_after=rnd.randint(2, 4))
        p["actions"] = [(shed, "reload", "shed"), (p["shed"]["end"], "reload", "normal")]
    elif cls == "surge":
        lbs = plan_lbs(rnd, rnd.randint(1, 3), maxconn=(200, 300))
        p.update(duration=round(rnd.uniform(36, 38), 1))
        cust = customers(rnd, rnd.randint(5, 8), [l["name"] for l in lbs])
        start = round(rnd.uniform(8, 11), 1)
        ongoing = rnd.random() < 0.34
        p["surge"] = dict(start=start, factor=round(rnd.uniform(4.5, 8), 1),
                          end=p["duration"] if ongoing else round(start + rnd.uniform(11, 13), 1))
    elif cls == "distributed":
        lbs = plan_lbs(rnd, rnd.randint(1, 3), maxconn=(300, 400))
        p.update(duration=round(rnd.uniform(30, 34), 1), rule="deny")
        cust = customers(rnd, rnd.randint(4, 7), [l["name"] for l in lbs])
        p48 = "2001:db8:d%x::/48" % rnd.randint(0x10, 0xff)
        nets = rnd.sample(range(1, 0xffff), rnd.randint(8, 16))
        a6 = [v6(p48, rnd.choice(nets), rnd.randint(1, 1 << 40)) for _ in range(rnd.randint(16, 28))]
        p24 = "203.0.113.0/24"
        a4 = ["203.0.113.%d" % h for h in rnd.sample(range(10, 250), rnd.randint(8, 20))]
        start = round(rnd.uniform(8, 12), 1)
        ongoing = rnd.random() < 0.34
        p["distributed"] = dict(
            p48=p48, p24=p24, v6=a6, v4=a4, key=uuid_of(rnd), start=start,
            end=p["duration"] if ongoing else round(p["duration"] - rnd.uniform(13, 15), 1),
            rate=round(rnd.uniform(2, 5), 2))
    elif cls == "slow-headers":
        lbs = plan_lbs(rnd, rnd.randint(1, 2), maxconn=(10, 20))
        p.update(duration=round(rnd.uniform(34, 38), 1), http_request_timeout=False,
                 timeout_client=30)
        cust = customers(rnd, rnd.randint(4, 6), [l["name"] for l in lbs])
        start = round(rnd.uniform(8, 11), 1)
        src = "203.0.113.%d" % rnd.randint(10, 250) if rnd.random() < 0.5 else \
            v6("2001:db8:d2::/48", rnd.randint(1, 999), rnd.randint(1, 1 << 40))
        p["slow"] = dict(src=src, lb=lbs[0]["name"], start=start,
                         conns=lbs[0]["maxconn"] + rnd.randint(2, 6),
                         every=round(rnd.uniform(2, 4), 1),
                         end=round(start + rnd.uniform(10, 13), 1))
    elif cls == "dns-crashloop":
        lbs = plan_lbs(rnd, rnd.randint(2, 3), maxconn=(200, 300))
        p.update(duration=round(rnd.uniform(34, 38), 1), apps=["app1", "app2", "app3"])
        cust = customers(rnd, rnd.randint(4, 7), [l["name"] for l in lbs])
        t_dns = round(rnd.uniform(6, 9), 1)
        t = round(rnd.uniform(10, 12), 1)
        acts = [(t_dns, "dns-remove", lbs[-1]["name"])]
        for _ in range(rnd.randint(3, 4)):
            acts.append((t, "app-stop", "app3"))
            t = round(t + rnd.uniform(2.5, 3.5), 1)
            acts.append((t, "app-start", "app3"))
            t = round(t + rnd.uniform(2.5, 3.5), 1)
        acts.append((round(t + 1, 1), "reload", "normal"))
        p["actions"] = acts
        # a stop takes its hook 1-2 s: 14 s after the reload's plan time
        # leave the loop over 12 s or more before the end
        p["duration"] = max(p["duration"], round(t + 15, 1))
    elif cls == "midnight-shapes":
        shapes = list(SHAPES)
        rnd.shuffle(shapes)
        lbs = plan_lbs(rnd, 4, shapes=shapes, maxconn=(200, 300))
        p.update(duration=round(rnd.uniform(30, 34), 1), rule="deny")
        # local midnight falls midnight_s into the run (corpus.sh picks the
        # zone offset from the clock when the run starts)
        p["midnight_s"] = round(rnd.uniform(10, 20), 1)
        cust = customers(rnd, rnd.randint(4, 6), [l["name"] for l in lbs])
        net = rnd.randint(1, 999)
        srcs = [v6("2001:db8:d3::/48", net, rnd.randint(1, 1 << 40)) for _ in range(rnd.randint(2, 4))]
        start = round(p["midnight_s"] + rnd.uniform(-5, 3), 1)
        p["flood"] = [dict(src=s, key=uuid_of(rnd) if i == 0 else None, start=start,
                           end=round(p["duration"] - rnd.uniform(13, 15), 1),
                           threads={l["name"]: 2 for l in lbs}, ua="Go-http-client/1.1",
                           pace=0.08) for i, s in enumerate(srcs)]
        for f in p["flood"][1:]:
            f["key"] = p["flood"][0]["key"]
    elif cls == "calm":
        lbs = plan_lbs(rnd, rnd.randint(1, 3), maxconn=(200, 300))
        p.update(duration=round(rnd.uniform(28, 34), 1))
        cust = customers(rnd, rnd.randint(4, 8), [l["name"] for l in lbs])
    else:
        raise SystemExit("corpus.py: unknown class '%s' (one of %s)" % (cls, ", ".join(CLASSES)))
    p["lbs"] = lbs
    p["customers"] = cust
    return p


# --------------------------------------------------------------------------
# Configurations

def haproxy_cfg(p, lb, mode, run):
    """haproxy.cfg of one load balancer in one mode (normal, shed)."""
    shape = lb["shape"]
    if shape == "stdout-iso":
        target = "log stdout format iso local0"
    elif shape == "rfc5424":
        target = "log 127.0.0.1:%d len 4096 format rfc5424 local0" % lb["sink"]
    elif shape == "custom":
        target = "log 127.0.0.1:%d len 4096 format raw local0" % lb["sink"]
    else:  # rsyslog-traditional: rfc3164 datagrams, PRI cut by corpus.sh
        target = "log 127.0.0.1:%d len 4096 format rfc3164 local0" % lb["sink"]
    rules = ["    http-request track-sc0 src table st_src"]
    cond = "{ sc_http_req_rate(0) gt %d }" % p["limit"]
    if p["rule"] == "tarpit":
        rules.append("    http-request tarpit if %s" % cond)
    elif p["rule"] == "deny":
        rules.append("    http-request deny deny_status 429 if %s" % cond)
    if mode == "shed":
        rules.append('    http-request return status 503 content-type text/plain string "busy" '
                     'hdr Retry-After %d if { rand(100) lt %d }'
                     % (p["shed"]["retry_after"], p["shed"]["pct"]))
    logfmt = '    log-format "%s"' % CUSTOM_FORMAT if shape == "custom" else "    option httplog"
    timeouts = ["    timeout connect 1s", "    timeout client %ds" % p["timeout_client"],
                "    timeout server 5s", "    timeout queue 2s",
                "    timeout tarpit %ds" % p["tarpit_s"]]
    if p["http_request_timeout"]:
        timeouts.append("    timeout http-request 3s")
    servers = ["    server %s %s:8080 check" % (n, a) for n, a in APPS if n in p["apps"]]
    return "\n".join([
        "# generated by tests/lab/corpus.py: %s seed %d, %s mode %s" % (p["cls"], p["seed"], lb["name"], mode),
        "global",
        "    " + target,
        "    log-send-hostname %s" % lb["name"],
        "    nbthread 1",
        "    maxconn 4000",
        "    hard-stop-after 5s",
        "    stats socket %s/%s.sock mode 600 level admin expose-fd listeners" % (run, lb["name"]),
        "",
        "defaults",
        "    mode http",
        "    log global",
        "    option dontlognull",
    ] + timeouts + [
        "",
        "frontend fe_monitor",
        "    bind 127.0.0.1:%d" % lb["monitor"],
        "    no log",
        '    http-request return status 200 content-type text/plain string "ready %s %s"' % (lb["name"], mode),
        "",
        "backend st_src",
        "    stick-table type ipv6 size 100k expire 30s store http_req_rate(1s)",
        "",
        "frontend %s" % FRONTEND,
        "    bind %s:80" % lb["a4"],
        "    bind [%s]:80" % lb["a6"],
        "    maxconn %d" % lb["maxconn"],
        logfmt,
        "    capture request header Host len 64",
        "    capture request header User-Agent len 64",
    ] + rules + [
        "    default_backend be_app",
        "",
        "backend be_app",
        "    balance roundrobin",
        "    option forwardfor",
        "    option redispatch",
        "    retries 2",
        "    option httpchk GET /health",
        "    default-server inter 500ms fall 2 rise 2",
    ] + servers) + "\n"


def nginx_conf(out, name, addrs):
    run = os.path.join(out, "run")
    listens = "\n".join("        listen %s:8080;" % a for a in addrs)
    return """# generated by tests/lab/corpus.py
worker_processes 1;
pid %(run)s/nginx-%(name)s.pid;
error_log %(out)s/nginx-%(name)s-error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path %(run)s/nginx-tmp/body;
    proxy_temp_path %(run)s/nginx-tmp/proxy;
    fastcgi_temp_path %(run)s/nginx-tmp/fastcgi;
    uwsgi_temp_path %(run)s/nginx-tmp/uwsgi;
    scgi_temp_path %(run)s/nginx-tmp/scgi;
    default_type text/plain;
    access_log off;
    server {
%(listens)s
        location = /health { return 200 "OK\\n"; }
        location / { return 200 "OK\\n"; }
    }
}
""" % dict(run=run, out=out, name=name, listens=listens)


def cmd_plan(a):
    p = make_plan(a.cls, a.seed)
    out = os.path.abspath(a.out)
    conf = os.path.join(out, "conf")
    run = os.path.join(out, "run")
    os.makedirs(conf, exist_ok=True)
    modes = ["normal"] + (["shed"] if "shed" in p else [])
    for lb in p["lbs"]:
        for m in modes:
            with open(os.path.join(conf, "haproxy-%s-%s.cfg" % (lb["name"], m)), "w") as f:
                f.write(haproxy_cfg(p, lb, m, run))
    apps = dict(APPS)
    with open(os.path.join(conf, "nginx-web.conf"), "w") as f:
        f.write(nginx_conf(out, "web", [apps["app1"], apps["app2"]]))
    if "app3" in p["apps"]:
        with open(os.path.join(conf, "nginx-app3.conf"), "w") as f:
            f.write(nginx_conf(out, "app3", [apps["app3"]]))
    addrs = set()
    for lb in p["lbs"]:
        addrs.update([lb["a4"], lb["a6"]])
    addrs.update(a for _, a in APPS)
    addrs.update(c["src"] for c in p["customers"])
    for f in p.get("flood", []):
        addrs.add(f["src"])
    if "slow" in p:
        addrs.add(p["slow"]["src"])
    if "distributed" in p:
        addrs.update(p["distributed"]["v4"] + p["distributed"]["v6"])
    with open(os.path.join(out, "addrs.txt"), "w") as f:
        f.write("".join(x + "\n" for x in sorted(addrs)))
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(p, f, indent=1)
    with open(os.path.join(out, "plan.env"), "w") as f:
        f.write("PLAN_LBS='%s'\n" % " ".join("%s:%s:%d:%d" % (l["name"], l["shape"], l["monitor"], l["sink"])
                                            for l in p["lbs"]))
        f.write("PLAN_APP3=%d\n" % ("app3" in p["apps"]))
        f.write("PLAN_MIDNIGHT_S=%s\n" % p.get("midnight_s", ""))
        f.write("PLAN_DURATION=%s\n" % p["duration"])
    return 0


def log_name(lb):
    return "haproxy-%s.log" % lb["name"]


def write_sources(out, p, tz):
    """sources.txt: one lbt input a line (tests/lab/README.md)."""
    lines = ["# lbt inputs of this case: path, then key=value words (lbt(1) --sources)"]
    for lb in p["lbs"]:
        lines.append("%s haproxy-cfg=conf/haproxy-%s-normal.cfg frontend=%s lb=%s tier=lb log-tz=%s"
                     % (log_name(lb), lb["name"], FRONTEND, lb["name"], tz))
    with open(os.path.join(out, "sources.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


# --------------------------------------------------------------------------
# Run: the traffic

class Run:
    def __init__(self, out, hook, plan):
        self.out = out
        self.hook = hook
        self.p = plan
        self.t0 = time.time()
        self.stop_at = self.t0 + plan["duration"]
        self.rotation = [l["name"] for l in plan["lbs"]]
        self.addr = {l["name"]: (l["a4"], l["a6"]) for l in plan["lbs"]}
        table = {}
        for l in plan["lbs"]:
            table[(l["a4"], 80)] = (l["name"], FRONTEND)
            table[(l["a6"], 80)] = (l["name"], FRONTEND)
        client.set_endpoints(table)
        self.truth = client.Truth(os.path.join(out, "truth.tsv"), extra=["role", "attempt"])
        self.ev = open(os.path.join(out, "events.tsv"), "w")
        self.ev.write("time_us\tkind\tsubject\tdetail\n")
        self.ev.write("%d\tstart\t-\t%d\n" % (int(self.t0 * 1e6), int(self.t0 * 1e6)))
        self.lock = threading.Lock()
        self.surge = 1.0

    def at(self, s):
        return self.t0 + s

    def left(self):
        return self.stop_at - time.time()

    def sleep_until(self, t):
        d = t - time.time()
        if d > 0:
            time.sleep(min(d, max(0.0, self.stop_at + 30 - time.time())))

    def event(self, kind, subject, detail="-"):
        with self.lock:
            self.ev.write("%d\t%s\t%s\t%s\n" % (client.now_us(), kind, subject, detail))
            self.ev.flush()

    def pick_lb(self, rnd, allowed):
        rot = [n for n in self.rotation if n in allowed] or list(self.rotation)
        return rnd.choice(rot)

    def dst(self, lb, src):
        a4, a6 = self.addr[lb]
        return a6 if ":" in src else a4

    def request(self, src, lb, path, ua, role, attempt=0, timeout=5.0):
        """One GET; returns (status or error word, Retry-After seconds or None)."""
        dst = self.dst(lb, src)
        t0 = client.now_us()
        sport, result, retry_after = None, None, None
        c = None
        try:
            c = client.Conn(src, dst, 80, timeout)
            sport = c.sport
            t0 = client.now_us()
            c.connect()
            c.s.sendall(client.build_request(b"GET", path.encode(), ua=ua.encode()))
            result, retry_after = read_status(c.s)
        except client.ConnectTimeout:
            result = "connect-timeout"
        except OSError as e:
            result = client.err_word(e)
        finally:
            if c is not None:
                c.close()
        self.truth.add(t0, src, sport, b"GET", path.encode(), self.phase(), result,
                       client.now_us(), dst, 80, role=role, attempt=attempt)
        return result, retry_after

    def phase(self):
        return "%.1f" % (time.time() - self.t0)


def read_status(s):
    buf = b""
    while b"\r\n\r\n" not in buf and len(buf) < 65536:
        d = s.recv(65536)
        if not d:
            break
        buf += d
    head = buf.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    parts = head[0].split(None, 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return ("eof" if not buf else "badresp"), None
    ra = None
    for ln in head[1:]:
        k, _, v = ln.partition(b":")
        if k.strip().lower() == b"retry-after" and v.strip().isdigit():
            ra = int(v.strip())
    # Connection: close on every request: read to the end
    while True:
        try:
            d = s.recv(65536)
        except OSError:
            break
        if not d:
            break
    return int(parts[1]), ra


def customer_steady(r, c, rnd):
    """Pings its key at its rate (times the surge factor while it lasts)."""
    t = r.t0 + rnd.uniform(0, 1.0 / c["rate"])
    n = 0
    while t < r.stop_at and n < 2000:
        r.sleep_until(t)
        if time.time() >= r.stop_at:
            break
        lb = r.pick_lb(rnd, c["lbs"])
        suffix = rnd.choice(["", "", "", "/start", "/0"])
        r.request(c["src"], lb, "/ping/%s%s" % (c["key"], suffix), c["ua"], "customer")
        n += 1
        rate = c["rate"] * surge_factor(r, time.time() - r.t0)
        t += rnd.expovariate(rate) if r.p["cls"] == "calm" else rnd.uniform(0.7, 1.3) / rate


def surge_factor(r, s):
    sg = r.p.get("surge")
    if sg and sg["start"] <= s < sg["end"]:
        return sg["factor"]
    return 1.0


def customer_batch(r, c, rnd):
    """A batch of keys every period; the SDK decides what a failure does."""
    tick = r.t0 + rnd.uniform(0, c["period"])
    ticks = 0
    while tick < r.stop_at - 1 and ticks < 100:
        r.sleep_until(tick)
        keys = c["keys"][:c["batch"]]
        lb = r.pick_lb(rnd, c["lbs"])
        results = send_batch(r, c, lb, keys, 0)
        failed = [k for k, (st, _) in zip(keys, results) if st != 200]
        if failed:
            if c["sdk"] == "naive":
                rounds = 0
                # the whole batch again at once, until it all passes, for
                # at most 2.5 s after the tick and c["rounds"] rounds
                while failed and rounds < c["rounds"] and time.time() < tick + 2.5:
                    rounds += 1
                    res = send_batch(r, c, lb, keys, rounds)
                    failed = [k for k, (st, _) in zip(keys, res) if st != 200]
            else:
                attempt = 0
                wait = 1.0
                pending = [(k, ra) for k, (st, ra) in zip(keys, results) if st != 200]
                while pending and attempt < 3 and time.time() < r.stop_at:
                    attempt += 1
                    if c["sdk"] == "retry-after":
                        wait = max([ra or 1 for _, ra in pending])
                    time.sleep(wait)
                    res = send_batch(r, c, lb, [k for k, _ in pending], attempt)
                    pending = [(k, ra) for (k, _), (st, ra) in zip(pending, res) if st != 200]
                    wait *= 2
        ticks += 1
        tick += c["period"]
        if time.time() > tick:
            tick = time.time() + 0.05


def send_batch(r, c, lb, keys, attempt):
    res = [None] * len(keys)

    def one(i, k):
        res[i] = r.request(c["src"], lb, "/ping/%s" % k, c["ua"], "customer", attempt)
    th = [threading.Thread(target=one, args=(i, k), daemon=True) for i, k in enumerate(keys)]
    for t in th:
        t.start()
    for t in th:
        t.join(10)
    return [x or ("timeout", None) for x in res]


def flooder(r, f, lb, rnd, role):
    r.sleep_until(r.at(f["start"]) + rnd.uniform(0, 0.5))
    end = r.at(f["end"])
    n = 0
    while time.time() < min(end, r.stop_at) and n < 5000:
        r.request(f["src"], lb, "/ping/%s" % f["key"], f["ua"], role, timeout=5.0)
        n += 1
        time.sleep(f.get("pace", rnd.uniform(0.01, 0.05)))


def distributed_one(r, d, src, rnd):
    r.sleep_until(r.at(d["start"]) + rnd.uniform(0, 1.0))
    end = min(r.at(d["end"]), r.stop_at)
    t = time.time()
    n = 0
    while t < end and n < 2000:
        r.sleep_until(t)
        lb = r.pick_lb(rnd, r.rotation)
        r.request(src, lb, "/ping/%s" % d["key"], rnd.choice(UAS), "distributed")
        n += 1
        t += rnd.uniform(0.8, 1.2) / d["rate"]


def slow_conn(r, s, rnd, i):
    """One connection that sends a header line every few seconds and never
    ends its headers; closed at the end of the attack."""
    r.sleep_until(r.at(s["start"]) + i * 0.05)
    src, lb = s["src"], s["lb"]
    dst = r.dst(lb, src)
    t0 = client.now_us()
    c = client.Conn(src, dst, 80, 40.0)
    result = "closed-by-client"
    try:
        c.connect()
        t0c = client.now_us()
        r.event("slow-open", source_of(src), "%d" % t0c)
        c.s.sendall(b"GET /ping/%s HTTP/1.1\r\nHost: hc-ping.com\r\n" % uuid_of(rnd).encode())
        k = 0
        while time.time() < r.at(s["end"]) and k < 100:
            time.sleep(min(s["every"], max(0.0, r.at(s["end"]) - time.time())))
            if time.time() >= r.at(s["end"]):
                break
            c.s.sendall(b"X-Slow-%d: %d\r\n" % (k, k))
            k += 1
    except client.ConnectTimeout:
        result = "connect-timeout"
    except OSError as e:
        result = client.err_word(e)
    c.close()
    r.truth.add(t0, src, c.sport, b"GET", b"/slow", r.phase(), result, client.now_us(),
                dst, 80, role="slow", attempt=0)


def actions(r):
    for at, kind, arg in r.p["actions"]:
        r.sleep_until(r.at(at))
        if time.time() >= r.stop_at:
            break
        if kind == "dns-remove":
            with r.lock:
                r.rotation = [n for n in r.rotation if n != arg]
            r.event("dns-remove", arg)
            continue
        t = client.now_us()
        client.run_hook(r.hook, kind, arg)
        r.event(kind + "-start", arg, "%d" % t)


def cmd_run(a):
    out = os.path.abspath(a.out)
    with open(os.path.join(out, "plan.json")) as f:
        p = json.load(f)
    r = Run(out, a.hook, p)
    threads = []

    def spawn(fn, *args):
        t = threading.Thread(target=fn, args=args, daemon=True)
        t.start()
        threads.append(t)
    base = random.Random("run:%s:%d" % (p["cls"], p["seed"]))
    for c in p["customers"]:
        rnd = random.Random(base.random())
        spawn(customer_batch if "sdk" in c else customer_steady, r, c, rnd)
    for f in p.get("flood", []):
        for lb, n in f["threads"].items():
            for _ in range(n):
                spawn(flooder, r, f, lb, random.Random(base.random()), "flood")
    d = p.get("distributed")
    if d:
        for src in d["v4"] + d["v6"]:
            spawn(distributed_one, r, d, src, random.Random(base.random()))
    s = p.get("slow")
    if s:
        for i in range(s["conns"]):
            spawn(slow_conn, r, s, random.Random(base.random()), i)
    spawn(actions, r)
    for t in threads:
        t.join(max(0.1, r.stop_at + 45 - time.time()))
    r.event("stop", "-")
    r.truth.close()
    r.ev.close()
    return 0


# --------------------------------------------------------------------------
# Truth: from plan.json, truth.tsv and events.tsv only

def read_tsv(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, ln.rstrip("\n").split("\t"))) for ln in f if ln.strip()]


def concurrency_reaches(rows, n):
    """First time (µs) the client held n connections at once, from the send
    time and duration of each request it recorded; None when never."""
    ev = []
    for x in rows:
        t = int(x["send_us"])
        ev.append((t, 1))
        ev.append((t + int(x["dur_us"]), -1))
    ev.sort(key=lambda e: (e[0], e[1]))
    cur = 0
    for t, d in ev:
        cur += d
        if cur >= n:
            return t
    return None


def cmd_truth(a):
    out = os.path.abspath(a.out)
    with open(os.path.join(out, "plan.json")) as f:
        p = json.load(f)
    rows = read_tsv(os.path.join(out, "truth.tsv"))
    evs = read_tsv(os.path.join(out, "events.tsv"))
    t0 = [int(e["detail"]) for e in evs if e["kind"] == "start"][0]
    first = min(int(x["send_us"]) for x in rows)
    last = max(int(x["send_us"]) for x in rows)
    t = dict(cls=p["cls"], seed=p["seed"], first_us=first, last_us=last,
             lbs=[l["name"] for l in p["lbs"]], events=[], allowed=[], forbidden=[],
             remedies=[], prior=[], audit=dict(expect=[], forbid=[]))
    E = t["events"]
    prior = sorted({source_of(c["src"]) for c in p["customers"]})
    t["prior"] = prior

    def ev(kind, subject, us, tol, lb=None, why=""):
        E.append(dict(kind=kind, subject=subject, lb=lb, time_us=int(us), tol_s=tol, why=why))

    def first_of(pred):
        v = [int(x["send_us"]) for x in rows if pred(x)]
        return min(v) if v else None

    def last_of(pred):
        v = [int(x["send_us"]) for x in rows if pred(x)]
        return max(v) if v else None
    abnormal_last = None   # the last request of what is abnormal
    abnormal = False
    # Every class: a customer is never new, never rises, is never denied.
    for s in prior:
        t["forbidden"].append(dict(kind="new-source", subject=s))
        t["forbidden"].append(dict(kind="source-rise", subject=s))
    remedy_of = {}
    # a flood or a storm raises all traffic too: true, neither hit nor miss
    if p["cls"] in ("flood-tarpit", "midnight-shapes", "distributed", "retry-storm"):
        t["allowed"].append(dict(kind="surge", subject="all"))
    for c in p["customers"]:
        remedy_of.setdefault(source_of(c["src"]), "none")
    if p["cls"] in ("flood-tarpit", "midnight-shapes"):
        abnormal = True
        fl = p["flood"]
        srcs = sorted({source_of(f["src"]) for f in fl})
        key = fl[0]["key"]
        f0 = first_of(lambda x: x["role"] == "flood")
        ev("key-rise", key, f0, 2, why="first flood request")
        for s in srcs:
            ev("new-source", s, first_of(lambda x, s=s: x["role"] == "flood" and source_of(x["src"]) == s),
               2, why="first request of the flooder")
            remedy_of[s] = "deny"
        abnormal_last = last_of(lambda x: x["role"] == "flood")
        t["allowed"] += [dict(kind="source-rise", subject=s) for s in srcs]
        if p["cls"] == "flood-tarpit":
            for lb in p["lbs"]:
                mine = [x for x in rows if x["lb"] == lb["name"]]
                at = concurrency_reaches(mine, lb["maxconn"] - 1)
                if at is not None:
                    ev("saturation", FRONTEND, at, 3, lb=lb["name"],
                       why="the client held maxconn - 1 connections to it")
                    t["audit"]["expect"].append(dict(check="maxconn-reached", proxy=FRONTEND, lb=lb["name"]))
                t["audit"]["expect"].append(dict(check="tarpit-rate-limit", proxy=FRONTEND, lb=lb["name"]))
        t["audit"]["forbid"].append(dict(check="http-request-timeout"))
    elif p["cls"] == "retry-storm":
        abnormal = True
        for c in p["customers"]:
            s = source_of(c["src"])
            if c["sdk"] == "naive":
                r1 = first_of(lambda x, c=c: x["src"] == c["src"] and x["attempt"] not in ("0", "-"))
                if r1 is not None:
                    ev("retry-storm", s, r1, 3, why="first whole-batch re-send")
                    remedy_of[s] = "rate-limit"
            t["allowed"].append(dict(kind="retry-storm", subject=s) if c["sdk"] != "naive" else
                                dict(kind="source-rise", subject=s))
        # a batch sent again is a rise of each of its keys: true, not wrong
        t["allowed"].append(dict(kind="key-rise", subject="*"))
        shed = first_of(lambda x: x["result"] == "503")
        if shed is not None:
            ev("shedding", "503", shed, 2, why="first 503 the customers got")
            if len(p["lbs"]) > 1:
                for lb in p["lbs"]:
                    s1 = first_of(lambda x, lb=lb: x["result"] == "503" and x["lb"] == lb["name"])
                    if s1 is not None:
                        ev("shedding", "503", s1, 2, lb=lb["name"], why="first 503 from this LB")
        for h in [e for e in evs if e["kind"] == "reload-start"]:
            for lb in p["lbs"]:
                ev("reload", lb["name"], int(h["detail"]), 3, lb=lb["name"], why="hook reload")
        abnormal_last = last_of(lambda x: x["attempt"] not in ("0", "-"))
        t["audit"]["forbid"] += [dict(check="tarpit-rate-limit"), dict(check="maxconn-reached")]
    elif p["cls"] == "surge":
        abnormal = True
        sg = p["surge"]
        ev("surge", "all", t0 + sg["start"] * 1e6, 2, why="the surge's start (plan time)")
        abnormal_last = last if sg["end"] >= p["duration"] else t0 + sg["end"] * 1e6
        t["allowed"] += [dict(kind="key-rise", subject="*")]
        t["audit"]["forbid"] += [dict(check="tarpit-rate-limit"), dict(check="maxconn-reached")]
    elif p["cls"] == "distributed":
        abnormal = True
        d = p["distributed"]
        f0 = first_of(lambda x: x["role"] == "distributed")
        ev("key-rise", d["key"], f0, 2, why="first request of the distributed flood")
        ev("distributed-flood", d["p48"], f0, 3, why="one key from many /64s of one /48")
        ev("distributed-flood", d["p24"], f0, 3, why="one key from many addresses of one /24")
        abnormal_last = last_of(lambda x: x["role"] == "distributed")
        t["allowed"] += [dict(kind="new-source", subject=d["p48"]), dict(kind="new-source", subject=d["p24"]),
                         dict(kind="source-rise", subject=d["p48"]), dict(kind="source-rise", subject=d["p24"])]
        t["remedy_sets"] = {"v6-attack": [source_of(x) for x in d["v6"]],
                            "v4-attack": [source_of(x) for x in d["v4"]]}
        t["remedies"].append(dict(set="v6-attack", sources=sorted(set(t["remedy_sets"]["v6-attack"])),
                                  remedy="aggregate-prefix", prefix=d["p48"]))
        t["remedies"].append(dict(set="v4-attack", sources=sorted(set(t["remedy_sets"]["v4-attack"])),
                                  remedy="aggregate-prefix", prefix=d["p24"]))
        del t["remedy_sets"]
    elif p["cls"] == "slow-headers":
        abnormal = True
        s = p["slow"]
        opens = sorted(int(e["detail"]) for e in evs if e["kind"] == "slow-open")
        src = source_of(s["src"])
        lbmax = [l for l in p["lbs"] if l["name"] == s["lb"]][0]["maxconn"]
        if opens:
            ev("slow-headers", src, opens[0], 3, why="first slow connection open")
            lb_rows = [x for x in rows if x["lb"] == s["lb"]]
            at = concurrency_reaches(lb_rows, lbmax - 1)
            if at is not None:
                ev("saturation", FRONTEND, at, 3, lb=s["lb"], why="the client held maxconn - 1 connections")
                t["audit"]["expect"].append(dict(check="maxconn-reached", proxy=FRONTEND, lb=s["lb"]))
        remedy_of[src] = "timeout-http-request"
        for lb in p["lbs"]:
            t["audit"]["expect"].append(dict(check="http-request-timeout", proxy=FRONTEND, lb=lb["name"]))
        abnormal_last = last_of(lambda x: x["role"] == "slow")
        t["allowed"] += [dict(kind="new-source", subject=src)]
    elif p["cls"] == "dns-crashloop":
        abnormal = True
        gone = [e for e in evs if e["kind"] == "dns-remove"]
        for g in gone:
            lst = last_of(lambda x, g=g: x["lb"] == g["subject"])
            ev("lb-gone", g["subject"], lst, 2, lb=g["subject"], why="its last request (DNS removal)")
        stops = [e for e in evs if e["kind"] == "app-stop-start"]
        starts = [e for e in evs if e["kind"] == "app-start-start"]
        for lb in p["lbs"]:
            for e in stops:
                ev("server-down", "be_app/app3", int(e["detail"]), 3, lb=lb["name"], why="app3 stopped")
            for e in starts:
                ev("server-up", "be_app/app3", int(e["detail"]), 3, lb=lb["name"], why="app3 started")
            if len(stops) >= 3:
                ev("crash-loop", "be_app/app3", int(stops[0]["detail"]), 3, lb=lb["name"],
                   why="%d stops" % len(stops))
        for h in [e for e in evs if e["kind"] == "reload-start"]:
            for lb in p["lbs"]:
                ev("reload", lb["name"], int(h["detail"]), 3, lb=lb["name"], why="hook reload")
        # the crash loop is the anomaly (the reload after it is a remedy)
        ends = [int(e["detail"]) for e in evs if e["kind"] in ("app-stop-start", "app-start-start")]
        abnormal_last = max(ends) if ends else None
        t["allowed"] += [dict(kind="lb-shift", subject="*")]
    elif p["cls"] == "calm":
        t["forbidden"].append(dict(kind="*", subject="*"))
        t["audit"]["forbid"] += [dict(check="tarpit-rate-limit"), dict(check="maxconn-reached")]
    # The verdict at the end of the data: over when what was abnormal
    # stopped 12 s or more before the last request, ongoing when it went
    # on to the last 5 s (the plans never end between the two).
    if not abnormal:
        t["verdict"] = "calm"
    elif abnormal_last is not None and last - abnormal_last <= 5e6:
        t["verdict"] = "ongoing"
    else:
        t["verdict"] = "over"
    for s, rem in sorted(remedy_of.items()):
        t["remedies"].append(dict(set=s, sources=[s], remedy=rem))
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(t, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--class", dest="cls", required=True, choices=CLASSES)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("run")
    p.add_argument("--out", required=True)
    p.add_argument("--hook", default="")
    p = sub.add_parser("truth")
    p.add_argument("--out", required=True)
    p = sub.add_parser("sources")
    p.add_argument("--out", required=True)
    p.add_argument("--tz", default="UTC")
    a = ap.parse_args()
    if a.cmd == "plan":
        return cmd_plan(a)
    if a.cmd == "run":
        return cmd_run(a)
    if a.cmd == "truth":
        return cmd_truth(a)
    with open(os.path.join(a.out, "plan.json")) as f:
        write_sources(a.out, json.load(f), a.tz)
    return 0


if __name__ == "__main__":
    sys.exit(main())
