// `ripple calibrate [-o machine.toml] [--set KEY=VALUE]`: measures this node for seed 003's model and
// writes the machine file (docs/cxl.md). Run it on two ranks (`mpirun -np 2 ripple calibrate`) for the
// MPI ping-pong; on one rank MPI_RECV_LAT and MPI_RECV_BW stay the paper's, marked given.
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "ripple/analysis/calibrate_probes.hpp"
#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/cxl_machine.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/numa.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {
namespace {

struct Hockney {
  double alpha_ns = 0, beta = 0, spread = 0;
  std::string how;
};

// Ping-pong between ranks 0 and 1 over sizes 8 B .. 1 MiB; half the best round trip per size; the
// Hockney line t = α + m / β.
Hockney ping_pong(MPI_Comm comm, int repetitions) {
  const int rank = comm_rank(comm);
  std::vector<double> m, t;
  std::vector<char> buf(1 << 20);
  double spread = 0;
  for (int size = 8; size <= (1 << 20); size *= 4) {
    const int rounds = size <= 4096 ? 200 : 20;
    std::vector<double> half;
    for (int r = 0; r < repetitions; ++r) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < rounds; ++i) {
        if (rank == 0) {
          MPI_Send(buf.data(), size, MPI_BYTE, 1, 0, comm);
          MPI_Recv(buf.data(), size, MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf.data(), size, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), size, MPI_BYTE, 0, 0, comm);
        }
      }
      half.push_back((MPI_Wtime() - t0) / rounds / 2 * 1e9);
    }
    const Measurement s = summarize(half, false, "");
    if (size == 8) spread = s.spread();
    m.push_back(size);
    t.push_back(s.best);
  }
  // α: the smallest message's time (an unweighted least-squares line lets the large messages pull
  // its intercept below 0 on a busy machine); 1/β: the slope through it, fitted over the rest.
  double num = 0, den = 0;
  for (std::size_t i = 1; i < m.size(); ++i) num += m[i] * (t[i] - t[0]), den += m[i] * m[i];
  const double slope = num / den;  // ns per byte
  Hockney h;
  h.alpha_ns = t[0];
  h.beta = slope > 0 ? 1e9 / slope : 0;
  h.spread = spread;
  h.how = fmt::format(
      "ping-pong of ranks 0 and 1 ({}), 8 B to 1 MiB, half the best round trip of {}, Hockney: α the 8-byte time, β a "
      "least-squares slope",
      "same node", repetitions);
  return h;
}

void put(Machine& m, const char* key, const Measurement& x) { m.set(key, {x.best, "measured", x.how, x.spread()}); }

}  // namespace

int calibrate_main(int argc, char** argv) {
  CLI::App app{
      "Measures this node for seed 003's model (docs/cxl.md) and writes the machine file: MPI latency and\n"
      "bandwidth (ping-pong, Hockney fit; run on 2 ranks), memory latency (pointer chase), an atomic\n"
      "hand-over on shared memory (half a flag ping-pong), L1/L2/memory bandwidth, the clock, with --numa\n"
      "the far memory's latency; the rest are the paper's values (--set).",
      "ripple calibrate"};
  std::string output = "machine.toml";
  std::vector<std::string> sets;
  int repetitions = 5, numa = -1;
  app.add_option("-o,--output", output, "the machine file to write")->capture_default_str();
  app.add_option("--set", sets, "KEY=VALUE: a value that is not measured here (repeatable; docs/cxl.md lists the keys)");
  app.add_option("--repetitions", repetitions, "repetitions of each measurement (best of N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--numa", numa,
                 "NUMA node whose memory stands in for the CXL pool: FAR_MEM_LAT measured there (LOCAL_MEM_LAT's "
                 "pointer chase, its memory bound to the node; else the paper's value)")
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple calibrate --help");
  }
  // A bad --set is refused before anything is measured.
  Machine m = Machine::defaults();
  try {
    for (const std::string& s : sets) m.set_from_text(s);
    if (numa >= 0) check_numa_node(numa, "--numa");
  } catch (const Error& e) {
    if (launcher_rank() == 0) std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return after_rank_zero_spoke(e.exit_code());
  }
  return run_mpi_main(argc, argv, [&](MPI_Comm comm) {
    const int rank = comm_rank(comm), size = comm_size(comm);
    // Rank 0 measures the node alone; the others wait without spinning, so as not to disturb it.
    if (rank == 0) {
      const std::size_t llc = last_level_cache_bytes();
      // Far larger than the last-level cache, and at most 1 GiB (some VMs report a host's whole L3).
      const std::size_t chase = std::clamp<std::size_t>(8 * llc, std::size_t{256} << 20, std::size_t{1} << 30);
      put(m, "LOCAL_MEM_LAT", pointer_chase_ns(chase, repetitions));
      if (numa >= 0) put(m, "FAR_MEM_LAT", pointer_chase_ns(chase, repetitions, numa));
      put(m, "SHM_ATOMIC_LAT", atomic_handover_ns(20000, repetitions));
      put(m, "L1_BW", read_bandwidth(16 << 10, repetitions));
      put(m, "L2_BW", read_bandwidth(256 << 10, repetitions));
      const Measurement mem = read_bandwidth(chase, repetitions);
      put(m, "MEM_BW", mem);
      m.set("PEAK_MEM_BW", {mem.best, "measured", "the best streaming read (MEM_BW)", mem.spread()});
      put(m, "CLOCK_GHZ", clock_ghz(repetitions));
      for (int r = 1; r < size; ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, 1, comm);
    } else {
      MPI_Request req;
      MPI_Irecv(nullptr, 0, MPI_BYTE, 0, 1, comm, &req);
      for (int done = 0; !done;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    if (size >= 2) {
      const Hockney h = ping_pong(comm, repetitions);
      m.set("MPI_RECV_LAT", {h.alpha_ns, "measured", h.how, h.spread});
      if (h.beta > 0) {
        m.set("MPI_RECV_BW", {h.beta, "measured", h.how, 0});
      } else if (rank == 0) {  // a 0 B/s bandwidth would make the file useless to `ripple cxl`: keep the paper's
        std::fprintf(stderr,
                     "ripple calibrate: warning: MPI_RECV_BW not measured: the ping-pong's time did not grow with the "
                     "message size (a busy machine? more --repetitions help); seed 003's value kept, marked given\n");
      }
    }  // one rank: MPI_RECV_LAT and MPI_RECV_BW stay the paper's, marked given
    // --set wins over a measurement.
    for (const std::string& s : sets) m.set_from_text(s);
    run_collectively(comm, [&] {
      if (rank != 0) return;
      char host[256] = "unknown";
      gethostname(host, sizeof host - 1);
      std::printf("%-24s %14s  %-8s %8s  %s\n", "key", "value", "source", "spread", "how");
      for (const MachineKey& k : machine_keys()) {
        if (!m.has(k.name)) continue;
        const MachineParam& p = m.param(k.name);
        std::printf("%-24s %14.6g  %-8s %7.1f%%  %s\n", k.name, p.value, p.source.c_str(), 100 * p.spread, p.how.c_str());
      }
      if (size < 2) std::printf("MPI_RECV_LAT, MPI_RECV_BW: given (one rank; run `mpirun -np 2 ripple calibrate` to measure)\n");
      write_text_file(output, machine_toml(m, fmt::format("ripple calibrate on {}, {} rank(s)", host, size)), "-o");
      std::printf("ripple calibrate: wrote %s\n", output.c_str());
    });
    return 0;
  });
}

}  // namespace ripple::analysis
