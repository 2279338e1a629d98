#!/usr/bin/env bash
# `dualpath report PLAN_DIR` (issue 65 item 5, docs/capacity.md "A plan's report page"), loaded in headless
# Chromium. Three real, short plans: a capacity plan of both policies with a price, the inverse question
# (--target-aps) of both policies, and a JCT plan with infeasible splits (DS 660B on 6 nodes). For each page:
#   - it is self-contained (no src/href but data: URIs and in-page anchors);
#   - it renders with no console message and no script or resource error (the page records window errors and
#     console.error into <html data-js-errors>, and Chromium's log must hold no CONSOLE line), and its closing
#     script ran (data-ready);
#   - the rendered DOM's #recommendation names what plan.json recommends, and the chart is there: an inline SVG
#     of nonzero size whose pixels in a screenshot are not blank;
#   - the command the page gives reproduces the plan: rerun into the same folder it is accepted as the same
#     identity, probes nothing and prints the same recommendation.
# The checks can fail: copies of a page with the recommendation emptied, a script error, the chart blanked and an
# external image must each be rejected for that reason. A damaged plan.json is refused with exit 2, naming the
# file and the JSON path.
# Usage: plan_report_browser.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c "import matplotlib, lxml" 2>/dev/null || { echo "SKIP: $py lacks matplotlib or lxml"; exit 77; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "SKIP: no chromium (scripts/install-deps.sh installs it)"; exit 77; }

sc="$root/scenarios/ds27b-1p1d.json"
online=(--objective capacity --set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s
        --set workload.stop=slo-ttft --slo-ttft 0.3s --jobs 2)
"$bin" plan "$sc" --nodes 3 "${online[@]}" --resolution 0.1 --vary policy.name=basic,dualpath \
  --node-hour-cost 98.32 --no-plot --out "$tmp/cap" > "$tmp/cap.out" 2>&1 || { cat "$tmp/cap.out"; exit 1; }
"$bin" plan "$sc" --target-aps 1.5 "${online[@]}" --vary policy.name=basic,dualpath --max-nodes 8 --no-plot \
  --out "$tmp/target" > "$tmp/target.out" 2>&1 || { cat "$tmp/target.out"; exit 1; }
"$bin" plan "$root/scenarios/ds660b-2p4d.json" --nodes 6 --set workload.agents=32 --jobs 2 --no-plot \
  --out "$tmp/jct" > "$tmp/jct.out" 2>&1 || { cat "$tmp/jct.out"; exit 1; }
for p in cap target jct; do
  "$bin" report "$tmp/$p" > "$tmp/$p.report.out" 2>&1 || { cat "$tmp/$p.report.out"; exit 1; }
done
# A damaged plan.json: a value of the wrong type, then a file cut short.
mkdir -p "$tmp/bad"
"$py" -c "import json,sys; p=json.load(open(sys.argv[1])); p['splits'][1]['capacity_aps']='fast'; json.dump(p, open(sys.argv[2], 'w'))" \
  "$tmp/cap/plan.json" "$tmp/bad/plan.json"
"$bin" report "$tmp/bad" > "$tmp/bad1.out" 2>&1; echo $? > "$tmp/bad1.rc"
head -c 300 "$tmp/cap/plan.json" > "$tmp/bad/plan.json"
"$bin" report "$tmp/bad" > "$tmp/bad2.out" 2>&1; echo $? > "$tmp/bad2.rc"

PYTHONPATH="$root/tests/cli" "$py" - "$tmp" "$chrome" "$bin" <<'PY'
import html, json, os, re, shlex, subprocess, sys
import lxml.html
import numpy as np
from matplotlib.image import imread
from checks import check, done
tmp, chrome, dualpath = sys.argv[1:4]
FLAGS = ["--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--force-device-scale-factor=1", "--window-size=1280,2000",
         f"--user-data-dir={tmp}/chromium-profile"]


def browse(page, what):
    """Chromium's output and log for one page: the DOM after its scripts ran (`dom`) or a screenshot (`shot`)."""
    shot = f"{page}.png"
    arg = "--dump-dom" if what == "dom" else f"--screenshot={shot}"
    r = subprocess.run([chrome, *FLAGS, arg, "file://" + os.path.abspath(page)], capture_output=True, text=True,
                       timeout=120)
    return r.stdout, r.stderr, shot


