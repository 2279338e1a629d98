#!/usr/bin/env bash
# `dualpath analyze bandwidth` (the §4.2 traffic model as a command) against the paper's closed forms. Hopper
# nodes: g = 8 CNICs, s = 1 SNIC per CNIC bandwidth, M/(Bs) = 10, so the bottleneck-free range is
#   max(s/(g-s)) = 1/7  <=  P/D  <=  min((g-2s)/s, (g-s)/(2s), (M/(Bs)-3)/2) = min(6, 7/2, 7/2) = 7/2,
# bound below by the PE CNIC write side and above by the DE CNIC write side and the DE DRAM. Inside it DualPath
# reads with all P + D SNICs and Basic with P; with M halved (M/(Bs) = 5) the DE DRAM bound falls to (5-3)/2 = 1.
# Mixed hardware (--decode-topology): decode nodes with 200 Gbps CNICs (B_D = 25 GB/s, s_D = 2) bound P/D above at
# (g-s_D)B_D/(2S) = 6 x 25 / 100 = 1.5 (DE CNIC write), below still at S_D/(B(g-s)) = 1/7. Bad input gets exit 2.
# Usage: analyze_bandwidth.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
topo="$root/topologies/hopper-8gpu-80g.json"
"$bin" analyze bandwidth --topology "$topo" --pd 1:2 --pd 8:1 --json > "$tmp/dp.json" || exit 1
"$bin" analyze bandwidth --topology "$topo" --pd 1:2 --basic --json > "$tmp/basic.json" || exit 1
python3 -c "
import json, sys
t = json.load(open('$topo')); t['dram_bw'] = '250 GB/s'
json.dump(t, open('$tmp/half-dram.json', 'w'))
t = json.load(open('$topo')); t['cnic_bw'] = '200 Gbps'; t['name'] = 'slow-cnic'
json.dump(t, open('$tmp/slow-cnic.json', 'w'))
t['gpus_per_node'] = 4
json.dump(t, open('$tmp/four-gpus.json', 'w'))"
"$bin" analyze bandwidth --topology "$topo" --decode-topology "$tmp/slow-cnic.json" --pd 1:1 --json > "$tmp/mixed.json" || exit 1
"$bin" analyze bandwidth --topology "$tmp/half-dram.json" --json > "$tmp/half.json" || exit 1
"$bin" analyze bandwidth --topology "$topo" --pd 1:2 --pd 8:1 > "$tmp/text.txt" || exit 1
PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import json, sys
from checks import check, done
t = sys.argv[1]
d = json.load(open(f"{t}/dp.json"))
r = d["range"]
check(abs(r["lower"] - 1 / 7) < 1e-12 and abs(r["upper"] - 3.5) < 1e-12, f"range [{r['lower']:.4f}, {r['upper']}] = [1/7, 7/2]")
check(r["binding_lower"] == ["pe_cnic_wr"] and sorted(r["binding_upper"]) == ["de_cnic_wr", "de_dram"],
      f"binding: lower {r['binding_lower']}, upper {r['binding_upper']}")
pd = {f"{p['P']}P{p['D']}D": p for p in d["pd"]}
check(pd["1P2D"]["in_range"] and abs(pd["1P2D"]["max_read_rate_snics"] - 3) < 1e-9, "1P2D: inside, reads with all 3 SNICs")
check(abs(pd["1P2D"]["loads"]["pe_snic"] - 1) < 1e-12 and abs(pd["1P2D"]["loads"]["de_dram"] - 0.4) < 1e-12,
      "1P2D: SNICs saturated; DE DRAM at 40% (200 of 500 GB/s)")
check(not pd["8P1D"]["in_range"] and pd["8P1D"]["max_read_rate_snics"] < 9 - 1e-6,
      f"8P1D: outside, the DE side caps the read rate at {pd['8P1D']['max_read_rate_snics']:.3f} < 9 SNICs")
m = pd["8P1D"]["best_mix"]  # the mix that attains the cap: DE SNIC saturated, PE SNICs at 7/16
check(abs(m["x_de"] - 1) < 1e-9 and abs(m["x_pe"] - 7 / 16) < 1e-9 and abs(8 * m["x_pe"] + m["x_de"] - 4.5) < 1e-9,
      f"8P1D: the cap is reached at x_PE = {m['x_pe']:.4f} (7/16), x_DE = {m['x_de']:.4f}: 4.5 SNICs")
b = json.load(open(f"{t}/basic.json"))["pd"][0]
check(abs(b["max_read_rate_snics"] - 1) < 1e-9, "Basic at 1P2D reads with the PE's one SNIC")
h = json.load(open(f"{t}/half.json"))["range"]
check(abs(h["upper"] - 1) < 1e-12 and h["binding_upper"] == ["de_dram"], f"M halved: upper {h['upper']} = (5-3)/2 by DE DRAM")
txt = open(f"{t}/text.txt").read()
check("bottleneck-free range: 1/7 <= P/D <= 7/2" in txt, "the text output states the range as fractions")
check("at SNIC utilisation PE 43.8%, DE 100.0%: the DE path carries 22.2% of the hit KV" in txt,
      "the text output gives 8P1D's best path mix")
x = json.load(open(f"{t}/mixed.json"))
check(abs(x["range"]["lower"] - 1 / 7) < 1e-12 and abs(x["range"]["upper"] - 1.5) < 1e-12
      and x["range"]["binding_upper"] == ["de_cnic_wr"] and x["params"]["decode"]["topology"] == "slow-cnic",
      f"decode CNICs at 200 Gbps: range [{x['range']['lower']:.4f}, {x['range']['upper']}] = [1/7, 3/2], DE CNIC write binds")
check(abs(x["pd"][0]["max_read_rate_snics"] - 2) < 1e-12, "1P1D inside it reads with both SNICs")
done()
PY
[ $? -eq 0 ] || exit 1
fail=0
source "$root/tests/cli/bad_input.bash"
bad_input "missing topology file" "nope.json" "$bin" analyze bandwidth --topology "$tmp/nope.json"
bad_input "malformed P:D" "--pd" "$bin" analyze bandwidth --topology "$topo" --pd 3
bad_input "a decode topology of other nodes" "expected gpus_per_node 8" "$bin" analyze bandwidth --topology "$topo" \
  --decode-topology "$tmp/four-gpus.json"
exit $fail
