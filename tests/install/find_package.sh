#!/usr/bin/env bash
# Acceptance 1: a project outside the tree (consumer/) finds the installed package, links
# Ripple::trace into an MPI program, runs it on 2 ranks and reads the trace with Ripple::trace_format;
# then the same through the pkg-config files.
source "$(dirname "$0")/lib.sh"
"$CMAKE_COMMAND" -S "$install_dir/consumer" -B consumer -DCMAKE_PREFIX_PATH="$RIPPLE_PREFIX" -DCMAKE_BUILD_TYPE=Release \
  > configure.txt 2>&1 || fail "configure: $(tail -n 8 configure.txt)"
"$CMAKE_COMMAND" --build consumer > build.txt 2>&1 || fail "build: $(tail -n 8 build.txt)"
# The tracer is linked in, from the prefix, before MPI.
needed=$(readelf -d consumer/traced_ring | grep NEEDED || true)
echo "$needed" | grep -q "libripple-trace.so" || fail "traced_ring does not need libripple-trace.so"
[ "$(echo "$needed" | grep -n 'libripple-trace.so' | cut -d: -f1)" -lt "$(echo "$needed" | grep -n 'libmpi.so' | cut -d: -f1)" ] ||
  fail "libmpi comes before the tracer: $needed"
RIPPLE_TRACE_OUTPUT=$PWD/ring.h5 timeout 120 "$MPIEXEC" -np 2 --oversubscribe consumer/traced_ring > run.txt 2>&1 ||
  fail "traced_ring: $(tail -n 5 run.txt)"
[ -f ring.h5 ] || fail "no trace written: $(cat run.txt)"
consumer/read_trace ring.h5 2 > read.txt 2>&1 || fail "read_trace: $(cat read.txt)"
cat run.txt read.txt
# Without CMake, as the README says: the .pc files build the same two programs.
export PKG_CONFIG_PATH=$RIPPLE_PREFIX/lib/pkgconfig
# shellcheck disable=SC2046  # pkg-config's flags are words
mpicxx "$install_dir/consumer/traced_ring.cpp" $(pkg-config --cflags --libs ripple-trace) -o pc_ring > pc.txt 2>&1 &&
  g++ "$install_dir/consumer/read_trace.cpp" $(pkg-config --cflags --libs ripple-trace-format) -o pc_read >> pc.txt 2>&1 ||
  fail "pkg-config build: $(tail -n 8 pc.txt)"
RIPPLE_TRACE_OUTPUT=$PWD/pc.h5 timeout 120 "$MPIEXEC" -np 2 --oversubscribe ./pc_ring > pc_run.txt 2>&1 ||
  fail "pc_ring: $(tail -n 5 pc_run.txt)"
./pc_read pc.h5 2 > pc_read.txt 2>&1 || fail "pc_read: $(cat pc_read.txt)"
[ "$failures" -ne 0 ] || pass "find_package(Ripple) and pkg-config: traced on 2 ranks and read back"
finish
