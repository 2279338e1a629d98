#!/usr/bin/python3
"""Plot a `dualpath capacity` search (capacity.json) to a PNG.

    /usr/bin/python3 analysis/plot_capacity.py DIR/capacity.json DIR/capacity.png

Two panels against the probed arrival rate (APS), one series per policy: the TTFT the stop rule judged (mean over
its last 150-s window) and the mean TPOT, each with its SLO limit as a horizontal line. Filled markers met the
SLO, hollow ones did not; a dashed vertical line marks each policy's capacity.
Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, png):
    c = json.load(open(src))
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


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_capacity.py capacity.json capacity.png")
    main(sys.argv[1], sys.argv[2])
