#!/usr/bin/python3
"""dualpath report: figures and an index.html from `dualpath run` / `dualpath sweep` results, or a plan's page.

    report.py --out DIR RESULTS_DIR [RESULTS_DIR...]

A RESULTS_DIR that holds plan.json (a `dualpath plan` folder) gets the plan's own page instead, one self-contained
index.html (analysis/plan_report_html.py); it is reported alone.

Each RESULTS_DIR is a run folder (summary.json, requests.csv, links.csv), a multi-policy folder of run folders,
or a sweep folder (sweep.csv). Simulator and hardware-backend results (summary.json "backend": "hw") are drawn
side by side. Writes PNGs, figures.json (file, title, pixel size of each figure) and index.html into DIR.
Needs Debian's python3-matplotlib and python3-pandas (run with /usr/bin/python3).
"""
import argparse
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import TTFT_PHASES, ResultsError, find_runs, find_sweeps, label_runs  # noqa: E402
from plot_style import wait_colours  # noqa: E402
from report_html import write_html  # noqa: E402
from plan_report_html import write_plan_page  # noqa: E402

DPI = 100
SIZE_WIDE = (12, 6)     # 1200 x 600 px
SIZE_TALL = (12, 9)     # 1200 x 900 px
PHASE_COLOURS = {"queue": "#9e9e9e", "allocate": "#f2b134", "read": "#d9534f", "prefill": "#4a7fc1"}
BACKEND_HATCH = {"sim": "", "hw": "//"}
BACKEND_STYLE = {"sim": "-", "hw": "--"}


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "run"


class Report:
    def __init__(self, out):
        self.out = out
        self.figures = []  # dicts: file, title, width, height, section, group
        os.makedirs(out, exist_ok=True)

    def save(self, fig, name, title, section, group=None, empty=False):
        """empty: the figure has axes but no data (e.g. the links of a run that moved no bytes)."""
        w, h = fig.get_size_inches()
        fig.savefig(os.path.join(self.out, name), dpi=DPI)  # no bbox_inches: the pixel size stays figsize x dpi
        plt.close(fig)
        self.figures.append({"file": name, "title": title, "width": int(round(w * DPI)),
                             "height": int(round(h * DPI)), "section": section, "group": group, "empty": empty})


def colours(n):
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def grouped_bars(ax, runs, value, ylabel, fmt):
    """Bars per policy (x), one per backend/source within a policy; sim plain, hw hatched."""
    policies = list(dict.fromkeys(r.policy for r in runs))
    variants = list(dict.fromkeys((r.backend, r.source, r.scenario) for r in runs))
    width = 0.8 / max(1, len(variants))
    cols = colours(len(policies))
    for vi, var in enumerate(variants):
        for pi, p in enumerate(policies):
            match = [r for r in runs if r.policy == p and (r.backend, r.source, r.scenario) == var]
            if not match:
                continue
            v = value(match[0])
            x = pi - 0.4 + width * (vi + 0.5)
            ax.bar(x, v, width * 0.92, color=cols[pi], hatch=BACKEND_HATCH.get(var[0], "xx"), edgecolor="black",
                   linewidth=0.6)
            ax.annotate(fmt(v), (x, v), ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(policies)))
    # Long names (the shipped baselines') would run into each other side by side: tilted, they stay apart.
    tilt = sum(len(p) for p in policies) > 40
    ax.set_xticklabels(policies, rotation=25 if tilt else 0, ha="right" if tilt else "center")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.margins(y=0.15)
    if len(variants) > 1:
        handles = [plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black",
                                 hatch=BACKEND_HATCH.get(v[0], "xx")) for v in variants]
        ax.legend(handles, [variant_name(v, variants) for v in variants], fontsize=8)


def variant_name(v, variants):
    backend, source, scenario = v
    parts = [backend]
    if len({x[2] for x in variants}) > 1:
        parts.append(scenario)
    if len({x[1] for x in variants}) > len({x[0] for x in variants}):
        parts.append(os.path.basename(os.path.normpath(source)))
    return " · ".join(parts)


