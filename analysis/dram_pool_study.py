#!/usr/bin/python3
"""DRAM or NICs? DualPath against a DRAM KV pool (policy dram-pool, the paper's SGL(MC)), as docs/dram-pool.md shows.

    /usr/bin/python3 analysis/dram_pool_study.py DUALPATH OUT [--scenario S] [--pool-gb 0,10,...]
                                                 [--buffer-gb 20,40,80,160] [--aps 0.5,1,1.5]

1. Capacity under the SLO (`dualpath capacity`, docs/capacity.md) of DualPath (and Basic) with the topology's DRAM
   buffers (OUT/dualpath/), of DualPath with each buffer size in --buffer-gb (OUT/dualpath-buf-<GB>/), and of the
   pool at each size in --pool-gb (DRAM per node given to the pool, beside the topology's buffers): as SGL(MC),
   with Basic's engine (OUT/pool-<GB>/), and with DualPath's engine, i.e. layerwise prefill and Algorithm 1, so
   that only the KV data path differs from DualPath (OUT/pool-dp-<GB>/).
2. At each arrival rate in --aps, one online run of DualPath, the pool at 1.5 TB per node and the pool at 80 GB
   per node (the DRAM a rollout leaves free), into OUT/table/.
3. OUT/study.md (the tables) and OUT/dram-pool.png: capacity against the DRAM per node each design uses for KV
   (DualPath: its buffers; the pool: its buffers + the pool), the crossover (the DRAM per node from which the
   pool serves as many agents as DualPath's best) marked.

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
    names = policies.split(",")
    # A run of several policies writes one folder per policy; a run of one writes its folder itself.
    where = {p: f"{out}/{p}" if len(names) > 1 else out for p in names}
    if not all(os.path.exists(f"{w}/summary.json") for w in where.values()):
        run([bin_, "run", scenario, "--policy", policies, "--set", f"workload.aps={aps}", *extra, "--out", out])
    return {p: json.load(open(f"{w}/summary.json")) for p, w in where.items()}


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
    ap.add_argument("--buffer-gb", default="20,40,80,160")
    ap.add_argument("--aps", default="0.5,1,1.5")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    base = capacity(a.bin, a.scenario, f"{a.out}/dualpath", "dualpath,basic")
    # The topology's DRAM buffer per node, as the runs saw it (SI bytes in any probe's summary.json config).
    probes = f"{a.out}/dualpath/probes/dualpath"
    probe = sorted(os.listdir(probes))[0]
    buffer_gb = json.load(open(f"{probes}/{probe}/summary.json"))["config"]["topology"]["dram_buffer_bytes"] / 1e9
    buffers = [float(g) for g in a.buffer_gb.split(",")]
    dp_caps = [base["dualpath"]["capacity_aps"] if abs(g - buffer_gb) < 1e-9 else
               capacity(a.bin, a.scenario, f"{a.out}/dualpath-buf-{g:g}", "dualpath",
                        ["--set", f"topology.dram_buffer_bytes={g:g} GB"])["dualpath"]["capacity_aps"] for g in buffers]
    sizes = [float(g) for g in a.pool_gb.split(",")]
    pool = [capacity(a.bin, a.scenario, f"{a.out}/pool-{g:g}", "dram-pool",
                     ["--set", f"policy.pool.bytes_per_node={g:g} GB"])["dram-pool"] for g in sizes]
    pool_dp = [capacity(a.bin, a.scenario, f"{a.out}/pool-dp-{g:g}", "dram-pool",
                        ["--set", f"policy.pool.bytes_per_node={g:g} GB", "--set", "policy.layerwise=true",
                         "--set", "policy.scheduler=true"])["dram-pool"] for g in sizes]
    caps = [p["capacity_aps"] for p in pool]
    caps_dp = [p["capacity_aps"] for p in pool_dp]
    dp, basic = max(dp_caps), base["basic"]["capacity_aps"]
    pool_dram = [g + buffer_gb for g in sizes]
    cross = crossover(pool_dram, caps, dp)
    cross_dp = crossover(pool_dram, caps_dp, dp)

    md = ["| DualPath: DRAM buffer per node | capacity (APS) |", "|---|---|"]
    md += [f"| {g:g} GB | {c:.3f} |" for g, c in zip(buffers, dp_caps)]
    md += ["", f"| pool per node (+ {buffer_gb:g} GB buffers) | SGL(MC)-like: Basic's engine (APS) | binds | "
               "DualPath's engine (APS) | binds | vs DualPath's best |", "|---|---|---|---|---|---|"]
    for g, p, q in zip(sizes, pool, pool_dp):
        md.append(f"| {g:g} GB | {p['capacity_aps']:.3f} | {p.get('binds_at_capacity', '-')} | "
                  f"{q['capacity_aps']:.3f} | {q.get('binds_at_capacity', '-')} | {p['capacity_aps'] / dp:.2f}x, "
                  f"{q['capacity_aps'] / dp:.2f}x |")

    def says(c):
        return (f"from about **{c:.0f} GB of DRAM per node** (buffers included)" if c is not None
                else "at no pool size measured")
    md.append(f"\nDualPath's best: **{dp:.3f} APS**; Basic ({buffer_gb:g} GB buffers): {basic:.3f} APS. The pool "
              f"with Basic's engine serves as many agents as DualPath {says(cross)}; with DualPath's engine "
              f"{says(cross_dp)}.")

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
    json.dump({"dualpath_buffer_gb": buffers, "dualpath_aps": dp_caps, "basic_aps": basic, "pool_gb": sizes,
               "pool_dram_gb": pool_dram, "pool_aps": caps, "pool_dualpath_engine_aps": caps_dp,
               "crossover_dram_gb": cross, "crossover_dualpath_engine_dram_gb": cross_dp},
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
    ax.plot(pool_dram, caps, "o-", color="C0",
            label=f"DRAM pool, Basic's engine (SGL(MC)-like; pool + {buffer_gb:g} GB buffers)")
    ax.plot(pool_dram, caps_dp, "^-", color="C1", label="DRAM pool, DualPath's engine (layerwise, Algorithm 1)")
    ax.plot(buffers, dp_caps, "s-", color="C3", label="DualPath (its DRAM buffers, no pool)")
    ax.axhline(basic, color="grey", linestyle=":", label=f"Basic, {buffer_gb:g} GB buffers ({basic:.2f} APS)")
    for c, what in ((cross, "Basic's engine"), (cross_dp, "DualPath's engine")):
        if c is not None:
            ax.axvline(c, color="grey", linestyle="--")
            ax.annotate(f"crossover ({what}) ≈ {c:.0f} GB/node", (c, dp), textcoords="offset points",
                        xytext=(6, -14), fontsize=8)
    if cross is None and cross_dp is None:
        ax.text(0.98, 0.45, "no crossover: no pool size measured\nreaches DualPath's capacity", transform=ax.transAxes,
                ha="right", fontsize=8, color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("DRAM per node used for KV (GB)")
    ax.set_ylabel("capacity within the SLO (APS)")
    ax.set_title("DRAM or NICs? " + os.path.basename(a.scenario).replace(".json", ""))
    ax.set_ylim(top=max(dp_caps + caps + caps_dp) * 1.3)  # room for the legend above the curves
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{a.out}/dram-pool.png", dpi=120)


if __name__ == "__main__":
    main()
