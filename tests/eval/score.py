#!/usr/bin/python3
"""Score lbt's answers on the incident corpus against its truth files.

usage: score.py [--goals] [--json FILE] [--title T] CASE=ANSWERS ...

CASE is a directory with truth.json (tests/lab/corpus.py truth); ANSWERS a
directory with what lbt printed for it: timeline.json (lbt-timeline --json,
one event a line), triage.json (lbt-triage --json) and audit-LB.json
(lbt-audit --json, one finding a line, one file per load balancer).  Only
those documented outputs are read, never lbt's internals.

Prints Markdown: one row per class, then one per event kind.  With --goals,
exits 1 when a goal of docs/eval.md is missed (and says which); without it,
0 whenever every case could be scored.  Standard library only.
"""
import argparse
import ipaddress
import json
import os
import statistics
import sys

# The truth's event kinds and what lbt-timeline says for each: (kind, what).
# An empty list: lbt-timeline has no such event yet, so every one is a miss.
KINDS = {
    "key-rise": [("rise", "key")],
    "surge": [("rise", "all")],
    "new-source": [("new_source", "source")],
    "source-rise": [("source_rise", "source")],
    "saturation": [("saturation", "frontend")],
    "retry-storm": [("retry_storm", "source")],
    "shedding": [("errors", "class")],
    "lb-gone": [("lb_stop", "lb")],
    "lb-shift": [("lb_shift", "lb")],
    "server-down": [("server_down", "server")],
    "server-up": [("server_up", "server")],
    "crash-loop": [("crash_loop", "server")],
    "reload": [("reload", "proxy")],
    "slow-headers": [],
    "distributed-flood": [],
}
# Kinds whose subject is the load balancer: matched on the lb column.
BY_LB = {"reload", "lb-gone", "lb-shift"}
# The remedy classes of a source set.
REMEDIES = ["deny", "rate-limit", "none", "timeout-http-request", "aggregate-prefix"]


def truth_kind(ev):
    """The truth kind of an lbt-timeline event, or None when not judged."""
    for k, pairs in KINDS.items():
        if (ev.get("kind"), ev.get("what")) in pairs:
            if k == "shedding" and ev.get("subject") != "503":
                return None
            return k
    return None


def as_net(s):
    try:
        return ipaddress.ip_network(s, strict=False)
    except (ValueError, TypeError):
        return None


def subject_matches(pattern, subject):
    """'*' matches anything; a network matches the sources inside it; else
    the same text (sources compared as networks: 2001:db8:0:1::/64 is
    2001:db8::1:0:0:0:0/64)."""
    if pattern == "*":
        return True
    p, s = as_net(pattern), as_net(subject)
    if p is not None and s is not None:
        return p.version == s.version and s.subnet_of(p)
    return pattern == subject


def lb_of(ev, lbs):
    """The event's load balancer; a case with one LB names none."""
    lb = ev.get("lb")
    if lb is None and len(lbs) == 1:
        return lbs[0]
    return lb


def event_matches(t, ev, lbs):
    if (ev.get("kind"), ev.get("what")) not in KINDS[t["kind"]]:
        return False
    if t["kind"] in BY_LB:
        return lb_of(ev, lbs) == t["lb"]
    if not subject_matches(t["subject"], ev.get("subject")):
        return False
    if t.get("lb") is not None and lb_of(ev, lbs) != t["lb"]:
        return False
    if t.get("lb") is None and t["kind"] == "shedding" and len(lbs) > 1:
        return ev.get("lb") is None   # the episode of every LB together
    return True


def pattern_matches(pat, ev):
    k = truth_kind(ev)
    if k is None:
        return False
    return (pat["kind"] == "*" or pat["kind"] == k) and \
        subject_matches(pat.get("subject", "*"), ev.get("subject"))


