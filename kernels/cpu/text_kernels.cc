// CPU kernels of the text ops Keras' TextVectorization and Hashing layers run, as TensorFlow's:
//
// StringLower / StringUpper: `encoding` '' changes ASCII letters only (other bytes as they are);
// 'utf-8' decodes UTF-8 (each ill-formed sequence, as its maximal subpart, becomes U+FFFD as ICU
// does), maps case and encodes again. The Unicode mapping here covers Latin (ASCII, Latin-1,
// Extended-A and -B, Extended Additional, the Latin-1 letterlike symbols Kelvin/Angstrom/Ohm),
// Greek (not Greek Extended; with the final-sigma rule when lowering), Cyrillic (with its
// supplement), Armenian, Roman numerals, circled letters, fullwidth Latin and Deseret, and
// ICU's full mappings that change length in those ranges (İ -> i̇; ß, ŉ, ǰ, ΐ, ΰ, և, ẖ..ẚ and the
// Latin ligatures ﬀ..ﬆ upper-cased into two or three letters). Other code points are unchanged.
//
// AsString: the printf format TensorFlow builds from fill (one of ' ', '+', '-', '0', '#'),
// width, precision and scientific/shortest ('%e' / '%g', else '%f'); integers as %d/%u, bools
// as "true"/"false", complex as "(re,im)", strings through %s. float16 and bfloat16 run on
// widened floats (the float16 adapter), as TensorFlow prints them.
//
// StringNGrams: the ngrams of each row of a ragged vector of strings (data + splits), joined
// by the separator, for each width in turn, padded with left_pad/right_pad up to pad_width
// (-1: width - 1) on each side; preserve_short_sequences makes one ngram of a whole short row.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// ---- Unicode case mapping -------------------------------------------------------------------

// Upper -> lower. kRun: every code point of [first, last] maps to itself + delta. kAlt: upper
// and lower alternate from `first` (an upper case letter at first, first + 2, ...). A kOneWay
// entry lowers only: its lower case letter's upper case is another code point.
enum Kind : uint8_t { kRun, kAlt, kOneWay };
struct CaseRange {
  char32_t first, last;
  int32_t delta;
  Kind kind;
};

