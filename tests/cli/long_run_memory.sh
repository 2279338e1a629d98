#!/usr/bin/env bash
# Long online runs (issue 46): the CI version of bench/long_run.sh. DS 27B 1P1D, DualPath, 0.5 agents/s for 20 and
# for 60 simulated minutes (~125,000 and ~371,000 rounds): peak memory may grow only by what the run keeps per
# finished round. Today that is ~400 bytes (the log of finished requests, 272 bytes each, which requests.csv and
# the exact percentiles are written from, plus the summary's samples); a result file built in memory before it is
# written (714 bytes per round before the CSVs were streamed) or any leak per event fails the 600-byte bound.
# Usage: long_run_memory.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in 1200 3600; do
  /usr/bin/time -f "%M" -o "$tmp/rss$d" "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run$d" \
    --set workload.mode=online --set workload.aps=0.5 --set "workload.duration=$d s" > /dev/null
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
rss = {d: int(open(f"{t}/rss{d}").read().split()[-1]) * 1024 for d in (1200, 3600)}
rounds = {d: json.load(open(f"{t}/run{d}/summary.json"))["results"]["rounds"] for d in (1200, 3600)}
per_round = (rss[3600] - rss[1200]) / (rounds[3600] - rounds[1200])
print(f"peak RSS {rss[1200] / 2**20:.0f} MiB after {rounds[1200]} rounds, {rss[3600] / 2**20:.0f} MiB after "
      f"{rounds[3600]}: {per_round:.0f} bytes per round")
sys.exit(0 if per_round <= 600 and rounds[3600] > 2.5 * rounds[1200] else 1)
PY
