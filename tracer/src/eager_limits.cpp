#include "eager_limits.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>

#include "json_text.hpp"

namespace ripple::trace::detail {

std::string eager_limits_json() {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
    return nlohmann::json("unavailable: MPI_T_init_thread failed (no MPI tool information interface)").dump();
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  int count = 0;
  MPI_T_cvar_get_num(&count);
  for (int i = 0; i < count; ++i) {
    char name[256], desc[8];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, binding = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype{};
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &binding, &scope) != MPI_SUCCESS)
      continue;
    const std::string_view n(name);
    if (n.size() < 11 || n.substr(n.size() - 11) != "eager_limit" || binding != MPI_T_BIND_NO_OBJECT) continue;
    // Integers only, one value, read into a buffer wider than any of them.
    int size = 0;
    if (type == MPI_CHAR || MPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0 || size > 8) continue;
    MPI_T_cvar_handle handle{};
    int values = 0;
    if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &values) != MPI_SUCCESS) continue;
    unsigned char buffer[64] = {};
    std::int64_t value = -1;
    if (values == 1 && MPI_T_cvar_read(handle, buffer) == MPI_SUCCESS) {
      if (size == 4) {
        std::int32_t v = 0;
        std::memcpy(&v, buffer, 4);
        value = v;
      } else if (size == 8) {
        std::memcpy(&value, buffer, 8);
      }
    }
    MPI_T_cvar_handle_free(&handle);
    if (value < 0) continue;
    out[valid_utf8(std::string(n))] = value;
  }
  MPI_T_finalize();
  if (out.empty()) return nlohmann::json("unavailable: the MPI library names no eager limit among its control variables").dump();
  return out.dump();
}

}  // namespace ripple::trace::detail
