#!/usr/bin/env python3
"""Every value docs/configuration.md calls valid for a scenario key is accepted, and the first value past each
documented bound is refused (issue 18: `aps = 0` and `agents = 0` were documented but refused by the loader).

Reads the key tables of the scenario sections (deployment, workload, policy, outputs and sim), derives values from
each row's unit column, and runs `dualpath check SCENARIO --set key=value` for each:
  `a` | `b`            every listed value is accepted
  count/integer/tokens >= N   N accepted, N - 1 refused
  number >= N          N accepted, N - 0.5 refused;   number > N: N refused, N + 0.5 accepted
  duration >= X        X accepted;   duration > 0: "0 s" refused, "1 s" accepted;   bytes >= N: "N B" accepted, "N-1 B" refused
  "(>= V with `k` = w)" the bound V is accepted once k is set to w
Rows of other kinds (paths, booleans, patterns) are not checked here. The other way round, a row that lists its
values must list every value the loader accepts: a value that is none of them is refused, and the loader's list
("expected one of ...") and the schema's enum (scenarios/schema.json) are the documented list, so a new choice (a
fault kind, a buffer lifecycle) cannot be added to the code alone. Usage: documented_values.py DUALPATH REPO
"""
import json
import re
import subprocess
import sys

dualpath, repo = sys.argv[1], sys.argv[2]
scenario = f"{repo}/scenarios/default.json"
# Settings a value needs to be meaningful: workload keys are checked on an online run (the stop rule and the
# online keys apply), with the offline key present too.
CONTEXT = {
    "workload.": ["workload.mode=online", "workload.aps=1", "workload.duration=10 s", "workload.agents=1"],
}
NEEDS = {
    "workload.source=file": [f"workload.file={repo}/traces/example.jsonl"],
    # Replaying the trace's own arrivals needs a trace that has them.
    "workload.aps=0": ["workload.source=file", f"workload.file={repo}/traces/shared-prefix.jsonl"],
}

sections = {"`deployment`": "deployment.", "`workload`": "workload.", "`policy`": "policy.",
            "`outputs` and `sim`": "", "`faults`": "faults."}
# A fault's field is checked inside a whole fault that is valid apart from it (a degrade of node 0's SNIC).
FAULT = {"kind": "snic-degrade", "node": 0, "factor": 0.5, "at": "1 s"}


def fault_set(key, value):
    field = key.split(".", 1)[1]
    entry = dict(FAULT)
    try:
        entry[field] = int(value) if re.fullmatch(r"-?\d+", value) else float(value) if field == "factor" else value
    except ValueError:
        entry[field] = value
    if field == "gpu" or entry["kind"] == "cnic-down":  # only cnic-down names a GPU
        entry = {"kind": "cnic-down", "node": 0, "gpu": entry.get("gpu", 0), "at": entry["at"]}
    if entry["kind"] in ("snic-down", "node-down"):
        entry.pop("factor", None)
    if entry["kind"] == "storage-degrade":
        entry.pop("node", None)
    return "faults=" + json.dumps([entry])


schema = json.load(open(f"{repo}/scenarios/schema.json", encoding="utf-8"))


def schema_enum(key):
    """The enum scenarios/schema.json gives `key` (dotted; faults.F is a field of each fault), or None."""
    node = schema
    for part in key.split("."):
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].split("/")[-1]]
        if node.get("type") == "array":
            node = node["items"]
        node = node.get("properties", {}).get(part)
        if node is None:
            return None
    return node.get("enum")


def check(key, value, extra=()):
    sets = []
    for prefix, ctx in CONTEXT.items():
        if key.startswith(prefix):
            sets += ctx
    for s in list(extra) + [fault_set(key, value) if key.startswith("faults.") else f"{key}={value}"]:
        sets += NEEDS.get(s, []) + [s]
    args = [dualpath, "check", scenario]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def rows():
    prefix = None
    for line in open(f"{repo}/docs/configuration.md", encoding="utf-8"):
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            prefix = sections.get(title) if line.startswith("### ") else None
            continue
        if prefix is None or not line.startswith("| `"):
            continue
        cols = [c.strip() for c in line.strip().strip("|").split(" | ")]
        keys = re.findall(r"`([^`]+)`", cols[0])
        for k in keys:
            yield prefix + k, cols[1]


