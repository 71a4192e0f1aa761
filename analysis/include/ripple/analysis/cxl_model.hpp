#pragma once
// Seed 003's model, section IV, as pure functions (docs/cxl.md): the application's character as
// five category weights (IV-B1), the transfer cost of a receive over MPI and over CXL (IV-A), and the
// access cost of one load sample under each category, for MPI and for CXL (IV-C). No I/O here.
#include <array>
#include <cstdint>
#include <string>

#include "ripple/analysis/cxl_machine.hpp"

namespace ripple::analysis {

enum class Category { MBW, MLAT, CBW, CLAT, Compute };
inline constexpr int kCategories = 5;
const char* category_name(Category c);
using Weights = std::array<double, kCategories>;  // indexed by Category, summing to 1

// Whole-run counter totals (all ranks), the inputs of IV-B1. A total below 0 is unknown.
struct CounterTotals {
  double loads = -1;         // PAPI_LD_INS
  double l1_misses = -1;     // PAPI_L1_LDM
  double l3_misses = -1;     // PAPI_L3_LDM
  double memory_bytes = -1;  // bytes read from memory (uncore CAS reads × 64), else l3_misses × 64
  double seconds = 0;        // the run's duration
  double mlat_scale = 1;     // the MLAT metric is mlat_scale · L3_LDM / LD_INS (64 for the published tool's runs)
};

// The four metrics of IV-B1 (MBW: memory throughput / PEAK_MEM_BW; MLAT: L3 misses per load; CBW:
// L1-miss traffic / L2_BW; CLAT: L1 misses per load), and their weights.
struct Characterization {
  std::array<double, 4> metric{};  // MBW, MLAT, CBW, CLAT
  Weights weights{};
};
// The squared ramp: 0 at or below lo, 1 at or above hi, ((v - lo) / (hi - lo))² between.
double ramp_weight(double v, double lo, double hi);
// The weights from the four metrics: MLAT -= MBW, CLAT -= MBW + MLAT + CBW (never below 0); Compute
// = COMPUTE_MAX_WEIGHT (at most one memory category active) or MIXED_MAX_WEIGHT (several) times
// (1 - min(1, their sum)), 1 when none is active; then normalised to sum 1.
Weights weights_from_metrics(const std::array<double, 4>& metric, const Machine& m);
// Throws InputError if a total the metrics need is unknown.
Characterization characterize(const CounterTotals& c, const Machine& m);
// Normalises given weights (--weights or the machine file's WEIGHT_*); InputError if none is > 0.
Weights normalized(Weights w);
// The first load after new data (IV-B2) sees only MBW, MLAT and Compute: those three, renormalised.
Weights first_access_weights(const Weights& w);

// IV-A in ns: MPI_RECV_LAT + floor(bytes · 1e9 / MPI_RECV_BW) (the time on the wire truncated to whole
// ns per call, as the published tool does); CXL: 2 · CXL_REMOTE_ATOMIC_LAT.
double mpi_transfer_ns(std::int64_t bytes, const Machine& m);
double cxl_transfer_ns(const Machine& m);

// Where a sampled load was served (IV-C's brackets). Hit: a cache hit not known to be demand or
// prefetch (PEBS does not say): MBW and CBW split it by their *_DEMAND_HIT_FRACTION.
enum class Bracket { DemandHit, PrefetchHit, Hit, Lfb, Miss };
const char* bracket_name(Bracket b);

// The parameters of IV-C in ns.
struct AccessParams {
  double cxl_lat = 0, mem_lat = 0, lpf_lat = 1, lpf_bw = 1;
  double mbw_demand = 1, cbw_demand = 1;  // *_DEMAND_HIT_FRACTION
  static AccessParams of(const Machine& m);
};
// One sample of latency `lat` ns under category c, before the rate: the MPI cost lat / lpf_c and the
// CXL cost of the category's formula / lpf_c.
double mpi_access_ns(Category c, double lat, const AccessParams& p);
double cxl_access_ns(Category c, Bracket b, double lat, const AccessParams& p);
// Weighted over the categories: Σ_c w_c · cost_c. `unpack` in [0, 1] is the fraction of the CXL
// cost that is a CXL access (the rest a DDR access at the sample's own latency); 1 without unpack.
double mpi_access_ns(const Weights& w, double lat, const AccessParams& p);
double cxl_access_ns(const Weights& w, Bracket b, double lat, const AccessParams& p, double unpack = 1);

}  // namespace ripple::analysis
