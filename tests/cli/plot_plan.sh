#!/usr/bin/env bash
# analysis/plot_plan.py draws plan.png for a capacity plan whose dropped and infeasible splits have no capacity
# (null in plan.json): issue 68 found `plan --objective capacity` never drew it (max() over None) and blamed a
# missing matplotlib. A synthetic plan.json with the keys plot_plan.py reads; the PNG must exist and not be blank.
# Usage: plot_plan.sh <dualpath-binary> <repo-root>
set -euo pipefail
root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c "import matplotlib" 2>/dev/null || { echo "SKIP: $py lacks matplotlib"; exit 77; }
cat >"$tmp/plan.json" <<'JSON'
{"objective": "capacity", "nodes": 4, "identity": {"policy": "dualpath"},
 "analytic_pd_range": {"lower": 0.5, "upper": 2.0},
 "recommendation": {"split": "2P2D"},
 "splits": [
  {"P": 1, "D": 3, "feasible": true, "capacity_aps": 1.77},
  {"P": 2, "D": 2, "feasible": true, "capacity_aps": 1.81},
  {"P": 3, "D": 1, "feasible": true, "capacity_aps": null, "dropped": true},
  {"P": 1, "D": 1, "feasible": false, "capacity_aps": null}
 ]}
JSON
"$py" "$root/analysis/plot_plan.py" "$tmp/plan.json" "$tmp/plan.png"
"$py" - "$tmp/plan.png" <<'PY'
import sys
from matplotlib.image import imread
img = imread(sys.argv[1])
px = (img[..., :3] * 255).astype("uint8").reshape(-1, 3)
non_white = float((px < 250).any(axis=1).mean())
assert non_white > 0.03, f"plan.png looks blank ({100 * non_white:.1f}% non-white)"
print(f"ok   plan.png drawn for a capacity plan with dropped and infeasible splits ({100 * non_white:.1f}% non-white)")
PY
