// CPU kernels for training: the gradient descent, Adam (and AMSGrad), momentum, Adagrad and
// RMSProp (and centered RMSProp) updates on
// TensorFlow 1 reference variables (Apply...) and resource variables (ResourceApply...), the
// row-wise forms of momentum, Adagrad and RMSProp (ResourceSparseApply...), and
// the random ops RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt.
//
// Updates lock the variables they change (in address order when there are several) and write
// into the variable's buffer only when nothing else holds it; otherwise the new value is a
// copy that replaces the old one, so a reader that took the old value keeps it intact.
//
// Random numbers come from Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", 2011), a counter-based generator: the key is the op's `seed`, the counter holds
// an element number and `seed2`. Each kernel reserves element numbers with an atomic counter
// on every run, so with a nonzero seed (or seed2) the n-th run of a kernel gives the same
// numbers in every new session, whatever the threading, and successive runs give fresh
// numbers. seed == seed2 == 0 draws the key and seed2 from std::random_device once per kernel
// (fresh randomness). The bits are not TensorFlow's own.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>

#include "core/runtime/parallel_for.h"
#include "core/runtime/resource_mgr.h"
#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/philox.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/variable_access.h"

namespace graft::cpu {
namespace {

using Dims = std::vector<int64_t>;

Status CheckScalar(const Tensor& t, const char* what) {
  if (t.rank() != 0) return errors::InvalidArgument(what, " is not a scalar: ", ShapeText(t.dims()));
  return Status::Ok();
}

Status CheckSameShape(const Tensor& var, const Tensor& other, const char* what) {
  if (var.dims() != other.dims()) {
    return errors::InvalidArgument("var and ", what, " do not have the same shape", ShapeText(var.dims()), " ",
                                   ShapeText(other.dims()));
  }
  return Status::Ok();
}

// ApplyGradientDescent / ResourceApplyGradientDescent: var -= alpha * delta.
template <typename T, bool Ref>
class ApplyGradientDescentKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> var;
    std::string name;
    GRAFT_RETURN_IF_ERROR(InputVariable(ctx, 0, &var, &name));
    const Tensor& alpha = ctx.input(1);
    const Tensor& delta = ctx.input(2);
    GRAFT_RETURN_IF_ERROR(CheckScalar(alpha, "alpha"));
    {
      MultiLock lock({var.get()});
      GRAFT_RETURN_IF_ERROR(CheckVariable(*var, name, DTypeOf<T>()));
      GRAFT_RETURN_IF_ERROR(CheckSameShape(var->value, delta, "delta"));
      Tensor* value = nullptr;
      GRAFT_RETURN_IF_ERROR(WritableValue(*var, &value));
      T* w = value->data<T>();
      const T* d = delta.data<T>();
      const T a = alpha.data<T>()[0];
      for (int64_t i = 0; i < value->num_elements(); ++i) w[i] -= a * d[i];
    }
    if constexpr (Ref) ctx.SetOutput(0, ctx.input(0));
    return Status::Ok();
  }
};

// Elements per share of a dense update split over the intra-op threads (a few tens of
// microseconds of work each: smaller variables stay on the calling thread).
constexpr int64_t kUpdateGrain = int64_t{1} << 15;

// Adam's update of n elements in one pass over the four arrays; the variable and its slots are
// distinct buffers (the kernel holds them writable under their locks) and the gradient is read
// only, so the loop has no aliasing and no branch and vectorizes (sqrt included).
template <typename T, bool kNesterov>
void AdamUpdate(T* __restrict w, T* __restrict m, T* __restrict v, const T* __restrict g, int64_t n, T lr_t, T beta1,
                T beta2, T epsilon) {
  const T one_minus_b1 = T(1) - beta1, one_minus_b2 = T(1) - beta2;
  for (int64_t i = 0; i < n; ++i) {
    const T gi = g[i];
    const T mi = m[i] + (gi - m[i]) * one_minus_b1;
    const T vi = v[i] + (gi * gi - v[i]) * one_minus_b2;
    m[i] = mi;
    v[i] = vi;
    const T step = kNesterov ? gi * one_minus_b1 + beta1 * mi : mi;
    w[i] -= (step * lr_t) / (std::sqrt(vi) + epsilon);
  }
}

