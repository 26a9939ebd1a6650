// CPU kernels of the regex ops, on RE2 as TensorFlow's (core/regex.h): StaticRegexFullMatch
// and RegexFullMatch (whether each string matches the pattern as a whole), StaticRegexReplace
// and RegexReplace (the first match, or every match, rewritten; "\1" in the rewrite is the
// first capture group, "\0" the whole match, "\\" a backslash). The Static ops take the
// pattern as an attr and compile it once, when the kernel is made; the others take it as a
// scalar string input.
#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/regex.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Regex = std::shared_ptr<const re2::RE2>;

// The string of scalar input i (the pattern or the rewrite of the ops that take them as inputs).
Status ScalarStringInput(const OpKernelContext& ctx, int i, const char* what, const std::string** out) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return errors::InvalidArgument(what, " must be a scalar string, but has shape ", t.shape().ToString());
  }
  *out = &t.strings()[0];
  return Status::Ok();
}

// The last pattern a RegexFullMatch/RegexReplace kernel compiled: graphs usually give the
// same pattern run after run, and compiling costs more than matching a short string.
class LastRegex {
 public:
  Status Get(const std::string& pattern, Regex* out) const {
    {
      std::lock_guard lock(mu_);
      if (regex_ && pattern == pattern_) {
        *out = regex_;
        return Status::Ok();
      }
    }
    GRAFT_RETURN_IF_ERROR(CompileRegex(pattern, "pattern", out));
    std::lock_guard lock(mu_);
    pattern_ = pattern;
    regex_ = *out;
    return Status::Ok();
  }

 private:
  mutable std::mutex mu_;
  mutable std::string pattern_;
  mutable Regex regex_;
};

Status FullMatch(const re2::RE2& re, OpKernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor* out = nullptr;
  GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kBool, in.dims(), &out));
  const std::vector<std::string>& strings = in.strings();
  bool* o = out->data<bool>();
  for (size_t i = 0; i < strings.size(); ++i) o[i] = re2::RE2::FullMatch(strings[i], re);
  return Status::Ok();
}

// A rewrite may only name capture groups the pattern has.
Status CheckRewrite(const re2::RE2& re, const std::string& rewrite) {
  std::string error;
  if (!re.CheckRewriteString(rewrite, &error)) {
    return errors::InvalidArgument("rewrite '", ShortenForMessage(rewrite), "' does not fit pattern '",
                                   ShortenForMessage(re.pattern()), "': ", error);
  }
  return Status::Ok();
}

Status Replace(const re2::RE2& re, const std::string& rewrite, bool global, OpKernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  std::vector<std::string> strings = in.strings();
  for (std::string& s : strings) {
    if (global) {
      re2::RE2::GlobalReplace(&s, re, rewrite);
    } else {
      re2::RE2::Replace(&s, re, rewrite);
    }
  }
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(in.dims(), std::move(strings), &t));
  ctx.SetOutput(0, std::move(t));
  return Status::Ok();
}

class StaticRegexFullMatchKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string pattern;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "pattern", &pattern));
    return CompileRegex(pattern, "pattern", &regex_);
  }
  Status Compute(OpKernelContext& ctx) const override { return FullMatch(*regex_, ctx); }

 private:
  Regex regex_;
};

class RegexFullMatchKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const std::string* pattern = nullptr;
    GRAFT_RETURN_IF_ERROR(ScalarStringInput(ctx, 1, "pattern", &pattern));
    Regex re;
    GRAFT_RETURN_IF_ERROR(last_.Get(*pattern, &re));
    return FullMatch(*re, ctx);
  }

 private:
  LastRegex last_;
};

class StaticRegexReplaceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string pattern;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "pattern", &pattern));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "rewrite", &rewrite_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "replace_global", &global_));
    GRAFT_RETURN_IF_ERROR(CompileRegex(pattern, "pattern", &regex_));
    return CheckRewrite(*regex_, rewrite_);
  }
  Status Compute(OpKernelContext& ctx) const override { return Replace(*regex_, rewrite_, global_, ctx); }

 private:
  Regex regex_;
  std::string rewrite_;
  bool global_ = true;
};

class RegexReplaceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "replace_global", &global_); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string* pattern = nullptr;
    const std::string* rewrite = nullptr;
    GRAFT_RETURN_IF_ERROR(ScalarStringInput(ctx, 1, "pattern", &pattern));
    GRAFT_RETURN_IF_ERROR(ScalarStringInput(ctx, 2, "rewrite", &rewrite));
    Regex re;
    GRAFT_RETURN_IF_ERROR(last_.Get(*pattern, &re));
    GRAFT_RETURN_IF_ERROR(CheckRewrite(*re, *rewrite));
    return Replace(*re, *rewrite, global_, ctx);
  }

 private:
  bool global_ = true;
  LastRegex last_;
};

}  // namespace

void RegisterRegexKernels(KernelRegistry& r) {
  (void)r.Register("StaticRegexFullMatch", kDeviceCpu, "", {}, &CreateKernel<StaticRegexFullMatchKernel>);
  (void)r.Register("RegexFullMatch", kDeviceCpu, "", {}, &CreateKernel<RegexFullMatchKernel>);
  (void)r.Register("StaticRegexReplace", kDeviceCpu, "", {}, &CreateKernel<StaticRegexReplaceKernel>);
  (void)r.Register("RegexReplace", kDeviceCpu, "", {}, &CreateKernel<RegexReplaceKernel>);
}

}  // namespace graft::cpu
