#include "ripple/model/mpi/simulator.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>

#include "checkpoint.hpp"
#include "local_model.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/model/aligned_vector.hpp"
#include "ripple/model/delay_history.hpp"
#include "ripple/model/mpi/crossing_tracker.hpp"
#include "ripple/model/mpi/error_checker.hpp"
#include "ripple/model/mpi/exact_sum.hpp"
#include "ripple/model/mpi/ghost_exchange.hpp"
#include "ripple/model/mpi/mpi_algebra.hpp"
#include "ripple/model/mpi/partition.hpp"
#include "ripple/model/mpi/run_control.hpp"
#include "ripple/model/mpi/sim_writer.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/rhs_kernel.hpp"
#include "ripple/model/step_adjuster.hpp"
#include "ripple/model/vector_math.hpp"
#include "sim_outputs.hpp"

namespace ripple::model {
namespace {

namespace odeint = boost::numeric::odeint;
using detail::CheckpointHeader;
using detail::Coupling;
using detail::DistributedSystem;
using detail::LocalModel;
using detail::Observables;
using detail::observe;
using detail::OutputTimes;
using detail::State;

// Integrates segment by segment. Segments end where the right-hand side jumps: at kicks, at the
// boundaries of the noise and delay-jitter intervals, and where a kick reaches a partner through a
// constant delay. Each segment starts afresh from the state at its start, so both steppers keep
// their order, and the noise of a segment is that of its interval on its whole closed span.
class Integrator {
public:
  Integrator(MPI_Comm comm, const SimConfig& cfg, LocalModel& m, SimWriter& writer, const SimOptions& options,
             const CheckpointHeader* resume)
      : comm_(comm),
        cfg_(cfg),
        m_(m),
        writer_(writer),
        options_(options),
        sys_(comm, m, exact_),
        rank0_(comm_rank(comm) == 0),
        outputs_(cfg),
        // A resumed run pauses for a test only at a step it has not reached before.
        control_(comm, cfg.output.flush_seconds,
                 resume != nullptr && resume->steps >= options.test_pause.step ? TestPause{} : options.test_pause),
        resume_(resume) {
    dt_ = cfg.solver.dt > 0 ? cfg.solver.dt : cfg.mean_period() / 100.0;
    if (m.coupling == Coupling::Delayed) {
      tau_min_ = cfg.delay.mean - cfg.delay.jitter;
      tau_max_ = cfg.delay.mean + cfg.delay.jitter;
      dt_ = std::min(dt_, tau_min_);
    }
    kicks_ = cfg.kicks;
    std::stable_sort(kicks_.begin(), kicks_.end(), [](const Kick& a, const Kick& b) { return a.time < b.time; });
    // `wait` pauses a kicked process for the kick's delay instead of moving its phase back (which
    // would take back the posts it made): the right-hand side also changes where the pause ends.
    pause_ = cfg.model.potential == Potential::Wait;
    for (const Kick& k : kicks_) {
      kinks_.push_back(k.time);
      if (pause_ && k.delay > 0) kinks_.push_back(k.time + k.delay);
    }
    for (const double at : kinks_) {
      breaks_.push_back(at);
      if (m.coupling == Coupling::Delayed && cfg.delay.jitter == 0) breaks_.push_back(at + cfg.delay.mean);
    }
    std::sort(breaks_.begin(), breaks_.end());
    if (cfg.noise.kind != NoiseKind::None && cfg.noise.amplitude > 0) noise_interval_ = cfg.noise_interval();
    if (m.coupling == Coupling::Delayed && cfg.delay.jitter > 0) delay_interval_ = cfg.delay_interval();
  }

  [[nodiscard]] const OutputTimes& outputs() const { return outputs_; }

