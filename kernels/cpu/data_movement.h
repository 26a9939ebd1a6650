// Helpers shared by the CPU kernels that move elements without computing on them (shape
// and indexing kernels): reading index tensors, strides, element access for fixed-size and
// string storage, making an output and filling it, strided copies, and registering one
// kernel template for every storage type.
#pragma once

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

using Dims = std::vector<int64_t>;

// The elements of an int16, int32 or int64 index tensor.
inline Status ReadIndexTensor(const Tensor& t, const char* what, Dims* out) {
  out->resize(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == DType::kInt64) {
    const int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == DType::kInt16) {
    const int16_t* p = t.data<int16_t>();
    for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = p[i];
  } else {
    return errors::DTypeError(what, " must be int16, int32 or int64, not ", DTypeName(t.dtype()));
  }
  return Status::Ok();
}

// Row-major strides (in elements) of a shape.
inline Dims RowMajorStrides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Makes output i of dtype and dims and lets fill write its elements.
template <typename T, typename F>
Status Produce(OpKernelContext& ctx, int i, DType dtype, const Dims& dims, F fill) {
  if constexpr (std::is_same_v<T, std::string>) {
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, &n));
    GRAFT_RETURN_IF_ERROR(Tensor::CheckStringsFit(n));
    std::vector<std::string> v(static_cast<size_t>(n));
    if (n > 0) fill(v.data());
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(v), &t));
    ctx.SetOutput(i, std::move(t));
  } else {
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(i, dtype, dims, &out));
    if (out->num_elements() > 0) fill(out->data<T>());
  }
  return Status::Ok();
}

// out[o] = in[offset(o)] over out_dims in row-major order, where offset is base plus the sum
// of index * in_strides per dim (strides may be 0 to broadcast, or permuted to transpose).
template <typename T>
void StridedCopy(const T* in, int64_t base, const Dims& in_strides, const Dims& out_dims, T* out) {
  const size_t rank = out_dims.size();
  int64_t total = 1;
  for (int64_t d : out_dims) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    out[0] = in[base];
    return;
  }
  const int64_t inner = out_dims[rank - 1];
  const int64_t s = in_strides[rank - 1];
  Dims idx(rank, 0);
  int64_t off = base;
  for (int64_t o = 0; o < total; o += inner) {
    if (s == 1) {
      std::copy_n(in + off, inner, out + o);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[o + i] = in[off + i * s];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      off += in_strides[d];
      if (++idx[d] < out_dims[d]) break;
      off -= in_strides[d] * out_dims[d];
      idx[d] = 0;
    }
  }
}

// A 1-D index tensor (a shape, multiples, a permutation...).
inline Status ReadIndexVector(const Tensor& t, const char* what, Dims* out) {
  if (t.rank() != 1) return errors::InvalidArgument(what, " must be a vector, got shape ", ShapeText(t.dims()));
  return ReadIndexTensor(t, what, out);
}

// ConcatV2's output dims: inputs [0, n) of ctx joined on axis (negative counts from the end),
// checked as TensorFlow checks them; *out_axis gets the axis made non-negative. Shared by the
// CPU and OpenCL kernels.
inline Status ConcatShape(const OpKernelContext& ctx, int n, int64_t axis, int64_t* out_axis, Dims* out_dims) {
  const Tensor& first = ctx.input(0);
  const int64_t rank = first.rank();
  if (rank == 0) return errors::InvalidArgument("ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ", rank,
                                   "), but got ", axis);
  }
  if (axis < 0) axis += rank;
  Dims dims = first.dims();
  dims[static_cast<size_t>(axis)] = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.rank() != rank) {
      return errors::InvalidArgument("ConcatOp : Ranks of all input tensors should match: shape[0] = ",
                                     ShapeText(first.dims()), " vs. shape[", i, "] = ", ShapeText(t.dims()));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && t.dim(static_cast<int>(d)) != first.dim(static_cast<int>(d))) {
        return errors::InvalidArgument("ConcatOp : Dimension ", d, " in both shapes must be equal: shape[0] = ",
                                       ShapeText(first.dims()), " vs. shape[", i, "] = ", ShapeText(t.dims()));
      }
    }
    dims[static_cast<size_t>(axis)] += t.dim(static_cast<int>(axis));
  }
  *out_axis = axis;
  *out_dims = std::move(dims);
  return Status::Ok();
}

