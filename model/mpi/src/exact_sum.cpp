#include "ripple/model/mpi/exact_sum.hpp"

#include <cstring>

#include "ripple/common/mpi_util.hpp"
#include "ripple/model/isa_clones.hpp"

namespace ripple::model {
namespace {
void add_int128(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int k = 0; k < *len; ++k) {
    ExactSum::Accumulator a;
    ExactSum::Accumulator b;
    std::memcpy(&a, static_cast<char*>(in) + 16 * k, 16);
    std::memcpy(&b, static_cast<char*>(inout) + 16 * k, 16);
    b += a;
    std::memcpy(static_cast<char*>(inout) + 16 * k, &b, 16);
  }
}
}  // namespace

ExactSum::ExactSum() {
  static_assert(sizeof(Accumulator) == 16);
  RIPPLE_MPI_CHECK(MPI_Type_contiguous(16, MPI_BYTE, &type_));
  RIPPLE_MPI_CHECK(MPI_Type_commit(&type_));
  RIPPLE_MPI_CHECK(MPI_Op_create(&add_int128, 1, &op_));
}

ExactSum::~ExactSum() {
  if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

RIPPLE_CLONES void ExactSum::add_all(Accumulator& acc, const double* v, std::size_t n) {
  add_each(acc, n, [v](std::size_t i) { return v[i]; });
}

void ExactSum::allreduce(MPI_Comm comm, std::span<Accumulator> values) const {
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), type_, op_, comm));
}

}  // namespace ripple::model