// The float loop in AVX-512 and AVX2 too (its square roots and divisions are most of its time).
GRAFT_CPU_CLONES
void AdamUpdateF32(bool nesterov, float* w, float* m, float* v, const float* g, int64_t n, float lr_t, float beta1,
                   float beta2, float epsilon) {
  if (nesterov) {
    AdamUpdate<float, true>(w, m, v, g, n, lr_t, beta1, beta2, epsilon);
  } else {
    AdamUpdate<float, false>(w, m, v, g, n, lr_t, beta1, beta2, epsilon);
  }
}

// ApplyAdam / ResourceApplyAdam, TensorFlow's update:
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1);  v += (grad^2 - v) * (1 - beta2)
//   var -= lr_t * m / (sqrt(v) + epsilon), or with use_nesterov
//   var -= lr_t * (grad * (1 - beta1) + beta1 * m) / (sqrt(v) + epsilon).
template <typename T, bool Ref>
class ApplyAdamKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "use_nesterov", &nesterov_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> vars[3];
    std::string names[3];
    for (int i = 0; i < 3; ++i) GRAFT_RETURN_IF_ERROR(InputVariable(ctx, i, &vars[i], &names[i]));
    const char* scalar_names[6] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
    T s[6];
    for (int i = 0; i < 6; ++i) {
      GRAFT_RETURN_IF_ERROR(CheckScalar(ctx.input(3 + i), scalar_names[i]));
      s[i] = ctx.input(3 + i).data<T>()[0];
    }
    const T beta1_power = s[0], beta2_power = s[1], lr = s[2], beta1 = s[3], beta2 = s[4], epsilon = s[5];
    const Tensor& grad = ctx.input(9);
    {
      MultiLock lock({vars[0].get(), vars[1].get(), vars[2].get()});
      for (int i = 0; i < 3; ++i) GRAFT_RETURN_IF_ERROR(CheckVariable(*vars[i], names[i], DTypeOf<T>()));
      GRAFT_RETURN_IF_ERROR(CheckSameShape(vars[0]->value, vars[1]->value, "m"));
      GRAFT_RETURN_IF_ERROR(CheckSameShape(vars[0]->value, vars[2]->value, "v"));
      GRAFT_RETURN_IF_ERROR(CheckSameShape(vars[0]->value, grad, "grad"));
      Tensor* values[3];
      for (int i = 0; i < 3; ++i) GRAFT_RETURN_IF_ERROR(WritableValue(*vars[i], &values[i]));
      const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
      T* w = values[0]->data<T>();
      T* m = values[1]->data<T>();
      T* v = values[2]->data<T>();
      const T* g = grad.data<T>();
      // Elements are independent: a large variable's update is split over the intra-op threads.
      ParallelFor(values[0]->num_elements(), kUpdateGrain, [&](int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, float>) {
          AdamUpdateF32(nesterov_, w + b, m + b, v + b, g + b, e - b, lr_t, beta1, beta2, epsilon);
        } else if (nesterov_) {
          AdamUpdate<T, true>(w + b, m + b, v + b, g + b, e - b, lr_t, beta1, beta2, epsilon);
        } else {
          AdamUpdate<T, false>(w + b, m + b, v + b, g + b, e - b, lr_t, beta1, beta2, epsilon);
        }
      });
    }
    if constexpr (Ref) ctx.SetOutput(0, ctx.input(0));
    return Status::Ok();
  }

 private:
  bool nesterov_ = false;
};

// The updates with slot variables and scalar hyperparameters: F names its layout (kSlots slot
// variables after var at inputs 1..kSlots, the scalars at F::kScalars, grad at F::kGrad) and
// updates one element: F::Update(w, slots, s, g, nesterov) with s the scalars in kScalars' order.
// L is where the inputs are: F's own layout for the dense ops (DenseLayout), or that of a
// sparse form (ResourceSparseApply...), which also has indices: F's update then runs on the
// rows `indices` of var and its slots only, grad holding one row per index, in order (a row
// named twice is updated twice, as TensorFlow's CPU kernels do). Every shape and index is
// checked before anything is written.
template <typename F>
struct DenseLayout {
  static constexpr const int* kScalars = F::kScalars;
  static constexpr int kGrad = F::kGrad, kIndices = -1;
};

