#pragma once
// Seed 003's prediction for a run (docs/cxl.md): per call site and tag, the MPI and CXL costs of
// transfer and access, the difference, the whole run's speed-up, and the buffers ranked by benefit per
// byte with the best set under a capacity.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ripple/analysis/cxl_machine.hpp"
#include "ripple/analysis/cxl_model.hpp"
#include "ripple/analysis/cxl_plan.hpp"
#include "ripple/analysis/cxl_run.hpp"

namespace ripple::analysis {

enum class Matching { Address, Window };
// Published: as the published tool (seed 003's runs of the Mitos simulator): rate 1, the MLAT metric
// 64 · L3_LDM / LD_INS, every matched sample at the run's weights (no first-access split: samples are
// assigned by address alone). Auto: published where the trace asks for it (cxl_run.hpp).
enum class Conventions { Auto, Ripple, Published };

struct CxlOptions {
  std::optional<Weights> weights;         // --weights: instead of the counters
  Matching matching = Matching::Address;  // which access figures drive the totals, speed-up and plan
  double unpack = 1;                      // fraction of a sample's load that is a CXL load
  std::int64_t capacity = -1;             // bytes; -1: no plan
  Conventions conventions = Conventions::Auto;
};

// Costs in ns, summed over the receives of a group.
struct CxlCosts {
  double mpi_transfer = 0, cxl_transfer = 0;
  double mpi_access = 0, cxl_access = 0;                // samples matched by address over the whole run
  double mpi_access_window = 0, cxl_access_window = 0;  // samples between a completion and the next receive
  std::int64_t samples = 0, samples_window = 0, first_accesses = 0;
  [[nodiscard]] double mpi(Matching m) const { return mpi_transfer + (m == Matching::Address ? mpi_access : mpi_access_window); }
  [[nodiscard]] double cxl(Matching m) const { return cxl_transfer + (m == Matching::Address ? cxl_access : cxl_access_window); }
  void add(const CxlCosts& o);
};

struct CxlGroup {               // one call site and tag, all ranks
  std::uint64_t call_site = 0;  // as the first rank to use it saw it (ranks agree modulo 4 KiB)
  int tag = -1;
  std::int64_t receives = 0, bytes = 0;
  CxlCosts costs;
};

struct CxlBuffer {  // one rank's receive buffer
  int rank = 0;
  std::uint64_t address = 0;
  std::int64_t extent = 0;
  std::int64_t receives = 0;
  int tag = -1;  // the tag of its receives (-1: several)
  CxlCosts costs;
  [[nodiscard]] double benefit(Matching m) const { return costs.mpi(m) - costs.cxl(m); }
};

struct CxlResult {
  std::string trace;
  int ranks = 0;
  double duration = 0;
  Matching matching = Matching::Address;
  bool published = false;  // the published tool's conventions (Conventions)
  Weights weights{};
  std::string weights_how;  // "counters", "--weights", "the machine file", or the fallback and why
  std::optional<Characterization> characterization;
  std::string access_how;  // "load samples", or the fallback and why
  double sample_rate = 1;
  std::string rate_how;
  double unpack = 1;
  std::vector<CxlGroup> groups;    // by call site, then tag
  std::vector<CxlBuffer> buffers;  // ranked by benefit per byte, best first
  CxlCosts total;
  double speedup = 1;  // duration / (duration − total benefit per rank)
  std::optional<Plan> plan;
  std::int64_t capacity = -1;
  Machine machine;
  std::vector<std::string> notes;  // what the figures rest on that a reader should know
};

CxlResult predict_cxl(const CxlRun& run, const Machine& m, const CxlOptions& o);

}  // namespace ripple::analysis
