#include "ripple/analysis/call_kinds.hpp"

#include <cctype>
#include <map>
#include <set>

namespace ripple::analysis {

std::vector<CallKind> classify_calls(const std::vector<std::string>& names) {
  static const std::map<std::string, CallKind> named = {{"MPI_Pcontrol", CallKind::Marker},
                                                        {"MPI_Send", CallKind::Send},
                                                        {"MPI_Ssend", CallKind::Send},
                                                        {"MPI_Rsend", CallKind::Send},
                                                        {"MPI_Bsend", CallKind::Send},
                                                        {"MPI_Isend", CallKind::Isend},
                                                        {"MPI_Issend", CallKind::Isend},
                                                        {"MPI_Irsend", CallKind::Isend},
                                                        {"MPI_Ibsend", CallKind::Isend},
                                                        {"MPI_Sendrecv", CallKind::Sendrecv},
                                                        {"MPI_Sendrecv_replace", CallKind::Sendrecv},
                                                        {"MPI_Recv", CallKind::Recv},
                                                        {"MPI_Mrecv", CallKind::Recv},
                                                        {"MPI_Irecv", CallKind::Irecv},
                                                        {"MPI_Imrecv", CallKind::Irecv},
                                                        {"completion", CallKind::Completion},
                                                        {"MPI_Wait", CallKind::Wait},
                                                        {"MPI_Waitall", CallKind::Wait},
                                                        {"MPI_Waitany", CallKind::Wait},
                                                        {"MPI_Waitsome", CallKind::Wait},
                                                        {"MPI_Test", CallKind::Wait},
                                                        {"MPI_Testall", CallKind::Wait},
                                                        {"MPI_Testany", CallKind::Wait},
                                                        {"MPI_Testsome", CallKind::Wait},
                                                        {"MPI_Finalize", CallKind::Finalize}};
  static const std::set<std::string> collectives = {
      "Barrier",  "Bcast",     "Reduce",     "Allreduce",      "Gather",
      "Gatherv",  "Allgather", "Allgatherv", "Scatter",        "Scatterv",
      "Alltoall", "Alltoallv", "Alltoallw",  "Reduce_scatter", "Reduce_scatter_block",
      "Scan",     "Exscan"};
  std::vector<CallKind> kinds(names.size(), CallKind::Other);
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string& n = names[c];
    if (const auto it = named.find(n); it != named.end()) {
      kinds[c] = it->second;
    } else if (n.starts_with("MPI_") && collectives.contains(n.substr(4))) {
      kinds[c] = CallKind::Collective;
    } else if (n.size() > 6 && n.starts_with("MPI_I")) {  // MPI_Iallreduce: the blocking form's name, capitalised
      std::string base = n.substr(5);
      base[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(base[0])));
      if (collectives.contains(base)) kinds[c] = CallKind::Icollective;
    }
  }
  return kinds;
}

}  // namespace ripple::analysis
