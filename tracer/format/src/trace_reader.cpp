#include "ripple/trace/trace_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <span>
#include <sstream>
#include <string_view>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/json_check.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/trace_schema.hpp"

namespace ripple::trace {
namespace {

// The longest call name accepted: MPI's longest is 30 bytes; a damaged file's megabyte-long name would
// widen every row of `trace info`'s table to it.
constexpr std::size_t kMaxCallName = 256;

// An HDF5 call on the file being read, about `what`: where it fails, the file is at fault (damaged,
// or not what it claims to be), and the message says so, with its name.
template <class Id>
Id from_file(Id id, const std::string& path, const char* what) {
  if (id < 0) throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, what));
  return id;
}

// A trace is one file: an external link would have HDF5 open another one (and a FIFO named there
// would block the reader for ever), so every lookup and open refuses to traverse one. The lists
// live as long as the process.
herr_t refuse_external_link(const char*, const char*, const char*, const char*, unsigned*, hid_t, void*) { return -1; }
hid_t access_list(hid_t cls) {
  const hid_t list = RIPPLE_H5_CHECK(H5Pcreate(cls));
  RIPPLE_H5_CHECK(H5Pset_elink_cb(list, refuse_external_link, nullptr));
  return list;
}
hid_t dataset_access() {
  static const hid_t list = access_list(H5P_DATASET_ACCESS);  // a link access list too
  return list;
}
hid_t group_access() {
  static const hid_t list = access_list(H5P_GROUP_ACCESS);
  return list;
}

// Whether the object `name` (absolute) is in the file, reached through links within it: each
// component of the path is looked at before it is traversed, and a link to another file (or of a
// user-defined kind) is refused with its name.
bool exists(hid_t file, const char* name, const std::string& path) {
  std::string prefix;
  for (std::string_view rest(name); !rest.empty();) {
    const std::size_t start = rest.find_first_not_of('/');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::string_view part = rest.substr(0, rest.find('/'));
    rest.remove_prefix(part.size());
    prefix.append("/").append(part);
    if (H5Lexists(file, prefix.c_str(), dataset_access()) <= 0) return false;  // negative: a dataset above it, say
    H5L_info_t info{};
    if (H5Lget_info(file, prefix.c_str(), &info, dataset_access()) < 0) return false;
    if (info.type != H5L_TYPE_HARD && info.type != H5L_TYPE_SOFT)
      throw InputError(fmt::format("{}: {} is a {} (refused: a trace is one file)", path, prefix,
                                   info.type == H5L_TYPE_EXTERNAL ? "link to another file" : "user-defined link"));
  }
  return true;
}

// The dataset or group `name` of the file, which must be there.
H5Id open_dataset(hid_t file, const char* name, const std::string& path) {
  const std::size_t ranks_group = std::strlen(schema::kRanks);
  if (std::strncmp(name, schema::kRanks, ranks_group) == 0 && name[ranks_group] == '/' && !exists(file, schema::kRanks, path))
    throw InputError(fmt::format("{}: group /ranks is missing", path));
  if (!exists(file, name, path)) throw InputError(fmt::format("{}: dataset {} is missing", path, name));
  return H5Id(from_file(H5Dopen2(file, name, dataset_access()), path, name));
}
H5Id open_group(hid_t file, const char* name, const std::string& path) {
  return H5Id(from_file(H5Gopen2(file, name, group_access()), path, name));
}

