#!/usr/bin/env bash
# `dualpath report` on the default scenario (basic, dualpath, oracle): every figure listed in figures.json exists,
# is a PNG of the expected pixel size (1200x600 overview and wait-cause figures, 1200x900 link figures), is not blank (many
# distinct colours, not one flat colour) and is linked from index.html. Then sim and "hw" results side by side:
# a copy of the results marked "backend": "hw" doubles the link and wait figures and labels the runs by backend.
set -euo pipefail
bin="$1"; root="$2"
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c "import matplotlib, pandas" 2>/dev/null || { echo "SKIP: $py lacks matplotlib/pandas"; exit 77; }

"$bin" run "$root/scenarios/default.json" --policy basic,dualpath,oracle --out "$tmp/res" --quiet
"$bin" report "$tmp/res" --out "$tmp/rep"

check() {  # check REPORT_DIR EXPECTED_FIGURES
"$py" - "$1" "$2" <<'PY'
import json, os, sys
import numpy as np
from matplotlib.image import imread
d, want = sys.argv[1], int(sys.argv[2])
figs = json.load(open(f"{d}/figures.json"))
index = open(f"{d}/index.html").read()
from checks import check, done
check(len(figs) == want, f"{len(figs)} figures (expected {want})")
expected = {"overview": (1200, 600), "links": (1200, 900), "sweep": (1200, 900), "waits": (1200, 600)}
names = {f["file"] for f in figs}
for need in ("jct_throughput.png", "ttft_cdf.png", "ttft_breakdown.png") if want > 1 else ("sweep_0.png",):
    check(need in names, f"{need} listed")
if want > 1:
    check(any(n.startswith("waits_sim_dualpath") for n in names), "a wait-cause figure of the simulated dualpath run listed")
for f in figs:
    p = os.path.join(d, f["file"])
    if not check(os.path.exists(p), f"{f['file']} exists"):
        continue
    with open(p, "rb") as fh:
        head = fh.read(24)
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    check(head[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == expected[f["section"]],
          f"{f['file']}: PNG {w}x{h} (expected {expected[f['section']][0]}x{expected[f['section']][1]})")
    img = imread(p)
    px = (img[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    colours = len(np.unique(px, axis=0))
    non_white = float(np.mean(np.any(px < 250, axis=1)))
    rgb = px.astype(int)
    coloured = float(np.mean(rgb.max(axis=1) - rgb.min(axis=1) > 60))  # data (lines, bars), not grey axes or text
    check(colours > 20 and non_white > 0.03, f"{f['file']}: not blank ({colours} colours, {100 * non_white:.1f}% non-white)")
    # Only the oracle moves no bytes over links: its link figures may hold no data, every other figure must.
    check(f["empty"] == ("oracle" in f["file"] and f["section"] == "links"), f"{f['file']}: empty={f['empty']}")
    if not f["empty"]:
        check(coloured > 0.002, f"{f['file']}: shows data ({100 * coloured:.2f}% coloured pixels)")
    check(f'src="{f["file"]}"' in index, f"{f['file']} in index.html")
done()
PY
}
check "$tmp/rep" 9

# The figures docs/visualisation.md quotes from this run ("What the default scenario's report shows").
"$py" - "$tmp/res" "$root/docs/visualisation.md" <<'PY'
import json, re, sys
from checks import check, done
res, doc = sys.argv[1], open(sys.argv[2]).read()
part = doc[doc.index("What the default scenario's report shows"):]
s = {p: json.load(open(f"{res}/{p}/summary.json")) for p in ("basic", "dualpath", "oracle")}
r = {p: v["results"] for p, v in s.items()}
jct = re.search(r"JCT basic ([\d.]+) s, dualpath ([\d.]+) s, oracle ([\d.]+) s", part)
check(jct and [float(x) for x in jct.groups()] == [round(r[p]["jct_s"], 1) for p in ("basic", "dualpath", "oracle")],
      f"the quoted JCTs are the run's: {[round(r[p]['jct_s'], 1) for p in r]}")
ratios = re.search(r"inverse ratio \(([\d.]+)x and ([\d.]+)x of basic\)", part)
want = [round(r[p]["prompt_tokens_per_s"] / r["basic"]["prompt_tokens_per_s"], 2) for p in ("dualpath", "oracle")]
check(ratios and [float(x) for x in ratios.groups()] == want, f"the quoted throughput ratios are the run's: {want}")
med = re.search(r"median ~(\d+) ms\), dualpath's in the middle \(~([\d.]+) s\), basic's\s+right \(~([\d.]+) s\)", part)
got = [round(1e3 * r["oracle"]["ttft_s"]["p50"]), round(r["dualpath"]["ttft_s"]["p50"], 2), round(r["basic"]["ttft_s"]["p50"], 2)]
check(med and [float(x) for x in med.groups()] == got, f"the quoted TTFT medians are the run's: {got}")
snic = re.search(r"\(`snic` (\d+)%\s+of TTFT\); `waits_sim_dualpath.png`: the SNIC still binds \((\d+)%", part)
got = [round(100 * s[p]["waits"]["ttft"]["by_resource"]["snic"]) for p in ("basic", "dualpath")]
check(snic and [int(x) for x in snic.groups()] == got, f"the quoted SNIC shares of TTFT are the run's: {got}")
done()
PY

# The report's header says what was simulated and what binds (issue 68), from the runs' own summaries.
"$py" - "$tmp/res" "$tmp/rep/index.html" <<'PY'
import html, json, re, sys
from checks import check, done
res, page = sys.argv[1], open(sys.argv[2]).read()
text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
s = {p: json.load(open(f"{res}/{p}/summary.json")) for p in ("basic", "dualpath", "oracle")}
c = s["dualpath"]["config"]
check(text.index("What was simulated") < text.index("Runs"), "the header comes before the run table")
for want in (c["model"]["name"], f"{c['deployment']['prefill_nodes']} nodes x {c['topology']['gpus_per_node']} GPUs, "
             f"EP{c['deployment']['pe_group_gpus']}", f"{8 * c['topology']['snic_bw'] / 1e9:,.0f} Gbps",
             c["topology"]["name"], f"offline, {c['workload']['agents']} agents at t = 0"):
    check(want in text, f"the header names {want!r}")
for p in ("basic", "dualpath"):
    for part in ("ttft", "round"):
        w = s[p]["waits"][part]
        want = f"{w['binds']} {100 * w['by_resource'][w['binds']]:.0f}%"
        check(want in text, f"{p}'s {part} binds shown as {want!r}")
done()
PY

# sim and hw side by side: the same results relabelled as a hardware run.
cp -r "$tmp/res" "$tmp/hw"
for p in basic dualpath oracle; do
  "$py" -c "import json,sys; p=sys.argv[1]; s=json.load(open(p)); s['backend']='hw'; json.dump(s, open(p,'w'))" "$tmp/hw/$p/summary.json"
done
"$bin" report "$tmp/res" "$tmp/hw" --out "$tmp/both"
check "$tmp/both" 15
grep -q "dualpath · hw" "$tmp/both/index.html" && grep -q "dualpath · sim" "$tmp/both/index.html" \
  || { echo "FAIL runs not labelled by backend"; exit 1; }
echo "ok   sim and hw side by side"
# A sweep folder (sweep.csv: one row per point, inputs then metrics) gets a sweep figure.
mkdir "$tmp/sweep"
{ echo "deployment.prefill_nodes,deployment.decode_nodes,policy,jct_s,prompt_tokens_per_s,ttft_p50_s,tpot_p50_s"
  for pol in basic dualpath; do for P in 1 2 4; do for D in 1 2; do
    echo "$P,$D,$pol,$((1000 / (P + D))),$((P * 1000000)),0.$P,0.002"; done; done; done; } > "$tmp/sweep/sweep.csv"
"$bin" report "$tmp/sweep" --out "$tmp/sweeprep"
check "$tmp/sweeprep" 1

# Bad input: a folder without results exits 2.
mkdir "$tmp/empty"
set +e; "$bin" report "$tmp/empty" --out "$tmp/x" 2> "$tmp/err"; rc=$?; set -e
[ "$rc" = 2 ] || { echo "FAIL empty folder: exit $rc, expected 2"; cat "$tmp/err"; exit 1; }
echo "ok   a folder without results exits 2: $(cat "$tmp/err")"

# A folder that mixes a single run (summary.json) and per-policy runs (the README's trace example writes a single
# run into results/default/ on top of run-default.sh's): every part is reported, each labelled by its folder, and
# stderr says so (issue 68: only the single run was reported, silently).
cp -r "$tmp/res" "$tmp/mixed"
"$bin" run "$root/scenarios/default.json" --policy dualpath --set workload.agents=8 --out "$tmp/single" --quiet
cp "$tmp/single/"*.* "$tmp/mixed/"
"$bin" report "$tmp/mixed" --out "$tmp/mixedrep" 2> "$tmp/err"
grep -q "holds a run (summary.json) and per-policy runs" "$tmp/err" || { echo "FAIL no note on the mixed folder"; cat "$tmp/err"; exit 1; }
for part in "dualpath \[mixed\]" "dualpath \[mixed/dualpath\]" "basic" "oracle"; do
  grep -q "$part" "$tmp/mixedrep/index.html" || { echo "FAIL the mixed folder's part $part is not reported"; exit 1; }
done
echo "ok   a mixed folder is reported per part: $(cat "$tmp/err")"
