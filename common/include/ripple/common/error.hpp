#pragma once
// The one exception type of Ripple. `main` catches it, prints one line and exits with exit_code().
#include <stdexcept>
#include <string>

namespace ripple {

class Error : public std::runtime_error {
public:
  enum class Kind { Runtime = 1, Input = 2 };
  explicit Error(const std::string& what, Kind kind = Kind::Runtime) : std::runtime_error(what), kind_(kind) {}
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] int exit_code() const { return static_cast<int>(kind_); }

private:
  Kind kind_;
};

// Bad user input (configuration, command line, input files): exit code 2.
class InputError : public Error {
public:
  explicit InputError(const std::string& what) : Error(what, Kind::Input) {}
};

}  // namespace ripple

// Always-on check: throws ripple::Error with the failed condition and source location.
#define RIPPLE_VERIFY(cond, msg)                                                    \
  do {                                                                              \
    if (!(cond)) ::ripple::detail::verify_failed(#cond, (msg), __FILE__, __LINE__); \
  } while (0)

namespace ripple::detail {
[[noreturn]] void verify_failed(const char* cond, const std::string& msg, const char* file, int line);
}
