#!/usr/bin/env python3
"""Checks the traces that test_trace wrote into DIR, with real parsers.

Every *.json: parses as JSON; a thread_name for every worker row; every span
(ph X) on the row of the worker its args name, with a duration >= 0; the
spans of one row nest (none straddles another's end); every steal has both
ends of its flow (ph s on the victim's row, ph f with "bp": "e" on the
thief's, same id, cat and name, at the stolen job's start), and every job
marked stolen has one.
Every NAME.expect: "job ARG WORKER" - exactly one job span with that
argument, on that worker's row; "records W N" / "lost W N" - otherData;
"spans W NAME" - at least one span named NAME on worker W's row;
"dropped N NAME" - N job spans marked dropped (a cancelled scope's), named
NAME ("-": any).
Every *.html: parses as HTML; self-contained (no src, href or URL); its
embedded data parses and, where a .json of the same trace exists, has the
same spans.
Usage: trace_check.py DIR
"""
import collections
import glob
import html.parser
import json
import os
import sys

EPS = 0.0021  # us: ts and dur are each rounded to 0.001


def fail(path, msg):
    sys.exit(f"trace_check: {path}: {msg}")


def check_json(path):
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"]
    workers = data["otherData"]["workers"]
    rows = {}
    spans = collections.defaultdict(list)
    starts, finishes = {}, {}
    for e in events:
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "thread_name":
                rows[e["tid"]] = e["args"]["name"]
        elif ph == "X":
            if e["dur"] < 0:
                fail(path, f"negative duration: {e}")
            if e["args"]["worker"] != e["tid"] - 1:
                fail(path, f"span on the wrong row: {e}")
            spans[e["tid"]].append(e)
        elif ph == "s":
            if e["id"] in starts:
                fail(path, f"flow id {e['id']} starts twice")
            starts[e["id"]] = e
        elif ph == "f":
            if e.get("bp") != "e":
                fail(path, f"flow end without bp e: {e}")
            if e["id"] in finishes:
                fail(path, f"flow id {e['id']} ends twice")
            finishes[e["id"]] = e
        else:
            fail(path, f"unexpected event {e}")
    for w in workers:
        if w["worker"] + 1 not in rows:
            fail(path, f"no thread_name for worker {w['worker']}")
        if len(spans.get(w["worker"] + 1, [])) != w["records"]:
            fail(path, f"worker {w['worker']}: {len(spans.get(w['worker'] + 1, []))} spans, "
                       f"otherData says {w['records']}")
    for tid, row in spans.items():
        row.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []
        for e in row:
            while open_ends and open_ends[-1][0] <= e["ts"] + EPS:
                open_ends.pop()
            end = e["ts"] + e["dur"]
            if open_ends and end > open_ends[-1][0] + EPS:
                fail(path, f"row {tid}: {e} straddles the end of {open_ends[-1][1]}")
            open_ends.append((end, e))
    if starts.keys() != finishes.keys():
        fail(path, "flows with one end only: "
                   f"{sorted(set(starts) ^ set(finishes))[:5]}")
    stolen = {}
    for tid, row in spans.items():
        for e in row:
            src = e["args"].get("from", "")
            if src.startswith("stolen from worker "):
                stolen[(tid, e["ts"])] = int(src.rsplit(" ", 1)[1])
    if len(stolen) != len(starts):
        fail(path, f"{len(stolen)} stolen jobs but {len(starts)} flows")
    for fid, s in starts.items():
        f = finishes[fid]
        if (s["cat"], s["name"]) != (f["cat"], f["name"]) or s["ts"] != f["ts"]:
            fail(path, f"flow {fid}: ends differ: {s} {f}")
        victim = stolen.get((f["tid"], f["ts"]))
        if victim is None or victim + 1 != s["tid"]:
            fail(path, f"flow {fid} does not match a stolen job on its rows")
    return data, spans


