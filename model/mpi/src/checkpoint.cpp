#include "checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/model/sim_schema.hpp"

namespace ripple::model::detail {
namespace {

namespace s = sim_schema;
namespace c = sim_schema::checkpoint;
using Runs = std::vector<std::pair<std::int64_t, std::int64_t>>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kChecksum = "checksum";

// A sum over every value of the checkpoint of a hash of (dataset, position, bits): the same
// whichever ranks wrote which values, so that rank 0 can check the whole file alone on --resume (a
// flipped bit in the data would otherwise go on unseen).
class Checksum {
public:
  void add(std::size_t dataset, std::uint64_t position, double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    sum_ += mix(bits ^ mix(position + (static_cast<std::uint64_t>(dataset) << 48)));
  }
  // The values of write_runs' runs, in order.
  void add_runs(std::size_t dataset, std::int64_t row, std::int64_t n, const Runs& runs, std::span<const double> values) {
    std::size_t k = 0;
    const std::uint64_t base = row < 0 ? 0 : static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(n);
    for (const auto& [start, length] : runs)
      for (std::int64_t i = 0; i < length; ++i) add(dataset, base + static_cast<std::uint64_t>(start + i), values[k++]);
  }
  [[nodiscard]] std::uint64_t value() const { return sum_; }

private:
  static std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t sum_ = 0;
};

H5Id dataset(hid_t file, const char* name, const std::vector<hsize_t>& shape, const std::string& path) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
    throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: {} is missing", path, name));
  H5Id d(H5Dopen2(file, name, H5P_DEFAULT));
  H5Id space(d ? H5Dget_space(d.get()) : H5I_INVALID_HID);
  std::vector<hsize_t> dims(shape.size());
  if (!space || H5Sget_simple_extent_ndims(space.get()) != static_cast<int>(shape.size()) ||
      H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0 || dims != shape)
    throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: {} has the wrong shape", path, name));
  return d;
}

// The header's datasets and their shapes.
std::vector<std::pair<const char*, std::vector<hsize_t>>> layout(const CheckpointHeader& h, hsize_t n) {
  std::vector<std::pair<const char*, std::vector<hsize_t>>> sets{{c::kPhase, {n}}};
  if (h.history_entries >= 0) {
    const auto e = static_cast<hsize_t>(h.history_entries);
    sets.push_back({c::kHistoryTime, {e}});
    sets.push_back({c::kHistoryPhase, {e, n}});
    sets.push_back({c::kHistorySlope, {e, n}});
  }
  if (h.crossing_flushes >= 0) {
    sets.push_back({c::kCrossingReached, {n}});
    sets.push_back({c::kCrossingWritten, {n}});
    sets.push_back({c::kCrossingWindow, {static_cast<hsize_t>(h.crossing_columns), n}});
  }
  return sets;
}

}  // namespace

std::string checkpoint_path(const SimConfig& cfg) { return cfg.output.file + c::kSuffix; }

