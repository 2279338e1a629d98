#!/usr/bin/env bash
# Mixed hardware (issue 65, docs/configuration.md "Each role's hardware"): prefill_topology / decode_topology give a
# role's nodes their own GPU, NICs and memory. On DS 27B 1P1D:
#   - one agent (no batching couples the roles): decode nodes with half the HBM bandwidth raise TPOT (most of a
#     decode step reads weights and KV from HBM) and leave prefill's time exactly as it was (1e-9); prefill nodes on
#     H20s (topologies/h20-8gpu-96g.json: 148 of 989 TFLOPS) raise prefill's time and leave TPOT exactly as it was;
#   - 64 agents: the same directions, with prefill on H20s slower by less than the FLOPS ratio (fixed kernel costs do
#     not scale). Prefill's time is not checked under slow decode here: in a closed loop slower decode spreads the
#     rounds out, so prefill batches shrink and their time falls (8% on this run), a real effect of the load;
#   - `check` prints each role's hardware; a role with another GPU count or storage section is refused (exit 2);
#   - the hardware backend refuses a mixed scenario (exit 2).
# Usage: mixed_hardware.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
h20="$root/topologies/h20-8gpu-96g.json"
hopper="$root/topologies/hopper-8gpu-80g.json"
run() {  # run NAME AGENTS ARGS...
  local name=$1 agents=$2; shift 2
  "$bin" run "$sc" --set workload.agents=$agents --set workload.trajectories=$agents "$@" --out "$tmp/$name" \
    > /dev/null 2> "$tmp/$name.err" || { cat "$tmp/$name.err"; exit 1; }
}
slow_de=(--set decode_topology="$hopper" --set 'decode_topology.gpu.hbm_bw="1.675 TB/s"')
for a in 1 64; do
  run same$a $a
  run slow_de$a $a "${slow_de[@]}"
  run h20_pe$a $a --set prefill_topology="$h20"
done
"$bin" check "$sc" --set decode_topology="$h20" > "$tmp/check.json" 2> "$tmp/check.err" || { cat "$tmp/check.err"; exit 1; }
"$bin" check "$sc" --set decode_topology="$h20" --set decode_topology.gpus_per_node=4 > /dev/null 2> "$tmp/gpn.err"
gpn_rc=$?
"$bin" check "$sc" --set decode_topology="$h20" --set 'decode_topology.storage.latency="1 ms"' > /dev/null 2> "$tmp/st.err"
st_rc=$?
hw_rc=skip
if "$bin" hw run --help > /dev/null 2>&1; then
  "$bin" hw run "$sc" --set decode_topology="$h20" --out "$tmp/hw" > /dev/null 2> "$tmp/hw.err"
  hw_rc=$?
fi
PYTHONPATH="$root/tests/cli" python3 - "$tmp" "$gpn_rc" "$st_rc" "$hw_rc" <<'PY'
import json, sys
from checks import check, done
t, gpn_rc, st_rc, hw_rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def res(name):
    r = json.load(open(f"{t}/{name}/summary.json"))["results"]
    return r["tpot_s"]["mean"], r["ttft_breakdown_s"]["prefill"]
for a in (1, 64):
    tpot0, pre0 = res(f"same{a}")
    tpot1, pre1 = res(f"slow_de{a}")
    tpot2, pre2 = res(f"h20_pe{a}")
    print(f"     {a} agent(s), 1P1D H800s: TPOT {tpot0*1e3:.3f} ms, prefill {pre0*1e3:.2f} ms; decode HBM at half: "
          f"TPOT {tpot1*1e3:.3f} ms, prefill {pre1*1e3:.2f} ms; prefill on H20s: TPOT {tpot2*1e3:.3f} ms, "
          f"prefill {pre2*1e3:.2f} ms")
    check(tpot1 > 1.3 * tpot0, f"{a}: half the decode HBM bandwidth raises TPOT by more than 30% ({tpot1/tpot0:.3f}x)")
    check(pre2 > 1.2 * pre0, f"{a}: prefill on H20s raises prefill's time by more than 20% ({pre2/pre0:.3f}x)")
    if a == 1:
        check(abs(pre1 / pre0 - 1) < 1e-9, f"1: slow decode leaves prefill's time as it was ({pre1/pre0:.12f}x)")
        check(abs(tpot2 / tpot0 - 1) < 1e-9, f"1: H20 prefill leaves TPOT as it was ({tpot2/tpot0:.12f}x)")
    else:
        check(pre2 / pre0 < 989 / 148, f"{a}: by less than the FLOPS ratio 6.7x ({pre2/pre0:.2f}x)")
        check(abs(tpot2 / tpot0 - 1) < 0.01, f"{a}: H20 prefill leaves TPOT within 1% ({tpot2/tpot0:.4f}x)")
c = json.load(open(f"{t}/check.json"))
check(c["derived"].get("hardware") == {"prefill": "hopper-8gpu-80g", "decode": "h20-8gpu-96g"},
      f"check names each role's hardware: {c['derived'].get('hardware')}")
check(c.get("decode_topology", {}).get("gpu", {}).get("flops") == 148e12, "check prints the decode role's topology")
check("prefill_topology" not in c, "and no prefill_topology where the role has none of its own")
gpn = open(f"{t}/gpn.err").read()
check(gpn_rc == 2 and "/decode_topology" in gpn and "gpus_per_node 8" in gpn,
      f"a decode role with 4 GPUs per node is refused naming the key: rc {gpn_rc}, {gpn.strip()[:160]}")
st = open(f"{t}/st.err").read()
check(st_rc == 2 and "storage" in st, f"a decode role with its own storage section is refused: rc {st_rc}")
if hw_rc != "skip":
    check(int(hw_rc) == 2 and "mixed-hardware" in open(f"{t}/hw.err").read(), f"hw run refuses a mixed scenario: rc {hw_rc}")
done()
PY
