#pragma once
// The scalar body of Ripple's vector tanh (vector_math.cpp), in a header so that the unit tests can
// compile it for several instruction sets and check that they agree bit for bit.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ripple::model::detail {

// tanh(a) for a = |x| from e = exp(2a) = 2^k (R + r) / (R - r), where 2a = k ln2 + r with
// |r| <= ln2 / 2 and R(r) = r coth(r / 2) = 2 + r^2/6 - r^4/360 + ... (its Bernoulli series; the
// r^14 term is below 1e-17, and an error in R is damped by r/2 in e). Then
//   tanh(a) = (e - 1) / (e + 1) = ((s - 1) R + (s + 1) r) / ((s + 1) R + (s - 1) r),   s = 2^k,
// which needs one division, has no cancellation (for k = 0 it is r / R exactly) and is within 3 ulp
// of tanh. Only +, -, *, /, fused multiply-adds (std::fma, exactly rounded: hardware FMA in the
// AVX-512 and AVX2 builds, glibc's exact fma in the baseline one) and bit operations: every
// instruction set gives the same bits.
[[gnu::always_inline]] inline double tanh_of(double v) {
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
  const double r = std::fma(-k, kLn2Lo, std::fma(-k, kLn2Hi, y));
  const double z = r * r;
  const double big_r = std::fma(z, std::fma(z, std::fma(z, std::fma(z, std::fma(z, std::fma(z, c6, c5), c4), c3), c2), c1), 2.0);
  const std::uint64_t kbits = std::bit_cast<std::uint64_t>(t) - std::bit_cast<std::uint64_t>(kShifter);
  const double s = std::bit_cast<double>((kbits + 1023) << 52);  // 2^k, 0 <= k <= 58
  return std::copysign(std::fma(s - 1.0, big_r, (s + 1.0) * r) / std::fma(s + 1.0, big_r, (s - 1.0) * r), v);
}

}  // namespace ripple::model::detail
