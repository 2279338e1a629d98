#!/usr/bin/env bash
# End to end on the hardware body (hw/, docs/hw.md), single process, emulated compute, on a tiny 1P1D:
#   Basic and DualPath complete every round with real block files (every read block's checksum verified) and
#   UCX transfers (posix,self); summary.json says backend "hw" and compute "emulated"; requests.csv has a row per
#   round; DualPath is at least 1.4x faster than Basic; where the simulator is built, it predicts each measured JCT
#   within 10% (measured: +3.5% and -1.0%; the margin is for timing noise on a busy 2-core machine).
#   A deleted block file stops the run with a clear error (exit 1) and a summary that lists it. dualpath-split runs
#   too (reads split between both nodes), also with a failing SNIC, and so does dram-pool (pool reads over UCX).
# Exit 77 (ctest: skipped) when this build has no hardware backend.
set -euo pipefail
bin="$1"; root="$2"
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

# (The probe's output is captured first: under pipefail its own exit code would hide grep's match.)
probe=$("$bin" hw run "$root/hw/scenarios/tiny-1p1d.json" --out "$tmp/probe" --set workload.agents=0 2>&1 || true)
if ! "$bin" hw run --help > /dev/null 2>&1 || grep -q "no hardware backend" <<< "$probe"; then
  echo "SKIP: this build has no hardware backend (DUALPATH_BUILD_HW=OFF)"; exit 77
fi

sc="$root/hw/scenarios/tiny-1p1d.json"
# Small KV (64 B per token per layer: 120 KiB blocks) and a 20 MB/s SNIC per node keep each run to a few seconds
# while staying I/O-bound, as the full 656 B KV at 200 MB/s would.
common=(--set model.kv_bytes_per_token_layer=64B --set workload.agents=6 --snic-rate "20 MB/s")
for p in basic dualpath; do
  "$bin" hw run "$sc" "${common[@]}" --set policy.name=$p --out "$tmp/hw/$p" --storage-dir "$tmp/store-$p" \
    2> "$tmp/hw-$p.err" | tee "$tmp/hw-$p.out"
  # UCX over posix/self works on every machine with libucx; a memcpy stand-in would not test the transport.
  if grep -q "NOT by UCX" "$tmp/hw-$p.err"; then echo "FAIL $p: UCX unavailable, memcpy stand-in used: $(cat "$tmp/hw-$p.err")"; exit 1; fi
done
sim=0
if "$bin" run --help > /dev/null 2>&1; then  # the simulator is built: its run must succeed and is compared
  "$bin" run "$sc" --set model.kv_bytes_per_token_layer=64B --set workload.agents=6 --set "topology.snic_bw=20 MB/s" \
    --policy basic,dualpath --out "$tmp/sim" > "$tmp/sim.txt" 2>&1 || { echo "FAIL simulator run:"; cat "$tmp/sim.txt"; exit 1; }
  sim=1; cat "$tmp/sim.txt"
fi

"$py" - "$tmp" "$sim" <<'PY'
import csv, json, sys
d, sim = sys.argv[1], sys.argv[2] == "1"
from checks import check, done
hw = {p: json.load(open(f"{d}/hw/{p}/summary.json")) for p in ("basic", "dualpath")}
for p, s in hw.items():
    r, h = s["results"], s["hw"]
    check(s["backend"] == "hw" and s["compute"] == "emulated", f"{p}: labelled backend hw, compute emulated")
    check(s["complete"] and r["rounds"] == s["rounds_total"] > 0, f"{p}: all {s['rounds_total']} rounds complete")
    rows = list(csv.DictReader(open(f"{d}/hw/{p}/requests.csv")))
    check(len(rows) == s["rounds_total"], f"{p}: requests.csv has {len(rows)} rows")
    st = h["storage"]
    check(st["blocks_read"] > 0 and st["blocks_verified"] == st["blocks_read"] and st["errors"] == 0,
          f"{p}: {st['blocks_read']} blocks read from files, all checksums verified")
    check(st["requested_read_bytes"] == r["bytes"]["storage_read"], f"{p}: every hit byte the core asked for was read")
    check(st["blocks_written"] > 0, f"{p}: {st['blocks_written']} blocks written")
    check(not h["errors"], f"{p}: no errors")
    print(f"     {p}: transport {h['kv_transport']}; storage {h['storage_engine']}")
    # links.csv: the simulator's format; the SNIC read rows carry exactly the bytes read (spread over time).
    rows = list(csv.DictReader(open(f"{d}/hw/{p}/links.csv")))
    rate = h["snic_rate_bytes_per_s"]
    snic = sum(float(x["utilisation"]) * float(x["duration"]) * rate for x in rows if x["class"] == "snic_down")
    want = r["bytes"]["storage_read"]
    check(rows and abs(snic - want) <= 1e-4 * want + 1,
          f"{p}: links.csv SNIC read rows add up to the bytes read ({snic:.0f} vs {want:.0f})")
    check(all(0 <= float(x["utilisation"]) <= 1.0001 for x in rows if x["class"].startswith("snic")),
          f"{p}: no SNIC window above 100%")
