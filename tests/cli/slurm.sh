#!/usr/bin/env bash
# A sweep as a Slurm job array on a real single-node Slurm (issue 21): the test starts munged, slurmctld and slurmd
# from Debian's packages with a configuration of its own in a temp folder (its own munge key and socket, free
# ports, no cgroups), runs `dualpath sweep ... --slurm 4 --submit`, waits for the merge job, compares the merged
# sweep.csv with a single-process run byte for byte, and stops the daemons. Exits 77 (skipped) where Slurm is not
# installed or its daemons cannot start here (they need root). Usage: slurm.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$(readlink -f "$1")
root=$(readlink -f "$2")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [[ -d ${d:-} ]] && tail -n 5 "$d"/log/*.log 2>/dev/null; exit 1; }
for t in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$t" > /dev/null || [[ -x /usr/sbin/$t ]] || skip "$t not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs"
export PATH="$PATH:/usr/sbin"

d=$(mktemp -d)
stop() {
  for f in "$d"/slurmd.pid "$d"/slurmctld.pid "$d"/munge/munged.pid; do
    [[ -f $f ]] && kill "$(cat "$f")" 2> /dev/null || true
  done
  sleep 0.5
  rm -rf "$d"
}
trap stop EXIT
mkdir -p "$d"/{state,spool,log,munge,work}
chmod 700 "$d/munge"
head -c 1024 /dev/urandom > "$d/munge/munge.key"
chmod 600 "$d/munge/munge.key"
munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" --pid-file="$d/munge/munged.pid" \
  --log-file="$d/munge/munged.log" --seed-file="$d/munge/seed" || skip "munged does not start here"
read -r p1 p2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cat > "$d/slurm.conf" <<CONF
ClusterName=dualpathtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MpiDefault=none
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$d/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start here"
slurmd -f "$SLURM_CONF" -N localhost || skip "slurmd does not start here"
for _ in $(seq 60); do
  sinfo -h -o %T 2> /dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %T | grep -q idle || skip "the Slurm node did not come up: $(tail -n 3 "$d"/log/*.log)"

sc="$root/scenarios/default.json"
sweep=(sweep "$sc" --vary workload.agents=16,32 --vary policy.name=basic,dualpath --no-plot --jobs 1)
"$bin" "${sweep[@]}" --out "$d/work/one" > /dev/null 2>&1 || fail "single-process sweep"
cd "$d/work"
"$bin" "${sweep[@]}" --out slurm-sweep --slurm 4 --slurm-opt=--time=10 --submit > submit.out 2>&1 \
  || fail "submission: $(cat submit.out)"
grep -q "#SBATCH --array=0-3" slurm-sweep/slurm/array.sh || fail "array.sh has no 4-task array"
grep -q "#SBATCH --time=10" slurm-sweep/slurm/array.sh || fail "--slurm-opt is not in array.sh"
grep -q -- '--shard "${SLURM_ARRAY_TASK_ID}/4"' slurm-sweep/slurm/array.sh || fail "array.sh does not shard"
ids=$(sed -n 's/.*submitted array job \([0-9]*\) (4 tasks) and merge job \([0-9]*\) .*/\1,\2/p' submit.out)
[[ -n $ids ]] || fail "no job ids in: $(cat submit.out)"
for _ in $(seq 240); do
  [[ -z $(squeue -h -j "$ids" 2> /dev/null) ]] && break
  sleep 0.5
done
[[ -z $(squeue -h -j "$ids" 2> /dev/null) ]] && [[ -f slurm-sweep/sweep.csv ]] \
  || fail "the jobs did not finish in 2 minutes: $(squeue -j "$ids"; cat slurm-sweep/slurm/*.log)"
grep -q "0 run, 4 skipped, 0 failed" slurm-sweep/slurm/merge.log || fail "the merge ran points: $(cat slurm-sweep/slurm/merge.log)"
cmp one/sweep.csv slurm-sweep/sweep.csv || fail "the merged sweep.csv differs from the single-process one"
echo "Slurm sweep passed (jobs $ids)"
