#include "ripple/model/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "ripple/common/error.hpp"

namespace ripple::model {

Topology Topology::from_config(const TopologyConfig& cfg, std::int64_t oscillators) {
  Topology t;
  t.cfg_ = cfg;
  t.n_ = oscillators;
  if (cfg.kind == TopologyKind::Chain || cfg.kind == TopologyKind::Ring) {
    std::vector<std::int64_t> d(cfg.distances), minus;
    for (const auto v : d) minus.push_back(-v);
    std::sort(d.begin(), d.end());
    std::sort(minus.begin(), minus.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    minus.erase(std::unique(minus.begin(), minus.end()), minus.end());
    t.symmetric_ = d == minus;
  }
  if (cfg.kind != TopologyKind::File) return t;

  std::ifstream in(cfg.file);
  if (!in) throw InputError(fmt::format("[topology] file: cannot read edge list '{}': check the path", cfg.file));
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  std::string line;
  for (std::int64_t lineno = 1; std::getline(in, line); ++lineno) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::int64_t i = 0;
    std::int64_t j = 0;
    if (!(ls >> i)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      throw InputError(fmt::format("{}:{}: expected two oscillator indices 'i j', got '{}'", cfg.file, lineno, line));
    }
    std::string rest;
    if (!(ls >> j) || (ls >> rest))
      throw InputError(fmt::format("{}:{}: expected two oscillator indices 'i j', got '{}'", cfg.file, lineno, line));
    if (i < 0 || i >= oscillators || j < 0 || j >= oscillators)
      throw InputError(fmt::format("{}:{}: index out of range [0, {}) in edge '{} {}'", cfg.file, lineno, oscillators, i, j));
    if (i != j) edges.emplace_back(i, j);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  t.file_offsets_.assign(static_cast<size_t>(oscillators) + 1, 0);
  for (const auto& e : edges) ++t.file_offsets_[static_cast<size_t>(e.first) + 1];
  for (size_t k = 1; k < t.file_offsets_.size(); ++k) t.file_offsets_[k] += t.file_offsets_[k - 1];
  t.file_columns_.reserve(edges.size());
  for (const auto& e : edges) t.file_columns_.push_back(e.second);
  t.symmetric_ = std::all_of(edges.begin(), edges.end(), [&](const auto& e) {
    return std::binary_search(edges.begin(), edges.end(), std::make_pair(e.second, e.first));
  });
  return t;
}

void Topology::neighbours(std::int64_t i, std::vector<std::int64_t>& out) const {
  out.clear();
  switch (cfg_.kind) {
    case TopologyKind::Chain:
    case TopologyKind::Ring:
      for (const std::int64_t d : cfg_.distances) {
        std::int64_t j = i + d;
        if (cfg_.kind == TopologyKind::Ring) j = ((j % n_) + n_) % n_;
        if (j >= 0 && j < n_ && j != i) out.push_back(j);
      }
      break;
    case TopologyKind::Grid2D:
    case TopologyKind::Grid3D: {
      const size_t dims = cfg_.dims.size();
      std::int64_t stride = 1;
      std::int64_t rest = i;
      for (size_t a = 0; a < dims; ++a) {
        const std::int64_t extent = cfg_.dims[a];
        const std::int64_t coord = rest % extent;
        rest /= extent;
        for (const std::int64_t step : {-1, 1}) {
          std::int64_t c = coord + step;
          if (cfg_.periodic) c = (c + extent) % extent;
          if (c < 0 || c >= extent) continue;
          const std::int64_t j = i + (c - coord) * stride;
          if (j != i) out.push_back(j);
        }
        stride *= extent;
      }
      break;
    }
    case TopologyKind::All:
      out.reserve(static_cast<size_t>(n_));
      for (std::int64_t j = 0; j < n_; ++j)
        if (j != i) out.push_back(j);
      return;
    case TopologyKind::File:
      out.assign(file_columns_.begin() + file_offsets_[static_cast<size_t>(i)],
                 file_columns_.begin() + file_offsets_[static_cast<size_t>(i) + 1]);
      return;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

double Topology::kappa(KappaMode mode, double value) const {
  if (mode == KappaMode::Value) return value;
  switch (cfg_.kind) {
    case TopologyKind::Chain:
    case TopologyKind::Ring: {
      double sum = 0;
      double longest = 0;
      for (const std::int64_t d : cfg_.distances) {
        sum += static_cast<double>(std::abs(d));
        longest = std::max(longest, static_cast<double>(std::abs(d)));
      }
      return mode == KappaMode::Sum ? sum : longest;
    }
    case TopologyKind::Grid2D:
    case TopologyKind::Grid3D:
      // Each stencil neighbour is one step away along one axis.
      return mode == KappaMode::Sum ? 2.0 * static_cast<double>(cfg_.dims.size()) : 1.0;
    case TopologyKind::All:
    case TopologyKind::File: {
      if (mode == KappaMode::Max) return 1.0;
      // Graphs have no stencil: kappa = sum counts one unit per partner, on average.
      if (cfg_.kind == TopologyKind::All) return static_cast<double>(n_ - 1);
      return static_cast<double>(file_columns_.size()) / static_cast<double>(n_);
    }
  }
  return 0;
}

}  // namespace ripple::model