jb, jd = hw["basic"]["results"]["jct_s"], hw["dualpath"]["results"]["jct_s"]
# I/O-bound 1P1D: two SNICs instead of one bound the speed-up by 2; measured 1.67 (simulated 1.59). A DE read path
# that carried little of the load would stay near 1.
check(jb / jd >= 1.4, f"measured: dualpath JCT {jd:.2f} s vs basic {jb:.2f} s, speed-up {jb/jd:.2f}x >= 1.4")
check(hw["basic"]["results"]["bytes"]["storage_read_de_snic"] == 0, "basic reads only through the PE SNIC")
if sim:
    for p in ("basic", "dualpath"):
        js = json.load(open(f"{d}/sim/{p}/summary.json"))["results"]["jct_s"]
        jh = hw[p]["results"]["jct_s"]
        check(abs(jh - js) / js <= 0.10, f"{p}: simulator JCT {js:.2f} s vs measured {jh:.2f} s ({100*(jh-js)/js:+.1f}%)")
done()
PY

# `dualpath report` draws hw runs like simulated ones (link utilisation from the measured links.csv).
if "$py" -c "import matplotlib, pandas" 2>/dev/null; then
  "$bin" report "$tmp/hw" --out "$tmp/report" > /dev/null
  ls "$tmp/report"/links_*dualpath*.png > /dev/null || { echo "FAIL report drew no link figure for hw"; exit 1; }
  echo "ok   dualpath report draws the hw runs, link utilisation included"
fi

# The same pull of a prefix kept in decode HBM runs on the hardware backend (docs/baselines.md): the hit moves GPU to
# GPU over the transport, and storage serves only what no decode engine kept. GPUDirect Storage is refused by name.
"$bin" hw run "$sc" "${common[@]}" --set policy.name=pe-pull-from-de --out "$tmp/hw-pull" \
  --storage-dir "$tmp/store-pull" > /dev/null 2> "$tmp/hw-pull.err" || { echo "FAIL pe-pull-from-de on hw:"; cat "$tmp/hw-pull.err"; exit 1; }
"$py" - "$tmp" <<'PY'
import json, sys
from checks import check, done
s = json.load(open(f"{sys.argv[1]}/hw-pull/summary.json"))
r, k = s["results"], s["de_residency"]
check(s["complete"] and r["rounds"] == s["rounds_total"], f"pe-pull-from-de on hw: all {s['rounds_total']} rounds complete")
check(k["pulled_share"] > 0.8 and k["hit_bytes_pulled_from_de_hbm"] > 0,
      f"pe-pull-from-de on hw: {100 * k['pulled_share']:.0f}% of hit bytes pulled from decode HBM")
done()
PY
set +e
"$bin" hw run "$sc" "${common[@]}" --set topology.storage.gdr=true --out "$tmp/hw-gdr" --storage-dir "$tmp/store-gdr" \
  > /dev/null 2> "$tmp/hw-gdr.err"
rc=$?
set -e
{ [ "$rc" -eq 2 ] && grep -q "topology.storage.gdr" "$tmp/hw-gdr.err"; } \
  || { echo "FAIL gdr on hw: exit $rc, expected 2 naming topology.storage.gdr: $(cat "$tmp/hw-gdr.err")"; exit 1; }
echo "ok   gdr on hw: refused by name (exit 2)"

# A missing block file: a clear error naming the file, exit 1, and a summary that says what failed.
set +e
timeout 60 "$bin" hw run "$sc" "${common[@]}" --out "$tmp/fault" --storage-dir "$tmp/store-fault" \
  --fault missing-block > /dev/null 2> "$tmp/fault.err"
rc=$?
set -e
cat "$tmp/fault.err"
[ "$rc" -eq 1 ] || { echo "FAIL exit code $rc, expected 1"; exit 1; }
grep -q "missing block file" "$tmp/fault.err" || { echo "FAIL no clear error"; exit 1; }
"$py" - "$tmp/fault/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["complete"] is False, "summary must say the run is incomplete"
assert any("missing block file" in e for e in s["hw"]["errors"]), s["hw"]["errors"]
print("ok   a missing block file stops the run: exit 1, summary lists:", s["hw"]["errors"][0])
PY

