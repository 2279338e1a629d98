#!/usr/bin/env bash
# Policy dram-pool (issue 22, docs/dram-pool.md): a distributed DRAM KV pool in front of storage.
#   1. it runs every bundled scenario (their first 120 simulated seconds), and the wait report charges reads the
#      pool serves alone to the pool;
#   2. conservation on the default scenario with a pool small enough to evict (20 GB per node): every round once,
#      hit KV delivered to PE HBM = bytes read from the pool + from storage, every persisted block written through,
#      put - evicted = held at the end, reads through PE SNICs only, no link over 100%, the wait report adds up,
#      byte-identical reruns;
#   3. the working-set law on a synthetic online workload: the share of hit KV the pool serves against its capacity
#      C follows min(1, C/W), W = lambda*T*L/2 (tests/cli/pool_law.py); with eviction off it fails, and (in a build
#      with mutation hooks) so does a FIFO pool;
#   4. bad pool settings are refused with the key named.
set -euo pipefail
bin="$1"; root="$2"
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

# 1. Every bundled scenario.
for sc in "$root"/scenarios/*.json "$root"/hw/scenarios/*.json; do
  case "$(basename "$sc")" in *schema.json) continue ;; esac
  "$bin" run "$sc" --quiet --set policy.name=dram-pool --set sim.time_limit=120s --out "$tmp/all/$(basename "$sc" .json)"
done
"$py" - "$tmp/all" <<'PY'
import glob, json, sys
from checks import check, done
for path in sorted(glob.glob(f"{sys.argv[1]}/*/summary.json")):
    s = json.load(open(path))
    p = s.get("pool")
    ok = p is not None and s["features"]["dram_pool"] and s["results"]["bytes"]["storage_read_de_snic"] == 0
    check(ok and p["occupancy_peak_node_bytes"] <= p["capacity_bytes"] / p["nodes"] * (1 + 1e-9),
          f"{s['scenario']}: runs with the pool ({s['results']['rounds']} rounds in 120 s), PE-side reads only")
    # A 1.5 TB pool serves every hit: the wait report charges reading to the pool, not to the SNIC.
    res = s["waits"]["ttft"]["by_resource"]
    if p["hit_bytes_from_storage"] == 0 and p["hit_bytes_from_pool"] > 0:
        check(res["dram_pool"] > 0 and res["snic"] < 0.01,
              f"{s['scenario']}: reads charged to the pool ({res['dram_pool']:.4f} of TTFT), SNIC {res['snic']:.5f}")
done()
PY

# 2. Conservation, with evictions.
small=(--set policy.name=dram-pool --set "policy.pool.bytes_per_node=20 GB")
"$bin" run "$root/scenarios/default.json" "${small[@]}" --out "$tmp/table" > "$tmp/small.txt"
cat "$tmp/small.txt"
grep -q "DRAM pool (dram-pool, 20 GB/node)" "$tmp/small.txt" \
  || { echo "FAIL the run table has no DRAM pool line"; exit 1; }
"$bin" run "$root/scenarios/default.json" "${small[@]}" --quiet --out "$tmp/small"
"$bin" run "$root/scenarios/default.json" "${small[@]}" --quiet --out "$tmp/again"
for f in summary.json requests.csv links.csv; do
  cmp "$tmp/small/$f" "$tmp/again/$f" || { echo "FAIL $f differs between identical runs"; exit 1; }
done
echo "ok   identical runs give byte-identical outputs"
"$py" - "$tmp/small" <<'PY'
import csv, sys
from checks import check, done, load_run, waits_add_up
s, rows = load_run(sys.argv[1])
p, b = s["pool"], s["results"]["bytes"]
rounds = {(r["agent"], r["round"]) for r in rows if float(r["done"]) >= 0}
check(s["complete"] and len(rows) == len(rounds) == s["rounds_total"], f"every one of {s['rounds_total']} rounds once")
got = p["hit_bytes_from_pool"] + p["hit_bytes_from_storage"]
check(abs(b["hit_loaded_to_pe_hbm"] - got) <= 1e-9 * got,
      f"hit KV delivered {b['hit_loaded_to_pe_hbm']:.6e} B = pool {p['hit_bytes_from_pool']:.6e} + storage "
      f"{p['hit_bytes_from_storage']:.6e}")
check(p["hit_bytes_from_storage"] == b["storage_read"], "the storage part is what the SNICs read")
check(0.05 < p["pool_hit_share"] < 0.95, f"both sources serve hits (pool share {p['pool_hit_share']:.3f})")
check(p["written_bytes"] == b["storage_write"], f"every persisted block is written through ({p['written_bytes']:.6e} B)")
check(abs(p["put_bytes"] + p["refused_bytes"] - p["written_bytes"]) <= 1e-6 * p["written_bytes"],
      "blocks put (+ refused) = blocks written through")
