#!/usr/bin/env bash
# Bad configuration inputs: each must exit 2 (not crash), print exactly one line on stderr, and that line must
# name the file (or override) and the JSON path or line. Usage: config_errors.sh <dualpath-binary> <repo-root>
set -u
BIN="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0
cases=0

MODEL="$ROOT/models/ds-27b.json"
TOPO="$ROOT/topologies/hopper-8gpu-80g.json"

# good_scenario FILE [jq-free edit: sed expression applied to the text]
good_scenario() {
  cat > "$1" <<JSON
{
  "name": "bad-case",
  "model": "$MODEL",
  "topology": "$TOPO",
  "deployment": {"prefill_nodes": 1, "decode_nodes": 1, "pe_group_gpus": 8, "de_group_gpus": 8,
                 "fetch_period": "50 ms"},
  "workload": {"mode": "offline", "agents": 4},
  "policy": {"name": "dualpath"}
}
JSON
}

# expect_error LABEL NEEDLE... -- ARGS...: run `dualpath check ARGS`, require exit 2, one stderr line containing
# every NEEDLE (fixed strings).
expect_error() {
  local label="$1"; shift
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  cases=$((cases + 1))
  "$BIN" check "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$TMP/err")
  local ok=1
  if [ "$rc" -ge 128 ]; then echo "FAIL [$label]: crashed (exit $rc)"; ok=0; fi
  if [ "$rc" -ne 2 ]; then echo "FAIL [$label]: exit $rc, expected 2"; ok=0; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL [$label]: $lines stderr lines, expected 1"; ok=0; fi
  if [ -s "$TMP/out" ]; then echo "FAIL [$label]: printed to stdout on error"; ok=0; fi
  for n in "${needles[@]}"; do
    grep -qF -- "$n" "$TMP/err" || { echo "FAIL [$label]: stderr lacks '$n'"; ok=0; }
  done
  grep -q '^dualpath: error: ' "$TMP/err" || { echo "FAIL [$label]: stderr lacks 'dualpath: error: ' prefix"; ok=0; }
  if [ $ok -eq 0 ]; then
    echo "  stderr: $(cat "$TMP/err")"
    failures=$((failures + 1))
  fi
}

S="$TMP/s.json"
good_scenario "$S"
"$BIN" check "$S" >/dev/null || { echo "FAIL: the base scenario does not validate"; exit 1; }

# Edits of the scenario file: each writes a variant and checks the message names it and the JSON path.
variant() {  # variant NAME SED-EXPR -> path of the edited copy
  sed -e "$2" "$S" >"$TMP/$1.json"
  echo "$TMP/$1.json"
}

f=$(variant unknown_key 's/"name": "bad-case"/"name": "bad-case", "nmae": 1/')
expect_error "unknown top-level key" "$f" "/nmae" "unknown key" -- "$f"
f=$(variant missing_key '/"workload"/d')
expect_error "missing workload" "$f" "missing required key \"workload\"" -- "$f"
f=$(variant missing_agents 's/"agents": 4//; s/"offline",/"offline"/')
expect_error "missing agents" "$f" "/workload" "missing required key \"agents\"" -- "$f"
f=$(variant wrong_type 's/"prefill_nodes": 1/"prefill_nodes": "one"/')
expect_error "wrong type" "$f" "/deployment/prefill_nodes" "expected an integer" -- "$f"
f=$(variant bad_unit 's/"50 ms"/"50 parsecs"/')
expect_error "bad unit" "$f" "/deployment/fetch_period" "unknown unit" -- "$f"
f=$(variant wrong_dim 's/"50 ms"/"50 GB"/')
expect_error "wrong dimension" "$f" "/deployment/fetch_period" "expected a duration" -- "$f"
f=$(variant bad_enum 's/"offline"/"batch"/')
expect_error "bad enum mode" "$f" "/workload/mode" "\"offline\" | \"online\"" -- "$f"
f=$(variant p_zero 's/"prefill_nodes": 1/"prefill_nodes": 0/')
expect_error "P < 1" "$f" "/deployment/prefill_nodes" "found 0" -- "$f"
f=$(variant group 's/"pe_group_gpus": 8/"pe_group_gpus": 6/')
expect_error "group size vs gpus_per_node" "$f" "/deployment/pe_group_gpus" "gpus_per_node" -- "$f"
f=$(variant group_split 's/"de_group_gpus": 8/"de_group_gpus": 16/')
expect_error "group spans more nodes than exist" "$f" "/deployment/de_group_gpus" "whole groups" -- "$f"
f=$(variant missing_model "s|\"$MODEL\"|\"no/such/model.json\"|")
expect_error "missing model file" "$f" "/model" "no/such/model.json" "does not exist" -- "$f"
f=$(variant bare_number 's/"50 ms"/50/')
expect_error "number without unit" "$f" "/deployment/fetch_period" "with a unit" -- "$f"

