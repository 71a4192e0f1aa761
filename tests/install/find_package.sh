#!/usr/bin/env bash
# Acceptance 1: a project outside the tree (consumer/) finds the installed package, links
# Ripple::trace into an MPI program, runs it on 2 ranks and reads the trace with Ripple::trace_format.
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
# pkg-config names the same libraries.
PKG_CONFIG_PATH=$RIPPLE_PREFIX/lib/pkgconfig pkg-config --libs ripple-trace ripple-trace-format > pc.txt 2>&1 ||
  fail "pkg-config: $(cat pc.txt)"
grep -q -- "-lripple-trace .*-lripple-trace-format\|-lripple-trace-format" pc.txt || fail "pkg-config libs: $(cat pc.txt)"
[ "$failures" -ne 0 ] || pass "find_package(Ripple): traced on 2 ranks and read back"
finish
