"""The index.html of `dualpath report` (analysis/report.py): what was simulated, the run table with what binds, the
TTFT breakdown, the figures report.py drew, and each sweep's table."""
import html
import json
import os

import pandas as pd


def rate(bytes_per_s):
    """Bytes/s as the network's units (Gbps), as docs/configuration.md writes link rates."""
    return f"{8 * bytes_per_s / 1e9:,.0f} Gbps"


def simulated_table(runs):
    """What was simulated, one row per distinct question (backend and scenario): the model, the cluster's split and
    its links, the workload. A reader sees what the figures are of before reading them (issue 68)."""
    rows, seen = [], set()
    for r in runs:
        c = r.summary.get("config", {})
        key = (r.backend, r.scenario, json.dumps({k: c.get(k) for k in ("model", "deployment", "topology", "workload",
                                                                        "prefill_topology", "decode_topology")},
                                                  sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        m, d, t, w = c.get("model", {}), c.get("deployment", {}), c.get("topology", {}), c.get("workload", {})
        gpn = t.get("gpus_per_node", "?")
        if w.get("mode") == "online":
            load = f"online, {w.get('aps', 0):g} agents/s" + (f" for {w.get('duration', 0):g} s" if w.get("duration") else "")
        else:
            load = f"offline, {w.get('agents', '?')} agents at t = 0"
        source = w.get("file", "") if w.get("source") == "file" else f"{w.get('profile', '?')} profile, seed {w.get('seed', '?')}"
        storage = t.get("storage", {})
        rows.append({
            "backend": r.backend, "scenario": r.scenario,
            "model": m.get("name", "?") + (" (profile)" if m.get("timing") == "profile" else ""),
            "prefill": f"{d.get('prefill_nodes', '?')} nodes x {gpn} GPUs, EP{d.get('pe_group_gpus', '?')}",
            "decode": f"{d.get('decode_nodes', '?')} nodes x {gpn} GPUs, EP{d.get('de_group_gpus', '?')}",
            # Each role's topology where it has its own (mixed hardware): prefill's, then decode's.
            "GPU": " / ".join(dict.fromkeys(c.get(k, t).get("name", "?") for k in ("prefill_topology", "decode_topology"))),
            "SNIC / CNIC per node": " / ".join(dict.fromkeys(
                f"{rate(x.get('snic_bw', 0))} / {rate(x.get('cnic_bw', 0))}"
                for x in (c.get("prefill_topology", t), c.get("decode_topology", t)))),
            "storage": (f"{storage.get('servers')} servers" if storage.get("servers") else "no server limit")
                       + (", GDR" if storage.get("gdr") else ""),
            "workload": f"{load}; {source}",
        })
    return pd.DataFrame(rows)


def binds_text(section):
    """'snic 62%': the resource with the largest share of a wait section (summary.json waits.ttft or waits.round)."""
    b = section.get("binds", "")
    if not b or b == "none":
        return b or "-"
    share = section.get("by_resource", {}).get(b)
    return f"{b} {100 * share:.0f}%" if share is not None else b


def run_table(runs):
    base = {}
    for r in runs:
        base.setdefault((r.backend, r.scenario), r.results.get("jct_s", 0))
    rows = []
    for r in runs:
        res = r.results
        links = r.summary.get("links", {})
        b = base[(r.backend, r.scenario)]
        jct = res.get("jct_s", 0)
        rows.append({
            "run": r.label, "backend": r.backend, "scenario": r.scenario, "policy": r.policy,
            "rounds": res.get("rounds", ""), "JCT (s)": f"{jct:.1f}",
            "speed-up": f"{b / jct:.2f}x" if jct else "-",
            "TTFT p50 (s)": f"{res.get('ttft_s', {}).get('p50', 0):.3f}",
            "TTFT p99 (s)": f"{res.get('ttft_s', {}).get('p99', 0):.3f}",
            "TPOT p50 (ms)": f"{1e3 * res.get('tpot_s', {}).get('p50', 0):.2f}",
            "prompt tok/s": f"{res.get('prompt_tokens_per_s', 0):,.0f}",
            "PE SNIC": f"{100 * links.get('pe_snic_read_utilisation', 0):.0f}%",
            "DE SNIC": f"{100 * links.get('de_snic_read_utilisation', 0):.0f}%",
            "TTFT binds": binds_text(r.summary.get("waits", {}).get("ttft", {})),
            "round binds": binds_text(r.summary.get("waits", {}).get("round", {})),
            "folder": r.path,
        })
    return pd.DataFrame(rows)


def breakdown_table(runs):
    rows = []
    for r in runs:
        b = r.ttft_breakdown()
        row = {"run": r.label}
        row.update({f"{k} (s)": f"{v:.4f}" for k, v in b.items()})
        row["sum (s)"] = f"{sum(b.values()):.4f}"
        rows.append(row)
    return pd.DataFrame(rows)


def write_html(rep, runs, sweeps, inputs):
    def img(f):
        return (f'<figure><img src="{html.escape(f["file"])}" width="{f["width"]}" alt="{html.escape(f["title"])}">'
                f'<figcaption>{html.escape(f["title"])}</figcaption></figure>')

    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>dualpath report</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:2600px} table{border-collapse:collapse;font-size:13px}",
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right} th{background:#eee}",
             "figure{display:inline-block;margin:0.5em;vertical-align:top} img{max-width:100%}",
             ".side{display:flex;flex-wrap:wrap} figcaption{font-size:13px;color:#444}</style></head><body>",
             "<h1>dualpath report</h1><p>Inputs: " + ", ".join(f"<code>{html.escape(i)}</code>" for i in inputs) + "</p>"]
    if runs:
        parts.append("<h2>What was simulated</h2>" + simulated_table(runs).to_html(index=False, escape=True))
        parts.append("<h2>Runs</h2><p>TTFT binds and round binds: the resource with the largest share of the time "
                     "before the first token and of a whole round (docs/glossary.md).</p>"
                     + run_table(runs).to_html(index=False, escape=True))
        parts.append("<h2>TTFT breakdown (mean)</h2>" + breakdown_table(runs).to_html(index=False, escape=True))
        parts.append("<h2>Overview</h2>")
        parts += [img(f) for f in rep.figures if f["section"] == "overview"]
        parts.append("<h2>Link utilisation over time</h2>")
        for policy in dict.fromkeys(f["group"] for f in rep.figures if f["section"] == "links"):
            parts.append(f"<h3>{html.escape(str(policy))}</h3><div class='side'>")
            parts += [img(f) for f in rep.figures if f["section"] == "links" and f["group"] == policy]
            parts.append("</div>")
        if any(f["section"] == "waits" for f in rep.figures):
            parts.append("<h2>What binds: wait causes before the first token</h2><div class='side'>")
            parts += [img(f) for f in rep.figures if f["section"] == "waits"]
            parts.append("</div>")
    for path, df in sweeps:
        parts.append(f"<h2>Sweep <code>{html.escape(path)}</code></h2>")
        parts += [img(f) for f in rep.figures if f["section"] == "sweep" and f.get("source") == path]
        if df is not None:
            parts.append(df.head(500).to_html(index=False, escape=True))
    parts.append("</body></html>\n")
    with open(os.path.join(rep.out, "index.html"), "w") as f:
        f.write("\n".join(parts))