constexpr CaseRange kToLower[] = {
    {0x0041, 0x005A, 32, kRun},   {0x00C0, 0x00D6, 32, kRun},   {0x00D8, 0x00DE, 32, kRun},
    {0x0100, 0x012F, 1, kAlt},    {0x0132, 0x0137, 1, kAlt},    {0x0139, 0x0148, 1, kAlt},
    {0x014A, 0x0177, 1, kAlt},    {0x0178, 0x0178, -121, kRun}, {0x0179, 0x017E, 1, kAlt},
    {0x0181, 0x0181, 210, kRun},  {0x0182, 0x0185, 1, kAlt},    {0x0186, 0x0186, 206, kRun},
    {0x0187, 0x0188, 1, kAlt},    {0x0189, 0x018A, 205, kRun},  {0x018B, 0x018C, 1, kAlt},
    {0x018E, 0x018E, 79, kRun},   {0x018F, 0x018F, 202, kRun},  {0x0190, 0x0190, 203, kRun},
    {0x0191, 0x0192, 1, kAlt},    {0x0193, 0x0193, 205, kRun},  {0x0194, 0x0194, 207, kRun},
    {0x0196, 0x0196, 211, kRun},  {0x0197, 0x0197, 209, kRun},  {0x0198, 0x0199, 1, kAlt},
    {0x019C, 0x019C, 211, kRun},  {0x019D, 0x019D, 213, kRun},  {0x019F, 0x019F, 214, kRun},
    {0x01A0, 0x01A5, 1, kAlt},    {0x01A6, 0x01A6, 218, kRun},  {0x01A7, 0x01A8, 1, kAlt},
    {0x01A9, 0x01A9, 218, kRun},  {0x01AC, 0x01AD, 1, kAlt},    {0x01AE, 0x01AE, 218, kRun},
    {0x01AF, 0x01B0, 1, kAlt},    {0x01B1, 0x01B2, 217, kRun},  {0x01B3, 0x01B6, 1, kAlt},
    {0x01B7, 0x01B7, 219, kRun},  {0x01B8, 0x01B9, 1, kAlt},    {0x01BC, 0x01BD, 1, kAlt},
    {0x01CD, 0x01DC, 1, kAlt},    {0x01DE, 0x01EF, 1, kAlt},    {0x01F4, 0x01F5, 1, kAlt},
    {0x01F6, 0x01F6, -97, kRun},  {0x01F7, 0x01F7, -56, kRun},  {0x01F8, 0x021F, 1, kAlt},
    {0x0220, 0x0220, -130, kRun}, {0x0222, 0x0233, 1, kAlt},    {0x023A, 0x023A, 10795, kRun},
    {0x023B, 0x023C, 1, kAlt},    {0x023D, 0x023D, -163, kRun}, {0x023E, 0x023E, 10792, kRun},
    {0x0241, 0x0242, 1, kAlt},    {0x0243, 0x0243, -195, kRun}, {0x0244, 0x0244, 69, kRun},
    {0x0245, 0x0245, 71, kRun},   {0x0246, 0x024F, 1, kAlt},
    // Greek and Coptic
    {0x0370, 0x0373, 1, kAlt},    {0x0376, 0x0377, 1, kAlt},    {0x037F, 0x037F, 116, kRun},
    {0x0386, 0x0386, 38, kRun},   {0x0388, 0x038A, 37, kRun},   {0x038C, 0x038C, 64, kRun},
    {0x038E, 0x038F, 63, kRun},   {0x0391, 0x03A1, 32, kRun},   {0x03A3, 0x03AB, 32, kRun},
    {0x03CF, 0x03CF, 8, kRun},    {0x03D8, 0x03EF, 1, kAlt},    {0x03F4, 0x03F4, -60, kOneWay},
    {0x03F7, 0x03F8, 1, kAlt},    {0x03F9, 0x03F9, -7, kRun},   {0x03FA, 0x03FB, 1, kAlt},
    {0x03FD, 0x03FF, -130, kRun},
    // Cyrillic, Cyrillic Supplement, Armenian
    {0x0400, 0x040F, 80, kRun},   {0x0410, 0x042F, 32, kRun},   {0x0460, 0x0481, 1, kAlt},
    {0x048A, 0x04BF, 1, kAlt},    {0x04C0, 0x04C0, 15, kRun},   {0x04C1, 0x04CE, 1, kAlt},
    {0x04D0, 0x052F, 1, kAlt},    {0x0531, 0x0556, 48, kRun},
    // Latin Extended Additional
    {0x1E00, 0x1E95, 1, kAlt},    {0x1E9E, 0x1E9E, -7615, kOneWay}, {0x1EA0, 0x1EFF, 1, kAlt},
    // Letterlike symbols, number forms, enclosed letters
    {0x2126, 0x2126, -7517, kOneWay}, {0x212A, 0x212A, -8383, kOneWay}, {0x212B, 0x212B, -8262, kOneWay},
    {0x2132, 0x2132, 28, kRun},   {0x2160, 0x216F, 16, kRun},   {0x2183, 0x2184, 1, kAlt},
    {0x24B6, 0x24CF, 26, kRun},
    // Latin Extended-C (the letters whose lower case is in Latin Extended-B / IPA)
    {0x2C60, 0x2C61, 1, kAlt},    {0x2C62, 0x2C62, -10743, kRun}, {0x2C63, 0x2C63, -3814, kRun},
    {0x2C64, 0x2C64, -10727, kRun}, {0x2C67, 0x2C6C, 1, kAlt},   {0x2C7E, 0x2C7F, -10815, kRun},
    // Fullwidth Latin, Deseret
    {0xFF21, 0xFF3A, 32, kRun},   {0x10400, 0x10427, 40, kRun},
};

