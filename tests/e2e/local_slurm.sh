# A private Slurm on this machine for the end-to-end tests (sourced after lib.sh): munged,
# slurmctld and slurmd on 127.0.0.1, on free ports, with their keys, state, logs and pid files
# under one directory; `srun --mpi=pmix` launches Open MPI jobs in it. slurm_stop (called on exit)
# stops the three daemons by their PIDs. Needs root (the daemons run as root) and the Debian
# packages slurmctld, slurmd, slurm-client and munge (scripts/install-deps.sh).
slurm_dir=""
slurm_pids=""  # the daemons', as they wrote them at the start: slurmd, slurmctld, munged
slurm_stop() {
  [ -n "$slurm_dir" ] || return 0
  local pid
  for pid in $slurm_pids; do
    kill "$pid" 2> /dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
  done
  slurm_dir=""
}
# True while any of the daemons slurm_start started still runs.
slurm_running() {
  local pid
  for pid in $slurm_pids; do kill -0 "$pid" 2> /dev/null && return 0; done
  return 1
}
# slurm_start DIR CPUS: starts the daemons with one node of CPUS CPUs (more than the machine has is
# allowed) and waits until it is idle; exports SLURM_CONF.
slurm_start() {
  local dir=$1 cpus=$2 host ports
  for tool in munged slurmctld slurmd srun sinfo; do
    command -v "$tool" > /dev/null || { echo "local_slurm: $tool is missing: run scripts/install-deps.sh" >&2; return 1; }
  done
  mkdir -p "$dir/state" "$dir/spool" && chmod 700 "$dir"
  slurm_dir=$dir
  trap slurm_stop EXIT
  head -c 128 /dev/urandom > "$dir/munge.key" && chmod 400 "$dir/munge.key"
  munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" || return 1
  host=$(hostname -s)
  ports=$(/usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
  cat > "$dir/slurm.conf" << CONF
ClusterName=ripple-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports% *}
SlurmdPort=${ports#* }
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurm_pids=$(cat "$dir/munged.pid")
  slurmctld -i && slurmd || return 1
  for _ in $(seq 100); do
    if sinfo -h -o %T 2> /dev/null | grep -q idle; then
      slurm_pids="$(cat "$dir/slurmd.pid") $(cat "$dir/slurmctld.pid") $slurm_pids"
      return 0
    fi
    sleep 0.1
  done
  slurm_pids="$(cat "$dir/slurmd.pid" "$dir/slurmctld.pid" 2> /dev/null | tr '\n' ' ')$slurm_pids"
  echo "local_slurm: the node did not come up: $(tail -n 3 "$dir/slurmctld.log" "$dir/slurmd.log")" >&2
  return 1
}
