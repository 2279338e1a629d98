#!/usr/bin/python3
"""Plot a `dualpath capacity` search (capacity.json) to a PNG.

    /usr/bin/python3 analysis/plot_capacity.py DIR/capacity.json DIR/capacity.png

Two panels against the probed arrival rate (APS), one series per policy: the TTFT the stop rule judged (mean over
its last 150-s window) and the mean TPOT, each with its SLO limit as a horizontal line. Filled markers met the
SLO, hollow ones did not; a dashed vertical line marks each policy's capacity.
Needs matplotlib (Debian: python3-matplotlib).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_shapes import ResultsError, check, read_json  # noqa: E402

# What the plot reads from capacity.json (core/study/capacity_study.cpp writes it).
CAPACITY = {"identity": {"scenario": "string", "slo": {"ttft_s": "number", "tpot_s": "number"}},
            "policies": "object"}
POLICY = {"capacity_aps": "number", "probes": [{"aps": "number", "meets_slo": "boolean",
                                                 "ttft_window_mean_s?": "number|null", "tpot_mean_s?": "number|null"}]}


def main(src, png):
    c = read_json(src, "a capacity.json")
    check(c, CAPACITY, "", src, "capacity.json `dualpath capacity`")
    for name, p in c["policies"].items():
        check(p, POLICY, f"/policies/{name}", src, "capacity.json `dualpath capacity`")
        # Rates and times a search can give (at most 1e6 APS, a day's SLO): beyond, nothing can be drawn.
        figures = [(f"/policies/{name}/capacity_aps", p["capacity_aps"])] + [
            (f"/policies/{name}/probes/{i}/{k}", pr.get(k)) for i, pr in enumerate(p["probes"])
            for k in ("aps", "ttft_window_mean_s", "tpot_mean_s")]
        for where, v in figures + [("/identity/slo/ttft_s", c["identity"]["slo"]["ttft_s"]),
                                   ("/identity/slo/tpot_s", c["identity"]["slo"]["tpot_s"])]:
            if v is not None and not 0 <= v <= 1e7:
                raise ResultsError(f"{src}: {where}: expected a rate or time in [0, 1e7], found {v:g} (not a "
                                   "capacity.json `dualpath capacity` writes)")
    slo = c["identity"]["slo"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (name, p) in enumerate(sorted(c["policies"].items())):
        col = colours[i % len(colours)]
        probes = sorted(p["probes"], key=lambda pr: pr["aps"])
        for ax, key, scale in ((top, "ttft_window_mean_s", 1.0), (bottom, "tpot_mean_s", 1e3)):
            pts = [(pr["aps"], pr[key] * scale, pr["meets_slo"]) for pr in probes if pr.get(key) is not None]
            if not pts:
                continue
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], "-", color=col, alpha=0.5)
            ax.scatter([x for x, _, m in pts if m], [y for _, y, m in pts if m], color=col, label=f"{name}")
            ax.scatter([x for x, _, m in pts if not m], [y for _, y, m in pts if not m], facecolors="none",
                       edgecolors=col)
            if p.get("capacity_aps"):
                ax.axvline(p["capacity_aps"], color=col, linestyle="--", linewidth=1)
        top.annotate(f"{name}: {p['capacity_aps']:.3g} APS", xy=(p["capacity_aps"], 0), xycoords=("data", "axes fraction"),
                     xytext=(3, 4 + 12 * i), textcoords="offset points", color=col, fontsize=8)
    top.axhline(slo["ttft_s"], color="black", linestyle=":", label=f"SLO TTFT {slo['ttft_s']:g} s")
    bottom.axhline(slo["tpot_s"] * 1e3, color="black", linestyle=":", label=f"SLO TPOT {slo['tpot_s'] * 1e3:g} ms")
    top.set_ylabel("TTFT, stop-rule window mean (s)")
    bottom.set_ylabel("TPOT mean (ms)")
    bottom.set_xlabel("agent arrival rate (APS); filled: meets the SLO, hollow: misses")
    top.set_yscale("log")
    top.legend(fontsize=8)
    bottom.legend(fontsize=8)
    top.set_title("capacity search: " + c["identity"]["scenario"].rsplit("/", 1)[-1], fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_capacity.py capacity.json capacity.png")
    try:
        main(sys.argv[1], sys.argv[2])
    except ResultsError as e:  # a damaged capacity.json: one line, exit 2
        print(f"dualpath: error: {e}", file=sys.stderr)
        sys.exit(2)
