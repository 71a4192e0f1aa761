# A private Slurm on this machine for the end-to-end tests (sourced after lib.sh): munged,
# slurmctld and slurmd on 127.0.0.1, on free ports, with their keys, state, logs and pid files
# under one directory; `srun --mpi=pmix` launches Open MPI jobs in it. The daemons run in the
# foreground as this shell's children (so their PIDs cannot be reused while it runs), each under a
# `timeout` that ends it after 15 minutes even if the test itself is killed; slurm_stop (also on
# exit) cancels what is left of the jobs and stops them by PID. Needs root and the Debian packages
# slurmctld, slurmd, slurm-client and munge (scripts/install-deps.sh).
slurm_dir=""
slurm_pids=""  # the timeouts' PIDs: slurmd, slurmctld, munged
# slurm_can_run: whether this machine can (root, the tools): the caller skips the test otherwise.
slurm_can_run() {
  local tool
  [ "$(id -u)" -eq 0 ] || { echo "local_slurm: not root" >&2; return 1; }
  for tool in munged slurmctld slurmd srun sinfo squeue scancel; do
    command -v "$tool" > /dev/null || { echo "local_slurm: $tool is missing: run scripts/install-deps.sh" >&2; return 1; }
  done
}
slurm_stop() {
  [ -n "$slurm_dir" ] || return 0
  local pid
  scancel --quiet --user=root 2> /dev/null || true
  for _ in $(seq 50); do [ -z "$(squeue -h 2> /dev/null)" ] && break; sleep 0.1; done
  for pid in $slurm_pids; do
    kill "$pid" 2> /dev/null || continue  # timeout passes the signal on to its daemon
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
# allowed) and waits until it is idle; exports SLURM_CONF. Fails, with the daemons stopped, if the
# node does not come up within 10 s.
slurm_start() {
  local dir=$1 cpus=$2 host ports
  mkdir -p "$dir/state" "$dir/spool" && chmod 700 "$dir" || return 1
  slurm_dir=$dir
  trap slurm_stop EXIT
  head -c 128 /dev/urandom > "$dir/munge.key" && chmod 400 "$dir/munge.key" || return 1
  timeout 900 munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" > "$dir/munged.out" 2>&1 &
  slurm_pids=$!
  host=$(hostname -s)
  ports=$(/usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || return 1
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
  for _ in $(seq 50); do [ -S "$dir/munge.sock" ] && break; sleep 0.1; done
  timeout 900 slurmctld -D -i > "$dir/slurmctld.out" 2>&1 &  # (not the test's output: ctest would wait for them)
  slurm_pids="$! $slurm_pids"
  timeout 900 slurmd -D > "$dir/slurmd.out" 2>&1 &
  slurm_pids="$! $slurm_pids"
  for _ in $(seq 100); do
    sinfo -h -o %T 2> /dev/null | grep -q idle && return 0
    sleep 0.1
  done
  echo "local_slurm: the node did not come up: $(tail -n 3 "$dir/slurmctld.log" "$dir/slurmd.log" 2>&1)" >&2
  slurm_stop
  return 1
}
