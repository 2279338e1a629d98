#!/usr/bin/env bash
# `dualpath run --help` lists every fault kind scenarios/schema.json allows, each with an example of its keys (the
# help is built from core/config/fault_kinds.hpp, so a new kind appears by itself), and each example is accepted:
# `run` with it on a small 2P2D case starts (exit 0). Usage: run_help.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" run --help > "$tmp/help"
/usr/bin/python3 - "$tmp/help" "$root/scenarios/schema.json" > "$tmp/examples" <<'PY'
import json, re, sys
help_text = " ".join(open(sys.argv[1]).read().split())
def kinds(node):
    if isinstance(node, dict):
        if "kind" in node.get("properties", {}) and "enum" in node["properties"]["kind"]:
            return node["properties"]["kind"]["enum"]
        for v in node.values():
            k = kinds(v)
            if k:
                return k
    if isinstance(node, list):
        for v in node:
            k = kinds(v)
            if k:
                return k
    return None
want = kinds(json.load(open(sys.argv[2])))
assert want, "no fault kinds in scenarios/schema.json"
for k in want:
    m = re.search(rf"\b{re.escape(k)}:([a-z0-9=,.]+(?:\[,until=\d+s\])?)", help_text)
    assert m, f"run --help does not list fault kind {k} with an example"
    print(f"{k}:{m.group(1).replace('[,until=600s]', '')}")
PY
n=0
while IFS= read -r ex; do
  "$bin" run "$root/scenarios/default.json" --set deployment.prefill_nodes=2 --set deployment.decode_nodes=2 \
    --set workload.agents=4 --fault "$ex" --quiet --out "$tmp/run" > /dev/null 2> "$tmp/err" \
    || { echo "FAIL run --help's example --fault $ex is refused: $(cat "$tmp/err")"; exit 1; }
  n=$((n + 1))
done < "$tmp/examples"
echo "ok   run --help lists all $n fault kinds with an example each, and each example runs"
