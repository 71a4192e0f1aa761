#pragma once
// Writes a whole trace from one process (schema ripple-trace, docs/trace-format.md): what importers
// (`ripple import mitos`) and tests make. The tracer itself writes in parallel (tracer/src/trace_writer.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/trace/event.hpp"
#include "ripple/trace/sample_record.hpp"

namespace ripple::trace {

struct TraceContent {
  int ranks = 0;
  std::vector<Event> events;   // ordered by rank, each rank's in time order
  std::string sources = "{}";  // JSON object: which sources ran, and why others did not
  std::string command_line;
  // Counter samples (cumulative values; -1 where unavailable); absent where events is empty.
  std::vector<std::string> counter_events;
  std::string counter_status;
  std::vector<double> counter_time;
  std::vector<std::int32_t> counter_iteration, counter_rank;
  std::vector<std::int64_t> counter_values;  // rows × counter_events, row-major
  // Memory samples; the group is absent where sample_status is empty.
  std::string sample_status;
  std::string level_names;            // newline-separated: SampleRecord::level indexes it
  std::vector<SampleRecord> samples;  // by rank
};

// Throws ripple::Error (with the path) if the file cannot be written, InputError if events are not
// ordered by rank or name a rank outside [0, ranks).
void write_trace_file(const std::string& path, const TraceContent& content);

}  // namespace ripple::trace
