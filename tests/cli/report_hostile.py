"""The report scripts on damaged and hostile files (issue 80): Hypothesis changes one value anywhere in a real
plan.json (forward, priced, unvaried; and the inverse question's), capacity.json or run summary.json (a value of
another type, a huge or tiny number, a deleted key, the document cut short) and the readers either refuse it with
one ResultsError naming the file, or the page, the table or the plot is made from it: no other exception, ever. A
file past the C++ readers' 64 MiB bound is refused before it is read. CI budget: 120 examples per file kind,
derandomized (the same examples every run).
Usage: report_hostile.py <dualpath-binary> <repo-root>   (run by report_hostile.sh, /usr/bin/python3)"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

from hypothesis import HealthCheck, given, settings, strategies as st

bin_, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "analysis"))
import plan_report_html  # noqa: E402
import plot_capacity  # noqa: E402
from json_shapes import MAX_JSON_BYTES, ResultsError  # noqa: E402
from report_html import run_table  # noqa: E402
from results import Run, label_runs  # noqa: E402

tmp = tempfile.mkdtemp()
sc27 = os.path.join(root, "scenarios", "ds27b-1p1d.json")
small = ["--set", "workload.agents=8", "--set", "workload.trajectories=8", "--jobs", "2", "--no-plot"]
online = ["--set", "workload.mode=online", "--set", "workload.aps=0.5", "--set", "workload.duration=300s",
          "--set", "workload.stop=slo-ttft", "--slo-ttft", "0.3s", "--jobs", "2", "--no-plot"]
for args in (["plan", sc27, "--nodes", "3", "--gpu-hour-cost", "12", *small, "--out", f"{tmp}/plan"],
             ["plan", sc27, "--target-aps", "0.5", "--max-nodes", "3", "--objective", "capacity", *online,
              "--out", f"{tmp}/target"],
             ["capacity", sc27, "--policy", "basic", "--resolution", "0.3", *online, "--out", f"{tmp}/cap"],
             ["run", sc27, "--set", "workload.agents=4", "--set", "workload.trajectories=4", "--quiet",
              "--out", f"{tmp}/run"]):
    subprocess.run([bin_, *args], check=True, capture_output=True)

failures = []


def paths(doc, at=()):
    """Every place in a JSON document, as a tuple of keys and indices."""
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths(v, at + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths(v, at + (i,))


VALUES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
                   st.sampled_from([0.0, -1.0, 1e-300, 1.7e308, -1.7e308, 0.5]), st.text(max_size=8),
                   st.just([]), st.just({}), st.just({"x": [1, "a"]}))
EDITS = st.tuples(st.integers(min_value=0, max_value=10 ** 6), st.sampled_from(["set", "delete", "cut"]), VALUES)


def damaged(original, edit):
    """The document with one edit, written as text (or the text cut short)."""
    index, how, value = edit
    doc = copy.deepcopy(original)
    places = list(paths(doc))
    at = places[index % len(places)]
    if how == "cut":
        text = json.dumps(original, indent=2)
        return text[: index % max(1, len(text))]
    if not at:
        doc = value
    else:
        parent = doc
        for k in at[:-1]:
            parent = parent[k]
        if how == "delete" and isinstance(parent, dict):
            del parent[at[-1]]
        else:
            parent[at[-1]] = value
    return json.dumps(doc)


def exercise(kind, folder, file, use):
    original = json.load(open(os.path.join(folder, file)))
    work = os.path.join(tmp, "work-" + kind)

    @settings(max_examples=120, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(EDITS)
    def prop(edit):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(folder, work)
        with open(os.path.join(work, file), "w") as f:
            f.write(damaged(original, edit))
        try:
            use(work)
        except ResultsError as e:
            assert str(e).startswith(os.path.join(work, file)), f"the error names another file: {e}"
        except Exception as e:  # noqa: BLE001 - the property: nothing else escapes
            failures.append(f"{kind}: {edit}: {type(e).__name__}: {e}")
            raise

    try:
        prop()
        print(f"ok   {kind}: 120 damaged {file} files, each refused in one line or drawn")
    except Exception:  # noqa: BLE001
        print(f"FAIL {kind}: {failures[-1] if failures else 'hypothesis failed'}")


def plan_page(folder):
    plan_report_html.write_plan_page(folder, os.path.join(tmp, "page"))


def capacity_plot(folder):
    plot_capacity.main(os.path.join(folder, "capacity.json"), os.path.join(tmp, "cap.png"))


def run_report(folder):
    runs = [Run(folder, folder)]
    label_runs(runs)
    run_table(runs)


os.makedirs(os.path.join(tmp, "page"), exist_ok=True)
exercise("plan page (forward, priced)", f"{tmp}/plan", "plan.json", plan_page)
exercise("plan page (the inverse question)", f"{tmp}/target", "plan.json", plan_page)
exercise("capacity plot", f"{tmp}/cap", "capacity.json", capacity_plot)
exercise("run report table", f"{tmp}/run", "summary.json", run_report)

# Past the bound: refused by its size, before a byte is read (a sparse file: no disk used).
big = os.path.join(tmp, "big")
shutil.copytree(f"{tmp}/plan", big)
with open(os.path.join(big, "plan.json"), "r+b") as f:
    f.truncate(MAX_JSON_BYTES + 1)
try:
    plan_page(big)
    print("FAIL a plan.json past 64 MiB was read")
except ResultsError as e:
    print(("ok   " if "larger than 64 MiB" in str(e) else "FAIL ") + f"a plan.json past 64 MiB: {e}")

# End to end: `dualpath report` on a summary whose policy is a number: exit 2, one line, no traceback.
bad = os.path.join(tmp, "badrun")
shutil.copytree(f"{tmp}/run", bad)
s = json.load(open(os.path.join(bad, "summary.json")))
s["policy"] = 7
json.dump(s, open(os.path.join(bad, "summary.json"), "w"))
p = subprocess.run([bin_, "report", bad, "--out", os.path.join(tmp, "rep")], capture_output=True, text=True)
lines = [l for l in p.stderr.splitlines() if l.strip()]
ok = p.returncode == 2 and len(lines) == 1 and "/policy: expected a string" in lines[0] and "Traceback" not in p.stderr
print(("ok   " if ok else "FAIL ") + f"report on a summary whose policy is a number: exit {p.returncode}, {lines[-1:]}")
shutil.rmtree(tmp, ignore_errors=True)
