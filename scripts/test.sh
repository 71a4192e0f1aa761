#!/usr/bin/env bash
# The whole test suite, as CI runs it: dependencies, format check, Release build, clang-tidy
# (scripts/tidy.sh), ctest, and the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/check-format.sh
bash scripts/build.sh
bash scripts/tidy.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd build && ctest --output-on-failure -j "$(nproc)")

echo "== unit tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRIPPLE_SANITIZE=ON -DRIPPLE_BUILD_BENCH=OFF > /dev/null
cmake --build build-asan --target ripple_unit_tests -j "$(nproc)"
(cd build-asan && ctest --output-on-failure -L unit -j "$(nproc)")
