// CPU kernels for reductions: Sum, Mean, Prod, Max, Min, All, Any (over constant or fed
// reduction_indices, negative axes, keep_dims) and ArgMax, ArgMin.
//
// The input is viewed as groups of adjacent dims that are all reduced or all kept (size-1
// dims dropped). Each reduced group is then folded away in a [outer, reduce, inner] loop,
// innermost group first, into an accumulator buffer; the last step turns accumulators into
// output elements (Mean divides by the count there). Float sums and products accumulate in
// double. Empty reductions give the reducer's identity: 0 for Sum, 1 for Prod, -inf/+inf
// (integers: lowest/highest) for Max/Min, true for All, false for Any, and for Mean NaN
// (integers: 0, TensorFlow's identity for an integer mean). Integer Sum and Prod wrap in the
// element type; integer Mean accumulates in 64 bits, as TensorFlow's.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Dims = std::vector<int64_t>;

Status ReadIndices(const Tensor& t, const char* what, Dims* out) {
  out->resize(static_cast<size_t>(t.num_elements()));
  switch (t.dtype()) {
    case DType::kInt32:
      for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = t.data<int32_t>()[i];
      return Status::Ok();
    case DType::kInt64:
      for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = t.data<int64_t>()[i];
      return Status::Ok();
    case DType::kInt16:
      for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = t.data<int16_t>()[i];
      return Status::Ok();
    default:
      return errors::DTypeError(what, " must be int32 or int64, not ", DTypeName(t.dtype()));
  }
}

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// The reducers: Acc is what accumulates, Init its identity, Combine folds two, Finish makes
// an output element from an accumulator and the number of elements reduced.
template <typename T>
using WideAcc = std::conditional_t<std::is_same_v<T, float>, double, T>;

template <typename T>
struct SumR {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return WrapAdd(a, b); }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// Mean accumulates integers narrower than 64 bits in 64 bits (as TensorFlow's, to avoid
// overflow) and divides there, truncating.
template <typename T>
using MeanAcc = std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 8),
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, WideAcc<T>>;

template <typename T>
struct MeanR {
  using Acc = MeanAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return WrapAdd(a, b); }
  static T Finish(Acc a, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      return n == 0 ? T(0) : static_cast<T>(a / static_cast<Acc>(n));
    } else if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      return n == 0 ? T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN())
                    : a / static_cast<R>(n);
    } else {
      return static_cast<T>(n == 0 ? std::numeric_limits<Acc>::quiet_NaN() : a / static_cast<Acc>(n));
    }
  }
};

template <typename T>
struct ProdR {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(1); }
  static Acc Combine(Acc a, Acc b) { return WrapMul(a, b); }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MaxR {
  using Acc = T;
  static Acc Init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  // NaN propagates.
  static Acc Combine(Acc a, Acc b) { return a > b || a != a ? a : b; }
  static T Finish(Acc a, int64_t) { return a; }
};

template <typename T>
struct MinR {
  using Acc = T;
  static Acc Init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  static Acc Combine(Acc a, Acc b) { return a < b || a != a ? a : b; }
  static T Finish(Acc a, int64_t) { return a; }
};

template <typename T>
struct AllR {
  using Acc = bool;
  static Acc Init() { return true; }
  static Acc Combine(Acc a, Acc b) { return a && b; }
  static T Finish(Acc a, int64_t) { return a; }
};

template <typename T>
struct AnyR {
  using Acc = bool;
  static Acc Init() { return false; }
  static Acc Combine(Acc a, Acc b) { return a || b; }
  static T Finish(Acc a, int64_t) { return a; }
};

// out[o, i] = fold over r of in[o, r, i] (out has outer * inner accumulators).
template <typename R, typename In>
void FoldMiddle(const In* in, typename R::Acc* out, int64_t outer, int64_t n, int64_t inner) {
  using Acc = typename R::Acc;
  for (int64_t o = 0; o < outer; ++o) {
    if (inner == 1) {
      // A contiguous run: eight independent accumulators, so that the folds do not wait on
      // each other (one chain of dependent adds runs at a quarter of the memory's speed).
      constexpr int64_t kLanes = 8;
      const In* src = in + o * n;
      Acc lanes[kLanes];
      std::fill_n(lanes, kLanes, R::Init());
      int64_t r = 0;
      for (; r + kLanes <= n; r += kLanes) {
        for (int64_t l = 0; l < kLanes; ++l) lanes[l] = R::Combine(lanes[l], static_cast<Acc>(src[r + l]));
      }
      Acc acc = R::Init();
      for (int64_t l = 0; l < kLanes; ++l) acc = R::Combine(acc, lanes[l]);
      for (; r < n; ++r) acc = R::Combine(acc, static_cast<Acc>(src[r]));
      out[o] = acc;
      continue;
    }
    Acc* dst = out + o * inner;
    std::fill_n(dst, inner, R::Init());
    for (int64_t r = 0; r < n; ++r) {
      const In* src = in + (o * n + r) * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] = R::Combine(dst[i], static_cast<Acc>(src[i]));
    }
  }
}

