#!/usr/bin/env bash
# clang-tidy (the checks in .clang-tidy) over Ripple's own C++: every module's sources and the
# headers they include. Any finding fails.
#   bash scripts/tidy.sh            the files changed since the revision in .ci/tidy-clean (the last
#                                   at which the whole tree was clean), and the sources that
#                                   include a changed header; the whole tree if .clang-tidy or this
#                                   script changed since; what the test command runs
#   bash scripts/tidy.sh --all      the whole tree (about 25 minutes on 2 cores); when it is clean,
#                                   commit the revision it printed into .ci/tidy-clean
#   bash scripts/tidy.sh --files F...  those sources
# Needs a configured build (scripts/build.sh; $RIPPLE_BUILD_DIR): its compile_commands.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RIPPLE_BUILD_DIR:-$root/build}
cd "$root"
[ -f "$build/compile_commands.json" ] || { echo "tidy: no $build/compile_commands.json: run scripts/build.sh first" >&2; exit 2; }
modules='common|model|tracer|proxyapps|analysis|jobs|cli|tests|bench'

# Sources that clang 14 (Debian 12's clang-tidy) cannot compile, though GCC 12 does: Boost.Odeint's
# algebra dispatch over the model's MPI algebra, and GCC's target_clones on a declared function.
unparsable='^(model/mpi/src/simulator\.cpp|tests/mpi/distribution_test\.cpp|model/src/rhs_kernel\.cpp)$'

# Every C++ source the build compiles, relative to the root (generated ones left out).
mapfile -t all < <(/usr/bin/python3 - "$build/compile_commands.json" "$root" "$unparsable" <<'PY'
import json, os, re, sys
root = sys.argv[2] + "/"
for f in sorted({e["file"] for e in json.load(open(sys.argv[1]))}):
    rel = os.path.relpath(f, root)
    if f.startswith(root) and f.endswith(".cpp") and not rel.startswith("build") and not re.match(sys.argv[3], rel):
        print(rel)
PY
)

if [ "${1:-}" = "--all" ]; then
  files=("${all[@]}")
elif [ "${1:-}" = "--files" ]; then
  shift
  files=("$@")
else
  since=$(cat .ci/tidy-clean)
  if ! git cat-file -e "$since^{commit}" 2> /dev/null; then
    echo "tidy: .ci/tidy-clean names $since, which this clone does not have: checking the whole tree"
    files=("${all[@]}")
  elif [ -n "$(git diff --name-only "$since" -- .clang-tidy scripts/tidy.sh)" ]; then
    echo "tidy: the checks changed since $since: checking the whole tree"
    files=("${all[@]}")
  else
    # Changed sources, and the sources that include a changed header, directly or not: from the
    # build's own dependency records (ninja -t deps), else by the header's name in the source.
    changed=$({ git diff --name-only "$since" -- '*.cpp' '*.hpp' '*.h'
      git ls-files --others --exclude-standard -- '*.cpp' '*.hpp' '*.h'; } | sort -u)
    mapfile -t files < <(CHANGED="$changed" /usr/bin/python3 - "$root" "$build" "${all[@]}" <<'PY'
import os, re, subprocess, sys
root, build, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
changed = {line.strip() for line in os.environ["CHANGED"].splitlines() if line.strip()}
headers = {c for c in changed if not c.endswith(".cpp")}
deps = {}  # source -> the headers it was compiled with, relative to the root
try:
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
except (OSError, subprocess.CalledProcessError):
    out = ""
for block in out.split("\n\n"):
    paths = [os.path.relpath(p.strip(), root) for p in block.splitlines()[1:] if p.strip().startswith(root + "/")]
    if paths:
        deps.setdefault(paths[0], set()).update(paths[1:])
for f in sources:
    if f in changed:
        print(f)
    elif f in deps:
        if deps[f] & headers:
            print(f)
    elif any(re.search(r'[/"]' + re.escape(os.path.basename(h)) + '"', open(os.path.join(root, f)).read()) for h in headers):
        print(f)
PY
    )
  fi
fi
[ "${#all[@]}" -gt 0 ] || { echo "tidy: no source of $root in $build/compile_commands.json" >&2; exit 2; }
echo "tidy: ${#files[@]} of ${#all[@]} sources, at $(git rev-parse HEAD)"
[ "${#files[@]}" -gt 0 ] || exit 0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -I{} clang-tidy -p "$build" --quiet --warnings-as-errors='*' \
    --header-filter="^$(printf '%s' "$root" | sed 's/[][\\.*^$+?(){}|]/\\&/g')/($modules)/" {} > "$log" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "tidy: findings above (clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p'))" >&2
  exit 1
fi
echo "tidy: clean"
