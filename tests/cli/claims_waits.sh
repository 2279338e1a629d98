#!/usr/bin/env bash
# The "what binds" report and the paper's ablation order (docs/fidelity.md) on a small DS 660B 2P4D case:
# - every run's wait shares add up: the TTFT causes' request-seconds equal the sum of TTFTs in requests.csv, the
#   round causes' the sum of round lifetimes, and the shares by cause and by resource each sum to 1;
# - each ablation step cuts JCT: basic -> +layerwise -> +dual path (alternating sides) -> +scheduler (dualpath).
set -euo pipefail
bin="$1"; root="$2"
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
S="$root/scenarios/ds660b-2p4d.json"
small=(--set workload.agents=256 --set workload.trajectories=64 --quiet)
"$bin" run "$S" --set policy.name=basic "${small[@]}" --out "$tmp/basic" &
"$bin" run "$S" --set policy.name=basic --set policy.layerwise=true "${small[@]}" --out "$tmp/layerwise"
wait
"$bin" run "$S" --set policy.name=basic --set policy.layerwise=true --set policy.dual_path=true "${small[@]}" \
  --out "$tmp/dual_path" &
"$bin" run "$S" --set policy.name=dualpath "${small[@]}" --out "$tmp/scheduler"
wait
"$py" - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
from checks import check, done
jct = {}
for step in ("basic", "layerwise", "dual_path", "scheduler"):
    s = json.load(open(f"{d}/{step}/summary.json"))
    jct[step] = s["results"]["jct_s"]
    w = s["waits"]
    ttft = life = 0.0
    with open(f"{d}/{step}/requests.csv") as f:
        for r in csv.DictReader(f):
            ttft += float(r["first_token"]) - float(r["arrival"])
            life += float(r["done"]) - float(r["arrival"])
    for part, want in (("ttft", ttft), ("round", life)):
        got = w[part]["request_seconds"]
        check(abs(got - want) <= 1e-6 * want, f"{step}: {part} causes add up to {got:.1f} request-s (requests.csv: {want:.1f})")
        for key in ("by_cause", "by_resource"):
            total = sum(w[part][key].values())
            check(abs(total - 1) < 1e-9, f"{step}: {part} shares {key} sum to {total:.12f}")
    print(f"     {step}: JCT {jct[step]:.1f} s, binds {w['ttft']['binds']}")
steps = list(jct)
for a, b in zip(steps, steps[1:]):
    check(jct[b] < jct[a], f"adding {b} cuts JCT: {jct[a]:.1f} s -> {jct[b]:.1f} s")
done()
PY