def fig_jct_throughput(rep, runs):
    fig, axes = plt.subplots(1, 3, figsize=SIZE_WIDE)
    grouped_bars(axes[0], runs, lambda r: r.results.get("jct_s", 0), "JCT (s)", lambda v: f"{v:.1f}")
    axes[0].set_title("Job completion time (lower is better)")
    grouped_bars(axes[1], runs, lambda r: r.results.get("prompt_tokens_per_s", 0) / 1e6, "prompt tokens/s (M)",
                 lambda v: f"{v:.2f}")
    axes[1].set_title("Prefill throughput")
    grouped_bars(axes[2], runs, lambda r: r.results.get("generated_tokens_per_s", 0) / 1e3,
                 "generated tokens/s (k)", lambda v: f"{v:.1f}")
    axes[2].set_title("Decode throughput")
    fig.suptitle(title_of(runs))
    fig.tight_layout()
    rep.save(fig, "jct_throughput.png", "JCT and throughput per policy", "overview")


def title_of(runs):
    scen = sorted({r.scenario for r in runs})
    back = sorted({r.backend for r in runs})
    return f"{', '.join(scen)} ({' vs '.join(back)})"


def fig_ttft_cdf(rep, runs):
    fig, axes = plt.subplots(1, 2, figsize=SIZE_WIDE)
    cols = colours(len(runs))
    for ci, r in enumerate(runs):
        t = np.sort(r.ttft().to_numpy())
        if len(t) == 0:
            continue
        y = np.arange(1, len(t) + 1) / len(t)
        for ax in axes:
            ax.plot(np.maximum(t, 1e-4), y, BACKEND_STYLE.get(r.backend, ":"), color=cols[ci], label=r.label, lw=1.6)
    axes[0].set_xscale("log")
    axes[0].set_title("TTFT CDF (log scale)")
    axes[1].set_title("TTFT CDF, tail (p90 and above)")
    axes[1].set_xscale("log")
    axes[1].set_ylim(0.9, 1.0005)
    for ax in axes:
        ax.set_xlabel("time to first token (s)")
        ax.set_ylabel("fraction of requests")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(title_of(runs))
    fig.tight_layout()
    rep.save(fig, "ttft_cdf.png", "TTFT distribution per policy", "overview")


