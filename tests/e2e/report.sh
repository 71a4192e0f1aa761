#!/usr/bin/env bash
# `ripple report` in a real browser: a small tree built without Slurm by `ripple campaign --local` and
# the batch templates (a campaign of two idle-wave scenarios, a calibration, a CXL sweep of 2 tiles
# x 2 modes, a simulation), its page rendered by headless Chromium: the page loads nothing from
# outside, the browser's DOM holds every section with its figures, and the screenshot is not blank.
# Then bad input: no directory, an empty one, a missing output folder (exit 2, one error line), and
# a figure that cannot be drawn (exit 0, the error in the page and one warning). No timings checked.
source "$(dirname "$0")/lib.sh"
: "${HEAT2D_BIN:?}" "${RING_BIN:?}"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "skipped: no chromium (apt-get install chromium; scripts/install-deps.sh has it)"; exit 77; }
jobs_dir=$(cd "$e2e_dir/../../jobs" && pwd)
mkdir bin && ln -s "$RING_BIN" "$HEAT2D_BIN" bin/  # the templates find the apps on PATH
export PATH=$PWD/bin:$PATH RIPPLE=$RIPPLE_BIN RIPPLE_JOBS=$jobs_dir PYTHON=/usr/bin/python3
sleepy=(--work sleep --compute-time 0.002 --warmup 2 --iterations 20)
# headless NAME ARGS...: Chromium as root in a container: no sandbox, no GPU, /dev/shm may be small.
headless() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$PWD/chromium-profile" --no-first-run "$@" 2>> chromium.err
}

# The fixture: what a campaign of idle-wave points (`ripple campaign --local`), a calibration and a
# CXL sweep leave behind.
cat > d.toml << 'EOF'
template = "idle-waves"
ranks = 4
[fixed]
work = "sleep"
compute-time = 0.002
warmup = 2
iterations = 20
[[variant]]
app = "ring"
delay = "1:8:0.01"
[[variant]]
app = "heat2d"
grid = "2x2"
tile = 32
delay = "2:8:0.01"
EOF
{
  "$RIPPLE_BIN" campaign d.toml --local --dir d \
    && RIPPLE_NP=2 bash "$jobs_dir/calibrate.sbatch" --out d/cal --repetitions 1 \
    && RIPPLE_NP=4 bash "$jobs_dir/cxl-sweep.sbatch" --out d/cxl --machine d/cal/machine-node.toml --tiles 32,64 \
      --halos shm:ns,shm:all --grid 2x2 "${sleepy[@]}" \
    && mkdir -p d/sim && run_np 2 sim "$RIPPLE_SOURCE_DIR/model/examples/idle_wave_tanh.toml" --quiet --set 'output.file="d/sim/wave.h5"'
} > fixture.log 2>&1 || { fail "the fixture: $(grep -v PAPI fixture.log | tail -n 8)"; finish; }
pass "the fixture: 2 scenarios, a machine file, a CXL sweep, a simulation"

rc=0
"$RIPPLE_BIN" report d -o d/report.html > report.out 2> report.err || rc=$?
if [ "$rc" -eq 0 ] && grep -q '^report: 2 scenarios, 1 CXL sweeps, 1 machine files, 1 simulations, .* 0 figures failed -> d/report.html$' report.out \
  && [ ! -s report.err ]; then
  pass "ripple report: exit 0, one summary line, no warnings"
else
  fail "ripple report: exit $rc: $(cat report.out report.err)"
fi

# Self-contained: no URL that a browser would fetch (data: and in-page #anchors only), no script, no link.
/usr/bin/python3 - d/report.html << 'PY' && pass "the page loads nothing from outside" || fail "the page names outside resources"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
bad = [m.group(0) for m in re.finditer(r"""(?:\b(?:src|href|xlink:href|action|poster)\s*=\s*["']?|url\(\s*["']?)(?!data:|#)([^"')\s>]*)""", page)
       if m.group(1)]
assert not bad, bad[:5]
assert not re.search(r"<script|<link|<iframe|<object|<embed|@import", page, re.I), "script, link or import"
assert not re.search(r"https?://(?!www\.w3\.org/)", page), re.search(r"https?://\S{0,60}", page).group(0)
PY

