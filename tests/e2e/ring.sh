#!/usr/bin/env bash
# ring: eager- and rendezvous-sized messages, open and periodic, distances [-1,1] and [-1,1,-2],
# every kernel; each run verifies its kernel and that every message came from the right rank and
# iteration.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}" "${HEAT2D_BIN:?}" "${HPCG_BIN:?}"
for kernel in pi triad slowtriad; do
  for bytes in 64 1048576; do
    for distances in -1,1 -1,1,-2; do
      for periodic in "" --periodic; do
        args=(--kernel "$kernel" --bytes "$bytes" --distances "$distances" $periodic --iterations 8 --warmup 1 --elements 20000 --slices 20000)
        if timeout 120 "$MPIEXEC" -np 4 --oversubscribe "$RING_BIN" "${args[@]}" > out.txt 2>&1 && grep -q "verification PASSED" out.txt; then :
        else fail "ring ${args[*]}: $(cat out.txt)"; fi
      done
    done
  done
done
[ "$failures" -eq 0 ] && pass "24 ring configurations verified"
timeout 60 "$MPIEXEC" -np 3 --oversubscribe "$RING_BIN" --kernel triad --elements 100 --iterations 2 --output ring.h5 > /dev/null \
  && h5dump -H ring.h5 > ring.txt && grep -q "DATASPACE  SIMPLE { ( 3, 100 )" ring.txt && pass "--output writes the global result" \
  || fail "ring --output: $(cat ring.txt 2>/dev/null)"
# --work sleep with a kernel that cannot fit the phase (10^6 slices in 1 us): every timed iteration of
# every rank counted in the JSON, and one warning with the kernel's time (before: not a word).
timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RING_BIN" --work sleep --compute-time 1e-6 --iterations 5 --json over.json > over.txt 2>&1 \
  && [ "$(grep -c 'warning: --work sleep: the kernel itself took up to .* longer than the 1e-06 s compute phase, in 10 rank-iterations' over.txt)" -eq 1 ] \
  && [ "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sleep_overruns"])' over.json)" = 10 ] \
  && pass "a kernel longer than the sleep phase: counted and said once" || fail "sleep overruns: $(cat over.txt)"
# The three apps' JSON summaries share one set of fields (docs/proxyapps.md), under both work modes.
timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RING_BIN" --iterations 3 --json c_ring.json > /dev/null \
  && timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$HEAT2D_BIN" --iterations 3 --work sleep --compute-time 0.01 --json c_heat.json > /dev/null \
  && timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$HPCG_BIN" --nx 8 --ny 8 --nz 8 --iterations 3 --warmup 0 --json c_hpcg.json > /dev/null \
  && /usr/bin/python3 - <<'PY' && pass "the apps' JSON: one set of common fields; compute_time null under --work compute" || fail "common JSON fields"
import json
common = {"app", "ranks", "kernel", "halo", "work", "compute_time", "sleep_overruns", "iterations", "iterations_requested",
          "warmup", "seconds", "verification", "checksum", "timings"}
for name in ("c_ring.json", "c_heat.json", "c_hpcg.json"):
    d = json.load(open(name))
    assert common <= d.keys(), (name, sorted(common - d.keys()))
    assert d["iterations"] == d["iterations_requested"] == 3, (name, d["iterations"])
assert json.load(open("c_ring.json"))["compute_time"] is None and json.load(open("c_hpcg.json"))["compute_time"] is None
assert json.load(open("c_heat.json"))["compute_time"] == 0.01
ring = json.load(open("c_ring.json"))
assert abs(ring["result"] - 3.141592653589793) < 1e-6 and ring["slices"] > 0 and ring["elements"] > 0, ring
PY
set +e; timeout 60 "$MPIEXEC" -np 2 --oversubscribe "$RING_BIN" --distances 0 > /dev/null 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "distances 0" err.txt && pass "bad distance rejected" || fail "bad distance: rc=$rc"
set +e; timeout 60 "$MPIEXEC" -np 2 --oversubscribe "$RING_BIN" --bytes 4294967312 > /dev/null 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "between 16" err.txt && pass "huge message size rejected" || fail "huge --bytes: rc=$rc $(cat err.txt)"
finish