def fig_ttft_breakdown(rep, runs):
    fig, axes = plt.subplots(1, 2, figsize=SIZE_WIDE, gridspec_kw={"width_ratios": [3, 2]})
    ax = axes[0]
    labels = [r.label for r in runs]
    bottom = np.zeros(len(runs))
    for ph in TTFT_PHASES:
        v = np.array([r.ttft_breakdown()[ph] for r in runs])
        ax.bar(range(len(runs)), v, 0.6, bottom=bottom, color=PHASE_COLOURS[ph], label=ph, edgecolor="black",
               linewidth=0.5)
        bottom += v
    for i, b in enumerate(bottom):
        ax.annotate(f"{b:.3f} s", (i, b), ha="center", va="bottom", fontsize=8, xytext=(0, 2),
                    textcoords="offset points")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels(labels, rotation=15 if len(runs) > 4 else 0, fontsize=9)
    ax.set_ylabel("mean seconds")
    ax.set_title("Mean TTFT breakdown")
    ax.legend(fontsize=9)
    ax.margins(y=0.12)
    ax.grid(axis="y", alpha=0.3)
    # Share of each phase: where the time to first token goes.
    ax = axes[1]
    left = np.zeros(len(runs))
    for ph in TTFT_PHASES:
        v = np.array([r.ttft_breakdown()[ph] for r in runs])
        tot = np.array([sum(r.ttft_breakdown().values()) for r in runs])
        share = np.divide(v, tot, out=np.zeros_like(v), where=tot > 0)
        ax.barh(range(len(runs)), share, 0.6, left=left, color=PHASE_COLOURS[ph], edgecolor="black", linewidth=0.5)
        left += share
    ax.set_yticks(range(len(runs)))
    ax.set_yticklabels(labels, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of TTFT")
    ax.set_title("TTFT phases as a share")
    fig.suptitle(title_of(runs))
    fig.tight_layout()
    rep.save(fig, "ttft_breakdown.png", "TTFT breakdown (queue, allocate, read, prefill)", "overview")


# The table of link kinds (core/vocab/link_kinds.hpp), handed over by `dualpath report` as --link-kinds JSON: per
# kind, whether there is one link per GPU, the link-name suffixes that split it by direction, and which field the
# link figure plots with what title.
LINK_KINDS = {}


def link_series(links, cls, nodes, gpn, field):
    """Time grid and per-node mean utilisation of the links of class `cls` (sparse rows = idle)."""
    if links.empty:
        return np.array([]), {}
    d = links[links["class"] == cls]
    times = np.sort(links["time"].unique())
    kind = LINK_KINDS[cls]
    per_node = (gpn if kind["per_gpu"] else 1) * max(1, len(kind["directions"]))  # e.g. PCIe: h2d and d2h
    out = {}
    for n in nodes:
        dn = d[d.node == n]
        s = dn.groupby("time")[field].sum().reindex(times, fill_value=0.0) / per_node
        out[n] = s.to_numpy()
    return times, out


def fig_links(rep, run):
    links = run.links()
    if "class" not in links.columns:  # no links.csv (an empty one is drawn: a run that moved no bytes)
        print(f"report: no links.csv in {run.path}: no link utilisation figure for it", file=sys.stderr)
        return
    cfg = run.summary.get("config", {})
    dep = cfg.get("deployment", {})
    gpn = cfg.get("topology", {}).get("gpus_per_node", 8)
    P, D = dep.get("prefill_nodes", 1), dep.get("decode_nodes", 1)
    nodes = list(range(P + D))
    panels = [(k["name"], k["plot_field"], k["plot_title"]) for k in LINK_KINDS.values() if k["plot_field"]]
    fig, axes = plt.subplots(len(panels), 1, figsize=SIZE_TALL, sharex=True)
    cols = colours(len(nodes))
    for ax, (cls, field, title) in zip(axes, panels):
        times, series = link_series(links, cls, nodes, gpn, field)
        for n in nodes:
            if n not in series:
                continue
            kind = "PE" if n < P else "DE"
            ax.step(times, 100 * series[n], where="post", color=cols[n], lw=1.2,
                    ls="-" if n < P else "--", label=f"node {n} ({kind})")
        if field == "kv_utilisation":  # the model traffic on the same links, dotted
            _, model = link_series(links, cls, nodes, gpn, "model_utilisation")
            tot = sum(model.values()) if model else 0
            if np.any(np.asarray(tot) > 0):
                for n in nodes:
                    ax.step(times, 100 * model[n], where="post", color=cols[n], lw=0.8, ls=":", alpha=0.8)
                title += " (dotted: model traffic)"
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("utilisation (%)")
        ax.set_ylim(-2, 112)  # headroom above the 100% line for the fault labels
        ax.grid(alpha=0.3)
        if not series:
            ax.text(0.5, 0.5, "no traffic on these links", transform=ax.transAxes, ha="center", va="center",
                    color="#666")
    # Faults (summary.json "faults", docs/faults.md): a shaded span on every panel, labelled once on the top one.
    end = float(links["time"].max() + links["duration"].max()) if not links.empty else 0.0
    for i, f in enumerate(run.summary.get("faults", [])):
        if f.get("started") is None:
            continue
        stop = f["ended"] if f.get("ended") is not None else max(end, f["started"])
        what = (f["kind"] + (f" node {f['node']}" if "node" in f else "") + (f" gpu {f['gpu']}" if "gpu" in f else "")
                + (f" x{f['factor']:g}" if "factor" in f else ""))
        for k, ax in enumerate(axes):
            ax.axvspan(f["started"], stop, color="#d62728", alpha=0.12, lw=0)
            ax.axvline(f["started"], color="#d62728", lw=1, ls="-.")
            if k == 0:
                ax.text(f["started"], 111 - 4 * (i % 2), " " + what, color="#d62728", fontsize=8, va="top")
    if links.empty:
        axes[-1].set_xlim(0, max(1.0, float(run.results.get("jct_s", 1.0))))
    axes[-1].set_xlabel("simulated time (s)" if run.backend == "sim" else "time (s)")
    fig.suptitle(f"Link utilisation over time: {run.scenario} / {run.label}")
    # One legend for all panels, right of them: it never covers a line, the 100% mark or a fault label.
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="upper right", fontsize=8, frameon=False, title="node (dashed: DE)",
                       title_fontsize=8)
            break
    fig.tight_layout(rect=(0, 0, 0.87, 1))
    name = f"links_{slug(run.backend)}_{slug(run.label)}.png"
    rep.save(fig, name, f"Link utilisation over time ({run.label})", "links", group=run.policy, empty=links.empty)