check(p["evicted_bytes"] > 0 and abs(p["put_bytes"] - p["evicted_bytes"] - p["occupancy_end_bytes"]) <= 1e-6 * p["put_bytes"],
      f"put - evicted = held at the end ({p['occupancy_end_bytes']:.6e} B; {p['evicted_bytes']:.3e} B evicted)")
cap = p["capacity_bytes"] / p["nodes"]
check(p["occupancy_peak_node_bytes"] <= cap * (1 + 1e-9), f"no node holds more than its {cap / 1e9:.1f} GB")
check(b["storage_read_de_snic"] == 0 and b["de_to_pe"] == 0, "reads through PE SNICs only (the P side reads, as Basic)")
worst = max(float(r["utilisation"]) for r in csv.DictReader(open(f"{sys.argv[1]}/links.csv")))
check(worst <= 1 + 1e-6, f"max link utilisation {worst:.6f} <= 1")
u = s["waits"]["utilisation"]["dram_pool"]
check(abs(u["hit_share"] - p["pool_hit_share"]) < 1e-12 and u["evicted_bytes"] == p["evicted_bytes"],
      "the wait report's pool figures match summary.json's")
waits_add_up("dram-pool", s, rows)
done()
PY

# 3. The working-set law: DS 27B 1P1D online, 0.5 agents/s for 600 s, distinct trajectories (no shared content).
online=(--quiet --set policy.name=dram-pool --set workload.mode=online --set workload.aps=0.5
        --set workload.duration=600s --set workload.trajectories=1000)
"$bin" run "$root/scenarios/default.json" "${online[@]}" --out "$tmp/law/unbounded"
W=$("$py" "$root/tests/cli/pool_law.py" working-set "$tmp/law/unbounded" 0.5)
nodes=2
law_run() {  # law_run NAME FRACTION [ARGS...]: a run with C = FRACTION x W over the cluster
  local name=$1 f=$2; shift 2
  local per_node; per_node=$("$py" -c "print(f'{$f * $W / $nodes:.0f} B')")
  "$bin" run "$root/scenarios/default.json" "${online[@]}" --set "policy.pool.bytes_per_node=$per_node" "$@" \
    --out "$tmp/law/$name"
}
law_run lru-0.25 0.25
law_run lru-0.5 0.5
law_run lru-2 2
"$py" "$root/tests/cli/pool_law.py" check "$tmp/law/lru-0.25" 0.25 "$tmp/law/lru-0.5" 0.5 "$tmp/law/lru-2" 2
law_run none-0.5 0.5 --set policy.pool.eviction=none
law_run none-2 2 --set policy.pool.eviction=none
echo "(the two FAIL lines below are expected: eviction off)"
if "$py" "$root/tests/cli/pool_law.py" check "$tmp/law/none-0.5" 0.5 "$tmp/law/none-2" 2; then
  echo "FAIL a pool that never evicts follows the working-set law"; exit 1
fi
echo "ok   with eviction off the pool fills with finished agents' blocks and fails the law"
cache="$(dirname "$(dirname "$bin")")/CMakeCache.txt"
if grep -q "DUALPATH_MUTATION:BOOL=ON" "$cache" 2>/dev/null; then
  DUALPATH_MUTANT=pool_fifo_eviction law_run fifo-2 2
  echo "(the FAIL line below is expected: a FIFO pool)"
  if "$py" "$root/tests/cli/pool_law.py" check "$tmp/law/fifo-2" 2; then
    echo "FAIL a FIFO pool (reads do not refresh blocks) follows the working-set law"; exit 1
  fi
  echo "ok   a FIFO pool fails the law"
fi

# 4. Bad settings.
expect_error() {  # expect_error PATTERN ARGS...: exit 2 and PATTERN on stderr
  local pattern=$1; shift
  local rc=0
  "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/bad" "$@" 2> "$tmp/err" || rc=$?
  [ "$rc" -eq 2 ] && grep -q -- "$pattern" "$tmp/err" || { echo "FAIL $* -> exit $rc: $(cat "$tmp/err")"; exit 1; }
  echo "ok   refused: $*"
}
expect_error "policy.dual_path" --set policy.name=dram-pool --set policy.dual_path=true
expect_error "pool/eviction" --set policy.name=dram-pool --set policy.pool.eviction=random
expect_error "pool/bytes_per_node" --set policy.name=dram-pool --set "policy.pool.bytes_per_node=-1 GB"