void write_checkpoint(MPI_Comm comm, const SimConfig& cfg, CheckpointHeader h, const LocalModel& m, const State& x,
                      const CrossingTracker* crossings) {
  const std::string path = checkpoint_path(cfg);
  const std::string tmp = path + ".tmp";
  const std::size_t n_local = x.size();
  const Runs runs = id_runs(m.graph.local_ids);
  const CrossingLog* log = crossings != nullptr ? &crossings->log() : nullptr;
  h.history_entries = m.history ? static_cast<std::int64_t>(m.history->entries()) : -1;
  if (log != nullptr) {
    // The window's columns over all ranks: from the first that some rank has not written to the
    // last that some row reached.
    std::int64_t span[2] = {n_local > 0 ? -log->written() : std::numeric_limits<std::int64_t>::min(), log->max_reached()};
    RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, span, 2, MPI_INT64_T, MPI_MAX, comm));
    h.crossing_flushes = crossings->flushes();
    h.crossing_extent = crossings->extent();
    h.crossing_first = span[0] == std::numeric_limits<std::int64_t>::min() ? 0 : -span[0];
    h.crossing_columns = std::max<std::int64_t>(0, span[1] - h.crossing_first);
  }

  ParallelH5File f = ParallelH5File::create(comm, tmp);
  const hid_t root = f.id();
  write_attribute(root, s::kSchemaAttr, std::string(c::kSchema));
  write_attribute(root, s::kVersionAttr, static_cast<std::int64_t>(c::kVersion));
  write_attribute(root, s::kConfigAttr, cfg.resolved_toml);
  write_attribute(root, s::kOscillatorsAttr, cfg.model.oscillators);
  write_attribute(root, c::kTime, h.time);
  write_attribute(root, c::kSegmentStart, h.segment_start);
  write_attribute(root, c::kStepSize, h.step_size);
  for (const auto& [name, v] : {std::pair{c::kNextOutput, h.next_output},
                                {c::kSteps, h.steps},
                                {c::kRejectedSteps, h.rejected_steps},
                                {c::kRhsEvaluations, h.rhs_evaluations},
                                {c::kHistoryEntries, h.history_entries},
                                {c::kCrossingFlushes, h.crossing_flushes},
                                {c::kCrossingExtent, h.crossing_extent},
                                {c::kCrossingFirst, h.crossing_first}})
    write_attribute(root, name, v);
  std::vector<H5Id> sets;
  for (const auto& [name, shape] : layout(h, static_cast<hsize_t>(cfg.model.oscillators)))
    sets.push_back(create_dataset(root, name, shape));
  const std::int64_t n = cfg.model.oscillators;
  Checksum sum;
  const auto put = [&](std::size_t d, std::int64_t row, const Runs& r, std::span<const double> values) {
    write_runs(f, sets[d].get(), row, r, values);
    sum.add_runs(d, row, n, r, values);
  };
  std::size_t d = 0;
  put(d++, -1, runs, x);
  if (m.history) {
    const std::size_t width = m.history->width();
    std::vector<double> times;
    for (std::size_t k = 0; k < m.history->entries(); ++k) times.push_back(m.history->time(k));
    const bool root_rank = comm_rank(comm) == 0;
    put(d, -1, root_rank ? Runs{{0, static_cast<std::int64_t>(times.size())}} : Runs{},
        root_rank ? std::span<const double>(times) : std::span<const double>());
    for (std::size_t k = 0; k < m.history->entries(); ++k) {
      const std::span<const double> e = m.history->entry(k);
      put(d + 1, static_cast<std::int64_t>(k), runs, e.first(n_local));
      put(d + 2, static_cast<std::int64_t>(k), runs, e.subspan(width, n_local));
    }
    d += 3;
  }
  if (log != nullptr) {
    std::vector<double> column(n_local);
    for (std::size_t l = 0; l < n_local; ++l) column[l] = static_cast<double>(log->reached(l));
    put(d, -1, runs, column);
    std::fill(column.begin(), column.end(), static_cast<double>(log->written()));
    put(d + 1, -1, runs, column);
    // Column by column: no copy of the window. Columns this rank wrote, or that none of its rows
    // reached, are NaN.
    for (std::int64_t k = 0; k < h.crossing_columns; ++k) {
      const std::int64_t col = h.crossing_first + k;
      if (col >= log->written() && col < log->max_reached()) {
        put(d + 2, k, runs, log->column(col));
      } else {
        std::fill(column.begin(), column.end(), kNaN);
        put(d + 2, k, runs, column);
      }
    }
  }
  std::uint64_t total = sum.value();
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm));
  write_attribute(root, kChecksum, static_cast<std::int64_t>(total));
  sets.clear();
  f.close();
  RIPPLE_MPI_CHECK(MPI_Barrier(comm));
  int ok = 1;
  if (comm_rank(comm) == 0) ok = std::rename(tmp.c_str(), path.c_str()) == 0 ? 1 : 0;
  RIPPLE_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (ok == 0) throw Error(fmt::format("cannot rename checkpoint '{}' to '{}'", tmp, path));
}

