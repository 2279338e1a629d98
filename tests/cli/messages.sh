#!/usr/bin/env bash
# Messages that say what to type (issue 45): twenty bad invocations of the kinds a newcomer makes (a misspelled
# file, key, choice, policy or fault kind; a value without its unit; --set without '='; a bad ratio, shard or
# vary; weights that do not fit), each refused with exit 2 and ONE line that holds a corrected example or the
# near miss it meant.
# Usage: messages.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fails=0
n=0
expect() {  # expect TEXT CMD...: exit 2, one line on stderr, and TEXT in it
  local want=$1
  shift
  n=$((n + 1))
  local rc=0
  "$bin" "$@" >/dev/null 2>"$tmp/err" || rc=$?
  local lines; lines=$(wc -l < "$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL ($rc, $lines lines): dualpath $*"
    echo "  said:     $(head -3 "$tmp/err")"
    echo "  expected: $want"
    fails=$((fails + 1))
  fi
}
d=scenarios/default.json
expect 'did you mean "scenarios/default.json"?' run scenarios/defualt.json
expect 'did you mean "traces/example.jsonl"?' trace stats traces/exmaple.jsonl
expect 'did you mean "dualpath"?' run $d --policy dualpat
expect 'did you mean "oracle"?' run $d --set policy.name=orcale
expect 'did you mean "policy"?' run $d --set polcy.name=basic
expect 'did you mean "snic_bw"?' check $d --set topology.snic_bwx=1
expect 'did you mean "online"?' run $d --set workload.mode=onlin
expect '--fault snic-dwn:node=0,at=1s: /faults/0/kind' run $d --fault snic-dwn:node=0,at=1s
expect 'did you mean "snic-down"?' run $d --fault snic-dwn:node=0,at=1s
expect 'write --set workload.agents=64' run $d --set workload.agents 64
expect 'such as "400 Gbps" or "50 GB/s"' run $d --set topology.snic_bw=200
expect 'such as "300 ms" or "5 s"' run $d --set deployment.fetch_period=50
expect 'write e.g. "4 s"' plan $d --nodes 2 --objective capacity --slo-ttft 4 --out "$tmp/p"
expect 'expected P:D with positive integers, e.g. 2:1' analyze bandwidth --topology topologies/hopper-8gpu-80g.json --pd 2-1
expect 'e.g. 0/4' sweep $d --vary workload.agents=64,128 --shard 4/4 --out "$tmp/s"
expect 'expected KIND[:key=value,...], e.g. snic-down:node=0,at=300s,until=600s' run $d --fault :node=0
expect 'e.g. --from mooncake' trace convert --from sharegpt traces/example.jsonl -o "$tmp/x.jsonl"
expect 'groups of 16 GPUs would hold' check scenarios/ds660b-2p4d.json --set deployment.prefill_nodes=1 \
  --set deployment.decode_nodes=1 --set deployment.pe_group_gpus=8 --set deployment.de_group_gpus=8
expect 'e.g. results/default' report "$tmp/nothing"
expect 'expected path=value, e.g. topology.snic_bw="200 Gbps"' check $d --set topology.snic_bw
[[ $n -ge 20 ]] || { echo "FAIL: only $n invocations"; exit 1; }
[[ $fails -eq 0 ]] || { echo "$fails of $n messages do not say what to type"; exit 1; }
echo "all $n bad invocations name what to type"
