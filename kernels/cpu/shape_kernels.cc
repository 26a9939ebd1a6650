// CPU kernels for shapes: Shape, ShapeN, Size, Rank, Reshape, ExpandDims, Squeeze (views of
// their input's buffer with new dims, not copies), Fill, ZerosLike, OnesLike, Range,
// InvertPermutation and BroadcastGradientArgs. The kernels that move elements are in
// data_movement_kernels.cc, Cast in cast_kernels.cc.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include <unistd.h>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {

namespace {

// ---------------------------------------------------------------------------------------
// Helpers.

// A tensor with in's elements and other dims (of the same element count): a view of in's
// buffer, shared, whatever device holds it. Strings are copied.
Status ShareWithDims(const Tensor& in, const Dims& dims, Tensor* out) {
  if (in.dtype() == DType::kString) return Tensor::FromStrings(dims, in.strings(), out);
  return Tensor::OnBuffer(in.dtype(), dims, in.buffer(), out);
}

// ---------------------------------------------------------------------------------------
// Shape, ShapeN, Size, Rank.

template <typename Out>
Status WriteDims(OpKernelContext& ctx, int i, const Dims& dims) {
  Tensor* out = nullptr;
  Dims vdims = {static_cast<int64_t>(dims.size())};
  GRAFT_RETURN_IF_ERROR(ctx.AllocateHostOutput(i, DTypeOf<Out>(), vdims, &out));
  Out* p = out->data<Out>();
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] > std::numeric_limits<Out>::max()) {
      return errors::InvalidArgument("Shape output type is 32-bit but dim ", k, " is ", dims[k]);
    }
    p[k] = static_cast<Out>(dims[k]);
  }
  return Status::Ok();
}

template <typename Out>
class ShapeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  bool HostMemoryOutput(int) const override { return true; }  // on any device
  Status Compute(OpKernelContext& ctx) const override {
    for (int i = 0; i < ctx.num_inputs(); ++i) GRAFT_RETURN_IF_ERROR(WriteDims<Out>(ctx, i, ctx.input(i).dims()));
    return Status::Ok();
  }
};

template <typename Out>
class SizeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  bool HostMemoryOutput(int) const override { return true; }  // on any device
  Status Compute(OpKernelContext& ctx) const override {
    const int64_t n = ctx.input(0).num_elements();
    if (n > std::numeric_limits<Out>::max()) {
      return errors::InvalidArgument("Number of elements was larger than representable by 32-bit output type: ", n);
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateHostOutput(0, DTypeOf<Out>(), {}, &out));
    out->data<Out>()[0] = static_cast<Out>(n);
    return Status::Ok();
  }
};

class RankKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  bool HostMemoryOutput(int) const override { return true; }  // on any device
  Status Compute(OpKernelContext& ctx) const override {
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateHostOutput(0, DType::kInt32, {}, &out));
    out->data<int32_t>()[0] = ctx.input(0).rank();
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------
// Reshape, ExpandDims, Squeeze: the same elements under other dims.

class ReshapeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  bool HostMemoryInput(int i) const override { return i == 1; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& sizes = ctx.input(1);
    // TensorFlow still accepts a scalar for a one-dim shape.
    if (sizes.rank() > 1) {
      return errors::InvalidArgument("sizes input must be 1-D, not ", ShapeText(sizes.dims()));
    }
    Dims want;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(sizes, "shape", &want));
    const int64_t n = in.num_elements();
    // TensorFlow's rule: the product leaves out the 0 sizes, so that -1 still has a value when
    // the shape asks for an empty tensor ([0] to [-1, 0] is [1, 0], as in TensorFlow).
    int64_t product = 1;
    bool has_zero = false;
    int unknown = -1;
    for (size_t i = 0; i < want.size(); ++i) {
      int64_t d = want[i];
      if (d == -1) {
        if (unknown >= 0) return errors::InvalidArgument("Only one input size may be -1, not both ", unknown, " and ", i);
        unknown = static_cast<int>(i);
      } else if (d < 0) {
        return errors::InvalidArgument("Size ", i, " must be non-negative, not ", d);
      } else if (d == 0) {
        has_zero = true;
      } else if (__builtin_mul_overflow(product, d, &product)) {
        return errors::InvalidArgument("Requested shape ", ShapeText(want), " has too many elements");
      }
    }
    if (unknown >= 0) {
      // -1 takes the input's count over the product; with a 0 size wanted, both leave out their
      // 0 dims, and an input with a 0 dim needs no exact multiple (TensorFlow's
      // reshape_op.h): [2, 0] to [-1, 0, 4] is [0, 0, 4].
      int64_t count = has_zero ? 1 : n;
      bool in_has_zero = false;
      for (size_t i = 0; has_zero && i < in.dims().size(); ++i) {
        const int64_t d = in.dims()[i];
        if (d == 0) {
          in_has_zero = true;
        } else if (__builtin_mul_overflow(count, d, &count)) {
          // An empty tensor's other dims may multiply past int64 ((0, 2^40, 2^40)).
          return errors::InvalidArgument("Reshape of a tensor of shape ", ShapeText(in.dims()), " to ",
                                         ShapeText(want), ": the input's non-zero dims have too many elements");
        }
      }
      const int64_t missing = count / product;
      if (!in_has_zero && missing * product != count) {
        return errors::InvalidArgument("Input to reshape is a tensor with ", n,
                                       " values, but the requested shape requires a multiple of ", product);
      }
      want[static_cast<size_t>(unknown)] = missing;
    }
    const int64_t total = has_zero ? 0 : (unknown >= 0 ? product * want[static_cast<size_t>(unknown)] : product);
    if (total != n) {
      return errors::InvalidArgument("Input to reshape is a tensor with ", n, " values, but the requested shape has ",
                                     total);
    }
    Tensor out;
    GRAFT_RETURN_IF_ERROR(ShareWithDims(in, want, &out));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }
};

class ExpandDimsKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  bool HostMemoryInput(int i) const override { return i == 1; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& dim_t = ctx.input(1);
    if (dim_t.num_elements() != 1) {
      return errors::InvalidArgument("'dim' must be a tensor with a single value, got shape ", ShapeText(dim_t.dims()));
    }
    Dims v;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(dim_t, "dim", &v));
    int64_t dim = v[0];
    const int64_t rank = in.rank();
    if (dim < -1 - rank || dim > rank) {
      return errors::InvalidArgument("Tried to expand dim index ", dim, " for tensor with ", rank, " dimensions.");
    }
    if (dim < 0) dim += rank + 1;
    Dims dims = in.dims();
    dims.insert(dims.begin() + dim, 1);
    Tensor out;
    GRAFT_RETURN_IF_ERROR(ShareWithDims(in, dims, &out));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }
};

class SqueezeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "squeeze_dims", &squeeze_); }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t rank = in.rank();
    std::vector<bool> drop(static_cast<size_t>(rank), false);
    for (int64_t d : squeeze_) {
      if (d < -rank || d >= rank) {
        return errors::InvalidArgument("Tried to squeeze dim index ", d, " for tensor with ", rank, " dimensions.");
      }
      if (d < 0) d += rank;
      if (in.dim(static_cast<int>(d)) != 1) {
        return errors::InvalidArgument("Can not squeeze dim[", d, "], expected a dimension of 1, got ",
                                       in.dim(static_cast<int>(d)));
      }
      drop[static_cast<size_t>(d)] = true;
    }
    Dims dims;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t size = in.dim(static_cast<int>(i));
      const bool removed = squeeze_.empty() ? size == 1 : drop[static_cast<size_t>(i)];
      if (!removed) dims.push_back(size);
    }
    Tensor out;
    GRAFT_RETURN_IF_ERROR(ShareWithDims(in, dims, &out));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  std::vector<int64_t> squeeze_;
};

// ---------------------------------------------------------------------------------------
// Fill, ZerosLike, OnesLike, Range.

template <typename T>
class FillKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& dims_t = ctx.input(0);
    const Tensor& value = ctx.input(1);
    if (dims_t.rank() != 1) return errors::InvalidArgument("dims must be a vector, got shape ", ShapeText(dims_t.dims()));
    if (value.rank() != 0) return errors::InvalidArgument("value must be a scalar, got shape ", ShapeText(value.dims()));
    Dims v, dims;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(dims_t, "dims", &v));
    GRAFT_RETURN_IF_ERROR(ShapeFromVector(v, &dims));
    const T x = Elements<T>(value)[0];
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, &n));
    return Produce<T>(ctx, 0, value.dtype(), dims, [&](T* out) { std::fill_n(out, n, x); });
  }
};

