#!/usr/bin/env bash
# The cost of a policy written in Python (docs/python.md, "Cost per decision"): DS 660B 2P4D, 2,048 agents, offline,
# DualPath's read rule in C++ (policy dualpath) and the same rule in Python (tests/python/test_policies.py's
# PyDualPath), REPEATS runs each alternating, in one Python process on the release build's package. Prints each
# run's wall time, the medians, the decisions the Python rule took and the cost per decision; and checks that both
# runs' results are equal.
#   bench/python_policy.sh [BUILD_DIR] [REPEATS]     (BUILD_DIR defaults to build/release; REPEATS to 3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
repeats="${2:-3}"
[ -d "$build/python/dualpath" ] || { echo "python_policy: no Python package in $build/python (build it first)" >&2; exit 2; }
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - "$root" "$repeats" <<'PY'
import os, statistics, sys, time
import dualpath as dp

root, repeats = sys.argv[1], int(sys.argv[2])
calls = 0


class PyDualPath(dp.Policy):
    features = {"layerwise": True, "dual_path": True, "scheduler": True}

    def choose_read_side(self, view, request):
        global calls
        calls += 1
        pe = view.node(view.engine(request.pe).node).read_queue_tokens
        de = view.node(view.engine(request.de).node).read_queue_tokens
        return "de" if de < pe else "pe"


dp.register_policy("py-dualpath", PyDualPath)
sc = dp.Scenario(os.path.join(root, "scenarios", "ds660b-2p4d.json"))
walls = {"dualpath": [], "py-dualpath": []}
results = {}
for i in range(repeats):
    for policy in walls:
        calls = 0
        t = time.perf_counter()
        run = dp.run(sc, policy)
        walls[policy].append(time.perf_counter() - t)
        results[policy] = run.summary["results"]
        print(f"run {i + 1}: {policy:12s} {walls[policy][-1]:6.2f} s wall, JCT {run.jct:.1f} s"
              + (f", {calls} decisions in Python" if policy == "py-dualpath" else ""), flush=True)
assert results["dualpath"] == results["py-dualpath"], "the Python rule's results differ from DualPath's"
c, p = statistics.median(walls["dualpath"]), statistics.median(walls["py-dualpath"])
print(f"median wall: dualpath {c:.2f} s, py-dualpath {p:.2f} s (+{100 * (p / c - 1):.1f}%); "
      f"{calls} decisions, {1e6 * (p - c) / calls:.1f} us each; results equal")
PY