# The browser's DOM: every section, each with its figures (inline SVG) and tables.
headless --dump-dom "file://$PWD/d/report.html" > dom.html
/usr/bin/python3 - dom.html << 'PY' && pass "the browser's DOM: every section, its figures and tables" || fail "the DOM: $(tail -n 3 chromium.err)"
import sys
from html.parser import HTMLParser

class Sections(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.found = [], {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.stack.append(a.get("id"))
            self.found[a.get("id")] = {"svg": 0, "table": 0, "pre": 0, "error": 0, "links": []}
        elif self.stack:
            s = self.found[self.stack[-1]]
            if tag in s:
                s[tag] += 1
            if tag == "pre" and "error" in (a.get("class") or ""):
                s["error"] += 1
            if tag == "a":
                s["links"].append(a.get("href"))
    def handle_endtag(self, tag):
        if tag == "section" and self.stack:
            self.stack.pop()

p = Sections()
p.feed(open(sys.argv[1], encoding="utf-8").read())
f = p.found
want = {"summary": (0, 1), "campaign": (0, 1), "scenario-000": (3, 2), "scenario-001": (3, 2), "cxl-cxl": (2, 1),
        "machines": (0, 0), "simulations": (1, 0), "provenance": (0, 0)}
for name, (svgs, tables) in want.items():
    assert name in f, (name, sorted(f))
    assert f[name]["svg"] >= svgs and f[name]["table"] >= tables and not f[name]["error"], (name, f[name])
assert f["machines"]["pre"] == 1 and f["provenance"]["pre"] == 4, (f["machines"], f["provenance"])
for name in ("scenario-000", "scenario-001", "cxl-cxl"):  # each names the provenance of its numbers
    assert any(h and h.startswith("#prov-") for h in f[name]["links"]), (name, f[name]["links"])
assert "#machine-cal-machine-node-toml" in f["cxl-cxl"]["links"], f["cxl-cxl"]["links"]
assert "#scenario-000" in f["campaign"]["links"] and "#scenario-001" in f["campaign"]["links"], f["campaign"]["links"]
PY

# The screenshot: drawn, not blank (ink on a good part of it, the figures' colours).
headless --window-size=1280,6000 --screenshot="$PWD/d/report.png" "file://$PWD/d/report.html" > /dev/null
/usr/bin/python3 - d/report.png << 'PY' && pass "the screenshot: ink and colour" || fail "the screenshot: $(tail -n 3 chromium.err)"
import sys
import matplotlib.image as mpimg
import numpy as np
im = mpimg.imread(sys.argv[1])[..., :3]
assert im.shape[1] == 1280, im.shape
ink = (im.min(axis=2) < 0.9).mean()
colours = len(np.unique((im * 15).round().reshape(-1, 3), axis=0))
assert ink > 0.05 and colours >= 20, (ink, colours)
print(f"  screenshot {im.shape[1]}x{im.shape[0]}: {100 * ink:.0f} % ink, {colours} colours (of 16^3)")
PY

# Bad input: one error line, exit 2; a figure that fails: exit 0, its error in the page, one warning.
expect_exit2() {
  local name=$1 rc=0
  shift
  "$RIPPLE_BIN" report "$@" > bad.out 2> bad.err || rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l < bad.err)" -eq 1 ] && grep -q '^ripple: error: ' bad.err \
    && pass "$name: exit 2, one line: $(cat bad.err)" || fail "$name: exit $rc: $(cat bad.err)"
}
expect_exit2 "no such directory" nowhere -o x.html
mkdir empty && touch empty/notes.txt
expect_exit2 "a directory of nothing Ripple wrote" empty -o x.html
expect_exit2 "the output's folder missing" d -o no/such/folder/report.html
mkdir -p broken && cp -r d/points/000 broken/ && head -c 2000 d/points/000/compare.h5 > broken/000/compare.h5
rc=0
"$RIPPLE_BIN" report broken -o broken.html > broken.out 2> broken.err || rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c 'warning: figure' broken.err)" -eq 2 ] && grep -q 'figure failed' broken.html \
  && grep -q '2 figures failed' broken.out && pass "a figure that fails: in the page, warned, exit 0" \
  || fail "a figure that fails: exit $rc: $(cat broken.out broken.err)"
finish