# Compute selection: "auto" without a usable GPU falls back to the emulated timer and says why; "cuda" refuses.
"$bin" hw run "$sc" --set model.kv_bytes_per_token_layer=64B --set workload.agents=2 --snic-rate "20 MB/s" \
  --compute auto --out "$tmp/auto" --storage-dir "$tmp/store-auto" --quiet
"$py" - "$tmp/auto/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["hw"]["compute"]
if s["compute"] == "emulated":
    assert "(" in c and ("CUDA" in c or "cuda" in c), c
    print("ok   --compute auto without a usable GPU runs emulated and says why:", c)
else:
    print("ok   --compute auto found a GPU:", c)
PY
set +e
"$bin" hw run "$sc" --set workload.agents=2 --compute cuda --out "$tmp/cuda" --storage-dir "$tmp/store-cuda" \
  > /dev/null 2> "$tmp/cuda.err"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  grep -q "cuda" "$tmp/cuda.err" || { echo "FAIL --compute cuda failed without naming CUDA:"; cat "$tmp/cuda.err"; exit 1; }
  echo "ok   --compute cuda without a usable GPU stops with exit $rc: $(head -1 "$tmp/cuda.err")"
fi

# A failed storage NIC (node 0's reads fail after its second): DualPath retries each failed read through the DE
# node and completes, saying how many; Basic has no other path, so its retry fails too and the run stops.
"$bin" hw run "$sc" "${common[@]}" --fault snic-down --out "$tmp/snic-dp" --storage-dir "$tmp/store-snic-dp" \
  --quiet 2> "$tmp/snic-dp.err"
set +e
"$bin" hw run "$sc" "${common[@]}" --set policy.name=basic --fault snic-down --out "$tmp/snic-basic" \
  --storage-dir "$tmp/store-snic-basic" --quiet 2> "$tmp/snic-basic.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL basic with a failed SNIC: exit $rc, expected 1"; cat "$tmp/snic-basic.err"; exit 1; }
"$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/snic-dp/summary.json"))
h = s["hw"]
assert s["complete"] and s["results"]["rounds"] == s["rounds_total"], "dualpath must complete despite the failed SNIC"
assert h["read_retries"] > 0 and "storage NIC of node 0 is down" in h["read_failures"][0], h
assert s["results"]["bytes"]["storage_read"] == h["storage"]["requested_read_bytes"], "retried reads counted once"
assert h["storage"]["blocks_verified"] == h["storage"]["blocks_read"]
print(f"ok   dualpath with node 0's SNIC down: {h['read_retries']} reads retried through the DE node, all "
      f"{s['rounds_total']} rounds complete")
b = json.load(open(f"{d}/snic-basic/summary.json"))
assert b["complete"] is False and any("earlier attempt failed too" in e for e in b["hw"]["errors"]), b["hw"]["errors"]
print("ok   basic with node 0's SNIC down stops: exit 1;", b["hw"]["errors"][0])
PY

# Split reads (dualpath-split, docs/split-reads.md) on real files and UCX: a request's hit blocks are read partly by
# each node, every block once and verified; with node 0's SNIC failing, split reads are retried whole through the DE.
"$bin" hw run "$sc" "${common[@]}" --set policy.name=dualpath-split --out "$tmp/split" --storage-dir "$tmp/store-split" --quiet
"$bin" hw run "$sc" "${common[@]}" --set policy.name=dualpath-split --fault snic-down --out "$tmp/split-snic" \
  --storage-dir "$tmp/store-split-snic" --quiet 2> "$tmp/split-snic.err"
"$py" - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
for name in ("split", "split-snic"):
    s = json.load(open(f"{d}/{name}/summary.json"))
    h, b = s["hw"], s["results"]["bytes"]
    rows = list(csv.DictReader(open(f"{d}/{name}/requests.csv")))
    split = sum(r["read_side"] == "split" for r in rows)
    assert s["complete"] and s["results"]["rounds"] == s["rounds_total"], f"{name}: incomplete"
    assert h["storage"]["blocks_verified"] == h["storage"]["blocks_read"] > 0 and h["storage"]["errors"] == 0, h["storage"]
    assert b["storage_read"] == h["storage"]["requested_read_bytes"], f"{name}: bytes read {b['storage_read']} vs asked"
    assert b["storage_read_pe_snic"] > 0 and b["storage_read_de_snic"] > 0 and split > 0, f"{name}: {split} split rows"
    if name == "split-snic":
        assert h["read_retries"] > 0, h
    print(f"ok   hw {name}: {split} of {len(rows)} reads split, all {s['rounds_total']} rounds complete, every block "
          f"verified" + (f", {h['read_retries']} reads retried" if name == "split-snic" else ""))
PY

