#pragma once
// The trace file's writes at MPI_Finalize as steps every rank agrees on (trace_writer.cpp): a step
// that failed anywhere throws the same error on every rank at the same point, so that all ranks
// leave HDF5's collectives in step and the incomplete file is removed.
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "recorder_state.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "trace_file_guard.hpp"

namespace ripple::trace::detail {

// A step of the write (an HDF5 call, or a helper of several: attributes, provenance, the file's
// creation, its close), agreed on: if it failed anywhere, or if a call on the file failed there (the
// wrappers keep I/O errors from HDF5, trace_file_guard.hpp, so that every rank goes through HDF5's
// collectives alike), every rank throws the lowest failing rank's reason at the same point and
// unwinds (objects, then the file) in step. From then on no rank writes to the file, so that HDF5
// closes it cleanly; the incomplete file is removed.
template <class Step>
void agreed(Step&& step) {
  try {
    run_collectively(MPI_COMM_WORLD, [&] {
      step();
      if (*trace_file_error() != '\0')
        throw Error("rank " + std::to_string(g_state->rank) + " could not write to the file: " + trace_file_error());
    });
  } catch (const AgreedError&) {
    discard_trace_file_writes();
    throw;
  }
}
template <class Value>
void agreed_attribute(hid_t obj, const std::string& name, const Value& value) {
  agreed([&] { write_attribute(obj, name, value); });
}
// A failed HDF5 call (`ok` false), agreed on.
void h5_agreed(bool ok, const char* call);

// A call that creates an object: where it worked but failed elsewhere, the object is closed again
// before the throw (an open object would make this rank's H5Fclose refuse at once, while the failing
// rank waits in its collective close).
hid_t h5_agreed_id(hid_t id, const char* call);
#define RIPPLE_H5_AGREED_ID(call) h5_agreed_id((call), #call)
#define RIPPLE_H5_AGREED(call) h5_agreed((call) >= 0, #call)

// Local HDF5 calls (dataspaces, selections, types) run inside agreed steps too: a rank whose local
// call failed must not skip the collective call that follows while the others wait in it.

// A dataset of `rows` rows, 1-D or of `width` columns, created collectively.
H5Id create_table(const ParallelH5File& file, const char* name, hid_t type, std::int64_t rows, hsize_t width = 0);

// Writes rows [start, start + count) of the dataset ds, 1-D or of `width` columns: every rank calls
// it, some with nothing to write, and all agree on the outcome. HDF5 rejects a null buffer even for an
// empty selection, and a write to a dataset without elements.
void write_slice(const ParallelH5File& file, hid_t ds, hid_t type, hsize_t start, hsize_t count, const void* data,
                 hsize_t width = 0);

// A [ranks] dataset to which every rank writes its own entry, collectively.
void write_per_rank(const ParallelH5File& file, const char* name, hid_t type, const void* value, int rank, int ranks);

// An HDF5 type of the writer's, made in an agreed step.
template <class Make>
H5Id agreed_type(Make&& make) {
  H5Id type;
  agreed([&] { type = make(); });
  return type;
}

// A table's `rows` rows of this rank, in rounds of at most `per_round`, so that memory stays
// bounded: round(done, n) handles rows [done, done + n). As many rounds as the rank with the most
// rows needs, since every rank joins every round's collective write (some with n = 0).
template <class Round>
void in_rounds(std::int64_t rows, std::int64_t per_round, Round&& round) {
  std::int64_t rounds = (rows + per_round - 1) / per_round;
  PMPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::int64_t done = 0;
  for (std::int64_t r = 0; r < rounds; ++r) {
    const std::int64_t n = std::clamp<std::int64_t>(rows - done, 0, per_round);
    round(done, static_cast<std::size_t>(n));
    done += n;
  }
}

// Where this rank's `rows` go in a table of every rank's rows, in rank order (collective).
struct RankSlice {
  std::int64_t offset = 0, total = 0;
};
RankSlice rank_slice(std::int64_t rows, int rank);

// Attribute values must be identical on every rank: rank 0's version of a per-rank string.
std::string rank0_string(std::string v);

}  // namespace ripple::trace::detail
