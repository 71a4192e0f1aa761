#!/usr/bin/env bash
# The paper's Fig. 5 experiment, small: bench/cxl_heat2d.py on a 1x2 grid, tiles 32 and 64 (calibrate,
# a traced `--halo mpi` run, `ripple cxl`, then mpi, shm:ns, shm:we and shm:all measured, best of 5,
# alternated) produces its table, and the figure of its predictions.
#
# The sign (acceptance 5): where the model predicts an effect larger than the noise, the measured
# speed-up lies on the same side of 1. The noise is the control's: shm:we moves no halo on a 1x2
# grid, so its measured speed-up is 1 plus the noise (0.95-1.07 on an idle machine, 0.79-1.64 on a
# busy one). A row decides only where |predicted - 1| exceeds twice the control's |measured - 1|;
# a run where no row decides is run again (three times in all), and then said undecided: on a busy
# machine the scheduler moves these sub-microsecond exchanges more than the halo does. Also what
# holds whatever the timing: every row is there, and the predictions agree with the grid (1 for
# shm:we, shm:ns equal to shm:all on 1x2). docs/cxl.md has the whole table and what the model
# misses.
source "$(dirname "$0")/lib.sh"
: "${BUILD_DIR:?}" "${BENCH_DIR:?}"
for attempt in 1 2 3; do
  timeout 600 /usr/bin/python3 "$BENCH_DIR/cxl_heat2d.py" "$BUILD_DIR" --grids 1x2 --tiles 32,64 --rounds 5 --updates 1e8 \
    --json rows.json --out table.md --plot cxl.png > bench.txt 2> bench_err.txt || { fail "the bench: $(tail -n 5 bench_err.txt)"; break; }
  /usr/bin/python3 - <<'PY' > sign.txt
import json
rows = json.load(open("rows.json"))
noise = {r["tile"]: abs(r["measured"] - 1) for r in rows if r["mode"] == "shm:we"}
decided = [r for r in rows if r["mode"] != "shm:we" and abs(r["predicted"] - 1) > 2 * noise[r["tile"]]]
wrong = [r for r in decided if (r["measured"] > 1) != (r["predicted"] > 1)]
print(len(decided), len(wrong), "; ".join(f'{r["tile"]} {r["mode"]}: measured {r["measured"]:.3f}, predicted {r["predicted"]:.3f}, control {1 + noise[r["tile"]]:.3f}' for r in rows if r["mode"] != "shm:we"))
PY
  read -r decided wrong detail < sign.txt
  [ "$decided" -gt 0 ] && break
  echo "note: no row decides the sign (the control's noise exceeds every predicted effect: $detail); again"
done
if [ "$decided" -eq 0 ]; then
  echo "note: the sign is undecided on this busy machine ($detail)"
elif [ "$wrong" -eq 0 ]; then
  pass "the sign: $decided row(s) decide, each right ($detail)"
else
  fail "the sign: $wrong of $decided deciding row(s) wrong ($detail)"
fi
/usr/bin/python3 - <<'PY' && pass "the table: every row, predictions that agree with the grid" || fail "table: $(cat bench.txt)"
import json, math
rows = json.load(open("rows.json"))
assert [(r["tile"], r["mode"]) for r in rows] == [(t, m) for t in (32, 64) for m in ("shm:ns", "shm:we", "shm:all")], rows
for r in rows:
    assert r["t_mpi"] > 0 and r["t_mode"] > 0 and r["predicted"] > 0 and math.isfinite(r["measured"]), r
    if r["mode"] == "shm:we":
        assert r["predicted"] == 1 and r["sign"] is None, r  # no west/east neighbour on 1x2
by = {(r["tile"], r["mode"]): r["predicted"] for r in rows}
assert all(by[(t, "shm:ns")] == by[(t, "shm:all")] for t in (32, 64)), by
text = open("table.md").read()
assert text.count("| 1x2 |") == 6 and "SHM_ATOMIC_LAT" in text, text
PY
/usr/bin/python3 -c 'import sys; sys.exit(open("cxl.png", "rb").read(4) != b"\x89PNG")' && pass "the figure" || fail "no figure"
finish
