#pragma once
// Reads a trace written by libripple-trace (schema ripple-trace, docs/trace-format.md), checking the
// schema, its version, the shapes and the field types before reading anything, and that every table
// it reads is stored whole inside the file (so memory grows with the file's size, never with what
// it only claims, and nothing outside the file, such as an external link or external storage, is
// opened).
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/trace/event.hpp"
#include "ripple/trace/placement_record.hpp"
#include "ripple/trace/sample_record.hpp"

namespace ripple::trace {

class TraceReader {
public:
  // Throws ripple::InputError for a missing, unreadable, foreign, corrupted or truncated file, or a
  // path that is not a regular file (a FIFO would block HDF5's open). With load_tables
  // false, /events and /samples are checked but not read (events() and samples() stay empty):
  // read_events and read_samples then read them piece by piece, so that a large trace needs no more
  // memory than one piece.
  explicit TraceReader(const std::string& path, bool load_tables = true);
  // Events [first, first + count) of /events (every rank's, in rank order; clipped to the table),
  // checked like the constructor's. A time may be NaN (not known: a raw record whose time no recorder
  // writes, see stamp_seconds), never infinite.
  [[nodiscard]] std::vector<Event> read_events(std::int64_t first, std::int64_t count) const;
  // Memory samples [first, first + count) of /samples/records, likewise.
  [[nodiscard]] std::vector<SampleRecord> read_samples(std::int64_t first, std::int64_t count) const;
  [[nodiscard]] std::int64_t event_count() const { return event_count_; }
  [[nodiscard]] std::int64_t sample_count() const { return sample_count_; }
  [[nodiscard]] int ranks() const { return static_cast<int>(count_.size()); }
  [[nodiscard]] const std::vector<std::int64_t>& rank_offsets() const { return offset_; }
  [[nodiscard]] const std::vector<std::int64_t>& rank_counts() const { return count_; }
  [[nodiscard]] const std::vector<std::int64_t>& rank_lost() const { return lost_; }
  // The whole run's lost events (the root attribute): -1 where unknown, as in a recovered trace,
  // whose ranks lost what they recorded after their last spool flush.
  [[nodiscard]] std::int64_t lost_events() const { return lost_events_; }
  // How `ripple trace recover` rebuilt the file, or "" for a trace written at MPI_Finalize.
  [[nodiscard]] const std::string& recovered() const { return recovered_; }
  // What each rank recorded but the file lacks, beyond its lost events (-1: unknown, as in recovered
  // traces, or not recorded by the writer of this file).
  struct Losses {
    std::int64_t samples_lost = -1;        // memory samples lost in the kernel's ring buffer
    std::int64_t samples_dropped = -1;     // memory samples decoded but not kept
    std::int64_t counter_samples = -1;     // counter samples taken but not kept
    std::int64_t requests_untracked = -1;  // requests beyond the tracer's table: their completions have request -1
    std::int64_t peers_untranslated = -1;  // events whose peer could not be translated to a world rank: peer -1
  };
  [[nodiscard]] const std::vector<Losses>& rank_losses() const { return losses_; }
  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  [[nodiscard]] const std::vector<std::string>& call_names() const { return call_names_; }
  [[nodiscard]] const std::string& sources() const { return sources_; }  // rank 0's (JSON)
  // Each rank's own sources, the same JSON (empty for traces written before /ranks/sources).
  [[nodiscard]] const std::vector<std::string>& rank_sources() const { return rank_sources_; }
  [[nodiscard]] std::string call_name(std::int32_t call) const;
  // Counter samples (at MPI_Init, every iteration marker, MPI_Finalize): one row per sample.
  struct Counters {
    std::vector<std::string> events;  // column names
    std::string status;               // per event: active via ... / unavailable: why
    std::vector<double> time;
    std::vector<std::int32_t> iteration, rank;
    std::vector<std::int64_t> values;  // rows x events, row-major; -1 where unavailable
  };
  [[nodiscard]] const Counters& counters() const { return counters_; }
  // Precise memory samples, all ranks in rank order (empty for traces without them).
  [[nodiscard]] const std::vector<SampleRecord>& samples() const { return samples_; }
  [[nodiscard]] const std::string& samples_status() const { return samples_status_; }
  [[nodiscard]] const std::vector<std::string>& sample_level_names() const { return level_names_; }

  // Where each rank ran (empty for traces without it, such as ones recovered from older spools) and
  // on how many nodes.
  [[nodiscard]] const std::vector<Placement>& placement() const { return placement_; }
  [[nodiscard]] int nodes() const;

private:
  void read_counters(std::int64_t file, const std::string& path);  // file: an hid_t (no hdf5.h here)
  void check_samples(std::int64_t file, const std::string& path, bool load);
  void read_rank_sources(std::int64_t file, const std::string& path, std::uint64_t ranks);
  std::string path_;
  std::int64_t event_count_ = 0, sample_count_ = 0;
  std::vector<std::int64_t> offset_, count_, lost_;
  std::int64_t lost_events_ = 0;
  std::string recovered_;
  std::vector<Losses> losses_;
  std::vector<Event> events_;
  std::vector<Placement> placement_;
  Counters counters_;
  std::vector<SampleRecord> samples_;
  std::string samples_status_;
  std::vector<std::string> level_names_;
  std::vector<std::string> call_names_;
  std::string sources_;
  std::vector<std::string> rank_sources_;
};

}  // namespace ripple::trace
