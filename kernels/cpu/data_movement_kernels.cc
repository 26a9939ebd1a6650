// CPU kernels that move elements: Tile, Transpose, BroadcastTo, Slice, ConcatV2, Pack, Unpack
// and DynamicStitch.
//
// They are templates over the element's storage type: one instantiation serves every dtype of
// that size (RegisterAllTypes in data_movement.h: float32 and int32 move as uint32_t, float16
// as uint16_t, ...) and std::string serves string tensors. The identity cases of Slice, Transpose and
// Tile give a view of their input's buffer instead of copying it.
#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// Tile, Transpose, BroadcastTo, Slice.

template <typename T>
class TileKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& mult_t = ctx.input(1);
    if (mult_t.rank() != 1 || mult_t.num_elements() != in.rank()) {
      return errors::InvalidArgument("Expected multiples argument to be a vector of length ", in.rank(), " but got ",
                                     mult_t.rank() == 1 ? "length " : "shape ",
                                     mult_t.rank() == 1 ? std::to_string(mult_t.num_elements()) : ShapeText(mult_t.dims()));
    }
    Dims mult;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(mult_t, "multiples", &mult));
    const size_t rank = in.dims().size();
    Dims out_dims(rank);
    bool identity = true;
    for (size_t i = 0; i < rank; ++i) {
      if (mult[i] < 0) return errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ", mult[i]);
      if (__builtin_mul_overflow(in.dims()[i], mult[i], &out_dims[i])) {
        return errors::InvalidArgument("Tiling ", ShapeText(in.dims()), " by ", ShapeText(mult), " overflows");
      }
      identity = identity && mult[i] == 1;
    }
    if (identity) {
      ctx.SetOutput(0, in);
      return Status::Ok();
    }
    int64_t total = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(out_dims, &total));
    const T* src = Elements<T>(in);
    const Dims& in_dims = in.dims();
    const Dims in_strides = RowMajorStrides(in_dims);
    return Produce<T>(ctx, 0, in.dtype(), out_dims, [&](T* out) {
      if (total == 0) return;
      if (rank == 0) {
        out[0] = src[0];
        return;
      }
      // Walk the output's rows (innermost dim); each is the input's row repeated.
      const int64_t row = out_dims[rank - 1];
      const int64_t in_row = in_dims[rank - 1];
      Dims idx(rank, 0);
      for (int64_t o = 0; o < total; o += row) {
        int64_t off = 0;
        for (size_t d = 0; d + 1 < rank; ++d) off += (idx[d] % in_dims[d]) * in_strides[d];
        for (int64_t r = 0; r < row; r += in_row) std::copy_n(src + off, in_row, out + o + r);
        for (size_t d = rank - 1; d-- > 0;) {
          if (++idx[d] < out_dims[d]) break;
          idx[d] = 0;
        }
      }
    });
  }
};

template <typename T>
class TransposeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& perm_t = ctx.input(1);
    if (perm_t.rank() != 1) return errors::InvalidArgument("perm must be a vector, not ", ShapeText(perm_t.dims()));
    const int64_t rank = in.rank();
    if (perm_t.num_elements() != rank) {
      return errors::InvalidArgument("transpose expects a vector of size ", rank, ". But input(1) is a vector of size ",
                                     perm_t.num_elements());
    }
    Dims perm;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(perm_t, "perm", &perm));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t& d : perm) {
      if (d < 0) d += rank;  // counted from the end, as TensorFlow does (its messages show the sum)
      if (d < 0 || d >= rank) return errors::InvalidArgument(d, " is out of range [0 .. ", rank, ")");
      seen[static_cast<size_t>(d)] = true;
    }
    for (int64_t i = 0; i < rank; ++i) {
      if (!seen[static_cast<size_t>(i)]) {
        return errors::InvalidArgument(i, " is missing from {", ShapeText(perm).substr(1, ShapeText(perm).size() - 2),
                                       "}.");
      }
    }
    const Dims in_strides = RowMajorStrides(in.dims());
    Dims out_dims(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank));
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k) {
      out_dims[k] = in.dims()[static_cast<size_t>(perm[k])];
      strides[k] = in_strides[static_cast<size_t>(perm[k])];
      identity = identity && perm[k] == static_cast<int64_t>(k);
    }
    if (identity) {
      ctx.SetOutput(0, in);
      return Status::Ok();
    }
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), out_dims, [&](T* out) { StridedCopy(src, 0, strides, out_dims, out); });
  }
};

