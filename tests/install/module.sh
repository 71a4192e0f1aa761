#!/usr/bin/env bash
# Acceptance 3: in a clean login shell, Debian's Lmod loads the installed module file; then
# `ripple info`, the Python package and the tracer's pkg-config and CMake paths are there.
source "$(dirname "$0")/lib.sh"
init=/usr/share/lmod/lmod/init/bash
[ -f "$init" ] || { echo "SKIP: no Lmod ($init); scripts/install-deps.sh installs it"; exit 77; }
cat > session.sh <<SESSION
type module > /dev/null 2>&1 || source $init
module use "$RIPPLE_PREFIX/share/modulefiles"
module load ripple || exit 1
module list 2>&1
echo "which=\$(command -v ripple)"
ripple info || exit 1
echo "root=\$RIPPLE_ROOT"
/usr/bin/python3 -c 'import ripple_plots.reader as r; print("python=" + r.__file__)' || exit 1
echo "cmake=\$CMAKE_PREFIX_PATH"
pkg-config --modversion ripple-trace-format | sed 's/^/pkg=/'
module unload ripple
echo "after=\$(command -v ripple || echo none)"
SESSION
env -i HOME="$PWD" USER=ripple PATH=/usr/bin:/bin TERM=dumb bash -l session.sh > session.txt 2>&1 ||
  fail "session: $(cat session.txt)"
cat session.txt
grep -qx "which=$RIPPLE_PREFIX/bin/ripple" session.txt || fail "ripple not from the prefix"
grep -q "^ripple 0.1.0" session.txt || fail "ripple info"
grep -qx "root=$RIPPLE_PREFIX" session.txt || fail "RIPPLE_ROOT"
grep -qx "python=$RIPPLE_PREFIX/lib/python3/dist-packages/ripple_plots/reader.py" session.txt || fail "PYTHONPATH"
grep -q "^cmake=$RIPPLE_PREFIX" session.txt || fail "CMAKE_PREFIX_PATH"
grep -qx "pkg=0.1.0" session.txt || fail "PKG_CONFIG_PATH"
grep -qx "after=none" session.txt || fail "module unload leaves ripple on PATH"
[ "$failures" -ne 0 ] || pass "module load ripple (Lmod), ripple info"
finish