def match_events(truth, events):
    """One-to-one: the pairs within tolerance, the closest first.
    Returns (pairs [(truth index, event index, |dt| s)], judged event indexes)."""
    lbs = truth["lbs"]
    cand = []
    for i, t in enumerate(truth["events"]):
        for j, ev in enumerate(events):
            if ev.get("time_us") is None or not event_matches(t, ev, lbs):
                continue
            dt = abs(ev["time_us"] - t["time_us"]) / 1e6
            if dt <= t["tol_s"]:
                cand.append((dt, i, j))
    cand.sort()
    used_t, used_e, pairs = set(), set(), []
    for dt, i, j in cand:
        if i in used_t or j in used_e:
            continue
        used_t.add(i)
        used_e.add(j)
        pairs.append((i, j, dt))
    judged = [j for j, ev in enumerate(events) if truth_kind(ev) is not None]
    return pairs, judged


def read_ndjson(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise SystemExit("score.py: %s:%d: not JSON (%s)" % (path, n, e))
    return out


def read_json(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise SystemExit("score.py: %s: not JSON (%s)" % (path, e))


def rule_networks(triage):
    rule = (triage or {}).get("rule") or {}
    return [n for n in (as_net(x) for x in rule.get("networks") or []) if n is not None]


def is_rate_limit(rule):
    action = str((rule or {}).get("action") or "")
    return "rate" in action or "limit" in action


def deny_networks(triage):
    """The networks a rule denies: none when the rule is a rate limit."""
    rule = (triage or {}).get("rule") or {}
    return [] if is_rate_limit(rule) else rule_networks(triage)


def limited_networks(triage):
    """The sources lbt-triage rate-limits (cause customer), whatever its
    deny rule: a reply may deny floods and limit customers at once."""
    nets = [as_net(s.get("source")) for s in (triage or {}).get("sources") or []
            if s.get("cause") == "customer"]
    rule = (triage or {}).get("rule") or {}
    if is_rate_limit(rule):
        nets += rule_networks(triage)
    return [n for n in nets if n is not None]


def covered_by(src, nets):
    s = as_net(src)
    return [n for n in nets if s is not None and n.version == s.version and s.subnet_of(n)]


def predicted_remedy(sources, triage, audit_checks, expected):
    """What lbt's answers do about a set of sources: a rate limit (the
    sources lbt-triage limits as customers, or a rule whose action is a
    limit), the triage's deny rule (deny, or a prefix wider than a source
    that takes in several of them), or nothing.  A remedy that changes the
    configuration rather than names sources (timeout http-request) is
    given when the triage names the sources slow or the audit says it, for
    the sets whose remedy it is."""
    nets = deny_networks(triage)
    limited = limited_networks(triage)
    if sources and all(covered_by(s, limited) for s in sources):
        return "rate-limit"
    cov = [covered_by(s, nets) for s in sources]
    if all(cov) and sources:
        wide = [n for c in cov for n in c
                if n.prefixlen < (32 if n.version == 4 else 64)]
        if wide and len(sources) > 1:
            return "aggregate-prefix"
        return "deny"
    if any(cov):
        return "deny-part"
    slow = [as_net(x.get("source")) for x in (triage or {}).get("sources") or []
            if x.get("cause") == "slow"]
    slow = [n for n in slow if n is not None]
    if expected == "timeout-http-request" and (
            "http-request-timeout" in audit_checks or
            (sources and all(covered_by(s, slow) for s in sources))):
        return "timeout-http-request"
    return "none"


def score_case(case, answers):
    truth = read_json(os.path.join(case, "truth.json"))
    if truth is None:
        raise SystemExit("score.py: %s: no truth.json" % case)
    events = read_ndjson(os.path.join(answers, "timeline.json"))
    triage = read_json(os.path.join(answers, "triage.json")) or {}
    audit = {lb: read_ndjson(os.path.join(answers, "audit-%s.json" % lb)) for lb in truth["lbs"]}
    r = dict(cls=truth["cls"], seed=truth["seed"], tp={}, fp={}, fn={}, dt=[])
    pairs, judged = match_events(truth, events)
    matched_t = {i for i, _, _ in pairs}
    matched_e = {j for _, j, _ in pairs}
    for i, t in enumerate(truth["events"]):
        d = r["tp"] if i in matched_t else r["fn"]
        d[t["kind"]] = d.get(t["kind"], 0) + 1
    r["dt"] = [dt for _, _, dt in pairs]
    forbidden = 0
    for j in judged:
        ev = events[j]
        if any(pattern_matches(p, ev) for p in truth["forbidden"]):
            forbidden += 1
        if j in matched_e:
            continue
        if any(pattern_matches(p, ev) for p in truth["allowed"]) and \
                not any(pattern_matches(p, ev) for p in truth["forbidden"]):
            continue
        k = truth_kind(ev)
        r["fp"][k] = r["fp"].get(k, 0) + 1
    r["forbidden"] = forbidden
    r["verdict"] = triage.get("verdict")
    r["verdict_ok"] = r["verdict"] == truth["verdict"]
    r["verdict_truth"] = truth["verdict"]
    checks = {f.get("check") for rows in audit.values() for f in rows}
    nets = deny_networks(triage)
    rem_ok, rem_all, wrong = 0, 0, []
    prior = set(truth["prior"])
    prior_denied = set()
    for rem in truth["remedies"]:
        got = predicted_remedy(rem["sources"], triage, checks, rem["remedy"])
        rem_all += 1
        if got == rem["remedy"]:
            rem_ok += 1
        else:
            wrong.append("%s: %s, not %s" % (rem["set"], got, rem["remedy"]))
        if rem["remedy"] in ("rate-limit", "none"):
            prior_denied.update(s for s in rem["sources"] if s in prior and covered_by(s, nets))
    r.update(remedy_ok=rem_ok, remedy_all=rem_all, remedy_wrong=wrong,
             prior_denied=sorted(prior_denied))
    new = set()
    for s in triage.get("sources") or []:
        if s.get("new") and any(subject_matches(p, s.get("source")) for p in prior):
            new.add(s.get("source"))
    for ev in events:
        if ev.get("kind") == "new_source" and any(subject_matches(p, ev.get("subject")) for p in prior):
            new.add(ev.get("subject"))
    r["wrongly_new"] = sorted(new)
    found = 0
    for e in truth["audit"]["expect"]:
        if any(f.get("check") == e["check"] and f.get("proxy") == e["proxy"]
               for f in audit.get(e["lb"], [])):
            found += 1
    bad = sum(1 for rows in audit.values() for f in rows
              if any(f.get("check") == x["check"] for x in truth["audit"]["forbid"]))
    r.update(audit_expect=len(truth["audit"]["expect"]), audit_found=found, audit_bad=bad)
    return r


def ratio(a, b):
    return a / b if b else None


def fmt(x, pct=False):
    if x is None:
        return "-"
    return "%.0f %%" % (100 * x) if pct else "%.2f" % x


def summarise(results):
    by = {}
    for r in results:
        by.setdefault(r["cls"], []).append(r)
    rows = []
    for cls in sorted(by):
        rs = by[cls]
        tp = sum(sum(r["tp"].values()) for r in rs)
        fp = sum(sum(r["fp"].values()) for r in rs)
        fn = sum(sum(r["fn"].values()) for r in rs)
        dts = [d for r in rs for d in r["dt"]]
        rows.append(dict(
            cls=cls, cases=len(rs), seeds=" ".join(str(r["seed"]) for r in rs),
            tp=tp, fp=fp, fn=fn, precision=ratio(tp, tp + fp), recall=ratio(tp, tp + fn),
            dt_median=statistics.median(dts) if dts else None, dt_worst=max(dts) if dts else None,
            verdict=ratio(sum(r["verdict_ok"] for r in rs), len(rs)),
            verdicts=", ".join("%s (%s)" % (r["verdict"], r["verdict_truth"]) for r in rs if not r["verdict_ok"]),
            remedy=ratio(sum(r["remedy_ok"] for r in rs), sum(r["remedy_all"] for r in rs)),
            remedy_wrong="; ".join(w for r in rs for w in r["remedy_wrong"]),
            wrongly_new=sum(len(r["wrongly_new"]) for r in rs),
            prior_denied=sum(len(r["prior_denied"]) for r in rs),
            forbidden=sum(r["forbidden"] for r in rs),
            audit_r=ratio(sum(r["audit_found"] for r in rs), sum(r["audit_expect"] for r in rs)),
            audit_p=ratio(sum(r["audit_found"] for r in rs),
                          sum(r["audit_found"] + r["audit_bad"] for r in rs))))
    kinds = {}
    for r in results:
        for name in ("tp", "fp", "fn"):
            for k, n in r[name].items():
                kinds.setdefault(k, dict(tp=0, fp=0, fn=0))[name] += n
    return rows, kinds


def table(rows, kinds, title):
    out = ["## %s" % title, "",
           "| class | cases (seeds) | events P | events R | TP/FP/FN | time err median s | worst s "
           "| verdict | remedy | wrongly new | prior denied | forbidden | audit P | audit R |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        out.append("| %s | %d (%s) | %s | %s | %d/%d/%d | %s | %s | %s | %s | %d | %d | %d | %s | %s |" % (
            x["cls"], x["cases"], x["seeds"], fmt(x["precision"]), fmt(x["recall"]),
            x["tp"], x["fp"], x["fn"], fmt(x["dt_median"]), fmt(x["dt_worst"]),
            fmt(x["verdict"], True), fmt(x["remedy"], True), x["wrongly_new"],
            x["prior_denied"], x["forbidden"], fmt(x["audit_p"]), fmt(x["audit_r"])))
    out += ["", "| truth kind | lbt-timeline kind | TP | FP | FN | P | R |", "|---|---|---|---|---|---|---|"]
    for k in sorted(kinds):
        c = kinds[k]
        emitted = ", ".join("%s (%s)" % p for p in KINDS.get(k, [])) or "not emitted yet"
        out.append("| %s | %s | %d | %d | %d | %s | %s |" % (
            k, emitted, c["tp"], c["fp"], c["fn"], fmt(ratio(c["tp"], c["tp"] + c["fp"])),
            fmt(ratio(c["tp"], c["tp"] + c["fn"]))))
    notes = [x for x in rows if x["verdicts"] or x["remedy_wrong"]]
    if notes:
        out += ["", "Wrong verdicts (lbt's, truth's) and remedies:", ""]
        for x in notes:
            if x["verdicts"]:
                out.append("* %s: verdict %s" % (x["cls"], x["verdicts"]))
            if x["remedy_wrong"]:
                out.append("* %s: remedy %s" % (x["cls"], x["remedy_wrong"]))
    return "\n".join(out) + "\n"


def goals_missed(rows):
    miss = []
    for x in rows:
        for name in ("precision", "recall"):
            if x[name] is not None and x[name] < 0.95:
                miss.append("%s: events %s %.2f < 0.95" % (x["cls"], name, x[name]))
        if x["verdict"] is not None and x["verdict"] < 1:
            miss.append("%s: verdicts %.0f %% < 100 %%" % (x["cls"], 100 * x["verdict"]))
        if x["remedy"] is not None and x["remedy"] < 1:
            miss.append("%s: remedies %.0f %% < 100 %%" % (x["cls"], 100 * x["remedy"]))
        if x["prior_denied"]:
            miss.append("%s: %d prior customers denied" % (x["cls"], x["prior_denied"]))
    return miss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--goals", action="store_true", help="exit 1 when a goal is missed")
    ap.add_argument("--json", help="also write every case's scores to this file")
    ap.add_argument("--title", default="lbt on the incident corpus")
    ap.add_argument("pairs", nargs="+", metavar="CASE=ANSWERS")
    a = ap.parse_args()
    results = []
    for pair in a.pairs:
        case, sep, answers = pair.partition("=")
        if not sep:
            ap.error("'%s' is not CASE=ANSWERS" % pair)
        results.append(score_case(case, answers))
    rows, kinds = summarise(results)
    sys.stdout.write(table(rows, kinds, a.title))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(cases=results, classes=rows, kinds=kinds), f, indent=1, sort_keys=True)
    if a.goals:
        miss = goals_missed(rows)
        if miss:
            sys.stdout.write("\nGoals missed:\n\n" + "".join("* %s\n" % m for m in miss))
            return 1
        sys.stdout.write("\nEvery goal met.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
