#pragma once
// Order-independent global sums: values (|v| < 2^11) are rounded to multiples of 2^-52 and added as
// 128-bit integers, so the result is bitwise the same for any number of ranks and any order.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <span>

namespace ripple::model {

class ExactSum {
public:
  __extension__ using Accumulator = __int128;
  static constexpr double kScale = 0x1.0p52;

  static void add(Accumulator& acc, double v) { acc += static_cast<Accumulator>(std::llround(v * kScale)); }
  // For 0 <= v <= 2^40: the integer part is added exactly, the fraction like add().
  static void add_wide(Accumulator& acc, double v) {
    const double whole = std::floor(v);
    acc += static_cast<Accumulator>(static_cast<std::int64_t>(whole)) << 52;
    acc += static_cast<Accumulator>(std::llround((v - whole) * kScale));
  }
  static double value(Accumulator acc) { return static_cast<double>(acc) / kScale; }

  ExactSum();  // creates the MPI datatype and operation; needs MPI initialised
  ExactSum(const ExactSum&) = delete;
  ExactSum& operator=(const ExactSum&) = delete;
  ~ExactSum();

  // In-place global sum over comm. Collective.
  void allreduce(MPI_Comm comm, std::span<Accumulator> values) const;

private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

}  // namespace ripple::model
