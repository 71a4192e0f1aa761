#include "mitos_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ripple/common/error.hpp"

namespace ripple::analysis::mitos {

std::vector<std::string> read_lines(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read {} ({})", path, what, std::strerror(errno)));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

namespace {
std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}
}  // namespace

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == sep && !quoted) {
      out.push_back(trim(field));
      field.clear();
    } else {
      field += ch;
    }
  }
  out.push_back(trim(field));
  return out;
}

std::map<std::string, std::size_t> header_index(const std::vector<std::string>& header) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < header.size(); ++i) index.emplace(header[i], i);
  return index;
}

std::optional<double> to_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

std::optional<std::int64_t> to_int(const std::string& s) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> to_address(const std::string& s) {
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char* first = s.data() + (hex ? 2 : 0);
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(first, s.data() + s.size(), v, hex ? 16 : 10);
  if (ec != std::errc() || p != s.data() + s.size() || first == s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> to_bool(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (l == "true" || l == "1" || l == "yes") return true;
  if (l == "false" || l == "0" || l == "no") return false;
  return std::nullopt;
}

std::vector<std::string> files_like(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.starts_with(prefix) && name.ends_with(suffix)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ripple::analysis::mitos
