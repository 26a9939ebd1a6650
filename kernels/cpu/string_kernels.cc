// CPU kernels for strings, printing and assertions: StringJoin, StringFormat, PrintV2, Assert.
//
// Tensors are summarized as TensorFlow does. StringFormat (and so tf.print) uses the "v2"
// layout: brackets per dimension, the first and last `summarize` entries of each dimension
// with "..." between, rows on new lines, strings quoted and C-escaped. Assert uses the older
// layout: the first `summarize` elements in row-major order, brackets per inner row, then
// "..." when elements were left out. Numbers print as TensorFlow's StrCat does: floats with
// 6 significant digits (9 when that does not round-trip), doubles with 15 (else 17), bools
// as 1 and 0.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// ---- Formatting one element ----------------------------------------------------------------

void AppendFloat(std::string* out, float v) {
  if (std::isnan(v)) {
    out->append(std::signbit(v) ? "-nan" : "nan");
    return;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", 6, static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.*g", 9, static_cast<double>(v));
  out->append(buf);
}

void AppendDouble(std::string* out, double v) {
  if (std::isnan(v)) {
    out->append(std::signbit(v) ? "-nan" : "nan");
    return;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", 15, v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.*g", 17, v);
  out->append(buf);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    f = mant == 0 ? INFINITY : NAN;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  }
  return sign ? -f : f;
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// absl's Utf8SafeCEscape: the usual escapes, octal for other non-printable ASCII bytes, bytes
// of 0x80 and up as they are.
void AppendEscaped(std::string* out, const std::string& s) {
  for (char c : s) {
    switch (c) {
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\'':
        out->append("\\'");
        break;
      case '\\':
        out->append("\\\\");
        break;
      default: {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u < 0x80 && (u < 0x20 || u == 0x7f)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(u));
          out->append(buf);
        } else {
          out->push_back(c);
        }
      }
    }
  }
}

// Element types as stored; float16 and bfloat16 are told apart by the dtype.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

template <typename T>
void AppendElement(std::string* out, const T& v, bool quote) {
  (void)quote;
  if constexpr (std::is_same_v<T, float>) {
    AppendFloat(out, v);
  } else if constexpr (std::is_same_v<T, double>) {
    AppendDouble(out, v);
  } else if constexpr (std::is_same_v<T, Half>) {
    AppendFloat(out, HalfToFloat(v.bits));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    AppendFloat(out, BFloat16ToFloat(v.bits));
  } else if constexpr (std::is_same_v<T, bool>) {
    out->push_back(v ? '1' : '0');
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    out->push_back('(');
    AppendDouble(out, static_cast<double>(v.real()));
    out->push_back(',');
    AppendDouble(out, static_cast<double>(v.imag()));
    out->push_back(')');
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (quote) out->push_back('"');
    AppendEscaped(out, v);
    if (quote) out->push_back('"');
  } else if constexpr (std::is_signed_v<T>) {
    out->append(std::to_string(static_cast<long long>(v)));
  } else {
    out->append(std::to_string(static_cast<unsigned long long>(v)));
  }
}

// ---- Summarizing a tensor ------------------------------------------------------------------

template <typename T>
class Summarizer {
 public:
  Summarizer(const T* data, const std::vector<int64_t>& dims, bool v2, std::string* out)
      : data_(data), dims_(dims), v2_(v2), out_(out) {}

  // The summary of all n elements, showing at most max_entries (all when negative).
  void Run(int64_t n, int64_t max_entries) {
    const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
    if (dims_.empty()) {
      for (int64_t i = 0; i < limit; ++i) {
        if (i > 0) out_->push_back(' ');
        AppendElement(out_, data_[i], v2_);
      }
      if (n > limit) out_->append("...");
      return;
    }
    if (v2_) {
      DimV2(0, limit, 0);
    } else {
      int64_t index = 0;
      DimV1(0, limit, &index);
      if (n > limit) out_->append("...");
    }
  }

 private:
  int64_t ElementsBelow(size_t dim) const {
    int64_t n = 1;
    for (size_t i = dim + 1; i < dims_.size(); ++i) n *= dims_[i];
    return n;
  }

  // Between two entries of dim: a space in the last dim; otherwise newlines (one per dim
  // below) and an indent of one space per dim above and including this one.
  void Spacing(size_t dim) {
    const size_t rank = dims_.size();
    if (dim == rank - 1) {
      out_->push_back(' ');
      return;
    }
    out_->append(rank - dim - 1, '\n');
    out_->append(dim + 1, ' ');
  }

