#!/usr/bin/env bash
# The module structure, held by the sources' own includes (docs/architecture.md): the tracer never
# includes analysis code, and the MPI-free code (the model's right-hand side and configuration,
# the analysis core, the trace format) includes neither <mpi.h> nor a Ripple header that does.
# (HDF5's own header brings <mpi.h> in a parallel build; that one is not counted.)
set -uo pipefail
root=${1:?usage: includes.sh SOURCE_DIR}
cd "$root" || exit 1
failures=0
complain() { echo "FAIL: $1"; failures=$((failures + 1)); }

# The Ripple headers that include <mpi.h>, directly or through another such header.
mpi_headers=()
while IFS= read -r h; do mpi_headers+=("$h"); done < <(
  grep -rl '#include <mpi.h>' --include=*.hpp common model proxyapps tracer analysis | sort)
changed=1
while [ "$changed" -eq 1 ]; do
  changed=0
  for h in $(grep -rl '#include "ripple/' --include=*.hpp common model proxyapps tracer analysis); do
    case " ${mpi_headers[*]} " in *" $h "*) continue ;; esac
    for m in "${mpi_headers[@]}"; do
      name=${m#*include/}
      if grep -q "#include \"$name\"" "$h"; then mpi_headers+=("$h"); changed=1; break; fi
    done
  done
done

mpi_free=(model/src model/include analysis/src analysis/include tracer/format)
for dir in "${mpi_free[@]}"; do
  while IFS= read -r f; do complain "$f includes <mpi.h> (an MPI-free part)"; done < <(grep -rl '#include <mpi.h>' "$dir")
  for m in "${mpi_headers[@]}"; do
    name=${m#*include/}
    while IFS= read -r f; do complain "$f includes $name, which brings <mpi.h> (an MPI-free part)"; done < <(grep -rl "#include \"$name\"" "$dir")
  done
done
while IFS= read -r f; do complain "$f includes analysis code (the tracer must not)"; done < <(grep -rl '#include "ripple/analysis/' tracer)

[ "$failures" -eq 0 ] && echo "ok: ${#mpi_free[@]} MPI-free parts free of <mpi.h> (${#mpi_headers[@]} Ripple headers bring it); the tracer free of analysis"
exit $((failures > 0))
