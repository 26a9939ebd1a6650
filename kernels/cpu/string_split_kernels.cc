// CPU kernels splitting a vector of strings into tokens, as TensorFlow's, with a SparseTensor's
// parts as outputs: indices (int64 [n, 2]: row, position), values (the n tokens) and
// dense_shape (int64 [2]: rows, the most tokens of a row).
//
// StringSplitV2 (`sep` input, `maxsplit` attr; negative: no limit) splits as Python's
// str.split: with a separator, every occurrence separates (empty tokens kept; an empty string
// gives one empty token). With an empty separator, runs of ASCII whitespace separate and
// leading whitespace is skipped; after maxsplit tokens the rest of the string, from its first
// non-space, is one more token -- kept even when it is empty, as TensorFlow keeps it (" a" with
// maxsplit 1 gives "a" and ""), and maxsplit 0 gives the whole string unchanged.
//
// StringSplit (v1; `delimiter` input, `skip_empty` attr): every character of the delimiter
// separates; an empty delimiter splits into single bytes; an empty string has no tokens.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

void SkipSpaces(std::string_view* s) {
  size_t i = 0;
  while (i < s->size() && IsAsciiSpace((*s)[i])) ++i;
  s->remove_prefix(i);
}

void SplitWhitespace(std::string_view text, int64_t maxsplit, std::vector<std::string_view>* out) {
  if (maxsplit == 0) {
    out->push_back(text);
    return;
  }
  SkipSpaces(&text);
  int64_t splits = 0;
  while (!text.empty()) {
    size_t end = 0;
    while (end < text.size() && !IsAsciiSpace(text[end])) ++end;
    out->push_back(text.substr(0, end));
    text.remove_prefix(end);
    SkipSpaces(&text);
    if (++splits == maxsplit) {
      out->push_back(text);
      return;
    }
  }
}

void SplitOnSeparator(std::string_view text, std::string_view sep, int64_t maxsplit,
                      std::vector<std::string_view>* out) {
  size_t start = 0;
  for (int64_t splits = 0; maxsplit < 0 || splits < maxsplit; ++splits) {
    const size_t at = text.find(sep, start);
    if (at == std::string_view::npos) break;
    out->push_back(text.substr(start, at - start));
    start = at + sep.size();
  }
  out->push_back(text.substr(start));
}

void SplitOnAnyOf(std::string_view text, std::string_view delims, bool skip_empty,
                  std::vector<std::string_view>* out) {
  if (text.empty()) return;
  if (delims.empty()) {
    for (size_t i = 0; i < text.size(); ++i) out->push_back(text.substr(i, 1));
    return;
  }
  size_t start = 0;
  for (;;) {
    const size_t at = text.find_first_of(delims, start);
    const std::string_view token = text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    if (!skip_empty || !token.empty()) out->push_back(token);
    if (at == std::string_view::npos) return;
    start = at + 1;
  }
}

// V2: maxsplit from the attr; V1: skip_empty from the attr.
template <bool kV2>
class StringSplitKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    if constexpr (kV2) {
      return GetAttr(node(), "maxsplit", &maxsplit_);
    } else {
      return GetAttr(node(), "skip_empty", &skip_empty_);
    }
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& sep_t = ctx.input(1);
    const char* sep_name = kV2 ? "sep" : "delimiter";
    if (input.rank() != 1) {
      return errors::InvalidArgument("input must be a vector, got shape: ", ShapeText(input.dims()));
    }
    if (sep_t.rank() != 0) {
      return errors::InvalidArgument(sep_name, " must be a scalar, got shape: ", ShapeText(sep_t.dims()));
    }
    const std::string& sep = sep_t.strings()[0];
    const std::vector<std::string>& rows = input.strings();
    std::vector<std::string_view> tokens;
    std::vector<int64_t> indices;
    int64_t widest = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const size_t before = tokens.size();
      if constexpr (kV2) {
        if (sep.empty()) {
          SplitWhitespace(rows[r], maxsplit_, &tokens);
        } else {
          SplitOnSeparator(rows[r], sep, maxsplit_, &tokens);
        }
      } else {
        SplitOnAnyOf(rows[r], sep, skip_empty_, &tokens);
      }
      const auto count = static_cast<int64_t>(tokens.size() - before);
      for (int64_t j = 0; j < count; ++j) {
        indices.push_back(static_cast<int64_t>(r));
        indices.push_back(j);
      }
      if (count > widest) widest = count;
    }
    const auto n = static_cast<int64_t>(tokens.size());
    Tensor* idx = nullptr;
    const int64_t idx_dims[] = {n, 2};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt64, idx_dims, &idx));
    std::copy(indices.begin(), indices.end(), idx->data<int64_t>());
    std::vector<std::string> values(tokens.begin(), tokens.end());
    Tensor values_t;
    const int64_t values_dims[] = {n};
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(values_dims, std::move(values), &values_t));
    ctx.SetOutput(1, std::move(values_t));
    Tensor* shape = nullptr;
    const int64_t shape_dims[] = {2};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(2, DType::kInt64, shape_dims, &shape));
    shape->data<int64_t>()[0] = static_cast<int64_t>(rows.size());
    shape->data<int64_t>()[1] = widest;
    return Status::Ok();
  }

 private:
  int64_t maxsplit_ = -1;
  bool skip_empty_ = true;
};

}  // namespace

// The text and ragged ops of Keras' TextVectorization (text_kernels.cc, ragged_kernels.cc),
// registered with the string splitting they follow in its graphs.
void RegisterTextKernels(KernelRegistry& r);
void RegisterRaggedKernels(KernelRegistry& r);

void RegisterStringSplitKernels(KernelRegistry& r) {
  RegisterTextKernels(r);
  RegisterRaggedKernels(r);
  (void)r.Register("StringSplitV2", kDeviceCpu, "", {}, &CreateKernel<StringSplitKernel<true>>);
  (void)r.Register("StringSplit", kDeviceCpu, "", {}, &CreateKernel<StringSplitKernel<false>>);
}

}  // namespace graft::cpu
