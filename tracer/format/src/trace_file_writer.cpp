#include "ripple/trace/trace_file_writer.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include "ripple/common/build_info.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/trace_schema.hpp"

namespace ripple::trace {
namespace {

void write_rows(hid_t file, const char* name, hid_t type, const void* data, hsize_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {rows, width};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr)));
  H5Id ds(RIPPLE_H5_CHECK(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  if (rows > 0) RIPPLE_H5_CHECK(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

}  // namespace

void write_trace_file(const std::string& path, const TraceContent& c) {
  if (c.ranks <= 0) throw InputError(fmt::format("{}: a trace needs at least one rank", path));
  std::vector<std::int64_t> count(static_cast<std::size_t>(c.ranks), 0), offset(count.size(), 0), zero(count.size(), 0);
  int last = 0;
  for (const Event& e : c.events) {
    if (e.rank < last || e.rank >= c.ranks) throw InputError(fmt::format("{}: events not ordered by rank", path));
    last = e.rank;
    ++count[static_cast<std::size_t>(e.rank)];
  }
  for (std::size_t r = 1; r < count.size(); ++r) offset[r] = offset[r - 1] + count[r - 1];
  H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (file.get() < 0) throw Error(fmt::format("{}: cannot create the trace file", path));
  const hid_t f = file.get();
  write_attribute(f, schema::kSchemaAttr, std::string(schema::kSchema));
  write_attribute(f, schema::kVersionAttr, static_cast<std::int64_t>(schema::kVersion));
  write_attribute(f, schema::kEventsAttr, static_cast<std::int64_t>(c.events.size()));
  write_attribute(f, schema::kLostEventsAttr, static_cast<std::int64_t>(0));
  write_attribute(f, schema::kCallNamesAttr, call_names_text());
  write_attribute(f, schema::kSourcesAttr, c.sources);
  write_attribute(f, schema::kClockAttr, std::string("imported"));
  write_attribute(f, schema::kClockSourceAttr, std::string("imported: the source's own times"));
  write_attribute(f, "ripple_version", std::string(ripple_version()));
  write_attribute(f, "git_revision", std::string(ripple_git_revision()));
  write_attribute(f, "ranks", static_cast<std::int64_t>(c.ranks));
  write_attribute(f, "command_line", c.command_line);
  H5Id events_type = event_h5_type();
  write_rows(f, schema::kEvents, events_type.get(), c.events.data(), c.events.size());
  H5Id ranks(RIPPLE_H5_CHECK(H5Gcreate2(f, schema::kRanks, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_rows(f, schema::kRankOffset, H5T_NATIVE_INT64, offset.data(), offset.size());
  write_rows(f, schema::kRankCount, H5T_NATIVE_INT64, count.data(), count.size());
  write_rows(f, schema::kRankLost, H5T_NATIVE_INT64, zero.data(), zero.size());
  if (!c.counter_events.empty()) {
    H5Id g(RIPPLE_H5_CHECK(H5Gcreate2(f, schema::kCounters, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
    std::string names;
    for (const std::string& e : c.counter_events) names += (names.empty() ? "" : "\n") + e;
    write_attribute(g.get(), schema::kCounterEventsAttr, names);
    write_attribute(g.get(), schema::kStatusAttr, c.counter_status);
    const hsize_t rows = c.counter_time.size();
    write_rows(f, schema::kCounterTime, H5T_NATIVE_DOUBLE, c.counter_time.data(), rows);
    write_rows(f, schema::kCounterIteration, H5T_NATIVE_INT32, c.counter_iteration.data(), rows);
    write_rows(f, schema::kCounterRank, H5T_NATIVE_INT32, c.counter_rank.data(), rows);
    write_rows(f, schema::kCounterValues, H5T_NATIVE_INT64, c.counter_values.data(), rows, c.counter_events.size());
  }
  if (!c.sample_status.empty()) {
    H5Id g(RIPPLE_H5_CHECK(H5Gcreate2(f, schema::kSamplesGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
    write_attribute(g.get(), schema::kStatusAttr, c.sample_status);
    write_attribute(g.get(), schema::kLevelNamesAttr, c.level_names);
    H5Id type = sample_h5_type();
    write_rows(f, schema::kSamples, type.get(), c.samples.data(), c.samples.size());
  }
  if (H5Fclose(file.release()) < 0) throw Error(fmt::format("{}: could not close the trace file (disk full?)", path));
}

}  // namespace ripple::trace
