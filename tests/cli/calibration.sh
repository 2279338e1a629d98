#!/usr/bin/env bash
# Calibrations (docs/calibration.md), end to end:
#   - `ideal` is the model without a calibration, to the byte (requests.csv, links.csv, every result);
#   - a calibration's fixed costs cost what their closed forms say (a decode step: layers x (decode_layer +
#     decode_request x batch); a prefill forward: n_layers x prefill_layer), and paper-cluster's are named in summary.json;
#   - the command line wins over a calibration (--set after it), a scenario may name one, and every output names it;
#   - bad calibrations are refused, naming the file, the JSON pointer and what was expected (exit 2);
#   - `run --band` prints each end as the single-calibration run gives it, and band.json holds the ranges;
#   - `calibrate` recovers known fixed costs (within 5%) from SGLang and vLLM result files written from the
#     simulator's own cost model under a known calibration, and refuses malformed files naming line and field.
# Usage: calibration.sh <dualpath-binary> <repo-root>
set -u
BIN="$1"; ROOT="$2"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
refused() {  # description, expected stderr text, command...
  local what="$1" want="$2"; shift 2
  "$@" > "$tmp/r.out" 2> "$tmp/r.err"; local rc=$?
  if [ "$rc" = 2 ] && grep -qF -- "$want" "$tmp/r.err" && [ "$(wc -l < "$tmp/r.err")" = 1 ]; then echo "ok   refused: $what"
  else echo "FAIL refused: $what (exit $rc): $(cat "$tmp/r.err")"; fail=1; fi
}
S="$ROOT/scenarios/default.json"
M="$ROOT/models/ds-27b.json"; T="$ROOT/topologies/hopper-8gpu-80g.json"
small=(--set workload.agents=24)

# ideal is the model itself
"$BIN" run "$S" --quiet "${small[@]}" --out "$tmp/none"
"$BIN" run "$S" --quiet "${small[@]}" --calibration ideal --out "$tmp/ideal"
check "ideal: requests.csv and links.csv byte-identical to no calibration" \
  "cmp -s '$tmp/none/requests.csv' '$tmp/ideal/requests.csv' && cmp -s '$tmp/none/links.csv' '$tmp/ideal/links.csv'"
check "ideal: summary.json identical, and it names the calibration" \
  "cmp -s '$tmp/none/summary.json' '$tmp/ideal/summary.json' && grep -q '\"name\": \"ideal\"' '$tmp/ideal/summary.json'"

# paper-cluster: named, its fixed costs echoed, slower decode
"$BIN" run "$S" "${small[@]}" --calibration paper-cluster --out "$tmp/paper" > "$tmp/paper.out"
check "paper-cluster: the run table names it as fitted" "grep -q '^calibration paper-cluster: FITTED' '$tmp/paper.out'"
"$py" - "$tmp/paper/summary.json" "$tmp/ideal/summary.json" "$ROOT/calibrations/paper-cluster.json" <<'PY' || fail=1
import json, sys
p, i, cal = (json.load(open(f)) for f in sys.argv[1:])
t = p["config"]["topology"]
ok = (p["calibration"]["name"] == "paper-cluster" and "fixed_costs" in t and "fixed_costs" not in i["config"]["topology"]
      and abs(t["fixed_costs"]["decode_request"] - 14.5e-6) < 1e-12 and abs(t["fixed_costs"]["prefill_layer"] - 2e-3) < 1e-12
      and t["storage"]["client_read_efficiency"] == cal["set"]["topology.storage.client_read_efficiency"]
      and p["results"]["tpot_s"]["p50"] > i["results"]["tpot_s"]["p50"]
      and "calibration_fixed" in p["waits"]["utilisation"]["decode_step_parts"])
print(("ok  " if ok else "FAIL") + " paper-cluster: summary names it, echoes its fixed costs and storage reading, decodes slower")
sys.exit(0 if ok else 1)
PY

# closed forms of the fixed costs (DS 27B, one node: no EP all-to-all, one micro-batch, no overlap)
cat > "$tmp/k.json" <<'J'
{"calibration": 1, "name": "known", "label": "test: known fixed costs",
 "set": {"topology.fixed_costs.decode_layer": "30 us", "topology.fixed_costs.decode_request": "12 us",
         "topology.fixed_costs.prefill_layer": "400 us"},
 "parameters": {"topology.fixed_costs.decode_layer": {"fitted_to": ["test"]},
                "topology.fixed_costs.decode_request": {"fitted_to": ["test"]},
                "topology.fixed_costs.prefill_layer": {"fitted_to": ["test"]}}}
