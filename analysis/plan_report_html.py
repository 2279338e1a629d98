"""The page of `dualpath report PLAN_DIR` (issue 65 item 5): one self-contained index.html for a `dualpath plan`
folder, from its plan.json: the splits as a chart with their brackets (capacity) or JCTs, what binds each, the cost
where the plan was priced, the recommendation and its ties, and the command that reproduces the plan. Both
questions: the forward one (`plan --nodes N | --budget G`, jct or capacity, with or without --vary) and the inverse
one (`plan --target-aps X`). Charts are inline SVG, plot_plan.py's figure a data: URI: no other file, no network.
A plan.json that is not what `dualpath plan` writes raises ResultsError naming the file and the JSON path (exit 2;
analysis/plan_json.py).
"""
import base64
import html
import io
import json
import math
import os
import shlex
import sys

from plan_json import COST, load_plan

E = html.escape
# The resources a plan's `binds` names (docs/glossary.md, "What binds"): the colour of its family (orange storage,
# blue compute, purple memory, green network, grey scheduler, as plot_style.WAIT_FAMILIES) and words.
ST, CO, ME, NE = "#e6862e", "#4a7fc1", "#8e6bbf", "#4c9a5b"
BINDS = {"snic": (ST, "the storage NICs (reading hit KV)"), "storage_write": (ST, "storage writes"),
         "dram_pool": (ST, "the DRAM pool's reads"), "pe_compute": (CO, "prefill compute"),
         "de_compute": (CO, "decode compute"), "de_hbm": (ME, "decode HBM room"),
         "dram_buffer_pe": (ME, "the prefill nodes' DRAM buffers"), "dram_buffer_de": (ME, "the decode nodes' DRAM buffers"),
         "kv_load_path": (NE, "the KV load path (CNIC, PCIe, DRAM)"), "ep_all_to_all": (NE, "the EP all-to-all"),
         "kv_transfer": (NE, "the KV transfer to decode"), "handoff": (NE, "the prefill-to-decode handoff"),
         "scheduler_fetch": ("#8a8a8a", "the scheduler's fetch period")}
VARIANT = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

num = lambda x, digits=4: "-" if x is None else f"{x:.{digits}g}"  # noqa: E731
dollars = lambda x: "-" if x is None else (f"${x:.4f}" if x < 10 else f"${x:,.2f}")  # noqa: E731 (as plan prints)
split_name = lambda s: f"{s['P']}P{s['D']}D"  # noqa: E731
family = lambda b: BINDS.get(b, ("#777",))[0]  # noqa: E731
times = lambda x, f: None if x is None else x * f  # noqa: E731
price_arg = lambda v: ",".join(f"{k}={x!r}" for k, x in v.items()) if isinstance(v, dict) else repr(v)  # noqa: E731


def binds_html(b):
    return "-" if not b else (f"<span class='bind' style='border-color:{family(b)}' title='"
                              f"{E(BINDS.get(b, ('', b))[1])}'><i style='background:{family(b)}'></i>{E(b)}</span>")


def cost_words(c, nodes):
    return (f"Cost at {dollars(c['per_hour'])} an hour for its {nodes} nodes: {dollars(c['per_agent'])} per agent, "
            f"{dollars(c['per_million_input_tokens'])} per million input tokens, "
            f"{dollars(c['per_million_output_tokens'])} per million output tokens (each figure the whole cost)")


def command(p, folder):
    """The `dualpath plan` command whose identity is this plan's (cli/plan_cmd.cpp): rerun into the same folder, it
    reuses every finished split and probe. --jobs changes only the speed and is not part of the identity."""
    idt, target = p["identity"], "target_aps" in p
    a = ["dualpath", "plan", idt["scenario"]] + (
        ["--target-aps", repr(p["target_aps"]).removesuffix(".0"), "--max-nodes", str(p["max_nodes"])] if target
        else ["--budget", str(p["budget_gpus"])] if "budget_gpus" in p
        else ["--nodes", str(p.get("nodes") or p["variants"][0]["nodes"])]) + ["--objective", p["objective"]]
    if not any(v.startswith("policy.name=") for v in idt.get("vary", [])):  # --policy and --vary policy.name exclude
        a += ["--policy", idt["policy"]]
    if p["objective"] == "capacity" and not target and idt.get("resolution") is not None:  # target: no --resolution
        a += ["--resolution", repr(idt["resolution"])]
    a += [x for k in ("slo_ttft", "slo_tpot") if k in idt for x in (f"--{k.replace('_', '-')}", str(idt[k]))]
    a += [x for flag, key in (("--overlay", "overlays"), ("--set", "set"), ("--vary", "vary"))
          for v in idt.get(key, []) for x in (flag, v)]
    a += [x for k, v in p.get("cost_basis", {}).items() for x in (f"--{k.replace('_', '-')}-cost", price_arg(v))]
    a += ["--ideal"] * any("ideal" in s for s in p.get("splits", []))  # its figures are rewritten only with it
    return shlex.join(a + ["--out", os.path.abspath(folder)])


