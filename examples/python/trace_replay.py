"""A trace replay: a public Mooncake trace (the bundled sample) converted to the native format with its block
hashes, its statistics, and its replay by the simulator at the trace's own arrival times.

    python3 examples/python/trace_replay.py [OUT_DIR]        # writes OUT_DIR/mooncake.jsonl
"""
import os
import sys

import dualpath as dp

out = sys.argv[1] if len(sys.argv) > 1 else "."
sample = os.path.join(dp.DATA_DIR, "tests", "traces", "mooncake_sample.jsonl")
native = os.path.join(out, "mooncake.jsonl")
rounds = dp.trace.convert(sample, source="mooncake", out=native)  # one row per round
print(f"{rounds['id'].nunique()} trajectories, {len(rounds)} rounds, {rounds['append'].sum()} appended tokens")
stats = dp.trace.stats(sample, source="mooncake")
print(f"replay KV hit rate (zero service time): {100 * stats['replay']['kv_hit_rate']:.2f}%")

scenario = dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), set={
    "workload.source": "file", "workload.file": native, "workload.mode": "online", "workload.aps": 0,
    "workload.duration": "0 s"})
for name, run in dp.compare(scenario, ["basic", "dualpath"]).items():
    print(f"{name:9s} rounds {run.results['rounds']}, TTFT p50 {run.results['ttft_s']['p50']:.3f} s, "
          f"KV hit rate {100 * run.summary['reuse']['kv_hit_rate']:.2f}%")
