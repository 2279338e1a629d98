#!/usr/bin/env bash
# dualpath trace gen | stats on good inputs: determinism, Table 2 numbers (Mooncake conversion: trace_mooncake.sh).
# Usage: trace_gen.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Same seed, same bytes (stdout and -o agree); another seed differs.
"$bin" trace gen --profile 64k --reading rounds --trajectories 500 --seed 1 -o "$tmp/a.jsonl"
"$bin" trace gen --profile 64k --reading rounds --trajectories 500 --seed 1 >"$tmp/b.jsonl"
"$bin" trace gen --profile 64k --reading rounds --trajectories 500 --seed 2 -o "$tmp/c.jsonl"
cmp -s "$tmp/a.jsonl" "$tmp/b.jsonl" || fail "same seed gave different bytes"
! cmp -s "$tmp/a.jsonl" "$tmp/c.jsonl" || fail "different seeds gave the same bytes"
[[ $(wc -l <"$tmp/a.jsonl") -eq 500 ]] || fail "expected 500 lines"

# Stats JSON of the round-weighted reading: 64k hit rate 98.7% +- 0.3 and turns within 5% of 157.
"$bin" trace stats --json "$tmp/a.jsonl" >"$tmp/s.json"
python3 - "$tmp/s.json" <<'PY' || fail "64k statistics off Table 2"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["trajectories"] == 500, s
assert abs(s["kv_hit_rate"] - 0.987) <= 0.003, s
for key, paper in (("turns", 157), ("append_per_turn", 429), ("gen_per_turn", 176), ("context", 32721), ("total", 55958)):
    assert abs(s[key] / paper - 1) <= 0.05, (key, s[key], paper)
PY

# The trajectory-weighted reading (the default): its own columns match Table 2, with ~1.7x the rounds.
"$bin" trace gen --profile 64k --trajectories 500 --seed 1 -o "$tmp/t.jsonl"  # the default reading
"$bin" trace stats --json "$tmp/t.jsonl" >"$tmp/t.json"
python3 - "$tmp/s.json" "$tmp/t.json" <<'PY' || fail "64k trajectory-reading statistics off Table 2"
import json, sys
r, t = (json.load(open(f)) for f in sys.argv[1:3])
for key, paper in (("turns_per_trajectory", 157), ("append_traj_mean", 429), ("gen_traj_mean", 176),
                   ("context_traj_mean", 32721), ("total", 55958)):
    assert abs(t[key] / paper - 1) <= 0.05, (key, t[key], paper)
assert 1.6 <= t["rounds"] / r["rounds"] <= 1.8, (t["rounds"], r["rounds"])
PY

# trace calibrate confirms the stored levers: from them, the columns are within 0.5% of the paper's row.
"$bin" trace calibrate --profile 32k --reading trajectories --seeds 4 --trajectories 200 --json >"$tmp/cal.json"
python3 - "$tmp/cal.json" <<'PY' || fail "trace calibrate output"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["profile"] == "32k" and c["reading"] == "trajectories", c
assert c["worst_error"] <= 0.005, c
assert set(c["levers"]) == {"turns_median", "append_median", "append_traj_sigma", "first_median", "gen_median"}, c
for col in c["columns"].values():
    assert abs(col["model"] / col["paper"] - 1) <= 0.005, c
PY

# "-" reads standard input.
"$bin" trace gen --profile 32k --trajectories 20 | "$bin" trace stats - | grep -q "trajectories: *20 " || fail "stats -"

# The bundled example is a valid native trace; its stats text names every Table 2 column.
"$bin" trace stats "$root/traces/example.jsonl" >"$tmp/ex.txt"
for col in "turns:" "append/turn:" "gen/turn:" "total tokens:" "context:" "KV hit rate:"; do
  grep -qF "$col" "$tmp/ex.txt" || fail "stats text lacks '$col'"
done
grep -q "trajectories: *2 " "$tmp/ex.txt" || fail "example should have 2 trajectories"

echo "trace gen/stats passed"
