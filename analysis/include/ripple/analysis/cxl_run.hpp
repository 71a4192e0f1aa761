#pragma once
// What seed 003's model reads from a run (docs/cxl.md): every receive with its buffer, the load
// samples, the whole-run counters. Built from a Ripple trace (cxl_trace.cpp); `ripple import mitos`
// turns the seed toolchain's output into such a trace.
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/analysis/cxl_model.hpp"

namespace ripple::analysis {

struct CxlReceive {
  int rank = 0;
  std::uint64_t call_site = 0;
  int tag = -1, peer = -1;
  std::uint64_t buffer = 0;
  std::int64_t extent = 0;  // bytes the buffer spans
  std::int64_t bytes = 0;   // bytes received (as posted where no completion says)
  double t_post = 0;        // the receive call's entry
  double t_done = 0;        // when it completed (its wait's exit)
};

struct CxlSample {
  int rank = 0;
  double time = 0;
  std::uint64_t addr = 0;
  double cycles = 0;  // load latency in cycles of CLOCK_GHZ
  Bracket bracket = Bracket::Miss;
};

struct CxlRun {
  std::string path;
  int ranks = 0;
  double duration = 0;  // seconds from the first event's entry to the last one's exit
  std::vector<CxlReceive> receives;
  std::vector<CxlSample> samples;           // load samples only, any address
  std::string samples_why;                  // empty: load samples present; else why there are none
  std::int64_t samples_unknown_source = 0;  // samples without a data source, left out
  double sample_rate = 1;                   // loads per sample
  std::string rate_how;
  CounterTotals counters;
  std::string counters_why;  // empty: counters present; else why not
  std::int64_t receives_without_buffer = 0;
  // "published": the trace asks for the published tool's conventions (an import of the Mitos
  // simulator, whose published runs they reproduce); "ripple" otherwise.
  std::string conventions = "ripple";
};

// Reads a Ripple trace. InputError (one line) for a trace without receives, or whose receives carry
// no buffer extent.
CxlRun read_cxl_run(const std::string& path);

}  // namespace ripple::analysis
