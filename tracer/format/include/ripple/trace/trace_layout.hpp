#pragma once
// The trace file's layout (docs/trace-format.md): which groups, datasets and attributes a trace of
// the tracer holds, and what a recovered one (`ripple trace recover`) holds where the spools cannot
// say. Both writers (tracer/src/trace_writer.cpp at MPI_Finalize, tracer/src/recover.cpp) write the
// per-rank tables from kRankColumns, each through a switch over RankColumn without a default (a
// column added here that a writer does not fill is a -Wswitch warning in each), and
// tests/e2e/trace_crash.sh compares the names in a finalized and a recovered trace, allowing only
// the differences kRecoveredOnly and kConditional name.
#include <cstdint>
#include <limits>

#include "ripple/trace/trace_schema.hpp"

namespace ripple::trace::layout {

// The per-rank tables of one number per rank ([ranks], native int64 or double).
enum class RankColumn {
  Offset,
  Count,
  Lost,
  RequestsUntracked,
  PeersUntranslated,
  CountersLost,
  SamplesLost,
  SamplesDropped,
  ClockOffset,
  ClockDrift,
  ClockError,
  LastEventWallTime,
};

enum class Number { I64, F64 };

// The value a recovered trace has where its spools do not say (docs/trace-format.md).
inline constexpr std::int64_t kUnknownCount = -1;
inline constexpr double kUnknownTime = std::numeric_limits<double>::quiet_NaN();

struct RankColumnSpec {
  RankColumn column;
  const char* name;
  Number type;
  // In a recovered trace: what the column holds (the spools keep no more).
  const char* recovered;
};

inline constexpr RankColumnSpec kRankColumns[] = {
    {RankColumn::Offset, schema::kRankOffset, Number::I64, "as at MPI_Finalize"},
    {RankColumn::Count, schema::kRankCount, Number::I64, "as at MPI_Finalize"},
    {RankColumn::Lost, schema::kRankLost, Number::I64, "what reached the spool and is not in the file; -1 where it does not say"},
    {RankColumn::RequestsUntracked, schema::kRequestsUntracked, Number::I64, "-1 (unknown)"},
    {RankColumn::PeersUntranslated, schema::kPeersUntranslated, Number::I64, "-1 (unknown)"},
    {RankColumn::CountersLost, schema::kCountersLost, Number::I64, "-1 (unknown)"},
    {RankColumn::SamplesLost, schema::kSamplesLost, Number::I64, "-1 (unknown)"},
    {RankColumn::SamplesDropped, schema::kSamplesDropped, Number::I64, "-1 (unknown)"},
    {RankColumn::ClockOffset, schema::kClockOffset, Number::F64, "the offset measured at MPI_Init; NaN where not known"},
    {RankColumn::ClockDrift, schema::kClockDrift, Number::F64, "NaN (unknown: no second measurement; times use none)"},
    {RankColumn::ClockError, schema::kClockError, Number::F64, "the error at MPI_Init; NaN where not known"},
    {RankColumn::LastEventWallTime, schema::kLastEventWallTime, Number::F64,
     "as at MPI_Finalize; -1 for a rank without events, NaN where its clock is damaged"},
};

// What a recovered trace has and a finalized one has not (attributes as "object@name").
inline constexpr const char* kRecoveredOnly[] = {"/@recovered", "/counters@recovered", "/samples@recovered"};

// What either may lack, and why: a recovered trace has /counters, /samples, /ranks/placement and
// /topology only where the run left those spools; /counters/values is absent (and the attribute
// values_missing says why) where the ranks counted different event lists.
inline constexpr const char* kConditional[] = {
    schema::kCounters,      schema::kCounterTime, schema::kCounterIteration, schema::kCounterRank,
    schema::kCounterValues, "/counters@events",   "/counters@status",        "/counters@values_missing",
    schema::kSamplesGroup,  schema::kSamples,     "/samples@status",         "/samples@level_names",
    schema::kPlacement,     schema::kTopology,    schema::kTopologyXml,      schema::kTopologyXmlOffset,
};

}  // namespace ripple::trace::layout