CheckpointHeader inspect_checkpoint(MPI_Comm comm, const SimConfig& cfg) {
  const std::string path = checkpoint_path(cfg);
  CheckpointHeader h;
  run_collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    if (!std::filesystem::exists(path))
      throw InputError(
          fmt::format("--resume: no checkpoint '{}' (the run finished, or never flushed): run without --resume", path));
    require_regular_file(path);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file) throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: HDF5 cannot open it", path));
    const hid_t root = file.get();
    if (read_string_attribute(root, s::kSchemaAttr, path) != c::kSchema ||
        read_int_attribute(root, s::kVersionAttr, path) != c::kVersion)
      throw InputError(fmt::format("--resume: '{}' is not a checkpoint of this version", path));
    const std::string key =
        first_changed_key(read_string_attribute(root, s::kConfigAttr, path), cfg.resolved_toml, "output.flush_seconds");
    if (!key.empty())
      throw InputError(
          fmt::format("--resume: {} differs from the configuration the run started with (checkpoint '{}'): "
                      "resume with that configuration",
                      key, path));
    h.time = read_double_attribute(root, c::kTime, path);
    h.segment_start = read_double_attribute(root, c::kSegmentStart, path);
    h.step_size = read_double_attribute(root, c::kStepSize, path);
    h.next_output = read_int_attribute(root, c::kNextOutput, path);
    h.steps = read_int_attribute(root, c::kSteps, path);
    h.rejected_steps = read_int_attribute(root, c::kRejectedSteps, path);
    h.rhs_evaluations = read_int_attribute(root, c::kRhsEvaluations, path);
    h.history_entries = read_int_attribute(root, c::kHistoryEntries, path);
    h.crossing_flushes = read_int_attribute(root, c::kCrossingFlushes, path);
    h.crossing_extent = read_int_attribute(root, c::kCrossingExtent, path);
    h.crossing_first = read_int_attribute(root, c::kCrossingFirst, path);
    const auto n = static_cast<hsize_t>(cfg.model.oscillators);
    if (h.crossing_flushes >= 0 && H5Lexists(root, c::kCrossingWindow, H5P_DEFAULT) > 0) {
      H5Id d(H5Dopen2(root, c::kCrossingWindow, H5P_DEFAULT));
      H5Id space(d ? H5Dget_space(d.get()) : H5I_INVALID_HID);
      hsize_t dims[2] = {0, 0};
      if (space && H5Sget_simple_extent_ndims(space.get()) == 2) H5Sget_simple_extent_dims(space.get(), dims, nullptr);
      h.crossing_columns = static_cast<std::int64_t>(dims[0]);
    }
    if (!(h.time >= 0 && h.time <= cfg.solver.t_end) || h.step_size <= 0 || h.next_output < 0 ||
        (h.crossing_flushes >= 0) != cfg.output.iterations)
      throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: its header is out of range", path));
    // Every value, row by row, against the checksum.
    Checksum sum;
    std::vector<double> row;
    std::size_t index = 0;
    for (const auto& [name, shape] : layout(h, n)) {
      const H5Id d = dataset(root, name, shape, path);
      const hsize_t rows = shape.size() == 2 ? shape[0] : 1;
      const hsize_t width = shape.back();
      row.resize(width);
      for (hsize_t r = 0; r < rows; ++r) {
        const hsize_t start[2] = {r, 0}, count[2] = {1, width};
        H5Id file_space(H5Dget_space(d.get()));
        H5Id memory(H5Screate_simple(1, &width, nullptr));
        if (!file_space || !memory ||
            (shape.size() == 2 && H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0) ||
            H5Dread(d.get(), H5T_NATIVE_DOUBLE, memory.get(), file_space.get(), H5P_DEFAULT, row.data()) < 0)
          throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: {} cannot be read", path, name));
        sum.add_runs(index, shape.size() == 2 ? static_cast<std::int64_t>(r) : -1, static_cast<std::int64_t>(width),
                     {{0, static_cast<std::int64_t>(width)}}, row);
      }
      ++index;
    }
    if (static_cast<std::uint64_t>(read_int_attribute(root, kChecksum, path)) != sum.value())
      throw InputError(fmt::format("--resume: checkpoint '{}' is damaged: its data do not match its checksum", path));
  });
  double reals[3] = {h.time, h.segment_start, h.step_size};
  std::int64_t counts[9] = {h.next_output,      h.steps,           h.rejected_steps, h.rhs_evaluations, h.history_entries,
                            h.crossing_flushes, h.crossing_extent, h.crossing_first, h.crossing_columns};
  RIPPLE_MPI_CHECK(MPI_Bcast(reals, 3, MPI_DOUBLE, 0, comm));
  RIPPLE_MPI_CHECK(MPI_Bcast(counts, 9, MPI_INT64_T, 0, comm));
  return {reals[0],  reals[1],  reals[2],  counts[0], counts[1], counts[2],
          counts[3], counts[4], counts[5], counts[6], counts[7], counts[8]};
}

