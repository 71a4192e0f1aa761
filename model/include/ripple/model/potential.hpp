#pragma once
// Interaction potentials V(x), x = theta_i - theta_j (unwrapped phases, radians).
#include <cmath>
#include <numbers>

#include "ripple/common/error.hpp"
#include "ripple/model/config.hpp"

namespace ripple::model {

struct KuramotoPotential {
  double operator()(double x) const { return std::sin(x); }
};

struct TanhPotential {
  double operator()(double x) const { return std::tanh(x); }
};

// Resource-bottlenecked: repulsive at short range, attractive at long range. alpha = 3 pi / (2 sigma)
// makes V continuous at |x| = sigma, and a pair settles at a gap of pi / alpha.
struct BottleneckPotential {
  double sigma;
  double alpha;
  explicit BottleneckPotential(double s) : sigma(s), alpha(1.5 * std::numbers::pi / s) {}
  double operator()(double x) const {
    if (std::abs(x) < sigma) return -std::sin(alpha * x);
    return x > 0 ? 1.0 : -1.0;
  }
};

// Calls f with the potential functor chosen by `p` (so the kernel loops are compiled per potential).
template <class F>
decltype(auto) with_potential(Potential p, double sigma, F&& f) {
  switch (p) {
    case Potential::Kuramoto:
      return f(KuramotoPotential{});
    case Potential::Tanh:
      return f(TanhPotential{});
    case Potential::Bottleneck:
      break;
    case Potential::Wait:  // not a pairwise potential (WaitKernel): no functor
      RIPPLE_VERIFY(false, "the wait potential has no pairwise V");
  }
  return f(BottleneckPotential{sigma});
}

}  // namespace ripple::model