template <typename T>
class BroadcastToKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Dims v, want;
    GRAFT_RETURN_IF_ERROR(ReadIndexVector(ctx.input(1), "shape", &v));
    GRAFT_RETURN_IF_ERROR(ShapeFromVector(v, &want));
    if (want == in.dims()) {
      ctx.SetOutput(0, in);
      return Status::Ok();
    }
    // TensorFlow's checks, in its order (an empty result needs no broadcastable input).
    if (in.rank() > static_cast<int>(want.size())) {
      return errors::InvalidArgument("Rank of input (", in.rank(), ") must be no greater than rank of output shape (",
                                     want.size(), ").");
    }
    int64_t total = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(want, &total));
    Broadcast bc;
    if (total > 0) {
      if (!MakeBroadcast(in.dims(), want, &bc).ok()) {
        return errors::InvalidArgument("Incompatible shapes: ", ShapeText(in.dims()), " vs. ", ShapeText(want));
      }
      if (bc.out_dims != want) {
        return errors::InvalidArgument("Unable to broadcast tensor of shape ", ShapeText(in.dims()),
                                       " to tensor of shape ", ShapeText(want));
      }
    }
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), want, [&](T* out) { StridedCopy(src, 0, bc.a_strides, want, out); });
  }
};

template <typename T>
class SliceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& begin_t = ctx.input(1);
    const Tensor& size_t_ = ctx.input(2);
    const int64_t rank = in.rank();
    if (begin_t.rank() != 1 || size_t_.rank() != 1 || begin_t.num_elements() != rank ||
        size_t_.num_elements() != rank) {
      return errors::InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ", rank,
                                     ", but got shapes ", ShapeText(begin_t.dims()), " and ", ShapeText(size_t_.dims()),
                                     " instead.");
    }
    Dims begin, size;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(begin_t, "begin", &begin));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(size_t_, "size", &size));
    bool whole = true;
    for (size_t i = 0; i < begin.size(); ++i) {
      const int64_t d = in.dims()[i], b = begin[i];
      int64_t& s = size[i];
      if (s == -1) s = d - b;
      if (d == 0) {
        if (b != 0 || s != 0) {
          return errors::InvalidArgument("Expected begin[", i, "] == 0 (got ", b, ") and size[", i, "] == 0 (got ", s,
                                         ") when input.dim_size(", i, ") == 0");
        }
      } else {
        if (b < 0 || b > d) return errors::InvalidArgument("Expected begin[", i, "] in [0, ", d, "], but got ", b);
        if (s < 0 || s > d - b) {
          return errors::InvalidArgument("Expected size[", i, "] in [0, ", d - b, "], but got ", s);
        }
      }
      whole = whole && b == 0 && s == d;
    }
    if (whole) {
      ctx.SetOutput(0, in);
      return Status::Ok();
    }
    const Dims strides = RowMajorStrides(in.dims());
    int64_t base = 0;
    for (size_t i = 0; i < begin.size(); ++i) base += begin[i] * strides[i];
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), size, [&](T* out) { StridedCopy(src, base, strides, size, out); });
  }
};

// ---------------------------------------------------------------------------------------
// ConcatV2, Pack, Unpack.

template <typename T>
class ConcatKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const int n = ctx.num_inputs() - 1;
    int64_t axis = 0;
    GRAFT_RETURN_IF_ERROR(ReadIndexScalar(ctx.input(n), "axis", &axis));
    const Tensor& first = ctx.input(0);
    const int64_t rank = first.rank();
    Dims out_dims;
    GRAFT_RETURN_IF_ERROR(ConcatShape(ctx, n, axis, &axis, &out_dims));
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= out_dims[static_cast<size_t>(d)];
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out_dims[static_cast<size_t>(d)];
    return Produce<T>(ctx, 0, first.dtype(), out_dims, [&](T* out) {
      int64_t o = 0;
      for (int64_t r = 0; r < outer; ++r) {
        for (int i = 0; i < n; ++i) {
          const Tensor& t = ctx.input(i);
          const int64_t chunk = t.dim(static_cast<int>(axis)) * inner;
          if (chunk == 0) continue;
          std::copy_n(Elements<T>(t) + r * chunk, chunk, out + o);
          o += chunk;
        }
      }
    });
  }
};