def ticks(top):
    step = 10 ** math.floor(math.log10(top / 5))
    step *= next(m for m in (1, 2, 5, 10) if top / (step * m) <= 6)
    return [i * step for i in range(int(top / step) + 1)]


def svg(w, h, label, body):
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' viewBox='0 0 {w} {h}' role='img' "
            f"aria-label='{label}' font-family='sans-serif' font-size='12'><rect width='100%' height='100%' "
            f"fill='white'/>{''.join(body)}</svg>")


def split_row(o, s, lab, col, y, X, jct, rec, tied, cols):
    """One split's row: its bar, bracket or cross, the figure, binds and $/agent; a tooltip that tells all."""
    x0, cv, cb, cc = cols
    name, mid = split_name(s), y + 15
    full = f"{lab} {name}".strip()
    star = bool(rec) and rec.get("split") == name and rec.get("variant", "") == lab
    cap, fail, val, why = s.get("capacity_aps"), s.get("lowest_failing_aps"), s.get("jct_s"), s.get("why", "")
    note = "dropped" if s.get("search") == "dropped" else "gave up" if s.get("search") == "gave up" else ""
    note += ((", " if note else "") + "lower bound") if s.get("lower_bound") else ""
    tip = (f"{full}: infeasible: {why}" if not s["feasible"] else f"{full}: JCT {num(val, 5)} s" if jct else
           f"{full}: met the SLO at {num(cap)} APS, missed at {num(fail)} APS"
           + (f"; dropped: it fails at or below {s['dropped_below']}'s capacity" if s.get("dropped_below") else "")
           + ("; a lower bound (every agent finished)" if s.get("lower_bound") else ""))
    o.append(f"<g><title>{E(tip + (', binds on ' + s['binds'] if s.get('binds') else ''))}</title>")
    if star or full in tied:
        o.append(f"<rect x='2' y='{y + 1}' width='996' height='28' fill='{'#fff3bf' if star else '#fde2cf'}' rx='4'/>")
    o.append(f"<text x='20' y='{mid + 4}'>{'&#9733; ' if star else ''}{name}<tspan fill='#777'> P/D "
             f"{s['P'] / s['D']:.3g}</tspan>"
             + ("<tspan fill='#c0392b' font-weight='bold'> TIE</tspan>" if full in tied else "") + "</text>")
    text, bar = "", f"<rect x='{x0}' y='{mid - 7}' height='14' fill='{col}'"
    if not s["feasible"]:
        o.append(f"<path d='M{x0 + 2},{mid - 6} l12,12 m0,-12 l-12,12' stroke='#c0392b' stroke-width='2.5'/><text "
                 f"x='{x0 + 22}' y='{mid + 4}' fill='#c0392b'>infeasible: {E(why[:62] + '...' * (len(why) > 62))}</text>")
    elif jct and val is not None:
        o.append(f"{bar} width='{X(val) - x0:.1f}'/>")
        text = f"{num(val, 5)} s"
    elif not jct and (cap is not None or fail is not None):
        end = X(fail if fail is not None else cap)
        faint = " fill-opacity='0.45'" * (note[:7] == "dropped")
        o.append(f"{bar} width='{X(cap) - x0:.1f}'{faint}/>"
                 if cap is not None else f"{bar} width='{end - x0:.1f}' fill-opacity='0' stroke='{col}' "
                 "stroke-dasharray='4 3'/>")
        if cap is not None and fail is not None:  # the bracket: met at cap, missed at fail
            o.append(f"<rect x='{X(cap):.1f}' y='{mid - 9}' width='{end - X(cap):.1f}' height='18' fill='{col}' "
                     f"fill-opacity='0.25'/><path d='M{X(cap) + 4:.1f},{mid - 10} h-4 v20 h4' fill='none' "
                     "stroke='#222' stroke-width='1.6'/>")
        if fail is not None:
            o.append(f"<path d='M{end - 3:.1f},{mid - 10} q6,10 0,20' fill='none' stroke='#222' stroke-width='1.6'/>")
        text = (f"{num(cap)} &lt; {num(fail)}" if cap is not None and fail is not None
                else f"&lt; {num(fail)}" if cap is None else f"{num(cap)}, no rate missed")
    else:
        o.append(f"<text x='{x0 + 4}' y='{mid + 4}' fill='#c0392b'>&#9888; failed: no result (its log says why)</text>")
    if text:
        o.append(f"<text x='{cv}' y='{mid + 4}'>{text}<tspan fill='#777' font-size='11'> {note}</tspan></text>")
    if s.get("binds"):
        o.append(f"<rect x='{cb}' y='{mid - 7}' width='10' height='14' fill='{family(s['binds'])}' rx='2'/>"
                 f"<text x='{cb + 15}' y='{mid + 4}'>{E(s['binds'])}</text>")
    if s.get("cost"):
        o.append(f"<text x='{cc}' y='{mid + 4}'>{dollars(s['cost']['per_agent'])}</text>")
    o.append("</g>")