J
cost() { "$BIN" analyze cost --model "$M" --topology "$T" --de-group 8 --pe-group 8 --batch "$1" --context 3000 \
           --prefill-tokens 2000 --cached 0 --fresh 2000 --json "${@:2}"; }
cost 4 > "$tmp/c0.json"; cost 4 --calibration "$tmp/k.json" > "$tmp/c1.json"
"$py" - "$tmp/c0.json" "$tmp/c1.json" "$M" <<'PY' || fail=1
import json, sys
a, b, m = (json.load(open(f)) for f in sys.argv[1:])
layers = m["n_layers"] + m.get("mtp_depth", 0)
d_step = b["decode"]["points"][0]["step_s"] - a["decode"]["points"][0]["step_s"]
d_fwd = b["prefill"]["forward_s"] - a["prefill"]["forward_s"]
want_step, want_fwd = layers * (30e-6 + 12e-6 * 4), m["n_layers"] * 400e-6
ok = abs(d_step - want_step) < 1e-9 and abs(d_fwd - want_fwd) < 1e-9
print(("ok  " if ok else "FAIL") + f" fixed costs: decode step +{d_step * 1e3:.4f} ms (closed form {want_step * 1e3:.4f}), "
      f"prefill forward +{d_fwd * 1e3:.4f} ms (closed form {want_fwd * 1e3:.4f})")
sys.exit(0 if ok else 1)
PY

refused "fixed costs on a measured profile (it holds its own)" "/topology/fixed_costs: applies to the roofline" \
  "$BIN" check "$ROOT/scenarios/ds660b-2p4d.json" --calibration paper-cluster --set model.timing=profile \
  --set model.profile="$ROOT/profiles/ds660b-hopper-roofline.json"

# precedence and the scenario key
"$BIN" check "$S" --calibration paper-cluster --set topology.storage.client_read_efficiency=0.9 > "$tmp/chk.json"
check "--set wins over the calibration" "grep -q '\"client_read_efficiency\": 0.9' '$tmp/chk.json'"
"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); d['calibration']='$tmp/k.json'; d['model']='$M'; d['topology']='$T'; json.dump(d, open(sys.argv[2], 'w'))" "$S" "$tmp/sc.json"
"$BIN" check "$tmp/sc.json" > "$tmp/chk2.json"
check "a scenario's \"calibration\" file applies" "grep -q '\"decode_request\": 1.2e-05' '$tmp/chk2.json'"

# bad calibrations
refused "an unknown name, listing the bundled ones" 'unknown calibration "nope"; expected one of ideal, paper-cluster' \
  "$BIN" check "$S" --calibration nope
echo '{"calibration": 1, "name": "x", "label": "x", "set": {"model.linear_efficiency": 0.5}, "parameters": {"model.linear_efficiency": {"fitted_to": ["y"]}}}' > "$tmp/m.json"
refused "a model key (a calibration describes the cluster)" "m.json: /set/model.linear_efficiency: expected a topology path" \
  "$BIN" check "$S" --calibration "$tmp/m.json"
echo '{"calibration": 1, "name": "x", "label": "x", "set": {"topology.snic_bw": "100 Gbps"}}' > "$tmp/n.json"
refused "a value that names no figures" "n.json: /parameters/topology.snic_bw: missing: every value" \
  "$BIN" check "$S" --calibration "$tmp/n.json"
echo '{"calibration": 2, "name": "x", "label": "x", "set": {}}' > "$tmp/v.json"
refused "another format version" "v.json: /calibration: expected 1" "$BIN" check "$S" --calibration "$tmp/v.json"
echo '{"calibration": 1, "name": "x", "label": "x", "set": {"topology.fixed_costs.decode_request": "1 s"}, "parameters": {"topology.fixed_costs.decode_request": {"fitted_to": ["y"]}}}' > "$tmp/big.json"
refused "a fixed cost out of range" "decode_request" "$BIN" check "$S" --calibration "$tmp/big.json"

# the band: each end is the single-calibration run
"$BIN" run "$S" "${small[@]}" --policy basic,dualpath --band ideal,paper-cluster --out "$tmp/band" > "$tmp/band.out"
"$BIN" run "$S" --quiet "${small[@]}" --policy basic,dualpath --calibration paper-cluster --out "$tmp/p2"
"$py" - "$tmp/band/band.json" "$tmp/none/summary.json" "$tmp/p2/dualpath/summary.json" <<'PY' || fail=1
import json, sys
band, ideal_dp, paper_dp = (json.load(open(f)) for f in sys.argv[1:])
j = band["policies"]["dualpath"]["jct_s"]
# the none run is dualpath (the scenario's policy) under ideal
ends = {j["low_calibration"]: j["low"], j["high_calibration"]: j["high"]}
ok = (band["band"] == ["ideal", "paper-cluster"] and ends.get("ideal") == ideal_dp["results"]["jct_s"]
      and ends.get("paper-cluster") == paper_dp["results"]["jct_s"])