template <int Value>
struct ConstLike {
  template <typename T>
  class Kernel : public OpKernel {
   public:
    using OpKernel::OpKernel;
    Status Init() { return Status::Ok(); }
    bool IsCheap() const override { return true; }
    Status Compute(OpKernelContext& ctx) const override {
      const Tensor& x = ctx.input(0);
      Tensor* out = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out, 0));
      if (x.num_elements() > 0) std::fill_n(out->data<T>(), x.num_elements(), static_cast<T>(Value));
      return Status::Ok();
    }
  };
};

// The machine's physical memory in bytes; 0 when unknown.
uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

template <typename T>
class RangeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const char* names[3] = {"start", "limit", "delta"};
    T v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.num_elements() != 1 || t.rank() > 1) {
        return errors::InvalidArgument(names[i], " must be a scalar, not shape ", ShapeText(t.dims()));
      }
      v[i] = t.data<T>()[0];
    }
    const T start = v[0], limit = v[1], delta = v[2];
    if (delta == T(0)) return errors::InvalidArgument("Requires delta != 0: ", Show(delta));
    if (delta > T(0) && start > limit) {
      return errors::InvalidArgument("Requires start <= limit when delta > 0: ", Show(start), "/", Show(limit));
    }
    if (delta < T(0) && start < limit) {
      return errors::InvalidArgument("Requires start >= limit when delta < 0: ", Show(start), "/", Show(limit));
    }
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      // In 128 bits: |limit - start| and |delta| of int64 values do not overflow there.
      __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
      __int128 step = static_cast<__int128>(delta);
      if (span < 0) span = -span;
      if (step < 0) step = -step;
      __int128 n = (span + step - 1) / step;
      if (n > std::numeric_limits<int64_t>::max()) {
        return errors::InvalidArgument("Requires ((limit - start) / delta) <= ", std::numeric_limits<int64_t>::max());
      }
      size = static_cast<int64_t>(n);
    } else {
      // In T, as TensorFlow's: the count may differ from the exact quotient's ceiling.
      const T n = std::ceil(std::abs((limit - start) / delta));
      if (!(static_cast<double>(n) < 9223372036854775807.0)) {
        return errors::InvalidArgument("Requires ((limit - start) / delta) <= ", std::numeric_limits<int64_t>::max());
      }
      size = static_cast<int64_t>(n);
    }
    // A count from crafted inputs (0 to 2^62 by 1) is refused here rather than attempted: an
    // output larger than the machine's memory cannot be made, and trying may take it all.
    static const uint64_t memory = PhysicalMemoryBytes();
    if (memory > 0 && static_cast<uint64_t>(size) > memory / sizeof(T)) {
      return errors::ResourceExhausted("the range from ", Show(start), " to ", Show(limit), " by ", Show(delta),
                                       " has ", size, " elements, more than fit in the machine's ", memory,
                                       " bytes of memory");
    }
    Tensor* out = nullptr;
    Dims dims = {size};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    // Accumulated, as TensorFlow's CPU kernel (floats: the rounding of repeated addition).
    // Integers add with wrapping: the value after the last element may pass the dtype's
    // limit (Range(INT32_MAX - 2, INT32_MAX, 5)), and it is never stored.
    T* p = out->data<T>();
    T val = start;
    for (int64_t i = 0; i < size; ++i) {
      p[i] = val;
      val = WrapAdd(val, delta);
    }
    return Status::Ok();
  }

 private:
  static auto Show(T x) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(x);
    } else {
      return x;
    }
  }
};

// ---------------------------------------------------------------------------------------
// InvertPermutation, BroadcastGradientArgs.

template <typename T>
class InvertPermutationKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 1) return errors::InvalidArgument("invert_permutation expects a 1D vector.");
    const int64_t n = x.num_elements();
    if (n > std::numeric_limits<int32_t>::max()) {
      return errors::InvalidArgument("permutation of nonnegative int32s must have <= int32 max elements");
    }
    const T* p = x.data<T>();
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out));
    T* q = out->data<T>();
    std::fill_n(q, n, T(-1));
    for (int64_t i = 0; i < n; ++i) {
      const T d = p[i];
      if (d < 0 || d >= n) return errors::InvalidArgument(static_cast<int64_t>(d), " is not between 0 and ", n);
      if (q[d] != T(-1)) return errors::InvalidArgument(static_cast<int64_t>(d), " is duplicated in the input.");
      q[d] = static_cast<T>(i);
    }
    return Status::Ok();
  }
};

