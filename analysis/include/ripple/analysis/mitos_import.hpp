#pragma once
// `ripple import mitos`: the output of seed 003's toolchain (Mitos with mitoshooks, or the simulator
// variant that feeds the published model runs) as a Ripple trace (docs/cxl.md). Each variant's reader
// turns its files into MitosRecords; build_mitos_trace makes the trace's events (receives with their
// completions), load samples and whole-run counters from them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ripple/trace/trace_file_writer.hpp"

namespace ripple::analysis {

// One MPI call as mitoshooks records it.
struct MitosCall {
  int rank = 0;
  std::string func;  // "MPI_Irecv", "MPI_Wait", ...
  std::uint64_t call_site = 0;
  double t_start = 0, t_end = 0;  // seconds
  std::uint64_t buffer = 0;       // MPI_Wait rows of the simulator: the request
  std::int64_t count = 0, dtype_size = 0;
  int peer = -1, comm = 0, tag = -1;
  std::int64_t request = -1;
};

// One load sample. level indexes kMitosLevelNames.
struct MitosSample {
  int rank = -1;  // -1: not said (pid only)
  std::int64_t pid = -1;
  double time = 0;  // seconds, on the MPI records' clock
  std::uint64_t addr = 0, ip = 0;
  std::uint64_t cycles = 0;
  int level = 0;
  int cpu = -1;
  bool prefetch = false;
};

struct MitosRecords {
  std::string variant;  // "mitoshooks" or "simulator"
  std::vector<MitosCall> calls;
  std::vector<MitosSample> samples;
  bool prefetch_known = false;                            // the samples say demand or prefetch (the simulator does)
  std::map<int, std::map<std::string, double>> counters;  // rank (-1: the whole run) -> name -> total
  std::int64_t malformed_rows = 0;                        // rows left out, over all files
  std::vector<std::string> notes;                         // what the reader assumed, one line each
};

// The level names the trace's samples index (the tracer's DataSource::Level order).
extern const char* const kMitosLevelNames;
// A decoded data source ("L1", "LFB", "Local RAM", "Remote RAM (1 hop)", "Mem", ...) as a level index;
// 0 (Unknown) if not recognised.
int mitos_level(const std::string& text);

// Readers. Each throws InputError (one line, naming the file) for a missing file or a file with no
// usable row; malformed rows are counted in malformed_rows and left out.
MitosRecords read_mitoshooks(const std::string& dir);
MitosRecords read_mitos_simulator(const std::string& dir);
// Which variant DIR holds: "mitoshooks" (data/samples.csv), "simulator" (mpi_trace.csv), else InputError.
std::string detect_mitos_variant(const std::string& dir);

// The trace: events by rank in time order (a wait is followed by one completion record per receive it
// completes, carrying the received bytes, tag and source), samples, counters (two rows per rank: zero
// at the first event, the totals at the last). The simulator's trace says, in its sources, that the
// published tool's conventions apply (`ripple cxl` then uses them).
trace::TraceContent build_mitos_trace(const MitosRecords& r, const std::string& command_line);

}  // namespace ripple::analysis
