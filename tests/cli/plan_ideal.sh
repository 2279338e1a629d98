#!/usr/bin/env bash
# `plan --objective capacity --ideal` (issue 65 item 4, docs/capacity.md "How far from ideal"): beside each variant's
# best split, the Oracle's capacity on it and the §4.2 read bound. On DS 27B, 3 nodes, short probes (TTFT-only rule):
#   - each variant's best split carries "ideal" in plan.json, and a line under its table;
#   - the Oracle (free KV loads) holds more than the split: its search ran in SPLIT/oracle/ with policy oracle, once
#     for the two variants (they differ only in policy and share their best split);
#   - the read bound is the hand computation: the bytes/s the split's SNICs can read (§4.2: Basic reads through the
#     P prefill SNICs alone, DualPath through all P + D inside the bottleneck-free range; 400 Gbps each) over the
#     bytes an agent read in its probe at the capacity (capacity.json); DualPath's names both SNICs, Basic's the PE
#     SNIC; below the capacity only where the probe ended with every agent finished (a transient), and then says so;
#   - a rerun probes nothing; --ideal with --objective jct or --target-aps is refused (exit 2).
# Usage: plan_ideal.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
online=(--objective capacity --set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s
        --set workload.stop=slo-ttft --slo-ttft 0.3s --jobs 2 --no-plot --resolution 0.05)
"$bin" plan "$sc" --nodes 3 "${online[@]}" --vary policy.name=basic,dualpath --ideal --out "$tmp/p" \
  > "$tmp/p.out" 2> "$tmp/p.err" || { cat "$tmp/p.err"; exit 1; }
"$bin" plan "$sc" --nodes 3 "${online[@]}" --vary policy.name=basic,dualpath --ideal --out "$tmp/p" \
  > "$tmp/again.out" 2> "$tmp/again.err" || exit 1
"$bin" plan "$sc" --nodes 3 --objective jct --ideal --out "$tmp/j" > /dev/null 2> "$tmp/jct.err"
jct_rc=$?
"$bin" plan "$sc" --target-aps 1 "${online[@]}" --ideal --out "$tmp/t" > /dev/null 2> "$tmp/target.err"
target_rc=$?
cat "$tmp/p.out"
PYTHONPATH="$root/tests/cli" python3 - "$tmp" "$jct_rc" "$target_rc" "$root/topologies/hopper-8gpu-80g.json" <<'PY'
import glob, json, os, sys
from checks import check, done
t, jct_rc, target_rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
efficiency = json.load(open(sys.argv[4]))["storage"].get("client_read_efficiency", 1)  # what a client reads of a SNIC
plan = json.load(open(f"{t}/p/plan.json"))
out = open(f"{t}/p.out").read()
snic = 400e9 / 8 * efficiency
oracle_dirs, best_names = set(), set()
for variant, policy in (("policy.name=basic", "basic"), ("policy.name=dualpath", "dualpath")):
    splits = [s for s in plan["splits"] if s.get("variant") == variant]
    best = max((s for s in splits if s.get("capacity_aps")), key=lambda s: s["capacity_aps"])
    ideal = best.get("ideal")
    if not check(ideal is not None, f"{policy}: its best split {best['P']}P{best['D']}D carries 'ideal'"):
        continue
    check(sum("ideal" in s for s in splits) == 1, f"{policy}: only the best split does")
    name = f"{best['P']}P{best['D']}D"
    check(f"ideal on {name}: holds" in out, f"{policy}: the line under its table")
    folder = glob.glob(f"{t}/p/splits/*-{variant}/{name}")[0]
    odir = ideal.get("oracle_dir", "")
    oracle = json.load(open(f"{odir}/capacity.json"))["policies"].get("oracle") if odir else None
    check(oracle is not None and os.path.isdir(f"{odir}/probes/oracle") and odir.endswith(f"/{name}/oracle"),
          f"{policy}: the Oracle's search ran in {odir} with policy oracle")
    oracle_dirs.add(odir)
    best_names.add(name)
    check(ideal["oracle_aps"] is not None and ideal["oracle_aps"] > best["capacity_aps"],
          f"{policy}: free KV loads hold more ({ideal['oracle_aps']} > {best['capacity_aps']} APS)")
    cap = json.load(open(f"{folder}/capacity.json"))["policies"][policy]
    probe = [p for p in cap["probes"] if abs(p["aps"] - best["capacity_aps"]) < 1e-9][0]
    snics = best["P"] if policy == "basic" else best["P"] + best["D"]
    want = snics * snic / probe["read_per_agent"]
    check(abs(ideal["read_bound_aps"] / want - 1) < 1e-9,
          f"{policy}: read bound {ideal['read_bound_aps']:.4f} = {snics} SNICs x 50 GB/s x {efficiency} / "
          f"{probe['read_per_agent']:.4g} B read per agent = {want:.4f} APS")
    # These 300-s probes end with every agent finished (a lower bound): the bound falls below what they held, and the
    # line says why. A steady-state capacity sits below its bound.
    below = ideal["read_bound_aps"] < best["capacity_aps"]
    check(not below or (best["lower_bound"] and "below what it held" in out),
          f"{policy}: below the capacity ({below}) only for a lower-bound probe, and the line says so")
    links = "PE SNIC" if policy == "basic" else "PE SNIC, DE SNIC"
    check(ideal["read_bound_link"] == links, f"{policy}: full first: {ideal['read_bound_link']} (expected {links})")
# Variants that differ only in policy run the same Oracle on the same best split: one search per best split.
check(len(oracle_dirs) == len(best_names) == len(glob.glob(f"{t}/p/splits/*/*/oracle")),
      f"one Oracle search per best split ({sorted(best_names)}), not per variant: {sorted(oracle_dirs)}")
again = open(f"{t}/again.err").read()
check(" APS meets" not in again and " APS misses" not in again and "probe(s) run" not in again,
      "a rerun probes nothing (no verdict printed)")
check(open(f"{t}/again.out").read() == out, "and prints the same plan")
check(jct_rc == 2 and "--ideal" in open(f"{t}/jct.err").read(), f"--ideal with --objective jct: exit {jct_rc}")
check(target_rc == 2 and "--ideal" in open(f"{t}/target.err").read(), f"--ideal with --target-aps: exit {target_rc}")
done()
PY
