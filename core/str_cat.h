// StrCat: concatenates strings, numbers and anything else that streams into a string, for
// error messages mostly: StrCat("op '", name, "' has ", n, " inputs"). Strings, characters,
// integers, floating-point numbers and bools (written as an ostream writes them: 1 and 0,
// floats as %g) go to one function, StrCatPieces, that is compiled once; only calls with other
// types (those with their own operator<<) instantiate a stream. Each of the thousands of
// distinct argument lists used to instantiate its own ostringstream code: half a megabyte of
// the library.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace graft {
namespace internal {

// One StrCat argument as text: a view of a string argument, or a number written in place.
class StrPiece {
 public:
  StrPiece(const char* s) : data_(s), size_(std::char_traits<char>::length(s)) {}  // NOLINT
  StrPiece(const std::string& s) : data_(s.data()), size_(s.size()) {}             // NOLINT
  StrPiece(std::string_view s) : data_(s.data()), size_(s.size()) {}               // NOLINT
  template <typename T>
    requires std::same_as<T, char> || std::same_as<T, signed char> || std::same_as<T, unsigned char>
  StrPiece(T c) : size_(1), inline_(true) {  // NOLINT: streams write these as characters
    buf_[0] = static_cast<char>(c);
  }
  template <typename T>
    requires std::same_as<T, bool>
  StrPiece(T b) : size_(1), inline_(true) {  // NOLINT
    buf_[0] = b ? '1' : '0';
  }
  template <typename T>
    requires(std::is_integral_v<T> && !std::same_as<T, bool> && !std::same_as<T, char> &&
             !std::same_as<T, signed char> && !std::same_as<T, unsigned char>)
  StrPiece(T v) : inline_(true) {  // NOLINT
    if constexpr (std::is_signed_v<T>) {
      size_ = FormatSigned(static_cast<long long>(v), buf_);
    } else {
      size_ = FormatUnsigned(static_cast<unsigned long long>(v), buf_);
    }
  }
  template <typename T>
    requires std::is_floating_point_v<T>
  StrPiece(T v) : inline_(true) {  // NOLINT
    size_ = FormatDouble(static_cast<double>(v), buf_);
  }
  std::string_view view() const { return inline_ ? std::string_view(buf_, size_) : std::string_view(data_, size_); }

 private:
  static size_t FormatSigned(long long v, char* out);
  static size_t FormatUnsigned(unsigned long long v, char* out);
  static size_t FormatDouble(double v, char* out);
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool inline_ = false;
  char buf_[32];
};

std::string StrCatPieces(std::initializer_list<StrPiece> pieces);

// The argument types StrPiece takes exactly as an ostream writes them (anything convertible
// to a string, such as a filesystem path that streams quoted, keeps its own operator<<).
template <typename T>
concept Piece = std::same_as<T, std::string> || std::same_as<T, std::string_view> || std::is_arithmetic_v<T> ||
                std::same_as<T, const char*> || std::same_as<T, char*> ||
                (std::is_array_v<T> && std::same_as<std::remove_cv_t<std::remove_extent_t<T>>, char>);

}  // namespace internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  if constexpr ((internal::Piece<Args> && ...)) {
    return internal::StrCatPieces({internal::StrPiece(args)...});
  } else {
    std::ostringstream os;
    (os << ... << args);
    return os.str();
  }
}

}  // namespace graft