  // Returns false where a signal stopped the run (after its checkpoint).
  bool run(State& x, SimStats& stats) {
    start_wall_ = last_progress_ = MPI_Wtime();
    if (cfg_.output.iterations)  // θ_i(0) before any kick at t = 0: the levels passed at the start
      crossings_ = std::make_unique<CrossingTracker>(comm_, writer_, x, m_.kernel->omega(), cfg_.solver.t_end,
                                                     options_.iteration_flush_periods, options_.iteration_window_columns);
    double t = 0.0;
    if (resume_ != nullptr) {
      detail::read_checkpoint(comm_, cfg_, *resume_, m_, x, crossings_.get());
      t = seg_start_ = resume_->segment_start;
      next_output_ = resume_->next_output;
      steps_ = resume_->steps;
      rejected_ = resume_->rejected_steps;
      sys_.evaluations = resume_->rhs_evaluations;
    }
    bool complete = true;
    try {
      if (cfg_.solver.method == Method::Dopri5)
        run_dopri5(x, t);
      else
        run_rk4(x, t);
    } catch (const Stopped& stop) {
      x = stop.x;
      t = stop.t;
      complete = false;
    }
    if (crossings_) stats.iterations = complete ? crossings_->finish() : crossings_->extent();
    const Observables o = observe(comm_, exact_, x, cfg_.model.oscillators);
    stats.steps = steps_;
    stats.rejected_steps = rejected_;
    stats.rhs_evaluations = sys_.evaluations;
    stats.output_times = outputs_.count();
    stats.final_time = t;
    stats.final_order_parameter = o.order_parameter;
    stats.final_phase_spread = o.spread;
    stats.final_lag_seconds = o.spread * cfg_.mean_period() / (2.0 * std::numbers::pi);
    stats.wall_seconds = MPI_Wtime() - start_wall_;
    return complete;
  }

private:
  // Unwinds the integration loops where a signal stopped the run; the state it stopped at.
  struct Stopped {
    State x;
    double t;
  };

  // Between two steps, at (t, x), the next step of size dt: flushes the output and writes a
  // checkpoint when it is time or a signal came, and throws Stopped after a signal's. Neither
  // changes the integration: a checkpoint holds exactly what the next steps need.
  void between_steps(const State& x, double t, double dt) {
    const RunControl::Action action = control_.poll(steps_);
    if (action == RunControl::Action::None) return;
    if (crossings_) crossings_->flush_ready();
    writer_.flush(t);
    CheckpointHeader h;
    h.time = t;
    h.segment_start = seg_start_;
    h.step_size = dt;
    h.next_output = next_output_;
    h.steps = steps_;
    h.rejected_steps = rejected_;
    h.rhs_evaluations = sys_.evaluations;
    detail::write_checkpoint(comm_, cfg_, h, m_, x, crossings_.get());
    control_.flushed();
    if (action == RunControl::Action::Stop) throw Stopped{x, t};
  }

  static double next_multiple(double t, double interval) {
    double k = std::floor(t / interval) + 1;
    while (k * interval <= t) k += 1;
    return k * interval;
  }

  [[nodiscard]] double segment_end(double t) const {
    double end = cfg_.solver.t_end;
    const auto it = std::upper_bound(breaks_.begin(), breaks_.end(), t);
    if (it != breaks_.end()) end = std::min(end, *it);
    if (noise_interval_ > 0) end = std::min(end, next_multiple(t, noise_interval_));
    if (delay_interval_ > 0) end = std::min(end, next_multiple(t, delay_interval_));
    return end;
  }

  // Output k belongs to the segment [t, end) (or [t, end] for the last one).
  [[nodiscard]] bool in_segment(std::int64_t k, double end) const {
    return k < outputs_.count() && (outputs_.at(k) < end || (end == cfg_.solver.t_end && outputs_.at(k) <= end));
  }

