#!/usr/bin/env bash
# Issue 7's acceptance run, on loopback: an emulated 1P1D as two node processes plus a scheduler process under
# mpirun (`hw run --launch mpi`), each node with a 40 MB/s emulated SNIC, DS 27B with a 64 B/token/layer KV, and an
# I/O-bound trace (hw/scenarios/io-bound-1p1d.json). Checks:
#   - Basic and DualPath complete every round, with real block files (every read block's checksum verified) and UCX
#     between the node processes; summary.json says launch mpi and compute emulated;
#   - measured DualPath/Basic throughput (JCT ratio) >= 1.7;
#   - `hw calibrate` writes an overlay; the simulator fed it predicts each measured JCT within 10% (dualpath validate);
#   - a missing block file and a silent node process stop the run with a clear error, exit 1, and a summary that
#     lists what failed.
# Exit 77 (skipped) when this build has no hardware backend or no MPI launcher.
set -euo pipefail
bin="$1"; root="$2"
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if [ ! -x "$(dirname "$bin")/dualpath-hw" ] || ! command -v mpirun > /dev/null; then
  echo "SKIP: no dualpath-hw (MPI) next to $bin, or no mpirun"; exit 77
fi
sc="$root/hw/scenarios/io-bound-1p1d.json"
kv=(--set model.kv_bytes_per_token_layer=64B)

"$bin" hw calibrate --scenario "$sc" "${kv[@]}" --snic-rate "40 MB/s" --blocks 64 --storage-dir "$tmp/cal" \
  --out "$tmp/calibration.json"
# One run per policy, in turn, into $tmp/hw/<policy>/ (hw run --policy, as dualpath run --policy).
timeout 400 "$bin" hw run "$sc" "${kv[@]}" --policy basic,dualpath --snic-rate "40 MB/s" --launch mpi \
  --out "$tmp/hw" --storage-dir "$tmp/store"
"$bin" run "$sc" "${kv[@]}" --overlay "$tmp/calibration.json" --policy basic,dualpath --out "$tmp/sim" --quiet
# The split of reads between the two paths follows real-time scheduling decisions (a few % apart run to run), so
# only the totals are held to byte accuracy.
"$bin" validate "$tmp/sim" "$tmp/hw" --tol jct=0.10 --tol prompt_tokens_per_s=0.10 \
  --only jct,prompt_tokens_per_s,bytes.storage_read,bytes.storage_write,bytes.hit_loaded_to_pe_hbm

"$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
from checks import check, done
hw = {p: json.load(open(f"{d}/hw/{p}/summary.json")) for p in ("basic", "dualpath")}
for p, s in hw.items():
    r, h = s["results"], s["hw"]
    check(s["backend"] == "hw" and s["compute"] == "emulated", f"{p}: labelled backend hw, compute emulated")
    check(h["mode"].startswith("mpi:") and len(h["nodes"]) == 2, f"{p}: {h['mode']}")
    check(s["complete"] and r["rounds"] == s["rounds_total"] > 0, f"{p}: all {s['rounds_total']} rounds complete")
    st = h["storage"]
    check(st["blocks_read"] > 0 and st["blocks_verified"] == st["blocks_read"] and st["errors"] == 0,
          f"{p}: {st['blocks_read']} blocks read from files by the node processes, every checksum verified")
    check(abs(st["requested_read_bytes"] - r["bytes"]["storage_read"]) < 1, f"{p}: every hit byte was read")
    check(st["blocks_read"] * h["block_bytes"] == round(st["requested_read_bytes"]),
          f"{p}: the blocks read are exactly the hit blocks ({h['block_bytes']} B each)")
    check("ucx" in h["kv_transport"] and not h["transport_fallback"], f"{p}: bytes moved by {h['kv_transport']}")
    check(not h["errors"], f"{p}: no errors")
jb, jd = hw["basic"]["results"]["jct_s"], hw["dualpath"]["results"]["jct_s"]
check(jb / jd >= 1.7, f"measured DualPath/Basic throughput {jb / jd:.2f}x >= 1.7 (JCT {jb:.2f} s vs {jd:.2f} s)")
cal = json.load(open(f"{d}/calibration.json"))
check(cal["overlay"] == 1 and "topology.snic_bw" in cal["set"], f"calibration overlay sets {sorted(cal['set'])}")
done()
PY

# A larger emulated cluster: 2P2D with 2 GPUs per node (5 processes), EP groups spanning nodes, so transfers and
# collectives go between several peers and GPUs map to regions 2g / 2g+1 across processes.
"$bin" hw run "$root/hw/scenarios/tiny-1p1d.json" --set model.kv_bytes_per_token_layer=64B --set workload.agents=12 \
  --snic-rate "20 MB/s" --set deployment.prefill_nodes=2 --set deployment.decode_nodes=2 \
  --set topology.gpus_per_node=2 --set deployment.pe_group_gpus=2 --set deployment.de_group_gpus=4 \
  --launch mpi --out "$tmp/2p2d" --storage-dir "$tmp/store-2p2d" --quiet
"$py" - "$tmp/2p2d/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
h = s["hw"]
assert s["complete"] and s["results"]["rounds"] == s["rounds_total"], "2P2D must complete"
assert len(h["nodes"]) == 4 and not h["errors"], h["errors"]
assert h["storage"]["blocks_verified"] == h["storage"]["blocks_read"] > 0
assert s["results"]["bytes"]["collective"] > 0, "EP collectives across nodes"
print(f"ok   2P2D x 2 GPUs under MPI (5 processes): {s['rounds_total']} rounds, "
      f"{s['results']['bytes']['collective'] / 1e6:.0f} MB of collectives between node processes")
PY

# Faults under MPI: each must end with exit 1, a clear message, and a summary listing the failure.
fault() {  # name, expected text, extra args...
  local name="$1" text="$2"; shift 2
  set +e
  timeout 120 "$bin" hw run "$root/hw/scenarios/tiny-1p1d.json" --set model.kv_bytes_per_token_layer=64B \
    --set workload.agents=4 --snic-rate "20 MB/s" --launch mpi --out "$tmp/$name" --storage-dir "$tmp/store-$name" \
    "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$?
  set -e
  grep -m1 "hw run failed" "$tmp/$name.err" || true
  [ "$rc" -eq 1 ] || { echo "FAIL $name: exit code $rc, expected 1"; cat "$tmp/$name.err"; exit 1; }
  "$py" - "$tmp/$name/summary.json" "$text" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["complete"] is False, "summary must say the run is incomplete"
assert any(sys.argv[2] in e for e in s["hw"]["errors"]), s["hw"]["errors"]
print("ok   fault stops the run with exit 1; summary lists:", [e for e in s["hw"]["errors"] if sys.argv[2] in e][0])
PY
}
fault missing "missing block file" --fault missing-block
fault silent "did not answer" --fault node-silent --op-timeout 3
