#!/usr/bin/python3
"""Plot a `dualpath plan` (plan.json) to a PNG.

    /usr/bin/python3 analysis/plot_plan.py DIR/plan.json DIR/plan.png

The objective (JCT, lower is better; or SLO capacity in APS, higher is better) against the P/D ratio of each split,
on a log axis, one line per cluster variant (--vary). Each variant's §4.2 bottleneck-free P/D range is shaded in
its colour; splits whose weights do not fit a GPU are marked with an x on the axis; a star marks the
recommendation. Needs matplotlib (Debian: python3-matplotlib).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_style import legend_below, plain_numbers, ratio_ticks  # noqa: E402
from json_shapes import ResultsError, check, read_json  # noqa: E402

# What the plot reads from plan.json (core/study/plan_report.cpp writes it; analysis/plan_json.py checks the whole).
RANGE = {"lower": "number", "upper": "number|null"}
PLOT = {"objective": "string", "identity": {"policy": "string"}, "nodes?": "count", "budget_gpus?": "count",
        "analytic_pd_range?": RANGE,
        "variants?": [{"label": "string", "nodes": "count", "analytic_pd_range": RANGE}],
        "recommendation?": {"split": "string", "variant?": "string"},
        "splits": [{"P": "count", "D": "count", "feasible": "boolean", "variant?": "string",
                    "jct_s?": "number|null", "capacity_aps?": "number|null"}]}


def main(src, png):
    p = read_json(src, "a plan.json")
    check(p, PLOT, "", src, "plan.json `dualpath plan`")
    if not p.get("variants") and ("analytic_pd_range" not in p or "nodes" not in p and "budget_gpus" not in p):
        raise ResultsError(f"{src}: /analytic_pd_range: missing (not a plan.json `dualpath plan` writes)")
    jct = p["objective"] == "jct"
    key = "jct_s" if jct else "capacity_aps"
    variants = p.get("variants") or [{"label": "", "analytic_pd_range": p["analytic_pd_range"]}]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(7, 5))
    rec = p.get("recommendation", {})
    for i, v in enumerate(variants):
        col = colours[i % len(colours)]
        splits = sorted((s for s in p["splits"] if s.get("variant", "") == v["label"]), key=lambda s: s["P"] / s["D"])
        # A dropped split (its search stopped at an upper bound) or an infeasible one has no figure: null in plan.json.
        pts = [(s["P"] / s["D"], s[key], f"{s['P']}P{s['D']}D") for s in splits if s.get(key) is not None]
        bad = [(s["P"] / s["D"], f"{s['P']}P{s['D']}D") for s in splits if not s["feasible"]]
        r = v["analytic_pd_range"]
        if r.get("lower") is not None and r.get("upper") is not None and r["upper"] > 0:
            ax.axvspan(max(r["lower"], 1e-3), min(r["upper"], 1e3), color=col, alpha=0.10)
        if pts:
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], "o-", color=col, label=v["label"] or None)
            for x, y, name in pts:
                ax.annotate(name, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=8, color=col)
        if bad:
            ax.scatter([x for x, _ in bad], [0] * len(bad), marker="x", color=col, clip_on=False, zorder=3,
                       label="infeasible: weights > HBM" if i == 0 else None)
            for x, name in bad:
                ax.annotate(name, (x, 0), xytext=(4, 4), textcoords="offset points", fontsize=8, color=col)
        if rec and rec.get("variant", "") == v["label"]:
            best = [(x, y) for x, y, name in pts if name == rec["split"]]
            if best:
                ax.scatter(*zip(*best), marker="*", s=250, color=col, zorder=4, label="recommended")
    ax.set_xscale("log")
    ratios = [s["P"] / s["D"] for s in p["splits"]]
    ax.set_xlim(min(ratios) / 1.6, max(ratios) * 1.6)  # the splits, not the whole shaded range
    ratio_ticks(ax.xaxis, ratios)  # ticked at the splits' own ratios (1/3, 1, 3), not at one decade
    plain_numbers(ax.yaxis)
    ax.set_xlabel("P/D (prefill nodes / decode nodes); shaded: §4.2 bottleneck-free range")
    ax.set_ylabel("JCT (s), lower is better" if jct else "SLO capacity (agents/s), higher is better")
    values = [s[key] for s in p["splits"] if s.get(key) is not None]
    ax.set_ylim(0, 1.25 * max(values) if values else None)  # room for the labels and the legend
    nodes = sorted({v["nodes"] for v in p.get("variants", [])} or {p["nodes"]})
    size = (f"{p['budget_gpus']} GPUs, " if "budget_gpus" in p else "") + "/".join(map(str, nodes)) + " nodes"
    ax.set_title(f"plan: {size}, policy {p['identity']['policy']}, objective {p['objective']}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, ax)  # under the axes: it never covers a point or its label
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_plan.py PLAN.json OUT.png")
    try:
        main(sys.argv[1], sys.argv[2])
    except ResultsError as e:  # a damaged plan.json: one line, exit 2
        print(f"dualpath: error: {e}", file=sys.stderr)
        sys.exit(2)
