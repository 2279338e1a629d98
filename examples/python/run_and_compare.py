"""A run and a comparison plot: the bundled default scenario (DS 27B on 1P1D, I/O-bound) under Basic and DualPath,
their JCT and TTFT, and each run's TTFT distribution drawn from the requests table.

    python3 examples/python/run_and_compare.py [OUT_DIR]     # writes OUT_DIR/ttft_cdf.png
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dualpath as dp  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "."
scenario = dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), set={"workload.agents": 64})
runs = dp.compare(scenario, ["basic", "dualpath"])
for name, run in runs.items():
    r = run.results
    print(f"{name:9s} JCT {r['jct_s']:7.1f} s  TTFT p50 {r['ttft_s']['p50']:.3f} s  "
          f"PE SNIC {100 * run.summary['links']['pe_snic_read_utilisation']:.0f}%")
print(f"dualpath's JCT is {runs['dualpath'].jct / runs['basic'].jct:.2f}x basic's")

fig, ax = plt.subplots(figsize=(6, 4))
for name, run in runs.items():
    ttft = (run.requests["first_token"] - run.requests["arrival"]).sort_values()
    ax.plot(ttft.values, [(i + 1) / len(ttft) for i in range(len(ttft))], label=name)
ax.set_xlabel("TTFT (s)")
ax.set_ylabel("share of rounds")
ax.legend()
fig.savefig(os.path.join(out, "ttft_cdf.png"), dpi=100)
print(f"plot: {os.path.join(out, 'ttft_cdf.png')}")