void read_checkpoint(MPI_Comm comm, const SimConfig& cfg, const CheckpointHeader& h, LocalModel& m, State& x,
                     CrossingTracker* crossings) {
  ParallelH5File f = ParallelH5File::open(comm, checkpoint_path(cfg));
  const std::size_t n = m.graph.n_local();
  const Runs runs = id_runs(m.graph.local_ids);
  std::vector<H5Id> sets;
  for (const auto& [name, shape] : layout(h, static_cast<hsize_t>(cfg.model.oscillators)))
    sets.push_back(H5Id(RIPPLE_H5_CHECK(H5Dopen2(f.id(), name, H5P_DEFAULT))));
  std::size_t d = 0;
  x.resize(n);
  read_runs(f, sets[d++].get(), -1, runs, x);
  RIPPLE_VERIFY((h.history_entries >= 0) == static_cast<bool>(m.history), "read_checkpoint: history mismatch");
  if (m.history) {
    const auto entries = static_cast<std::size_t>(h.history_entries);
    std::vector<double> times(entries), values(m.history->width()), slopes(m.history->width());
    read_runs(f, sets[d].get(), -1, {{0, h.history_entries}}, times);
    m.history->clear();
    for (std::size_t k = 0; k < entries; ++k) {
      read_runs(f, sets[d + 1].get(), static_cast<std::int64_t>(k), runs, std::span(values).first(n));
      read_runs(f, sets[d + 2].get(), static_cast<std::int64_t>(k), runs, std::span(slopes).first(n));
      m.exchange->exchange(values.data(), values.data() + n);  // ghosts: their owners' entries
      m.exchange->exchange(slopes.data(), slopes.data() + n);
      m.history->push(times[k], values, slopes);
    }
    d += 3;
  }
  if (crossings != nullptr) {
    std::vector<double> reached(n), written(n);
    read_runs(f, sets[d].get(), -1, runs, reached);
    read_runs(f, sets[d + 1].get(), -1, runs, written);
    std::vector<double> window(static_cast<std::size_t>(h.crossing_columns) * n);
    for (std::int64_t k = 0; k < h.crossing_columns; ++k)
      read_runs(f, sets[d + 2].get(), k, runs, std::span(window).subspan(static_cast<std::size_t>(k) * n, n));
    const std::vector<std::int64_t> reached_i(reached.begin(), reached.end()), written_i(written.begin(), written.end());
    const auto value = [&](std::size_t row, std::int64_t col) {
      return window[static_cast<std::size_t>(col - h.crossing_first) * n + row];
    };
    crossings->restore(CrossingLog(reached_i, written_i, value, crossings->window_columns(), crossings->window_room()),
                       h.crossing_flushes, h.crossing_extent);
  }
  sets.clear();
  f.close();
}

}  // namespace ripple::model::detail