  // At a segment start t with the state x there: close the history of the previous segment (its
  // left limit), apply kicks, switch the noise and delay intervals, open the history anew.
  void begin_segment(State& x, double t, double end) {
    if (m_.history && t > 0) {
      m_.history->truncate_after(t);  // a step may have overshot t
      push_history(t, x);
    }
    for (const Kick& k : kicks_) {
      if (pause_ || k.time != t) continue;
      const auto& ids = m_.graph.local_ids;
      const auto it = std::lower_bound(ids.begin(), ids.end(), k.oscillator);
      if (it != ids.end() && *it == k.oscillator) {
        const auto l = static_cast<std::size_t>(it - ids.begin());
        x[l] -= m_.kernel->omega()[l] * k.delay;  // falls behind by k.delay seconds
      }
    }
    segment_settings(t, end);
    if (m_.history) {
      if (t == 0)
        push_history_start(x, t);
      else
        push_history(t, x);
    }
  }

  // What a segment [t, end) sets up besides the state: the oscillators `wait`'s kicks pause, the
  // noise and delay intervals, the delayed image of the segment; and the derivatives at hand no
  // longer hold. A function of t and end alone: a resumed run sets it up from its checkpoint's.
  void segment_settings(double t, double end) {
    seg_start_ = t;
    const double mid = 0.5 * (t + end);  // safely inside the segment's intervals
    std::vector<std::uint32_t> paused;
    for (const Kick& k : kicks_) {
      if (!pause_ || !(k.time <= mid && mid < k.time + k.delay)) continue;
      const auto& ids = m_.graph.local_ids;
      const auto it = std::lower_bound(ids.begin(), ids.end(), k.oscillator);
      if (it != ids.end() && *it == k.oscillator) paused.push_back(static_cast<std::uint32_t>(it - ids.begin()));
    }
    m_.kernel->set_paused(std::move(paused));
    m_.kernel->set_intervals(noise_interval_ > 0 ? static_cast<std::int64_t>(std::floor(mid / noise_interval_)) : 0,
                             delay_interval_ > 0 ? static_cast<std::int64_t>(std::floor(mid / delay_interval_)) : 0);
    sys_.last_derivative = nullptr;
    slope_time_ = HUGE_VAL;  // rk4's derivative at the step start: the kick and the new intervals change it
    if (m_.history && cfg_.delay.jitter == 0) {
      // The delayed image of this segment; its ends are exactly the kick times it starts or ends at.
      const double tau = cfg_.delay.mean;
      double lo = t - tau, hi = end - tau;
      for (const double at : kinks_) {
        if (at + tau == t) lo = at;
        if (at + tau == end) hi = at;
      }
      m_.history->set_window(lo, hi);
    }
  }

  void run_dopri5(State& x, double& t) {
    using Dopri = odeint::runge_kutta_dopri5<State, double, State, double, MpiAlgebra>;
    MpiAlgebra algebra;
    algebra.comm = comm_;
    const double max_dt = m_.coupling == Coupling::Delayed ? tau_min_ : 0.0;
    // odeint's dense-output dopri5 (as make_dense_output builds it) with the standard step-size control.
    using Controlled = odeint::controlled_runge_kutta<Dopri, DistributedErrorChecker, StandardStepAdjuster,
                                                      odeint::initially_resizer, odeint::explicit_error_stepper_fsal_tag>;
    const DistributedErrorChecker checker(cfg_.solver.atol, cfg_.solver.rtol, comm_,
                                          cfg_.solver.norm == ErrorNorm::Rms ? &exact_ : nullptr, cfg_.model.oscillators);
    odeint::dense_output_runge_kutta<Controlled> stepper(
        Controlled(checker, StandardStepAdjuster(max_dt, &rejected_), Dopri(algebra)));
    State xo(x.size());
    const auto step = [&](double end) {
      between_steps(stepper.current_state(), stepper.current_time(), stepper.current_time_step());
      const double t_old = stepper.current_time();
      stepper.do_step(std::ref(sys_));
      after_step(t_old, stepper.current_time(), stepper.current_state());
      if (crossings_)
        crossings_->scan({t_old, stepper.current_time(), &stepper.previous_state(), &stepper.current_state(),
                          [&](double at, State& out) { stepper.calc_state(at, out); }},
                         std::min(stepper.current_time(), end));
    };
    while (true) {
      const double end = segment_end(t);
      if (resume_ != nullptr && !resumed_) {  // from the checkpoint, in the middle of its segment
        resumed_ = true;
        segment_settings(t, end);
        stepper.initialize(x, resume_->time, resume_->step_size);
      } else {
        begin_segment(x, t, end);
        stepper.initialize(x, t, dt_);
      }
      for (; in_segment(next_output_, end); ++next_output_) {
        const double to = outputs_.at(next_output_);
        while (stepper.current_time() < to) step(end);
        if (to == stepper.current_time())
          xo = stepper.current_state();
        else
          stepper.calc_state(to, xo);
        emit(to, xo);
      }
      while (stepper.current_time() < end) step(end);
      if (end == stepper.current_time())
        x = stepper.current_state();
      else
        stepper.calc_state(end, x);
      dt_ = std::min(stepper.current_time_step(), max_dt > 0 ? max_dt : HUGE_VAL);
      t = end;
      if (end >= cfg_.solver.t_end) return;
    }
  }

