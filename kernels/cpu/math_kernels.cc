// CPU kernels for the rest of the elementwise math: divisions and modulos with TensorFlow's
// integer rules, Pow, DivNoNan, Atan2, comparisons, logical ops, Select / SelectV2, and unary
// functions and activations. Each op is a functor on the shared elementwise engine
// (elementwise.h: numpy broadcasting, templates over the element type); RealDiv shares Div's
// functor (it is registered for floating and complex types only).
//
// Integer division (Div, TruncateDiv, FloorDiv, FloorMod, TruncateMod) fails with "Integer
// division by zero" when any divisor is 0. The raw Div op truncates toward zero for integers,
// as TensorFlow's kernel does (tf.compat.v1.div's flooring comes from its Python wrapper,
// which emits FloorDiv). INT_MIN / -1 wraps to INT_MIN (and INT_MIN % -1 is 0), as
// TensorFlow's safe division avoids the hardware trap.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/cwise_functors.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------------------
// Binary ops.

// Integer divisions check every divisor before any element is computed (elementwise.h).
struct IntDivCheck {
  template <typename T>
  static Status Check(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        if (y[i] == T(0)) return errors::InvalidArgument("Integer division by zero");
      }
    }
    return Status::Ok();
  }
};

template <typename T>
constexpr bool IsMinOverMinusOne(T a, T b) {
  if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
    return a == std::numeric_limits<T>::min() && b == T(-1);
  } else {
    return false;
  }
}

// Truncating integer division / modulo, safe for INT_MIN / -1.
template <typename T>
T TruncDiv(T a, T b) {
  if (IsMinOverMinusOne(a, b)) return a;  // -INT_MIN wraps to INT_MIN
  return static_cast<T>(a / b);
}
template <typename T>
T TruncMod(T a, T b) {
  if (IsMinOverMinusOne(a, b)) return T(0);
  return static_cast<T>(a % b);
}

struct DivF : IntDivCheck {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return TruncDiv(a, b);
    } else {
      return a / b;
    }
  }
};

struct TruncateDivF : IntDivCheck {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return TruncDiv(a, b);
    } else {
      return std::trunc(a / b);
    }
  }
};

struct FloorDivF : IntDivCheck {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      T q = TruncDiv(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (!IsMinOverMinusOne(a, b) && a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
      }
      return q;
    } else {
      return std::floor(a / b);
    }
  }
};

// The result takes the divisor's sign (Python's %).
struct FloorModF : IntDivCheck {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      T r = TruncMod(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      }
      return r;
    } else {
      T r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};

// The result takes the dividend's sign (C's %).
struct TruncateModF : IntDivCheck {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return TruncMod(a, b);
    } else {
      return std::fmod(a, b);
    }
  }
};

struct PowF {
  template <typename T>
  static Status Check(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        if (y[i] < 0) return errors::InvalidArgument("Integers to negative integer powers are not allowed");
      }
    }
    return Status::Ok();
  }
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Square-and-multiply in unsigned arithmetic: wraps as two's complement.
      using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, T>>;
      U result = 1, base = static_cast<U>(a);
      for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    } else {
      return std::pow(a, b);
    }
  }
};

struct DivNoNanF {
  template <typename T>
  T operator()(T a, T b) const {
    return b == T(0) ? T(0) : a / b;
  }
};

struct Atan2F {
  template <typename T>
  T operator()(T y, T x) const {
    return std::atan2(y, x);
  }
};

