# Helpers for the installation tests (sourced): the e2e helpers, and the prefix the fixture made.
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
: "${RIPPLE_PREFIX:?}" "${RIPPLE_BUILD_DIR:?}" "${CMAKE_COMMAND:=cmake}"
install_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# tree DIR: every file and link under DIR, relative, sorted; not the bytecode python3 writes when a
# test imports the installed package.
tree() { (cd "$1" && find . -name __pycache__ -prune -o \( -type f -o -type l \) -print | LC_ALL=C sort); }
