#pragma once
// MPI_Pcontrol levels reserved for Ripple (docs/trace-format.md, "Iteration markers"): the proxy apps
// mark their iterations and injected delays with them, and the tracer records them, without the
// apps linking the tracer. Any MPI program can use them the same way.
namespace ripple {
// MPI_Pcontrol(kPcontrolIteration, int iteration): iteration `iteration` starts now. Timed
// iterations count from 0; warm-up iterations are negative (-warmup ... -1).
inline constexpr int kPcontrolIteration = 7701;
// MPI_Pcontrol(kPcontrolDelay, int iteration, double seconds): this rank now spends `seconds` of
// injected work (--delay and --noise together) in iteration `iteration`: the run's ground truth.
inline constexpr int kPcontrolDelay = 7702;
// MPI_Pcontrol(kPcontrolLoopEnd): the last marked iteration ends now (what follows is the program's
// epilogue: verification, reports).
inline constexpr int kPcontrolLoopEnd = 7703;
}  // namespace ripple
