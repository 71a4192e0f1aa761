#include "ripple/analysis/trace_reader.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/json_check.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/trace_schema.hpp"

namespace ripple::analysis {
namespace {

// An HDF5 call on the file being read, about `what`: where it fails, the file is at fault (damaged,
// or not what it claims to be), and the message says so, with its name.
template <class Id>
Id from_file(Id id, const std::string& path, const char* what) {
  if (id < 0) throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, what));
  return id;
}
// The dataset or group `name` of the file, which must be there.
H5Id open_dataset(hid_t file, const char* name, const std::string& path) {
  if (H5Lexists(file, "/ranks", H5P_DEFAULT) <= 0 && std::strncmp(name, "/ranks/", 7) == 0)
    throw InputError(fmt::format("{}: group /ranks is missing", path));
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) throw InputError(fmt::format("{}: dataset {} is missing", path, name));
  return H5Id(from_file(H5Dopen2(file, name, H5P_DEFAULT), path, name));
}
H5Id open_group(hid_t file, const char* name, const std::string& path) {
  return H5Id(from_file(H5Gopen2(file, name, H5P_DEFAULT), path, name));
}

// A 1-D dataset's length, after checking it exists and is 1-D.
hsize_t length_of(hid_t file, const char* name, const std::string& path) {
  H5Id ds = open_dataset(file, name, path);
  H5Id space(from_file(H5Dget_space(ds.get()), path, name));
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw InputError(fmt::format("{}: dataset {} is not 1-D", path, name));
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  return n;
}

std::vector<std::int64_t> read_int64(hid_t file, const char* name, hsize_t expected, const std::string& path) {
  if (length_of(file, name, path) != expected) throw InputError(fmt::format("{}: dataset {} has the wrong length", path, name));
  H5Id ds = open_dataset(file, name, path);
  H5Id type(from_file(H5Dget_type(ds.get()), path, name));
  if (H5Tget_class(type.get()) != H5T_INTEGER) throw InputError(fmt::format("{}: dataset {} is not integer", path, name));
  std::vector<std::int64_t> v(expected);
  if (expected > 0 && H5Dread(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, name));
  return v;
}

// Per-rank counts (events lost, samples dropped, ...): none negative but -1 where `unknown` may be
// said, and the sum of the known ones an int64.
void check_counts(const std::vector<std::int64_t>& counts, const char* name, const std::string& path, bool unknown) {
  std::int64_t sum = 0;
  for (const std::int64_t c : counts)
    if ((c < 0 && !(unknown && c == -1)) || (c > 0 && __builtin_add_overflow(sum, c, &sum)))
      throw InputError(fmt::format("{}: {} holds an impossible count ({})", path, name, c));
}

// A numeric 1-D (or, with `width`, [n, width]) dataset of length n, converted to T.
template <class T>
std::vector<T> read_column(hid_t file, const char* name, hid_t mem_type, hsize_t n, hsize_t width, const std::string& path) {
  H5Id ds = open_dataset(file, name, path);
  H5Id space(from_file(H5Dget_space(ds.get()), path, name));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[2] = {0, 0};
  if (rank != (width > 0 ? 2 : 1) || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 || dims[0] != n ||
      (width > 0 && dims[1] != width))
    throw InputError(fmt::format("{}: dataset {} has the wrong shape", path, name));
  H5Id type(from_file(H5Dget_type(ds.get()), path, name));
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) throw InputError(fmt::format("{}: dataset {} is not numeric", path, name));
  std::vector<T> v(n * std::max<hsize_t>(width, 1));
  if (!v.empty() && H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, name));
  return v;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

