#!/usr/bin/python3
"""DRAM or NICs? DualPath against a DRAM KV pool (policy dram-pool, the paper's SGL(MC)), as docs/dram-pool.md shows.

    /usr/bin/python3 analysis/dram_pool_study.py DUALPATH OUT [--scenario S] [--pool-gb 0,10,...] [--aps 0.5,1,1.5]

1. Capacity under the SLO (`dualpath capacity`, docs/capacity.md) of DualPath (and Basic) and of the pool at each
   size in --pool-gb (DRAM per node given to the pool), into OUT/dualpath/ and OUT/pool-<GB>/.
2. At each arrival rate in --aps, one online run of DualPath, the pool at 1.5 TB per node and the pool at 80 GB
   per node (the DRAM a rollout leaves free), into OUT/table/.
3. OUT/study.md (both tables) and OUT/dram-pool.png: capacity against the pool's DRAM per node, DualPath's
   capacity as a line, the crossover (the pool size at which the pool first serves as many agents) marked.

A folder that already holds its capacity.json or summary.json is reused, so an interrupted study resumes.
Needs matplotlib for the plot (Debian: python3-matplotlib); without it the tables are still written.
"""
import argparse
import json
import os
import subprocess
import sys

CAPACITY_ARGS = ["--set", "workload.aps=0.45", "--set", "workload.duration=2400s", "--resolution", "0.05",
                 "--jobs", "2", "--no-plot"]


def run(cmd):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def capacity(bin_, scenario, out, policies, extra=()):
    path = f"{out}/capacity.json"
    if not os.path.exists(path):
        run([bin_, "capacity", scenario, "--policy", policies, *CAPACITY_ARGS, *extra, "--out", out])
    return json.load(open(path))["policies"]


def online(bin_, scenario, out, policies, aps, extra=()):
    if not all(os.path.exists(f"{out}/{p}/summary.json") for p in policies.split(",")):
        run([bin_, "run", scenario, "--policy", policies, "--set", f"workload.aps={aps}", *extra, "--out", out])
    return {p: json.load(open(f"{out}/{p}/summary.json")) for p in policies.split(",")}


def crossover(sizes, caps, target):
    """The smallest pool size at which the pool's capacity reaches `target`, by linear interpolation between
    measured sizes (None when no size reaches it)."""
    for i, (gb, c) in enumerate(zip(sizes, caps)):
        if c >= target:
            if i == 0:
                return gb
            g0, c0 = sizes[i - 1], caps[i - 1]
            return g0 + (target - c0) * (gb - g0) / (c - c0)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("out")
    ap.add_argument("--scenario", default=os.path.join(os.path.dirname(__file__), "..", "scenarios",
                                                       "ds660b-2p4d-online.json"))
    ap.add_argument("--pool-gb", default="0,10,20,40,80,160,320,1500")
    ap.add_argument("--aps", default="0.5,1,1.5")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    base = capacity(a.bin, a.scenario, f"{a.out}/dualpath", "dualpath,basic")
    sizes = [float(g) for g in a.pool_gb.split(",")]
    pool = [capacity(a.bin, a.scenario, f"{a.out}/pool-{g:g}", "dram-pool",
                     ["--set", f"policy.pool.bytes_per_node={g:g} GB"])["dram-pool"] for g in sizes]
    caps = [p["capacity_aps"] for p in pool]
    dp, basic = base["dualpath"]["capacity_aps"], base["basic"]["capacity_aps"]
    cross = crossover(sizes, caps, dp)

    md = ["| DRAM per node for the pool | pool capacity (APS) | binds at capacity | vs DualPath |", "|---|---|---|---|"]
    for g, p in zip(sizes, pool):
        md.append(f"| {g:g} GB | {p['capacity_aps']:.3f} | {p.get('binds_at_capacity', '-')} | "
                  f"{p['capacity_aps'] / dp:.2f}x |")
    md.append(f"\nDualPath (80 GB buffers, no pool): **{dp:.3f} APS**; Basic: {basic:.3f} APS. Crossover: "
              + (f"the pool matches DualPath from about **{cross:.0f} GB per node**." if cross is not None
                 else "no pool size measured reaches DualPath."))

    md += ["", "| APS | design | TTFT p50 (s) | TTFT p99 (s) | TPOT p50 (ms) | within SLO | hit KV from pool | PE SNIC |",
           "|---|---|---|---|---|---|---|---|"]
    for aps in [float(x) for x in a.aps.split(",")]:
        runs = online(a.bin, a.scenario, f"{a.out}/table/aps-{aps:g}", "dualpath,dram-pool", aps)
        runs["dram-pool 80 GB"] = online(a.bin, a.scenario, f"{a.out}/table/aps-{aps:g}-80gb", "dram-pool", aps,
                                         ["--set", "policy.pool.bytes_per_node=80 GB"])["dram-pool"]
        for name, label in (("dualpath", "DualPath, 80 GB buffers"), ("dram-pool", "pool, 1.5 TB/node"),
                            ("dram-pool 80 GB", "pool, 80 GB/node")):
            s = runs[name]
            r = s["results"]
            share = f"{100 * s['pool']['pool_hit_share']:.1f}%" if "pool" in s else "-"
            md.append(f"| {aps:g} | {label} | {r['ttft_s']['p50']:.2f} | {r['ttft_s']['p99']:.2f} | "
                      f"{1e3 * r['tpot_s']['p50']:.1f} | {100 * r['slo']['both_ok_fraction']:.1f}% | {share} | "
                      f"{100 * s['links']['pe_snic_read_utilisation']:.0f}% |")
    open(f"{a.out}/study.md", "w").write("\n".join(md) + "\n")
    json.dump({"dualpath_aps": dp, "basic_aps": basic, "pool_gb": sizes, "pool_aps": caps, "crossover_gb": cross},
              open(f"{a.out}/study.json", "w"), indent=1)
    print("\n".join(md))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: skipped the plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs = [max(g, 1.0) for g in sizes]  # a log axis: 0 GB drawn at 1 GB
    ax.plot(xs, caps, "o-", label="DRAM pool (dram-pool)")
    ax.axhline(dp, color="C1", label=f"DualPath, 80 GB buffers ({dp:.2f} APS)")
    ax.axhline(basic, color="C2", linestyle=":", label=f"Basic ({basic:.2f} APS)")
    if cross is not None:
        ax.axvline(max(cross, 1.0), color="grey", linestyle="--")
        ax.annotate(f"crossover ≈ {cross:.0f} GB/node", (max(cross, 1.0), dp), textcoords="offset points",
                    xytext=(6, -14))
    ax.set_xscale("log")
    ax.set_xlabel("DRAM per node given to the KV pool (GB; 0 drawn at 1)")
    ax.set_ylabel("capacity within the SLO (APS)")
    ax.set_title("DRAM or NICs? " + os.path.basename(a.scenario).replace(".json", ""))
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{a.out}/dram-pool.png", dpi=120)


if __name__ == "__main__":
    main()