// Refuses, before anything is allocated for it, a dataset whose data are not all in this file:
// external storage (H5Dget_storage_size reports the size declared, and reading may block on a FIFO
// or never end on /dev/zero) or a virtual layout (other files again); a declared size (every
// element, at the file's element size) that overflows or exceeds the whole file; or fewer bytes
// stored than declared (chunks never written: a few kilobytes that claim gigabytes of rows). So
// what the reader holds grows with the file's size, never with what it only claims (a crafted file
// of 8-bit per-rank columns still costs `trace info` some 60 bytes per byte). Compressed datasets, which
// Ripple never writes, store fewer bytes than they declare and are refused with them.
void check_stored(hid_t file, hid_t ds, const char* name, const std::string& path) {
  H5Id plist(from_file(H5Dget_create_plist(ds), path, name));
  const int external = H5Pget_external_count(plist.get());
  const H5D_layout_t layout = H5Pget_layout(plist.get());
  if (external != 0 || layout == H5D_VIRTUAL || layout < 0)
    throw InputError(
        fmt::format("{}: dataset {} keeps its data outside the file (external or virtual storage: refused)", path, name));
  H5Id space(from_file(H5Dget_space(ds), path, name));
  H5Id type(from_file(H5Dget_type(ds), path, name));
  const int ndims = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[H5S_MAX_RANK] = {};
  if (ndims < 0 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0)
    throw InputError(fmt::format("{}: cannot read the shape of {} (truncated or corrupted file?)", path, name));
  hsize_t declared = H5Tget_size(type.get()), file_bytes = 0;
  if (declared == 0 || H5Fget_filesize(file, &file_bytes) < 0)
    throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, name));
  bool overflow = false;
  for (int k = 0; k < ndims; ++k) overflow = overflow || __builtin_mul_overflow(declared, dims[k], &declared);
  if (overflow || declared > file_bytes)
    throw InputError(fmt::format("{}: dataset {} claims {} rows, more bytes than the whole file holds ({} bytes; corrupted?)",
                                 path, name, ndims > 0 ? dims[0] : 1, file_bytes));
  if (declared > 0 && H5Dget_storage_size(ds) < declared)
    throw InputError(fmt::format("{}: dataset {} claims {} rows but stores fewer bytes (truncated or corrupted)", path, name,
                                 ndims > 0 ? dims[0] : 1));
}

