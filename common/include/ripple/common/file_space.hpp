#pragma once
// A file's space, asked of the file system before the file is written. HDF5 1.10 cannot recover from
// a write that fails half-way: the file it failed to close stays half torn down, and its shutdown
// (at MPI_Finalize, or at exit) crashes on it. Writers that must not fail late therefore reserve the
// blocks first: the write then meets neither a full disk nor an exhausted quota, whatever else fills
// the file system meanwhile.
#include <cstdint>
#include <string>

namespace ripple {

struct SpaceCheck {
  bool room = true;       // false: the file system refused the space; `reason` says why
  bool reserved = false;  // the blocks are the file's (false where the file system cannot reserve)
  std::string reason;
};

// The bytes to ask for an HDF5 file whose datasets hold `data_bytes`: with a margin for its metadata
// (object headers, attributes, the superblock), 5 % and 1 MiB.
constexpr std::int64_t hdf5_file_bytes(double data_bytes) { return static_cast<std::int64_t>(1.05 * data_bytes) + (1 << 20); }

// What to do with a file already at `path`.
enum class ExistingFile {
  Replace,  // empty it first (as creating it would): its blocks count as free
  Keep,     // it was just created by the writer, which already has it open: keep what it holds
};

// Reserves `bytes` for the file at `path` (created if absent) without changing its size: a reader or
// an HDF5 driver that looks at the size still sees what was there. The file-size limit is looked at
// first. Where the file system cannot reserve, the free space it reports is compared instead; where
// it reports no size at all (ramfs, some FUSE and network file systems say 0 blocks), there is room
// as far as can be told. A path that cannot be opened, or is not a regular file, is left to the
// writer, whose own create says what it makes of it. A file emptied (Replace) and then refused is
// removed.
SpaceCheck reserve_file_space(const std::string& path, std::int64_t bytes, ExistingFile existing);

// Why this process may not write a file of `bytes` (its file-size limit, ulimit -f), or empty if it
// may. A write beyond the limit would raise SIGXFSZ, which ends the process.
std::string file_size_limit_refuses(std::int64_t bytes);

// Gives back what a reservation holds beyond the end of the written file, unless the file looks
// shorter than `at_least` bytes (what its writer knows it wrote): then a size is stale, and nothing
// is cut. Best effort.
void release_unused_space(const std::string& path, std::int64_t at_least = 0);

// Why `path` cannot be an HDF5 output file, or empty if it can as far as can be told: an existing
// directory or other file that is not a regular one (a device such as /dev/null: the MPI-IO driver
// sizes its file, and fails there only at the close), a parent directory that is missing, not a
// directory, or not writable. A link is judged by what it points to.
std::string hdf5_output_refused(const std::string& path);

// Removes the file at `path` if it is a regular file (a writer's failed output), and nothing else:
// an output path may name /dev/null or a link.
void remove_regular_file(const std::string& path);

}  // namespace ripple