// The loop of one SlotUpdateKernel instance, run with var and its slots (values, var first)
// held writable under their locks; idx and inner for the sparse forms.
using SlotLoop = void (*)(OpKernelContext& ctx, Tensor* const* values, const Dims& idx, int64_t inner, bool nesterov);

// Where a slot update's inputs are (SlotUpdateKernel's F and L as values).
struct SlotLayout {
  int vars;  // var and its slots: inputs 0..vars-1
  const int* scalars;
  const char* const* scalar_names;
  int num_scalars;
  int grad;
  int indices;  // -1: a dense update
};
constexpr int kMaxSlotVars = 8;

// A sparse update's grad has one row of var per index, and every index names a row.
Status CheckSlotRows(const Dims& vd, const std::string& name, const Dims& idx, const Tensor& grad) {
  if (vd.empty()) return errors::InvalidArgument("var '", name, "' must be at least a vector, not a scalar");
  Dims want{static_cast<int64_t>(idx.size())};
  want.insert(want.end(), vd.begin() + 1, vd.end());
  if (grad.dims() != want) {
    return errors::InvalidArgument("grad must have shape ", ShapeText(want), " (one row of var '", name,
                                   "' per index), not ", ShapeText(grad.dims()));
  }
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= vd[0]) {
      return errors::InvalidArgument("indices[", k, "] = ", idx[k], " is not in [0, ", vd[0], ") (the rows of var '",
                                     name, "')");
    }
  }
  return Status::Ok();
}

// Everything of a slot update but its loop, compiled once for every instance: the variables,
// scalars and indices read and checked, the locks taken, then loop.
Status RunSlotUpdate(OpKernelContext& ctx, const SlotLayout& layout, DType dtype, bool nesterov, SlotLoop loop) {
  const int n_vars = layout.vars;
  if (n_vars > kMaxSlotVars) return errors::Internal("a slot update with ", n_vars, " variables");
  std::shared_ptr<Variable> vars[kMaxSlotVars];
  std::string names[kMaxSlotVars];
  for (int i = 0; i < n_vars; ++i) GRAFT_RETURN_IF_ERROR(InputVariable(ctx, i, &vars[i], &names[i]));
  for (int i = 0; i < layout.num_scalars; ++i) {
    GRAFT_RETURN_IF_ERROR(CheckScalar(ctx.input(layout.scalars[i]), layout.scalar_names[i]));
  }
  const Tensor& grad = ctx.input(layout.grad);
  const bool rows = layout.indices >= 0;
  Dims idx;
  if (rows) {
    const Tensor& indices = ctx.input(layout.indices);
    if (indices.rank() != 1) return errors::InvalidArgument("indices must be a vector, not ", ShapeText(indices.dims()));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
  }
  std::vector<Variable*> locked;
  for (int i = 0; i < n_vars; ++i) locked.push_back(vars[i].get());
  MultiLock lock(std::move(locked));
  for (int i = 0; i < n_vars; ++i) GRAFT_RETURN_IF_ERROR(CheckVariable(*vars[i], names[i], dtype));
  for (int i = 1; i < n_vars; ++i) GRAFT_RETURN_IF_ERROR(CheckSameShape(vars[0]->value, vars[i]->value, "accum"));
  int64_t inner = 1;
  if (rows) {
    GRAFT_RETURN_IF_ERROR(CheckSlotRows(vars[0]->value.dims(), names[0], idx, grad));
    for (size_t d = 1; d < vars[0]->value.dims().size(); ++d) inner *= vars[0]->value.dims()[d];
  } else {
    GRAFT_RETURN_IF_ERROR(CheckSameShape(vars[0]->value, grad, "grad"));
  }
  Tensor* values[kMaxSlotVars];
  for (int i = 0; i < n_vars; ++i) GRAFT_RETURN_IF_ERROR(WritableValue(*vars[i], &values[i]));
  loop(ctx, values, idx, inner, nesterov);
  return Status::Ok();
}

