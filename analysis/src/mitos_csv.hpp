#pragma once
// Reading the Mitos toolchain's CSV files (analysis/src/mitos_*.cpp only): lines split by one
// delimiter, columns found by header name, numbers in decimal or 0x-hex. A row that does not parse is
// counted by the caller and left out.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ripple::analysis::mitos {

// The file's lines without line ends, empty lines dropped. InputError naming the file if it cannot be
// read (`what` says which file of the directory it is).
std::vector<std::string> read_lines(const std::string& path, const std::string& what);
// Splits at `sep`; a field in double quotes may hold the separator. Fields are trimmed of blanks.
std::vector<std::string> split(const std::string& line, char sep);
// Column name -> index of a header line.
std::map<std::string, std::size_t> header_index(const std::vector<std::string>& header);

// Strict parses: the whole field, else nullopt.
std::optional<double> to_double(const std::string& s);
std::optional<std::int64_t> to_int(const std::string& s);
std::optional<std::uint64_t> to_address(const std::string& s);  // decimal or 0x-hex
std::optional<bool> to_bool(const std::string& s);              // true/false, 1/0, yes/no

// The files under dir whose names start with `prefix` and end with `suffix`, sorted.
std::vector<std::string> files_like(const std::string& dir, const std::string& prefix, const std::string& suffix);

}  // namespace ripple::analysis::mitos
