#include "ripple/model/vector_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "tanh_of.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

// libmvec entry points, vector function ABI names (reserved identifiers by design: glibc's).
// NOLINTBEGIN(bugprone-reserved-identifier, readability-identifier-naming)
extern "C" {
__m128d _ZGVbN2v_sin(__m128d);
__m256d _ZGVdN4v_sin(__m256d);
__m512d _ZGVeN8v_sin(__m512d);
__m128d _ZGVbN2v_cos(__m128d);
__m256d _ZGVdN4v_cos(__m256d);
__m512d _ZGVeN8v_cos(__m512d);
}
// NOLINTEND(bugprone-reserved-identifier, readability-identifier-naming)
#endif

namespace ripple::model {
namespace {

using Kernel = void (*)(double*, std::size_t);
using DifferenceKernel = void (*)(const double*, const double*, double*, std::size_t);

// Ripple's tanh is inlined into each instruction set's loop (tanh_of is always_inline: a call per
// element would cost 25 times the vector loop). The targets name instruction sets only, never an
// `arch=`, which GCC would refuse to inline the default-target tanh_of into.
// SUFFIX is pasted into names and ATTRIBUTE stands alone: neither can take parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define RIPPLE_TANH_KERNELS(SUFFIX, ATTRIBUTE)                                                               \
  ATTRIBUTE void tanh_##SUFFIX(double* x, std::size_t n) {                                                   \
    for (std::size_t i = 0; i < n; ++i) x[i] = detail::tanh_of(x[i]);                                        \
  }                                                                                                          \
  ATTRIBUTE void tanh_of_difference_##SUFFIX(const double* l, const double* r, double* out, std::size_t n) { \
    for (std::size_t i = 0; i < n; ++i) out[i] = detail::tanh_of(l[i] - r[i]);                               \
  }
// NOLINTEND(bugprone-macro-parentheses)
RIPPLE_TANH_KERNELS(baseline, )
#if defined(__x86_64__)
RIPPLE_TANH_KERNELS(avx2, __attribute__((target("avx2,fma"))))
RIPPLE_TANH_KERNELS(avx512, __attribute__((target("avx512f"))))
#endif
#undef RIPPLE_TANH_KERNELS

void scalar_sin(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(x[i]);
}
void scalar_cos(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = std::cos(x[i]);
}

#if defined(__x86_64__)
// Full vectors in place; the tail goes through the same vector routine in a zero-padded buffer.
#define RIPPLE_VECTOR_KERNEL(NAME, TARGET, WIDTH, VEC, LOAD, STORE, FN)   \
  __attribute__((target(TARGET))) void NAME(double* x, std::size_t n) {   \
    std::size_t i = 0;                                                    \
    for (; i + (WIDTH) <= n; i += (WIDTH)) STORE(x + i, FN(LOAD(x + i))); \
    if (i == n) return;                                                   \
    alignas(64) double tail[WIDTH] = {};                                  \
    std::memcpy(tail, x + i, (n - i) * sizeof(double));                   \
    STORE(tail, FN(LOAD(tail)));                                          \
    std::memcpy(x + i, tail, (n - i) * sizeof(double));                   \
  }

RIPPLE_VECTOR_KERNEL(sse2_sin, "sse2", 2, __m128d, _mm_loadu_pd, _mm_storeu_pd, _ZGVbN2v_sin)
RIPPLE_VECTOR_KERNEL(avx2_sin, "avx2", 4, __m256d, _mm256_loadu_pd, _mm256_storeu_pd, _ZGVdN4v_sin)
RIPPLE_VECTOR_KERNEL(avx512_sin, "avx512f", 8, __m512d, _mm512_loadu_pd, _mm512_storeu_pd, _ZGVeN8v_sin)
RIPPLE_VECTOR_KERNEL(sse2_cos, "sse2", 2, __m128d, _mm_loadu_pd, _mm_storeu_pd, _ZGVbN2v_cos)
RIPPLE_VECTOR_KERNEL(avx2_cos, "avx2", 4, __m256d, _mm256_loadu_pd, _mm256_storeu_pd, _ZGVdN4v_cos)
RIPPLE_VECTOR_KERNEL(avx512_cos, "avx512f", 8, __m512d, _mm512_loadu_pd, _mm512_storeu_pd, _ZGVeN8v_cos)
#undef RIPPLE_VECTOR_KERNEL
#endif

struct Dispatch {
  const char* isa = "scalar";
  Kernel sin = &scalar_sin;
  Kernel cos = &scalar_cos;
  Kernel tanh = &tanh_baseline;
  DifferenceKernel tanh_of_difference = &tanh_of_difference_baseline;
};

Dispatch choose() {
  Dispatch d;
  const char* env = std::getenv("RIPPLE_VECTOR_ISA");
  const std::string_view want = env != nullptr ? env : "avx512";
  if (want == "scalar") return d;
#if defined(__x86_64__)
  __builtin_cpu_init();
  d = {"sse2", &sse2_sin, &sse2_cos, &tanh_baseline, &tanh_of_difference_baseline};
  if (want == "sse2") return d;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    d = {"avx2", &avx2_sin, &avx2_cos, &tanh_avx2, &tanh_of_difference_avx2};
  if (want == "avx2") return d;
  if (__builtin_cpu_supports("avx512f")) d = {"avx512", &avx512_sin, &avx512_cos, &tanh_avx512, &tanh_of_difference_avx512};
#endif
  return d;
}

const Dispatch& dispatch() {
  static const Dispatch d = choose();
  return d;
}

}  // namespace

void tanh_inplace(double* x, std::size_t n) { dispatch().tanh(x, n); }
void tanh_of_difference(const double* l, const double* r, double* out, std::size_t n) {
  dispatch().tanh_of_difference(l, r, out, n);
}

void sin_inplace(double* x, std::size_t n) { dispatch().sin(x, n); }
void sin_cos(const double* x, double* s, double* c, std::size_t n) {
  if (n == 0) return;
  std::memcpy(s, x, n * sizeof(double));
  std::memcpy(c, x, n * sizeof(double));
  dispatch().sin(s, n);
  dispatch().cos(c, n);
}
const char* vector_isa() { return dispatch().isa; }

}  // namespace ripple::model