def cases(unit):
    """(value, expect_ok, extra settings) for one unit cell."""
    out = []
    if "\\|" in unit:
        for v in re.findall(r"`([^`]+)`", unit):
            out.append((v.strip('"'), True, ()))
        return out
    m = re.match(r"(count|integer|tokens) ≥ (-?\d+)", unit)
    if m:
        n = int(m.group(2))
        return [(str(n), True, ()), (str(n - 1), False, ())]
    m = re.match(r"number ≥ (-?[\d.]+)", unit)
    if m:
        n = float(m.group(1))
        out = [(m.group(1), True, ()), (str(n - 0.5), False, ())]
    m2 = re.match(r"number > (-?[\d.]+)", unit)
    if m2:
        n = float(m2.group(1))
        out = [(m2.group(1), False, ()), (str(n + 0.5), True, ())]
    m3 = re.match(r"duration ≥ (\S+(?: \S+)?)", unit)
    if m3 and not out:
        v = m3.group(1).split(" (")[0]
        out = [(v if " " in v else v + " s", True, ())]
    if unit.startswith("duration > 0"):
        out = [("0 s", False, ()), ("1 s", True, ())]
    m5 = re.match(r"bytes ≥ (\d+)", unit)
    if m5:
        n = int(m5.group(1))
        out = [(f"{n} B", True, ()), (f"{n - 1} B", False, ())]
    m4 = re.search(r"\(≥ (\S+) with `([\w.]+)` = (\S+)\)", unit)
    if m4:
        out.append((m4.group(1) + " s" if unit.startswith("duration") else m4.group(1), True,
                    (f"{m4.group(2) if '.' in m4.group(2) else 'workload.' + m4.group(2)}={m4.group(3)}",)))
    return out


failures, checked = [], 0
for key, unit in rows():
    if "\\|" in unit:
        listed = {v.strip('"') for v in re.findall(r"`([^`]+)`", unit)}
        rc, err = check(key, "zz-none-of-them")
        m = re.search(r"expected one of (.*), found", err)
        loader = set(re.findall(r'"([^"]+)"', m.group(1))) if m else None
        enum = schema_enum(key)
        checked += 1
        if rc != 2 or loader is None:
            failures.append(f"{key}=zz-none-of-them: expected exit 2 and the loader's list of values, got exit {rc}: {err}")
        elif loader != listed:
            failures.append(f"{key}: docs/configuration.md lists {sorted(listed)}, the loader accepts {sorted(loader)}")
        if enum is not None and set(enum) != listed:
            failures.append(f"{key}: docs/configuration.md lists {sorted(listed)}, scenarios/schema.json {sorted(enum)}")
    for value, ok, extra in cases(unit):
        rc, err = check(key, value, extra)
        checked += 1
        if "-v" in sys.argv:
            print(f"  {key}={value} {' '.join(extra)}: expect {'ok' if ok else 'refused'}, exit {rc}")
        if (rc == 0) != ok:
            failures.append(f"{key}={value} {'with ' + ', '.join(extra) + ' ' if extra else ''}"
                            f"({unit}): expected {'accepted' if ok else 'refused'}, got exit {rc}: {err}")
        elif not ok and rc != 2:
            failures.append(f"{key}={value}: refused with exit {rc}, expected 2: {err}")

print(f"documented_values: {checked} values checked from docs/configuration.md")
for f in failures:
    print("FAIL:", f)
# A parser that silently stopped matching the tables would check nothing: there are well over 40 such values.
if checked < 40:
    print(f"FAIL: only {checked} values found in docs/configuration.md; the table parser no longer matches")
    sys.exit(1)
sys.exit(1 if failures else 0)
