#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <sstream>

#include "ripple/common/error.hpp"
#include "ripple/model/config.hpp"

namespace ripple::model {
namespace {

// A leaf as text, with its type: 1 and 1.0 differ.
std::string printed(const toml::node* n) {
  std::ostringstream os;
  os << static_cast<int>(n->type()) << ':';
  n->visit([&](const auto& v) { os << v; });
  return os.str();
}

// Depth first, in key order: the path of the first node that differs, or "".
std::string first_difference(const toml::node* a, const toml::node* b, const std::string& path, const std::string& ignore) {
  if (!ignore.empty() && path == ignore) return {};
  if (a == nullptr || b == nullptr) return a == b ? std::string() : path;
  if (a->is_table() && b->is_table()) {
    const toml::table& ta = *a->as_table();
    const toml::table& tb = *b->as_table();
    for (const auto& [key, node] : ta) {
      const std::string sub = path.empty() ? std::string(key.str()) : path + "." + std::string(key.str());
      if (std::string d = first_difference(&node, tb.get(key.str()), sub, ignore); !d.empty()) return d;
    }
    for (const auto& [key, node] : tb)
      if (!ta.contains(key.str())) return path.empty() ? std::string(key.str()) : path + "." + std::string(key.str());
    return {};
  }
  if (a->is_array() && b->is_array()) {
    const toml::array& xa = *a->as_array();
    const toml::array& xb = *b->as_array();
    // An array of tables ([[kick]]) names the entry, an array of values the key.
    const bool tables = (!xa.empty() && xa[0].is_table()) || (!xb.empty() && xb[0].is_table());
    for (std::size_t i = 0; i < std::max(xa.size(), xb.size()); ++i) {
      const std::string sub = tables ? fmt::format("{}[{}]", path, i + 1) : path;
      if (std::string d = first_difference(xa.get(i), xb.get(i), sub, ignore); !d.empty()) return d;
    }
    return {};
  }
  return printed(a) == printed(b) ? std::string() : path;
}

toml::table parse_resolved(const std::string& text, const char* what) {
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}: the stored configuration does not parse: {}", what, e.description()));
  }
}

}  // namespace

std::string first_changed_key(const std::string& toml_a, const std::string& toml_b, const std::string& ignore) {
  const toml::table a = parse_resolved(toml_a, "first_changed_key");
  const toml::table b = parse_resolved(toml_b, "first_changed_key");
  return first_difference(&a, &b, "", ignore);
}

}  // namespace ripple::model