template <typename T>
class PackKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "axis", &axis_); }
  Status Compute(OpKernelContext& ctx) const override {
    const int n = ctx.num_inputs();
    const Tensor& first = ctx.input(0);
    const int64_t rank = first.rank() + 1;
    int64_t axis = axis_;
    if (axis < -rank || axis >= rank) return errors::InvalidArgument("axis = ", axis, " not in [", -rank, ", ", rank, ")");
    if (axis < 0) axis += rank;
    for (int i = 1; i < n; ++i) {
      if (ctx.input(i).dims() != first.dims()) {
        return errors::InvalidArgument("Shapes of all inputs must match: values[0].shape = ", ShapeText(first.dims()),
                                       " != values[", i, "].shape = ", ShapeText(ctx.input(i).dims()));
      }
    }
    Dims out_dims = first.dims();
    out_dims.insert(out_dims.begin() + axis, n);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= first.dims()[static_cast<size_t>(d)];
    const int64_t inner = outer == 0 ? 0 : first.num_elements() / outer;
    return Produce<T>(ctx, 0, first.dtype(), out_dims, [&](T* out) {
      if (inner == 0) return;
      for (int64_t r = 0; r < outer; ++r) {
        for (int i = 0; i < n; ++i) std::copy_n(Elements<T>(ctx.input(i)) + r * inner, inner, out + (r * n + i) * inner);
      }
    });
  }

 private:
  int64_t axis_ = 0;
};

template <typename T>
class UnpackKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "num", &num_));
    return GetAttr(node(), "axis", &axis_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t rank = in.rank();
    int64_t axis = axis_;
    if (axis < -rank || axis >= rank) return errors::InvalidArgument("axis = ", axis, " not in [", -rank, ", ", rank, ")");
    if (axis < 0) axis += rank;
    const int64_t num = in.dim(static_cast<int>(axis));
    if (num != num_) return errors::InvalidArgument("Input shape axis ", axis, " must equal ", num_, ", got ", num);
    Dims out_dims = in.dims();
    out_dims.erase(out_dims.begin() + axis);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in.dims()[static_cast<size_t>(d)];
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis); d < out_dims.size(); ++d) inner *= out_dims[d];
    const T* src = Elements<T>(in);
    for (int64_t i = 0; i < num; ++i) {
      GRAFT_RETURN_IF_ERROR(Produce<T>(ctx, static_cast<int>(i), in.dtype(), out_dims, [&](T* out) {
        for (int64_t r = 0; r < outer; ++r) std::copy_n(src + (r * num + i) * inner, inner, out + r * inner);
      }));
    }
    return Status::Ok();
  }

 private:
  int64_t num_ = 0;
  int64_t axis_ = 0;
};

// ---------------------------------------------------------------------------------------
// DynamicStitch.