struct EqualF {
  static constexpr bool kIncompatibleShapeValue = false;
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};
struct NotEqualF {
  static constexpr bool kIncompatibleShapeValue = true;
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    return a != b;
  }
};
struct LessF {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LessEqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct GreaterF {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct GreaterEqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};
struct LogicalAndF {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrF {
  bool operator()(bool a, bool b) const { return a || b; }
};

// ---------------------------------------------------------------------------------------
// Select and SelectV2.

// The strides of an input of dims read in the index space of out_dims (0 where it
// broadcasts); dims must broadcast to out_dims.
Dims BroadcastStrides(const Dims& dims, const Dims& out_dims) {
  Dims s(out_dims.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    const size_t i = dims.size() - 1 - k;
    const size_t o = out_dims.size() - 1 - k;
    s[o] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  return s;
}

template <typename T>
void SelectLoop(const bool* c, const T* t, const T* e, T* out, const Dims& out_dims, const Dims& sc, const Dims& st,
                const Dims& se) {
  int64_t total = 1;
  for (int64_t d : out_dims) total *= d;
  if (total == 0) return;
  const size_t rank = out_dims.size();
  if (rank == 0) {
    out[0] = c[0] ? t[0] : e[0];
    return;
  }
  Dims idx(rank, 0);
  const int64_t inner = out_dims[rank - 1];
  int64_t oc = 0, ot = 0, oe = 0;
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t i = 0; i < inner; ++i) {
      out[o + i] = c[oc + i * sc[rank - 1]] ? t[ot + i * st[rank - 1]] : e[oe + i * se[rank - 1]];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      oc += sc[d];
      ot += st[d];
      oe += se[d];
      if (++idx[d] < out_dims[d]) break;
      oc -= sc[d] * out_dims[d];
      ot -= st[d] * out_dims[d];
      oe -= se[d] * out_dims[d];
      idx[d] = 0;
    }
  }
}

template <typename T, bool V2>
class SelectKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& cond = ctx.input(0);
    const Tensor& then = ctx.input(1);
    const Tensor& els = ctx.input(2);
    Dims out_dims;
    if constexpr (V2) {
      Broadcast b1, b2;
      if (!MakeBroadcast(cond.dims(), then.dims(), &b1).ok() || !MakeBroadcast(b1.out_dims, els.dims(), &b2).ok()) {
        return errors::InvalidArgument("condition ", ShapeText(cond.dims()), ", then ", ShapeText(then.dims()),
                                       ", and else ", ShapeText(els.dims()), " must be broadcastable");
      }
      out_dims = b2.out_dims;
    } else {
      if (then.dims() != els.dims()) {
        return errors::InvalidArgument("'then' and 'else' must have the same size.  but received: ",
                                       ShapeText(then.dims()), " vs. ", ShapeText(els.dims()));
      }
      out_dims = then.dims();
      if (cond.rank() == 1 && then.rank() > 1) {
        // One condition per row of then / else.
        if (then.dim(0) != cond.num_elements()) {
          return errors::InvalidArgument("Number of batches of 'then' must match size of 'cond', but saw: ",
                                         then.dim(0), " vs. ", cond.num_elements());
        }
      } else if (cond.rank() == 1 && then.rank() == 0) {
        return errors::InvalidArgument("'then' must be at least a vector, but saw shape: ", ShapeText(then.dims()));
      } else if (cond.rank() != 0 && cond.dims() != then.dims()) {
        return errors::InvalidArgument("Inputs to operation ", node().name(),
                                       " of type Select must have the same size and shape.  Input 0: ",
                                       ShapeText(cond.dims()), " != input 1: ", ShapeText(then.dims()));
      }
    }
    Dims sc;
    if (!V2 && cond.rank() == 1 && then.rank() > 1) {
      sc.assign(out_dims.size(), 0);
      sc[0] = 1;
    } else {
      sc = BroadcastStrides(cond.dims(), out_dims);
    }
    const Dims st = BroadcastStrides(then.dims(), out_dims);
    const Dims se = BroadcastStrides(els.dims(), out_dims);
    const T* pt = Elements<T>(then);
    const T* pe = Elements<T>(els);
    const bool* pc = cond.data<bool>();
    if constexpr (std::is_same_v<T, std::string>) {
      int64_t n = 0;
      GRAFT_RETURN_IF_ERROR(CheckedNumElements(out_dims, &n));
      std::vector<std::string> v(static_cast<size_t>(n));
      SelectLoop(pc, pt, pe, v.data(), out_dims, sc, st, se);
      Tensor t;
      GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(out_dims, std::move(v), &t));
      ctx.SetOutput(0, std::move(t));
    } else {
      // Not in place: an element of then/else may be read after its position is written.
      Tensor* out = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, then.dtype(), out_dims, &out));
      SelectLoop(pc, pt, pe, out->data<T>(), out_dims, sc, st, se);
    }
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------
// Unary ops.

template <typename T>
T RoundHalfToEven(T x) {
  T r = std::floor(x);
  const T diff = x - r;
  if (diff > T(0.5) || (diff == T(0.5) && std::fmod(r, T(2)) != 0)) r += T(1);
  return r == 0 ? std::copysign(r, x) : r;
}

