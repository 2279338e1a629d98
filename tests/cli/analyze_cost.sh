#!/usr/bin/env bash
# `dualpath analyze cost`: the table prints the parts and the calibrated DS 660B figures, --json is complete and
# consistent (parts add up to the step), and bad input gets one clear line and exit 2.
# Usage: analyze_cost.sh <dualpath-binary> <repo-root>
set -u
BIN="$1"; ROOT="$2"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
M="$ROOT/models/deepseek-v3.2-660b.json"; T="$ROOT/topologies/hopper-8gpu-80g.json"

out=$("$BIN" analyze cost --model "$M" --topology "$T" --batch 45 --context 32768 2>&1); rc=$?
check "table exits 0" "[ $rc -eq 0 ]"
check "table names the decode group" "grep -q 'EP32 over 4 nodes' <<<\"\$out\""
check "table has the part columns" "grep -q 'attn.*dense.*experts.*kernels.*EP.*hidden' <<<\"\$out\""
check "table has a prefill line" "grep -q 'prompt tokens/s' <<<\"\$out\""

json=$("$BIN" analyze cost --model "$M" --topology "$T" --batch 1 --batch 45 --batch 128 --json 2>&1)
check "json parses and adds up" "python3 - <<PY
import json,sys
j=json.loads('''$json''')
pts=j['decode']['points']
assert [p['batch'] for p in pts]==[1,45,128], pts
for p in pts:
    l=p['layer_s']
    total=61*(l['attention']+l['dense_weights']+l['routed_experts']+l['kernel_overheads']+l['ep_all_to_all']-l['overlap_hidden'])
    assert abs(total-p['step_s'])<1e-9*max(1,p['step_s']), (total,p)
    assert abs(p['tokens_per_node']-8*p['batch']/p['step_s'])<1e-6*p['tokens_per_node']
# A bigger batch: a longer step, more tokens per node, fewer per user.
assert pts[0]['step_s']<pts[1]['step_s']<pts[2]['step_s']
assert pts[0]['tokens_per_node']<pts[1]['tokens_per_node']<pts[2]['tokens_per_node']
# The calibrated step at 45 requests of 32K context is tens of ms (docs/cost-model.md).
assert 0.02<pts[1]['step_s']<0.05, pts[1]['step_s']
assert j['prefill']['input_tokens_per_node']>j['prefill']['fresh_tokens_per_node']>0
PY"

# --public: every public point beside the model, the held ones within their tolerance, the others saying why.
tmpd=$(mktemp -d); trap 'rm -rf "$tmpd"' EXIT
"$BIN" analyze cost --model "$M" --topology "$T" --public --json > "$tmpd/pub.json" 2>&1
check "public points: held ones within tolerance, the rest explained" "python3 - '$tmpd/pub.json' <<'PY'
import json, sys
pts = {p['id']: p for p in json.load(open(sys.argv[1]))['public_points']}
assert {'deepep_ep32', 'day6_decode', 'sglang_decode', 'profile_decode', 'paper_table3_tpot', 'profile_prefill', 'day6_prefill'} <= set(pts), sorted(pts)
for p in pts.values():
    assert abs(p['ratio'] - p['model'] / p['measured']) < 1e-12, p
    assert (p['within'] if p['held'] else p['note'].startswith('not held')), p
assert pts['paper_table3_tpot']['measured'] == 39 and pts['day6_decode']['measured'] == 14800
PY"
"$BIN" analyze cost --model "$M" --topology "$T" --public > "$tmpd/pub.txt" 2>&1
check "public table names its sources" "grep -q 'Day-6' '$tmpd/pub.txt' && grep -q 'DeepEP README' '$tmpd/pub.txt' && grep -q 'Table 3' '$tmpd/pub.txt'"

# --write-profile, then --profile: the roofline's own times read back give the roofline's figures.
"$BIN" analyze cost --model "$M" --topology "$T" --write-profile "$tmpd/p.json" --label "roofline (test)" >/dev/null
"$BIN" analyze cost --model "$M" --topology "$T" --batch 16 --batch 45 --profile "$tmpd/p.json" --json > "$tmpd/both.json" 2>&1
check "a roofline profile reads back as the roofline" "python3 - '$tmpd/both.json' <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for p, q in zip(j['decode']['points'], j['profile']['decode_step_s']):
    assert abs(q / p['step_s'] - 1) < 1e-9, (p['step_s'], q)
assert abs(j['profile']['prefill_forward_s'] / j['prefill']['forward_s'] - 1) < 0.01, j['profile']
assert j['profile']['label'] == 'roofline (test)'
PY"

source "$ROOT/tests/cli/bad_input.bash"
bad() { local name="$1" want="$2"; shift 2; bad_input "$name" "$want" "$BIN" analyze cost "$@"; }
bad "missing model file" "nope.json" --model "$ROOT/nope.json" --topology "$T"
bad "zero batch" "--batch" --model "$M" --topology "$T" --batch 0
bad "group not whole nodes" "multiple of the topology's 8" --model "$M" --topology "$T" --de-group 12
bad "no fresh tokens" "--fresh" --model "$M" --topology "$T" --fresh 0
bad "topology as model" "/model" --model "$T" --topology "$T"
bad "public points of another model" "DeepSeek-V3" --model "$ROOT/models/ds-27b.json" --topology "$T" --public
bad "profile without a label" "--label" --model "$M" --topology "$T" --write-profile "$tmpd/q.json"
bad "profile with a bad scale" "--decode-scale" --model "$M" --topology "$T" --write-profile "$tmpd/q.json" --label x --decode-scale 0
exit $fail