def faults(page, want_rec):
    """Why `page` is not a working plan page (empty when it is one)."""
    out, src = [], open(page).read()
    ext = [u for u in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", src) if not u.startswith(("data:", "#"))]
    if ext:
        out.append(f"not self-contained: it loads {ext[:3]}")
    dom, log, _ = browse(page, "dom")
    console = [line for line in log.splitlines() if "CONSOLE" in line]
    if console:
        out.append(f"console messages: {console[:3]}")
    root = lxml.html.fromstring(dom) if dom.strip() else None
    if root is None:
        return out + ["Chromium dumped no DOM"]
    if root.get("data-js-errors") != "0":
        out.append(f"script errors: {root.get('data-js-errors')} ({root.get('data-js-error')})")
    if root.get("data-ready") != "1":
        out.append("the page's closing script did not run (no data-ready)")
    rec = root.get_element_by_id("recommendation", None)
    text = " ".join(rec.text_content().split()) if rec is not None else ""
    if want_rec not in text:
        out.append(f"the rendered #recommendation does not say {want_rec!r} (it says {text[:120]!r})")
    boxes = [tuple(int(v) for v in b.split(",")) for b in (root.get("data-charts") or "").split()]
    boxes = [b for b in boxes if b[2] > 100 and b[3] > 50]
    if not boxes or not root.xpath("//div[@id='chart']/*[local-name()='svg']"):
        return out + [f"no chart of nonzero size (data-charts={root.get('data-charts')!r})"]
    _, _, shot = browse(page, "shot")
    img = imread(shot)[..., :3]
    x, y, w, h = boxes[0]
    crop = img[max(0, y):min(img.shape[0], y + h), max(0, x):min(img.shape[1], x + w)]
    px = (crop * 255).astype(np.uint8).reshape(-1, 3)
    inked = float((px < 235).any(axis=1).mean()) if len(px) else 0.0
    colours = len(np.unique(px // 32, axis=0)) if len(px) else 0
    if inked < 0.02 or colours < 4:
        out.append(f"the chart looks blank in the screenshot ({100 * inked:.1f}% inked, {colours} colours)")
    return out


def recommended(d):
    p = json.load(open(f"{d}/plan.json"))
    r = p["recommendation"]
    return f"{r['variant']} on {r['nodes']} nodes" if "target_aps" in p else \
        f"Recommended: {(r.get('variant', '') + ' ' + r['split']).strip()}"


pages = {}
for name in ("cap", "target", "jct"):
    d = f"{tmp}/{name}"
    page = pages[name] = f"{d}/report/index.html"
    if not check(os.path.exists(page), f"{name}: `dualpath report PLAN_DIR` wrote {page}"):
        continue
    want = recommended(d)
    stdout = open(f"{tmp}/{name}.out").read()
    cli = (want.split(": ", 1)[1] if ": " in want else want)
    check(f"recommended: {cli}" in stdout, f"{name}: the plan itself printed `recommended: {cli}`")
    bad = faults(page, want)
    check(not bad, f"{name}: loads in Chromium without console or script errors, #recommendation says {want!r}, "
                   f"the chart is drawn" + (f": {bad}" if bad else ""))
    cmd = html.unescape(re.search(r"<pre id='command'>(.*?)</pre>", open(page).read(), re.S).group(1))
    argv = shlex.split(cmd)
    r = subprocess.run([dualpath] + argv[1:], capture_output=True, text=True, timeout=300)
    again = [line for line in r.stdout.splitlines() if line.startswith("recommended")]
    first = [line for line in stdout.splitlines() if line.startswith("recommended")]
    check(r.returncode == 0 and again == first and "probing" not in r.stderr and "started" not in r.stderr,
          f"{name}: the page's command reproduces the plan (same identity, nothing rerun, same recommendation)"
          + ("" if r.returncode == 0 else f": exit {r.returncode}: {r.stderr[-300:]}"))

# The checks can fail: each broken copy of the capacity page must be rejected, for its own reason.
good = open(pages["cap"]).read()
want = recommended(f"{tmp}/cap")
broken = {
    "recommendation emptied": (re.sub(r"(<div class='rec' id='recommendation'>).*?(</div>)", r"\1\2", good,
                                      flags=re.S), "#recommendation does not say"),
    "a script error": (good.replace("</body>", "<script>noSuchFunction();</script></body>"), "script errors"),
    "the chart blanked": (re.sub(r"(<div class='chart' id='chart'><svg[^>]*>).*?(</svg>)", r"\1\2", good, flags=re.S),
                          "looks blank"),
    "an external image": (good.replace("</body>", "<img src='https://example.invalid/x.png'></body>"),
                          "not self-contained"),
}
for what, (text, reason) in broken.items():
    page = f"{tmp}/cap/report/broken.html"
    open(page, "w").write(text)
    bad = faults(page, want)
    check(any(reason in b for b in bad), f"a page with {what} is rejected ({reason}): {bad}")

for n, (path, why) in enumerate([("/splits/1/capacity_aps", "expected a number or null"),
                                 ("not valid JSON", "not valid JSON")], start=1):
    out, rc = open(f"{tmp}/bad{n}.out").read(), open(f"{tmp}/bad{n}.rc").read().strip()
    check(rc == "2" and "bad/plan.json" in out and path in out and why in out and "Traceback" not in out,
          f"a damaged plan.json is refused with exit 2, naming the file and {path!r} (exit {rc}: {out.strip()})")
done()
PY
