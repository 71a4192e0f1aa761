#pragma once
// Reads an HDF5 file written by `ripple sim`, checking its schema, version, shapes and types.
#include <cstdint>
#include <string>
#include <vector>

namespace ripple::model {

class SimReader {
public:
  // Throws ripple::InputError if the file is missing, not a ripple-sim file, of a schema version
  // it does not read (1 and 2), or has datasets of unexpected shape or type.
  explicit SimReader(const std::string& path);
  SimReader(const SimReader&) = delete;
  SimReader& operator=(const SimReader&) = delete;
  ~SimReader();

  [[nodiscard]] std::int64_t oscillators() const { return n_; }
  [[nodiscard]] std::int64_t times() const { return t_; }
  [[nodiscard]] std::vector<double> time() const;
  [[nodiscard]] std::vector<double> omega() const;
  [[nodiscard]] std::vector<double> order_parameter() const;
  [[nodiscard]] std::vector<double> phase_row(std::int64_t k) const;  // all oscillators at time k
  [[nodiscard]] std::vector<double> phases() const;                   // [times x oscillators]
  [[nodiscard]] std::string config() const;

  // /iteration_end (version 2, `[output] iterations`): element (i, k) is the first time oscillator i
  // reached 2π(k+1), NaN where it did not between t = 0 (exclusive) and t_end.
  [[nodiscard]] bool has_iteration_end() const { return has_iteration_end_; }
  [[nodiscard]] std::int64_t iterations() const { return k_; }  // K; 0 without /iteration_end
  [[nodiscard]] std::vector<double> iteration_end() const;      // [oscillators x K]
  // Rows [first, first + count): [count x K].
  [[nodiscard]] std::vector<double> iteration_end_rows(std::int64_t first, std::int64_t count) const;

private:
  [[nodiscard]] std::vector<double> read_1d(const char* name, std::int64_t expected) const;
  long file_ = -1;
  std::int64_t n_ = 0;
  std::int64_t t_ = 0;
  std::int64_t k_ = 0;
  bool has_iteration_end_ = false;
  std::string path_;
};

}  // namespace ripple::model