# The causes before the first token, in waits.csv's column order, and the resource each is charged to
# (core/metrics/wait_report.cpp).
TTFT_CAUSES = [("fetch", "scheduler fetch"), ("pe_admission", "PE admission (beta)"), ("de_hbm", "DE HBM"),
               ("read_queue", "SNIC queue"), ("write_wait", "storage write"), ("pe_buffer", "PE DRAM buffer"),
               ("de_buffer", "DE DRAM buffer"), ("read", "SNIC read"), ("pool_read", "DRAM pool read"),
               ("pe_queue", "PE busy (ready)"),
               ("kv_load", "KV load (CNIC)"), ("prefill_compute", "prefill compute"),
               ("ep_all_to_all", "EP all-to-all")]


def fig_waits(rep, run):
    w = run.waits()
    if w.empty or "time" not in w.columns:
        print(f"report: no waits.csv in {run.path}: no wait-cause figure for it", file=sys.stderr)
        return
    # Coarsen to at most ~200 points so long runs stay readable.
    step = max(1, len(w) // 200)
    g = w.groupby(w.index // step)
    t = g["time"].first().to_numpy()
    cols = [c for c, _ in TTFT_CAUSES if c in w.columns]
    vals = [g[c].mean().to_numpy() for c in cols]
    fig, ax = plt.subplots(figsize=SIZE_WIDE)
    # One hue per resource family (storage, memory, network, compute, scheduler), shades within it.
    ax.stackplot(t, vals, labels=[dict(TTFT_CAUSES)[c] for c in cols], colors=wait_colours(cols), step="post")
    ax.set_xlabel("simulated time (s)" if run.backend == "sim" else "time (s)")
    ax.set_ylabel("requests waiting before their first token")
    binds = run.summary.get("waits", {}).get("ttft", {}).get("binds", "?")
    ax.set_title(f"What requests wait for before their first token: {run.scenario} / {run.label} (binds: {binds})",
                 fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], labels[::-1], fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              title="top of the stack first; hues: orange storage,\npurple memory, green network, blue compute,\ngrey scheduler", title_fontsize=8)  # outside the data, in stacking order
    ax.grid(alpha=0.3)
    fig.tight_layout()
    name = f"waits_{slug(run.backend)}_{slug(run.label)}.png"
    rep.save(fig, name, f"Wait causes over time ({run.label})", "waits", group=run.policy)


# --- sweeps -----------------------------------------------------------------------------------------------------

SWEEP_METRICS = [("jct_s", "JCT (s)"), ("prompt_tokens_per_s", "prompt tokens/s"),
                 ("ttft_p50_s", "TTFT p50 (s)"), ("ttft_p99_s", "TTFT p99 (s)"), ("tpot_p50_s", "TPOT p50 (s)"),
                 ("generated_tokens_per_s", "generated tokens/s")]
NOT_PARAMS = {"policy", "scenario", "dir", "path", "status", "backend", "out", "complete"}


def is_metric(col):
    return col in dict(SWEEP_METRICS) or col.startswith("util_") or col.endswith(("_s", "_per_s", "_utilisation", "_bytes")) or col in (
        "rounds", "speedup")


def fig_sweep(rep, path, index):
    df = pd.read_csv(path)
    metrics = [(c, t) for c, t in SWEEP_METRICS if c in df.columns]
    if not metrics:
        metrics = [(c, c) for c in df.columns if is_metric(c) and pd.api.types.is_numeric_dtype(df[c])][:4]
    if "status" in df.columns:
        # `dualpath sweep` layout: the varied keys, then "status" and the metric columns; failed points are skipped
        axes = list(df.columns[:list(df.columns).index("status")])
        df = df[df.status == "ok"]
        params = [c for c in axes if df[c].nunique() > 1] or axes[:1]
    else:
        params = [c for c in df.columns if c not in NOT_PARAMS and not is_metric(c) and df[c].nunique() > 1]
    if df.empty:
        return None
    if not metrics or not params:
        return None
    metrics = metrics[:4]
    # x: the first numeric varied input (P, D, a bandwidth...); the others, and the policy, make the lines
    numeric = [c for c in params if pd.api.types.is_numeric_dtype(df[c])]
    x = (numeric or params)[0]
    series_keys = [c for c in params if c != x][:2]
    if "policy" in df.columns and df.policy.nunique() > 1 and not any(c.startswith("policy") for c in params):
        series_keys = ["policy"] + series_keys
    fig, axes = plt.subplots(2, 2, figsize=SIZE_TALL)
    axes = axes.flatten()
    if len(series_keys) == 1:
        groups = [((k,), g) for k, g in df.groupby(series_keys[0])]
    else:
        groups = list(df.groupby(series_keys)) if series_keys else [("all", df)]
    cols = colours(len(groups))
    numeric_x = pd.api.types.is_numeric_dtype(df[x])
    for ax, (m, title) in zip(axes, metrics):
        for gi, (key, g) in enumerate(groups):
            g = g.sort_values(x)
            xs = g[x] if numeric_x else g[x].astype(str)
            vals = key if isinstance(key, tuple) else (key,)
            name = " · ".join(str(v) if k.startswith("policy") else f"{k.split('.')[-1]}={v}"
                              for k, v in zip(series_keys, vals)) if series_keys else "all"
            ax.plot(xs, g[m], "o-", color=cols[gi], label=name, ms=4)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
    for ax in axes[len(metrics):]:
        ax.axis("off")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Sweep: {os.path.basename(os.path.dirname(os.path.abspath(path)))}")
    fig.tight_layout()
    name = f"sweep_{index}.png"
    rep.save(fig, name, f"Sweep over {', '.join(params)}", "sweep")
    return df


def main():
    ap = argparse.ArgumentParser(description="figures and index.html from dualpath results")
    ap.add_argument("--out", required=True)
    ap.add_argument("--link-kinds", required=True, help="the table of link kinds as JSON (from dualpath report)")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    LINK_KINDS.update({k["name"]: k for k in json.loads(a.link_kinds)})
    for d in a.dirs:
        if not os.path.isdir(d):
            print(f"dualpath report: {d}: not a folder", file=sys.stderr)
            return 2
    # A `dualpath plan` folder (plan.json) gets the plan's page (analysis/plan_report_html.py), not the run report
    # of its probes: one page per plan, so a plan folder is reported alone.
    plans = [d for d in a.dirs if os.path.isfile(os.path.join(d, "plan.json"))]
    if plans:
        if len(a.dirs) > 1:
            print(f"dualpath report: {plans[0]} is a plan folder (plan.json): report it alone, one `dualpath report` "
                  "per plan folder (each gets its own page)", file=sys.stderr)
            return 2
        page = write_plan_page(plans[0], a.out)
        print(f"report: the plan's page {page}")
        return 0
    runs, sweep_files = [], []
    for d in a.dirs:
        runs += find_runs(d)
        sweep_files += find_sweeps(d)
    if not runs and not sweep_files:
        print(f"dualpath report: no results (summary.json or sweep.csv) in {', '.join(a.dirs)}", file=sys.stderr)
        return 2
    label_runs(runs)
    # Group by policy so sim and hw of a policy sit next to each other.
    order = list(dict.fromkeys(r.policy for r in runs))
    runs.sort(key=lambda r: (order.index(r.policy), r.backend != "sim", r.backend, r.source))
    rep = Report(a.out)
    if runs:
        fig_jct_throughput(rep, runs)
        fig_ttft_cdf(rep, runs)
        fig_ttft_breakdown(rep, runs)
        for r in runs:
            fig_links(rep, r)
            fig_waits(rep, r)
    sweeps = []
    for i, p in enumerate(sweep_files):
        df = fig_sweep(rep, p, i)
        for f in rep.figures:
            if f["section"] == "sweep" and "source" not in f:
                f["source"] = p
        sweeps.append((p, df if df is not None else pd.read_csv(p)))
    write_html(rep, runs, sweeps, a.dirs)
    with open(os.path.join(rep.out, "figures.json"), "w") as f:
        json.dump(rep.figures, f, indent=1)
    print(f"report: {len(rep.figures)} figures and index.html in {rep.out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ResultsError as e:  # a damaged results folder is bad input: one line, exit 2, no traceback
        print(f"dualpath: error: {e}", file=sys.stderr)
        sys.exit(2)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError, OverflowError) as e:
        # Input the checks let through and the drawing could not use: still one line, never a traceback (a test feeds
        # damaged files to find these: tests/cli/report_hostile.py).
        print(f"dualpath: error: report: a results file holds a value it cannot draw ({type(e).__name__}: "
              f"{str(e)[:120]}); is it a folder dualpath wrote?", file=sys.stderr)
        sys.exit(2)