// The members a compound table must have, by name and class (integer, float, string): a member
// missing from the file would otherwise be read as the memory type's default, silently.
struct Member {
  const char* name;
  H5T_class_t cls;
};
void check_members(hid_t ftype, std::span<const Member> members, const char* name, const std::string& path) {
  if (H5Tget_class(ftype) != H5T_COMPOUND) throw InputError(fmt::format("{}: {} is not a table", path, name));
  for (const Member& m : members) {
    const int index = H5Tget_member_index(ftype, m.name);
    if (index < 0) throw InputError(fmt::format("{}: {} lacks the field '{}'", path, name, m.name));
    if (H5Tget_member_class(ftype, static_cast<unsigned>(index)) != m.cls)
      throw InputError(fmt::format("{}: {}'s field '{}' is not {}", path, name, m.name,
                                   m.cls == H5T_FLOAT     ? "a floating-point number"
                                   : m.cls == H5T_INTEGER ? "an integer"
                                                          : "a string"));
  }
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
  check_stored(file, ds.get(), name, path);
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
  check_stored(file, ds.get(), name, path);  // n x width elements within the file: the product below cannot wrap
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
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  require_regular_file(path);
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(fmt::format("{}: not an HDF5 file (truncated or corrupted?)", path));
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (file.get() < 0) throw InputError(fmt::format("{}: cannot open (truncated or corrupted?)", path));
  if (read_string_attribute(file.get(), schema::kSchemaAttr, path) != schema::kSchema)
    throw InputError(fmt::format("{}: not a {} file", path, schema::kSchema));
  const std::int64_t version = read_int_attribute(file.get(), schema::kVersionAttr, path);
  if (version < schema::kOldestVersion || version > schema::kVersion)
    throw InputError(fmt::format("{}: {} schema_version {}, but this reader reads versions {} to {}", path, schema::kSchema,
                                 version, schema::kOldestVersion, schema::kVersion));
  sources_ = read_string_attribute(file.get(), schema::kSourcesAttr, path);
  if (!is_json_object(sources_))  // `info --json` passes it on inside its own output
    throw InputError(fmt::format("{}: the attribute {} is not a JSON object (damaged?)", path, schema::kSourcesAttr));
  if (H5Aexists(file.get(), schema::kRecoveredAttr) > 0)
    recovered_ = read_string_attribute(file.get(), schema::kRecoveredAttr, path);
  lost_events_ = read_int_attribute(file.get(), schema::kLostEventsAttr, path);
  std::stringstream names(read_string_attribute(file.get(), schema::kCallNamesAttr, path));
  for (std::string line; std::getline(names, line);) {
    if (line.size() > kMaxCallName)
      throw InputError(
          fmt::format("{}: call_names holds a name of {} bytes (at most {}: damaged?)", path, line.size(), kMaxCallName));
    call_names_.push_back(line);
  }

  const hsize_t ranks = length_of(file.get(), schema::kRankCount, path);
  if (ranks == 0) throw InputError(fmt::format("{}: the trace has no ranks", path));
  count_ = read_int64(file.get(), schema::kRankCount, ranks, path);
  offset_ = read_int64(file.get(), schema::kRankOffset, ranks, path);
  lost_ = read_int64(file.get(), schema::kRankLost, ranks, path);
  const hsize_t n = length_of(file.get(), schema::kEvents, path);
  std::int64_t expect = 0;
  for (hsize_t r = 0; r < ranks; ++r) {
    if (count_[r] < 0 || offset_[r] != expect || __builtin_add_overflow(expect, count_[r], &expect))
      throw InputError(fmt::format("{}: /ranks/offset and /ranks/count disagree", path));
  }
  check_counts(lost_, schema::kRankLost, path, true);  // recovered files: -1 where a rank's losses are unknown
  if (static_cast<hsize_t>(expect) != n)
    throw InputError(fmt::format("{}: /events holds {} events, /ranks/count says {}", path, n, expect));

  // Read into our own memory layout by field name: a file with a missing field is rejected.
  H5Id ds = open_dataset(file.get(), schema::kEvents, path);
  H5Id ftype(from_file(H5Dget_type(ds.get()), path, schema::kEvents));
  std::vector<Member> fields;
  for (const auto& f : schema::kFields) fields.push_back({f.name, f.type == schema::Field::F64 ? H5T_FLOAT : H5T_INTEGER});
  check_members(ftype.get(), fields, schema::kEvents, path);
  check_stored(file.get(), ds.get(), schema::kEvents, path);
  event_count_ = static_cast<std::int64_t>(n);
  if (load_tables) events_ = read_events(0, event_count_);

  if (exists(file.get(), schema::kPlacement, path)) {
    if (length_of(file.get(), schema::kPlacement, path) != ranks)
      throw InputError(fmt::format("{}: {} does not have one row per rank", path, schema::kPlacement));
    H5Id pds = open_dataset(file.get(), schema::kPlacement, path);
    H5Id ptype(from_file(H5Dget_type(pds.get()), path, schema::kPlacement));
    static constexpr Member kPlacementFields[] = {
        {"host", H5T_STRING},  {"binding", H5T_STRING},      {"node", H5T_INTEGER},
        {"pu", H5T_INTEGER},   {"core", H5T_INTEGER},        {"package", H5T_INTEGER},
        {"numa", H5T_INTEGER}, {"node_leader", H5T_INTEGER}, {"socket_leader", H5T_INTEGER}};
    check_members(ptype.get(), kPlacementFields, schema::kPlacement, path);
    check_stored(file.get(), pds.get(), schema::kPlacement, path);
    placement_.resize(ranks);
    H5Id mtype2 = placement_h5_type();
    if (H5Dread(pds.get(), mtype2.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, placement_.data()) < 0)
      throw InputError(fmt::format("{}: cannot read {} (truncated or corrupted file?)", path, schema::kPlacement));
    for (auto& p : placement_) {  // never trust a file's strings to be terminated
      p.host[sizeof p.host - 1] = '\0';
      p.binding[sizeof p.binding - 1] = '\0';
      if (p.node < -1 || p.node >= static_cast<std::int64_t>(ranks))  // -1: unknown; at most one node per rank
        throw InputError(fmt::format("{}: {} names node {} of a trace of {} ranks", path, schema::kPlacement, p.node, ranks));
    }
  }
  read_rank_sources(file.get(), path, ranks);
  read_counters(file.get(), path);
  check_samples(file.get(), path, load_tables);
  losses_.resize(ranks);
  const auto per_rank = [&](const char* name, std::int64_t Losses::*field) {
    if (!exists(file.get(), name, path)) return;  // older files: unknown
    const std::vector<std::int64_t> v = read_int64(file.get(), name, ranks, path);
    check_counts(v, name, path, true);  // recovered files: -1
    for (hsize_t r = 0; r < ranks; ++r) losses_[r].*field = v[r];
  };
  per_rank(schema::kSamplesLost, &Losses::samples_lost);
  per_rank(schema::kSamplesDropped, &Losses::samples_dropped);
  per_rank(schema::kCountersLost, &Losses::counter_samples);
  per_rank(schema::kRequestsUntracked, &Losses::requests_untracked);
  per_rank(schema::kPeersUntranslated, &Losses::peers_untranslated);
}