// Reads and checks the axes; marks reduced dims.
Status ReducedDims(const Tensor& axes_t, int rank, std::vector<bool>* reduced) {
  if (axes_t.rank() > 1) {
    return errors::InvalidArgument("reduction_indices must be a scalar or a vector, got shape ",
                                   ShapeText(axes_t.dims()));
  }
  Dims axes;
  GRAFT_RETURN_IF_ERROR(ReadIndices(axes_t, "reduction_indices", &axes));
  reduced->assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", a, " for input with ", rank, " dimensions.");
    }
    const int64_t d = a < 0 ? a + rank : a;
    if ((*reduced)[static_cast<size_t>(d)]) {
      return errors::InvalidArgument("Invalid reduction arguments: Axes contains duplicate dimension: ", d);
    }
    (*reduced)[static_cast<size_t>(d)] = true;
  }
  return Status::Ok();
}

// What a reduction folds, worked out (and its output allocated) once for every instance of
// ReductionKernel: the instances keep only their loops.
struct ReductionPlan {
  struct Fold {
    int64_t outer, n, inner;  // FoldMiddle's arguments
  };
  Tensor* out = nullptr;
  int64_t count = 1;        // elements folded into each output element
  std::vector<Fold> folds;  // innermost reduced group first; none: each output is one input
};

Status PlanReduction(OpKernelContext& ctx, DType dtype, bool keep_dims, ReductionPlan* plan) {
  const Tensor& x = ctx.input(0);
  std::vector<bool> reduced;
  GRAFT_RETURN_IF_ERROR(ReducedDims(ctx.input(1), x.rank(), &reduced));
  Dims out_dims;
  // Groups of adjacent dims alike in being reduced; size-1 dims do not matter.
  std::vector<std::pair<int64_t, bool>> groups;
  for (int d = 0; d < x.rank(); ++d) {
    const int64_t size = x.dim(d);
    const bool red = reduced[static_cast<size_t>(d)];
    if (red) {
      plan->count *= size;
      if (keep_dims) out_dims.push_back(1);
    } else {
      out_dims.push_back(size);
    }
    if (size == 1) continue;
    if (!groups.empty() && groups.back().second == red) {
      groups.back().first *= size;
    } else {
      groups.emplace_back(size, red);
    }
  }
  GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dtype, out_dims, &plan->out));
  // Fold the innermost reduced group first, then the next, each step over the previous
  // step's accumulators.
  while (true) {
    int j = -1;
    for (int g = static_cast<int>(groups.size()) - 1; g >= 0; --g) {
      if (groups[static_cast<size_t>(g)].second) {
        j = g;
        break;
      }
    }
    if (j < 0) break;
    int64_t outer = 1, inner = 1;
    for (int g = 0; g < j; ++g) outer *= groups[static_cast<size_t>(g)].first;
    for (size_t g = static_cast<size_t>(j) + 1; g < groups.size(); ++g) inner *= groups[g].first;
    plan->folds.push_back({outer, groups[static_cast<size_t>(j)].first, inner});
    groups.erase(groups.begin() + j);
  }
  return Status::Ok();
}

template <typename T, template <typename> class Reducer>
class ReductionKernel : public OpKernel {
  using R = Reducer<T>;
  using Acc = typename R::Acc;

 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "keep_dims", &keep_dims_); }

  Status Compute(OpKernelContext& ctx) const override {
    ReductionPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanReduction(ctx, DTypeOf<T>(), keep_dims_, &plan));
    const int64_t n_out = plan.out->num_elements();
    if (n_out == 0) return Status::Ok();
    T* po = plan.out->data<T>();
    const T* px = ctx.input(0).data<T>();
    const int64_t count = plan.count;
    if (plan.folds.empty()) {
      // Nothing (or only size-1 dims) to fold: each output element is one input element.
      for (int64_t i = 0; i < n_out; ++i) po[i] = R::Finish(R::Combine(R::Init(), static_cast<Acc>(px[i])), count);
      return Status::Ok();
    }
    std::unique_ptr<Acc[]> cur, next;
    bool first = true;
    for (const ReductionPlan::Fold& f : plan.folds) {
      next.reset(new Acc[static_cast<size_t>(f.outer * f.inner)]);
      if (first) {
        FoldMiddle<R>(px, next.get(), f.outer, f.n, f.inner);
      } else {
        FoldMiddle<R>(cur.get(), next.get(), f.outer, f.n, f.inner);
      }
      first = false;
      cur.swap(next);
    }
    for (int64_t i = 0; i < n_out; ++i) po[i] = R::Finish(cur[static_cast<size_t>(i)], count);
    return Status::Ok();
  }

 private:
  bool keep_dims_ = false;
};

