#!/usr/bin/env bash
# A 24,000-request trace with block hashes (issue 47: "converts and replays in under a minute"): a generated
# Mooncake-format trace (tests/cli/mooncake_gen.py, ~11,000 sessions sharing a few long documents), converted with
# hashes, replayed by the simulator at its own arrivals (DS 27B 1P1D, Basic, 512-token blocks; and DualPath with
# 16-token blocks, Bailian's size: ~25 million block references, the millions-of-blocks case). Prints the wall time
# and peak memory of each step (median of REPEATS), and the hit rates beside the trace's own reusable share.
#   bench/trace_speed.sh [BIN] [REPEATS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
repeats="${2:-3}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 "$root/tests/cli/mooncake_gen.py" 11 "$tmp/mc.jsonl" 11000
echo "trace: $(wc -l < "$tmp/mc.jsonl") requests, $(du -h "$tmp/mc.jsonl" | cut -f1)"

timed() {  # timed NAME CMD...: appends "wall_s peak_kb" to $tmp/NAME.times
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  cat "$tmp/time" >> "$tmp/$name.times"
}
for _ in $(seq "$repeats"); do
  timed convert "$bin" trace convert --from mooncake "$tmp/mc.jsonl" -o "$tmp/trace.jsonl"
  rm -rf "$tmp/run"
  timed replay "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run" --set policy.name=basic \
    --set policy.block_tokens=512 --set workload.source=file --set "workload.file=$tmp/trace.jsonl" \
    --set workload.mode=online --set workload.aps=0 --set 'workload.duration=0 s'
  rm -rf "$tmp/run16"
  timed replay16 "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run16" --set policy.name=dualpath \
    --set policy.block_tokens=16 --set workload.source=file --set "workload.file=$tmp/trace.jsonl" \
    --set workload.mode=online --set workload.aps=0 --set 'workload.duration=0 s'
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, re, statistics, sys
tmp = sys.argv[1]
for name in ("convert", "replay", "replay16"):
    rows = [tuple(map(float, l.split())) for l in open(f"{tmp}/{name}.times")]
    print(f"{name:8s} median {statistics.median(r[0] for r in rows):6.2f} s  peak {max(r[1] for r in rows) / 1024:6.0f} MiB"
          f"  (runs: {', '.join(f'{r[0]:.2f}' for r in rows)})")
share = float(re.search(r"reusable prefix share ([0-9.]+)%", open(f"{tmp}/convert.err").read()).group(1)) / 100
s = json.load(open(f"{tmp}/run/summary.json"))
print(f"rounds {s['results']['rounds']}, trajectories {sum(1 for _ in open(f'{tmp}/trace.jsonl'))}; "
      f"reusable share {share:.4f}, simulated hit rate {s['reuse']['kv_hit_rate']:.4f}, "
      f"zero-service reference {s['reuse']['kv_hit_rate_zero_service']:.4f}")
PY
