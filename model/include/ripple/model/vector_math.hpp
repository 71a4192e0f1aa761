#pragma once
// Element-wise tanh and sin over arrays through glibc's vector math library (libmvec): several
// times faster than the scalar functions, and each element's result depends only on its own value
// (tails are padded, never computed by a different routine), which keeps results independent of
// how oscillators are spread over ranks.
#include <cstddef>

namespace ripple::model {

void tanh_inplace(double* x, std::size_t n);
void sin_inplace(double* x, std::size_t n);

// The instruction set in use: "avx512", "avx2", "sse2" or "scalar". RIPPLE_VECTOR_ISA in the
// environment can lower it (e.g. to match nodes of a mixed cluster bit for bit).
const char* vector_isa();

}  // namespace ripple::model
