# shellcheck shell=bash
# What the batch templates share (sourced by them; not a job of its own). Settings by environment:
#   RIPPLE           the ripple binary (default: `ripple` on PATH)
#   RIPPLE_APPS      the folder of the proxy apps ripple-ring, ripple-heat2d, ripple-hpcg (default: PATH)
#   RIPPLE_SRUN_MPI  srun's --mpi plugin (default pmix)
#   MPIEXEC          the launcher where Slurm is absent (default mpirun; ranks may oversubscribe)
set -uo pipefail
ripple=${RIPPLE:-ripple}
# app NAME: the proxy app's binary (ring, heat2d, hpcg; or a path of one's own).
app() {
  case $1 in
    ring | heat2d | hpcg) echo "${RIPPLE_APPS:+$RIPPLE_APPS/}ripple-$1" ;;
    *) echo "$1" ;;
  esac
}
# launch N CMD...: CMD on N ranks: `srun --mpi=pmix` inside a Slurm job, mpirun outside one.
launch() {
  local n=$1
  shift
  if [ -n "${SLURM_JOB_ID:-}" ]; then
    srun --mpi="${RIPPLE_SRUN_MPI:-pmix}" -n "$n" "$@"
  else
    OMPI_MCA_rmaps_base_oversubscribe=1 "${MPIEXEC:-mpirun}" -np "$n" "$@"
  fi
}
# ranks: the job's task count (Slurm's), else RIPPLE_NP, else 4.
ranks() { echo "${SLURM_NTASKS:-${RIPPLE_NP:-4}}"; }
# provenance DIR: writes DIR/provenance.txt (key: value): the job, its nodes, the build, the git
# revision of the folder the job was submitted from (if it is a git checkout), the command line.
provenance() {
  local dir=$1 from=${SLURM_SUBMIT_DIR:-$PWD}
  mkdir -p "$dir" || return 1
  {
    echo "template: $template"
    echo "arguments: ${template_args[*]}"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    echo "slurm_job_id: ${SLURM_JOB_ID:-none}"
    echo "slurm_array: ${SLURM_ARRAY_JOB_ID:-none}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID}"
    echo "nodes: ${SLURM_JOB_NUM_NODES:-1} (${SLURM_JOB_NODELIST:-$(hostname)})"
    echo "tasks: $(ranks)"
    echo "launcher: $([ -n "${SLURM_JOB_ID:-}" ] && echo "srun --mpi=${RIPPLE_SRUN_MPI:-pmix}" || echo "${MPIEXEC:-mpirun}")"
    echo "ripple: $(command -v "$ripple")"
    echo "build: $("$ripple" info 2>&1)"
    echo "mpi: $(command -v mpirun > /dev/null && mpirun --version 2>&1 | head -n 1)"
    echo "submit_dir: $from"
    echo "git: $(git -C "$from" rev-parse HEAD 2> /dev/null || echo none)$(git -C "$from" status --porcelain 2> /dev/null | grep -q . && echo ' (modified)')"
  } > "$dir/provenance.txt"
}
# jobs_start NAME ARGS...: the template's name and arguments, for the provenance.
jobs_start() {
  template=$1
  shift
  template_args=("$@")
  echo "$template: job ${SLURM_JOB_ID:-none (no Slurm: ${MPIEXEC:-mpirun})}, $(ranks) ranks"
}