# Malformed and empty files.
printf '{\n  "name": "x",\n  "model": ,\n}\n' >"$TMP/malformed.json"
expect_error "malformed JSON" "$TMP/malformed.json:3:" "malformed JSON" -- "$TMP/malformed.json"
: >"$TMP/empty.json"
expect_error "empty file" "$TMP/empty.json" "empty" -- "$TMP/empty.json"
echo '[1, 2]' >"$TMP/array.json"
expect_error "not an object" "$TMP/array.json" "expected a scenario object" -- "$TMP/array.json"
expect_error "scenario file missing" "$TMP/none.json" "does not exist" -- "$TMP/none.json"

# Errors inside a referenced model file name the model file and the merged path.
sed -e 's/"n_layers": 30/"n_layers": -30/' "$MODEL" >"$TMP/model_neg.json"
f=$(variant model_ref "s|\"$MODEL\"|\"model_neg.json\"|")
expect_error "bad value in model file" "$TMP/model_neg.json" "/model/n_layers" -- "$f"
sed -e 's/"kv_bytes_per_token_layer": "656 B"/"kv_bytes_per_token_layer": "656 B", "kv_dtype": "fp8"/' "$MODEL" >"$TMP/model_key.json"
f=$(variant model_ref2 "s|\"$MODEL\"|\"model_key.json\"|")
expect_error "unknown key in model file" "$TMP/model_key.json" "/model/kv_dtype" -- "$f"
printf '{"name": "m",\n "n_layers": 3,,\n}' >"$TMP/model_bad.json"
f=$(variant model_ref3 "s|\"$MODEL\"|\"model_bad.json\"|")
expect_error "malformed model file" "$TMP/model_bad.json:2:" "/model" -- "$f"

# Overrides.
expect_error "override: non-positive bandwidth" "--set topology.snic_bw=0 Gbps" "/topology/snic_bw" "> 0" -- \
  "$S" --set "topology.snic_bw=0 Gbps"
expect_error "override: negative bandwidth" "/topology/cnic_bw" "negative" -- "$S" --set "topology.cnic_bw=-1 Gbps"
expect_error "override: wrong dimension" "/topology/snic_bw" "byte size" -- "$S" --set "topology.snic_bw=80 GiB"
expect_error "override: unknown path" "--set policy.nmae=basic" "/policy/nmae" "unknown key" -- \
  "$S" --set policy.nmae=basic
expect_error "override: unknown section" "--set polcy.name=basic" "/polcy" -- "$S" --set polcy.name=basic
expect_error "override: path through a scalar" "--set policy.name.x=1" "/policy/name" -- "$S" --set policy.name.x=1
expect_error "override: bad value type" "--set deployment.prefill_nodes=two" "/deployment/prefill_nodes" -- \
  "$S" --set deployment.prefill_nodes=two
expect_error "override: bad enum" "--set policy.quota_scope=batch" "/policy/quota_scope" -- \
  "$S" --set policy.quota_scope=batch