def split_chart(p):
    """One row per split, grouped by variant: a bar to the capacity (or JCT), the bracket [capacity, lowest
    failing) as a band, a dropped split's upper bound dashed, an infeasible split crossed; the figure, binds and
    $/agent in columns on the right; the recommendation starred, its ties tagged."""
    jct, rec = p["objective"] == "jct", p.get("recommendation") or {}
    vals = [x for s in p["splits"] for x in (s.get("jct_s"), s.get("capacity_aps"), s.get("lowest_failing_aps"))
            if x is not None]
    m = 1.05 * max(vals) if vals and max(vals) > 0 else 1.0
    top = math.ceil(m / ticks(m)[1]) * ticks(m)[1]
    x0, x1, cols = 200, 560, (200, 575, 820, 930)  # the plot from x0 to x1; the value, binds and cost columns
    X = lambda v: x0 + (x1 - x0) * v / top  # noqa: E731
    groups = [(vi, lab, sorted((s for s in p["splits"] if s.get("variant", "") == lab), key=lambda s: s["P"] / s["D"]))
              for vi, lab in enumerate([v["label"] for v in p.get("variants", [])] or [""])]
    groups, nodes = [g for g in groups if g[2]], {v["label"]: v["nodes"] for v in p.get("variants", [])}
    h = 30 + sum(24 + 30 * len(g[2]) for g in groups) + 56
    o = [f"<line x1='{X(t):.1f}' x2='{X(t):.1f}' y1='22' y2='{h - 50}' stroke='#e3e3e3'/><text x='{X(t):.1f}' "
         f"y='{h - 36}' text-anchor='middle' fill='#444'>{t:g}</text>" for t in ticks(top)]
    o.append(f"<text x='{(x0 + x1) / 2}' y='{h - 16}' text-anchor='middle'>"
             f"{'JCT (s), lower is better' if jct else 'agents per second within the SLO, higher is better'}</text>"
             f"<g fill='#444'><text x='{cols[1]}' y='16'>{'JCT' if jct else 'APS met &lt; missed'}</text><text "
             f"x='{cols[2]}' y='16'>binds</text><text x='{cols[3]}' y='16'>{'$/agent' * bool(p.get('cost_basis'))}"
             "</text></g>")
    y, tied = 24, set(rec.get("tied_with", []))
    for vi, lab, mine in groups:
        col = VARIANT[vi % len(VARIANT)]
        o.append(f"<text x='8' y='{y + 16}' font-weight='bold' fill='{col}'>{E(lab or 'splits')}<tspan fill='#777' "
                 f"font-weight='normal'> {nodes.get(lab, p.get('nodes', '?'))} nodes</tspan></text>")
        y += 24
        for s in mine:
            split_row(o, s, lab, col, y, X, jct, rec, tied, cols)
            y += 30
    return svg(1000, h, "the splits and their " + ("JCT" if jct else "capacity brackets"), o)


