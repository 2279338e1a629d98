#!/usr/bin/env bash
# docs/capacity.md's planner's walkthrough runs as documented: the one command it shows (DS 27B on 4 nodes, both
# policies, capacity objective; about two minutes on 2 cores) prints exactly the answer the doc quotes (but for
# the output folder), so a model change that moves a figure fails here until the doc is updated.
# Usage: plan_walkthrough.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
doc="$root/docs/capacity.md"
# The walkthrough's command (the code block after "One command answers it:") and its quoted answer (the next).
/usr/bin/python3 - "$doc" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
part = text[text.index("### A planner's walkthrough"):]
blocks = re.findall(r"```\n(.*?)```", part, re.S)
cmd, answer = blocks[0], blocks[1]
cmd = cmd.replace("\\\n", " ")
assert cmd.startswith("dualpath plan ") and "--out results/plan-cap" in cmd, cmd
open(f"{sys.argv[2]}/cmd", "w").write(cmd.strip().replace("dualpath plan ", "", 1).replace("--out results/plan-cap", ""))
open(f"{sys.argv[2]}/answer", "w").write(answer)
PY
cd "$root"
# shellcheck disable=SC2046  # the documented arguments, split as the shell splits them
eval "\"$bin\" plan $(cat "$tmp/cmd") --no-plot --out \"$tmp/out\"" > "$tmp/stdout" 2> "$tmp/stderr" \
  || { echo "FAIL the walkthrough's command failed: $(tail -3 "$tmp/stderr")"; exit 1; }
grep -v '^results in ' "$tmp/stdout" > "$tmp/got"
grep -v '^results in ' "$tmp/answer" > "$tmp/want"
if diff "$tmp/want" "$tmp/got" > "$tmp/diff"; then
  echo "ok   the walkthrough's command prints the answer docs/capacity.md quotes"
else
  echo "FAIL docs/capacity.md's walkthrough answer differs from the run (< doc, > run):"; cat "$tmp/diff"; exit 1
fi
grep -q "plan: round 1: probing" "$tmp/stderr" && grep -q "s left" "$tmp/stderr" \
  || { echo "FAIL no round-by-round progress with the time left on stderr"; exit 1; }
echo "ok   progress on stderr: each round's probes and the time left"
