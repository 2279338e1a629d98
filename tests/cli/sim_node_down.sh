#!/usr/bin/env bash
# Faults that lose engines, node-down and cnic-down (issue 19, docs/faults.md), on DS 27B, 64 agents:
#  - 1P2D (node 0 = PE, nodes 1 and 2 = DEs), node 2 lost at 20 s, DualPath and Basic: every round completes exactly
#    once, on node 1's decode engines after the fault; the lost attempts restart at the fault from their persisted
#    prefix; hit KV is conserved (bytes read = hit bytes of the completed rounds + the lost attempts' bytes); the
#    wait report still adds up, lost attempts included; the lost node's writes are undone so that later rounds
#    still hit (the hit rate stays that of the fault-free run); both network engines agree;
#  - 2P1D, prefill node 0 lost: every later round is prefilled on node 1;
#  - cnic-down on 1P2D with two 4-GPU decode groups per node: the GPU's group is lost, the node's other group
#    keeps decoding, and the node's DRAM-buffer traffic moves off the dead CNIC (sim.kv_port = "node");
#  - the only prefill node lost: exit 1 and one line; node-down with `until` or `factor`, cnic-down without a
#    valid gpu: exit 2 and one line.
set -euo pipefail
bin="$1"; root="$2"
. "$root/tests/cli/lib/fault_runs.sh"  # tmp, py, sc, run, refuse_faults
for p in dualpath basic; do
  run "${p}0" --policy $p --set deployment.decode_nodes=2
  run "$p" --policy $p --set deployment.decode_nodes=2 --fault node-down:node=2,at=20s --trace "$tmp/$p.trace.json" \
    --trace-flows -1
