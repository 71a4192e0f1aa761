#pragma once
// Arrays that the vectorised passes stream (the ODE state and its stages, omega, the kernel's block
// buffers) start on a 64-byte cache line. std::vector<double> gives 16-byte alignment, so every
// 512-bit load and store of a pass crossed two cache lines: on the Ice Lake development VM that
// doubled the time of an in-cache triad (0.10 -> 0.21 ns per element) and cost 50 % in L2.
#include <boost/align/aligned_allocator.hpp>
#include <vector>

namespace ripple::model {

using AlignedVector = std::vector<double, boost::alignment::aligned_allocator<double, 64>>;

}  // namespace ripple::model
