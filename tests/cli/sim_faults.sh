#!/usr/bin/env bash
# Faults in the simulator (issue 19, docs/faults.md) on DS 27B 1P1D, 64 agents (node 0 = the PE node, 1 = the DE):
#  - the PE node's SNIC down from t = 20 s to the end: DualPath completes every round, each once, reading through
#    the DE SNIC only after the fault; the reads the fault failed are read again (bytes counted) and hit KV is
#    conserved (every hit byte read once logically; the SNICs carried at most the failed reads' bytes more);
#  - Basic, with no other read path, stops with one clear line (exit 1); with `until` it waits and completes;
#    at 2P1D it keeps serving on the other prefill node's engines;
#  - the DE node's SNIC down for 40 s: writes wait for it and every round still completes; the Perfetto trace
#    marks the fault on that node;
#  - both network engines give the same run with faults, to their solver precision;
#  - --baseline adds "fault_impact" against the same run without faults (and refuses a run that has none), for
#    one policy or several (each against its own baseline);
#  - bad faults get exit 2 and one line.
set -euo pipefail
bin="$1"; root="$2"
. "$root/tests/cli/lib/fault_runs.sh"  # tmp, py, sc, run, refuse_faults
run dp0 --policy dualpath
# The fault hits while PE-side reads are in flight (the run is the fault-free one up to then): the first instant
# after 20 s inside a PE-side read.
at=$("$py" -c "
import csv, sys
reads = [(float(r['read_start']), float(r['read_end'])) for r in csv.DictReader(open(sys.argv[1]))
         if r['read_side'] == 'pe' and int(r['hit']) > 0 and float(r['read_start']) >= 20]
s, e = min(reads)
print(f'{(s + e) / 2:.6f}s')" "$tmp/dp0/requests.csv")
echo "PE SNIC fault at $at"
run dp --policy dualpath --fault "snic-down:node=0,at=$at" --baseline
run dp_sg --policy dualpath --fault "snic-down:node=0,at=$at" --set sim.engine=simgrid
run basic0 --policy basic
run basic_until --policy basic --fault "snic-down:node=0,at=20s,until=60s"
run de_down --policy dualpath --fault "snic-down:node=1,at=20s,until=60s" --trace "$tmp/de_down/trace.json"
run multi --policy basic,dualpath --fault "snic-down:node=0,at=20s,until=60s" --baseline
run basic2 --policy basic --set deployment.prefill_nodes=2 --fault snic-down:node=0,at=20s
rc=0; run basic --policy basic --fault snic-down:node=0,at=20s 2> "$tmp/basic.err" || rc=$?
echo "basic with the only PE SNIC down for good: exit $rc: $(cat "$tmp/basic.err")"

"$py" - "$tmp" "$rc" <<'PY'
import csv, json, sys
from checks import check, done, load_run
t, basic_rc = sys.argv[1], int(sys.argv[2])
def load(name):
    return load_run(f"{t}/{name}")
def complete(name, s, reqs):
    keys = {(r["agent"], r["round"]) for r in reqs}
    check(s["complete"] and s["results"]["rounds"] == s["rounds_total"] == len(reqs) == len(keys),
          f"{name}: all {s['rounds_total']} rounds complete, each exactly once ({len(reqs)} rows, {len(keys)} distinct)")
    # The wait report still accounts for every request-second once: moved and failed reads are not charged twice.
    ttft = sum(float(r["first_token"]) - float(r["arrival"]) for r in reqs)
    life = sum(float(r["done"]) - float(r["arrival"]) for r in reqs)
    for part, want in (("ttft", ttft), ("round", life)):
        got = s["waits"][part]["request_seconds"]
        check(abs(got - want) <= 1e-6 * want, f"{name}: {part} wait causes add up to {got:.3f} request-s (requests.csv: {want:.3f})")

s0, _ = load("dp0")
s, reqs = load("dp")
complete("dualpath, PE SNIC down", s, reqs)
f = s["faults"][0]
at = f["at"]
check(f["kind"] == "snic-down" and f["started"] == at and f["ended"] is None, f"the fault is listed: started at {at} s, never ended")
after = [r for r in reqs if float(r["read_start"]) > at and int(r["hit"]) > 0]
check(len(after) > 100 and all(r["read_side"] == "de" for r in after),
      f"every read started after the fault ({len(after)}) goes through the DE SNIC")
pe_after = sum(float(r["utilisation"]) for r in csv.DictReader(open(f"{t}/dp/links.csv"))
               if r["link"] == "snic0_down" and float(r["time"]) >= at + 1)
check(pe_after == 0, f"the PE SNIC carries nothing after the fault (utilisation sum {pe_after})")
check(f["reads_failed"] >= 1 and f["bytes_reread"] > 0, f"reads in flight at the fault failed and were read again: {f['reads_failed']}, {f['bytes_reread']/1e9:.2f} GB")
b = s["results"]["bytes"]
check(abs(b["hit_loaded_to_pe_hbm"] - b["storage_read"]) <= 1e-9 * b["storage_read"], "hit KV loaded to PE HBM = hit KV read (logical, once)")
kv_per_token = s["config"]["derived"]["kv_bytes_per_token"]
hit = sum(int(r["hit"]) for r in reqs) * kv_per_token
check(abs(hit - b["storage_read"]) <= 1e-9 * hit, "storage_read = the requests' hit tokens x KV bytes per token")
snic = sum(float(r["utilisation"]) * float(r["duration"]) for r in csv.DictReader(open(f"{t}/dp/links.csv")) if r["class"] == "snic_down")
snic *= s["config"]["topology"]["snic_bw"]
check(b["storage_read"] * (1 - 1e-6) <= snic <= (b["storage_read"] + f["bytes_reread"]) * (1 + 1e-6),
      f"SNICs carried the hit KV plus part of the failed reads: {snic/1e9:.2f} GB in [{b['storage_read']/1e9:.2f}, {(b['storage_read'] + f['bytes_reread'])/1e9:.2f}]")
check(s["results"]["jct_s"] > s0["results"]["jct_s"], f"the fault costs JCT: {s['results']['jct_s']:.1f} s vs {s0['results']['jct_s']:.1f} s without it")
imp = s["fault_impact"]
check(imp["jct_s"]["with_faults"] == s["results"]["jct_s"] and imp["jct_s"]["without"] == s0["results"]["jct_s"]
      and abs(imp["jct_s"]["change"] - (s["results"]["jct_s"] / s0["results"]["jct_s"] - 1)) < 1e-12,
      f"--baseline: fault_impact compares with the fault-free run: JCT {100 * imp['jct_s']['change']:+.2f}%")
base = json.load(open(f"{t}/dp/baseline/summary.json"))
check("faults" not in base and base["results"] == s0["results"], "--baseline: the baseline is the same run without faults")
bu0, _ = load("basic_until")
for p, same, without in (("basic", bu0, load("basic0")[0]), ("dualpath", None, s0)):
    m, _ = load(f"multi/{p}")
    mb, _ = load(f"multi/{p}/baseline")
    imp = m["fault_impact"]
    check(imp["baseline"] == f"{t}/multi/{p}/baseline" and mb["results"] == without["results"]
          and imp["jct_s"]["without"] == without["results"]["jct_s"] and imp["jct_s"]["with_faults"] == m["results"]["jct_s"],
          f"--baseline with two policies: {p} compares with its own fault-free run (JCT {imp['jct_s']['without']:.2f} s)")
    if same is not None:
        check(m["results"] == same["results"], f"... and {p}'s run with faults is the one run alone")
sg, _ = load("dp_sg")
check(abs(sg["results"]["jct_s"] - s["results"]["jct_s"]) <= 1e-6 * s["results"]["jct_s"] and sg["faults"] == s["faults"],
      f"simgrid and native agree with faults: JCT {sg['results']['jct_s']:.9g} vs {s['results']['jct_s']:.9g}")

check(basic_rc == 1, f"basic with its only PE SNIC down for good stops with exit 1 (got {basic_rc})")
err = open(f"{t}/basic.err").read().strip().splitlines()
check(len(err) == 1 and "basic" in err[0] and "until" in err[0] and "fault 0" in err[0], "... and says why in one line")
b0, _ = load("basic0")
bu, breqs = load("basic_until")
complete("basic, PE SNIC down 20-60 s", bu, breqs)
gap = [r for r in breqs if 20.0 < float(r["read_start"]) < 60.0 and int(r["hit"]) > 0]
check(not gap, f"basic starts no read while its only PE SNIC is down ({len(gap)} did)")
check(bu["results"]["jct_s"] > b0["results"]["jct_s"] + 30, f"basic waits for the SNIC: JCT {bu['results']['jct_s']:.1f} s vs {b0['results']['jct_s']:.1f} s")
b2, b2reqs = load("basic2")
complete("basic 2P1D, node 0's SNIC down for good", b2, b2reqs)
gpn = b2["config"]["topology"]["gpus_per_node"]
late = [r for r in b2reqs if float(r["pe_assigned"]) > 20.0]
check(len(late) > 100 and all(int(r["pe"]) // gpn == 1 for r in late),
      f"basic 2P1D: every request placed after the fault ({len(late)}) goes to node 1's prefill engines")
check(all(int(r["pe"]) // gpn == 1 for r in b2reqs if float(r["read_start"]) > 20.0 and int(r["hit"]) > 0),
      "basic 2P1D: every read after the fault goes through node 1's SNIC")
de, dreqs = load("de_down")
complete("dualpath, DE SNIC down 20-60 s", de, dreqs)
dgap = [r for r in dreqs if 20.0 < float(r["read_start"]) < 60.0 and int(r["hit"]) > 0 and r["read_side"] == "de"]
check(not dgap, f"no DE-side read starts while the DE SNIC is down ({len(dgap)} did)")
marks = [e for e in json.load(open(f"{t}/de_down/trace.json"))["traceEvents"] if e.get("cat") == "fault"]
check(len(marks) == 1 and marks[0]["pid"] == 2 and marks[0]["ts"] == 20e6 and marks[0]["dur"] == 40e6
      and marks[0]["name"] == "snic-down", f"the trace marks the fault on node 1's process over [20 s, 60 s): {marks}")
done()
PY

rc=0; "$bin" run "$sc" --quiet --out "$tmp/nob" --baseline 2> "$tmp/err" || rc=$?
if [ "$rc" != 2 ] || [ "$(wc -l < "$tmp/err")" != 1 ]; then echo "FAIL --baseline without faults: exit $rc"; cat "$tmp/err"; exit 1; fi
echo "ok   --baseline without faults: exit 2: $(cat "$tmp/err")"

# Bad faults: exit 2 and one line.
refuse_faults "snic-up:node=0,at=1s" "snic-down:node=9,at=1s" "snic-down:node=0,at=10s,until=5s" \
  "snic-degrade:node=0,factor=1.5,at=1s" "snic-down:node=1,at=1s" "storage-degrade:node=0,factor=0.5,at=1s" "snic-down:node"
