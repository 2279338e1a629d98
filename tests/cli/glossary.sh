#!/usr/bin/env bash
# docs/glossary.md explains every wait cause and resource the wait report can print (the kCauses table of
# core/metrics/wait_report.cpp), and the README and `dualpath --help` point to it: a cause added without a word
# of explanation fails here. Usage: glossary.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin="$1"; root="$2"
/usr/bin/python3 - "$root" <<'PY'
import re, sys
root = sys.argv[1]
src = open(f"{root}/core/metrics/wait_report.cpp").read()
table = src[src.index("kCauses{{"):src.index("}};", src.index("kCauses{{"))]
pairs = re.findall(r'\{"([a-z_]+)", "([a-z_]+)"\}', table)
assert len(pairs) >= 18, f"read only {len(pairs)} causes from wait_report.cpp"
gloss = open(f"{root}/docs/glossary.md").read()
missing = sorted({n for p in pairs for n in p if f"`{n}`" not in gloss})
if missing:
    sys.exit(f"FAIL docs/glossary.md does not explain: {', '.join(missing)}")
print(f"ok   docs/glossary.md explains all {len(pairs)} wait causes and their resources")
PY
# Every column of the run table is explained (issue 68: prompt t/s, PE SNIC and speedup were not).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" run "$root/scenarios/default.json" --policy basic,dualpath --set workload.agents=4 --out "$tmp/run" >"$tmp/out"
/usr/bin/python3 - "$root" "$tmp/out" <<'PY'
import re, sys
gloss = open(f"{sys.argv[1]}/docs/glossary.md").read()
header = next(l for l in open(sys.argv[2]) if l.startswith("policy "))
columns = [c for c in re.split(r"\s{2,}", header.strip()) if c and c != "policy"]
assert len(columns) >= 8, f"read only {columns} from the run table's header"
missing = [c for c in columns if f"**{c}**" not in gloss]
if missing:
    sys.exit(f"FAIL docs/glossary.md does not explain the run table's columns: {', '.join(missing)}")
print(f"ok   docs/glossary.md explains the run table's {len(columns)} columns")
PY
grep -q "docs/glossary.md" "$root/README.md" || { echo "FAIL the README does not link docs/glossary.md"; exit 1; }
"$bin" --help | grep -q "docs/glossary.md" || { echo "FAIL dualpath --help does not point to docs/glossary.md"; exit 1; }
echo "ok   the README and --help point to the glossary"
