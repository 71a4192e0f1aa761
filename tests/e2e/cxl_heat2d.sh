#!/usr/bin/env bash
# The paper's Fig. 5 experiment, small: bench/cxl_heat2d.py on a 1x2 grid, tiles 32 and 64 (calibrate,
# a traced `--halo mpi` run, `ripple cxl`, then mpi, shm:ns, shm:we and shm:all measured, best of 2,
# alternated) produces its table, and the figure of its predictions.
#
# No sign of measured against predicted speed-up is checked: none is robust on a loaded 2-core
# machine. shm:we moves no halo on a 1x2 grid, so its measured speed-up is the noise alone, and it
# ranged 0.95-1.32 in runs on the development VM (shm:ns, which moves the same receives as shm:all,
# measured 2.42 where shm:all measured 1.44). What is checked instead is what holds whatever the
# timing: every row is there, and the predictions agree with the grid (1 for shm:we, shm:ns equal to
# shm:all on 1x2). docs/cxl.md has the whole table and what the model misses.
source "$(dirname "$0")/lib.sh"
: "${BUILD_DIR:?}" "${BENCH_DIR:?}"
timeout 600 /usr/bin/python3 "$BENCH_DIR/cxl_heat2d.py" "$BUILD_DIR" --grids 1x2 --tiles 32,64 --rounds 2 --updates 2e6 \
  --json rows.json --out table.md --plot cxl.png > bench.txt 2> bench_err.txt || fail "the bench: $(tail -n 5 bench_err.txt)"
/usr/bin/python3 - <<'PY' && pass "the table: every row, predictions that agree with the grid" || fail "table: $(cat bench.txt)"
import json, math
rows = json.load(open("rows.json"))
assert [(r["tile"], r["mode"]) for r in rows] == [(t, m) for t in (32, 64) for m in ("shm:ns", "shm:we", "shm:all")], rows
for r in rows:
    assert r["t_mpi"] > 0 and r["t_mode"] > 0 and math.isfinite(r["measured"]) and r["predicted"] > 0, r
    if r["mode"] == "shm:we":
        assert r["predicted"] == 1 and r["sign"] is None, r  # no west/east neighbour on 1x2
by = {(r["tile"], r["mode"]): r["predicted"] for r in rows}
assert all(by[(t, "shm:ns")] == by[(t, "shm:all")] for t in (32, 64)), by
text = open("table.md").read()
assert text.count("| 1x2 |") == 6 and "SHM_ATOMIC_LAT" in text, text
PY
/usr/bin/python3 -c 'import sys; sys.exit(open("cxl.png", "rb").read(4) != b"\x89PNG")' && pass "the figure" || fail "no figure"
finish