// Rows [first, first + count) of the table `name` of `rows` rows (clipped to it), in the memory
// type `mtype`: read by field name, so a file's own layout does not matter.
template <class Row>
std::vector<Row> read_rows(const std::string& path, const char* name, hid_t mtype, std::int64_t first, std::int64_t count,
                           std::int64_t rows) {
  first = std::clamp<std::int64_t>(first, 0, rows);
  count = std::clamp<std::int64_t>(count, 0, rows - first);
  std::vector<Row> out(static_cast<std::size_t>(count));
  if (count == 0) return out;
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (file.get() < 0) throw InputError(fmt::format("{}: cannot open (truncated or corrupted?)", path));
  H5Id ds = open_dataset(file.get(), name, path);
  H5Id space(from_file(H5Dget_space(ds.get()), path, name));
  const auto start = static_cast<hsize_t>(first), n = static_cast<hsize_t>(count);
  RIPPLE_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr));
  H5Id mem(RIPPLE_H5_CHECK(H5Screate_simple(1, &n, nullptr)));
  if (H5Dread(ds.get(), mtype, mem.get(), space.get(), H5P_DEFAULT, out.data()) < 0)
    throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, name));
  return out;
}

}  // namespace

TraceReader::TraceReader(const std::string& path, bool load_tables) : path_(path) {
  namespace sc = trace::schema;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw InputError(fmt::format("{}: not an HDF5 file (missing, truncated or corrupted)", path));
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (file.get() < 0) throw InputError(fmt::format("{}: cannot open (truncated or corrupted?)", path));
  if (read_string_attribute(file.get(), "schema", path) != sc::kSchema)
    throw InputError(fmt::format("{}: not a {} file", path, sc::kSchema));
  const std::int64_t version = read_int_attribute(file.get(), "schema_version", path);
  if (version != sc::kVersion)
    throw InputError(fmt::format("{}: schema_version {} but this reader knows {}", path, version, sc::kVersion));
  sources_ = read_string_attribute(file.get(), sc::kSourcesAttr, path);
  if (!is_json_object(sources_))  // `info --json` passes it on inside its own output
    throw InputError(fmt::format("{}: the attribute {} is not a JSON object (damaged?)", path, sc::kSourcesAttr));
  std::stringstream names(read_string_attribute(file.get(), "call_names", path));
  for (std::string line; std::getline(names, line);) call_names_.push_back(line);

  const hsize_t ranks = length_of(file.get(), sc::kRankCount, path);
  if (ranks == 0) throw InputError(fmt::format("{}: the trace has no ranks", path));
  count_ = read_int64(file.get(), sc::kRankCount, ranks, path);
  offset_ = read_int64(file.get(), sc::kRankOffset, ranks, path);
  lost_ = read_int64(file.get(), sc::kRankLost, ranks, path);
  const hsize_t n = length_of(file.get(), sc::kEvents, path);
  std::int64_t expect = 0;
  for (hsize_t r = 0; r < ranks; ++r) {
    if (count_[r] < 0 || offset_[r] != expect || __builtin_add_overflow(expect, count_[r], &expect))
      throw InputError(fmt::format("{}: /ranks/offset and /ranks/count disagree", path));
  }
  check_counts(lost_, sc::kRankLost, path, false);
  if (static_cast<hsize_t>(expect) != n)
    throw InputError(fmt::format("{}: /events holds {} events, /ranks/count says {}", path, n, expect));

  // Read into our own memory layout by field name: a file with a missing field is rejected.
  H5Id ds = open_dataset(file.get(), sc::kEvents, path);
  H5Id ftype(from_file(H5Dget_type(ds.get()), path, sc::kEvents));
  if (n > 0 && H5Dget_storage_size(ds.get()) < n * H5Tget_size(ftype.get()))
    throw InputError(fmt::format("{}: /events claims {} events but stores fewer bytes (truncated or corrupted)", path, n));
  if (H5Tget_class(ftype.get()) != H5T_COMPOUND) throw InputError(fmt::format("{}: /events is not a table", path));
  for (const auto& f : sc::kFields)
    if (H5Tget_member_index(ftype.get(), f.name) < 0)
      throw InputError(fmt::format("{}: /events lacks the field '{}'", path, f.name));
  event_count_ = static_cast<std::int64_t>(n);
  if (load_tables) events_ = read_events(0, event_count_);

  if (H5Lexists(file.get(), sc::kPlacement, H5P_DEFAULT) > 0) {
    if (length_of(file.get(), sc::kPlacement, path) != ranks)
      throw InputError(fmt::format("{}: {} does not have one row per rank", path, sc::kPlacement));
    H5Id pds = open_dataset(file.get(), sc::kPlacement, path);
    H5Id ptype(from_file(H5Dget_type(pds.get()), path, sc::kPlacement));
    if (H5Tget_class(ptype.get()) != H5T_COMPOUND) throw InputError(fmt::format("{}: {} is not a table", path, sc::kPlacement));
    placement_.resize(ranks);
    H5Id mtype2 = trace::placement_h5_type();
    if (H5Dread(pds.get(), mtype2.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, placement_.data()) < 0)
      throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, sc::kPlacement));
    for (auto& p : placement_) {  // never trust a file's strings to be terminated
      p.host[sizeof p.host - 1] = '\0';
      p.binding[sizeof p.binding - 1] = '\0';
      if (p.node < -1 || p.node >= static_cast<std::int64_t>(ranks))  // -1: unknown; at most one node per rank
        throw InputError(fmt::format("{}: {} names node {} of a trace of {} ranks", path, sc::kPlacement, p.node, ranks));
    }
  }
  read_rank_sources(file.get(), path, ranks);
  read_counters(file.get(), path);
  check_samples(file.get(), path, load_tables);
  losses_.resize(ranks);
  const auto per_rank = [&](const char* name, std::int64_t Losses::*field) {
    if (H5Lexists(file.get(), name, H5P_DEFAULT) <= 0) return;  // older files: unknown
    const std::vector<std::int64_t> v = read_int64(file.get(), name, ranks, path);
    check_counts(v, name, path, true);  // recovered files: -1
    for (hsize_t r = 0; r < ranks; ++r) losses_[r].*field = v[r];
  };
  per_rank(sc::kSamplesLost, &Losses::samples_lost);
  per_rank(sc::kSamplesDropped, &Losses::samples_dropped);
  per_rank(sc::kCountersLost, &Losses::counter_samples);
  per_rank(sc::kRequestsUntracked, &Losses::requests_untracked);
  per_rank(sc::kPeersUntranslated, &Losses::peers_untranslated);
}

