#include "core/str_cat.h"

#include <charconv>
#include <cstdio>

namespace graft::internal {

size_t StrPiece::FormatSigned(long long v, char* out) {
  return static_cast<size_t>(std::to_chars(out, out + 31, v).ptr - out);
}

size_t StrPiece::FormatUnsigned(unsigned long long v, char* out) {
  return static_cast<size_t>(std::to_chars(out, out + 31, v).ptr - out);
}

size_t StrPiece::FormatDouble(double v, char* out) {
  // What an ostream with its default flags writes: %g with 6 significant digits, "inf" and
  // "nan" (with their signs) included.
  const int n = std::snprintf(out, 32, "%g", v);
  return n < 0 ? 0 : static_cast<size_t>(n < 32 ? n : 31);
}

std::string StrCatPieces(std::initializer_list<StrPiece> pieces) {
  size_t size = 0;
  for (const StrPiece& p : pieces) size += p.view().size();
  std::string out;
  out.reserve(size);
  for (const StrPiece& p : pieces) out.append(p.view());
  return out;
}

}  // namespace graft::internal
