"""The headline metrics of one run folder, as the speed and fidelity checks compare them: JCT, TTFT p50/p99,
TPOT p50, rounds, and each link class's utilisation per traffic class (links.csv's rows summed, so a class's
figure is its mean times the row count: the same count on both sides of a comparison of one scenario).
Used by bench/sim_fidelity.sh and by tests/cli/sim_engines.sh and sim_speed_switch.sh."""
import csv
import json


def metrics(run_dir):
    r = json.load(open(f"{run_dir}/summary.json"))["results"]
    m = {"jct_s": r["jct_s"], "ttft_p50": r["ttft_s"]["p50"], "ttft_p99": r["ttft_s"]["p99"],
         "tpot_p50": r["tpot_s"]["p50"], "rounds": r["ttft_s"]["count"]}
    for row in csv.DictReader(open(f"{run_dir}/links.csv")):
        for cls in ("model", "kv"):
            key = f"util_{row['class']}_{cls}"
            m[key] = m.get(key, 0.0) + float(row[f"{cls}_utilisation"])
    return m
