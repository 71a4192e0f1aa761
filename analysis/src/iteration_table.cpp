#include "ripple/analysis/iteration_table.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <fstream>
#include <limits>

#include "ripple/analysis/sim_table.hpp"
#include "ripple/analysis/timings_table.hpp"
#include "ripple/analysis/trace_table.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/model/sim_schema.hpp"
#include "ripple/trace/trace_schema.hpp"

namespace ripple::analysis {

const char* source_name(TableSource s) {
  switch (s) {
    case TableSource::Trace:
      return "trace";
    case TableSource::Timings:
      return "timings";
    case TableSource::Simulation:
      return "simulation";
  }
  return "?";
}

void IterationTable::resize(int ranks_, int first, int count, bool messages) {
  ranks = ranks_;
  first_iteration = first;
  iterations = count;
  const std::size_t cells = static_cast<std::size_t>(ranks_) * static_cast<std::size_t>(count);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  end.assign(cells, kNaN);
  compute.assign(cells, kNaN);
  wait.assign(cells, kNaN);
  for (auto* v : {&msgs_sent, &bytes_sent, &msgs_recv, &bytes_recv}) v->assign(messages ? cells : 0, 0);
}

namespace {
// The schema attribute of an HDF5 file, or "" if it has none.
std::string hdf5_schema(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (file.get() < 0) throw InputError(fmt::format("{}: cannot open as HDF5 (truncated or corrupted?)", path));
  if (H5Aexists(file.get(), trace::schema::kSchemaAttr) <= 0) return "";
  return read_string_attribute(file.get(), trace::schema::kSchemaAttr, path);
}
}  // namespace

IterationTable load_table(const std::string& path, const std::string& iteration_call) {
  require_regular_file(path);
  if (H5Fis_hdf5(path.c_str()) > 0) {
    const std::string schema = hdf5_schema(path);
    if (schema == trace::schema::kSchema) return table_from_trace(path, iteration_call);
    if (!iteration_call.empty())
      throw InputError(fmt::format("{}: --iteration-call applies to traces only, and this is not one", path));
    if (schema == model::sim_schema::kSchema) return table_from_sim(path);
    throw InputError(fmt::format("{}: an HDF5 file but not a Ripple trace or simulation (schema '{}')", path, schema));
  }
  if (!iteration_call.empty())
    throw InputError(fmt::format("{}: --iteration-call applies to traces only, and this is not one", path));
  std::ifstream in(path);
  char first = 0;
  in >> first;
  if (first == '{') return table_from_timings(path);
  throw InputError(fmt::format("{}: not a Ripple trace, simulation or proxy-app JSON summary", path));
}

}  // namespace ripple::analysis
