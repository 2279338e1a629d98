#!/usr/bin/env bash
# Outputs that survive a kill (issue 46) or Ctrl-C (issue 80): `run`, `sweep`, `capacity` and `plan` on small cases,
# each stopped (the whole process group, as a batch system or an OOM kill takes a job, and as a terminal's Ctrl-C
# sends SIGINT; the attempts alternate SIGINT and SIGKILL) at KILLS random moments (default 20,
# about 16 s in all; docs/configuration.md "Outputs that survive a kill"), each kill resumed by the next attempt;
# after every kill nothing looks whole that is not (summary.json, sweep.csv, capacity.json, plan.json parse, and a
# summary.json says complete); the last rerun finishes and its results equal an uninterrupted run's (byte for byte;
# capacity.json but for its count of reused probes). Usage: kill_resume.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
kills="${KILLS:-20}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3
sc27="$root/scenarios/ds27b-1p1d.json"

# kill_at SECONDS SIGNAL ARGS...: dualpath ARGS in a process group of its own, sent SIGNAL whole after SECONDS.
kill_at() {
  local delay="$1" sig="$2"; shift 2
  setsid "$bin" "$@" > /dev/null 2>&1 &
  local pid=$!
  sleep "$delay"
  kill -"$sig" -- -"$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  for _ in $(seq 50); do pgrep -g "$pid" > /dev/null 2>&1 || break; sleep 0.05; done
}

# Every result file under DIR that exists is whole: JSON parses, CSVs end in "\n"; with a second argument, every
# summary.json also says complete (a plain run's; a capacity probe stopped by the SLO rule is not "complete").
check_whole() {
  $py - "$@" <<'PY'
import json, os, sys
bad = []
need_complete = len(sys.argv) > 2
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(d, f)
        if f.endswith(".json"):
            try:
                j = json.load(open(p))
            except ValueError as e:
                bad.append(f"{p}: {e}")
                continue
            if need_complete and f == "summary.json" and j.get("complete") is not True:
                bad.append(f"{p}: not complete")
        elif f.endswith(".csv") and os.path.getsize(p) and not open(p, "rb").read().endswith(b"\n"):
            bad.append(f"{p}: cut short")
if bad:
    sys.exit("\n".join(bad))
PY
}

# case NAME RESULT_FILE ARGS...: the uninterrupted run, then KILLS kills resumed one after the other, then a rerun.
case_() {
  local name="$1" result="$2"; shift 2
  local ref="$tmp/$name-ref" out="$tmp/$name-killed"
  local t0; t0=$(date +%s.%N)
  "$bin" "$@" --out "$ref" > /dev/null 2>&1 || { echo "FAIL $name: the uninterrupted run failed"; fail=1; return; }
  local ms; ms=$(echo "($(date +%s.%N) - $t0) * 1000 / 1" | bc)
  for i in $(seq "$kills"); do
    kill_at "$(echo "scale=3; ($RANDOM % ($ms + 1)) / 1000" | bc)" "$([ $((i % 2)) = 1 ] && echo INT || echo KILL)" \
      "$@" --out "$out"
    if ! msg=$(check_whole "$out" ${complete:+complete} 2>&1); then echo "FAIL $name: after kill $i something looks whole that is not: $msg"; fail=1; return; fi
  done
  "$bin" "$@" --out "$out" > "$tmp/$name.rerun" 2>&1 || { echo "FAIL $name: the rerun failed: $(tail -2 "$tmp/$name.rerun")"; fail=1; return; }
  if $py - "$ref/$result" "$out/$result" <<'PY'
import json, sys
a, b = sys.argv[1:]
if a.endswith("capacity.json"):
    ja, jb = json.load(open(a)), json.load(open(b))
    for j in (ja, jb):
        for p in j["policies"].values():
            p.pop("probes_reused")
    sys.exit(0 if ja == jb else 1)
sys.exit(0 if open(a, "rb").read() == open(b, "rb").read() else 1)
PY
  then echo "ok   $name: $kills kills (SIGINT and SIGKILL in turn) at random moments (run ~${ms} ms), every partial state whole, the rerun equals the uninterrupted run"
  else echo "FAIL $name: after $kills kills the rerun's $result differs from the uninterrupted run's"; fail=1; fi
}

complete=1 case_ run summary.json run "$root/scenarios/default.json" --set workload.agents=16 --quiet
case_ sweep sweep.csv sweep "$root/scenarios/default.json" --vary workload.agents=8,16 --vary policy.name=basic,dualpath \
  --no-plot --jobs 2
case_ capacity capacity.json capacity "$sc27" --policy basic --set workload.mode=online --set workload.aps=0.5 \
  --set workload.duration=300s --set workload.stop=slo-ttft --slo-ttft 0.3s --resolution 0.2 --no-plot --jobs 2
case_ plan plan.json plan "$sc27" --nodes 3 --objective capacity --policy basic --resolution 0.2 --set workload.mode=online \
  --set workload.aps=0.5 --set workload.duration=300s --set workload.stop=slo-ttft --slo-ttft 0.3s --no-plot --jobs 2
exit $fail