struct SignF {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return x > 0 ? T(1) : x < 0 ? T(-1) : x;  // keeps 0, -0 and NaN
    } else {
      return static_cast<T>((x > 0) - (x < 0));
    }
  }
};
struct ReciprocalF { template <typename T> T operator()(T x) const { return T(1) / x; } };
struct Expm1F { template <typename T> T operator()(T x) const { return std::expm1(x); } };
struct Log1pF { template <typename T> T operator()(T x) const { return std::log1p(x); } };
struct TanF { template <typename T> T operator()(T x) const { return std::tan(x); } };
struct AsinF { template <typename T> T operator()(T x) const { return std::asin(x); } };
struct AcosF { template <typename T> T operator()(T x) const { return std::acos(x); } };
struct AtanF { template <typename T> T operator()(T x) const { return std::atan(x); } };
struct SinhF { template <typename T> T operator()(T x) const { return std::sinh(x); } };
struct CoshF { template <typename T> T operator()(T x) const { return std::cosh(x); } };
struct AsinhF { template <typename T> T operator()(T x) const { return std::asinh(x); } };
struct AcoshF { template <typename T> T operator()(T x) const { return std::acosh(x); } };
struct AtanhF { template <typename T> T operator()(T x) const { return std::atanh(x); } };
struct ErfF { template <typename T> T operator()(T x) const { return std::erf(x); } };
struct ErfcF { template <typename T> T operator()(T x) const { return std::erfc(x); } };
struct FloorF { template <typename T> T operator()(T x) const { return std::floor(x); } };
struct CeilF { template <typename T> T operator()(T x) const { return std::ceil(x); } };
struct RoundF {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return x;
    } else {
      return RoundHalfToEven(x);
    }
  }
};
struct RintF { template <typename T> T operator()(T x) const { return RoundHalfToEven(x); } };
struct IsNanF { template <typename T> bool operator()(T x) const { return std::isnan(x); } };
struct IsInfF { template <typename T> bool operator()(T x) const { return std::isinf(x); } };
struct IsFiniteF { template <typename T> bool operator()(T x) const { return std::isfinite(x); } };
struct LogicalNotF { bool operator()(bool x) const { return !x; } };
struct Relu6F {
  template <typename T>
  T operator()(T x) const {
    const T y = x > T(0) ? x : T(0);
    return y < T(6) ? y : T(6);
  }
};
// Elu and Selu compute exp(x) - 1 as TensorFlow's kernels do (not expm1).
struct EluF { template <typename T> T operator()(T x) const { return x < T(0) ? std::exp(x) - T(1) : x; } };
struct SeluF {
  template <typename T>
  T operator()(T x) const {
    const T scale = static_cast<T>(1.0507009873554804934193349852946);
    const T scale_alpha = static_cast<T>(1.7580993408473768599402175208123);
    return x < T(0) ? scale_alpha * (std::exp(x) - T(1)) : scale * x;
  }
};
// TensorFlow's overflow-safe form: x where exp(x) would swamp 1, exp(x) where 1 would swamp it.
struct SoftplusF {
  template <typename T>
  T operator()(T x) const {
    const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T(2);
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(std::exp(x));
  }
};
struct SoftsignF { template <typename T> T operator()(T x) const { return x / (T(1) + std::abs(x)); } };

template <typename T>
class LeakyReluKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    float alpha = 0.2f;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out, 0));
    const T* px = x.data<T>();
    T* po = out->data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i) po[i] = px[i] > T(0) ? px[i] : px[i] * alpha_;
    return Status::Ok();
  }

 private:
  T alpha_ = T(0.2);
};

// ---------------------------------------------------------------------------------------
// Registration.

template <bool V2>
struct Select {
  template <typename T>
  using Kernel = SelectKernel<T, V2>;
};