print(("ok  " if ok else "FAIL") + f" run --band: DualPath JCT {j['low']:.1f} ({j['low_calibration']}) .. {j['high']:.1f} "
      f"({j['high_calibration']}) equal the single-calibration runs")
sys.exit(0 if ok else 1)
PY
check "run --band prints each policy's range with its ends" "grep -q 'dualpath: JCT .* (ideal .. paper-cluster)' '$tmp/band.out'"
refused "a band of one" "--band ideal: expected two or more calibrations" "$BIN" run "$S" --band ideal --out "$tmp/b1"

# capacity --band and plan --target-aps --band: each end is the single-calibration answer (short TTFT-only probes)
S27="$ROOT/scenarios/ds27b-1p1d.json"
on=(--set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s --set workload.stop=slo-ttft
    --slo-ttft 0.3s --jobs 2 --no-plot)
"$BIN" capacity "$S27" "${on[@]}" --resolution 0.1 --band ideal,paper-cluster --out "$tmp/cb" > "$tmp/cb.out" 2>/dev/null
"$BIN" capacity "$S27" "${on[@]}" --resolution 0.1 --calibration paper-cluster --out "$tmp/c1" > /dev/null 2>&1
"$BIN" plan "$S27" --objective capacity --target-aps 1.5 "${on[@]}" --max-nodes 8 --band ideal,paper-cluster \
  --out "$tmp/pb" > "$tmp/pb.out" 2>/dev/null
"$BIN" plan "$S27" --objective capacity --target-aps 1.5 "${on[@]}" --max-nodes 8 --calibration paper-cluster \
  --out "$tmp/p1" > /dev/null 2>&1
"$py" - "$tmp" <<'PY' || fail=1
import json, sys
t = sys.argv[1]
cb, c1, ci = (json.load(open(f"{t}/{f}")) for f in ("cb/band.json", "c1/capacity.json", "cb/ideal/capacity.json"))
pb, p1 = (json.load(open(f"{t}/{f}")) for f in ("pb/band.json", "p1/plan.json"))
ok = True
for pol in ("basic", "dualpath"):
    r = cb["policies"][pol]["capacity_aps"]
    ends = {r["low_calibration"]: r["low"], r["high_calibration"]: r["high"]}
    ok &= ends.get("paper-cluster") == c1["policies"][pol]["capacity_aps"] and ends.get("ideal") == ci["policies"][pol]["capacity_aps"]
    ok &= c1["calibration"]["name"] == "paper-cluster"
nodes = [v["nodes"] for v in p1["variants"] if v["nodes"] is not None]
ok &= pb["answers"]["paper-cluster"]["nodes"] == (min(nodes) if nodes else None)
ok &= p1["identity"]["calibration"]["name"] == "paper-cluster"
print(("ok  " if ok else "FAIL") + f" capacity --band ends equal the single searches ({cb['policies']['dualpath']['capacity_aps']}); "
      f"plan --band's paper-cluster answer equals its own plan ({pb['answers']})")
sys.exit(0 if ok else 1)
PY
check "capacity --band prints each policy's range" "grep -Eq 'dualpath: [0-9.]+-[0-9.]+ APS \((ideal|paper-cluster) \.\. (ideal|paper-cluster)\)' '$tmp/cb.out'"
check "plan --band prints the node range" "grep -q 'nodes holding 1.5 APS' '$tmp/pb.out'"

# claims --calibration: the simulations and the analytic model share the calibration, so the links still match the
# model; paper-cluster's slower compute leaves the claim scenarios' SNICs unsaturated (docs/calibration.md)
"$BIN" claims --only 1 --jobs 2 --calibration paper-cluster --out "$tmp/cl" > "$tmp/cl.out" 2>/dev/null
check "claims --calibration names it and the links match the §4.2 model under it" \
  "grep -q '^calibration paper-cluster' '$tmp/cl.out' && [ \$(grep -c 'links vs §4.2 model .*PASS' '$tmp/cl.out') = 4 ] \
   && grep -q '1P1D DualPath: SNICs .*FAIL' '$tmp/cl.out'"
