#include "ripple/model/vector_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#if defined(__x86_64__)
#include <immintrin.h>

// libmvec entry points, vector function ABI names.
extern "C" {
__m128d _ZGVbN2v_sin(__m128d);
__m256d _ZGVdN4v_sin(__m256d);
__m512d _ZGVeN8v_sin(__m512d);
}
#define RIPPLE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
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

namespace {

// tanh(a) for a = |x| from e = exp(2a) = 2^k (R + r) / (R - r), where 2a = k ln2 + r with
// |r| <= ln2 / 2 and R(r) = r coth(r / 2) = 2 + r^2/6 - r^4/360 + ... (its Bernoulli series; the
// r^14 term is below 1e-17, and an error in R is damped by r/2 in e). Then
//   tanh(a) = (e - 1) / (e + 1) = ((s - 1) R + (s + 1) r) / ((s + 1) R + (s - 1) r),   s = 2^k,
// which needs one division, has no cancellation (for k = 0 it is r / R exactly) and is within a few
// ulp of tanh. Only +, -, *, / and bit operations: every instruction set gives the same bits.
inline double tanh_of(double v) {
  constexpr double kInvLn2 = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits: k * kLn2Hi is exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShifter = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
  constexpr double c1 = 1.0 / 6, c2 = -1.0 / 360, c3 = 1.0 / 15120, c4 = -1.0 / 604800, c5 = 1.0 / 23950080,
                   c6 = -691.0 / 653837184000;
  const double a = std::min(std::fabs(v), 20.0);  // tanh(20) rounds to 1; NaN passes through
  const double y = a + a;
  const double t = y * kInvLn2 + kShifter;
  const double k = t - kShifter;
  const double r = (y - k * kLn2Hi) - k * kLn2Lo;
  const double z = r * r;
  const double big_r = 2.0 + z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))));
  const std::uint64_t kbits = std::bit_cast<std::uint64_t>(t) - std::bit_cast<std::uint64_t>(kShifter);
  const double s = std::bit_cast<double>((kbits + 1023) << 52);  // 2^k, 0 <= k <= 58
  return std::copysign(((s - 1.0) * big_r + (s + 1.0) * r) / ((s + 1.0) * big_r + (s - 1.0) * r), v);
}

}  // namespace

RIPPLE_CLONES void tanh_inplace(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = tanh_of(x[i]);
}

RIPPLE_CLONES void tanh_of_difference(const double* l, const double* r, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = tanh_of(l[i] - r[i]);
}

void sin_inplace(double* x, std::size_t n) { dispatch().sin(x, n); }
const char* vector_isa() { return dispatch().isa; }

}  // namespace ripple::model
