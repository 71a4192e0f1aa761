#pragma once
// Where an installed Ripple keeps its parts, found from the running executable so that a prefix
// can be moved (or unpacked from the .deb) without the build tree: bin/ripple finds lib/ and the
// Python package through the relative paths CMake computed from GNUInstallDirs.
#include <filesystem>

namespace ripple {

// Data is share/ripple (examples, docs, the Slurm templates in jobs/).
enum class InstallDir { Lib, Python, Data };

// The directory `which` of the installation holding this executable (/proc/self/exe, so a symlink
// to bin/ripple works too); empty if the executable cannot be found. The directory need not
// exist: a program run from the build tree gets a path that does not, and falls back to the tree.
std::filesystem::path installed_dir(InstallDir which);

}  // namespace ripple