// Lower -> upper mappings that are no inverse of a kToLower entry.
struct Pair {
  char32_t from, to;
};
constexpr Pair kExtraUpper[] = {
    {0x00B5, 0x039C}, {0x0131, 0x0049}, {0x017F, 0x0053}, {0x0180, 0x0243}, {0x0195, 0x01F6}, {0x019A, 0x023D},
    {0x019E, 0x0220}, {0x01BF, 0x01F7}, {0x01DD, 0x018E}, {0x0345, 0x0399}, {0x03C2, 0x03A3}, {0x03D0, 0x0392},
    {0x03D1, 0x0398}, {0x03D5, 0x03A6}, {0x03D6, 0x03A0}, {0x03F0, 0x039A}, {0x03F1, 0x03A1}, {0x03F2, 0x03F9},
    {0x03F3, 0x037F}, {0x03F5, 0x0395}, {0x1E9B, 0x1E60},
};

// The Latin letters with a title case form: DŽ Dž dž, LJ Lj lj, NJ Nj nj, DZ Dz dz.
bool TitleCaseTriple(char32_t c, char32_t* upper, char32_t* lower) {
  char32_t base = 0;
  if (c >= 0x01C4 && c <= 0x01CC) base = 0x01C4 + (c - 0x01C4) / 3 * 3;
  if (c >= 0x01F1 && c <= 0x01F3) base = 0x01F1;
  if (base == 0) return false;
  *upper = base;
  *lower = base + 2;
  return true;
}

char32_t SimpleLower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  char32_t up, low;
  if (TitleCaseTriple(c, &up, &low)) return low;
  for (const CaseRange& r : kToLower) {
    if (c < r.first || c > r.last) continue;
    if (r.kind == kAlt) return ((c - r.first) % 2 == 0) ? c + 1 : c;
    return static_cast<char32_t>(static_cast<int32_t>(c) + r.delta);
  }
  return c;
}

char32_t SimpleUpper(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  char32_t up, low;
  if (TitleCaseTriple(c, &up, &low)) return up;
  for (const Pair& p : kExtraUpper) {
    if (p.from == c) return p.to;
  }
  for (const CaseRange& r : kToLower) {
    if (r.kind == kOneWay) continue;
    if (r.kind == kAlt) {
      if (c > r.first && c <= r.last && (c - r.first) % 2 == 1) return c - 1;
      continue;
    }
    const auto lo = static_cast<char32_t>(static_cast<int32_t>(r.first) + r.delta);
    const auto hi = static_cast<char32_t>(static_cast<int32_t>(r.last) + r.delta);
    if (c >= lo && c <= hi) return static_cast<char32_t>(static_cast<int32_t>(c) - r.delta);
  }
  return c;
}

// ICU's full upper case mappings that give more than one code point.
struct Expansion {
  char32_t from;
  char32_t to[3];
};
constexpr Expansion kUpperExpansions[] = {
    {0x00DF, {0x0053, 0x0053, 0}},      {0x0149, {0x02BC, 0x004E, 0}},      {0x01F0, {0x004A, 0x030C, 0}},
    {0x0390, {0x0399, 0x0308, 0x0301}}, {0x03B0, {0x03A5, 0x0308, 0x0301}}, {0x0587, {0x0535, 0x0552, 0}},
    {0x1E96, {0x0048, 0x0331, 0}},      {0x1E97, {0x0054, 0x0308, 0}},      {0x1E98, {0x0057, 0x030A, 0}},
    {0x1E99, {0x0059, 0x030A, 0}},      {0x1E9A, {0x0041, 0x02BE, 0}},      {0xFB00, {0x0046, 0x0046, 0}},
    {0xFB01, {0x0046, 0x0049, 0}},      {0xFB02, {0x0046, 0x004C, 0}},      {0xFB03, {0x0046, 0x0046, 0x0049}},
    {0xFB04, {0x0046, 0x0046, 0x004C}}, {0xFB05, {0x0053, 0x0054, 0}},      {0xFB06, {0x0053, 0x0054, 0}},
};

