// Gather: the element movement of GatherV2 and ResourceGather, shared by their kernels.
#pragma once

#include <algorithm>
#include <string>

#include "kernels/cpu/data_movement.h"

namespace graft::cpu {

// "[i,j]" for flat index i of shape (empty for scalars), as TensorFlow's SliceDebugString.
inline std::string IndexText(const Dims& shape, int64_t flat) {
  if (shape.empty()) return "";
  Dims idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) {
    if (d > 0) s.push_back(',');
    s.append(std::to_string(idx[d]));
  }
  s.push_back(']');
  return s;
}

// Output out = params gathered along axis by indices, the first batch_dims dims of params and
// indices pairing up (TensorFlow's GatherV2): params[:axis] + indices[batch_dims:] +
// params[axis+1:]. Every index is checked against params' dim before anything is written.
template <typename T>
Status Gather(OpKernelContext& ctx, int out_index, const Tensor& params, const Tensor& indices, int64_t axis,
              int64_t batch_dims) {
  const int64_t prank = params.rank(), irank = indices.rank();
  if (axis < -prank || axis >= prank) {
    return errors::InvalidArgument("Expected axis in the range [", -prank, ", ", prank, "), but got ", axis);
  }
  if (axis < 0) axis += prank;
  if (batch_dims != 0) {
    if (batch_dims < -irank || batch_dims > irank) {
      return errors::InvalidArgument("Expected batch_dims in the range [", -irank, ", ", irank, "], but got ",
                                     batch_dims);
    }
    if (batch_dims < 0) batch_dims += irank;
    if (batch_dims > axis) {
      return errors::InvalidArgument("batch_dims (", batch_dims, ") must be less than or equal to axis (", axis,
                                     ").");
    }
    for (int64_t d = 0; d < batch_dims; ++d) {
      if (params.dims()[static_cast<size_t>(d)] != indices.dims()[static_cast<size_t>(d)]) {
        return errors::InvalidArgument("params.shape[", d, "]: ", params.dims()[static_cast<size_t>(d)],
                                       " should be equal to indices.shape[", d,
                                       "]: ", indices.dims()[static_cast<size_t>(d)]);
      }
    }
  }
  Dims idx;
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
  const int64_t limit = params.dims()[static_cast<size_t>(axis)];
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0 || idx[i] >= limit) {
      return errors::InvalidArgument("indices", IndexText(indices.dims(), static_cast<int64_t>(i)), " = ", idx[i],
                                     " is not in [0, ", limit, ")");
    }
  }
  Dims out_dims(params.dims().begin(), params.dims().begin() + axis);
  out_dims.insert(out_dims.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  out_dims.insert(out_dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  int64_t batch = 1, outer = 1, inner = 1, per_batch = 1;
  for (int64_t d = 0; d < batch_dims; ++d) batch *= params.dims()[static_cast<size_t>(d)];
  for (int64_t d = batch_dims; d < axis; ++d) outer *= params.dims()[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < prank; ++d) inner *= params.dims()[static_cast<size_t>(d)];
  for (int64_t d = batch_dims; d < irank; ++d) per_batch *= indices.dims()[static_cast<size_t>(d)];
  const T* src = Elements<T>(params);
  return Produce<T>(ctx, out_index, params.dtype(), out_dims, [&](T* out) {
    int64_t o = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < outer; ++r) {
        const T* row = src + ((b * outer + r) * limit) * inner;
        for (int64_t k = 0; k < per_batch; ++k) {
          const T* from = row + idx[static_cast<size_t>(b * per_batch + k)] * inner;
          std::copy_n(from, inner, out + o);
          o += inner;
        }
      }
    }
  });
}

}  // namespace graft::cpu