void TraceReader::read_rank_sources(hid_t file, const std::string& path, std::uint64_t ranks) {
  const char* name = trace::schema::kRankSources;
  if (H5Lexists(file, "/ranks", H5P_DEFAULT) <= 0 || H5Lexists(file, name, H5P_DEFAULT) <= 0) return;  // older files
  if (length_of(file, name, path) != ranks) throw InputError(fmt::format("{}: {} does not have one row per rank", path, name));
  H5Id ds = open_dataset(file, name, path);
  H5Id type(from_file(H5Dget_type(ds.get()), path, name));
  // Fixed-length strings of a sane width (a rank's JSON takes a few hundred bytes), stored whole.
  constexpr std::size_t kMaxWidth = 1 << 16;
  const std::size_t width = H5Tget_size(type.get());
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0 || width == 0 || width > kMaxWidth)
    throw InputError(fmt::format("{}: {} is not a table of fixed-length strings of at most {} bytes", path, name, kMaxWidth));
  if (H5Dget_storage_size(ds.get()) < ranks * width)
    throw InputError(fmt::format("{}: {} stores fewer bytes than its rows take (truncated or corrupted)", path, name));
  std::string all(ranks * width, '\0');
  H5Id mtype = trace::text_h5_type(width);
  if (H5Dread(ds.get(), mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) < 0)
    throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, name));
  rank_sources_.resize(ranks);
  for (std::uint64_t r = 0; r < ranks; ++r) {
    const char* row = all.data() + r * width;
    rank_sources_[r].assign(row, ::strnlen(row, width));  // zero-padded, or as wide as the row
    if (!is_json_object(rank_sources_[r]))
      throw InputError(fmt::format("{}: rank {}'s row of {} is not a JSON object (damaged?)", path, r, name));
  }
}

