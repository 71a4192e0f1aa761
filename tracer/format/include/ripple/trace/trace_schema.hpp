#pragma once
// Every name in the HDF5 trace files (docs/trace-format.md): the writer, `ripple trace recover` and
// the reader use these and no literals of their own (trace_layout.hpp: which of them each writes).
// Readers accept versions kOldestVersion to kVersion; a table added to the format raises kVersion.
#include <cstddef>

#include "ripple/trace/event.hpp"

namespace ripple::trace::schema {
inline constexpr const char* kSchema = "ripple-trace";
inline constexpr long kVersion = 1;
inline constexpr long kOldestVersion = 1;

// Root attributes.
inline constexpr const char* kSchemaAttr = "schema";
inline constexpr const char* kVersionAttr = "schema_version";
inline constexpr const char* kEventsAttr = "events";           // total events in /events
inline constexpr const char* kLostEventsAttr = "lost_events";  // total lost, -1 if unknown
inline constexpr const char* kRecoveredAttr = "recovered";     // present in traces `recover` rebuilt (root, /counters, /samples)
inline constexpr const char* kCallNamesAttr = "call_names";    // Event::call indexes this newline-separated list
inline constexpr const char* kSourcesAttr = "sources";         // which sources ran, and why others did not
inline constexpr const char* kClockAttr = "clock";
inline constexpr const char* kClockSourceAttr = "clock_source";  // what stamped rank 0's events: TSC or CLOCK_MONOTONIC, and why

// The events and the per-rank tables.
inline constexpr const char* kEvents = "/events";
inline constexpr const char* kRanks = "/ranks";
inline constexpr const char* kRankOffset = "/ranks/offset";  // first event of each rank in /events
inline constexpr const char* kRankCount = "/ranks/count";
inline constexpr const char* kRankLost = "/ranks/lost";                           // events lost (spool write failures)
inline constexpr const char* kPlacement = "/ranks/placement";                     // host, binding, core, package, NUMA node
inline constexpr const char* kRankSources = "/ranks/sources";                     // each rank's `sources` JSON (fixed-length)
inline constexpr const char* kClockOffset = "/ranks/clock_offset";                // seconds to rank 0's clock at the start
inline constexpr const char* kClockDrift = "/ranks/clock_drift";                  // relative rate against rank 0's clock
inline constexpr const char* kClockError = "/ranks/clock_error";                  // the larger synchronisation error
inline constexpr const char* kLastEventWallTime = "/ranks/last_event_wall_time";  // CLOCK_REALTIME of the last event
inline constexpr const char* kSamplesLost = "/ranks/samples_lost";                // lost in the kernel's ring buffer
inline constexpr const char* kSamplesDropped = "/ranks/samples_dropped";        // decoded, not kept (memory bound, spool failure)
inline constexpr const char* kCountersLost = "/ranks/counters_lost";            // counter samples taken, not kept (spool failure)
inline constexpr const char* kRequestsUntracked = "/ranks/requests_untracked";  // requests beyond the request table: id -1
inline constexpr const char* kPeersUntranslated =
    "/ranks/peers_untranslated";  // completions on long-freed communicators: peer -1

// Node topology.
inline constexpr const char* kTopology = "/topology";
inline constexpr const char* kTopologyXml = "/topology/xml";               // every node's hwloc XML, concatenated bytes
inline constexpr const char* kTopologyXmlOffset = "/topology/xml_offset";  // [nodes + 1] byte offsets

// Counter samples (at MPI_Init, every iteration marker, MPI_Finalize).
inline constexpr const char* kCounters = "/counters";
inline constexpr const char* kCounterTime = "/counters/time";
inline constexpr const char* kCounterIteration = "/counters/iteration";
inline constexpr const char* kCounterRank = "/counters/rank";
inline constexpr const char* kCounterValues = "/counters/values";
inline constexpr const char* kCounterEventsAttr = "events";          // column names, newline-separated
inline constexpr const char* kStatusAttr = "status";                 // of /counters and /samples
inline constexpr const char* kValuesMissingAttr = "values_missing";  // why /counters/values is absent

// Precise memory samples.
inline constexpr const char* kSamplesGroup = "/samples";
inline constexpr const char* kSamples = "/samples/records";  // all ranks by rank
inline constexpr const char* kLevelNamesAttr = "level_names";

// The /events compound type: every Event field under its own name.
struct Field {
  const char* name;
  std::size_t offset;
  enum Type { F64, I64, U64, I32 } type;
};
inline constexpr Field kFields[] = {
    {"t_enter", offsetof(Event, t_enter), Field::F64},     {"t_exit", offsetof(Event, t_exit), Field::F64},
    {"buffer", offsetof(Event, buffer), Field::U64},       {"bytes", offsetof(Event, bytes), Field::I64},
    {"extent", offsetof(Event, extent), Field::I64},       {"request", offsetof(Event, request), Field::I64},
    {"call_site", offsetof(Event, call_site), Field::U64}, {"call", offsetof(Event, call), Field::I32},
    {"peer", offsetof(Event, peer), Field::I32},           {"tag", offsetof(Event, tag), Field::I32},
    {"comm", offsetof(Event, comm), Field::I32},           {"iteration", offsetof(Event, iteration), Field::I32},
    {"count", offsetof(Event, count), Field::I32},         {"same_node", offsetof(Event, same_node), Field::I32},
    {"rank", offsetof(Event, rank), Field::I32},
};
}  // namespace ripple::trace::schema
