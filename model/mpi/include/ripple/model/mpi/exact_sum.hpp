#pragma once
// Order-independent global sums: values (|v| <= 2^40) are rounded to multiples of 2^-52 and added
// as 128-bit integers, so the result is bitwise the same for any number of ranks and any order.
#include <mpi.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ripple::model {

class ExactSum {
public:
  __extension__ using Accumulator = __int128;
  static constexpr double kScale = 0x1.0p52;

  static void add(Accumulator& acc, double v) {
    const Parts p = parts(v);
    acc += static_cast<Accumulator>(p.whole) * kOne + p.fraction;
  }
  // Adds value(i) for i in [0, n). Written so that it vectorises: the parts of a chunk are summed
  // in 64-bit integers (exactly: a chunk's sums stay below 2^63), then added to the accumulator.
  template <class F>
  static void add_each(Accumulator& acc, std::size_t n, F&& value) {
    constexpr std::size_t kChunk = 2048;  // fractions are below 2^51 in magnitude
    for (std::size_t begin = 0; begin < n; begin += kChunk) {
      const std::size_t end = begin + kChunk < n ? begin + kChunk : n;
      std::int64_t whole = 0, fraction = 0;
      for (std::size_t i = begin; i < end; ++i) {
        const Parts p = parts(value(i));
        whole += p.whole;
        fraction += p.fraction;
      }
      acc += static_cast<Accumulator>(whole) * kOne + fraction;
    }
  }
  // Adds v[0..n): add_each over an array, built for AVX-512, AVX2 and the baseline (the same sum).
  static void add_all(Accumulator& acc, const double* v, std::size_t n);
  static double value(Accumulator acc) { return static_cast<double>(acc) / kScale; }

  ExactSum();  // creates the MPI datatype and operation; needs MPI initialised
  ExactSum(const ExactSum&) = delete;
  ExactSum& operator=(const ExactSum&) = delete;
  ~ExactSum();

  // In-place global sum over comm. Collective.
  void allreduce(MPI_Comm comm, std::span<Accumulator> values) const;

private:
  static constexpr Accumulator kOne = Accumulator{1} << 52;
  // v = whole + fraction * 2^-52 up to rounding of the fraction, both integers: the nearest integer
  // of v and the rest (|rest| <= 1/2, exact) scaled by 2^52 and rounded to nearest. Adding 1.5 * 2^52
  // rounds to an integer held in the low mantissa bits, read off as an integer difference.
  struct Parts {
    std::int64_t whole, fraction;
  };
  static Parts parts(double v) {
    constexpr double kShifter = 0x1.8p52;
    const double w = v + kShifter;
    const double rest = (v - (w - kShifter)) * kScale;
    return {std::bit_cast<std::int64_t>(w) - std::bit_cast<std::int64_t>(kShifter),
            std::bit_cast<std::int64_t>(rest + kShifter) - std::bit_cast<std::int64_t>(kShifter)};
  }

  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

}  // namespace ripple::model