template <typename T>
class DynamicStitchKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const int n = ctx.num_inputs() / 2;
    const Tensor& data0 = ctx.input(n);
    const Tensor& idx0 = ctx.input(0);
    if (data0.rank() < idx0.rank() ||
        !std::equal(idx0.dims().begin(), idx0.dims().end(), data0.dims().begin())) {
      return errors::InvalidArgument("data[0].shape = ", ShapeText(data0.dims()), " does not start with indices[0].shape = ",
                                     ShapeText(idx0.dims()));
    }
    const Dims slice_dims(data0.dims().begin() + idx0.rank(), data0.dims().end());
    int64_t slice = 1;
    for (int64_t d : slice_dims) slice *= d;
    int64_t max_index = -1;
    for (int i = 0; i < n; ++i) {
      const Tensor& idx = ctx.input(i);
      const Tensor& data = ctx.input(n + i);
      if (data.rank() < idx.rank() || !std::equal(idx.dims().begin(), idx.dims().end(), data.dims().begin())) {
        return errors::InvalidArgument("data[", i, "].shape = ", ShapeText(data.dims()),
                                       " does not start with indices[", i, "].shape = ", ShapeText(idx.dims()));
      }
      const Dims trailing(data.dims().begin() + idx.rank(), data.dims().end());
      if (trailing != slice_dims) {
        return errors::InvalidArgument("Need data[0].shape[", idx0.rank(), ":] = ", ShapeText(slice_dims),
                                       " to equal data[", i, "].shape[", idx.rank(), ":] = ", ShapeText(trailing));
      }
      const int32_t* p = idx.data<int32_t>();
      for (int64_t k = 0; k < idx.num_elements(); ++k) max_index = std::max<int64_t>(max_index, p[k]);
    }
    const int64_t first = max_index + 1;
    Dims out_dims = slice_dims;
    out_dims.insert(out_dims.begin(), first);
    // Check every index before writing (positions no index names stay zero).
    for (int i = 0; i < n; ++i) {
      const Tensor& idx = ctx.input(i);
      const int32_t* p = idx.data<int32_t>();
      for (int64_t k = 0; k < idx.num_elements(); ++k) {
        if (p[k] < 0 || p[k] >= first) {
          return errors::InvalidArgument("indices[", i, "] is out of range: element ", k, " is ", p[k], ", not in [0, ",
                                         first, ")");
        }
      }
    }
    return Produce<T>(ctx, 0, data0.dtype(), out_dims, [&](T* out) {
      std::fill_n(out, first * slice, T());
      if (slice == 0) return;
      // Later inputs overwrite earlier ones at the same index, as TensorFlow's order.
      for (int i = 0; i < n; ++i) {
        const Tensor& idx = ctx.input(i);
        const int32_t* p = idx.data<int32_t>();
        const T* src = Elements<T>(ctx.input(n + i));
        for (int64_t k = 0; k < idx.num_elements(); ++k) std::copy_n(src + k * slice, slice, out + p[k] * slice);
      }
    });
  }
};

// MatrixBandPart: each innermost matrix keeps the band of num_lower diagonals below the main
// one and num_upper above it (a negative count keeps the whole triangle); the rest is zero.
template <typename T>
class MatrixBandPartKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (in.rank() < 2) return errors::InvalidArgument("input must be at least 2-dim, received shape: ", ShapeText(in.dims()));
    const int64_t rows = in.dim(static_cast<int>(in.rank() - 2)), cols = in.dim(static_cast<int>(in.rank() - 1));
    int64_t bounds[2];
    const char* names[2] = {"num_lower", "num_upper"};
    for (int k = 0; k < 2; ++k) {
      const Tensor& t = ctx.input(1 + k);
      if (t.rank() != 0) return errors::InvalidArgument(names[k], " must be scalar, got shape ", ShapeText(t.dims()));
      Dims v;
      GRAFT_RETURN_IF_ERROR(ReadIndexTensor(t, names[k], &v));
      const int64_t limit = k == 0 ? rows : cols;
      if (v[0] > limit) {
        return errors::InvalidArgument(names[k], " must be negative or less or equal to number of ",
                                       k == 0 ? "rows" : "columns", " (", limit, ") got: ", v[0]);
      }
      bounds[k] = v[0];
    }
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), in.dims(), [&](T* out) {
      const int64_t n = in.num_elements();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t m = (i / cols) % rows, c = i % cols;
        const bool keep = (bounds[0] < 0 || m - c <= bounds[0]) && (bounds[1] < 0 || c - m <= bounds[1]);
        out[i] = keep ? src[i] : T{};
      }
    });
  }
};

}  // namespace

void RegisterDataMovementKernels(KernelRegistry& r) {
  RegisterAllTypes<TileKernel>(r, "Tile");
  RegisterAllTypes<MatrixBandPartKernel>(r, "MatrixBandPart");
  RegisterAllTypes<TransposeKernel>(r, "Transpose");
  RegisterAllTypes<ConcatKernel>(r, "ConcatV2");
  RegisterAllTypes<PackKernel>(r, "Pack");
  RegisterAllTypes<UnpackKernel>(r, "Unpack");
  RegisterAllTypes<SliceKernel>(r, "Slice");
  RegisterAllTypes<BroadcastToKernel>(r, "BroadcastTo");
  RegisterAllTypes<DynamicStitchKernel>(r, "DynamicStitch");
  RegisterReverseKernels(r);
  RegisterSpaceBatchKernels(r);
}

}  // namespace graft::cpu
