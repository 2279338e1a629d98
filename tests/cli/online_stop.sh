#!/usr/bin/env bash
# The paper's online stop rule (workload.stop = "slo", docs/configuration.md) in the simulator: an overloaded
# online run ends when the 150-s TTFT window mean passes the SLO, well before its arrivals stop; a light one ends
# at steady state after 30 min + 150 s; summary.json says which rule ended it, when, and the SLO it judged by.
# Usage: online_stop.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
online=(--set workload.mode=online --set workload.stop=slo --quiet)
"$bin" run "$sc" "${online[@]}" --set workload.aps=6 --set workload.duration=3000s --out "$tmp/over" || exit 1
# Light load reaches steady state once agents finish as fast as they arrive, i.e. after about one trajectory's
# lifetime + 30 min; the round-weighted reading's shorter trajectories (docs/workload.md) get there within 4000 s.
"$bin" run "$sc" "${online[@]}" --set workload.aps=1 --set workload.duration=4000s \
  --set workload.table2_reading=rounds --out "$tmp/light" || exit 1
"$bin" run "$sc" "${online[@]}" --set workload.aps=1 --set workload.duration=300s --set slo.ttft=0.05s \
  --out "$tmp/tight" || exit 1
"$bin" run "$sc" --set workload.mode=online --set workload.aps=1 --set workload.duration=100s \
  --out "$tmp/none" > "$tmp/none.out" 2>&1 || exit 1
PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import json, sys
from checks import check, done
t = sys.argv[1]
s = {k: json.load(open(f"{t}/{k}/summary.json")) for k in ("over", "light", "tight", "none")}
o, l, g = s["over"]["stop"], s["light"]["stop"], s["tight"]["stop"]
check(o["ended_by"] == "slo_violated" and 150 <= o["at_s"] < 3000,
      f"overload: ended by the SLO at {o['at_s']:.0f} s, before arrivals stop at 3000 s")
check(o["ttft_window_mean_s"] > 4.0, f"overload: window mean TTFT {o['ttft_window_mean_s']:.2f} s > 4 s")
check(not s["over"]["complete"], "overload: the run is marked incomplete")
check(l["ended_by"] == "steady_state" and 1950 <= l["at_s"] < 4000,
      f"light load: steady state at {l['at_s']:.0f} s (>= 30 min + 150 s)")
m, b = l["ttft_window_mean_s"], l["ttft_lookback_mean_s"]
check(b is not None and abs(m - b) < 0.05 * b, f"light load: window mean {m:.4f} s within 5% of {b:.4f} s 30 min earlier")
check(g["ended_by"] == "slo_violated" and s["tight"]["results"]["slo"]["ttft_limit_s"] == 0.05,
      "slo.ttft = 50 ms: the rule and the summary's SLO use it")
check("stop" not in s["none"] and s["none"]["complete"], "workload.stop = none: runs to the end, no stop section")
# Issue 62: an online run reports the mean trajectory completion time T and the working set lambda*T*L/2 with the
# KV bytes per token it loaded (DS 27B: 30 x (656 + 68) B, the indexer keys counted), in summary.json and run's table.
w = s["none"]["working_set"]
check(w["kv_bytes_per_token"] == 30 * (656 + 68), f"working_set.kv_bytes_per_token {w['kv_bytes_per_token']}")
law = w["agents_per_s"] * w["mean_lifetime_s"] * w["mean_final_tokens"] / 2 * w["kv_bytes_per_token"]
check(abs(w["law_bytes"] - law) <= 1e-9 * law, "working_set.law_bytes = lambda * T * L / 2 * bytes per token")
out = open(f"{t}/none.out").read()
line = next((l for l in out.splitlines() if l.startswith("Trajectories (dualpath): mean completion time T ")), "")
check(f"{w['mean_lifetime_s']:.0f} s over {w['agents']} agents" in line and f"{w['law_bytes'] / 1e9:.1f} GB at 21720 B/token" in line,
      f"run's table prints T and the working set: {line!r}")
done()
PY