// ClipByValue(t, clip_value_min, clip_value_max): each element of t limited to [min, max];
// min and max are scalars or have t's shape (TensorFlow's rule). As TensorFlow's kernel,
// max(min(t, max), min): where min > max, min wins; NaN stays NaN.
template <typename T>
class ClipByValueKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& t = ctx.input(0);
    const Tensor& lo = ctx.input(1);
    const Tensor& hi = ctx.input(2);
    for (const Tensor* b : {&lo, &hi}) {
      if (b->num_elements() != 1 && b->dims() != t.dims()) {
        return errors::InvalidArgument(b == &lo ? "clip_value_min" : "clip_value_max", " must be a scalar or have "
                                       "the shape of t ", ShapeText(t.dims()), ", not ", ShapeText(b->dims()));
      }
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, t.dtype(), t.dims(), &out, 0));
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    const int64_t sl = lo.num_elements() == 1 ? 0 : 1, sh = hi.num_elements() == 1 ? 0 : 1;
    T* o = out->data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const T v = h[i * sh] < x[i] ? h[i * sh] : x[i];
      o[i] = v < l[i * sl] ? l[i * sl] : v;
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterMathKernels(KernelRegistry& r) {
  Binary<DivF>(r, "Div", Join<FloatTypes, ComplexTypes, IntTypes>{});
  Binary<DivF>(r, "RealDiv", Join<FloatTypes, ComplexTypes>{});
  Binary<TruncateDivF>(r, "TruncateDiv", RealTypes{});
  Binary<FloorDivF>(r, "FloorDiv", RealTypes{});
  Binary<FloorModF>(r, "FloorMod", RealTypes{});
  Binary<TruncateModF>(r, "TruncateMod", Join<FloatTypes, Types<int32_t, int64_t>>{});
  Binary<PowF>(r, "Pow", Join<FloatTypes, SignedIntTypes, ComplexTypes>{});
  Binary<DivNoNanF>(r, "DivNoNan", Join<FloatTypes, ComplexTypes>{});
  Binary<Atan2F>(r, "Atan2", FloatTypes{});

  Compare<EqualF>(r, "Equal", AllTypes{});
  Compare<NotEqualF>(r, "NotEqual", AllTypes{});
  (void)r.Register("Equal", kDeviceCpu, "T", {DType::kString}, &CreateKernel<BinaryKernel<std::string, bool, EqualF>>);
  (void)r.Register("NotEqual", kDeviceCpu, "T", {DType::kString},
                   &CreateKernel<BinaryKernel<std::string, bool, NotEqualF>>);
  Compare<LessF>(r, "Less", RealTypes{});
  Compare<LessEqualF>(r, "LessEqual", RealTypes{});
  Compare<GreaterF>(r, "Greater", RealTypes{});
  Compare<GreaterEqualF>(r, "GreaterEqual", RealTypes{});
  (void)r.Register("LogicalAnd", kDeviceCpu, "", {}, &CreateKernel<BinaryKernel<bool, bool, LogicalAndF>>);
  (void)r.Register("LogicalOr", kDeviceCpu, "", {}, &CreateKernel<BinaryKernel<bool, bool, LogicalOrF>>);
  (void)r.Register("LogicalNot", kDeviceCpu, "", {}, &CreateKernel<UnaryKernel<bool, bool, LogicalNotF>>);

  RegisterTypes<ClipByValueKernel>(r, "ClipByValue", RealTypes{});
  RegisterTypes<Select<false>::Kernel>(r, "Select", AllTypes{});
  RegisterTypes<Select<true>::Kernel>(r, "SelectV2", AllTypes{});
  (void)r.Register("Select", kDeviceCpu, "T", {DType::kString}, &CreateKernel<SelectKernel<std::string, false>>);
  (void)r.Register("SelectV2", kDeviceCpu, "T", {DType::kString}, &CreateKernel<SelectKernel<std::string, true>>);

  Unary<SignF>(r, "Sign", Join<FloatTypes, SignedIntTypes>{});
  Unary<ReciprocalF>(r, "Reciprocal", Join<FloatTypes, ComplexTypes>{});
  Unary<Expm1F>(r, "Expm1", FloatTypes{});
  Unary<Log1pF>(r, "Log1p", FloatTypes{});
  Unary<SinF>(r, "Sin", Join<FloatTypes, ComplexTypes>{});
  Unary<CosF>(r, "Cos", Join<FloatTypes, ComplexTypes>{});
  Unary<TanF>(r, "Tan", Join<FloatTypes, ComplexTypes>{});
  Unary<AsinF>(r, "Asin", Join<FloatTypes, ComplexTypes>{});
  Unary<AcosF>(r, "Acos", Join<FloatTypes, ComplexTypes>{});
  Unary<AtanF>(r, "Atan", Join<FloatTypes, ComplexTypes>{});
  Unary<SinhF>(r, "Sinh", Join<FloatTypes, ComplexTypes>{});
  Unary<CoshF>(r, "Cosh", Join<FloatTypes, ComplexTypes>{});
  Unary<AsinhF>(r, "Asinh", Join<FloatTypes, ComplexTypes>{});
  Unary<AcoshF>(r, "Acosh", Join<FloatTypes, ComplexTypes>{});
  Unary<AtanhF>(r, "Atanh", Join<FloatTypes, ComplexTypes>{});
  Unary<ErfF>(r, "Erf", FloatTypes{});
  Unary<ErfcF>(r, "Erfc", FloatTypes{});
  Unary<FloorF>(r, "Floor", FloatTypes{});
  Unary<CeilF>(r, "Ceil", FloatTypes{});
  Unary<RoundF>(r, "Round", Join<FloatTypes, SignedIntTypes>{});
  Unary<RintF>(r, "Rint", FloatTypes{});
  Predicate<IsNanF>(r, "IsNan", FloatTypes{});
  Predicate<IsInfF>(r, "IsInf", FloatTypes{});
  Predicate<IsFiniteF>(r, "IsFinite", FloatTypes{});
  Unary<Relu6F>(r, "Relu6", RealTypes{});
  Unary<EluF>(r, "Elu", FloatTypes{});
  Unary<SeluF>(r, "Selu", FloatTypes{});
  Unary<SoftplusF>(r, "Softplus", FloatTypes{});
  Unary<SoftsignF>(r, "Softsign", FloatTypes{});
  (void)r.Register("LeakyRelu", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<LeakyReluKernel<float>>);
  (void)r.Register("LeakyRelu", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<LeakyReluKernel<double>>);
}

}  // namespace graft::cpu