template <typename T>
class BroadcastGradientArgsKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    Dims s[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.rank() != 1) return errors::InvalidArgument("In[", i, "] must be a vector.", ShapeText(t.dims()));
      GRAFT_RETURN_IF_ERROR(ReadIndexTensor(t, "shape", &s[i]));
    }
    // TensorFlow's BCast: identical shapes reduce nothing. Otherwise, aligned on the right
    // and padded with 1s, an input reduces over each dim where it is 1 (both reduce where
    // both are 1); dims where neither is 1 must be equal.
    Dims r[2];
    if (s[0] != s[1]) {
      const size_t rank = std::max(s[0].size(), s[1].size());
      for (size_t i = 0; i < rank; ++i) {
        const size_t back = rank - 1 - i;  // i-th dim counted from the right of the output
        const int64_t x = back < s[0].size() ? s[0][s[0].size() - 1 - back] : 1;
        const int64_t y = back < s[1].size() ? s[1][s[1].size() - 1 - back] : 1;
        if (x == y) {
          if (x == 1) {
            r[0].push_back(static_cast<int64_t>(i));
            r[1].push_back(static_cast<int64_t>(i));
          }
        } else if (x == 1) {
          r[0].push_back(static_cast<int64_t>(i));
        } else if (y == 1) {
          r[1].push_back(static_cast<int64_t>(i));
        } else {
          return errors::InvalidArgument("Incompatible shapes: ", ShapeText(s[0]), " vs. ", ShapeText(s[1]));
        }
      }
    }
    for (int k = 0; k < 2; ++k) {
      Tensor* out = nullptr;
      Dims dims = {static_cast<int64_t>(r[k].size())};
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(k, DTypeOf<T>(), dims, &out));
      for (size_t j = 0; j < r[k].size(); ++j) out->data<T>()[j] = static_cast<T>(r[k][j]);
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterDimsKernels(KernelRegistry& r, const char* device_type) {
  for (const char* op : {"Shape", "ShapeN"}) {
    (void)r.Register(op, device_type, "out_type", {DType::kInt32}, &CreateKernel<ShapeKernel<int32_t>>);
    (void)r.Register(op, device_type, "out_type", {DType::kInt64}, &CreateKernel<ShapeKernel<int64_t>>);
  }
  (void)r.Register("Size", device_type, "out_type", {DType::kInt32}, &CreateKernel<SizeKernel<int32_t>>);
  (void)r.Register("Size", device_type, "out_type", {DType::kInt64}, &CreateKernel<SizeKernel<int64_t>>);
  for (auto& [op, factory] : {std::pair<const char*, KernelFactory>{"Rank", &CreateKernel<RankKernel>},
                              {"Reshape", &CreateKernel<ReshapeKernel>},
                              {"ExpandDims", &CreateKernel<ExpandDimsKernel>},
                              {"Squeeze", &CreateKernel<SqueezeKernel>}}) {
    (void)r.Register(op, device_type, "", {}, factory);
  }
}

void RegisterShapeKernels(KernelRegistry& r) {
  RegisterDimsKernels(r, kDeviceCpu);
  RegisterAllTypes<FillKernel>(r, "Fill");
  RegisterTypes<RangeKernel, int32_t, int64_t, float, double>(r, "Range", "Tidx");
  RegisterTypes<ConstLike<0>::Kernel, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                uint64_t, bool, std::complex<float>, std::complex<double>>(r, "ZerosLike", "T");
  RegisterTypes<ConstLike<1>::Kernel, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                uint64_t, bool, std::complex<float>, std::complex<double>>(r, "OnesLike", "T");
  RegisterTypes<InvertPermutationKernel, int32_t, int64_t>(r, "InvertPermutation", "T");
  RegisterTypes<BroadcastGradientArgsKernel, int32_t, int64_t>(r, "BroadcastGradientArgs", "T");
}

}  // namespace graft::cpu
