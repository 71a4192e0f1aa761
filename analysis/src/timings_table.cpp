#include "ripple/analysis/timings_table.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

using nlohmann::json;

// "AxB" or "AxBxC" into its numbers (empty if malformed).
std::vector<int> extents(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, 'x');) {
    try {
      out.push_back(std::stoi(part));
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

// The graph the app's messages follow; `why` says where it came from.
CommGraph app_graph(const json& j, int ranks, const std::string& path) {
  CommGraph g(ranks);
  const std::string app = j.value("app", "");
  if (app == "ring") {
    std::vector<int> distances;
    std::stringstream ss(j.value("distances", "-1,1"));
    try {
      for (std::string d; std::getline(ss, d, ',');) distances.push_back(std::stoi(d));
    } catch (const std::exception&) {
      throw InputError(fmt::format("{}: ring summary with distances '{}' that are not integers", path, j.value("distances", "")));
    }
    const bool periodic = j.value("periodic", false);
    for (int r = 0; r < ranks; ++r)
      for (const int d : distances) {
        const int p = periodic ? ((r + d) % ranks + ranks) % ranks : r + d;
        if (p >= 0 && p < ranks) g.add_edge(r, p);
      }
    g.set_periodic(periodic);
    g.set_description(fmt::format("ring app: distances {}{}", j.value("distances", "-1,1"), periodic ? ", periodic" : ""));
  } else if (app == "heat2d") {
    const std::vector<int> grid = extents(j.value("grid", ""));
    if (grid.size() != 2 || grid[0] * grid[1] != ranks)
      throw InputError(fmt::format("{}: heat2d summary with a process grid '{}' that does not hold its {} ranks", path,
                                   j.value("grid", ""), ranks));
    for (int r = 0; r < ranks; ++r) {
      const int x = r % grid[0], y = r / grid[0];
      if (x + 1 < grid[0]) g.add_edge(r, r + 1);
      if (y + 1 < grid[1]) g.add_edge(r, r + grid[0]);
    }
    g.set_description(fmt::format("heat2d app: {} process grid, 5-point halo exchange", j.value("grid", "")));
  } else if (app == "hpcg") {
    const std::vector<int> p = extents(j.value("process_grid", ""));
    if (p.size() != 3 || p[0] * p[1] * p[2] != ranks)
      throw InputError(fmt::format("{}: hpcg summary with a process grid '{}' that does not hold its {} ranks", path,
                                   j.value("process_grid", ""), ranks));
    for (int r = 0; r < ranks; ++r) {
      const int x = r % p[0], y = (r / p[0]) % p[1], z = r / (p[0] * p[1]);
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy, nz = z + dz;
            if (nx >= 0 && nx < p[0] && ny >= 0 && ny < p[1] && nz >= 0 && nz < p[2]) g.add_edge(r, nx + p[0] * (ny + p[1] * nz));
          }
    }
    g.set_all_to_all(true);  // three MPI_Allreduce per CG iteration
    g.set_description(
        fmt::format("hpcg app: {} process grid, 27-point halo exchange and all-reductions", j.value("process_grid", "")));
  } else {
    for (int r = 0; r + 1 < ranks; ++r) g.add_edge(r, r + 1);
    g.set_description(fmt::format("unknown app '{}': neighbours in rank order assumed", app));
  }
  g.finish();
  return g;
}

}  // namespace

IterationTable table_from_timings(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON ({})", path, e.what()));
  }
  if (!j.is_object() || !j.contains("timings") || !j["timings"].is_array() || j["timings"].empty())
    throw InputError(fmt::format("{}: not a proxy-app JSON summary (no \"timings\" per rank)", path));
  const json& timings = j["timings"];
  const int ranks = static_cast<int>(timings.size());
  IterationTable t;
  t.source = TableSource::Timings;
  t.input = path;
  try {
    const auto iterations = static_cast<int>(timings[0].at("end").size());
    if (iterations == 0) throw InputError(fmt::format("{}: the summary holds no timed iteration", path));
    t.resize(ranks, 0, iterations, false);
    for (const json& row : timings) {
      const int r = row.at("rank").get<int>();
      if (r < 0 || r >= ranks) throw InputError(fmt::format("{}: timings of rank {} in a summary of {} ranks", path, r, ranks));
      const json &c = row.at("compute"), &m = row.at("comm"), &e = row.at("end");
      if (static_cast<int>(c.size()) != iterations || static_cast<int>(m.size()) != iterations ||
          static_cast<int>(e.size()) != iterations)
        throw InputError(fmt::format("{}: rank {} has timings of another length than rank 0's", path, r));
      for (int k = 0; k < iterations; ++k) {
        const std::size_t at = t.at(r, k);
        // null: a time the app could not express (never finite in practice)
        t.compute[at] = c[static_cast<std::size_t>(k)].is_number() ? c[static_cast<std::size_t>(k)].get<double>() : t.compute[at];
        t.wait[at] = m[static_cast<std::size_t>(k)].is_number() ? m[static_cast<std::size_t>(k)].get<double>() : t.wait[at];
        t.end[at] = e[static_cast<std::size_t>(k)].is_number() ? e[static_cast<std::size_t>(k)].get<double>() : t.end[at];
      }
    }
    t.graph = app_graph(j, ranks, path);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: malformed summary ({})", path, e.what()));
  }
  t.description =
      fmt::format("{} ranks, {} timed iterations from the app's own timings ({})", ranks, t.iterations, t.graph.description());
  return t;
}

}  // namespace ripple::analysis