void TraceReader::read_rank_sources(hid_t file, const std::string& path, std::uint64_t ranks) {
  const char* name = schema::kRankSources;
  if (!exists(file, schema::kRanks, path) || !exists(file, name, path)) return;  // older files
  if (length_of(file, name, path) != ranks) throw InputError(fmt::format("{}: {} does not have one row per rank", path, name));
  H5Id ds = open_dataset(file, name, path);
  H5Id type(from_file(H5Dget_type(ds.get()), path, name));
  // Fixed-length strings of a sane width (a rank's JSON takes a few hundred bytes), stored whole.
  constexpr std::size_t kMaxWidth = 1 << 16;
  const std::size_t width = H5Tget_size(type.get());
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0 || width == 0 || width > kMaxWidth)
    throw InputError(fmt::format("{}: {} is not a table of fixed-length strings of at most {} bytes", path, name, kMaxWidth));
  check_stored(file, ds.get(), name, path);
  std::string all(ranks * width, '\0');
  H5Id mtype = text_h5_type(width);
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
  if (!exists(file, schema::kCounters, path)) return;
  H5Id group = open_group(file, schema::kCounters, path);
  counters_.events = lines(read_string_attribute(group.get(), schema::kCounterEventsAttr, path));
  counters_.status = read_string_attribute(group.get(), schema::kStatusAttr, path);
  const hsize_t n = length_of(file, schema::kCounterTime, path);
  counters_.time = read_column<double>(file, schema::kCounterTime, H5T_NATIVE_DOUBLE, n, 0, path);
  counters_.iteration = read_column<std::int32_t>(file, schema::kCounterIteration, H5T_NATIVE_INT32, n, 0, path);
  counters_.rank = read_column<std::int32_t>(file, schema::kCounterRank, H5T_NATIVE_INT32, n, 0, path);
  if (!counters_.events.empty() && exists(file, schema::kCounterValues, path))  // absent: values_missing says why
    counters_.values =
        read_column<std::int64_t>(file, schema::kCounterValues, H5T_NATIVE_INT64, n, counters_.events.size(), path);
  for (const auto r : counters_.rank)
    if (r < 0 || r >= ranks()) throw InputError(fmt::format("{}: a counter sample names rank {} of {}", path, r, ranks()));
}

void TraceReader::check_samples(hid_t file, const std::string& path, bool load) {
  if (!exists(file, schema::kSamplesGroup, path)) return;
  H5Id group = open_group(file, schema::kSamplesGroup, path);
  samples_status_ = read_string_attribute(group.get(), schema::kStatusAttr, path);
  level_names_ = lines(read_string_attribute(group.get(), schema::kLevelNamesAttr, path));
  const hsize_t n = length_of(file, schema::kSamples, path);
  H5Id ds = open_dataset(file, schema::kSamples, path);
  H5Id ftype(from_file(H5Dget_type(ds.get()), path, schema::kSamples));
  static constexpr Member kSampleFields[] = {{"time", H5T_FLOAT},        {"ip", H5T_INTEGER},       {"addr", H5T_INTEGER},
                                             {"weight", H5T_INTEGER},    {"data_src", H5T_INTEGER}, {"rank", H5T_INTEGER},
                                             {"iteration", H5T_INTEGER}, {"cpu", H5T_INTEGER},      {"tid", H5T_INTEGER},
                                             {"level", H5T_INTEGER},     {"hit", H5T_INTEGER}};
  check_members(ftype.get(), kSampleFields, schema::kSamples, path);
  check_stored(file, ds.get(), schema::kSamples, path);
  sample_count_ = static_cast<std::int64_t>(n);
  if (load) samples_ = read_samples(0, sample_count_);
}

std::vector<SampleRecord> TraceReader::read_samples(std::int64_t first, std::int64_t count) const {
  H5Id type = sample_h5_type();
  std::vector<SampleRecord> out = read_rows<SampleRecord>(path_, schema::kSamples, type.get(), first, count, sample_count_);
  for (const auto& x : out)
    if (x.rank < 0 || x.rank >= ranks())
      throw InputError(fmt::format("{}: a sample names rank {} of {}", path_, x.rank, ranks()));
  return out;
}

std::vector<Event> TraceReader::read_events(std::int64_t first, std::int64_t count) const {
  H5Id type = event_h5_type();
  std::vector<Event> out = read_rows<Event>(path_, schema::kEvents, type.get(), first, count, event_count_);
  for (const auto& e : out) {
    if (e.rank < 0 || e.rank >= ranks())
      throw InputError(fmt::format("{}: an event names rank {} of {}", path_, e.rank, ranks()));
    // NaN is a time not known (recover and the writer give it to a raw record whose time no
    // recorder writes: stamp_seconds); no clock gives an infinite one.
    if (std::isinf(e.t_enter) || std::isinf(e.t_exit))
      throw InputError(fmt::format("{}: an event of rank {} has an infinite time ({}, {}): corrupted file", path_, e.rank,
                                   e.t_enter, e.t_exit));
  }
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

}  // namespace ripple::trace