template <typename T, bool Ref, typename F, typename L = DenseLayout<F>>
class SlotUpdateKernel : public OpKernel {
  static constexpr int kVars = F::kSlots + 1;
  static_assert(kVars <= kMaxSlotVars);

 public:
  using OpKernel::OpKernel;
  Status Init() {
    if (node().attr("use_nesterov") != nullptr) return GetAttr(node(), "use_nesterov", &nesterov_);
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    static constexpr SlotLayout kLayout{kVars, L::kScalars, F::kScalarNames, F::kNumScalars, L::kGrad, L::kIndices};
    GRAFT_RETURN_IF_ERROR(RunSlotUpdate(ctx, kLayout, DTypeOf<T>(), nesterov_, &Loop));
    if constexpr (Ref) ctx.SetOutput(0, ctx.input(0));
    return Status::Ok();
  }

 private:
  static void Loop(OpKernelContext& ctx, Tensor* const* values, const Dims& idx, int64_t inner, bool nesterov) {
    T s[F::kNumScalars];
    for (int i = 0; i < F::kNumScalars; ++i) s[i] = ctx.input(L::kScalars[i]).template data<T>()[0];
    T* w = values[0]->template data<T>();
    T* slots[kVars - 1];
    for (int i = 1; i < kVars; ++i) slots[i - 1] = values[i]->template data<T>();
    const T* g = ctx.input(L::kGrad).template data<T>();
    if constexpr (L::kIndices >= 0) {
      for (size_t k = 0; k < idx.size(); ++k) {
        for (int64_t j = 0; j < inner; ++j) {
          const int64_t e = idx[k] * inner + j;
          F::Update(w + e, slots, e, s, g[static_cast<int64_t>(k) * inner + j], nesterov);
        }
      }
    } else {
      ParallelFor(values[0]->num_elements(), kUpdateGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) F::Update(w + i, slots, i, s, g[i], nesterov);
      });
    }
  }

  bool nesterov_ = false;
};

// ApplyMomentum(var, accum, lr, grad, momentum): accum = accum * momentum + g;
// var -= lr * accum, or with use_nesterov var -= lr * g + lr * momentum * accum.
struct MomentumUpdate {
  static constexpr int kSlots = 1, kNumScalars = 2, kGrad = 3;
  static constexpr int kScalars[2] = {2, 4};
  static constexpr const char* kScalarNames[2] = {"lr", "momentum"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool nesterov) {
    const T lr = s[0], momentum = s[1];
    T& accum = slots[0][i];
    accum = accum * momentum + g;
    *w -= nesterov ? g * lr + accum * momentum * lr : lr * accum;
  }
};

// ResourceApplyKerasMomentum(var, accum, lr, grad, momentum): accum = accum * momentum - lr * g;
// var += accum, or with use_nesterov var += accum * momentum - lr * g.
struct KerasMomentumUpdate {
  static constexpr int kSlots = 1, kNumScalars = 2, kGrad = 3;
  static constexpr int kScalars[2] = {2, 4};
  static constexpr const char* kScalarNames[2] = {"lr", "momentum"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool nesterov) {
    const T lr = s[0], momentum = s[1];
    T& accum = slots[0][i];
    accum = accum * momentum - lr * g;
    *w += nesterov ? accum * momentum - lr * g : accum;
  }
};

// ApplyAdagrad(var, accum, lr, grad): accum += g^2; var -= lr * g / sqrt(accum).
struct AdagradUpdate {
  static constexpr int kSlots = 1, kNumScalars = 1, kGrad = 3;
  static constexpr int kScalars[1] = {2};
  static constexpr const char* kScalarNames[1] = {"lr"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool) {
    T& accum = slots[0][i];
    accum += g * g;
    *w -= s[0] * g / std::sqrt(accum);
  }
};