expect_error "override: no '='" "--set policy.name" "path=value" -- "$S" --set policy.name
expect_error "override: empty segment" "--set policy..name=x" "empty key" -- "$S" --set policy..name=x
expect_error "override: bad model file" "--set model=$TMP/none.json" "/model" -- "$S" --set "model=$TMP/none.json"
expect_error "override: bad boolean" "/policy/layerwise" "true or false" -- "$S" --set policy.layerwise=yes
# check applies run's policy rules: an unknown name (listing the known ones) and a setting the policy refuses.
expect_error "unknown policy" "/policy/name" "unknown policy 'zzz'" "known: basic" -- "$S" --set policy.name=zzz
expect_error "policy refuses a setting" "/policy/dual_path" "dram-pool" -- "$S" --set policy.name=dram-pool \
  --set policy.dual_path=true

# Overlay files (--overlay): the message names the overlay file and the JSON pointer inside it.
overlay() {  # overlay NAME JSON -> path of the written overlay
  printf '%s' "$2" >"$TMP/$1.json"
  echo "$TMP/$1.json"
}
o=$(overlay ov_wrong_dim '{"overlay": 1, "set": {"topology.snic_bw": "80 GiB"}}')
expect_error "overlay: wrong dimension" "$o: /set/topology.snic_bw" "/topology/snic_bw" "expected a bandwidth" -- \
  "$S" --overlay "$o"
o=$(overlay ov_unknown_path '{"overlay": 1, "set": {"topology.snic_bww": "8 GB/s"}}')
expect_error "overlay: unknown path" "$o: /set/topology.snic_bww" "unknown key" -- "$S" --overlay "$o"
o=$(overlay ov_unknown_field '{"overlay": 1, "set": {}, "sets": {}}')
expect_error "overlay: unknown top-level field" "$o: /sets" "unknown field" -- "$S" --overlay "$o"
o=$(overlay ov_version '{"overlay": 2, "set": {}}')
expect_error "overlay: wrong version" "$o: /overlay" "expected 1" -- "$S" --overlay "$o"
o=$(overlay ov_no_version '{"set": {}}')
expect_error "overlay: missing version" "$o: /" "missing required key \"overlay\"" -- "$S" --overlay "$o"
o=$(overlay ov_no_set '{"overlay": 1, "description": "x"}')
expect_error "overlay: missing set" "$o: /" "missing required key \"set\"" -- "$S" --overlay "$o"
o=$(overlay ov_set_array '{"overlay": 1, "set": ["topology.snic_bw=1 GB/s"]}')
expect_error "overlay: set not an object" "$o: /set" "expected an object" -- "$S" --overlay "$o"
o=$(overlay ov_bad_value '{"overlay": 1, "set": {"deployment.prefill_nodes": "two"}}')
expect_error "overlay: bad value type" "$o: /set/deployment.prefill_nodes" "expected an integer" -- "$S" --overlay "$o"
o=$(overlay ov_malformed $'{"overlay": 1,\n "set": {,}}')
expect_error "overlay: malformed JSON" "$o:2:" "malformed JSON in overlay file" -- "$S" --overlay "$o"
expect_error "overlay: missing file" "$TMP/none.json" "overlay file does not exist" -- "$S" --overlay "$TMP/none.json"
# The command line wins over an overlay, and a bad --set is still named as the override.
o=$(overlay ov_good '{"overlay": 1, "set": {"topology.snic_bw": "1 GB/s"}}')
expect_error "overlay then bad --set" "--set topology.snic_bw=80 GiB" "/topology/snic_bw" -- \
  "$S" --overlay "$o" --set "topology.snic_bw=80 GiB"
cases=$((cases + 1))
if ! "$BIN" check "$S" --overlay "$o" --set "topology.snic_bw=2 GB/s" | grep -q '"snic_bw": 2000000000'; then
  echo "FAIL [overlay then --set]: --set did not win over the overlay"
  failures=$((failures + 1))
fi

echo "config_errors: $cases cases, $failures failures"
[ "$failures" -eq 0 ]