// ArgMax/ArgMin's axis, checks and output (of out_type), worked out once for every instance.
struct ArgPlan {
  int64_t outer = 1, n = 1, inner = 1;
  Tensor* out = nullptr;
};

Status PlanArg(OpKernelContext& ctx, DType out_type, ArgPlan* plan) {
  const Tensor& x = ctx.input(0);
  const Tensor& dim_t = ctx.input(1);
  if (dim_t.rank() != 0) {
    return errors::InvalidArgument("dim must be a scalar, but received tensor of shape: ", ShapeText(dim_t.dims()));
  }
  Dims v;
  GRAFT_RETURN_IF_ERROR(ReadIndices(dim_t, "dimension", &v));
  const int rank = x.rank();
  int64_t axis = v[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Expected dimension in the range [", -rank, ", ", rank, "), but got ", axis);
  }
  if (axis < 0) axis += rank;
  Dims out_dims;
  for (int d = 0; d < rank; ++d) {
    if (d < axis) plan->outer *= x.dim(d);
    if (d > axis) plan->inner *= x.dim(d);
    if (d == axis) plan->n = x.dim(d);
    else out_dims.push_back(x.dim(d));
  }
  if (plan->n == 0) {
    return errors::InvalidArgument("Reduction axis ", axis, " is empty in shape ", ShapeText(x.dims()));
  }
  int64_t max_index = 0;
  switch (out_type) {
    case DType::kInt32: max_index = std::numeric_limits<int32_t>::max(); break;
    case DType::kInt64: max_index = std::numeric_limits<int64_t>::max(); break;
    case DType::kInt16: max_index = std::numeric_limits<int16_t>::max(); break;
    case DType::kUInt16: max_index = std::numeric_limits<uint16_t>::max(); break;
    default: return errors::DTypeError("output_type ", DTypeName(out_type), " is not supported");
  }
  if (plan->n - 1 > max_index) {
    return errors::InvalidArgument("the axis has ", plan->n, " elements, more than output_type ", DTypeName(out_type),
                                   " can index");
  }
  return ctx.AllocateOutput(0, out_type, out_dims, &plan->out);
}

// ArgMax / ArgMin: the index of the first largest (smallest) element along an axis; a NaN
// counts as larger (smaller) than everything, as numpy's.
template <typename T, bool Max>
class ArgKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "output_type", &out_type_); }
  Status Compute(OpKernelContext& ctx) const override {
    ArgPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanArg(ctx, out_type_, &plan));
    switch (out_type_) {
      case DType::kInt32: Run<int32_t>(ctx.input(0), plan); break;
      case DType::kInt64: Run<int64_t>(ctx.input(0), plan); break;
      case DType::kInt16: Run<int16_t>(ctx.input(0), plan); break;
      default: Run<uint16_t>(ctx.input(0), plan); break;  // PlanArg admits no other type
    }
    return Status::Ok();
  }

 private:
  static bool Better(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b)) return false;
      if (std::isnan(a)) return true;
    }
    return Max ? a > b : a < b;
  }

  template <typename Out>
  static void Run(const Tensor& x, const ArgPlan& plan) {
    const int64_t outer = plan.outer, n = plan.n, inner = plan.inner;
    const T* px = x.data<T>();
    Out* po = plan.out->data<Out>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* base = px + o * n * inner + i;
        int64_t best = 0;
        for (int64_t r = 1; r < n; ++r) {
          if (Better(base[r * inner], base[best * inner])) best = r;
        }
        po[o * inner + i] = static_cast<Out>(best);
      }
    }
  }

  DType out_type_ = DType::kInt64;
};

template <template <typename> class Reducer, typename... Ts>
void RegisterReduction(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, &CreateKernel<ReductionKernel<Ts, Reducer>>), ...);
}

template <bool Max, typename... Ts>
void RegisterArg(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, &CreateKernel<ArgKernel<Ts, Max>>), ...);
}


}  // namespace

void RegisterReductionKernels(KernelRegistry& r) {
  RegisterReduction<SumR, GRAFT_CPU_NUMBER_TYPES>(r, "Sum");
  RegisterReduction<MeanR, GRAFT_CPU_NUMBER_TYPES>(r, "Mean");
  RegisterReduction<ProdR, GRAFT_CPU_NUMBER_TYPES>(r, "Prod");
  RegisterReduction<MaxR, GRAFT_CPU_REAL_TYPES>(r, "Max");
  RegisterReduction<MinR, GRAFT_CPU_REAL_TYPES>(r, "Min");
  (void)r.Register("All", kDeviceCpu, "", {}, &CreateKernel<ReductionKernel<bool, AllR>>);
  (void)r.Register("Any", kDeviceCpu, "", {}, &CreateKernel<ReductionKernel<bool, AnyR>>);
  RegisterArg<true, GRAFT_CPU_REAL_TYPES, bool>(r, "ArgMax");
  RegisterArg<false, GRAFT_CPU_REAL_TYPES, bool>(r, "ArgMin");
}

}  // namespace graft::cpu
