// CPU kernels that compute along a sequence of elements: OneHot, Where, Cumsum, TopKV2 and
// Unique.
//
// OneHot and Unique only move (or compare) elements, so they are registered for every dtype
// through their storage type (data_movement.h). Where tests for non-zero, Cumsum adds and
// TopKV2 orders, so they are templates over the arithmetic types.
#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// OneHot: output = indices.shape with depth inserted at axis (-1: last);
// output[..., j, ...] = on_value where indices[...] == j, else off_value. Indices outside
// [0, depth) give a row of off_value.

template <typename T>
class OneHotKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "axis", &axis_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& on_t = ctx.input(2);
    const Tensor& off_t = ctx.input(3);
    const int64_t irank = indices.rank();
    if (axis_ != -1 && (axis_ < 0 || axis_ > irank)) {
      return errors::InvalidArgument("Expected axis to be -1 or between [0, ", irank, ").  But received: ", axis_);
    }
    if (depth_t.rank() != 0) {
      return errors::InvalidArgument("depth must be a scalar, but got: ", ShapeText(depth_t.dims()));
    }
    if (on_t.rank() != 0) return errors::InvalidArgument("on_value must be a scalar, but got: ", ShapeText(on_t.dims()));
    if (off_t.rank() != 0) {
      return errors::InvalidArgument("off_value must be a scalar, but got: ", ShapeText(off_t.dims()));
    }
    const int64_t depth = depth_t.data<int32_t>()[0];
    if (depth < 0) return errors::InvalidArgument("depth must be non-negative, got: ", depth);
    const int64_t axis = axis_ == -1 ? irank : axis_;
    Dims idx(static_cast<size_t>(indices.num_elements()));
    switch (indices.dtype()) {
      case DType::kUInt8:
        std::copy_n(indices.data<uint8_t>(), idx.size(), idx.begin());
        break;
      case DType::kInt8:
        std::copy_n(indices.data<int8_t>(), idx.size(), idx.begin());
        break;
      default:
        GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
    }
    Dims out_dims = indices.dims();
    out_dims.insert(out_dims.begin() + axis, depth);
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(out_dims, &n));
    int64_t prefix = 1, suffix = 1;
    for (int64_t d = 0; d < axis; ++d) prefix *= indices.dims()[static_cast<size_t>(d)];
    for (int64_t d = axis; d < irank; ++d) suffix *= indices.dims()[static_cast<size_t>(d)];
    const T on = Elements<T>(on_t)[0];
    const T off = Elements<T>(off_t)[0];
    return Produce<T>(ctx, 0, on_t.dtype(), out_dims, [&](T* out) {
      std::fill_n(out, n, off);
      for (int64_t p = 0; p < prefix; ++p) {
        for (int64_t s = 0; s < suffix; ++s) {
          const int64_t j = idx[static_cast<size_t>(p * suffix + s)];
          if (j >= 0 && j < depth) out[(p * depth + j) * suffix + s] = on;
        }
      }
    });
  }

 private:
  int64_t axis_ = -1;
};

// ---------------------------------------------------------------------------------------
// Where: the coordinates (int64, row-major order) of the true / non-zero elements, as a
// [num_true, rank] matrix.

// float16 and bfloat16 move as uint16_t elsewhere; here the sign bit alone (-0) is zero.
struct Half16 {
  uint16_t bits;
};

template <typename T>
bool NonZero(const T& x) {
  if constexpr (std::is_same_v<T, Half16>) {
    return (x.bits & 0x7fffu) != 0;
  } else if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else {
    return x != T(0);
  }
}

template <typename T>
class WhereKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const T* p = in.data<T>();
    const int64_t n = in.num_elements();
    int64_t num_true = 0;
    for (int64_t i = 0; i < n; ++i) num_true += NonZero(p[i]) ? 1 : 0;
    const int64_t rank = in.rank();
    Tensor* out = nullptr;
    const Dims dims = {num_true, rank};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt64, dims, &out));
    if (num_true == 0 || rank == 0) return Status::Ok();
    int64_t* o = out->data<int64_t>();
    Dims coord(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < n; ++i) {
      if (NonZero(p[i])) {
        std::copy(coord.begin(), coord.end(), o);
        o += rank;
      }
      for (size_t d = coord.size(); d-- > 0;) {
        if (++coord[d] < in.dims()[d]) break;
        coord[d] = 0;
      }
    }
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------
// Cumsum and Cumprod along axis: exclusive leaves each element out of its own sum or product
// (starting at 0 or 1), reverse runs from the end. Integers wrap around on overflow
// (kernel_util.h's WrapAdd / WrapMul).

