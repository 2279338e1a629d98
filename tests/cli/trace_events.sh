#!/usr/bin/env bash
# `dualpath run --trace` on the bundled default scenario:
#   the trace is valid trace-event JSON (analysis/trace_check.py: required fields per phase, X durations >= 0,
#   nested slices, strictly increasing counter timestamps per track, flows with one start and one finish inside
#   slices) and shows, for one traced request, its storage read on the SNIC read track of the node that read it
#   and its per-stage KV loads and sends on the CNIC tracks of the GPUs they cross;
#   with several policies each child writes FILE with its policy name inserted;
#   tracing changes no result: summary.json, requests.csv and links.csv are byte-identical with and without it.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

"$bin" run "$root/scenarios/default.json" --policy basic,dualpath --out "$tmp/cmp" --trace "$tmp/trace.json" > "$tmp/out.txt"
cat "$tmp/out.txt"
for p in basic dualpath; do
  [ -s "$tmp/trace.$p.json" ] || { echo "FAIL no trace.$p.json"; exit 1; }
  grep -q "trace: $tmp/trace.$p.json" "$tmp/out.txt" || { echo "FAIL trace.$p.json not reported"; exit 1; }
  echo "== $p"
  "$py" "$root/analysis/trace_check.py" "$tmp/trace.$p.json" --results "$tmp/cmp/$p" | tee "$tmp/check.$p.txt"
done
# basic reads through PE SNICs only: the checked request's read must be on the prefill node's SNIC.
grep -q "read on 'node 0 (prefill)' / 'snic0 read" "$tmp/check.basic.txt" \
  || { echo "FAIL basic: read not on node 0's SNIC track"; exit 1; }
# dualpath picks a DE-side read when one is traced: it must be on the decode node's SNIC.
grep -q "de-side read.*read on 'node 1 (decode)' / 'snic1 read" "$tmp/check.dualpath.txt" \
  || { echo "FAIL dualpath: DE-side read not on node 1's SNIC track"; exit 1; }
echo "ok   reads on the SNIC of the node that read them (basic: PE node, dualpath DE-side: DE node)"

# The same run without a trace gives byte-identical results.
"$bin" run "$root/scenarios/default.json" --policy dualpath --out "$tmp/plain" --quiet
for f in summary.json requests.csv links.csv; do
  cmp "$tmp/plain/$f" "$tmp/cmp/dualpath/$f" || { echo "FAIL tracing changed $f"; exit 1; }
done
echo "ok   tracing leaves summary.json, requests.csv and links.csv unchanged"
