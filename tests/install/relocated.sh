#!/usr/bin/env bash
# Acceptance 2: the installed ripple runs from a moved prefix with no build or source tree present:
# `ripple trace` preloads the prefix's tracer, `ripple plot` imports the prefix's Python package.
# The trees are hidden under empty tmpfs mounts in a private mount namespace (unshare -m, or -rm as
# a user); where neither is allowed the same checks run with the trees present, and say so.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/ripple-relocated.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
moved=$tmp/elsewhere/ripple
mkdir -p "$tmp/elsewhere" && cp -a "$RIPPLE_PREFIX" "$moved"
printf '#!/bin/sh\necho "PYTHONPATH=$PYTHONPATH" > "%s/pythonpath.txt"\nexec /usr/bin/python3 "$@"\n' "$tmp" > "$tmp/python"
chmod +x "$tmp/python"
cat > "$tmp/inner.sh" <<INNER
set -u
cd "$tmp"
if [ "\${1:-}" = hide ]; then
  mount -t tmpfs none "$RIPPLE_BUILD_DIR" && mount -t tmpfs none "$RIPPLE_SOURCE_DIR" || exit 3
  [ ! -e "$RIPPLE_BUILD_DIR/CMakeCache.txt" ] && [ ! -e "$RIPPLE_SOURCE_DIR/CMakeLists.txt" ] || exit 3
  echo "trees hidden"
fi
unset PYTHONPATH RIPPLE_TRACE_LIBRARY RIPPLE_PLOTS_DIR
"$moved/bin/ripple" trace -o probe.h5 -- /usr/bin/printenv LD_PRELOAD > preload.txt 2> preload.err
timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$moved/bin/ripple" trace -o ring.h5 -- "$moved/bin/ripple-ring" --work sleep \
  --compute-time 0.001 --slices 1000 --iterations 12 --warmup 1 --delay 1:4:0.005 > ring.txt 2>&1 || echo "ring failed" >> fails.txt
"$moved/bin/ripple" trace info ring.h5 > info.txt 2>&1 || echo "trace info failed" >> fails.txt
RIPPLE_PYTHON="$tmp/python" "$moved/bin/ripple" plot waves ring.h5 -o waves.png > plot.txt 2>&1 || echo "plot failed" >> fails.txt
INNER
mode="trees hidden"
if ! unshare -m bash "$tmp/inner.sh" hide > inner.txt 2>&1 && ! unshare -rm bash "$tmp/inner.sh" hide > inner.txt 2>&1; then
  if grep -q "trees hidden" inner.txt; then fail "in the namespace: $(cat inner.txt)"; fi
  mode="trees present (no mount namespace allowed)"
  rm -f "$tmp"/*.txt "$tmp"/*.h5
  bash "$tmp/inner.sh" > inner.txt 2>&1 || fail "inner: $(cat inner.txt)"
fi
echo "mode: $mode"
[ ! -f "$tmp/fails.txt" ] || fail "$(cat "$tmp/fails.txt"): $(cat "$tmp"/ring.txt "$tmp"/info.txt "$tmp"/plot.txt 2>/dev/null | tail -n 12)"
[ "$(cat "$tmp/preload.txt" 2>/dev/null)" = "$moved/lib/libripple-trace.so" ] ||
  fail "ripple trace preloads '$(cat "$tmp/preload.txt" "$tmp/preload.err" 2>/dev/null)', want $moved/lib/libripple-trace.so"
grep -q ": 2 ranks on" "$tmp/info.txt" || fail "trace info: $(head -n 5 "$tmp/info.txt")"
grep -qx "PYTHONPATH=$moved/lib/python3/dist-packages" "$tmp/pythonpath.txt" 2>/dev/null ||
  fail "ripple plot ran python with $(cat "$tmp/pythonpath.txt" 2>/dev/null), want $moved/lib/python3/dist-packages"
[ -s "$tmp/waves.png" ] || fail "no figure"
[ "$failures" -ne 0 ] || pass "moved prefix, $mode: tracer and Python package found beside bin/ripple"
finish
