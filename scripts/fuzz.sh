#!/usr/bin/env bash
# Builds the fuzz preset (clang, ASan + UBSan, libFuzzer) and runs each fuzz target for SECONDS (default 60), from a
# seed corpus of the bundled files, kept in build/fuzz/corpus/<target> so that later runs continue from it.
# Prints each target's final coverage and speed; exits 1 when a target finds a crash, leak or timeout (libFuzzer
# writes the input to build/fuzz/artifacts/<target>/; make it a regression test).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (long runs: scripts/fuzz.sh 3600 fuzz_scenario, one per core)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(fuzz_scenario fuzz_trace fuzz_mooncake fuzz_trace_formats fuzz_command_line)
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz -j"$(nproc)"
b=build/fuzz
mkdir -p "$b/corpus"/{fuzz_scenario,fuzz_trace,fuzz_mooncake,fuzz_trace_formats,fuzz_command_line}
cp scenarios/*.json scenarios/claims/*.json "$b/corpus/fuzz_scenario/" 2>/dev/null || true
cp traces/example.jsonl traces/shared-prefix.jsonl tests/traces/cross_conversation.jsonl "$b/corpus/fuzz_trace/"
# fuzz_trace_formats: the first byte picks the format ('0' % 3 = 0 Bailian, '1' Azure, '2' BurstGPT).
{ printf '0'; cat tests/traces/bailian_sample.jsonl; } > "$b/corpus/fuzz_trace_formats/bailian"
{ printf '1'; cat tests/traces/azure_sample.csv; } > "$b/corpus/fuzz_trace_formats/azure"
{ printf '2'; cat tests/traces/burstgpt_sample.csv; } > "$b/corpus/fuzz_trace_formats/burstgpt"
# fuzz_command_line: the first byte picks the kind ('0' % 6 = 0 --set, 1 --vary, 2 --fault, 3 a quantity, 4 --shard,
# 5 --pd); one seed per line of this list.
n=0
while IFS= read -r seed; do
  printf '%s' "$seed" > "$b/corpus/fuzz_command_line/seed$((n++))"
done <<'SEEDS'
0policy.name=basic
0topology.snic_bw=200 Gbps
0workload.aps=2
0deployment.fetch_period=50 ms
0sim.engine=simgrid
1workload.agents=64,128
1topology.snic_bw=100 Gbps,400 Gbps
2snic-down:node=0,at=300s,until=600s
2node-down:node=1,at=60 s
2snic-degrade:node=0,factor=0.5,at=10s,until=20s
3400 Gbps
380 GiB
3300 ms
3989 TFLOPS
40/4
52:1
SEEDS
printf '%s\n' '{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}' \
  '{"timestamp": 3000, "input_length": 1100, "output_length": 5, "hash_ids": [0, 1, 2]}' \
  '{"timestamp": 3000, "input_length": 40, "output_length": 0, "hash_ids": [7]}' > "$b/corpus/fuzz_mooncake/seed.jsonl"
# One target per core at a time (each libFuzzer run is single-threaded), so every target still gets SECONDS of
# fuzzing; reports are printed in target order once all have run.
run_target() {
  local t=$1 log="$b/artifacts/$1/last-run.log"
  mkdir -p "$b/artifacts/$t"
  rm -f "$b/artifacts/$t/failed"
  # -rss_limit_mb: a reader must not need gigabytes for a small file; -timeout: nor seconds.
  if "$b/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$b/artifacts/$t/" "$b/corpus/$t" > "$log" 2>&1; then
    echo "fuzz: $t: $(grep -E 'DONE' "$log" | tail -1 | tr -s '\t ' ' ')" > "$b/artifacts/$t/report"  # runs, coverage, corpus, exec/s, RSS
  else
    { echo "fuzz: $t FOUND A PROBLEM (input in $b/artifacts/$t/):"
      grep -E 'ERROR|fuzz:|SUMMARY|Test unit written' "$log" | head -8; } > "$b/artifacts/$t/report"
    touch "$b/artifacts/$t/failed"
  fi
}
slots="$(nproc)"
declare -A pids
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n || true; done
  run_target "$t" &
  pids[$t]=$!
done
status=0
for t in "${targets[@]}"; do
  wait "${pids[$t]}" || true
  cat "$b/artifacts/$t/report"
  [ ! -e "$b/artifacts/$t/failed" ] || status=1
done
exit $status