def target_chart(p):
    """Per variant, each node count the search decided as a column of its splits (+ met the SLO at the target,
    - missed, * a lower bound, ! ruled out by the read bound); the answer's bracket (N - 1 fails, N holds) below."""
    cw, ch, x0, y, o = 150, 22, 170, 10, []
    for vi, v in enumerate(p["variants"]):
        dec, xs = sorted(v["decided"], key=lambda d: d["nodes"]), {}
        more = any(len(d["splits"]) > 12 for d in dec)
        o.append(f"<text x='8' y='{y + 16}' font-weight='bold' fill='{VARIANT[vi % len(VARIANT)]}'>"
                 f"{E(v.get('label') or v['policy'])}</text><text x='8' y='{y + 34}' fill='#444'>"
                 + (f"answer: {v['nodes']} nodes" if v["nodes"] else f"no answer up to {p['max_nodes']}") + "</text>")
        for i, d in enumerate(dec):
            x = xs[d["nodes"]] = x0 + i * cw
            ans = d["nodes"] == v["nodes"]
            o.append(f"<text x='{x + cw / 2 - 5}' y='{y + 16}' text-anchor='middle' font-weight='"
                     f"{'bold' if ans else 'normal'}'>{'&#9733; ' * ans}{d['nodes']} nodes</text><text x='"
                     f"{x + cw / 2 - 5}' y='{y + 30}' text-anchor='middle' fill='{'#2e7d32' if d['holds'] else '#c0392b'}'>"
                     f"{'holds' if d['holds'] else 'does not hold'}</text>")
            for j, s in enumerate(d["splits"][:12]):
                pr, cy = s.get("probe") or {}, y + 40 + j * ch
                mark, fill = (("!", "#d5d5d5") if s.get("ruled_out") else
                              ("+*" if pr.get("ended_by") == "all_agents_done" else "+", "#8fd18f")
                              if s["meets_slo"] else ("-", "#f2a6a0"))
                tip = s.get("ruled_out") or (f"binds {s.get('binds', '?')}, TTFT window mean "
                                             f"{num(pr.get('ttft_window_mean_s'), 3)} s, ended by {pr.get('ended_by')}")
                o.append(f"<g><title>{E(s['split'] + ': ' + tip)}</title><rect x='{x}' y='{cy}' width='{cw - 10}' "
                         f"height='{ch - 3}' fill='{fill}' rx='3'/><text x='{x + 6}' y='{cy + 14}'>{E(s['split'])} "
                         f"{mark}</text><text x='{x + cw - 14}' y='{cy + 14}' text-anchor='end' fill='#333' "
                         f"font-size='10'>{E(s.get('binds', ''))}</text></g>")
            if len(d["splits"]) > 12:
                o.append(f"<text x='{x + 6}' y='{y + 52 + 12 * ch}' fill='#444'>+{len(d['splits']) - 12} more "
                         "(table below)</text>")
        by = y + 40 + max([min(len(d["splits"]), 12) for d in dec] + [1]) * ch + (18 if more else 6)
        lo, hi = v.get("largest_failing_nodes"), v["nodes"]
        if hi in xs:  # the answer's bracket: from the largest count that failed (if decided) to the answer
            a, e = xs.get(lo, xs[hi]), xs[hi] + cw - 10
            words = (f"{lo} nodes do not hold {num(p['target_aps'])} APS, {hi} do" if lo
                     else f"{hi} nodes hold it: the smallest cluster")
            o.append(f"<path d='M{a},{by} v8 H{e} v-8' fill='none' stroke='#222' stroke-width='1.6'/>"
                     f"<text x='{(a + e) / 2}' y='{by + 24}' text-anchor='middle'>{E(words)}</text>")
        y = by + 40
    w = max(600, x0 + cw * max([len(v["decided"]) for v in p["variants"]] + [1]) + 20)
    return svg(w, y, "node counts decided per variant", o)