  void run_rk4(State& x, double& t) {
    using Rk4 = odeint::runge_kutta4<State, double, State, double, MpiAlgebra>;
    MpiAlgebra algebra;
    algebra.comm = comm_;
    Rk4 stepper(algebra);
    if (crossings_) {
      slope_old_.resize(x.size());
      slope_new_.resize(x.size());
    }
    const auto advance_to = [&](double target) {
      while (t < target) {
        between_steps(x, t, dt_);
        double h = std::min(dt_, target - t);
        if (target - (t + h) < 1e-9 * dt_) h = target - t;  // land exactly on the target
        const double t_old = t;
        if (crossings_) {
          // The cubic Hermite interpolant needs dθ/dt at both ends: the start's is passed in (the
          // same step as without), the end's is the next step's start.
          if (slope_time_ != t) sys_(x, slope_old_, t);
          x_old_ = x;
          stepper.do_step(std::ref(sys_), x, slope_old_, t, h);
        } else {
          stepper.do_step(std::ref(sys_), x, t, h);
        }
        t = h == target - t ? target : t + h;
        if (crossings_) {
          sys_(x, slope_new_, t);
          crossings_->scan({t_old, t, &x_old_, &x, {}, &slope_old_, &slope_new_}, t);
        }
        after_step(t_old, t, x);  // (delays: its history entry takes slope_new_)
        if (crossings_) {
          std::swap(slope_old_, slope_new_);
          slope_time_ = t;
        }
      }
    };
    while (true) {
      const double end = segment_end(t);
      if (resume_ != nullptr && !resumed_) {  // from the checkpoint, in the middle of its segment
        resumed_ = true;
        segment_settings(t, end);
        t = resume_->time;
      } else {
        begin_segment(x, t, end);
      }
      for (; in_segment(next_output_, end); ++next_output_) {
        advance_to(outputs_.at(next_output_));
        emit(t, x);
      }
      advance_to(end);
      if (end >= cfg_.solver.t_end) return;
    }
  }

  void after_step(double t_old, double t_new, const State& x) {
    ++steps_;
    if (m_.history) {
      push_history(t_new, x);
      m_.history->discard_before(t_old - tau_max_);
    }
    if (rank0_ && options_.progress && MPI_Wtime() - last_progress_ > options_.progress_every) {
      last_progress_ = MPI_Wtime();
      const double elapsed = last_progress_ - start_wall_;
      // A step may end past t_end (dense output interpolates back): the progress never passes 100 %.
      const double t_shown = std::min(t_new, cfg_.solver.t_end);
      const double frac = t_shown / cfg_.solver.t_end;
      std::fprintf(stderr, "ripple sim: t = %.6g of %.6g s (%.0f%%), %lld steps, %.0f steps/s, eta %.0f s\n", t_shown,
                   cfg_.solver.t_end, 100.0 * frac, static_cast<long long>(steps_), static_cast<double>(steps_) / elapsed,
                   elapsed * (1.0 - frac) / std::max(frac, 1e-12));
    }
  }

