#!/usr/bin/env bash
# Every registered policy on every bundled scenario runs to its end: every round completes exactly once and the run
# exits 0 (a stall, "the simulation ran out of work", exits 1). A bundled scenario under a policy that no test ran
# once hid a deadlock of split reads (Qwen 32B 1P2D, dualpath-split, stalled after ~500 simulated s with 21,181
# rounds undone). The policy list is the one `--policy` knows, so a new policy joins the matrix by itself. DS 660B
# 2P4D offline is cut at 300 simulated seconds (its whole run takes minutes per policy); the others run whole.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
policies=$({ "$bin" run "$root/scenarios/default.json" --policy no-such-policy --out "$tmp/x" 2>&1 || true; } \
  | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ' ')
[ -n "$policies" ] || { echo "FAIL: could not list the registered policies"; exit 1; }
echo "policies: $policies"
for scen in "$root"/scenarios/*.json; do
  name=$(basename "$scen" .json)
  case "$name" in schema | overlay.schema) continue ;; esac
  cut=(); [ "$name" = ds660b-2p4d ] && cut=(--set "sim.time_limit=300 s")
  # The online scenario ships 7,200 s of arrivals for capacity probes; 600 s run every policy through its rounds.
  [ "$name" = ds660b-2p4d-online ] && cut=(--set "workload.duration=600 s")
  if ! "$bin" run "$scen" --quiet --policy "$policies" "${cut[@]}" --out "$tmp/$name" 2> "$tmp/err"; then
    echo "FAIL $name: $(cat "$tmp/err")"; exit 1
  fi
done
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"
"$py" - "$tmp" "$policies" <<'PY'
import os, sys
from checks import check, done, load_run
t, policies = sys.argv[1], sys.argv[2].split(",")
for name in sorted(os.listdir(t)):
    if not os.path.isdir(f"{t}/{name}"):
        continue
    for p in policies:
        s, rows = load_run(f"{t}/{name}/{p}")
        kept = [r for r in rows if float(r["done"]) >= 0]
        once = len({(r["agent"], r["round"]) for r in kept}) == len(kept)
        if s["complete"]:
            check(once and s["results"]["rounds"] == s["rounds_total"] == len(kept),
                  f"{name} {p}: all {s['rounds_total']} rounds complete, each once")
        else:
            check(name == "ds660b-2p4d" and once and len(kept) > 0,
                  f"{name} {p}: cut at 300 s with {len(kept)} of {s['rounds_total']} rounds done, each once")
done()
PY
