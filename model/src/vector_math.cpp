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

// libmvec entry points, vector function ABI names.
extern "C" {
__m128d _ZGVbN2v_sin(__m128d);
__m256d _ZGVdN4v_sin(__m256d);
__m512d _ZGVeN8v_sin(__m512d);
}
#define RIPPLE_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define RIPPLE_CLONES
#endif

namespace ripple::model {
namespace {

using Kernel = void (*)(double*, std::size_t);

void scalar_sin(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(x[i]);
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
#undef RIPPLE_VECTOR_KERNEL
#endif

struct Dispatch {
  const char* isa = "scalar";
  Kernel sin = &scalar_sin;
};

Dispatch choose() {
  Dispatch d;
  const char* env = std::getenv("RIPPLE_VECTOR_ISA");
  const std::string_view want = env != nullptr ? env : "avx512";
  if (want == "scalar") return d;
#if defined(__x86_64__)
  __builtin_cpu_init();
  d = {"sse2", &sse2_sin};
  if (want == "sse2") return d;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) d = {"avx2", &avx2_sin};
  if (want == "avx2") return d;
  if (__builtin_cpu_supports("avx512f")) d = {"avx512", &avx512_sin};
#endif
  return d;
}

const Dispatch& dispatch() {
  static const Dispatch d = choose();
  return d;
}

}  // namespace

RIPPLE_CLONES void tanh_inplace(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = detail::tanh_of(x[i]);
}

RIPPLE_CLONES void tanh_of_difference(const double* l, const double* r, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::tanh_of(l[i] - r[i]);
}

void sin_inplace(double* x, std::size_t n) { dispatch().sin(x, n); }
const char* vector_isa() { return dispatch().isa; }

}  // namespace ripple::model