def pd_figure(plan_path):
    """analysis/plot_plan.py's figure (the objective against P/D, the §4.2 range shaded) as a data: URI."""
    import matplotlib.pyplot as plt
    import plot_plan
    buf = io.BytesIO()
    try:
        plot_plan.main(plan_path, buf)
    except Exception as e:  # noqa: BLE001 (the page stands without it; say why)
        print(f"dualpath report: {plan_path}: no P/D figure ({type(e).__name__}: {e})", file=sys.stderr)
    plt.close("all")
    return buf.getvalue() and (
        "<figure><img alt='the objective against P/D' width='840' height='600' src='data:image/png;base64,"
        f"{base64.b64encode(buf.getvalue()).decode()}'><figcaption>The splits against P/D (analysis/plot_plan.py): "
        "each variant's §4.2 bottleneck-free range shaded, infeasible splits crossed, the recommendation a star."
        "</figcaption></figure>") or ""


# --- the page ------------------------------------------------------------------------------------------------------
def table(head, rows):
    """An HTML table, less the columns that are empty (or "-") in every row."""
    keep = [i for i in range(len(head)) if any(r[i] not in ("", "-") for r in rows)]
    return ("<table><tr>" + "".join(f"<th>{head[i]}</th>" for i in keep) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{r[i]}</td>" for i in keep) + "</tr>" for r in rows) + "</table>")


def ideal_words(s):
    """`plan --ideal`'s figures beside a variant's best split (cli/plan_ideal.cpp), or nothing."""
    i = s.get("ideal")
    if not i:
        return ""
    bound = i.get("read_bound_aps")
    return (f"; with free KV loads (the Oracle) {num(i.get('oracle_aps'))} APS; the §4.2 read bound "
            + (f"{num(bound)} APS ({E(i.get('read_bound_link', ''))} full first)" if bound is not None else "none"))


def forward_sections(p, plan_path):
    jct, rec, res = p["objective"] == "jct", p.get("recommendation"), p["identity"].get("resolution")
    by_name = {(s.get("variant", ""), split_name(s)): s for s in p["splits"]}
    nodes = {v["label"]: v["nodes"] for v in p.get("variants", [])}
    words = ["<b>No split could be evaluated</b>: every split is infeasible or failed (table below)."]
    if rec:
        s = by_name.get((rec.get("variant", ""), rec["split"]), {})
        value = (f"JCT {num(rec['value'], 5)} s" if jct else f"capacity {num(rec['value'], 5)} APS (its bracket "
                 f"{num(s.get('capacity_aps'))} &lt; {num(s.get('lowest_failing_aps'))}: met the SLO at the first, "
                 "missed at the second)")
        words = [f"<b>Recommended: {E((rec.get('variant', '') + ' ' + rec['split']).strip())}</b>, {value}, binds on "
                 f"{binds_html(rec.get('binds'))}; {'inside' if s.get('in_analytic_range') else 'outside'} the §4.2 "
                 "bottleneck-free range."]
        if rec.get("tie"):
            why = ("their JCTs are within the 1% one run moves under a tiny perturbation" if jct else
                   f"the brackets overlap; a finer --resolution (now {res}) or --objective jct on an offline run "
                   "would separate them")
            words.append(f"<b class='tie'>But it is a TIE with {E(', '.join(rec.get('tied_with', [])))}</b>, not a "
                         f"winner: {why}.")
        elif rec.get("runner_up"):
            ru = (rec.get("runner_up_variant", "") + " " + rec["runner_up"]).strip()
            r = by_name.get((rec.get("runner_up_variant", rec.get("variant", "")), rec["runner_up"]), {})
            words.append(f"Ahead of the runner-up {E(ru)}, which fails at {num(r.get('lowest_failing_aps'))} APS."
                         if r.get("search") == "dropped" else
                         f"{100 * rec.get('margin', 0):.3g}% better than the runner-up {E(ru)}.")
        if s.get("lower_bound"):
            words.append("Its capacity is a lower bound: every agent finished before a steady state; a longer "
                         "workload.duration would decide.")
        if rec.get("cost"):
            words.append(E(cost_words(rec["cost"], nodes.get(rec.get("variant", ""), p.get("nodes", "?")))) + ".")
    best = "".join(f"<li>{E(v['label'])}: {E(v.get('best', 'no split evaluated'))}" + (" (a TIE)" if v.get("tie") else
                   f", {100 * v['margin']:.3g}% ahead of {E(v.get('runner_up', '?'))}" if "margin" in v else "")
                   + ideal_words(by_name.get((v["label"], v.get("best")), {})) + "</li>" for v in p.get("variants", []))
    if not p.get("variants") and rec and by_name.get(("", rec["split"]), {}).get("ideal"):
        best = f"<li>{E(rec['split'])}{ideal_words(by_name[('', rec['split'])])}</li>"
    rec_html = " ".join(words) + (f"<p>Best split per variant:</p><ul>{best}</ul>" if best else "")
    legend = ("Bars: " + ("the JCT of each split's run." if jct else "the capacity (the highest rate that met the "
              "SLO); the band between <b>[</b> and <b>)</b> is its bracket, up to the lowest rate that missed. Dashed: "
              "a dropped split, only its upper bound known; faint: dropped after its bracket.") + " &#10005;: "
              "infeasible (weights do not fit a GPU). &#9733;: recommended; TIE: a split it cannot be told apart "
              "from. Hover a row for details.")
    rows = []
    for s in p["splits"]:
        c = s.get("cost") or {}
        note = s.get("why", "") if not s["feasible"] else "; ".join(x for x in (
            s.get("search", "") * (s.get("search") != "done"),
            f"fails at or below {s['dropped_below']}'s capacity" if s.get("dropped_below") else "",
            "a lower bound (every agent finished)" * bool(s.get("lower_bound"))) if x)
        val = ("infeasible" if not s["feasible"] else num(s.get("jct_s"), 5) if jct else
               f"{num(s.get('capacity_aps')) + ' ' if s.get('capacity_aps') is not None else ''}"
               f"&lt; {num(s.get('lowest_failing_aps'))}")
        rows.append([E(s.get("variant", "")), split_name(s), f"{s['P'] / s['D']:.3g}",
                     "yes" if s.get("in_analytic_range") else "no",
                     f"EP{s.get('pe_group_gpus', '?')}/EP{s.get('de_group_gpus', '?')}", val,
                     "" if jct else str(s.get("probes", "")), binds_html(s.get("binds"))]
                    + [dollars(c.get(k)) for k in COST] + [E(note)])
    head = ["variant", "split", "P/D", "in §4.2 range", "EP groups", "JCT (s)" if jct else "APS &lt; fails at",
            "probes", "binds", "$/hour", "$/agent", "$/M input tok", "$/M output tok", "notes"]
    return rec_html, split_chart(p), legend, table(head, rows), pd_figure(plan_path)


def target_sections(p):
    x, rec, lines = num(p["target_aps"]), p.get("recommendation"), []
    for v in p["variants"]:
        who = E(v.get("label") or f"policy {v['policy']}")
        if v["nodes"]:
            hold = ", ".join(f"{E(h['split'])} binds on {binds_html(h['binds'])}" for h in v.get("holding_splits", []))
            below = (f"; {v['largest_failing_nodes']} nodes do not (no split holds it)" if v["largest_failing_nodes"]
                     else "; the smallest cluster, 2 nodes")
            lines.append(f"<li>{who}: <b>{v['nodes']} nodes hold {x} APS</b> ({hold}){below}."
                         + (f" {E(cost_words(v['cost'], v['nodes']))}." if v.get("cost") else "") + "</li>")
        else:
            lines.append(f"<li>{who}: no cluster of up to {p['max_nodes']} nodes holds {x} APS (raise --max-nodes)."
                         "</li>")
    v = p["variants"][0] if p["variants"] else {"nodes": None}
    head = (f"<b>Recommended: {E(rec['variant'])} on {rec['nodes']} nodes</b>" + (
        f", <b class='tie'>a TIE with {E(', '.join(rec.get('tied_with', [])))}</b> (as few nodes; compare their costs "
        "or a higher --target-aps)" if rec.get("tie") else "") if rec else
        f"<b>Recommended: {v['nodes']} nodes</b> ({E(', '.join(h['split'] for h in v.get('holding_splits', [])))})"
        if len(p["variants"]) == 1 and v["nodes"] else f"<b>No cluster of up to {p['max_nodes']} nodes holds {x} APS</b>")
    rec_html = (f"{head}{' for ' + x + ' agents per second within the SLO' if rec or v['nodes'] else ''}."
                f"<ul>{''.join(lines)}</ul>")
    legend = (f"Each column is a node count the search decided at {x} APS, each cell one of its splits: + met the "
              "SLO, +* met only as a lower bound (every agent finished first), - missed, ! ruled out unprobed by the "
              "§4.2 read bound. &#9733;: the answer; the bracket under it spans the largest count that failed and "
              "the answer. Hover a cell for the probe.")
    rows = [[E(v.get("label") or v["policy"]), str(d["nodes"]), "holds" if d["holds"] else "no", E(s["split"]),
             "ruled out" if s.get("ruled_out") else "meets" if s["meets_slo"] else "misses", binds_html(s.get("binds")),
             num(pr.get("ttft_window_mean_s"), 3), num(times(pr.get("tpot_mean_s"), 1e3), 3),
             E(str(pr.get("ended_by", "-"))), num(times(pr.get("storage_read_per_s"), 1e-9)), E(s.get("ruled_out", ""))]
            for v in p["variants"] for d in sorted(v["decided"], key=lambda d: d["nodes"]) for s in d["splits"]
            for pr in [s.get("probe") or {}]]
    head = ["variant", "nodes", "count holds", "split", "at the target", "binds", "TTFT window mean (s)",
            "TPOT mean (ms)", "ended by", "storage read (GB/s)", "ruled out because"]
    return rec_html, target_chart(p), legend, table(head, rows), ""


HEAD = """<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>
<script>(function(){{var d=document.documentElement,n=0;d.setAttribute('data-js-errors','0');
function note(m){{n++;d.setAttribute('data-js-errors',String(n));d.setAttribute('data-js-error',String(m).slice(0,300));}}
window.addEventListener('error',function(e){{note(e.message||('cannot load '+((e.target&&(e.target.src||e.target.href))||'a resource')));}},true);
window.addEventListener('unhandledrejection',function(e){{note('unhandled rejection: '+e.reason);}});
var ce=console.error;console.error=function(){{note(Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);}};}})();</script>
<style>body{{font-family:sans-serif;margin:1.5em 2em;max-width:1250px;color:#222}} h1{{font-size:22px}} .tie{{color:#c0392b}}
h2{{font-size:17px;margin-top:1.6em;border-bottom:1px solid #ddd}} .rec{{background:#fff8dc;border:1px solid #e5c96a;padding:.7em 1em;border-radius:6px}}
table{{border-collapse:collapse;font-size:13px}} td,th{{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}} th{{background:#eee}}
.bind{{border:1px solid;border-radius:3px;padding:0 4px;white-space:nowrap}} .bind i{{display:inline-block;width:8px;height:8px;margin-right:4px}}
pre{{background:#f4f4f4;padding:.6em;white-space:pre-wrap;word-break:break-all}} .legend{{font-size:13px;color:#444}} img{{max-width:100%;height:auto}} figure{{margin:.5em 0}}
</style></head><body>"""
# Marks the page as rendered, with each chart's box in page pixels (tests/cli/plan_report_browser.sh reads both).
TAIL = """<script>(function(){function mark(){var d=document.documentElement,c=document.querySelectorAll('.chart svg'),s=[];
for(var i=0;i<c.length;i++){var r=c[i].getBoundingClientRect();s.push([r.left+window.scrollX,r.top+window.scrollY,r.width,r.height].map(Math.round).join(','));}
d.setAttribute('data-charts',s.join(' '));d.setAttribute('data-ready','1');}mark();window.addEventListener('load',mark);})();</script>
</body></html>
"""


def binds_section(p):
    """Which splits each resource binds: where requests waited at each split's answer, so what to add."""
    at = {}
    for b, where in ([(s.get("binds"), f"{s.get('variant', '')} {split_name(s)}") for s in p.get("splits", [])]
                     + [(s.get("binds"), f"{v.get('label', '')} {d['nodes']} nodes {s['split']}")
                        for v in p.get("variants", []) for d in v.get("decided", []) for s in d["splits"]]):
        if b:
            at.setdefault(b, []).append(where.strip())
    rows = [[binds_html(b), E(BINDS.get(b, ("", "(not in docs/glossary.md)"))[1]), E(", ".join(w))]
            for b, w in sorted(at.items())]
    return ("<h2>What binds</h2><p>binds: the resource that took the largest share of the time before the first "
            "token at the split's " + ("probe at the target" if "target_aps" in p else "answer (its run, or its probe "
            "at the capacity)") + " (docs/glossary.md, \"What binds\"): where requests waited, so what to add.</p>"
            + (table(["binds", "the resource", "at"], rows) if rows else "<p>No split recorded what binds.</p>"))


def cost_section(p):
    basis, target = p.get("cost_basis"), "target_aps" in p
    if not basis:
        return ("<h2>Cost</h2><p>Not priced: add --node-hour-cost D or --gpu-hour-cost D to the command below (the "
                "price is not part of the plan's identity: pricing a finished plan reruns nothing).</p>")
    unit, prices = next(iter(basis.items()))
    price = (", ".join(f"{dollars(x)} for {E(t)}" for t, x in prices.items()) if isinstance(prices, dict) else
             dollars(prices)) + (" per node-hour" if unit == "node_hour" else " per GPU-hour, times the node's GPUs")
    rows = [[E(v.get("label") or v["policy"]), str(v["nodes"])] + [dollars(v["cost"][c]) for c in COST]
            for v in p.get("variants", []) if target and v.get("cost")]
    return (f"<h2>Cost</h2><p>Priced at {price}: the cluster's hour is spread over " + (
        "the target rate, at the token rates of the probe that holds it" if target else "what each split serves (a "
        "JCT split its agents in its JCT, a capacity split its capacity at its probe's token rates; the table of "
        "splits below)") + "; each figure divides the whole cost (core/analysis/plan_cost.hpp).</p>"
        + (table(["variant", "nodes", "$/hour", "$/agent", "$/M input tok", "$/M output tok"], rows) if rows else ""))


def write_plan_page(folder, out):
    """index.html in `out` for the plan in `folder` (its plan.json); returns the page's path."""
    plan_path = os.path.join(folder, "plan.json")
    p = load_plan(plan_path)
    target, idt = "target_aps" in p, p["identity"]
    rec_html, chart, legend, tab, fig = target_sections(p) if target else forward_sections(p, plan_path)
    scen = os.path.splitext(os.path.basename(idt["scenario"]))[0]
    size = (f"a budget of {p['budget_gpus']} GPUs" if "budget_gpus" in p else
            f"{p.get('nodes') or '/'.join(sorted({str(v['nodes']) for v in p.get('variants', [])}))} nodes")
    question = (f"the fewest nodes that hold {num(p['target_aps'])} agents per second within the SLO" if target else
                f"which P/D split of {size} gives the "
                + ("lowest JCT" if p["objective"] == "jct" else "highest capacity within the SLO"))
    slo = ", ".join(f"{k[4:].upper()} &le; {E(idt[k])}" for k in ("slo_ttft", "slo_tpot") if k in idt)
    parts = [HEAD.format(title=E(f"dualpath plan: {scen}")), f"<h1>Plan for {E(scen)}: {E(question)}</h1>",
             f"<p>Scenario <code>{E(idt['scenario'])}</code>; objective <b>{E(p['objective'])}</b>; "
             + (f"varied: {E('; '.join(idt['vary']))}" if idt.get("vary") else f"policy {E(idt['policy'])}")
             + (f"; SLO: {slo}" if slo else "") + f". Read from <code>{E(plan_path)}</code>.</p>",
             f"<div class='rec' id='recommendation'>{rec_html}</div>",
             f"<h2>{'Node counts and their splits' if target else 'The splits'}</h2>"
             f"<div class='chart' id='chart'>{chart}</div><p class='legend'>{legend}</p>",
             binds_section(p), cost_section(p),
             f"<h2>{'Every probe at the target' if target else 'Every split'}</h2>{tab}", fig,
             "<h2>Reproduce it</h2><p>The command whose identity (scenario, overlays, --set, --vary, size, objective, "
             "policy, resolution, SLO) is this plan's. Run into the same folder it reuses every finished split and "
             "probe and prints the same answer; into a new --out folder it runs the plan again. --jobs J changes "
             "only how many simulations run at once.</p>"
             f"<pre id='command'>{E(command(p, folder))}</pre><p>This page: <code>"
             f"{E(shlex.join(['dualpath', 'report', folder]))}</code> (writes it to the folder's report/index.html, "
             "or to --out DIR).</p>",
             f"<details><summary>plan.json</summary><pre>{E(json.dumps(p, indent=1))}</pre></details>", TAIL]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    return f.name
