#pragma once
// Element-wise tanh and sin over arrays, vectorised. Each element's result depends only on its own
// value (tails are never computed by a different routine), which keeps results independent of how
// oscillators are spread over ranks.
#include <cstddef>

namespace ripple::model {

// Ripple's own tanh (within 3 ulp of the exact value): built for AVX-512, AVX2+FMA and the
// baseline, chosen at run time, and bitwise the same on all of them.
void tanh_inplace(double* x, std::size_t n);
// out[i] = tanh(l[i] - r[i]), bitwise as tanh_inplace of the differences.
void tanh_of_difference(const double* l, const double* r, double* out, std::size_t n);
// glibc's vector math library (libmvec).
void sin_inplace(double* x, std::size_t n);
// s[i] = sin(x[i]), c[i] = cos(x[i]) (libmvec); x may not overlap s or c.
void sin_cos(const double* x, double* s, double* c, std::size_t n);

// The instruction set of sin_inplace, sin_cos and the tanh kernels: "avx512", "avx2", "sse2" or
// "scalar" (the last two run the baseline tanh). RIPPLE_VECTOR_ISA in the environment can lower it,
// e.g. to match the nodes of a mixed cluster bit for bit (tanh's bits never depend on it).
const char* vector_isa();

}  // namespace ripple::model
