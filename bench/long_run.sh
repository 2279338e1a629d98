#!/usr/bin/env bash
# Long online runs stay flat (issue 46): DS 27B 1P1D (scenarios/default.json), DualPath, agents arriving at APS per
# second (default 0.5, well below capacity: TTFT p99 ~0.25 s) for HOURS simulated hours each. For every length it
# prints the wall time, the wall time per simulated hour and the peak RSS (which includes the input, built up front:
# the agents of a longer run are more), then fits it against the rounds done and against simulated hours. While the
# longest run goes, RSS is sampled every 0.2 s (RSS_CSV=FILE keeps the samples) and its slope after warm-up printed.
#   bench/long_run.sh [BIN] [HOURS...]        (default: 1 2 5 10)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
shift || true
hours=("$@"); [ ${#hours[@]} -gt 0 ] || hours=(1 2 5 10)
aps="${APS:-0.5}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for h in "${hours[@]}"; do
  "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run$h" --set workload.mode=online \
    --set "workload.aps=$aps" --set "workload.duration=$h h" > /dev/null 2>&1 &
  pid=$!
  t0=$(date +%s.%N)
  : > "$tmp/rss$h.csv"
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(echo "$(date +%s.%N) - $t0" | bc -l),$rss" >> "$tmp/rss$h.csv"
    sleep 0.2
  done
  wait "$pid"
  echo "$h,$(echo "$(date +%s.%N) - $t0" | bc -l)" >> "$tmp/walls.csv"
done
[ -n "${RSS_CSV:-}" ] && cp "$tmp/rss${hours[-1]}.csv" "$RSS_CSV"
/usr/bin/python3 - "$tmp" "${hours[@]}" <<'PY'
import json, sys
import numpy as np
tmp, hours = sys.argv[1], [float(h) for h in sys.argv[2:]]
walls = dict((float(h), float(w)) for h, w in (l.strip().split(",") for l in open(f"{tmp}/walls.csv")))
rows = []
for h in hours:
    tag = f"{h:g}"
    s = json.load(open(f"{tmp}/run{tag}/summary.json"))
    rss = [float(l.split(",")[1]) / 1024 for l in open(f"{tmp}/rss{tag}.csv")]
    rows.append((h, walls[h], max(rss), s["results"]["rounds"]))
    print(f"{h:5g} h simulated: wall {walls[h]:7.1f} s ({walls[h] / h:5.1f} s per simulated hour), peak RSS "
          f"{max(rss):7.1f} MiB, {s['results']['rounds']} rounds")
if len(rows) >= 2:
    h, w, r, n = map(np.array, zip(*rows))
    per_hour = np.polyfit(h, r, 1)[0]
    per_round = np.polyfit(n, r, 1)[0] * 1024 * 1024
    print(f"RSS slope: {per_hour:.1f} MiB per simulated hour = {per_round:.0f} bytes per round done; "
          f"wall per simulated hour from {min(w / h):.1f} to {max(w / h):.1f} s")
# Within the longest run: RSS after warm-up (the first 20% of its wall time: the input trace and agents are built up
# front) and before its outputs are finished (the last 10%), against wall time; a steady run settles rounds at a
# constant pace in wall time, so the slope converts to bytes per round.
samples = [tuple(map(float, l.split(","))) for l in open(f"{tmp}/rss{hours[-1]:g}.csv")]
t = np.array([s[0] for s in samples]); m = np.array([s[1] for s in samples]) / 1024
keep = (t > 0.2 * t[-1]) & (t < 0.9 * t[-1])
if keep.sum() > 10:
    k = np.polyfit(t[keep], m[keep], 1)[0]
    per_round = k * 1024 * 1024 * t[-1] / rows[-1][3]
    print(f"longest run: RSS {m[keep][0]:.0f} -> {m[keep][-1]:.0f} MiB after warm-up, {k:.3f} MiB per wall second "
          f"= {per_round:.1f} bytes per round")
PY