// A scalar index (or a one-element vector, which TensorFlow accepts too).
inline Status ReadIndexScalar(const Tensor& t, const char* what, int64_t* out) {
  if (t.num_elements() != 1 || t.rank() > 1) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ", ShapeText(t.dims()));
  }
  Dims v;
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(t, what, &v));
  *out = v[0];
  return Status::Ok();
}

// A shape given as a tensor: every dim >= 0, and the element count must not overflow.
inline Status ShapeFromVector(const Dims& v, Dims* out) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0) return errors::InvalidArgument("Dimension ", v[i], " must be >= 0 (dim ", i, ")");
  }
  int64_t n = 0;
  GRAFT_RETURN_IF_ERROR(CheckedNumElements(v, &n));
  *out = v;
  return Status::Ok();
}

// Registers K<T> for every dtype a data-movement kernel handles, on type attr `attr`. These
// kernels only copy, fill and zero elements, so one instantiation per element size serves
// every dtype of that size (bool and the 8-bit types as uint8_t, float32 and the 32-bit
// integers as uint32_t, float64, the 64-bit integers and complex64 as uint64_t): the library
// carries 6 copies of each such kernel instead of 14. A kernel that compares or computes with
// values registers with RegisterAllValueTypes instead.
template <template <typename> class K>
void RegisterAllTypes(KernelRegistry& r, const char* op, const char* attr = "T") {
  auto reg = [&](std::initializer_list<DType> d, KernelCreateFn f) { (void)r.Register(op, kDeviceCpu, attr, d, f); };
  reg({DType::kBool, DType::kInt8, DType::kUInt8, DType::kQInt8, DType::kQUInt8}, &CreateKernel<K<uint8_t>>);
  reg({DType::kInt16, DType::kUInt16, DType::kQInt16, DType::kQUInt16, DType::kFloat16, DType::kBFloat16},
      &CreateKernel<K<uint16_t>>);
  reg({DType::kFloat32, DType::kInt32, DType::kUInt32, DType::kQInt32}, &CreateKernel<K<uint32_t>>);
  reg({DType::kFloat64, DType::kInt64, DType::kUInt64, DType::kComplex64}, &CreateKernel<K<uint64_t>>);
  reg({DType::kComplex128}, &CreateKernel<K<std::complex<double>>>);
  reg({DType::kString}, &CreateKernel<K<std::string>>);
}

// Registers K<T> with T each dtype's own C++ type (float16 and bfloat16 as uint16_t, the
// quantized types as their integer storage), for kernels that compare values (Unique: -0.0
// equals 0.0 and NaN never equals NaN).
template <template <typename> class K>
void RegisterAllValueTypes(KernelRegistry& r, const char* op, const char* attr = "T") {
  auto reg = [&](std::initializer_list<DType> d, KernelCreateFn f) { (void)r.Register(op, kDeviceCpu, attr, d, f); };
  reg({DType::kFloat32}, &CreateKernel<K<float>>);
  reg({DType::kFloat64}, &CreateKernel<K<double>>);
  reg({DType::kInt8, DType::kQInt8}, &CreateKernel<K<int8_t>>);
  reg({DType::kInt16, DType::kQInt16}, &CreateKernel<K<int16_t>>);
  reg({DType::kInt32, DType::kQInt32}, &CreateKernel<K<int32_t>>);
  reg({DType::kInt64}, &CreateKernel<K<int64_t>>);
  reg({DType::kUInt8, DType::kQUInt8}, &CreateKernel<K<uint8_t>>);
  reg({DType::kUInt16, DType::kQUInt16, DType::kFloat16, DType::kBFloat16}, &CreateKernel<K<uint16_t>>);
  reg({DType::kUInt32}, &CreateKernel<K<uint32_t>>);
  reg({DType::kUInt64}, &CreateKernel<K<uint64_t>>);
  reg({DType::kBool}, &CreateKernel<K<bool>>);
  reg({DType::kComplex64}, &CreateKernel<K<std::complex<float>>>);
  reg({DType::kComplex128}, &CreateKernel<K<std::complex<double>>>);
  reg({DType::kString}, &CreateKernel<K<std::string>>);
}

// Data-movement kernels kept in files of their own, registered by RegisterDataMovementKernels.
void RegisterReverseKernels(KernelRegistry& r);     // reverse_kernels.cc: ReverseV2
void RegisterSpaceBatchKernels(KernelRegistry& r);  // space_batch_kernels.cc: SpaceToBatchND, BatchToSpaceND

}  // namespace graft::cpu
