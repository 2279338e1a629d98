#!/usr/bin/env bash
# Issue 80: a probe whose agents cannot fit in this machine's memory is refused before any work (exit 2, one line
# naming the rate, the agents and the memory), where it used to die of std::bad_alloc: the inverse question at 1e6
# APS (inside its documented range), a capacity search whose first probe is too large, and the same search under a
# ulimit -v that the budget honours; a probe that fits still runs. core/study/probe_memory.hpp.
# Usage: probe_memory.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
fail=0
online=(--set workload.mode=online --set workload.duration=7200s --set workload.aps=1)
# expect NAME PATTERN -- COMMAND...: exit 2, one line on stderr matching PATTERN, no folder made under $tmp/out.
expect() {
  local name="$1" pattern="$2"; shift 3
  rm -rf "$tmp/out"
  local t0=$SECONDS
  "$@" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$? lines; lines=$(grep -c . "$tmp/stderr")
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$pattern" "$tmp/stderr" && [ ! -e "$tmp/out/probes" ] \
     && [ ! -e "$tmp/out/target" ] && [ $((SECONDS - t0)) -lt 60 ]; then
    echo "ok   $name: exit 2 in $((SECONDS - t0)) s: $(cat "$tmp/stderr")"
  else
    echo "FAIL $name: exit $rc, $lines line(s): $(head -c 400 "$tmp/stderr")"; fail=1
  fi
}
expect "plan --target-aps 1000000" \
  "--target-aps 1e\+06: a probe at 1e\+06 APS over 7200 s of arrivals makes 7200000000 agents, at least .* GB before it simulates .*this machine can give a process .* GB" \
  -- "$bin" plan "$sc" --objective capacity --target-aps 1000000 "${online[@]}" --no-plot --out "$tmp/out"
expect "capacity whose first probe cannot fit" \
  "/workload/aps: a probe at 100000 APS over 7200 s of arrivals makes 720000000 agents" \
  -- "$bin" capacity "$sc" --policy basic "${online[@]}" --set workload.aps=100000 --no-plot --out "$tmp/out"
expect "check of an offline run of 1e8 agents" "/workload/agents: the offline run makes 100000000 agents, at least .* GB .*expected fewer workload.agents" \
  -- "$bin" check "$sc" --set workload.agents=100000000
# 100 APS over 2,400 s: 240,000 agents, about 2.5 GB by the estimate: refused under a 1.5 GB address-space limit,
# which the budget reads (the machine's free memory would take it).
expect "capacity under ulimit -v 1500000" "makes 240000 agents.*this machine can give a process 1\.5[0-9]* GB" \
  -- bash -c "ulimit -v 1500000; exec \"$bin\" capacity \"$sc\" --policy basic --set workload.mode=online \
     --set workload.duration=2400s --set workload.aps=100 --no-plot --out \"$tmp/out\""
# A probe that fits runs (the short probes of tests/cli/capacity.sh, under the same limit).
if (ulimit -v 1500000; "$bin" capacity "$sc" --policy basic --set workload.mode=online --set workload.aps=0.5 \
      --set workload.duration=300s --set workload.stop=slo-ttft --slo-ttft 0.3s --resolution 0.3 --jobs 2 --no-plot \
      --out "$tmp/fits" > /dev/null 2> "$tmp/fits.err"); then
  echo "ok   a capacity whose probes fit runs under the same limit"
else
  echo "FAIL a capacity whose probes fit was refused: $(tail -2 "$tmp/fits.err")"; fail=1
fi
exit $fail