// ResourceApplyAdagradV2(var, accum, lr, epsilon, grad): accum += g^2;
// var -= lr * g / (sqrt(accum) + epsilon).
struct AdagradV2Update {
  static constexpr int kSlots = 1, kNumScalars = 2, kGrad = 4;
  static constexpr int kScalars[2] = {2, 3};
  static constexpr const char* kScalarNames[2] = {"lr", "epsilon"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool) {
    T& accum = slots[0][i];
    accum += g * g;
    *w -= s[0] * g / (std::sqrt(accum) + s[1]);
  }
};

// ApplyRMSProp(var, ms, mom, lr, rho, momentum, epsilon, grad): ms = rho * ms + (1 - rho) * g^2;
// mom = momentum * mom + lr * g / sqrt(ms + epsilon); var -= mom.
struct RMSPropUpdate {
  static constexpr int kSlots = 2, kNumScalars = 4, kGrad = 7;
  static constexpr int kScalars[4] = {3, 4, 5, 6};
  static constexpr const char* kScalarNames[4] = {"lr", "rho", "momentum", "epsilon"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool) {
    const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
    T& ms = slots[0][i];
    T& mom = slots[1][i];
    ms += (g * g - ms) * (T(1) - rho);
    mom = mom * momentum + lr * g / std::sqrt(ms + epsilon);
    *w -= mom;
  }
};

// ApplyCenteredRMSProp(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
// ms = rho * ms + (1 - rho) * g^2; mg = rho * mg + (1 - rho) * g;
// mom = momentum * mom + lr * g / sqrt(ms - mg^2 + epsilon); var -= mom.
struct CenteredRMSPropUpdate {
  static constexpr int kSlots = 3, kNumScalars = 4, kGrad = 8;
  static constexpr int kScalars[4] = {4, 5, 6, 7};
  static constexpr const char* kScalarNames[4] = {"lr", "rho", "momentum", "epsilon"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool) {
    const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
    T& mg = slots[0][i];
    T& ms = slots[1][i];
    T& mom = slots[2][i];
    ms += (g * g - ms) * (T(1) - rho);
    mg += (g - mg) * (T(1) - rho);
    mom = mom * momentum + lr * g / std::sqrt(ms - mg * mg + epsilon);
    *w -= mom;
  }
};

// ResourceApplyAdamWithAmsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2,
// epsilon, grad): Adam's m and v; vhat = max(vhat, v); var -= lr_t * m / (sqrt(vhat) + epsilon)
// with lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power).
struct AmsgradUpdate {
  static constexpr int kSlots = 3, kNumScalars = 6, kGrad = 10;
  static constexpr int kScalars[6] = {4, 5, 6, 7, 8, 9};
  static constexpr const char* kScalarNames[6] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
  template <typename T>
  static void Update(T* w, T* const* slots, int64_t i, const T* s, T g, bool) {
    const T beta1_power = s[0], beta2_power = s[1], lr = s[2], beta1 = s[3], beta2 = s[4], epsilon = s[5];
    T& m = slots[0][i];
    T& v = slots[1][i];
    T& vhat = slots[2][i];
    m += (g - m) * (T(1) - beta1);
    v += (g * g - v) * (T(1) - beta2);
    vhat = std::max(vhat, v);
    *w -= lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power) * m / (std::sqrt(vhat) + epsilon);
  }
};

// The sparse forms' layouts (see SlotUpdateKernel).
struct SparseMomentumLayout {  // var, accum, lr, grad, indices, momentum
  static constexpr int kScalars[2] = {2, 5};
  static constexpr int kGrad = 3, kIndices = 4;
};
struct SparseAdagradLayout {  // var, accum, lr, grad, indices
  static constexpr int kScalars[1] = {2};
  static constexpr int kGrad = 3, kIndices = 4;
};
struct SparseAdagradV2Layout {  // var, accum, lr, epsilon, grad, indices
  static constexpr int kScalars[2] = {2, 3};
  static constexpr int kGrad = 4, kIndices = 5;
};
struct SparseRMSPropLayout {  // var, ms, mom, lr, rho, momentum, epsilon, grad, indices
  static constexpr int kScalars[4] = {3, 4, 5, 6};
  static constexpr int kGrad = 7, kIndices = 8;
};
struct SparseCenteredRMSPropLayout {  // var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices
  static constexpr int kScalars[4] = {4, 5, 6, 7};
  static constexpr int kGrad = 8, kIndices = 9;
};

