#!/usr/bin/env bash
# `run --threads N` (issue 43): from 2, the native engine's link meter runs on a thread of its own
# (sim/meter_feed.hpp), and every output must be byte-identical to one thread: the bundled default scenario
# under two policies and every fault case of scripts/same_outputs.sh (a wrapper adds --threads 2 to each run),
# and DS 660B 2P4D at 512 agents with the speed switches. --threads passes to the children of a side-by-side run;
# 0, a word and the SimGrid engine are refused by name.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/threaded" <<SH
#!/usr/bin/env bash
if [ "\$1" = run ]; then exec "$bin" "\$@" --threads 2; fi
exec "$bin" "\$@"
SH
chmod +x "$tmp/threaded"
SCENARIOS=default.json POLICIES="basic dualpath" CLAIMS=0 FAULTS=1 FAULT_POLICIES=dualpath \
  "$root/scripts/same_outputs.sh" "$bin" "$tmp/threaded" "$tmp/same" | tail -3
grep -q '"threads": 2' "$tmp/same/new/default-dualpath/perf.json" || { echo "FAIL: perf.json does not say 2 threads"; exit 1; }
grep -q '"threads": 1' "$tmp/same/old/default-dualpath/perf.json" || { echo "FAIL: perf.json does not say 1 thread"; exit 1; }
echo "ok   --threads 2: the default scenario (basic, dualpath) and every fault case, outputs byte-identical"

# A larger case, where the worker hands over many batches, with the three speed switches.
source "$root/bench/speed_switches.sh"
for t in 1 2; do
  "$bin" run "$root/scenarios/ds660b-2p4d.json" --quiet --out "$tmp/big$t" --set workload.agents=512 \
    "${speed_switches[@]}" --threads "$t"
done
for f in summary.json requests.csv links.csv waits.csv; do cmp "$tmp/big1/$f" "$tmp/big2/$f"; done
echo "ok   --threads 2: DS 660B 2P4D, 512 agents, with the switches: outputs byte-identical"

# Side by side: each policy's child gets --threads.
"$bin" run "$root/scenarios/default.json" --quiet --policy basic,dualpath --threads 3 --out "$tmp/pair" > /dev/null
for p in basic dualpath; do
  grep -q '"threads": 2' "$tmp/pair/$p/perf.json" || { echo "FAIL: the $p child did not run with a worker"; exit 1; }
  cmp "$tmp/pair/$p/requests.csv" "$tmp/same/old/default-$p/requests.csv"
done
echo "ok   --threads 3 with two policies: each child ran with the worker, same requests.csv as one thread"

refused() {  # expected message, then the arguments
  local want=$1 rc=0; shift
  "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/bad" "$@" 2> "$tmp/err" || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $* exited $rc, not 2"; cat "$tmp/err"; exit 1; }
  grep -q -- "$want" "$tmp/err" || { echo "FAIL: $* did not say '$want':"; cat "$tmp/err"; exit 1; }
}
refused "--threads" --threads 0
refused "--threads" --threads two
refused "--threads 2: more than one thread needs the native engine" --threads 2 --set sim.engine=simgrid
echo "ok   --threads 0, --threads two and --threads 2 on SimGrid are refused by name"

# The bench's THREADS: a documented value runs, anything else is refused by name.
THREADS=2 SIMGRID=off "$root/bench/sim_speed.sh" "$bin" small 1 | tee "$tmp/bench.txt"
grep -q '^small    median wall .* (--threads 2)$' "$tmp/bench.txt" || { echo "FAIL: the bench did not run 2 threads"; exit 1; }
if THREADS=0 "$root/bench/sim_speed.sh" "$bin" small 1 2> "$tmp/bench.err"; then
  echo "FAIL: the bench accepted THREADS=0"; exit 1
fi
grep -q "THREADS must be a whole number >= 1, not '0'" "$tmp/bench.err"
echo "ok   bench/sim_speed.sh: THREADS=2 runs, THREADS=0 is refused"