def check_expect(path, data, spans):
    jobs = collections.defaultdict(list)
    for tid, row in spans.items():
        for e in row:
            if e["cat"] == "job":
                jobs[int(e["args"]["arg"], 16)].append(tid - 1)
    per_worker = {w["worker"]: w for w in data["otherData"]["workers"]}
    n = 0
    with open(path) as f:
        for line in f:
            kind, a, b = line.split()
            if kind == "job":
                n += 1
                got = jobs.get(int(a, 16), [])
                if got != [int(b)]:
                    fail(path, f"job {a} ran on worker {b}, the trace has it on {got}")
            elif kind in ("records", "lost"):
                if per_worker[int(a)][kind] != int(b):
                    fail(path, f"worker {a}: {kind} {per_worker[int(a)][kind]}, expected {b}")
            elif kind == "spans":
                if not any(e["name"] == b for e in spans.get(int(a) + 1, [])):
                    fail(path, f"worker {a}: no {b} span")
            elif kind == "dropped":
                got = sum(1 for row in spans.values() for e in row
                          if e["cat"] == "job" and "dropped" in e["args"])
                if got != int(a) or (b != "-" and not any(
                        e["name"] == b for row in spans.values() for e in row
                        if e["cat"] == "job" and "dropped" in e["args"])):
                    fail(path, f"{got} dropped job spans (named {b}), expected {a}")
    return n


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.current, self.rows, self.urls = [], None, 0, []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") or (value and "://" in value):
                self.urls.append((tag, name, value))
        if tag == "script":
            self.current = ""
        if tag == "tr":
            self.rows += 1

    def handle_endtag(self, tag):
        if tag == "script":
            self.scripts.append(self.current)
            self.current = None

    def handle_data(self, text):
        if self.current is not None:
            self.current += text


def check_html(path):
    with open(path) as f:
        text = f.read()
    page = Page()
    page.feed(text)
    page.close()
    if page.urls or "http://" in text or "https://" in text:
        fail(path, f"not self-contained: {page.urls[:3]}")
    if len(page.scripts) != 2:
        fail(path, f"{len(page.scripts)} scripts, expected the data and the viewer")
    data = json.loads(page.scripts[0])
    if page.rows != len(data["workers"]) + 1:
        fail(path, f"summary has {page.rows - 1} rows for {len(data['workers'])} workers")
    for w in data["workers"]:
        for s in w["spans"]:
            if len(s) != 8 or not 1 <= s[0] <= 4 or s[2] < 0 or s[7] not in (0, 1):
                fail(path, f"bad span {s}")
            if s[0] == 1 and not 0 <= s[3] < len(data["names"]):
                fail(path, f"job span without a name: {s}")
    twin = path[: -len(".html")] + ".json"
    if os.path.exists(twin) and os.path.basename(path).startswith("jobs"):
        with open(twin) as f:
            spans = sum(1 for e in json.load(f)["traceEvents"] if e["ph"] == "X")
        if spans != sum(len(w["spans"]) for w in data["workers"]):
            fail(path, f"{spans} spans in {twin}, a different number here")


def main():
    d = sys.argv[1]
    traces = sorted(glob.glob(os.path.join(d, "*.json")))
    checked = {}
    for p in traces:
        if os.path.isdir(p):
            continue
        checked[p] = check_json(p)
    jobs = 0
    for p in sorted(glob.glob(os.path.join(d, "*.expect"))):
        twin = p[: -len(".expect")] + ".json"
        if twin not in checked:
            fail(p, "no trace beside it")
        jobs += check_expect(p, *checked[twin])
    pages = sorted(glob.glob(os.path.join(d, "*.html")))
    for p in pages:
        check_html(p)
    if not checked or not pages or jobs == 0:
        sys.exit(f"trace_check: nothing to check in {d}")
    print(f"trace_check: {len(checked)} JSON traces, {len(pages)} pages, {jobs} expected jobs: ok")


if __name__ == "__main__":
    main()
