#!/usr/bin/env bash
# `dualpath capacity` against the storage bound in closed form (issue 14, docs/capacity.md "Against a closed form").
# DS 27B 1P1D with a 50 Gbps SNIC per node replays a hand-made trace whose hit KV per agent is known exactly: short
# trajectories (7-13 rounds) of small appends over a 2-6K-token first prompt, so reading the hit KV is the only
# heavy work. Each agent reads sum over rounds of floor(context / 64) * 64 tokens x 21,720 B (30 layers x (656 B
# of MLA KV + 68 B of indexer keys)), and the SNICs that read it, each delivering snic_bw x the storage client's
# read efficiency (topology.storage.client_read_efficiency, read from the bundled topology), bound the rate of
# agents a cluster can serve:
#   Basic:    1 PE SNIC           -> capacity <= snic_bw x efficiency / bytes_per_agent
#   DualPath: 1 PE + 1 DE SNIC    -> capacity <= 2 snic_bw x efficiency / bytes_per_agent
# The search must land within 5% of each bound and at most 1% above it: a model that lost the DE read path, read
# the hit twice or let another resource bind first fails it.
# Doubling the SNIC bandwidth doubles Basic's bound, and the search must follow it.
# Usage: capacity_closed_form.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"

python3 "$root/tests/cli/lib/io_bound_trace.py" "$tmp/trace.jsonl"

search() {  # search <folder> <policy> <snic_bw>
  "$bin" capacity "$sc" --policy "$2" --set workload.source=file --set "workload.file=$tmp/trace.jsonl" \
    --set workload.mode=online --set workload.aps=4 --set workload.duration=2400s --set policy.block_tokens=64 \
    --set "topology.snic_bw=$3" --slo-ttft 1s --resolution 0.01 --no-plot --jobs 2 --out "$tmp/$1" \
    > "$tmp/$1.out" 2>&1 || { echo "FAIL capacity $2 at $3:"; tail -5 "$tmp/$1.out"; exit 1; }
}
search basic basic "50 Gbps"
search dualpath dualpath "50 Gbps"
search basic100 basic "100 Gbps"

PYTHONPATH="$root/tests/cli:$root/tests/cli/lib" python3 - "$tmp" "$root/models/ds-27b.json" "$root/topologies/hopper-8gpu-80g.json" <<'PY'
import json, sys
from checks import check, done
from io_bound_trace import per_agent_bytes
t, model_file, topology_file = sys.argv[1], sys.argv[2], sys.argv[3]
per_agent = per_agent_bytes(f"{t}/trace.jsonl", model_file)
efficiency = json.load(open(topology_file))["storage"].get("client_read_efficiency", 1)
for folder, policy, snic_gbps, snics in (("basic", "basic", 50, 1), ("dualpath", "dualpath", 50, 2),
                                         ("basic100", "basic", 100, 1)):
    bound = snics * snic_gbps * 1e9 / 8 * efficiency / per_agent
    p = json.load(open(f"{t}/{folder}/capacity.json"))["policies"][policy]
    cap = p["capacity_aps"]
    check(bound * 0.95 <= cap <= bound * 1.01,
          f"{policy} at {snic_gbps} Gbps: capacity {cap:.4g} APS within 5% of the SNIC bound {bound:.4g} "
          f"({snics} SNIC x {snic_gbps} Gbps x {efficiency} / {per_agent / 1e6:.1f} MB per agent): "
          f"{100 * (cap / bound - 1):+.1f}%")
    check(p["binds_at_capacity"] == "snic", f"{policy} at {snic_gbps} Gbps: the wait report names the SNIC as binding")
done()
PY