"$BIN" claims --only 1 --jobs 2 --calibration ideal --out "$tmp/cli" > "$tmp/cli.out" 2>/dev/null
check "claims --calibration ideal passes claim 1 as the sourced model does" "grep -q 'all 8 checks passed' '$tmp/cli.out'"

# calibrate recovers known costs from result files written from the cost model under them
mkdir -p "$tmp/bench"
for b in 1 4 12; do cost "$b" --calibration "$tmp/k.json" > "$tmp/bench/c$b.json"; done
"$py" - "$tmp/bench" <<'PY'
import json, os, sys
d = sys.argv[1]
lines = []
for b in (1, 4, 12):
    c = json.load(open(f"{d}/c{b}.json"))
    tpot, ttft = c["decode"]["points"][0]["step_s"] * 1e3, c["prefill"]["forward_s"] * 1e3
    # context 3000 = input + output / 2; 2,000-token prompts (the prefill shape), 2,000 output tokens
    rec = {"backend": "sglang", "request_rate": "inf", "max_concurrency": b * 8, "completed": 100,
           "total_input_tokens": 200000, "total_output_tokens": 200000, "median_ttft_ms": ttft,
           "mean_ttft_ms": ttft * 1.5, "median_tpot_ms": tpot, "mean_tpot_ms": tpot, "output_throughput": 1.0}
    lines.append(json.dumps(rec))
    if b == 4:  # the same point as vLLM writes it (no concurrency field: rate x mean end-to-end latency)
        v = {"backend": "vllm", "request_rate": 1.0, "max_concurrency": None, "completed": 100,
             "total_input_tokens": 200000, "total_output_tokens": 200000, "request_throughput": 32 / 10.0,
             "mean_e2el_ms": 10000.0, "median_ttft_ms": ttft, "median_tpot_ms": tpot, "ttfts": [], "itls": []}
        json.dump(v, open(f"{d}/vllm.json", "w"))
open(f"{d}/sglang.jsonl", "w").write("\n".join(lines) + "\n")
PY
"$BIN" calibrate "$S" "$tmp/bench/sglang.jsonl" "$tmp/bench/vllm.json" --name fitted -o "$tmp/fit.json" > "$tmp/fit.out"
check "calibrate prints each point's residual" "grep -q 'sglang.jsonl:3' '$tmp/fit.out' && grep -q 'vllm.json' '$tmp/fit.out'"
"$py" - "$tmp/fit.json" <<'PY' || fail=1
import json, re, sys
doc = json.load(open(sys.argv[1]))
us = lambda k: float(re.match(r"([0-9.e+-]+) us", doc["set"][k]).group(1))
got = {k: us("topology.fixed_costs." + k) for k in ("decode_layer", "decode_request", "prefill_layer")}
want = {"decode_layer": 30, "decode_request": 12, "prefill_layer": 400}
ok = all(abs(got[k] / want[k] - 1) <= 0.05 for k in want) and doc["label"].startswith("FITTED")
ok = ok and all(doc["parameters"][k]["fitted_to"] for k in doc["set"])
print(("ok  " if ok else "FAIL") + f" calibrate recovers {want} us within 5%: {got}")
sys.exit(0 if ok else 1)
PY
"$BIN" check "$S" --calibration "$tmp/fit.json" > /dev/null
check "the written calibration loads" "[ $? = 0 ]"
printf '%s\n' '{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100, "median_ttft_ms": 5, "median_tpot_ms": 3, "max_concurrency": 4}' 'not json' > "$tmp/bad1.jsonl"
refused "a line that is not JSON, by line" "bad1.jsonl:2: expected one JSON object per line" \
  "$BIN" calibrate "$S" "$tmp/bad1.jsonl" -o "$tmp/x.json"
printf '%s\n' '{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100, "median_ttft_ms": 5, "max_concurrency": 4}' > "$tmp/bad2.jsonl"
refused "a missing TPOT, by line and field" 'bad2.jsonl:1: /median_tpot_ms: missing: expected "median_tpot_ms" or "mean_tpot_ms"' \
  "$BIN" calibrate "$S" "$tmp/bad2.jsonl" -o "$tmp/x.json"
echo '{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100, "median_ttft_ms": -5, "median_tpot_ms": 3, "max_concurrency": 4}' > "$tmp/bad3.json"
refused "a negative TTFT (vLLM file)" "bad3.json: /median_ttft_ms: expected TTFT in milliseconds (a number > 0)" \
  "$BIN" calibrate "$S" "$tmp/bad3.json" -o "$tmp/x.json"
exit $fail