void TraceReader::read_counters(hid_t file, const std::string& path) {
  if (H5Lexists(file, "/counters", H5P_DEFAULT) <= 0) return;
  H5Id group = open_group(file, "/counters", path);
  counters_.events = lines(read_string_attribute(group.get(), "events", path));
  counters_.status = read_string_attribute(group.get(), "status", path);
  const hsize_t n = length_of(file, "/counters/time", path);
  counters_.time = read_column<double>(file, "/counters/time", H5T_NATIVE_DOUBLE, n, 0, path);
  counters_.iteration = read_column<std::int32_t>(file, "/counters/iteration", H5T_NATIVE_INT32, n, 0, path);
  counters_.rank = read_column<std::int32_t>(file, "/counters/rank", H5T_NATIVE_INT32, n, 0, path);
  if (!counters_.events.empty() && H5Lexists(file, "/counters/values", H5P_DEFAULT) > 0)  // absent: values_missing says why
    counters_.values = read_column<std::int64_t>(file, "/counters/values", H5T_NATIVE_INT64, n, counters_.events.size(), path);
  for (const auto r : counters_.rank)
    if (r < 0 || r >= ranks()) throw InputError(fmt::format("{}: a counter sample names rank {} of {}", path, r, ranks()));
}

void TraceReader::check_samples(hid_t file, const std::string& path, bool load) {
  namespace sc = trace::schema;
  if (H5Lexists(file, "/samples", H5P_DEFAULT) <= 0) return;
  H5Id group = open_group(file, "/samples", path);
  samples_status_ = read_string_attribute(group.get(), "status", path);
  level_names_ = lines(read_string_attribute(group.get(), "level_names", path));
  const hsize_t n = length_of(file, sc::kSamples, path);
  H5Id ds = open_dataset(file, sc::kSamples, path);
  H5Id ftype(from_file(H5Dget_type(ds.get()), path, sc::kSamples));
  if (H5Tget_class(ftype.get()) != H5T_COMPOUND) throw InputError(fmt::format("{}: {} is not a table", path, sc::kSamples));
  for (const char* field : {"time", "ip", "addr", "weight", "data_src", "rank", "iteration", "cpu", "tid", "level", "hit"})
    if (H5Tget_member_index(ftype.get(), field) < 0)
      throw InputError(fmt::format("{}: {} lacks the field '{}'", path, sc::kSamples, field));
  if (n > 0 && H5Dget_storage_size(ds.get()) < n * H5Tget_size(ftype.get()))
    throw InputError(
        fmt::format("{}: {} claims {} samples but stores fewer bytes (truncated or corrupted)", path, sc::kSamples, n));
  sample_count_ = static_cast<std::int64_t>(n);
  if (load) samples_ = read_samples(0, sample_count_);
}

std::vector<trace::SampleRecord> TraceReader::read_samples(std::int64_t first, std::int64_t count) const {
  H5Id type = trace::sample_h5_type();
  std::vector<trace::SampleRecord> out =
      read_rows<trace::SampleRecord>(path_, trace::schema::kSamples, type.get(), first, count, sample_count_);
  for (const auto& x : out)
    if (x.rank < 0 || x.rank >= ranks())
      throw InputError(fmt::format("{}: a sample names rank {} of {}", path_, x.rank, ranks()));
  return out;
}

std::vector<trace::Event> TraceReader::read_events(std::int64_t first, std::int64_t count) const {
  H5Id type = trace::event_h5_type();
  std::vector<trace::Event> out = read_rows<trace::Event>(path_, trace::schema::kEvents, type.get(), first, count, event_count_);
  for (const auto& e : out)
    if (e.rank < 0 || e.rank >= ranks())
      throw InputError(fmt::format("{}: an event names rank {} of {}", path_, e.rank, ranks()));
  return out;
}

int TraceReader::nodes() const {
  int n = 0;
  for (const auto& p : placement_) n = std::max(n, p.node + 1);
  return n;
}

std::string TraceReader::call_name(std::int32_t call) const {
  return call >= 0 && static_cast<std::size_t>(call) < call_names_.size() ? call_names_[static_cast<std::size_t>(call)]
                                                                          : "unknown";
}

}  // namespace ripple::analysis