bool IsCased(char32_t c) {
  if (c == 0x00AA || c == 0x00BA || c == 0x00DF || c == 0x0138 || c == 0x0149 || c == 0x01F0) return true;
  if (c >= 0x0250 && c <= 0x02AF) return true;  // IPA letters (lower case)
  return SimpleLower(c) != c || SimpleUpper(c) != c;
}

// Unicode's Case_Ignorable, for the code points around letters here: apostrophes, periods,
// colons, modifier letters and combining marks.
bool IsCaseIgnorable(char32_t c) {
  switch (c) {
    case 0x0027: case 0x002E: case 0x003A: case 0x005E: case 0x0060: case 0x00A8: case 0x00AD:
    case 0x00AF: case 0x00B4: case 0x00B7: case 0x00B8: case 0x037A: case 0x0384: case 0x0385:
    case 0x0387: case 0x2018: case 0x2019: case 0x2024: case 0x2027:
      return true;
    default:
      return (c >= 0x02B0 && c <= 0x036F) || (c >= 0x0374 && c <= 0x0375) || (c >= 0x0483 && c <= 0x0489);
  }
}

// Decodes UTF-8 as ICU does: each ill-formed sequence (its maximal subpart: a lead byte and the
// continuation bytes that could still be part of a well-formed sequence) becomes one U+FFFD.
void DecodeUtf8(std::string_view s, std::vector<char32_t>* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = p[i];
    if (b < 0x80) {
      out->push_back(b);
      ++i;
      continue;
    }
    int need = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
      cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      cp = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      cp = b & 0x07;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      out->push_back(0xFFFD);
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool ok = true;
    for (int k = 0; k < need; ++k, ++j) {
      const unsigned char lo_k = k == 0 ? lo : 0x80, hi_k = k == 0 ? hi : 0xBF;
      if (j >= n || p[j] < lo_k || p[j] > hi_k) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (p[j] & 0x3F);
    }
    out->push_back(ok ? cp : 0xFFFD);
    i = j;
  }
}

void EncodeUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// Σ lowers to final ς after a cased letter (and case-ignorables) when no cased letter follows.
bool IsFinalSigma(const std::vector<char32_t>& cps, size_t i) {
  size_t j = i;
  bool before = false;
  while (j > 0) {
    const char32_t c = cps[--j];
    if (IsCaseIgnorable(c)) continue;
    before = IsCased(c);
    break;
  }
  if (!before) return false;
  for (size_t k = i + 1; k < cps.size(); ++k) {
    if (IsCaseIgnorable(cps[k])) continue;
    return !IsCased(cps[k]);
  }
  return true;
}

std::string Utf8Lower(std::string_view s) {
  std::vector<char32_t> cps;
  DecodeUtf8(s, &cps);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    if (c == 0x0130) {  // İ: i and a combining dot above
      EncodeUtf8(0x0069, &out);
      EncodeUtf8(0x0307, &out);
    } else if (c == 0x03A3) {
      EncodeUtf8(IsFinalSigma(cps, i) ? 0x03C2 : 0x03C3, &out);
    } else {
      EncodeUtf8(SimpleLower(c), &out);
    }
  }
  return out;
}

std::string Utf8Upper(std::string_view s) {
  std::vector<char32_t> cps;
  DecodeUtf8(s, &cps);
  std::string out;
  out.reserve(s.size());
  for (const char32_t c : cps) {
    const Expansion* e = nullptr;
    if (c >= 0xDF) {
      for (const Expansion& x : kUpperExpansions) {
        if (x.from == c) e = &x;
      }
    }
    if (e != nullptr) {
      for (const char32_t t : e->to) {
        if (t != 0) EncodeUtf8(t, &out);
      }
    } else {
      EncodeUtf8(SimpleUpper(c), &out);
    }
  }
  return out;
}