# The DRAM pool (dram-pool, docs/dram-pool.md) on the hardware body: its reads and write-through move real bytes over
# UCX between the nodes' DRAM regions. With a pool of a few blocks per node, hits come from both the pool and
# storage (every storage block still verified), and they add up to the hit KV delivered to the PEs.
"$bin" hw run "$sc" "${common[@]}" --set policy.name=dram-pool --set "policy.pool.bytes_per_node=1 MB" \
  --out "$tmp/pool" --storage-dir "$tmp/store-pool" --quiet
"$py" - "$tmp/pool" <<'PY'
import json, sys
s = json.load(open(f"{sys.argv[1]}/summary.json"))
h, b, p = s["hw"], s["results"]["bytes"], s["pool"]
assert s["complete"] and s["results"]["rounds"] == s["rounds_total"], "pool: incomplete"
assert h["storage"]["blocks_verified"] == h["storage"]["blocks_read"] and h["storage"]["errors"] == 0, h["storage"]
assert p["hit_bytes_from_pool"] > 0 and p["hit_bytes_from_storage"] > 0 and p["evicted_bytes"] > 0, p
assert abs(b["hit_loaded_to_pe_hbm"] - p["hit_bytes_from_pool"] - p["hit_bytes_from_storage"]) <= 1e-6 * b["hit_loaded_to_pe_hbm"], (b, p)
assert p["written_bytes"] == b["storage_write"], p
print(f"ok   hw dram-pool: {100 * p['pool_hit_share']:.1f}% of hit KV from the pool over UCX, the rest from verified "
      f"storage blocks; {p['evicted_bytes'] / 1e6:.1f} MB evicted")
PY

# The online stop rule needs a backend that can drop work in flight; the hardware body refuses it up front.
set +e
"$bin" hw run "$sc" --set workload.mode=online --set workload.aps=1 --set workload.duration=5s \
  --set workload.stop=slo --out "$tmp/stop" --storage-dir "$tmp/store-stop" --quiet > /dev/null 2> "$tmp/stop.err"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "/workload/stop" "$tmp/stop.err" \
  || { echo "FAIL hw run with workload.stop=slo: exit $rc, expected 2 naming /workload/stop"; cat "$tmp/stop.err"; exit 1; }
echo "ok   hw run refuses workload.stop = slo: $(head -1 "$tmp/stop.err")"

# --transport, --compute and --launch take only the names of their tables (hw/hw_choices.hpp): exit 2 naming it.
for bad in "--transport carrier-pigeon" "--compute gpu" "--launch slurm"; do
  set +e
  # shellcheck disable=SC2086  # the option and its value are two words on purpose
  "$bin" hw run "$sc" $bad --out "$tmp/bad" --storage-dir "$tmp/store-bad" --quiet > /dev/null 2> "$tmp/bad.err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] && grep -q -- "${bad%% *}" "$tmp/bad.err" \
    || { echo "FAIL hw run $bad: exit $rc, expected 2 naming ${bad%% *}"; cat "$tmp/bad.err"; exit 1; }
  echo "ok   hw run $bad: exit 2: $(head -1 "$tmp/bad.err")"
done

# hw calibrate --profile measures a step profile on a GPU; where none is usable it says so and writes nothing
# (exit 1), and without --scenario it names the missing option (exit 2). On a GPU machine it must write a profile
# that `check` accepts (docs/cost-model.md, "Profiles").
set +e
"$bin" hw calibrate --scenario "$root/scenarios/ds660b-2p4d.json" --profile "$tmp/measured.json" > "$tmp/prof.out" 2> "$tmp/prof.err"
rc=$?
"$bin" hw calibrate --profile "$tmp/measured2.json" > /dev/null 2> "$tmp/prof2.err"
rc2=$?
set -e
if [ "$rc" -eq 0 ]; then
  "$bin" check "$root/scenarios/ds660b-2p4d.json" --set model.timing=profile --set model.profile="$tmp/measured.json" > /dev/null \
    || { echo "FAIL a measured profile is refused by check"; exit 1; }
  echo "ok   hw calibrate --profile: $(cat "$tmp/prof.out")"
else
  [ "$rc" -eq 1 ] && grep -q "no GPU to measure on" "$tmp/prof.err" && [ ! -e "$tmp/measured.json" ] \
    || { echo "FAIL hw calibrate --profile without a GPU: exit $rc"; cat "$tmp/prof.err"; exit 1; }
  echo "ok   hw calibrate --profile without a GPU: exit 1, $(head -1 "$tmp/prof.err" | cut -c1-110)..."
fi
[ "$rc2" -eq 2 ] && grep -q -- "--profile: needs --scenario" "$tmp/prof2.err" \
  || { echo "FAIL hw calibrate --profile without --scenario: exit $rc2"; cat "$tmp/prof2.err"; exit 1; }
echo "ok   hw calibrate --profile without --scenario: exit 2"
