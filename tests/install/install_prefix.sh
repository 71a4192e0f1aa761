#!/usr/bin/env bash
# Fixture: `cmake --install` of this build into a fresh prefix; the other install_* tests use it.
source "$(dirname "$0")/lib.sh"
rm -rf "$RIPPLE_PREFIX"
"$CMAKE_COMMAND" --install "$RIPPLE_BUILD_DIR" --prefix "$RIPPLE_PREFIX" > install.txt 2>&1 || fail "install: $(tail -n 5 install.txt)"
for f in bin/ripple bin/ripple-ring bin/ripple-heat2d bin/ripple-hpcg lib/libripple-trace.so lib/libripple-trace-format.so \
  include/ripple/trace/trace_reader.hpp include/ripple/trace/call_list.inc include/ripple/common/pcontrol.hpp \
  lib/cmake/Ripple/RippleConfig.cmake lib/cmake/Ripple/RippleTargets.cmake lib/pkgconfig/ripple-trace.pc \
  lib/pkgconfig/ripple-trace-format.pc lib/python3/dist-packages/ripple_plots/reader.py share/ripple/docs/README.md \
  share/ripple/examples/model/idle_wave_tanh.toml share/modulefiles/ripple/0.1.0; do
  [ -e "$RIPPLE_PREFIX/$f" ] || fail "not installed: $f"
done
# Only the public headers: none that needs HDF5, MPI or Ripple's internals.
for h in event_h5.hpp hdf5_file.hpp trace_command.hpp; do
  [ -z "$(find "$RIPPLE_PREFIX/include" -name "$h")" ] || fail "private header installed: $h"
done
grep -q "set root \"$RIPPLE_PREFIX\"" "$RIPPLE_PREFIX/share/modulefiles/ripple/0.1.0" || fail "module file does not name the prefix"
[ "$failures" -ne 0 ] || pass "installed into $RIPPLE_PREFIX"
finish
