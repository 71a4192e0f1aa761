#pragma once
// Idle waves in an iteration table (docs/waves.md): where delays came from (injected, from the
// input's ground truth, or detected from compute times), how each one's wave travelled (arrival
// iteration per rank and hop, speed, amplitude and decay, where it died out, when the ranks were
// back within the noise), where waves met, and how far the ranks drifted apart
// (desynchronisation, computational wavefronts).
#include <string>
#include <vector>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/stats.hpp"

namespace ripple::analysis {

struct WavesOptions {
  double k = 5;                // MADs above a rank's median that count as out of the noise
  double floor = -1;           // seconds always needed on top; < 0: a tenth of the median compute phase
  double fraction = 0.25;      // of the source's delay: the least idle time that counts as its wave
  int max_hop_iterations = 3;  // a wave that takes longer than this to cross one hop has died out
  int max_sources = 64;        // the largest sources analysed (a noisy run has many small ones)
};

struct Source {
  int rank = 0;
  int iteration = 0;      // its number (not the column)
  double delay = 0;       // seconds: injected, or compute beyond the rank's median if detected
  bool injected = false;  // in the input's ground truth (delay markers, kicks)
  bool detected = false;  // found from the compute times
};

struct Arrival {
  int rank = 0;
  int hop = 0;        // graph distance from the source
  int offset = 0;     // signed distance in rank order (the shorter way round a periodic run)
  int iteration = 0;  // the first iteration in which the rank waited for the wave
  double idle = 0;    // its wait beyond its median, seconds
  double time = 0;    // when it began to wait: the iteration's start plus its compute
};

// One direction of a wave: "down" (lower ranks), "up" (higher ranks) or "all" (every direction, by
// hop: the view for grids and collectives).
struct Front {
  std::string direction;
  std::vector<Arrival> arrivals;  // by hop, then rank
  // Arrival iteration (and time) against distance (|offset| for down/up, hops for all): the speed
  // is 1 / slope, in ranks (hops) per iteration and per second; NaN where every arrival came in one
  // iteration or there are fewer than two distances.
  LineFit by_iteration, by_time;
  double speed_iterations = 0, speed_seconds = 0;
  std::vector<double> amplitude;  // mean idle per hop, [hop - 1]
  double decay_per_hop = 0;       // seconds of idle lost per hop (least squares; NaN under two hops)
  double decay_relative = 0;      // decay_per_hop over the first hop's amplitude
  int reached_hops = 0;
  int died_at_hop = -1;  // the first hop no rank of this direction waited at; -1: the wave reached the last rank
};

struct Wave {
  Source source;
  std::vector<Front> fronts;   // down, up, all
  int resync_iteration = -1;   // first iteration from which every rank stays within its noise; -1: never
  double resync_seconds = -1;  // from the source iteration's start to then
};

// Two fronts that ran into each other: a periodic wave's own two fronts at the far side
// (annihilation), or the facing fronts of two sources.
struct Meeting {
  int wave_a = 0, wave_b = 0;  // indices into WavesResult::waves (equal for annihilation)
  int rank_a = 0, rank_b = 0;  // the last ranks each front reached before they met
  int iteration = 0;
  double idle_a = 0, idle_b = 0;  // each front's amplitude where they met
  double residual = 0;            // idle beyond the meeting point (0: annihilated)
  int residual_wave = -1;         // whose front went on, -1: none
};

struct Desync {
  std::vector<double> spread;    // per iteration: latest minus earliest end over ranks, seconds
  std::vector<double> gradient;  // per iteration: least-squares slope of end time along rank, s/rank
  std::vector<double> r2;        // and how well a line fits it
  double spread_median = 0, spread_max = 0;
  double wavefront_fraction = 0;  // of the second half's iterations with a clear gradient of one sign
  bool wavefront = false;         // at least 80 % of them: a persistent gradient
};

struct Detection {
  double floor = 0;  // seconds, as used
  int injected = 0;  // injected delays above the detection threshold (the truth detection is held to)
  int detected = 0;
  int matched = 0;  // detected where one was injected
  int false_alarms = 0;
  int missed = 0;
  bool has_truth = false;
};

struct WavesResult {
  double period_median = 0, compute_median = 0, wait_median = 0;
  Detection detection;
  std::vector<Source> sources;  // the ones analysed, by iteration then rank
  std::vector<Wave> waves;      // one per source
  std::vector<Meeting> meetings;
  Desync desync;
  std::vector<std::string> notes;
};

WavesResult analyze_waves(const IterationTable& table, const WavesOptions& options = {});

// Desynchronisation of a table (part of analyze_waves).
Desync desynchronisation(const IterationTable& table, double floor);

}  // namespace ripple::analysis