// ---------------------------------------------------------------------------------------
// Random numbers.

struct Block {
  uint32_t v[4];
};

// Philox4x32 with 10 rounds (philox.h).
Block Philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  const Philox4x32::Block out = Philox4x32::Compute({c0, c1, c2, c3}, {k0, k1});
  return Block{{out[0], out[1], out[2], out[3]}};
}

// [0, 1) from 23 (float) or 52 (double) random bits.
float UniformFloat(uint32_t x) {
  const uint32_t bits = (x & 0x7fffffu) | 0x3f800000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}
double UniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = ((static_cast<uint64_t>(hi) & 0xfffffu) << 32) | lo | 0x3ff0000000000000ull;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

enum class Dist { kUniform, kNormal, kTruncatedNormal };

// The seeds of a random kernel and its element counter.
class RandomState {
 public:
  Status Init(const Node& node) {
    int64_t seed = 0, seed2 = 0;
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "seed", &seed));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "seed2", &seed2));
    uint64_t k = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      k = (static_cast<uint64_t>(rd()) << 32) | rd();
      s2 = (static_cast<uint64_t>(rd()) << 32) | rd();
    }
    k0_ = static_cast<uint32_t>(k);
    k1_ = static_cast<uint32_t>(k >> 32);
    s0_ = static_cast<uint32_t>(s2);
    s1_ = static_cast<uint32_t>(s2 >> 32);
    return Status::Ok();
  }
  // Reserves n element numbers; returns the first.
  uint64_t Reserve(int64_t n) const { return next_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed); }
  // The random block of element e, attempt a (TruncatedNormal's redraws).
  Block At(uint64_t e, uint32_t attempt = 0) const {
    return Philox(static_cast<uint32_t>(e), static_cast<uint32_t>(e >> 32), s0_, s1_ + attempt, k0_, k1_);
  }

 private:
  uint32_t k0_ = 0, k1_ = 0, s0_ = 0, s1_ = 0;
  mutable std::atomic<uint64_t> next_{0};
};

Status OutputShape(const Tensor& shape_t, Dims* out) {
  if (shape_t.rank() != 1) {
    return errors::InvalidArgument("shape must be a vector of {int32,int64}, got shape ", ShapeText(shape_t.dims()));
  }
  out->resize(static_cast<size_t>(shape_t.num_elements()));
  for (int64_t i = 0; i < shape_t.num_elements(); ++i) {
    const int64_t d = shape_t.dtype() == DType::kInt64 ? shape_t.data<int64_t>()[i] : shape_t.data<int32_t>()[i];
    if (d < 0) return errors::InvalidArgument("Dimension ", d, " must be >= 0 (dim ", i, " of shape)");
    (*out)[static_cast<size_t>(i)] = d;
  }
  int64_t n = 0;
  return CheckedNumElements(*out, &n);
}

// Two standard normal values from a block (Box-Muller, as TensorFlow's).
template <typename T>
void BoxMuller(const Block& b, T* n0, T* n1) {
  constexpr T kTwoPi = static_cast<T>(6.283185307179586476925286766559);
  T u1, u2;
  if constexpr (std::is_same_v<T, float>) {
    u1 = UniformFloat(b.v[0]);
    u2 = UniformFloat(b.v[1]);
  } else {
    u1 = UniformDouble(b.v[0], b.v[1]);
    u2 = UniformDouble(b.v[2], b.v[3]);
  }
  const T eps = std::numeric_limits<T>::epsilon();
  if (u1 < eps) u1 = eps;
  const T r = std::sqrt(T(-2) * std::log(u1));
  const T theta = kTwoPi * u2;
  *n0 = r * std::sin(theta);
  *n1 = r * std::cos(theta);
}

