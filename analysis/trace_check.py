#!/usr/bin/python3
"""Validate a Chrome/Perfetto trace-event JSON file (as written by `dualpath run --trace`).

    trace_check.py TRACE.json [--results RUN_DIR] [--request ID]

Format checks (the Trace Event Format, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
required fields per phase, numeric non-negative timestamps, X durations >= 0, B/E matched per thread, X slices
on one thread properly nested, counter timestamps strictly increasing per counter track, flows (s/t/f) with one
start and one finish per id, in time order, each point inside a slice of its thread, metadata well formed.

With --results (the run's output folder: requests.csv, summary.json) it also checks one traced request (the
first with a storage read through a DE SNIC if any, or --request): its read is on the SNIC read track of the
node whose SNIC read it, with the request's read times, and its forward's per-stage KV loads and sends are on
the CNIC tracks of the GPUs they cross. Exit 0 when everything holds, 1 otherwise. Python 3 standard library only.
"""
import argparse
import collections
import csv
import json
import sys

EPS_US = 0.002  # timestamps are written with 1 ns resolution

REQUIRED = {
    "X": ("name", "pid", "tid", "ts", "dur"),
    "B": ("name", "pid", "tid", "ts"),
    "E": ("pid", "tid", "ts"),
    "C": ("name", "pid", "ts", "args"),
    "i": ("name", "pid", "ts"),
    "I": ("name", "pid", "ts"),
    "s": ("name", "pid", "tid", "ts", "id"),
    "t": ("name", "pid", "tid", "ts", "id"),
    "f": ("name", "pid", "tid", "ts", "id"),
    "b": ("name", "pid", "ts", "id", "cat"),
    "e": ("pid", "ts", "id", "cat"),
    "n": ("name", "pid", "ts", "id", "cat"),
    "M": ("name", "pid", "args"),
}
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


class Checker:
    def __init__(self):
        self.errors = []
        self.notes = []

    def fail(self, msg):
        if len(self.errors) < 50:
            self.errors.append(msg)
        elif len(self.errors) == 50:
            self.errors.append("... (more errors omitted)")

    def check(self, ok, msg):
        if not ok:
            self.fail(msg)
        return ok


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if isinstance(doc, list):
        return doc, {}
    return doc["traceEvents"], doc


