// _GraftFusedElementwise: a chain of elementwise ops (the fusion rewrite's,
// core/runtime/fusion.h) run as one loop over blocks of the data, with no tensor between the
// ops. Input 0 is the chain's start; op k applies ops[k] to the running value and, for a
// binary op, to side input args[k] / 2 (the running value on the right when args[k] is odd).
// A side input is a scalar, of the running value's shape, or of its trailing dims (repeated
// over the leading ones): the rewrite only fuses sides whose static shapes say so, and the
// kernel checks them again. The ops compute with the functors of their own kernels
// (cwise_functors.h), so the results are the unfused ones exactly.
#include <algorithm>
#include <string>
#include <vector>

#include "core/runtime/parallel_for.h"
#include "kernels/cpu/cwise_functors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

constexpr int64_t kBlock = 512;

// A side operand over a block: data[(offset + i) % period] (period 1: a scalar).
template <typename T>
struct Side {
  const T* data = nullptr;
  int64_t period = 1;
};

template <typename T>
using UnaryFn = void (*)(T* v, int64_t n);
template <typename T>
using BinaryFn = void (*)(T* v, const Side<T>& side, int64_t offset, bool value_right, int64_t n);

template <typename F, typename T>
void UnaryBlock(T* v, int64_t n) {
  F f;
  for (int64_t i = 0; i < n; ++i) v[i] = f(v[i]);
}

template <typename F, typename T>
void BinaryBlock(T* v, const Side<T>& side, int64_t offset, bool value_right, int64_t n) {
  F f;
  if (side.period == 1) {
    const T s = side.data[0];
    if (value_right) {
      for (int64_t i = 0; i < n; ++i) v[i] = f(s, v[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) v[i] = f(v[i], s);
    }
    return;
  }
  int64_t j = offset % side.period;
  for (int64_t i = 0; i < n; ++i) {
    const T s = side.data[j];
    v[i] = value_right ? f(s, v[i]) : f(v[i], s);
    if (++j == side.period) j = 0;
  }
}

template <typename T>
UnaryFn<T> FindUnary(const std::string& op) {
  if (op == "Neg") return UnaryBlock<NegF, T>;
  if (op == "Abs") return UnaryBlock<AbsF, T>;
  if (op == "Square") return UnaryBlock<SquareF, T>;
  if (op == "Sqrt") return UnaryBlock<SqrtF, T>;
  if (op == "Rsqrt") return UnaryBlock<RsqrtF, T>;
  if (op == "Exp") return UnaryBlock<ExpF, T>;
  if (op == "Log") return UnaryBlock<LogF, T>;
  if (op == "Tanh") return UnaryBlock<TanhF, T>;
  if (op == "Sigmoid") return UnaryBlock<SigmoidF, T>;
  if (op == "Relu") return UnaryBlock<ReluF, T>;
  if (op == "Sin") return UnaryBlock<SinF, T>;
  if (op == "Cos") return UnaryBlock<CosF, T>;
  return nullptr;
}

template <typename T>
BinaryFn<T> FindBinary(const std::string& op) {
  if (op == "AddV2" || op == "Add") return BinaryBlock<AddF, T>;
  if (op == "Sub") return BinaryBlock<SubF, T>;
  if (op == "Mul") return BinaryBlock<MulF, T>;
  if (op == "Maximum") return BinaryBlock<MaxF, T>;
  if (op == "Minimum") return BinaryBlock<MinF, T>;
  if (op == "SquaredDifference") return BinaryBlock<SqDiffF, T>;
  return nullptr;
}

template <typename T>
class FusedElementwiseKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::vector<std::string> ops;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ops", &ops));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "args", &args_));
    if (ops.size() != args_.size()) return errors::InvalidArgument(node().type(), ": ops and args differ in length");
    for (size_t k = 0; k < ops.size(); ++k) {
      Step s;
      if (args_[k] < 0) {
        s.unary = FindUnary<T>(ops[k]);
      } else {
        s.binary = FindBinary<T>(ops[k]);
        s.side = static_cast<int>(args_[k] / 2) + 1;
        s.value_right = args_[k] % 2 == 1;
        if (s.side >= node().num_inputs()) {
          return errors::InvalidArgument(node().type(), ": op ", k, " (", ops[k], ") reads input ", s.side,
                                         " of ", node().num_inputs());
        }
      }
      if (s.unary == nullptr && s.binary == nullptr) {
        return errors::InvalidArgument(node().type(), ": op ", ops[k], " cannot be fused (as ",
                                       args_[k] < 0 ? "a unary" : "a binary", " op)");
      }
      steps_.push_back(s);
    }
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t n = x.num_elements();
    std::vector<Side<T>> sides(static_cast<size_t>(ctx.num_inputs()));
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const Tensor& s = ctx.input(i);
      const int64_t m = s.num_elements();
      const auto& xd = x.dims();
      const auto& sd = s.dims();
      const bool suffix = sd.size() <= xd.size() && std::equal(sd.begin(), sd.end(), xd.end() - static_cast<std::ptrdiff_t>(sd.size()));
      if (!(m == 1 && sd.size() <= xd.size()) && !suffix) {
        return errors::InvalidArgument(node().type(), ": input ", i, " of shape ", ShapeText(sd),
                                       " does not broadcast into the chain's ", ShapeText(xd));
      }
      sides[static_cast<size_t>(i)] = Side<T>{s.data<T>(), std::max<int64_t>(m, 1)};
    }
    // The chain runs in place in the output: input 0's buffer may become it only when no side
    // reads the same memory (x * sin(x) would read x after overwriting it).
    int reuse = 0;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i).data<T>() == x.data<T>()) reuse = -1;
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out, reuse));
    const T* px = x.data<T>();
    T* po = out->data<T>();
    auto run = [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; b += kBlock) {
        const int64_t len = std::min(kBlock, end - b);
        T* v = po + b;  // the block is computed in place in the output, while it is in cache
        if (v != px + b) std::copy(px + b, px + b + len, v);
        for (const Step& s : steps_) {
          if (s.unary != nullptr) {
            s.unary(v, len);
          } else {
            s.binary(v, sides[static_cast<size_t>(s.side)], b, s.value_right, len);
          }
        }
      }
    };
    // Blocks of at least 32K elements per thread: below that a thread's start costs more.
    const int64_t grain = int64_t{1} << 15;
    if (n < 2 * grain) {
      run(0, n);
    } else {
      ParallelFor((n + kBlock - 1) / kBlock, grain / kBlock, [&](int64_t b0, int64_t b1) {
        run(b0 * kBlock, std::min(n, b1 * kBlock));
      });
    }
    return Status::Ok();
  }

 private:
  struct Step {
    UnaryFn<T> unary = nullptr;
    BinaryFn<T> binary = nullptr;
    int side = 0;
    bool value_right = false;
  };
  std::vector<int64_t> args_;
  std::vector<Step> steps_;
};

}  // namespace

void RegisterFusedElementwiseKernels(KernelRegistry& r) {
  (void)r.Register("_GraftFusedElementwise", kDeviceCpu, "T", {DType::kFloat32},
                   &CreateKernel<FusedElementwiseKernel<float>>);
  (void)r.Register("_GraftFusedElementwise", kDeviceCpu, "T", {DType::kFloat64},
                   &CreateKernel<FusedElementwiseKernel<double>>);
}

}  // namespace graft::cpu
