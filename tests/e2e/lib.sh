# Shared helpers for the end-to-end tests (sourced). Expects RIPPLE_BIN, MPIEXEC, RIPPLE_WORK_DIR.
set -euo pipefail
: "${RIPPLE_BIN:?}" "${MPIEXEC:=mpirun}" "${RIPPLE_WORK_DIR:=$(mktemp -d)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# trace_file.py for the checks' inline Python, found before the scripts change directory.
export PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$RIPPLE_WORK_DIR" && mkdir -p "$RIPPLE_WORK_DIR" && cd "$RIPPLE_WORK_DIR"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
run_np() { local np=$1; shift; timeout 300 "$MPIEXEC" -np "$np" --oversubscribe "$RIPPLE_BIN" "$@"; }
finish() { if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi; echo "all passed"; }