template <typename T, Dist D>
class RandomKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return state_.Init(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    Dims dims;
    GRAFT_RETURN_IF_ERROR(OutputShape(ctx.input(0), &dims));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    const int64_t n = out->num_elements();
    const uint64_t base = state_.Reserve(n);
    T* p = out->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t e = base + static_cast<uint64_t>(i);
      if constexpr (D == Dist::kUniform) {
        const Block b = state_.At(e);
        if constexpr (std::is_same_v<T, float>) {
          p[i] = UniformFloat(b.v[0]);
        } else {
          p[i] = UniformDouble(b.v[0], b.v[1]);
        }
      } else if constexpr (D == Dist::kNormal) {
        T n0, n1;
        BoxMuller<T>(state_.At(e), &n0, &n1);
        p[i] = n0;
      } else {
        // Redraw until within two standard deviations.
        for (uint32_t attempt = 0;; ++attempt) {
          T n0, n1;
          BoxMuller<T>(state_.At(e, attempt), &n0, &n1);
          if (std::abs(n0) < T(2)) {
            p[i] = n0;
            break;
          }
          if (std::abs(n1) < T(2)) {
            p[i] = n1;
            break;
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  RandomState state_;
};

// RandomUniformInt: minval + (random bits mod (maxval - minval)), as TensorFlow's.
template <typename T>
class RandomUniformIntKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return state_.Init(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    Dims dims;
    GRAFT_RETURN_IF_ERROR(OutputShape(ctx.input(0), &dims));
    const Tensor& lo_t = ctx.input(1);
    const Tensor& hi_t = ctx.input(2);
    if (lo_t.rank() != 0) return errors::InvalidArgument("minval must be 0-D, got shape ", ShapeText(lo_t.dims()));
    if (hi_t.rank() != 0) return errors::InvalidArgument("maxval must be 0-D, got shape ", ShapeText(hi_t.dims()));
    const T lo = lo_t.data<T>()[0], hi = hi_t.data<T>()[0];
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    const int64_t n = out->num_elements();
    if (n == 0) return Status::Ok();
    if (lo >= hi) return errors::InvalidArgument("Need minval < maxval: ", lo, " >= ", hi);
    using U = std::make_unsigned_t<T>;
    const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
    const uint64_t base = state_.Reserve(n);
    T* p = out->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const Block b = state_.At(base + static_cast<uint64_t>(i));
      U bits;
      if constexpr (sizeof(T) == 4) {
        bits = b.v[0];
      } else {
        bits = (static_cast<U>(b.v[0]) << 32) | b.v[1];
      }
      p[i] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
    }
    return Status::Ok();
  }

 private:
  RandomState state_;
};

}  // namespace