def check_format(events, c):
    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, end)]
    open_b = collections.defaultdict(list)
    counters = {}
    flows = collections.defaultdict(list)
    names = {"process": {}, "thread": {}}
    counts = collections.Counter()
    for i, e in enumerate(events):
        if not c.check(isinstance(e, dict), f"event {i}: not an object"):
            continue
        ph = e.get("ph")
        counts[ph] += 1
        if not c.check(ph in REQUIRED, f"event {i}: unknown or missing phase {ph!r}"):
            continue
        missing = [k for k in REQUIRED[ph] if k not in e]
        if not c.check(not missing, f"event {i} (ph {ph}): missing {missing}"):
            continue
        if "ts" in e and not c.check(is_num(e["ts"]) and e["ts"] >= 0, f"event {i}: bad ts {e.get('ts')!r}"):
            continue
        if "name" in e:
            c.check(isinstance(e["name"], str), f"event {i}: name is not a string")
        for k in ("pid", "tid"):
            if k in e:
                c.check(isinstance(e[k], int), f"event {i}: {k} is not an integer")
        if "args" in e:
            c.check(isinstance(e["args"], dict), f"event {i}: args is not an object")
        key = (e.get("pid"), e.get("tid"))
        if ph == "X":
            if c.check(is_num(e["dur"]) and e["dur"] >= 0, f"event {i}: X duration {e['dur']!r} < 0 or not a number"):
                slices[key].append((e["ts"], e["ts"] + e["dur"], i))
        elif ph == "B":
            open_b[key].append(e["ts"])
        elif ph == "E":
            if c.check(open_b[key], f"event {i}: E without a matching B on pid {key[0]} tid {key[1]}"):
                b = open_b[key].pop()
                c.check(e["ts"] >= b, f"event {i}: E at {e['ts']} before its B at {b}")
                slices[key].append((b, e["ts"], i))
        elif ph == "C":
            vals = e["args"]
            c.check(vals and all(is_num(v) for v in vals.values()), f"event {i}: counter args must be numbers")
            track = (e["pid"], e["name"], e.get("id"))
            prev = counters.get(track)
            c.check(prev is None or e["ts"] > prev,
                    f"event {i}: counter {e['name']} (pid {e['pid']}) time {e['ts']} not after {prev}")
            counters[track] = e["ts"]
        elif ph in "stf":
            flows[(e.get("cat"), e["id"])].append((ph, e["ts"], key, e.get("bp"), i))
        elif ph == "M":
            c.check(e["name"] in METADATA, f"event {i}: unknown metadata {e['name']!r}")
            if e["name"] == "process_name":
                names["process"][e["pid"]] = e["args"].get("name")
            if e["name"] == "thread_name":
                c.check("tid" in e, f"event {i}: thread_name without tid")
                names["thread"][key] = e["args"].get("name")
            if e["name"].endswith("sort_index"):
                c.check(is_num(e["args"].get("sort_index")), f"event {i}: sort_index is not a number")
    for key, stack in open_b.items():
        c.check(not stack, f"pid {key[0]} tid {key[1]}: {len(stack)} B events never ended")
    # X slices of a thread must nest: sorted by start (longer first), each one ends within its parent.
    for key, lst in slices.items():
        lst.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        stack = []
        for s0, s1, i in lst:
            while stack and stack[-1] <= s0 + EPS_US:
                stack.pop()
            if stack:
                c.check(s1 <= stack[-1] + EPS_US,
                        f"event {i}: slice [{s0}, {s1}] overlaps its parent ending at {stack[-1]} (pid {key[0]} tid {key[1]})")
            stack.append(s1)
    # Flows: one s, one f, steps in between, non-decreasing times, each point inside a slice on its thread.
    starts = {k: [s[0] for s in v] for k, v in slices.items()}
    for k in starts:
        slices[k].sort()
    import bisect
    for (cat, fid), pts in flows.items():
        phs = [p[0] for p in pts]
        c.check(phs.count("s") == 1 and phs.count("f") == 1, f"flow {fid}: {phs.count('s')} starts, {phs.count('f')} finishes")
        ordered = sorted(pts, key=lambda p: (p[1], "stf".index(p[0])))
        c.check(ordered[0][0] == "s" and ordered[-1][0] == "f", f"flow {fid}: does not start with s and end with f in time")
        for ph, ts, key, bp, i in pts:
            lst = slices.get(key, [])
            j = bisect.bisect_right([s[0] for s in lst], ts + EPS_US) if lst else 0
            inside = any(lst[q][0] - EPS_US <= ts <= lst[q][1] + EPS_US for q in range(max(0, j - 64), j))
            c.check(inside, f"flow {fid}: {ph} point at {ts} is inside no slice of pid {key[0]} tid {key[1]}")
    c.notes.append("events by phase: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    c.notes.append(f"{sum(len(v) for v in slices.values())} slices on {len(slices)} threads, {len(counters)} counter "
                   f"tracks, {len(flows)} flows")
    return slices, names, flows


