#!/usr/bin/env bash
# Split reads (issue 20, policy dualpath-split, docs/split-reads.md) on DS 27B 2P1D, 64 agents, GPUs x4 (I/O-bound,
# so both node queues are busy and reads are split):
#  - every round completes exactly once; some reads are split; each hit byte is read exactly once (storage_read =
#    the hit KV of requests.csv, and the PE and DE sides add up to it); every hit byte reaches a PE;
#  - the wait report charges every request-second once although a split request waits in two queues;
#  - the trace shows a split read on both nodes' SNIC tracks, its halves adding up to its hit KV;
#  - both network engines agree; a DE SNIC down for 20 s and a lost decode node (node-down) keep every round once
#    and the wait report exact;
#  - buffers full of admitted split reads do not deadlock (Qwen 32B 1P2D, 256 agents, 160 GB buffers): a split
#    read's second half, which needs no room, starts although its queue's head waits for room that the first half's
#    request holds (before the fix: 11,661 of 15,247 rounds stuck, every queue head waiting for DE buffer room).
set -euo pipefail
bin="$1"; root="$2"
. "$root/tests/cli/lib/fault_runs.sh"  # tmp, py, sc, run
io=(--policy dualpath-split --set deployment.prefill_nodes=2 --set topology.gpu.flops=3956TFLOPS
    --set topology.gpu.hbm_bw=13.4TB/s --set topology.gpu.kernel_overhead=0.625us)  # compute x4 cheaper, fixed costs too
run split "${io[@]}" --trace "$tmp/split.trace.json" --trace-flows -1
run split_sg "${io[@]}" --set sim.engine=simgrid
# 20.01 s, off the 50 ms fetch grid: at a multiple of it reads start in the same instant as the fault, and the order
# of same-time events is not one the two engines share.
run snic "${io[@]}" --fault snic-down:node=2,at=20.01s,until=40s
run snic_sg "${io[@]}" --fault snic-down:node=2,at=20.01s,until=40s --set sim.engine=simgrid
run lost "${io[@]}" --set deployment.decode_nodes=2 --fault node-down:node=3,at=20s
"$bin" run "$root/scenarios/qwen32b-1p2d.json" --quiet --policy dualpath-split --set workload.agents=256 \
  --set "topology.dram_buffer_bytes=160 GB" --out "$tmp/full"

"$py" - "$tmp" <<'PY'
import json, sys
from checks import check, done, load_run, waits_add_up
t = sys.argv[1]

def rounds_once(name, s, rows):
    kept = [r for r in rows if float(r["done"]) >= 0]
    keys = {(r["agent"], r["round"]) for r in kept}
    check(s["complete"] and s["results"]["rounds"] == s["rounds_total"] == len(kept) == len(keys),
          f"{name}: all {s['rounds_total']} rounds complete, each exactly once")
    return kept

s, rows = load_run(f"{t}/split")
kept = rounds_once("split", s, rows)
split = [r for r in rows if r["read_side"] == "split"]
check(len(split) > 0.2 * len(rows), f"split: {len(split)} of {len(rows)} reads split between the two nodes")
b = s["results"]["bytes"]
kvpt = s["config"]["derived"]["kv_bytes_per_token"]
hit = sum(int(r["hit"]) for r in rows) * kvpt
check(abs(b["storage_read"] - hit) <= 1e-9 * hit, f"split: storage_read {b['storage_read']/1e9:.3f} GB = hit KV {hit/1e9:.3f} GB (each byte read once)")
check(abs(b["storage_read_pe_snic"] + b["storage_read_de_snic"] - b["storage_read"]) <= 1e-9 * hit and
      b["storage_read_pe_snic"] > 0.2 * hit and b["storage_read_de_snic"] > 0.2 * hit,
      f"split: PE side {b['storage_read_pe_snic']/1e9:.3f} GB + DE side {b['storage_read_de_snic']/1e9:.3f} GB = storage_read")
check(abs(b["hit_loaded_to_pe_hbm"] - hit) <= 1e-9 * hit, "split: every hit byte reaches a PE's HBM")
waits_add_up("split", s, rows)

# The trace: a split request's read is a slice on each node's SNIC read track, with its halves' GB.
events = json.load(open(f"{t}/split.trace.json"))["traceEvents"]
reads = {}
for e in events:
    if e.get("ph") == "X" and e.get("name") == "storage read":
        reads.setdefault(e["args"]["request"], []).append(e)
gpn = s["config"]["topology"]["gpus_per_node"]
r = next(r for r in split if int(r["id"]) in reads)
sl = reads[int(r["id"])]
nodes = sorted(e["pid"] for e in sl)
gb = sum(e["args"]["GB"] for e in sl)
check(len(sl) == 2 and len({e["tid"] for e in sl} | {e["pid"] for e in sl}) >= 2 and
      abs(gb - int(r["hit"]) * kvpt / 1e9) <= 2e-4 and all(e["args"]["side"] == "split" for e in sl),
      f"split: request {r['id']}'s read has a slice on each node ({len(sl)} slices, {gb:.4f} GB in all)")

sg, _ = load_run(f"{t}/split_sg")
j, jsg = s["results"]["jct_s"], sg["results"]["jct_s"]
check(abs(j - jsg) <= 1e-9 * j, f"split: JCT native {j:.6f} s = SimGrid {jsg:.6f} s")

s, rows = load_run(f"{t}/full")
kept = rounds_once("full", s, rows)
check(sum(r["read_side"] == "split" for r in rows) > 0.1 * len(rows) and
      s["waits"]["ttft"]["binds"].startswith("dram_buffer"),
      f"full: buffers bind ({s['waits']['ttft']['binds']}) and reads are split, yet no deadlock")
waits_add_up("full", s, rows)

for name in ("snic", "lost"):
    s, rows = load_run(f"{t}/{name}")
    f = s["faults"][0]
    kept = rounds_once(name, s, rows)
    waits_add_up(name, s, rows, f["started"])
    b = s["results"]["bytes"]
    hit = sum(int(r["hit"]) for r in kept) * kvpt
    if name == "snic":
        # Failed halves are not counted; the halves a failure abandoned on the other node were read for nothing.
        check(f["reads_failed"] > 0 and hit <= b["storage_read"] * (1 + 1e-9) <= hit + f["bytes_reread"] + 1,
              f"snic: {f['reads_failed']} reads failed; storage_read {b['storage_read']/1e9:.3f} GB within hit KV "
              f"{hit/1e9:.3f} GB + re-read {f['bytes_reread']/1e9:.3f} GB")
        ssg, _ = load_run(f"{t}/snic_sg")
        check(abs(s["results"]["jct_s"] - ssg["results"]["jct_s"]) <= 1e-9 * s["results"]["jct_s"],
              f"snic: JCT native {s['results']['jct_s']:.6f} s = SimGrid {ssg['results']['jct_s']:.6f} s")
    else:
        check(f["rounds_restarted"] > 0 and abs(hit + f["bytes_lost"] - b["storage_read"]) <= 1e-9 * b["storage_read"],
              f"lost: {f['rounds_restarted']} attempts restarted; storage_read {b['storage_read']/1e9:.3f} GB = "
              f"completed rounds' hit KV {hit/1e9:.3f} GB + lost attempts' {f['bytes_lost']/1e9:.3f} GB")
done()
PY
