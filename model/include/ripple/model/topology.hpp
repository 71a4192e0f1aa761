#pragma once
// The topology matrix T_ij: which oscillators j couple into oscillator i. Structured kinds are
// generated on demand (no N-sized storage); `file` keeps the edge list in CSR form.
#include <cstdint>
#include <vector>

#include "ripple/model/config.hpp"

namespace ripple::model {

class Topology {
public:
  // Reads the edge file for kind = "file". Throws InputError for bad files.
  static Topology from_config(const TopologyConfig& cfg, std::int64_t oscillators);

  [[nodiscard]] std::int64_t size() const { return n_; }
  [[nodiscard]] TopologyKind kind() const { return cfg_.kind; }
  [[nodiscard]] const TopologyConfig& config() const { return cfg_; }

  // The j with T_ij = 1 (never i itself), ascending and without repeats: a fixed order that does
  // not depend on how oscillators are spread over ranks. `out` is cleared first.
  void neighbours(std::int64_t i, std::vector<std::int64_t>& out) const;

  // T_ij = T_ji for all pairs (chains and rings whose distances come in +- pairs, grids, all-to-all,
  // edge files that list both directions).
  [[nodiscard]] bool is_symmetric() const { return symmetric_; }

  // kappa of the coupling strength v_p = beta * kappa / period (see docs/model.md).
  [[nodiscard]] double kappa(KappaMode mode, double value) const;

private:
  TopologyConfig cfg_;
  std::int64_t n_ = 0;
  bool symmetric_ = true;
  std::vector<std::int64_t> file_offsets_;  // CSR of the edge file (kind = file)
  std::vector<std::int64_t> file_columns_;
};

}  // namespace ripple::model