template <typename T, bool Prod>
class ScanKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "exclusive", &exclusive_));
    return GetAttr(node(), "reverse", &reverse_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.rank() != 0) {
      return errors::InvalidArgument("ScanOp: axis must be a scalar, not ", ShapeText(axis_t.dims()));
    }
    Dims av;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(axis_t, "axis", &av));
    const int64_t rank = in.rank();
    const int64_t axis = av[0] < 0 ? av[0] + rank : av[0];
    if (axis < 0 || axis >= rank) {
      return errors::InvalidArgument("ScanOp: Expected scan axis in the range [", -rank, ", ", rank, "), but got ",
                                     axis);
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.dtype(), in.dims(), &out, 0));
    const int64_t n = in.num_elements();
    if (n == 0) return Status::Ok();
    const int64_t dim = in.dim(static_cast<int>(axis));
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= in.dim(static_cast<int>(d));
    const int64_t outer = n / (dim * inner);
    const T* src = in.data<T>();
    T* dst = out->data<T>();  // may be src itself: each element is read before it is written
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * dim * inner + i;
        T acc = Prod ? T(1) : T(0);
        for (int64_t s = 0; s < dim; ++s) {
          const int64_t j = reverse_ ? dim - 1 - s : s;
          const int64_t at = base + j * inner;
          const T x = src[at];
          if (exclusive_) {
            dst[at] = acc;
            acc = Prod ? WrapMul(acc, x) : WrapAdd(acc, x);
          } else {
            acc = Prod ? WrapMul(acc, x) : WrapAdd(acc, x);
            dst[at] = acc;
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

template <typename T>
using Cumsum = ScanKernel<T, false>;
template <typename T>
using Cumprod = ScanKernel<T, true>;

// ---------------------------------------------------------------------------------------
// TopKV2: the k largest entries of each last-dim row, largest first, and their indices.
// Equal values keep the lower index first; NaN counts as larger than every number.

template <typename T>
bool Greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

template <typename T>
class TopKKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "index_type", &index_type_));
    if (index_type_ != DType::kInt16 && index_type_ != DType::kInt32 && index_type_ != DType::kInt64) {
      return errors::InvalidArgument("TopKV2: index_type must be int16, int32 or int64, not ", DTypeName(index_type_));
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& k_t = ctx.input(1);
    if (k_t.rank() != 0) return errors::InvalidArgument("k must be scalar, got shape ", ShapeText(k_t.dims()));
    Dims kv;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(k_t, "k", &kv));
    const int64_t k = kv[0];
    if (k < 0) return errors::InvalidArgument("Need k >= 0, got ", k);
    if (in.rank() < 1) return errors::InvalidArgument("input must be >= 1-D, got shape ", ShapeText(in.dims()));
    const int64_t cols = in.dims().back();
    if (cols < k) {
      return errors::InvalidArgument("input must have at least k columns. Had ", cols, ", needed ", k);
    }
    const int64_t limit = index_type_ == DType::kInt16   ? std::numeric_limits<int16_t>::max()
                          : index_type_ == DType::kInt32 ? std::numeric_limits<int32_t>::max()
                                                         : std::numeric_limits<int64_t>::max();
    if (cols > 0 && cols - 1 > limit) {
      return errors::InvalidArgument("TopKV2: the last dimension (", cols, ") has indices that ",
                                     DTypeName(index_type_), " cannot hold");
    }
    Dims out_dims = in.dims();
    out_dims.back() = k;
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.dtype(), out_dims, &values));
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, index_type_, out_dims, &indices));
    if (k == 0 || in.num_elements() == 0) return Status::Ok();
    const int64_t rows = in.num_elements() / cols;
    const T* src = in.data<T>();
    T* vo = values->data<T>();
    std::vector<int64_t> order(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = src + r * cols;
      std::iota(order.begin(), order.end(), int64_t{0});
      auto before = [row](int64_t a, int64_t b) {
        if (Greater(row[a], row[b])) return true;
        if (Greater(row[b], row[a])) return false;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = order[static_cast<size_t>(j)];
        const int64_t o = r * k + j;
        vo[o] = row[at];
        switch (index_type_) {
          case DType::kInt16: indices->data<int16_t>()[o] = static_cast<int16_t>(at); break;
          case DType::kInt32: indices->data<int32_t>()[o] = static_cast<int32_t>(at); break;
          default: indices->data<int64_t>()[o] = at; break;
        }
      }
    }
    return Status::Ok();
  }

 private:
  DType index_type_ = DType::kInt32;
};

// ---------------------------------------------------------------------------------------
// Unique: the distinct elements of a vector in order of first occurrence, and for each input
// element the position of its value in that list. Floats compare by value (0 == -0, and
// every NaN is distinct).

