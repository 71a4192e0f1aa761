#pragma once
// MPI_Pcontrol levels reserved for Ripple (docs/trace-format.md): the proxy apps mark iteration
// boundaries with them, and the tracer records them, without the apps linking the tracer.
namespace ripple {
// MPI_Pcontrol(kPcontrolIteration, int iteration): iteration `iteration` starts now. Warm-up
// iterations are negative.
inline constexpr int kPcontrolIteration = 7701;
}  // namespace ripple
