#!/usr/bin/env bash
# model.timing = profile (docs/cost-model.md, "Profiles"), end to end:
#   - a profile of the roofline's own step times reproduces the roofline run's JCT within 1% (DS 27B 1P1D default)
#     and within 2% on DS 660B 2P4D at 512 agents (its early decode groups are unbalanced: see the docs);
#   - a run that reaches a shape beyond the profile's range is refused: exit 2, one line naming the shape;
#   - `check` refuses a profile without the scenario's group sizes, and accepts the two shipped ones;
#   - the shipped roofline profile is still the cost model's (rewritten now, it matches), and the Table-3 one is
#     the same with its decode times x 1.47, labelled as a fit.
# Usage: step_profile.sh <dualpath-binary> <repo-root>
set -u
BIN="$1"; ROOT="$2"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
T="$ROOT/topologies/hopper-8gpu-80g.json"
jct() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['jct_s'])" "$1/summary.json"; }
near() { "$py" -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(0 if abs(a / b - 1) <= t else 1)" "$@"; }

"$BIN" analyze cost --model "$ROOT/models/ds-27b.json" --topology "$T" --pe-group 8 --de-group 8 \
  --write-profile "$tmp/ds27b.json" --label "roofline (test)" > /dev/null
"$BIN" run "$ROOT/scenarios/default.json" --quiet --policy dualpath --out "$tmp/roof"
"$BIN" run "$ROOT/scenarios/default.json" --quiet --policy dualpath --out "$tmp/prof" \
  --set model.timing=profile --set model.profile="$tmp/ds27b.json"
a=$(jct "$tmp/roof"); b=$(jct "$tmp/prof")
check "DS 27B 1P1D: the roofline as a profile gives JCT $b s vs $a s (within 1%)" "near $b $a 0.01"
check "the profiled run's summary names its timing and profile" \
  "grep -q '\"timing\": \"profile\"' '$tmp/prof/summary.json' && grep -q 'ds27b.json' '$tmp/prof/summary.json'"

"$BIN" run "$ROOT/scenarios/ds660b-2p4d.json" --quiet --set workload.agents=512 --out "$tmp/roof660"
"$BIN" run "$ROOT/scenarios/ds660b-2p4d.json" --quiet --set workload.agents=512 --out "$tmp/prof660" \
  --set model.timing=profile --set model.profile="$ROOT/profiles/ds660b-hopper-roofline.json"
a=$(jct "$tmp/roof660"); b=$(jct "$tmp/prof660")
check "DS 660B 2P4D, 512 agents: the shipped roofline profile gives JCT $b s vs $a s (within 2%)" "near $b $a 0.02"

# The shipped profiles are the cost model's own (and x 1.47 in decode): rewritten now, they match.
"$BIN" analyze cost --model "$ROOT/models/deepseek-v3.2-660b.json" --topology "$T" --pe-group 16 --de-group 32 \
  --write-profile "$tmp/now.json" --label x > /dev/null
check "the shipped profiles are today's roofline (decode x 1.47 in the Table-3 one, labelled a fit)" "$py - '$tmp/now.json' '$ROOT/profiles' <<'PY'
import json, sys
now = json.load(open(sys.argv[1]))
rl = json.load(open(sys.argv[2] + '/ds660b-hopper-roofline.json'))
t3 = json.load(open(sys.argv[2] + '/ds660b-hopper-table3-pace.json'))
def close(a, b, k=1.0):
    if isinstance(a, list): return len(a) == len(b) and all(close(x, y, k) for x, y in zip(a, b))
    return abs(a * k - b) <= 1e-9 * abs(b)
for side in ('prefill', 'decode'):
    for key in now[side][0]:
        assert close(now[side][0][key], rl[side][0][key]), ('roofline', side, key)
for key in ('attention_layer_s', 'linear_layer_s'):
    assert close(now['prefill'][0][key], t3['prefill'][0][key]), key
assert close(now['decode'][0]['token_s'], t3['decode'][0]['token_s'], 1.47)
assert t3['label'].startswith('fitted to the paper'), t3['label']
PY"

source "$ROOT/tests/cli/bad_input.bash"
# A hand-made profile that covers batches up to 2 per GPU only: the run reaches more and is refused.
cat > "$tmp/small.json" <<'EOF'
{"name": "small", "label": "hand-made for the test",
 "prefill": [{"group_gpus": 8, "cached": [0, 300000], "fresh": [1, 200000],
              "attention_layer_s": [[1e-6, 1e-2], [1e-4, 1e-1]], "tokens": [1, 2000000], "linear_layer_s": [1e-4, 1]}],
 "decode": [{"group_gpus": 8, "batch": [1, 2], "context": [1, 300000], "token_s": [[0.004, 0.008], [0.005, 0.010]]}]}
EOF
bad_input "a shape beyond the profile" "decode step of EP8: batch" \
  "$BIN" run "$ROOT/scenarios/default.json" --quiet --out "$tmp/bad" --set model.timing=profile --set model.profile="$tmp/small.json"
o=$("$BIN" run "$ROOT/scenarios/default.json" --quiet --out "$tmp/bad" --set model.timing=profile \
    --set model.profile="$tmp/small.json" 2>&1)
check "the refusal is one line naming the range" "[ \$(wc -l <<<\"\$o\") -eq 1 ] && grep -q 'outside the measured range 1..2' <<<\"\$o\""
bad_input "a profile without the scenario's groups" "no prefill table for the scenario's prefill groups of 16 GPUs" \
  "$BIN" check "$ROOT/scenarios/ds660b-2p4d.json" --set model.timing=profile --set model.profile="$tmp/small.json"
# Steps of 1e308 s used to overflow a forward's sums mid-run ("timer delay must be a finite number"), naming no file.
sed 's/0.010\]/1e308]/' "$tmp/small.json" > "$tmp/huge.json"
bad_input "a step time beyond an hour (file and key named)" "huge.json: /decode/0/token_s/1/1: expected a time in seconds in (0, 3600]" \
  "$BIN" check "$ROOT/scenarios/default.json" --set model.timing=profile --set model.profile="$tmp/huge.json"
bad_input "a profile without timing = profile (issue 68: ignored silently)" \
  "/model/profile: a step profile is used only with timing = \"profile\" (this model's timing is \"roofline\")" \
  "$BIN" check "$ROOT/scenarios/default.json" --set model.profile="$tmp/small.json"
bad_input "timing = profile without a profile" "missing required key \"profile\"" \
  "$BIN" check "$ROOT/scenarios/default.json" --set model.timing=profile
bad_input "a missing profile file" "does not exist" \
  "$BIN" check "$ROOT/scenarios/default.json" --set model.timing=profile --set model.profile="$tmp/none.json"
bad_input "an unknown timing" "roofline" "$BIN" check "$ROOT/scenarios/default.json" --set model.timing=measured
for p in ds660b-hopper-roofline ds660b-hopper-table3-pace; do
  check "check accepts the shipped $p profile on DS 660B 2P4D" \
    "'$BIN' check '$ROOT/scenarios/ds660b-2p4d.json' --set model.timing=profile --set model.profile='$ROOT/profiles/$p.json' > /dev/null"
done
exit $fail
