#!/usr/bin/env bash
# Runs scripts/slurm/ on a real single-node Slurm cluster started here: slurmctld and slurmd on
# localhost (auth/none, a generated slurm.conf in a temp dir), a 4-task job array of `ktune bench`
# over the CPU tiny workload, the merge job after it; the merged store must hold exactly the keys
# of a single-process run. Exit 77 (ctest: skipped) with the reason when Slurm cannot start here.
#   slurm_array_test.sh KTUNE_BINARY SOURCE_DIR
set -uo pipefail
KTUNE=$(realpath "$1")
SRC=$(realpath "$2")
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

for tool in slurmctld slurmd sbatch squeue sinfo scancel; do
  command -v "$tool" > /dev/null || skip "no $tool (Debian package slurm-wlm, scripts/install_deps.sh)"
done
plugins=$(dirname "$(find /usr/lib* -name auth_none.so -path '*slurm*' 2> /dev/null | head -1)")
[ -f "$plugins/auth_none.so" ] || skip "this Slurm has no auth/none plugin (needed without munge)"

D=$(mktemp -d /tmp/ktune-slurm.XXXXXX)
ctld_pid="" slurmd_pid=""
cleanup() {  # every path: cancel our jobs, stop the two daemons we started, remove the files
  if [ -n "$ctld_pid" ]; then scancel --quiet --full -u "$(id -un)" 2> /dev/null; fi
  for pid in $slurmd_pid $ctld_pid; do kill "$pid" 2> /dev/null; done
  for pid in $slurmd_pid $ctld_pid; do
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  done
  rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

port=$((20000 + RANDOM % 20000))
user=$(id -un)
mkdir -p "$D/state" "$D/spool" "$D/out"
cat > "$D/slurm.conf" << CONF
ClusterName=ktune-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
PluginDir=$plugins
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=ktune-node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ktune-node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -D -c -f "$SLURM_CONF" > "$D/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -f "$SLURM_CONF" -N ktune-node > "$D/slurmd.out" 2>&1 &
slurmd_pid=$!
state=""
for _ in $(seq 150); do  # up to 30 s for the node to register
  state=$(sinfo -h -n ktune-node -o %t 2> /dev/null)
  [ "$state" = idle ] && break
  kill -0 "$ctld_pid" 2> /dev/null && kill -0 "$slurmd_pid" 2> /dev/null || break
  sleep 0.2
done
if [ "$state" != idle ]; then
  tail -n 5 "$D"/*.log "$D"/*.out 2> /dev/null
  skip "single-node Slurm did not come up here (node state '${state:-none}'; logs above)"
fi
echo "slurm up: slurmctld $ctld_pid, slurmd $slurmd_pid, port $port"

# One config per kind would do; 12 configs keep each task to a second or two.
export OMP_NUM_THREADS=1 KTUNE KTUNE_OUT=$D/out
args=(--workload tiny --configs 0,1,2,3,4,5,6,7,8,9,10,11 --min-reps 1 --max-reps 1 --warmups 0)
"$KTUNE" bench "${args[@]}" --store "$D/single.sqlite" > "$D/single.log" 2>&1 ||
  { cat "$D/single.log"; fail "the single-process run failed"; }

cd "$D" || fail "cd $D"
"$SRC/scripts/slurm/submit.sh" 4 --output="$D/bench-%a.out" -- "${args[@]}" ||
  fail "submit.sh failed"
for _ in $(seq 600); do  # up to 120 s for the array and the merge
  [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -o %i)" ] || { squeue; fail "jobs still queued after 120 s"; }
for i in 0 1 2 3; do
  [ -s "$D/out/shard-$i-of-4.sqlite" ] || { cat "$D"/*.out; fail "task $i wrote no store"; }
done
[ -f "$D/out/merged.sqlite" ] || { cat "$D"/*.out; fail "the merge job wrote no merged store"; }
cat "$D"/ktune-merge-*.out

keys() {
  "$KTUNE" export --store "$1" --format csv -o "$D/export.csv" 2> /dev/null || fail "export $1"
  tail -n +2 "$D/export.csv" | cut -d, -f1-4 | sort
}
keys "$D/single.sqlite" > "$D/single.keys"
keys "$D/out/merged.sqlite" > "$D/merged.keys"
n=$(wc -l < "$D/single.keys")
[ "$n" -gt 0 ] || fail "the single-process run stored nothing"
diff "$D/single.keys" "$D/merged.keys" > "$D/keys.diff" || { head "$D/keys.diff"; fail "key sets differ"; }
echo "PASSED: the merged store of 4 array tasks holds exactly the $n keys of the single run"
