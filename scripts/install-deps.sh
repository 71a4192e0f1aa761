#!/usr/bin/env bash
# Installs Ripple's build and test dependencies from Debian 12 packages when any is missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
  libboost-dev libtomlplusplus-dev libcli11-dev libfmt-dev librandom123-dev libmetis-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libnuma-dev libhwloc-dev libpapi-dev
  clang-format clang-tidy python3 python3-numpy python3-scipy python3-h5py python3-matplotlib
  slurmctld slurmd slurm-client munge lmod
  chromium fonts-dejavu-core  # tests/e2e/report.sh renders the report headless (no fonts come with it)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