done
run dp_sg --policy dualpath --set deployment.decode_nodes=2 --fault node-down:node=2,at=20s --set sim.engine=simgrid
# Prefill node 0 lost while one of its forwards computes (the run is the fault-free one up to then).
run pe0 --policy dualpath --set deployment.prefill_nodes=2
pe_at=$("$py" -c "
import csv, sys
spans = [(float(r['prefill_start']), float(r['first_token'])) for r in csv.DictReader(open(sys.argv[1]))
         if int(r['pe']) < 8 and float(r['prefill_start']) >= 20]
s, e = min(spans)
print(f'{(s + e) / 2:.6f}s')" "$tmp/pe0/requests.csv")
echo "prefill node 0 lost at $pe_at"
run pe_down --policy dualpath --set deployment.prefill_nodes=2 --fault "node-down:node=0,at=$pe_at"
run cnic --policy dualpath --set deployment.decode_nodes=2 --set deployment.de_group_gpus=4 \
  --fault cnic-down:node=2,gpu=3,at=20s
run cnic_sg --policy dualpath --set deployment.decode_nodes=2 --set deployment.de_group_gpus=4 \
  --fault cnic-down:node=2,gpu=3,at=20s --set sim.engine=simgrid
rc=0; run only_pe --policy dualpath --fault node-down:node=0,at=20s 2> "$tmp/only_pe.err" || rc=$?
echo "the only prefill node lost: exit $rc: $(cat "$tmp/only_pe.err")"

"$py" - "$tmp" "$rc" <<'PY'
import csv, json, sys
from checks import check, done, load_run, waits_add_up
t, only_pe_rc = sys.argv[1], int(sys.argv[2])
def load(name):
    return load_run(f"{t}/{name}")

for p in ("dualpath", "basic"):
    s0, _ = load(p + "0")
    s, rows = load(p)
    f = s["faults"][0]
    at = f["started"]
    gpn = s["config"]["topology"]["gpus_per_node"]
    kept = [r for r in rows if float(r["done"]) >= 0]
    lost = [r for r in rows if float(r["done"]) < 0]
    keys = {(r["agent"], r["round"]) for r in kept}
    check(s["complete"] and s["results"]["rounds"] == s["rounds_total"] == len(kept) == len(keys),
          f"{p}: all {s['rounds_total']} rounds complete, each exactly once ({len(kept)} completed rows)")
    check(s["config"]["faults"] == [{"kind": "node-down", "node": 2, "at": 20.0}] and "factor" not in f,
          f"{p}: the effective config and the fault list name node-down with its fields only")
    check(f["kind"] == "node-down" and at == 20.0 and f["rounds_restarted"] == len(lost) > 0,
          f"{p}: {len(lost)} attempts were lost and restarted ({f['rounds_restarted']} in summary.json)")
    check(all(int(r["de"]) // gpn == 2 or int(r["pe"]) // gpn == 2 for r in lost),
          f"{p}: every lost attempt had its decode engine on the lost node")
    restarts = {(r["agent"], r["round"]): r for r in kept if float(r["arrival"]) == at}
    check(all((r["agent"], r["round"]) in restarts for r in lost),
          f"{p}: every lost round restarts at the fault instant")
    late = [r for r in kept if float(r["de_assigned"]) > at]
    check(len(late) > 100 and all(int(r["de"]) // gpn == 1 for r in late),
          f"{p}: every request placed after the fault ({len(late)}) decodes on node 1")
    # Conservation: every byte read is a completed round's hit or a lost attempt's.
    b = s["results"]["bytes"]
    hit = sum(int(r["hit"]) for r in kept) * s["config"]["derived"]["kv_bytes_per_token"]
    check(abs(hit + f["bytes_lost"] - b["storage_read"]) <= 1e-9 * b["storage_read"] and f["bytes_lost"] > 0,
          f"{p}: storage_read {b['storage_read']/1e9:.3f} GB = completed rounds' hit KV {hit/1e9:.3f} GB + "
          f"lost attempts' {f['bytes_lost']/1e9:.3f} GB")
    waits_add_up(p, s, rows, at)  # every request-second once; a lost attempt up to the fault
    # The lost node's writes in flight were undone (their blocks unclaimed) and written again by whoever computed
    # them next: later rounds hit as much as without the fault. A block left claimed would cap its agent's hits.
    h0, h = s0["reuse"]["kv_hit_rate"], s["reuse"]["kv_hit_rate"]
    check(f["writes_lost"] > 0 and h >= h0 - 0.002,
          f"{p}: {f['writes_lost']/1e6:.1f} MB of writes lost, and the hit rate stays {h:.4f} (fault-free {h0:.4f})")
    # The trace: the fault on node 2's track, and each lost attempt's slice ends at the fault, named as lost.
    events = json.load(open(f"{t}/{p}.trace.json"))["traceEvents"]
    marks = [e for e in events if e.get("cat") == "fault"]
    check(len(marks) == 1 and marks[0]["pid"] == 3 and marks[0]["name"] == "node-down" and marks[0]["ts"] == 20e6,
          f"{p}: the trace marks node-down on node 2's process from 20 s")
    lost_slices = [e for e in events if e.get("cat") == "request" and e.get("name", "").endswith("(lost)")]
    check(len(lost_slices) == len(lost) and all(abs(e["ts"] + e["dur"] - 20e6) < 1 for e in lost_slices),
          f"{p}: {len(lost_slices)} lost attempts in the trace, each ending at the fault")
    check(s["results"]["jct_s"] > s0["results"]["jct_s"],
          f"{p}: losing a decode node costs JCT: {s['results']['jct_s']:.1f} s vs {s0['results']['jct_s']:.1f} s")

s, _ = load("dualpath")
sg, _ = load("dp_sg")
check(abs(sg["results"]["jct_s"] - s["results"]["jct_s"]) <= 1e-6 * s["results"]["jct_s"]
      and sg["faults"][0]["rounds_restarted"] == s["faults"][0]["rounds_restarted"],
      f"simgrid and native agree with node-down: JCT {sg['results']['jct_s']:.9g} vs {s['results']['jct_s']:.9g}")

pe, rows = load("pe_down")
gpn = pe["config"]["topology"]["gpus_per_node"]
kept = [r for r in rows if float(r["done"]) >= 0]
check(pe["complete"] and len(kept) == pe["rounds_total"] and pe["faults"][0]["rounds_restarted"] > 0,
      f"2P1D, prefill node 0 lost: every round completes once ({pe['faults'][0]['rounds_restarted']} restarted)")
late = [r for r in kept if float(r["pe_assigned"]) > pe["faults"][0]["started"]]
check(len(late) > 100 and all(int(r["pe"]) // gpn == 1 for r in late),
      f"2P1D: every request placed after the fault ({len(late)}) is prefilled on node 1")
c, rows = load("cnic")
f = c["faults"][0]
kept = [r for r in rows if float(r["done"]) >= 0]
lost = [r for r in rows if float(r["done"]) < 0]
check(c["complete"] and len(kept) == c["rounds_total"] == len({(r["agent"], r["round"]) for r in kept})
      and f["kind"] == "cnic-down" and f["gpu"] == 3 and f["rounds_restarted"] == len(lost) > 0,
      f"cnic-down: every round completes once ({len(lost)} attempts lost and restarted)")
check(all(16 <= int(r["de"]) < 20 for r in lost), "cnic-down: the lost attempts were all on GPU 19's decode group (GPUs 16-19)")
late = [int(r["de"]) for r in kept if float(r["de_assigned"]) > 20.0]
check(len(late) > 100 and not any(16 <= d < 20 for d in late) and any(20 <= d < 24 for d in late),
      f"cnic-down: later rounds decode on node 2's other group and on node 1, never on the lost group ({len(late)})")
links = list(csv.DictReader(open(f"{t}/cnic/links.csv")))
dead = sum(float(r["utilisation"]) for r in links if r["link"] in ("cnic19_rd", "cnic19_wr") and float(r["time"]) >= 21)
moved = sum(float(r["kv_utilisation"]) for r in links if r["link"] == "cnic20_wr" and float(r["time"]) >= 21)
check(dead == 0 and moved > 0, f"cnic-down: the dead CNIC carries nothing after the fault; its buffer traffic moved (CNIC 20: {moved:.2f})")
b = c["results"]["bytes"]
hit = sum(int(r["hit"]) for r in kept) * c["config"]["derived"]["kv_bytes_per_token"]
check(abs(hit + f["bytes_lost"] - b["storage_read"]) <= 1e-9 * b["storage_read"],
      "cnic-down: storage_read = completed rounds' hit KV + lost attempts'")
sg, _ = load("cnic_sg")
check(abs(sg["results"]["jct_s"] - c["results"]["jct_s"]) <= 1e-6 * c["results"]["jct_s"] and sg["faults"] == c["faults"],
      f"cnic-down: simgrid and native agree: JCT {sg['results']['jct_s']:.9g} vs {c['results']['jct_s']:.9g}")

check(only_pe_rc == 1, f"the only prefill node lost: exit 1 (got {only_pe_rc})")
err = open(f"{t}/only_pe.err").read().strip().splitlines()
check(len(err) == 1 and "node-down" in err[0] and "no prefill engine" in err[0], "... and one line says why")
done()
PY

# Bad node-down and cnic-down faults: exit 2 and one line.
refuse_faults "node-down:node=1,at=1s,until=5s" "node-down:node=0,factor=0.5,at=1s" "node-down:node=7,at=1s" \
  "node-down:at=1s" "cnic-down:node=1,gpu=8,at=1s" "cnic-down:node=1,at=1s" "node-down:node=1,gpu=0,at=1s" \
  "cnic-down:node=1,gpu=0,at=1s,until=2s"
