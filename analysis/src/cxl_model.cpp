#include "ripple/analysis/cxl_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ripple/common/error.hpp"

namespace ripple::analysis {

const char* category_name(Category c) {
  static const char* names[] = {"MBW", "MLAT", "CBW", "CLAT", "Compute"};
  return names[static_cast<int>(c)];
}

const char* bracket_name(Bracket b) {
  static const char* names[] = {"demand hit", "prefetch hit", "hit", "LFB", "miss"};
  return names[static_cast<int>(b)];
}

double ramp_weight(double v, double lo, double hi) {
  if (v <= lo) return 0;
  if (v >= hi) return 1;
  const double x = (v - lo) / (hi - lo);
  return x * x;
}

Weights normalized(Weights w) {
  double sum = 0;
  for (double& x : w) {
    if (!std::isfinite(x) || x < 0) throw InputError("category weights must be finite and not negative");
    sum += x;
  }
  if (sum <= 0) throw InputError("category weights must not all be 0");
  for (double& x : w) x /= sum;
  return w;
}

Weights weights_from_metrics(const std::array<double, 4>& metric, const Machine& m) {
  const double mbw = ramp_weight(metric[0], m["MBW_THR_L"], m["MBW_THR_U"]);
  const double mlat = std::max(0.0, ramp_weight(metric[1], m["MLAT_THR_L"], m["MLAT_THR_U"]) - mbw);
  const double cbw = ramp_weight(metric[2], m["CBW_THR_L"], m["CBW_THR_U"]);
  const double clat = std::max(0.0, ramp_weight(metric[3], m["CLAT_THR_L"], m["CLAT_THR_U"]) - (mbw + mlat + cbw));
  const double sum = mbw + mlat + cbw + clat;
  const int active = (mbw > 0) + (mlat > 0) + (cbw > 0) + (clat > 0);
  const double cap = active > 1 ? m["MIXED_MAX_WEIGHT"] : m["COMPUTE_MAX_WEIGHT"];
  const double compute = active == 0 ? 1.0 : cap * (1 - std::min(1.0, sum));
  return normalized({mbw, mlat, cbw, clat, compute});
}

Characterization characterize(const CounterTotals& c, const Machine& m) {
  if (c.loads <= 0 || c.l1_misses < 0 || c.l3_misses < 0 || c.seconds <= 0)
    throw InputError("the counters lack PAPI_LD_INS, PAPI_L1_LDM, PAPI_L3_LDM or a duration");
  Characterization ch;
  const double mem_bytes = c.memory_bytes >= 0 ? c.memory_bytes : 64 * c.l3_misses;
  ch.metric[0] = mem_bytes / c.seconds / m["PEAK_MEM_BW"];
  ch.metric[1] = c.mlat_scale * c.l3_misses / c.loads;
  ch.metric[2] = 64 * c.l1_misses / c.seconds / m["L2_BW"];
  ch.metric[3] = c.l1_misses / c.loads;
  ch.weights = weights_from_metrics(ch.metric, m);
  return ch;
}

Weights first_access_weights(const Weights& w) {
  Weights f{};
  for (Category c : {Category::MBW, Category::MLAT, Category::Compute}) f[static_cast<int>(c)] = w[static_cast<int>(c)];
  double sum = 0;
  for (double x : f) sum += x;
  if (sum <= 0) return Weights{0, 0, 0, 0, 1};  // a cache-bound code's first loads: as Compute
  for (double& x : f) x /= sum;
  return f;
}

double mpi_transfer_ns(std::int64_t bytes, const Machine& m) {
  const double bw = m["MPI_RECV_BW"];
  if (bw <= 0) throw InputError("MPI_RECV_BW must be > 0");
  return m["MPI_RECV_LAT"] + std::floor(static_cast<double>(bytes) * 1e9 / bw);
}

double cxl_transfer_ns(const Machine& m) { return 2 * m["CXL_REMOTE_ATOMIC_LAT"]; }

AccessParams AccessParams::of(const Machine& m) {
  AccessParams p;
  p.cxl_lat = m["CXL_REMOTE_LAT"];
  p.mem_lat = m["LOCAL_MEM_LAT"];
  p.lpf_lat = m["LPF_LAT"];
  p.lpf_bw = m["LPF_BW"];
  p.mbw_demand = m["MBW_DEMAND_HIT_FRACTION"];
  p.cbw_demand = m["CBW_DEMAND_HIT_FRACTION"];
  if (p.lpf_lat <= 0 || p.lpf_bw <= 0) throw InputError("LPF_LAT and LPF_BW must be > 0");
  return p;
}

namespace {
double lpf(Category c, const AccessParams& p) { return c == Category::MLAT || c == Category::CLAT ? p.lpf_lat : p.lpf_bw; }
}  // namespace

double mpi_access_ns(Category c, double lat, const AccessParams& p) { return lat / lpf(c, p); }

double cxl_access_ns(Category c, Bracket b, double lat, const AccessParams& p) {
  const double delta = p.cxl_lat - p.mem_lat;  // a load from CXL instead of DDR
  const double slower = lat + delta;
  if (b == Bracket::Hit && (c == Category::MBW || c == Category::CBW)) {
    const double d = c == Category::MBW ? p.mbw_demand : p.cbw_demand;
    return d * cxl_access_ns(c, Bracket::DemandHit, lat, p) + (1 - d) * cxl_access_ns(c, Bracket::PrefetchHit, lat, p);
  }
  const bool hit = b == Bracket::DemandHit || b == Bracket::PrefetchHit || b == Bracket::Hit;
  double cost = 0;
  switch (c) {
    case Category::MLAT:  // prefetching in time; LFB samples pessimistically from memory
      cost = hit ? lat : b == Bracket::Lfb ? slower : p.cxl_lat;
      break;
    case Category::MBW:  // prefetch hits become slow; congestion may exceed CXL_LAT
      cost = b == Bracket::DemandHit ? lat : b == Bracket::PrefetchHit ? slower : std::max(p.cxl_lat, slower);
      break;
    case Category::CBW:  // as MBW, but LFB samples come from the cache
      cost = b == Bracket::DemandHit     ? lat
             : b == Bracket::PrefetchHit ? slower
             : b == Bracket::Lfb         ? lat
                                         : std::max(p.cxl_lat, slower);
      break;
    case Category::CLAT:  // locality: prefetching works, LFB samples from the cache
      cost = hit || b == Bracket::Lfb ? lat : p.cxl_lat;
      break;
    case Category::Compute:  // half of the LFB samples from the cache, half from memory
      cost = hit ? lat : b == Bracket::Lfb ? lat + delta / 2 : p.cxl_lat;
      break;
  }
  return cost / lpf(c, p);
}

double mpi_access_ns(const Weights& w, double lat, const AccessParams& p) {
  double sum = 0;
  for (int c = 0; c < kCategories; ++c)
    if (w[c] > 0) sum += w[c] * mpi_access_ns(static_cast<Category>(c), lat, p);
  return sum;
}

double cxl_access_ns(const Weights& w, Bracket b, double lat, const AccessParams& p, double unpack) {
  double sum = 0;
  for (int c = 0; c < kCategories; ++c) {
    if (w[c] <= 0) continue;
    const auto cat = static_cast<Category>(c);
    sum += w[c] * (unpack * cxl_access_ns(cat, b, lat, p) + (1 - unpack) * mpi_access_ns(cat, lat, p));
  }
  return sum;
}

}  // namespace ripple::analysis
