# Shared by the fault tests (sim_faults.sh, sim_node_down.sh); sourced, not run. Expects $bin and $root.
# Sets $tmp (removed on exit), $py and $sc (DS 27B 1P1D), and defines:
#   run FOLDER ARGS...      a 64-agent run of $sc into $tmp/FOLDER
#   refuse_faults FAULT...  each `--fault FAULT` must exit 2 with one line on stderr
export PYTHONPATH="$root/tests/cli${PYTHONPATH:+:$PYTHONPATH}"  # checks.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
sc="$root/scenarios/ds27b-1p1d.json"
run() {  # folder, args...
  local out=$1; shift
  "$bin" run "$sc" --quiet --set workload.agents=64 --out "$tmp/$out" "$@"
}
refuse_faults() {
  local f rc lines
  for f in "$@"; do
    rc=0; "$bin" run "$sc" --quiet --out "$tmp/bad" --fault "$f" 2> "$tmp/err" || rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ "$rc" != 2 ] || [ "$lines" != 1 ]; then echo "FAIL --fault $f: exit $rc, $lines lines"; cat "$tmp/err"; exit 1; fi
    echo "ok   --fault $f: exit 2: $(cat "$tmp/err")"
  done
}