  // Derivative at (x, t). After an accepted dopri5 step the system's last evaluation was exactly
  // there (first-same-as-last), and so was rk4's with iterations (slope_new_); otherwise (rk4,
  // segment starts) it costs one more evaluation.
  const State& derivative(const State& x, double t) {
    const bool exact = cfg_.solver.method == Method::Dopri5 || sys_.last_derivative == &slope_new_;
    if (exact && sys_.last_time == t && sys_.last_derivative != nullptr) return *sys_.last_derivative;
    scratch_.resize(x.size());
    sys_(x, scratch_, t);
    sys_.last_derivative = nullptr;  // scratch_ is ours, not the stepper's
    return scratch_;
  }

  void push_history(double t, const State& x) {
    const State& d = derivative(x, t);
    const std::size_t n = x.size();
    values_.resize(m_.history->width());
    derivs_.resize(m_.history->width());
    std::copy(x.begin(), x.end(), values_.begin());
    std::copy(d.begin(), d.end(), derivs_.begin());
    m_.exchange->exchange(values_.data(), values_.data() + n);
    m_.exchange->exchange(derivs_.data(), derivs_.data() + n);
    m_.history->push(t, values_, derivs_);
  }

  // The first entry's derivative needs the history itself; before t0 it is free running at omega.
  void push_history_start(const State& x, double t) {
    values_.resize(m_.history->width());
    std::copy(x.begin(), x.end(), values_.begin());
    m_.exchange->exchange(values_.data(), values_.data() + x.size());
    std::vector<double> omega_all(m_.history->width(), 0.0);
    m_.history->push(t, values_, omega_all);  // derivatives unused for lookups before t
    scratch_.resize(x.size());
    sys_(x, scratch_, t);
    const State d = scratch_;
    m_.history->truncate_after(std::nextafter(t, -HUGE_VAL));
    derivs_.resize(m_.history->width());
    std::copy(d.begin(), d.end(), derivs_.begin());
    m_.exchange->exchange(derivs_.data(), derivs_.data() + x.size());
    m_.history->push(t, values_, derivs_);
  }

  void emit(double t, const State& x) {
    const Observables o = observe(comm_, exact_, x, cfg_.model.oscillators);
    writer_.write_phase(next_output_, t, o.order_parameter, x);
  }

  MPI_Comm comm_;
  const SimConfig& cfg_;
  LocalModel& m_;
  SimWriter& writer_;
  SimOptions options_;
  ExactSum exact_;
  DistributedSystem sys_;
  bool rank0_;
  OutputTimes outputs_;
  RunControl control_;
  const CheckpointHeader* resume_;  // nullptr: from t = 0
  bool resumed_ = false;
  double seg_start_ = 0;  // where the current segment began
  std::int64_t next_output_ = 0;
  double dt_ = 0;
  double tau_min_ = 0;
  double tau_max_ = 0;
  double noise_interval_ = 0;  // 0: no noise
  double delay_interval_ = 0;  // 0: no jitter
  std::vector<Kick> kicks_;
  std::vector<double> kinks_;   // where the right-hand side jumps: kick times, and `wait`'s pause ends
  bool pause_ = false;          // kicks pause (`wait`) rather than move a phase back
  std::vector<double> breaks_;  // kinks, and kinks + a constant delay
  std::int64_t steps_ = 0;
  std::int64_t rejected_ = 0;
  double start_wall_ = 0;
  double last_progress_ = 0;
  State scratch_, values_, derivs_;
  std::unique_ptr<CrossingTracker> crossings_;  // [output] iterations
  State x_old_, slope_old_, slope_new_;         // rk4 with iterations: the step's start, dθ/dt at its ends
  double slope_time_ = HUGE_VAL;                // when slope_old_ was taken (at x)
};

std::int64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_maxrss) * 1024;
}

}  // namespace

