"""Readability helpers shared by the plot scripts (issue 45: plots a planner reads at a glance): names in words
instead of raw keys, integer ticks for counts, plain numbers with SI prefixes instead of a "1e6" offset, readable
log ticks, legends placed outside the data, and one hue per resource family.
"""
import math

from matplotlib.ticker import EngFormatter, FixedLocator, FuncFormatter, MaxNLocator, NullLocator

# Scenario keys a sweep or plan varies, in words (the last path segment with spaces is the fallback).
KEY_WORDS = {
    "policy.name": "policy",
    "deployment.prefill_nodes": "prefill nodes",
    "deployment.decode_nodes": "decode nodes",
    "deployment.pe_group_gpus": "GPUs per prefill group",
    "deployment.de_group_gpus": "GPUs per decode group",
    "topology.snic_bw": "storage NIC bandwidth",
    "topology.cnic_bw": "compute NIC bandwidth",
    "topology.gpus_per_node": "GPUs per node",
    "workload.agents": "agents",
    "workload.aps": "agents per second",
    "workload.append_scale": "append scale",
    "policy.block_tokens": "tokens per block",
}


def key_words(key):
    return KEY_WORDS.get(key, key.rsplit(".", 1)[-1].replace("_", " "))


def series_label(key, value):
    """A legend entry for one value of a varied key: the policy by its name, anything else as 'words value'."""
    if key in ("policy", "policy.name"):
        return value
    return f"{key_words(key)} {value}"


def integer_axis(axis, values):
    """Counts get integer ticks: the values themselves when there are few, else integer steps."""
    vals = sorted({v for v in values if not math.isnan(v)})
    if vals and all(abs(v - round(v)) < 1e-9 for v in vals):
        if len(vals) <= 12:
            axis.set_major_locator(FixedLocator(vals))
        else:
            axis.set_major_locator(MaxNLocator(integer=True))
        axis.set_major_formatter(FuncFormatter(lambda x, _: f"{int(round(x))}"))


def plain_numbers(axis, unit=""):
    """1.2 M, 350 k, 4.5 (with `unit`) instead of an offset and scientific notation; SI prefixes only from a
    thousand up (a 0.5 agents/s tick stays 0.5, not "500 m")."""
    eng = EngFormatter(unit=unit, sep=" ")
    suffix = f" {unit}" if unit else ""
    axis.set_major_formatter(FuncFormatter(lambda x, pos: eng(x, pos) if abs(x) >= 1000 else f"{x:g}{suffix}"))


def ratio_text(x):
    """P/D as a small fraction where it is one: 1/3, 1, 3/2, else 3 significant digits."""
    for den in range(1, 9):
        n = x * den
        if abs(n - round(n)) < 1e-9:
            return f"{int(round(n))}/{den}" if den > 1 else f"{int(round(n))}"
    return f"{x:.3g}"


def ratio_ticks(axis, ratios):
    """A log axis of P/D ratios, ticked at the ratios themselves (a decade tick alone says little)."""
    vals = sorted(set(ratios))
    axis.set_major_locator(FixedLocator(vals))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda x, _: ratio_text(x)))


def legend_below(fig, ax, ncol=4, **kw):
    """One legend under the axes (never over the data); returns it, or None when nothing is labelled."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=min(ncol, len(handles)),
                     fontsize=8, frameon=False, **kw)


def legend_right(ax, **kw):
    """A legend to the right of the axes (never over the data)."""
    if not ax.get_legend_handles_labels()[0]:
        return None
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, **kw)


# What a request waits for, grouped by the resource family it is charged to: one hue per family, shades within.
WAIT_FAMILIES = {
    "scheduler": ("Greys", ["fetch", "pe_admission"]),
    "memory": ("Purples", ["de_hbm", "pe_buffer", "de_buffer"]),
    "storage": ("Oranges", ["read_queue", "read", "write_wait", "pool_read"]),
    "network": ("Greens", ["kv_load", "ep_all_to_all"]),
    "compute": ("Blues", ["pe_queue", "prefill_compute"]),
}


def wait_colours(causes):
    """A colour per wait cause: its family's hue, a distinct shade per member."""
    import matplotlib.pyplot as plt
    out = {}
    for cmap_name, members in WAIT_FAMILIES.values():
        cmap = plt.get_cmap(cmap_name)
        for i, c in enumerate(members):
            out[c] = cmap(0.45 + 0.45 * i / max(1, len(members) - 1))
    return [out.get(c, (0.5, 0.5, 0.5, 1.0)) for c in causes]