template <typename T>
size_t HashOf(const T& x) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    const size_t h = std::hash<R>{}(x.real());
    return h ^ (std::hash<R>{}(x.imag()) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  } else {
    return std::hash<T>{}(x);
  }
}

template <typename T>
class UniqueKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "out_idx", &out_idx_));
    if (out_idx_ != DType::kInt32 && out_idx_ != DType::kInt64) {
      return errors::InvalidArgument("Unique: out_idx must be int32 or int64, not ", DTypeName(out_idx_));
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 1) return errors::InvalidArgument("unique expects a 1D vector.");
    const int64_t n = in.num_elements();
    if (n > std::numeric_limits<int32_t>::max()) {
      return errors::InvalidArgument("unique does not support input tensors larger than ",
                                     std::numeric_limits<int32_t>::max(), " elements");
    }
    const T* src = Elements<T>(in);
    // Keys are positions in src, hashed and compared by the element they point at.
    auto hash = [src](int64_t i) { return HashOf(src[i]); };
    auto eq = [src](int64_t a, int64_t b) { return src[a] == src[b]; };
    std::unordered_map<int64_t, int64_t, decltype(hash), decltype(eq)> seen(static_cast<size_t>(n), hash, eq);
    std::vector<int64_t> ids(static_cast<size_t>(n));
    std::vector<int64_t> firsts;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, added] = seen.emplace(i, static_cast<int64_t>(firsts.size()));
      if (added) firsts.push_back(i);
      ids[static_cast<size_t>(i)] = it->second;
    }
    const Dims y_dims = {static_cast<int64_t>(firsts.size())};
    GRAFT_RETURN_IF_ERROR(Produce<T>(ctx, 0, in.dtype(), y_dims, [&](T* out) {
      for (size_t u = 0; u < firsts.size(); ++u) out[u] = src[firsts[u]];
    }));
    Tensor* idx = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, out_idx_, in.dims(), &idx));
    for (int64_t i = 0; i < n; ++i) {
      if (out_idx_ == DType::kInt32) {
        idx->data<int32_t>()[i] = static_cast<int32_t>(ids[static_cast<size_t>(i)]);
      } else {
        idx->data<int64_t>()[i] = ids[static_cast<size_t>(i)];
      }
    }
    return Status::Ok();
  }

 private:
  DType out_idx_ = DType::kInt32;
};

}  // namespace

void RegisterSequenceKernels(KernelRegistry& r) {
  RegisterAllTypes<OneHotKernel>(r, "OneHot", "T");
  RegisterAllValueTypes<UniqueKernel>(r, "Unique", "T");
  auto reg = [&](const char* op, std::vector<DType> d, KernelFactory f) {
    (void)r.Register(op, kDeviceCpu, "T", std::move(d), std::move(f));
  };
  reg("Where", {DType::kBool}, &CreateKernel<WhereKernel<bool>>);
  reg("Where", {DType::kFloat32}, &CreateKernel<WhereKernel<float>>);
  reg("Where", {DType::kFloat64}, &CreateKernel<WhereKernel<double>>);
  reg("Where", {DType::kInt8, DType::kQInt8}, &CreateKernel<WhereKernel<int8_t>>);
  reg("Where", {DType::kInt16, DType::kQInt16}, &CreateKernel<WhereKernel<int16_t>>);
  reg("Where", {DType::kInt32, DType::kQInt32}, &CreateKernel<WhereKernel<int32_t>>);
  reg("Where", {DType::kInt64}, &CreateKernel<WhereKernel<int64_t>>);
  reg("Where", {DType::kUInt8, DType::kQUInt8}, &CreateKernel<WhereKernel<uint8_t>>);
  reg("Where", {DType::kUInt16, DType::kQUInt16}, &CreateKernel<WhereKernel<uint16_t>>);
  reg("Where", {DType::kUInt32}, &CreateKernel<WhereKernel<uint32_t>>);
  reg("Where", {DType::kUInt64}, &CreateKernel<WhereKernel<uint64_t>>);
  reg("Where", {DType::kFloat16, DType::kBFloat16}, &CreateKernel<WhereKernel<Half16>>);
  reg("Where", {DType::kComplex64}, &CreateKernel<WhereKernel<std::complex<float>>>);
  reg("Where", {DType::kComplex128}, &CreateKernel<WhereKernel<std::complex<double>>>);
  RegisterTypes<Cumsum, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
                std::complex<float>, std::complex<double>>(r, "Cumsum", "T");
  RegisterTypes<Cumprod, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
                std::complex<float>, std::complex<double>>(r, "Cumprod", "T");
  RegisterTypes<TopKKernel, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>(
      r, "TopKV2", "T");
}

}  // namespace graft::cpu
