#!/usr/bin/env bash
# dualpath trace convert/stats --from mooncake on the FAST'25 conversation trace: the output is a valid native trace
# with arrivals, its chain counts match what stats reports on the source, and conversion is deterministic.
# Exits 77 (ctest: skipped) when ../shared/traces is absent, as in a plain clone.
# Usage: trace_mooncake.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mc="$root/../shared/traces/mooncake_fast25/conversation_trace.jsonl"
[[ -f $mc ]] || { echo "SKIP: $mc not found (the Mooncake trace lives in ../shared beside the clone)"; exit 77; }
"$bin" trace convert --from mooncake --reuse prefix "$mc" -o "$tmp/mcp.jsonl" 2>"$tmp/conv.err"
grep -qF "12031 requests into 8190 trajectories (2011 multi-turn chains, 8189 sharing an earlier chain's prefix); reusable prefix share 37.36%" "$tmp/conv.err" \
  || fail "unexpected conversion summary: $(cat "$tmp/conv.err")"
"$bin" trace stats --json "$tmp/mcp.jsonl" | grep -qF '"trajectories":8190,"rounds":12031,"multi_turn_trajectories":2011' \
  || fail "converted trace does not read back with the same counts"
# With block hashes (the default): 337 requests shorter than their chain's rebuilt context start chains of their own.
"$bin" trace convert --from mooncake "$mc" -o "$tmp/mc.jsonl" 2>"$tmp/conv.err"
grep -qF "12031 requests into 8523 trajectories (1929 multi-turn chains, block hashes on each); reusable prefix share 37.36%" "$tmp/conv.err" \
  || fail "unexpected conversion summary with hashes: $(cat "$tmp/conv.err")"
"$bin" trace stats --json "$tmp/mc.jsonl" | grep -qF '"trajectories":8523,"rounds":12031,"multi_turn_trajectories":1929' \
  || fail "converted trace (hashes) does not read back with the same counts"
# Exact addressing: replayed with only prompt blocks persisted, the hit rate is the trace's own share at 512-token
# whole blocks (37.34% both); at 64-token blocks the replay finds more (37.89% vs 37.36%): a request's last, partial
# 512-token block is re-hashed once the next turn fills it, so the trace's ids cannot say that its first 64-token
# pieces are the same tokens, while a trajectory's rounds do.
for bt in 512 64; do
  "$bin" trace stats --from mooncake --json --block-tokens $bt "$mc" > "$tmp/stats$bt.json"
done
python3 - "$tmp/stats512.json" "$tmp/stats64.json" <<'PY' || fail "hash addressing is not exact"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
pa, sa = a["replay"]["prompt_only_kv_hit_rate"], a["mooncake"]["reusable_share_at_block_tokens"]
pb, sb = b["replay"]["prompt_only_kv_hit_rate"], b["mooncake"]["reusable_share_at_block_tokens"]
print(f"512: prompt-only replay {pa:.4f} vs share {sa:.4f}; 64: {pb:.4f} vs {sb:.4f}")
sys.exit(0 if abs(pa - sa) <= 0.0005 and 0 <= pb - sb <= 0.01 else 1)
PY
"$bin" trace stats --from mooncake --json "$mc" | grep -qF '"reusable_prefix_share":0.37362' || fail "reusable share changed"
"$bin" trace convert --from mooncake "$mc" -o "$tmp/mc2.jsonl" 2>/dev/null
cmp -s "$tmp/mc.jsonl" "$tmp/mc2.jsonl" || fail "conversion is not deterministic"
# Issue 18's acceptance: replayed at the trace's own arrivals with Mooncake's 512-token blocks, the simulated KV hit
# rate is the trace's reusable share within 1 point (37.36%; 38.20% measured with hashes, 38.28% with prefixes:
# decode output that fills a block is reused in the simulator, never in Mooncake's prompt-block hashes; the
# prompt-only replay above shows the addressing itself exact). Without the shared prefixes it was ~28%.
"$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run" --set policy.name=basic --set policy.block_tokens=512 \
  --set workload.source=file --set "workload.file=$tmp/mc.jsonl" --set workload.mode=online --set workload.aps=0 \
  --set 'workload.duration=0 s'
python3 - "$tmp/run/summary.json" <<'PY' || fail "simulated hit rate too far from the reusable share"
import json, sys
s = json.load(open(sys.argv[1]))
hit = s["reuse"]["kv_hit_rate"]
print(f"simulated KV hit rate {hit:.4f} vs reusable share 0.3736")
sys.exit(0 if abs(hit - 0.3736) <= 0.01 and s["results"]["rounds"] == 12031 else 1)
PY
echo "Mooncake conversion passed"