  // Every dim in brackets, its first and last `ends` entries, "..." between when more.
  void DimV2(size_t dim, int64_t ends, int64_t offset) {
    if (dim == dims_.size()) {
      AppendElement(out_, data_[offset], true);
      return;
    }
    out_->push_back('[');
    const int64_t count = dims_[dim];
    const int64_t start_of_end = std::max(ends, count - ends);
    const int64_t below = ElementsBelow(dim);
    for (int64_t i = 0; i < ends && i < count; ++i) {
      if (i > 0) Spacing(dim);
      DimV2(dim + 1, ends, offset + below * i);
    }
    if (count > 2 * ends) {
      Spacing(dim);
      out_->append("...");
    }
    for (int64_t i = start_of_end; i < count; ++i) {
      Spacing(dim);
      DimV2(dim + 1, ends, offset + below * i);
    }
    out_->push_back(']');
  }

  // The first `limit` elements in row-major order; brackets around each entry of the outer
  // dims that starts before the limit.
  void DimV1(size_t dim, int64_t limit, int64_t* index) {
    if (*index >= limit) return;
    const int64_t count = dims_[dim];
    if (dim == dims_.size() - 1) {
      for (int64_t i = 0; i < count; ++i) {
        if (*index >= limit) {
          if (dim != 0) out_->append("...");
          return;
        }
        if (i > 0) out_->push_back(' ');
        AppendElement(out_, data_[(*index)++], false);
      }
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      bool opened = false;
      if (*index < limit) {
        out_->push_back('[');
        opened = true;
      }
      DimV1(dim + 1, limit, index);
      if (*index < limit || opened) out_->push_back(']');
    }
  }

  const T* data_;
  const std::vector<int64_t>& dims_;
  bool v2_;
  std::string* out_;
};

template <typename T>
void SummarizeAs(const Tensor& t, int64_t max_entries, bool v2, std::string* out) {
  const T* data = nullptr;
  if constexpr (std::is_same_v<T, std::string>) {
    data = t.strings().data();
  } else {
    data = t.data<T>();
  }
  Summarizer<T>(data, t.dims(), v2, out).Run(t.num_elements(), max_entries);
}

// TensorFlow's Tensor::SummarizeValue(max_entries, print_v2), appended to out.
void Summarize(const Tensor& t, int64_t max_entries, bool v2, std::string* out) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return SummarizeAs<float>(t, max_entries, v2, out);
    case DType::kFloat64:
      return SummarizeAs<double>(t, max_entries, v2, out);
    case DType::kFloat16:
      return SummarizeAs<Half>(t, max_entries, v2, out);
    case DType::kBFloat16:
      return SummarizeAs<BFloat16>(t, max_entries, v2, out);
    case DType::kInt8:
    case DType::kQInt8:
      return SummarizeAs<int8_t>(t, max_entries, v2, out);
    case DType::kUInt8:
    case DType::kQUInt8:
      return SummarizeAs<uint8_t>(t, max_entries, v2, out);
    case DType::kInt16:
    case DType::kQInt16:
      return SummarizeAs<int16_t>(t, max_entries, v2, out);
    case DType::kUInt16:
    case DType::kQUInt16:
      return SummarizeAs<uint16_t>(t, max_entries, v2, out);
    case DType::kInt32:
    case DType::kQInt32:
      return SummarizeAs<int32_t>(t, max_entries, v2, out);
    case DType::kUInt32:
      return SummarizeAs<uint32_t>(t, max_entries, v2, out);
    case DType::kInt64:
      return SummarizeAs<int64_t>(t, max_entries, v2, out);
    case DType::kUInt64:
      return SummarizeAs<uint64_t>(t, max_entries, v2, out);
    case DType::kBool:
      return SummarizeAs<bool>(t, max_entries, v2, out);
    case DType::kComplex64:
      return SummarizeAs<std::complex<float>>(t, max_entries, v2, out);
    case DType::kComplex128:
      return SummarizeAs<std::complex<double>>(t, max_entries, v2, out);
    case DType::kString:
      return SummarizeAs<std::string>(t, max_entries, v2, out);
    default:
      out->append("<").append(DTypeName(t.dtype())).append(" tensor of shape ").append(ShapeText(t.dims()));
      out->append(">");
  }
}

// ---- StringJoin ----------------------------------------------------------------------------

// Joins its inputs elementwise with the separator; scalar inputs broadcast.
class StringJoinKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "separator", &separator_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor* shaped = nullptr;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      if (in.rank() == 0) continue;
      if (shaped != nullptr && shaped->dims() != in.dims()) {
        return errors::InvalidArgument("Input shapes do not match: ", ShapeText(shaped->dims()), " vs. ",
                                       ShapeText(in.dims()));
      }
      shaped = &in;
    }
    const std::vector<int64_t> dims = shaped ? shaped->dims() : std::vector<int64_t>{};
    const size_t n = shaped ? static_cast<size_t>(shaped->num_elements()) : 1;
    std::vector<std::string> out(n);
    for (size_t k = 0; k < n; ++k) {
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& in = ctx.input(i);
        if (i > 0) out[k].append(separator_);
        out[k].append(in.strings()[in.rank() == 0 ? 0 : k]);
      }
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(out), &t));
    ctx.SetOutput(0, std::move(t));
    return Status::Ok();
  }

 private:
  std::string separator_;
};

