#!/usr/bin/env bash
# `plan --target-aps` where the answer is known in closed form (issue 65 acceptance; docs/capacity.md "The inverse
# question"): the I/O-bound cluster of tests/cli/capacity_closed_form.sh. DS 27B with 50 Gbps SNICs replays a
# hand-made trace of short trajectories whose hit KV per agent is known exactly (b bytes), so reading it is the only
# heavy work and one SNIC holds at most S / b agents per second (S = 50 Gbps x the storage client's efficiency).
# The §4.2 read paths then give the fewest nodes for X agents per second:
#   Basic:    only prefill SNICs read: P = ceil(X b / S) prefill nodes and one decode node -> ceil(X b / S) + 1
#   DualPath: every SNIC reads (inside the bottleneck-free range): max(2, ceil(X b / S)) nodes
# Targets are taken at 75% of the bound of the answer's SNICs (the capacity search lands within 5% of the bound),
# and the count below must fail: a model that lost the DE read path, or read the hit twice, answers otherwise.
# Usage: plan_target_closed_form.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"

python3 "$root/tests/cli/lib/io_bound_trace.py" "$tmp/trace.jsonl"
# One SNIC holds 6.912 APS of this trace (docs/capacity.md "Against a closed form"). 10.4 APS needs two SNICs, 15.6
# three (75% of their bounds).
for x in 10.4 15.6; do
  "$bin" plan "$sc" --target-aps $x --objective capacity --vary policy.name=basic,dualpath --max-nodes 8 \
    --set workload.source=file --set "workload.file=$tmp/trace.jsonl" --set workload.mode=online \
    --set workload.aps=4 --set workload.duration=2400s --set policy.block_tokens=64 --set 'topology.snic_bw="50 Gbps"' \
    --slo-ttft 1s --jobs 2 --no-plot --out "$tmp/x$x" > "$tmp/x$x.out" 2> "$tmp/x$x.err" \
    || { echo "FAIL plan --target-aps $x:"; tail -5 "$tmp/x$x.err"; exit 1; }
done

PYTHONPATH="$root/tests/cli:$root/tests/cli/lib" python3 - "$tmp" "$root/models/ds-27b.json" "$root/topologies/hopper-8gpu-80g.json" <<'PY'
import json, math, sys
from checks import check, done
from io_bound_trace import per_agent_bytes
t, model_file, topology_file = sys.argv[1], sys.argv[2], sys.argv[3]
per_agent = per_agent_bytes(f"{t}/trace.jsonl", model_file)
efficiency = json.load(open(topology_file))["storage"].get("client_read_efficiency", 1)
one_snic = 50e9 / 8 * efficiency / per_agent  # APS one SNIC holds at most
for x in ("10.4", "15.6"):
    snics = math.ceil(float(x) / one_snic)
    want = {"basic": snics + 1, "dualpath": max(2, snics)}
    p = json.load(open(f"{t}/x{x}/plan.json"))
    got = {v["policy"]: v for v in p["variants"]}
    for policy, n in want.items():
        v = got[policy]
        below = n - 1 if n > 2 else None  # 2 nodes (one P, one D) is the smallest cluster
        check(v["nodes"] == n and v["largest_failing_nodes"] == below,
              f"{x} APS ({snics} SNICs of {one_snic:.3f} APS): {policy} needs {n} nodes, {below} fail; "
              f"answered {v['nodes']}, {v['largest_failing_nodes']} fail")
    basic_holding = [h["split"] for h in got["basic"]["holding_splits"]]
    check(basic_holding == [f"{snics}P1D"], f"{x} APS: Basic holds only with {snics} prefill SNICs: {basic_holding}")
done()
PY
