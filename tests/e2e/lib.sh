# Shared helpers for the end-to-end tests (sourced). Expects RIPPLE_BIN, MPIEXEC, RIPPLE_WORK_DIR.
set -euo pipefail
: "${RIPPLE_BIN:?}" "${MPIEXEC:=mpirun}" "${RIPPLE_WORK_DIR:=$(mktemp -d)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# trace_file.py for the checks' inline Python, and the ripple_plots package (Ripple's one Python
# reader, and the figures), found before the scripts change directory.
e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PYTHONPATH="$e2e_dir:$(cd "$e2e_dir/../../analysis/plots" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$RIPPLE_WORK_DIR" && mkdir -p "$RIPPLE_WORK_DIR" && cd "$RIPPLE_WORK_DIR"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
run_np() { local np=$1; shift; timeout 300 "$MPIEXEC" -np "$np" --oversubscribe "$RIPPLE_BIN" "$@"; }
# expect_one_error NAME PATTERN ARGS...: `ripple ARGS` on 2 ranks exits with code 2 and says one
# error line, matching PATTERN (its output in out.txt, err.txt). Returns 0 if so; else says why
# (fail) and returns 1. The caller says pass, after any checks of its own.
expect_one_error() {
  local name=$1 pattern=$2; shift 2
  local rc=0 lines
  run_np 2 "$@" > out.txt 2> err.txt || rc=$?
  lines=$(grep -c '^ripple: error' err.txt || true)
  if [ "$rc" -ne 2 ]; then fail "$name: exit code $rc (want 2): $(cat err.txt)"; return 1; fi
  if [ "$lines" -ne 1 ]; then fail "$name: $lines error lines (want 1): $(cat err.txt)"; return 1; fi
  if ! grep -q -- "$pattern" err.txt; then fail "$name: message lacks '$pattern': $(cat err.txt)"; return 1; fi
}
finish() { if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi; echo "all passed"; }