template <bool kUpper>
class StringCaseKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "encoding", &encoding_));
    if (!encoding_.empty() && encoding_ != "utf-8") {
      return errors::InvalidArgument("only utf-8 or '' (no encoding) is supported, received ", encoding_);
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    std::vector<std::string> out = in.strings();
    for (std::string& s : out) {
      if (encoding_.empty()) {
        for (char& ch : s) {
          if (kUpper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
          if (!kUpper && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
        }
      } else {
        s = kUpper ? Utf8Upper(s) : Utf8Lower(s);
      }
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(in.dims(), std::move(out), &t));
    ctx.SetOutput(0, std::move(t));
    return Status::Ok();
  }

 private:
  std::string encoding_;
};

// ---- AsString ---------------------------------------------------------------------------------

template <typename... Args>
std::string Format(const std::string& format, Args... args) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
  const int n = std::snprintf(nullptr, 0, format.c_str(), args...);
  std::string out(static_cast<size_t>(n > 0 ? n : 0), '\0');
  if (n > 0) std::snprintf(out.data(), out.size() + 1, format.c_str(), args...);
#pragma GCC diagnostic pop
  return out;
}

class AsStringKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    DType dtype;
    int32_t precision = -1, width = -1;  // int, as TensorFlow's: 2^40 is an error, not a 1 TB width
    bool scientific, shortest;
    std::string fill;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "T", &dtype));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "precision", &precision));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "scientific", &scientific));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shortest", &shortest));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "width", &width));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "fill", &fill));
    if (scientific && shortest) return errors::InvalidArgument("Cannot select both scientific and shortest notation");
    if (fill.size() > 1) return errors::InvalidArgument("Fill string must be one or fewer characters");
    format_ = "%";
    if (!fill.empty()) {
      if (std::string_view(" +-0#").find(fill[0]) == std::string_view::npos) {
        return errors::InvalidArgument("Fill argument not supported: \"", fill, "\"");
      }
      format_ += fill;
    }
    if (width > -1) format_ += std::to_string(width);
    if (precision > -1) format_ += "." + std::to_string(precision);
    min_bytes_ = std::max<int64_t>({0, width, precision});
    auto no_float_options = [&]() -> Status {
      if (scientific || shortest) {
        return errors::InvalidArgument("scientific and shortest format not supported for datatype ",
                                       DTypeName(dtype));
      }
      if (precision > -1) return errors::InvalidArgument("precision not supported for datatype ", DTypeName(dtype));
      return Status::Ok();
    };
    switch (dtype) {
      case DType::kUInt8:
      case DType::kUInt16:
      case DType::kUInt32:
      case DType::kUInt64:
        GRAFT_RETURN_IF_ERROR(no_float_options());
        format_ += "llu";
        break;
      case DType::kInt8:
      case DType::kInt16:
      case DType::kInt32:
      case DType::kInt64:
        GRAFT_RETURN_IF_ERROR(no_float_options());
        format_ += "lld";
        break;
      case DType::kBool:
        GRAFT_RETURN_IF_ERROR(no_float_options());
        break;
      case DType::kString:
        GRAFT_RETURN_IF_ERROR(no_float_options());
        format_ += "s";
        break;
      case DType::kFloat32:
      case DType::kFloat64:
      case DType::kFloat16:
      case DType::kBFloat16:
      case DType::kComplex64:
      case DType::kComplex128:
        format_ += shortest ? "g" : scientific ? "e" : "f";
        break;
      default:
        return errors::InvalidArgument("Type ", DTypeName(dtype), " not supported.");
    }
    if (dtype == DType::kComplex64 || dtype == DType::kComplex128) format_ = "(" + format_ + "," + format_ + ")";
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t n = in.num_elements();
    // Each string is at least width (or precision) bytes: under a memory cap, check first.
    GRAFT_RETURN_IF_ERROR(Tensor::CheckStringsFit(n, min_bytes_));
    std::vector<std::string> out(static_cast<size_t>(n));
    auto each = [&](auto f) {
      for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = f(i);
    };
    switch (in.dtype()) {
      case DType::kUInt8: each([&](int64_t i) { return Format(format_, static_cast<unsigned long long>(in.data<uint8_t>()[i])); }); break;
      case DType::kUInt16: each([&](int64_t i) { return Format(format_, static_cast<unsigned long long>(in.data<uint16_t>()[i])); }); break;
      case DType::kUInt32: each([&](int64_t i) { return Format(format_, static_cast<unsigned long long>(in.data<uint32_t>()[i])); }); break;
      case DType::kUInt64: each([&](int64_t i) { return Format(format_, static_cast<unsigned long long>(in.data<uint64_t>()[i])); }); break;
      case DType::kInt8: each([&](int64_t i) { return Format(format_, static_cast<long long>(in.data<int8_t>()[i])); }); break;
      case DType::kInt16: each([&](int64_t i) { return Format(format_, static_cast<long long>(in.data<int16_t>()[i])); }); break;
      case DType::kInt32: each([&](int64_t i) { return Format(format_, static_cast<long long>(in.data<int32_t>()[i])); }); break;
      case DType::kInt64: each([&](int64_t i) { return Format(format_, static_cast<long long>(in.data<int64_t>()[i])); }); break;
      case DType::kBool: each([&](int64_t i) { return std::string(in.data<bool>()[i] ? "true" : "false"); }); break;
      case DType::kString: each([&](int64_t i) { return Format(format_, in.strings()[static_cast<size_t>(i)].c_str()); }); break;
      case DType::kFloat32: each([&](int64_t i) { return Format(format_, static_cast<double>(in.data<float>()[i])); }); break;
      case DType::kFloat64: each([&](int64_t i) { return Format(format_, in.data<double>()[i]); }); break;
      case DType::kComplex64:
        each([&](int64_t i) {
          const float* v = in.data<float>() + 2 * i;
          return Format(format_, static_cast<double>(v[0]), static_cast<double>(v[1]));
        });
        break;
      case DType::kComplex128:
        each([&](int64_t i) {
          const double* v = in.data<double>() + 2 * i;
          return Format(format_, v[0], v[1]);
        });
        break;
      default:
        return errors::InvalidArgument("AsString: type ", DTypeName(in.dtype()), " not supported");
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(in.dims(), std::move(out), &t));
    ctx.SetOutput(0, std::move(t));
    return Status::Ok();
  }

 private:
  std::string format_;
  int64_t min_bytes_ = 0;  // the least bytes of an output string (width, precision)
};

