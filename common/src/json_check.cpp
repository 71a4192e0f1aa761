#include "ripple/common/json_check.hpp"

#include <cstddef>

namespace ripple {
namespace {

// A recursive-descent recogniser: each method consumes one value (or part) at `at`, or returns false.
class Recogniser {
public:
  explicit Recogniser(std::string_view t) : t_(t) {}
  bool object_alone() {
    space();
    if (!peek('{') || !value(0)) return false;
    space();
    return at_ == t_.size();
  }

private:
  static constexpr int kMaxDepth = 64;
  bool peek(char c) const { return at_ < t_.size() && t_[at_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++at_;
    return true;
  }
  void space() {
    while (at_ < t_.size() && (t_[at_] == ' ' || t_[at_] == '\t' || t_[at_] == '\n' || t_[at_] == '\r')) ++at_;
  }
  bool digits() {
    const std::size_t from = at_;
    while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
    return at_ > from;
  }
  bool literal(std::string_view word) {
    if (t_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool string() {
    if (!eat('"')) return false;
    while (at_ < t_.size()) {
      const auto c = static_cast<unsigned char>(t_[at_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;  // control characters must be escaped
      if (c != '\\') continue;
      if (at_ >= t_.size()) return false;
      const char e = t_[at_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k, ++at_) {
          const char h = at_ < t_.size() ? t_[at_] : '\0';
          if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return false;
        }
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;  // unterminated
  }
  bool number() {
    eat('-');
    if (eat('0')) {
      if (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') return false;  // no leading zeros
    } else if (!digits()) {
      return false;
    }
    if (eat('.') && !digits()) return false;
    if (eat('e') || eat('E')) {
      if (!eat('+')) eat('-');
      if (!digits()) return false;
    }
    return true;
  }
  // The members of an object or the elements of an array, after its opening bracket.
  bool items(char close, bool keyed, int depth) {
    space();
    if (eat(close)) return true;
    for (;;) {
      space();
      if (keyed) {
        if (!string()) return false;
        space();
        if (!eat(':')) return false;
        space();
      }
      if (!value(depth + 1)) return false;
      space();
      if (eat(close)) return true;
      if (!eat(',')) return false;
    }
  }
  bool value(int depth) {
    if (depth >= kMaxDepth || at_ >= t_.size()) return false;  // the object itself is depth 0
    switch (t_[at_]) {
      case '{':
        ++at_;
        return items('}', true, depth);
      case '[':
        ++at_;
        return items(']', false, depth);
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

  std::string_view t_;
  std::size_t at_ = 0;
};

}  // namespace

bool is_json_object(std::string_view text) { return Recogniser(text).object_alone(); }

}  // namespace ripple
