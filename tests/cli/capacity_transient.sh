#!/usr/bin/env bash
# Issue 62: a transient is not reported as a capacity. An agent's reads grow with its context, so the load an arrival
# rate offers keeps rising for about the longest trajectory lifetime, and a TTFT that stays flat meanwhile says
# nothing about the rate. Here DS 27B 1P1D replays a hand-made trace whose trajectories live 2,400 s (40 rounds
# with 60 s of think time each, 1,040 more context tokens every round), so the load still rises when the stop rule
# first compares windows 30 min apart (t = 1,950 s), and the arrivals end at 2,100 s:
#   1. workload.stop = slo-ttft (the paper's words alone) finds a steady state (a flat TTFT, here in the drain);
#   2. workload.stop = slo (the default) does not: the served load's last half-hour is well above the one before,
#      and after the arrivals end nothing is a steady state; the run ends with every agent done;
#   3. `capacity` under slo counts such probes as transients, not passes, says so, and reports no capacity, where
#      the TTFT-only reading reports one; probes shorter than the rule can judge are refused up front (exit 2).
# Usage: capacity_transient.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
python3 - "$tmp/trace.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(16):
        f.write(json.dumps({"id": f"t{i}", "rounds": [[4096, 16, 60]] + [[1024, 16, 60]] * 39}) + "\n")
PY
common=(--set workload.source=file --set "workload.file=$tmp/trace.jsonl" --set workload.mode=online
        --set workload.duration=2100s --set policy.name=basic)
for rule in slo-ttft slo; do
  "$bin" run "$sc" "${common[@]}" --set workload.aps=0.5 --set workload.stop=$rule --quiet --out "$tmp/run_$rule" \
    || { echo "FAIL: run with workload.stop=$rule"; exit 1; }
done
for name in ttft default; do
  folder=$([ $name = ttft ] && echo slo-ttft || echo slo)
  "$bin" capacity "$sc" "${common[@]}" --set workload.aps=0.5 --set workload.stop=$folder --policy basic \
    --resolution 0.2 --no-plot --jobs 2 --out "$tmp/cap_$name" > "$tmp/cap_$name.out" 2> "$tmp/cap_$name.err" \
    || { echo "FAIL: capacity ($name)"; tail -3 "$tmp/cap_$name.err"; exit 1; }
done
rc=0
"$bin" capacity "$sc" "${common[@]}" --set workload.duration=1800s --set workload.aps=0.5 --policy basic --no-plot \
  --out "$tmp/short" > /dev/null 2> "$tmp/short.err" || rc=$?

PYTHONPATH="$root/tests/cli" python3 - "$tmp" "$rc" <<'PY'
import json, sys
from checks import check, done
t, rc = sys.argv[1], int(sys.argv[2])
old = json.load(open(f"{t}/run_slo-ttft/summary.json"))["stop"]
new = json.load(open(f"{t}/run_slo/summary.json"))["stop"]
check(old["ended_by"] == "steady_state",
      f"slo-ttft: a flat TTFT is called a steady state, at t = {old['at_s']:.0f} s ({old['ended_by']})")
check(new["ended_by"] == "all_agents_done", f"slo: no steady state before the arrivals end ({new['ended_by']})")
check(new["rule"] == "slo" and old["rule"] == "slo-ttft", "summary.json names the rule each run used")
r, e = new["load_recent_tokens_per_s"], new["load_earlier_tokens_per_s"]
check(r is not None and e is not None and r > 1.05 * e,
      f"slo: the load still rose at the last check before the arrivals ended ({r:.4g} vs {e:.4g} tokens/s)")
c_old = json.load(open(f"{t}/cap_ttft/capacity.json"))["policies"]["basic"]
c_new = json.load(open(f"{t}/cap_default/capacity.json"))["policies"]["basic"]
check(c_old["capacity_aps"] > 0, f"slo-ttft: the transient is reported as a capacity ({c_old['capacity_aps']:.4g} APS)")
check(c_new["capacity_aps"] == 0, f"slo: no capacity from transients ({c_new['capacity_aps']:.4g} APS)")
check(all(p["transient"] and not p["meets_slo"] for p in c_new["probes"] if p["ended_by"] != "slo_violated"),
      "slo: every probe within the SLO is a transient and counts as a miss")
check(any(p["transient"] for p in c_new["probes"]), "slo: transients were probed")
err = open(f"{t}/cap_default.err").read()
check("transient: within the SLO" in err and "a longer workload.duration decides" in err,
      "each transient probe's line says so and what decides")
short = open(f"{t}/short.err").read().strip()
check(rc == 2 and len(short.splitlines()) == 1 and "/workload/duration" in short and "expected workload.duration > 1950 s" in short,
      f"probes too short for the rule are refused up front, naming the key (exit {rc}): {short}")
done()
PY
