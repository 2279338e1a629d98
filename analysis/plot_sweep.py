#!/usr/bin/python3
"""Plot a `dualpath sweep` table (sweep.csv) to a PNG.

    /usr/bin/python3 analysis/plot_sweep.py DIR/sweep.csv DIR/sweep.png

When the sweep varies deployment.prefill_nodes and deployment.decode_nodes, the x axis is P/D (log scale) and
there are two panels, one series per policy:
  - top: prompt-token throughput per node (tokens/s divided by P+D);
  - bottom: hit-KV storage read rate per node in units of one SNIC (storage bytes / JCT / snic_bw / (P+D)),
    with the §4.2 analytic ceiling (analytic_read_rate_snics / (P+D), dashed) and the bottleneck-free range
    [analytic_pd_lower, analytic_pd_upper] shaded, its bounds drawn as vertical lines.
Otherwise: throughput and JCT against the first varied key, one series per value of the second (or the policy).
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_style import integer_axis, key_words, legend_below, plain_numbers, ratio_text, series_label  # noqa: E402

# Metric columns of sweep.csv (the rest are the swept keys); util_<kind> columns come from the table of link kinds
# (core/vocab/link_kinds.hpp), so any util_ column is a metric.
METRICS = {"status", "jct_s", "prompt_tokens_per_s", "generated_tokens_per_s", "ttft_p50_s", "ttft_p99_s",
           "tpot_p50_s", "kv_hit_rate", "rounds", "rounds_total", "complete", "pe_snic_util", "de_snic_util",
           "storage_read_bytes", "read_rate_snics", "P", "D", "pd_ratio", "policy", "analytic_pd_lower",
           "analytic_pd_upper", "analytic_read_rate_snics"}


def is_metric(column):
    return column in METRICS or column.startswith("util_")


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def plot_pd(rows, out):
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    by_policy = defaultdict(list)
    for r in rows:
        by_policy[r["policy"]].append(r)
    colors = {"basic": "tab:red", "dualpath": "tab:blue", "oracle": "tab:green"}
    for pol, rs in sorted(by_policy.items()):
        rs.sort(key=lambda r: (num(r["pd_ratio"]), num(r["P"])))
        x = [num(r["pd_ratio"]) for r in rs]
        n = [num(r["P"]) + num(r["D"]) for r in rs]
        c = colors.get(pol)
        ax1.scatter(x, [num(r["prompt_tokens_per_s"]) / k for r, k in zip(rs, n)], label=pol, color=c, s=18)
        ax2.scatter(x, [num(r["read_rate_snics"]) / k for r, k in zip(rs, n)], label=f"{pol} simulated", color=c,
                    s=18)
        # Analytic ceiling per node depends on P/D only: one value per ratio.
        cap = {}
        for r, k in zip(rs, n):
            v = num(r["analytic_read_rate_snics"])
            if not math.isnan(v):
                cap[num(r["pd_ratio"])] = v / k
        if cap:
            xs = sorted(cap)
            ax2.plot(xs, [cap[v] for v in xs], "--", color=c, lw=1.2, label=f"{pol} §4.2 ceiling")
    lo = [num(r["analytic_pd_lower"]) for r in rows if not math.isnan(num(r["analytic_pd_lower"]))]
    hi = [num(r["analytic_pd_upper"]) for r in rows if not math.isnan(num(r["analytic_pd_upper"]))]
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        if lo and hi:
            ax.axvspan(lo[0], hi[0], color="0.92", zorder=0)
            for b in (lo[0], hi[0]):
                ax.axvline(b, color="0.4", lw=1, ls=":")
        ax.grid(True, which="both", alpha=0.3)
    if lo and hi:
        ax1.text(math.sqrt(lo[0] * hi[0]), ax1.get_ylim()[1] * 0.97,
                 f"bottleneck-free {ratio_text(lo[0])} <= P/D <= {ratio_text(hi[0])}", ha="center", va="top", fontsize=9)
    ax1.set_ylabel("prompt tokens/s per node")
    plain_numbers(ax1.yaxis)
    ax2.set_ylabel("storage read rate per node\n(SNICs of snic_bw)")
    ax2.set_xlabel("P/D (prefill nodes / decode nodes)")
    ax1.legend(fontsize=8)
    ax2.legend(fontsize=8)
    ax1.set_title("Throughput vs P/D")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_generic(rows, keys, out):
    x_key = keys[0]
    hue_key = keys[1] if len(keys) > 1 else ("policy" if "policy" in rows[0] else None)
    series = defaultdict(list)
    for r in rows:
        series[r[hue_key] if hue_key else ""].append(r)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7.5), sharex=True)
    numeric = all(not math.isnan(num(r[x_key])) for r in rows)
    for name, rs in sorted(series.items()):
        rs.sort(key=lambda r: num(r[x_key]) if numeric else r[x_key])
        x = [num(r[x_key]) if numeric else r[x_key] for r in rs]
        label = series_label(hue_key, name) if hue_key else None
        ax1.plot(x, [num(r["prompt_tokens_per_s"]) for r in rs], "o-", label=label)
        ax2.plot(x, [num(r["jct_s"]) for r in rs], "o-", label=label)
    ax1.set_ylabel("prompt tokens/s")
    ax2.set_ylabel("JCT")
    plain_numbers(ax1.yaxis)
    plain_numbers(ax2.yaxis, "s")
    ax2.set_xlabel(key_words(x_key))
    if numeric:
        integer_axis(ax2.xaxis, [num(r[x_key]) for r in rows])
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
    by = f" by {key_words(hue_key)}" if hue_key else ""
    ax1.set_title(f"Throughput and JCT against {key_words(x_key)}{by} ({len(rows)} runs)")
    if hue_key:
        legend_below(fig, ax2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_sweep.py sweep.csv out.png")
    with open(sys.argv[1], newline="") as f:
        reader = csv.DictReader(f)
        keys = [k for k in reader.fieldnames if not is_metric(k)]
        rows = [r for r in reader if r.get("status") == "ok"]
    if not rows:
        sys.exit("plot_sweep.py: no finished points in " + sys.argv[1])
    if "deployment.prefill_nodes" in keys and "deployment.decode_nodes" in keys:
        plot_pd(rows, sys.argv[2])
    else:
        plot_generic(rows, keys, sys.argv[2])


if __name__ == "__main__":
    main()