void RegisterTrainingKernels(KernelRegistry& r) {
  auto reg = [&](const char* op, const char* attr, DType d, KernelFactory f) {
    (void)r.Register(op, kDeviceCpu, attr, {d}, std::move(f));
  };
  reg("ApplyGradientDescent", "T", DType::kFloat32, &CreateKernel<ApplyGradientDescentKernel<float, true>>);
  reg("ApplyGradientDescent", "T", DType::kFloat64, &CreateKernel<ApplyGradientDescentKernel<double, true>>);
  reg("ResourceApplyGradientDescent", "T", DType::kFloat32, &CreateKernel<ApplyGradientDescentKernel<float, false>>);
  reg("ResourceApplyGradientDescent", "T", DType::kFloat64, &CreateKernel<ApplyGradientDescentKernel<double, false>>);
  reg("ApplyAdam", "T", DType::kFloat32, &CreateKernel<ApplyAdamKernel<float, true>>);
  reg("ApplyAdam", "T", DType::kFloat64, &CreateKernel<ApplyAdamKernel<double, true>>);
  reg("ResourceApplyAdam", "T", DType::kFloat32, &CreateKernel<ApplyAdamKernel<float, false>>);
  reg("ResourceApplyAdam", "T", DType::kFloat64, &CreateKernel<ApplyAdamKernel<double, false>>);
  reg("ApplyMomentum", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, true, MomentumUpdate>>);
  reg("ApplyMomentum", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, true, MomentumUpdate>>);
  reg("ResourceApplyMomentum", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, MomentumUpdate>>);
  reg("ResourceApplyMomentum", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, false, MomentumUpdate>>);
  reg("ResourceApplyKerasMomentum", "T", DType::kFloat32,
      &CreateKernel<SlotUpdateKernel<float, false, KerasMomentumUpdate>>);
  reg("ResourceApplyKerasMomentum", "T", DType::kFloat64,
      &CreateKernel<SlotUpdateKernel<double, false, KerasMomentumUpdate>>);
  reg("ApplyAdagrad", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, true, AdagradUpdate>>);
  reg("ApplyAdagrad", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, true, AdagradUpdate>>);
  reg("ResourceApplyAdagrad", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, AdagradUpdate>>);
  reg("ResourceApplyAdagrad", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, false, AdagradUpdate>>);
  reg("ResourceApplyAdagradV2", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, AdagradV2Update>>);
  reg("ResourceApplyAdagradV2", "T", DType::kFloat64,
      &CreateKernel<SlotUpdateKernel<double, false, AdagradV2Update>>);
  reg("ApplyRMSProp", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, true, RMSPropUpdate>>);
  reg("ApplyRMSProp", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, true, RMSPropUpdate>>);
  reg("ResourceApplyRMSProp", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, RMSPropUpdate>>);
  reg("ResourceApplyRMSProp", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, false, RMSPropUpdate>>);
  auto sparse = [&]<typename F, typename L>(const char* op) {
    reg(op, "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, F, L>>);
    reg(op, "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, false, F, L>>);
  };
  sparse.template operator()<MomentumUpdate, SparseMomentumLayout>("ResourceSparseApplyMomentum");
  sparse.template operator()<KerasMomentumUpdate, SparseMomentumLayout>("ResourceSparseApplyKerasMomentum");
  sparse.template operator()<AdagradUpdate, SparseAdagradLayout>("ResourceSparseApplyAdagrad");
  sparse.template operator()<AdagradV2Update, SparseAdagradV2Layout>("ResourceSparseApplyAdagradV2");
  sparse.template operator()<RMSPropUpdate, SparseRMSPropLayout>("ResourceSparseApplyRMSProp");
  sparse.template operator()<CenteredRMSPropUpdate, SparseCenteredRMSPropLayout>("ResourceSparseApplyCenteredRMSProp");
  reg("ApplyCenteredRMSProp", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, true, CenteredRMSPropUpdate>>);
  reg("ApplyCenteredRMSProp", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, true, CenteredRMSPropUpdate>>);
  reg("ResourceApplyCenteredRMSProp", "T", DType::kFloat32,
      &CreateKernel<SlotUpdateKernel<float, false, CenteredRMSPropUpdate>>);
  reg("ResourceApplyCenteredRMSProp", "T", DType::kFloat64,
      &CreateKernel<SlotUpdateKernel<double, false, CenteredRMSPropUpdate>>);
  reg("ResourceApplyAdamWithAmsgrad", "T", DType::kFloat32, &CreateKernel<SlotUpdateKernel<float, false, AmsgradUpdate>>);
  reg("ResourceApplyAdamWithAmsgrad", "T", DType::kFloat64, &CreateKernel<SlotUpdateKernel<double, false, AmsgradUpdate>>);
  reg("RandomUniform", "dtype", DType::kFloat32, &CreateKernel<RandomKernel<float, Dist::kUniform>>);
  reg("RandomUniform", "dtype", DType::kFloat64, &CreateKernel<RandomKernel<double, Dist::kUniform>>);
  reg("RandomStandardNormal", "dtype", DType::kFloat32, &CreateKernel<RandomKernel<float, Dist::kNormal>>);
  reg("RandomStandardNormal", "dtype", DType::kFloat64, &CreateKernel<RandomKernel<double, Dist::kNormal>>);
  reg("TruncatedNormal", "dtype", DType::kFloat32, &CreateKernel<RandomKernel<float, Dist::kTruncatedNormal>>);
  reg("TruncatedNormal", "dtype", DType::kFloat64, &CreateKernel<RandomKernel<double, Dist::kTruncatedNormal>>);
  reg("RandomUniformInt", "Tout", DType::kInt32, &CreateKernel<RandomUniformIntKernel<int32_t>>);
  reg("RandomUniformInt", "Tout", DType::kInt64, &CreateKernel<RandomUniformIntKernel<int64_t>>);
}

}  // namespace graft::cpu