def check_request(events, names, flows, results, want, c):
    summary = json.load(open(f"{results}/summary.json"))
    gpn = summary["config"]["topology"]["gpus_per_node"]
    rows = {int(r["id"]): r for r in csv.DictReader(open(f"{results}/requests.csv"))}
    traced = sorted({fid for (_, fid) in flows})
    if want is None:
        cands = [i for i in traced if int(rows[i]["hit"]) > 0 and float(rows[i]["read_end"]) > float(rows[i]["read_start"])]
        de = [i for i in cands if rows[i]["read_side"] == "de"]
        if not c.check(cands, "no traced request with a storage read"):
            return
        want = (de or cands)[0]
    r = rows[want]
    side, pe, de_gpu = r["read_side"], int(r["pe"]), int(r["de"])
    node = (pe if side == "pe" else de_gpu) // gpn
    tname = lambda e: names["thread"].get((e["pid"], e.get("tid")), "")
    pname = lambda e: names["process"].get(e["pid"], "")
    reads = [e for e in events if e.get("ph") == "X" and e.get("name") == "storage read"
             and e.get("args", {}).get("request") == want]
    if c.check(len(reads) == 1, f"request {want}: {len(reads)} storage read slices, expected 1"):
        e = reads[0]
        ok = tname(e).startswith(f"snic{node} read") and pname(e).startswith(f"node {node} ")
        c.check(ok, f"request {want}: read on '{pname(e)}' / '{tname(e)}', expected node {node}'s snic{node} read track")
        c.check(abs(e["ts"] - float(r["read_start"]) * 1e6) < 1 and
                abs(e["ts"] + e["dur"] - float(r["read_end"]) * 1e6) < 1,
                f"request {want}: read slice times differ from requests.csv")
        c.notes.append(f"request {want} ({side}-side read, PE GPU {pe}, DE GPU {de_gpu}): read on "
                       f"'{pname(e)}' / '{tname(e)}' [{e['ts'] / 1e3:.3f} ms, +{e['dur'] / 1e3:.3f} ms]")
    fwd = [e for e in events if e.get("ph") == "X" and e.get("name") == "forward"
           and want in e.get("args", {}).get("request_ids", [])]
    if not c.check(fwd, f"request {want}: in no forward slice"):
        return
    # The buffer side of a transfer is a node: which of its CNICs reaches the buffer is the core's choice
    # (sim.kv_port: the decode engine's, or the one at the PE GPU's local index).
    src_node = (pe if side == "pe" else de_gpu) // gpn
    de_node = de_gpu // gpn
    for f in fwd:
        fid, stages = f["args"]["forward"], f["args"]["stages"]
        kv = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kv" and e["args"].get("forward") == fid]
        loads = [e for e in kv if e["name"] == "KV load" and e["args"]["dst_gpu"] == pe
                 and e["args"]["src_gpu"] // gpn == src_node]
        sends = [e for e in kv if e["name"] == "KV send" and e["args"]["src_gpu"] == pe
                 and e["args"]["dst_gpu"] // gpn == de_node]
        for what, lst, lane in (("load", loads, ("src_gpu", "rd", "dst_gpu", "wr")),
                                ("send", sends, ("src_gpu", "rd", "dst_gpu", "wr"))):
            seen = collections.defaultdict(set)  # stage -> tracks
            for e in lst:
                seen[e["args"]["stage"]].add(tname(e).split(" #")[0])
            for e in lst:  # each transfer on the CNIC it leaves through and the one it arrives on
                a = e["args"]
                want_tracks = {f"cnic{a[lane[0]]} {lane[1]}", f"cnic{a[lane[2]]} {lane[3]}"}
                c.check(want_tracks <= seen[a["stage"]],
                        f"request {want}: forward {fid} stage {a['stage']} KV {what} not on {sorted(want_tracks)}")
            missing = [s for s in range(stages) if not seen[s]]
            c.check(not missing, f"request {want}: forward {fid} has no KV {what} for stages {missing[:8]}")
        ports = sorted({e["args"]["src_gpu"] for e in loads})
        dests = sorted({e["args"]["dst_gpu"] for e in sends})
        c.notes.append(f"request {want}: forward {fid}: {stages} stage loads cnic{ports} rd -> cnic{pe} wr, "
                       f"{stages} stage sends cnic{pe} rd -> cnic{dests} wr")
    pts = flows.get(("request", want), [])
    c.check(len(pts) >= 4, f"request {want}: flow has {len(pts)} points, expected arrival, read, forward, ...")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--results", help="the run's output folder (requests.csv, summary.json)")
    ap.add_argument("--request", type=int, help="request id to check (default: a traced one with a DE-side read)")
    a = ap.parse_args()
    c = Checker()
    events, doc = load(a.trace)
    c.check(isinstance(events, list) and events, "traceEvents is empty or not a list")
    slices, names, flows = check_format(events, c)
    if a.results:
        check_request(events, names, flows, a.results, a.request, c)
    for n in c.notes:
        print("  " + n)
    for e in c.errors:
        print("FAIL " + e)
    print("trace ok" if not c.errors else f"trace INVALID ({len(c.errors)} problems)")
    return 0 if not c.errors else 1


if __name__ == "__main__":
    sys.exit(main())
