#pragma once
// Boost.Odeint algebra for a state distributed over MPI ranks: element-wise operations are local,
// and the stage combinations (odeint's scale_sumN) on contiguous arrays of double go to Ripple's
// vectorised passes (stage_math.hpp), bitwise equal to range_algebra's scalar loops; any other
// operation falls back to range_algebra. The step-size control's error norm is computed by
// DistributedErrorChecker (error_checker.hpp) in one fused pass and one global reduction;
// norm_inf, for any other caller, is the global maximum.
#include <mpi.h>

#include <array>
#include <boost/numeric/odeint/algebra/default_operations.hpp>
#include <boost/numeric/odeint/algebra/range_algebra.hpp>
#include <cmath>
#include <ranges>
#include <type_traits>
#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/model/stage_math.hpp"

namespace ripple::model {

namespace algebra_detail {
using ops = boost::numeric::odeint::default_operations;

template <class Op>
struct Coefficients {  // not a combination of doubles
  static constexpr std::size_t terms = 0;
};
template <>
struct Coefficients<ops::scale_sum1<double>> {
  static constexpr std::size_t terms = 1;
  static std::array<double, 1> of(const ops::scale_sum1<double>& o) { return {o.m_alpha1}; }
};
template <>
struct Coefficients<ops::scale_sum2<double, double>> {
  static constexpr std::size_t terms = 2;
  static std::array<double, 2> of(const ops::scale_sum2<double, double>& o) { return {o.m_alpha1, o.m_alpha2}; }
};
template <>
struct Coefficients<ops::scale_sum3<double, double, double>> {
  static constexpr std::size_t terms = 3;
  static std::array<double, 3> of(const ops::scale_sum3<double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3};
  }
};
template <>
struct Coefficients<ops::scale_sum4<double, double, double, double>> {
  static constexpr std::size_t terms = 4;
  static std::array<double, 4> of(const ops::scale_sum4<double, double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3, o.m_alpha4};
  }
};
template <>
struct Coefficients<ops::scale_sum5<double, double, double, double, double>> {
  static constexpr std::size_t terms = 5;
  static std::array<double, 5> of(const ops::scale_sum5<double, double, double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3, o.m_alpha4, o.m_alpha5};
  }
};
template <>
struct Coefficients<ops::scale_sum6<double, double, double, double, double, double>> {
  static constexpr std::size_t terms = 6;
  static std::array<double, 6> of(const ops::scale_sum6<double, double, double, double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3, o.m_alpha4, o.m_alpha5, o.m_alpha6};
  }
};
template <>
struct Coefficients<ops::scale_sum7<double, double, double, double, double, double, double>> {
  static constexpr std::size_t terms = 7;
  static std::array<double, 7> of(const ops::scale_sum7<double, double, double, double, double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3, o.m_alpha4, o.m_alpha5, o.m_alpha6, o.m_alpha7};
  }
};
template <>
struct Coefficients<ops::scale_sum8<double, double, double, double, double, double, double, double>> {
  static constexpr std::size_t terms = 8;
  static std::array<double, 8> of(const ops::scale_sum8<double, double, double, double, double, double, double, double>& o) {
    return {o.m_alpha1, o.m_alpha2, o.m_alpha3, o.m_alpha4, o.m_alpha5, o.m_alpha6, o.m_alpha7, o.m_alpha8};
  }
};

template <class... S>
constexpr bool kDoubleVectors = ((std::ranges::contiguous_range<S> && std::ranges::sized_range<S> &&
                                  std::is_same_v<std::ranges::range_value_t<S>, double>)&&...);

// Vectorised when the operation is a combination of doubles of that many inputs on double vectors.
template <class Op, class Out, class... In>
constexpr bool kVectorised = kDoubleVectors<Out, In...>&& Coefficients<Op>::terms == sizeof...(In);

template <class Op, class Out, class... In>
void combine(Out& out, const Op& op, In&... in) {
  const std::size_t n = out.size();
  RIPPLE_VERIFY(((in.size() == n) && ...), "stage combination of vectors of different sizes");
  const std::array<const double*, sizeof...(In)> p{in.data()...};
  const auto c = Coefficients<Op>::of(op);
  linear_combination(out.data(), p, c, n);
}
}  // namespace algebra_detail

struct MpiAlgebra : boost::numeric::odeint::range_algebra {
  MPI_Comm comm = MPI_COMM_SELF;

  using range_algebra::for_each3;
  using range_algebra::for_each4;
  using range_algebra::for_each5;
  using range_algebra::for_each6;
  using range_algebra::for_each7;
  using range_algebra::for_each8;
  using range_algebra::for_each9;

  template <class S1, class S2, class S3, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3>
  static void for_each3(S1& s1, S2& s2, S3& s3, Op op) { algebra_detail::combine(s1, op, s2, s3); }
  template <class S1, class S2, class S3, class S4, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4>
  static void for_each4(S1& s1, S2& s2, S3& s3, S4& s4, Op op) { algebra_detail::combine(s1, op, s2, s3, s4); }
  template <class S1, class S2, class S3, class S4, class S5, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4, S5>
  static void for_each5(S1& s1, S2& s2, S3& s3, S4& s4, S5& s5, Op op) { algebra_detail::combine(s1, op, s2, s3, s4, s5); }
  template <class S1, class S2, class S3, class S4, class S5, class S6, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4, S5, S6>
  static void for_each6(S1& s1, S2& s2, S3& s3, S4& s4, S5& s5, S6& s6, Op op) {
    algebra_detail::combine(s1, op, s2, s3, s4, s5, s6);
  }
  template <class S1, class S2, class S3, class S4, class S5, class S6, class S7, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4, S5, S6, S7>
  static void for_each7(S1& s1, S2& s2, S3& s3, S4& s4, S5& s5, S6& s6, S7& s7, Op op) {
    algebra_detail::combine(s1, op, s2, s3, s4, s5, s6, s7);
  }
  template <class S1, class S2, class S3, class S4, class S5, class S6, class S7, class S8, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4, S5, S6, S7, S8>
  static void for_each8(S1& s1, S2& s2, S3& s3, S4& s4, S5& s5, S6& s6, S7& s7, S8& s8, Op op) {
    algebra_detail::combine(s1, op, s2, s3, s4, s5, s6, s7, s8);
  }
  template <class S1, class S2, class S3, class S4, class S5, class S6, class S7, class S8, class S9, class Op>
  requires algebra_detail::kVectorised<Op, S1, S2, S3, S4, S5, S6, S7, S8, S9>
  static void for_each9(S1& s1, S2& s2, S3& s3, S4& s4, S5& s5, S6& s6, S7& s7, S8& s8, S9& s9, Op op) {
    algebra_detail::combine(s1, op, s2, s3, s4, s5, s6, s7, s8, s9);
  }

  template <class State>
  double norm_inf(const State& s) const {
    // max is exact and order-independent: the same for any number of ranks.
    double local = max_abs(s.data(), s.size());
    RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_MAX, comm));
    return local;
  }
};

}  // namespace ripple::model
