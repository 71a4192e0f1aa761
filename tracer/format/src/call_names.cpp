// Call names for code that reads traces without linking the tracer itself.
#include "ripple/trace/event.hpp"

namespace ripple::trace {
namespace {
const char* kNames[] = {
#define RIPPLE_CALL(name) #name,
#include "call_list.inc"
#undef RIPPLE_CALL
};
}  // namespace

const char* call_name(Call c) { return call_name(static_cast<std::int32_t>(c)); }
const char* call_name(std::int32_t c) { return c >= 0 && c < call_count() ? kNames[c] : "unknown"; }
int call_count() { return static_cast<int>(Call::Count); }
std::string call_names_text() {
  std::string names;
  for (int c = 0; c < call_count(); ++c) names += std::string(c ? "\n" : "") + kNames[c];
  return names;
}
}  // namespace ripple::trace