// ---- StringFormat --------------------------------------------------------------------------

// The template's text between placeholders (an empty placeholder splits between characters).
std::vector<std::string> SplitTemplate(const std::string& text, const std::string& placeholder) {
  std::vector<std::string> parts;
  if (placeholder.empty()) {
    if (text.empty()) parts.emplace_back();
    for (char c : text) parts.emplace_back(1, c);
    return parts;
  }
  size_t start = 0;
  for (size_t pos = text.find(placeholder); pos != std::string::npos; pos = text.find(placeholder, start)) {
    parts.push_back(text.substr(start, pos - start));
    start = pos + placeholder.size();
  }
  parts.push_back(text.substr(start));
  return parts;
}

class StringFormatKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string tmpl, placeholder;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "template", &tmpl));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "placeholder", &placeholder));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "summarize", &summarize_));
    parts_ = SplitTemplate(tmpl, placeholder);
    if (static_cast<int64_t>(parts_.size()) - 1 != node().num_inputs()) {
      return errors::InvalidArgument("num placeholders in template and num inputs must match: ", parts_.size() - 1,
                                     " vs. ", node().num_inputs());
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    std::string msg = parts_[0];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      Summarize(ctx.input(i), summarize_, true, &msg);
      msg.append(parts_[static_cast<size_t>(i) + 1]);
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings({}, {std::move(msg)}, &t));
    ctx.SetOutput(0, std::move(t));
    return Status::Ok();
  }

 private:
  std::vector<std::string> parts_;
  int64_t summarize_ = 3;
};

// ---- PrintV2 -------------------------------------------------------------------------------

// Writes its string scalar and `end` to output_stream: "stdout", "stderr", "log(info)",
// "log(warning)", "log(error)" (stderr, after "[info] " and so on) or "file://<path>"
// (appended). Writes are serialized so that concurrent prints do not interleave.
class PrintV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "output_stream", &stream_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "end", &end_));
    static const char* const kStreams[] = {"stdout", "stderr", "log(info)", "log(warning)", "log(error)"};
    if (stream_.rfind("file://", 0) == 0) {
      path_ = stream_.substr(7);
      return Status::Ok();
    }
    for (const char* s : kStreams) {
      if (stream_ == s) return Status::Ok();
    }
    std::string valid;
    for (const char* s : kStreams) valid.append(" ").append(s);
    return errors::InvalidArgument("Unknown output stream: ", stream_, ", Valid streams are:", valid,
                                   " file://<path>");
  }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 0) {
      return errors::InvalidArgument("Input is expected to be scalar, but got ", ShapeText(in.dims()));
    }
    std::string text;
    if (stream_.rfind("log(", 0) == 0) text.append("[").append(stream_.substr(4, stream_.size() - 5)).append("] ");
    text.append(in.strings()[0]).append(end_);
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (!path_.empty()) {
      std::FILE* f = std::fopen(path_.c_str(), "ab");
      if (f == nullptr) return errors::InvalidArgument("cannot open '", path_, "' for appending");
      const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
      if (std::fclose(f) != 0 || !ok) return errors::DataLoss("cannot write to '", path_, "'");
      return Status::Ok();
    }
    std::FILE* f = stream_ == "stdout" ? stdout : stderr;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
    return Status::Ok();
  }

 private:
  std::string stream_, end_, path_;
};

// ---- Assert --------------------------------------------------------------------------------

// Fails with "assertion failed: [data0] [data1] ..." (each summarized to `summarize`
// elements) when its condition is false.
class AssertKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "summarize", &summarize_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& cond = ctx.input(0);
    // A scalar, or (as TensorFlow still accepts) a vector of one element.
    if (!(cond.rank() == 0 || (cond.rank() == 1 && cond.dim(0) == 1))) {
      return errors::InvalidArgument("In[0] should be a scalar: ", ShapeText(cond.dims()));
    }
    if (*cond.data<bool>()) return Status::Ok();
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      if (i > 1) msg.push_back(' ');
      msg.push_back('[');
      Summarize(ctx.input(i), summarize_, false, &msg);
      msg.push_back(']');
    }
    return errors::InvalidArgument(msg);
  }

 private:
  int64_t summarize_ = 3;
};

}  // namespace

void RegisterStringKernels(KernelRegistry& r) {
  (void)r.Register("StringJoin", kDeviceCpu, "", {}, &CreateKernel<StringJoinKernel>);
  (void)r.Register("StringFormat", kDeviceCpu, "", {}, &CreateKernel<StringFormatKernel>);
  (void)r.Register("PrintV2", kDeviceCpu, "", {}, &CreateKernel<PrintV2Kernel>);
  (void)r.Register("Assert", kDeviceCpu, "", {}, &CreateKernel<AssertKernel>);
}

}  // namespace graft::cpu