// ---- StringNGrams -------------------------------------------------------------------------------

template <typename S>
class StringNGramsKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "separator", &separator_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ngram_widths", &widths_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "left_pad", &left_pad_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "right_pad", &right_pad_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "pad_width", &pad_width_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "preserve_short_sequences", &preserve_short_));
    for (int64_t w : widths_) {
      if (w <= 0) return errors::InvalidArgument("ngram_widths must contain positive values");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& data_t = ctx.input(0);
    const Tensor& splits_t = ctx.input(1);
    if (data_t.rank() != 1) return errors::InvalidArgument("data must be a vector, got shape: ", ShapeText(data_t.dims()));
    if (splits_t.rank() != 1) {
      return errors::InvalidArgument("data_splits must be a vector, got shape: ", ShapeText(splits_t.dims()));
    }
    const std::vector<std::string>& data = data_t.strings();
    const S* splits = splits_t.data<S>();
    const int64_t num_splits = splits_t.num_elements();
    const auto num_values = static_cast<int64_t>(data.size());
    if (num_splits > 0) {
      if (splits[0] != 0) return errors::InvalidArgument("First split value must be 0, got ", static_cast<int64_t>(splits[0]));
      for (int64_t i = 1; i < num_splits; ++i) {
        if (splits[i] < splits[i - 1] || splits[i] > num_values) {
          return errors::InvalidArgument("Invalid split value ", static_cast<int64_t>(splits[i]), ", must be in [",
                                         static_cast<int64_t>(splits[i - 1]), ", ", num_values, "]");
        }
      }
      if (splits[num_splits - 1] != num_values) {
        return errors::InvalidArgument("Last split value must be data size. Expected ", num_values, ", got ",
                                       static_cast<int64_t>(splits[num_splits - 1]));
      }
    }
    // No data: no ngrams, not even of padding (TensorFlow's shortcut).
    const int64_t rows = num_splits > 0 && num_values > 0 ? num_splits - 1 : 0;
    std::vector<std::string> ngrams;
    std::vector<S> out_splits(static_cast<size_t>(num_splits), S{0});
    for (int64_t r = 0; r < rows; ++r) {
      const std::string* row = data.data() + splits[r];
      const auto length = static_cast<int64_t>(splits[r + 1] - splits[r]);
      const size_t before = ngrams.size();
      for (const int64_t width : widths_) {
        AppendNGrams(row, NumNGrams(length, width), width, &ngrams);
      }
      if (preserve_short_ && ngrams.size() == before && length > 0) {
        AppendNGrams(row, 1, length + 2 * pad_width_, &ngrams);
      }
      out_splits[static_cast<size_t>(r + 1)] = static_cast<S>(ngrams.size());
    }
    Tensor ngrams_t;
    const int64_t n_dims[] = {static_cast<int64_t>(ngrams.size())};
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(n_dims, std::move(ngrams), &ngrams_t));
    ctx.SetOutput(0, std::move(ngrams_t));
    Tensor* s = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, DTypeOf<S>(), splits_t.dims(), &s));
    std::copy(out_splits.begin(), out_splits.end(), s->data<S>());
    return Status::Ok();
  }

 private:
  int64_t PadWidth(int64_t width) const { return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1); }
  int64_t NumNGrams(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadWidth(width) - width + 1);
  }

  void AppendNGrams(const std::string* data, int64_t count, int64_t width, std::vector<std::string>* out) const {
    const int64_t pad = PadWidth(width);
    for (int64_t k = 0; k < count; ++k) {
      const int64_t left = std::max<int64_t>(0, pad - k);
      const int64_t right = std::max<int64_t>(0, pad - (count - (k + 1)));
      const int64_t tokens = width - (left + right);
      const int64_t start = left > 0 ? 0 : k - pad;
      std::string g;
      for (int64_t i = 0; i < left; ++i) {
        g += left_pad_;
        g += separator_;
      }
      for (int64_t i = 0; i + 1 < tokens; ++i) {
        g += data[start + i];
        g += separator_;
      }
      if (tokens > 0) {
        g += data[start + tokens - 1];
        for (int64_t i = 0; i < right; ++i) {
          g += separator_;
          g += right_pad_;
        }
      } else {
        for (int64_t i = 0; i + 1 < right; ++i) {
          g += right_pad_;
          g += separator_;
        }
        g += right_pad_;
      }
      out->push_back(std::move(g));
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<int64_t> widths_;
  int64_t pad_width_ = 0;
  bool preserve_short_ = false;
};

}  // namespace

void RegisterTextKernels(KernelRegistry& r) {
  (void)r.Register("StringLower", kDeviceCpu, "", {}, &CreateKernel<StringCaseKernel<false>>);
  (void)r.Register("StringUpper", kDeviceCpu, "", {}, &CreateKernel<StringCaseKernel<true>>);
  // float16/bfloat16 come from the float16 adapter (widened to float, as TensorFlow prints them).
  (void)r.Register("AsString", kDeviceCpu, "T",
                   {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kUInt8, DType::kInt16, DType::kInt8,
                    DType::kInt64, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kComplex64,
                    DType::kComplex128, DType::kBool, DType::kString},
                   &CreateKernel<AsStringKernel>);
  RegisterTypes<StringNGramsKernel, int32_t, int64_t>(r, "StringNGrams", "Tsplits");
}

}  // namespace graft::cpu