SimStats simulate(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, const SimOptions& options) {
  SimStats stats;
  stats.oscillators = cfg.model.oscillators;
  stats.ranks = comm_size(comm);
  stats.output_file = cfg.output.file;

  // Rank-local preparation: any failure here is agreed on by every rank before anyone goes on.
  Topology topology;
  std::vector<double> file_phases;
  LocalModel model;
  Partition part;
  run_collectively(comm, [&] {
    topology = Topology::from_config(cfg.topology, cfg.model.oscillators);
    if (cfg.initial.kind == InitialKind::File) file_phases = read_phase_file(cfg.initial.file, cfg.model.oscillators);
    part = make_partition(comm, topology);
    detail::prepare_local_model(cfg, topology, part, model);
  });
  stats.partition = model.partition;
  State x;
  x.reserve(model.graph.n_local());
  for (const std::int64_t i : model.graph.local_ids) x.push_back(initial_phase(cfg, i, file_phases));
  file_phases = {};

  // --resume: the checkpoint and the output are checked before anything is written.
  CheckpointHeader resume;
  if (options.resume) resume = detail::inspect_checkpoint(comm, cfg);
  const SimWriter::Mode mode = options.resume  ? SimWriter::Mode::Resume
                               : options.force ? SimWriter::Mode::Overwrite
                                               : SimWriter::Mode::Create;
  SimWriter writer(comm, cfg, provenance, model.graph.local_ids, OutputTimes(cfg).count(), mode, resume.next_output);
  // From here on every rank is inside collectives: an error on one rank cannot be agreed on, so it
  // aborts the job (before unwinding, which would wait in collective HDF5 closes).
  abort_on_error(comm, [&] {
    detail::connect_local_model(comm, cfg, model);
    writer.write_omega(model.kernel->omega());
    Integrator integrator(comm, cfg, model, writer, options, options.resume ? &resume : nullptr);
    stats.stopped = !integrator.run(x, stats);
    if (stats.stopped) {
      writer.close();  // flushed with the checkpoint
    } else {
      writer.finish(stats.final_time);
      // The output is whole: its checkpoint has no use any more.
      if (comm_rank(comm) == 0) std::filesystem::remove(detail::checkpoint_path(cfg));
    }
  });

  std::int64_t rss[2] = {peak_rss_bytes(), peak_rss_bytes()};
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &rss[0], 1, MPI_INT64_T, MPI_SUM, comm));
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &rss[1], 1, MPI_INT64_T, MPI_MAX, comm));
  stats.peak_rss_bytes = rss[0];
  stats.peak_rss_bytes_max_rank = rss[1];
  return stats;
}

std::string summary_json(const SimStats& s) {
  // Through nlohmann::json: paths with quotes or backslashes stay valid JSON.
  const double osc_steps = static_cast<double>(s.oscillators) * static_cast<double>(std::max<std::int64_t>(s.steps, 1));
  nlohmann::ordered_json j;
  j["oscillators"] = s.oscillators;
  j["ranks"] = s.ranks;
  j["steps"] = s.steps;
  j["rejected_steps"] = s.rejected_steps;
  j["rhs_evaluations"] = s.rhs_evaluations;
  j["output_times"] = s.output_times;
  j["wall_seconds"] = s.wall_seconds;
  j["ns_per_oscillator_step"] = s.wall_seconds * 1e9 / osc_steps;
  j["final_time"] = s.final_time;
  j["final_order_parameter"] = s.final_order_parameter;
  j["final_phase_spread"] = s.final_phase_spread;
  j["final_lag_seconds"] = s.final_lag_seconds;
  j["peak_rss_bytes"] = s.peak_rss_bytes;
  j["peak_rss_bytes_max_rank"] = s.peak_rss_bytes_max_rank;
  j["iterations"] = s.iterations >= 0 ? nlohmann::ordered_json(s.iterations) : nlohmann::ordered_json(nullptr);
  j["partition"] = s.partition;
  j["output_file"] = s.output_file;
  j["stopped"] = s.stopped;
  return j.dump();
}

}  // namespace ripple::model
