// CPU kernels for SpaceToBatchND and BatchToSpaceND, which TensorFlow's convolutions with a
// dilation rate > 1 are built from (tf.nn.convolution / atrous conv: SpaceToBatchND, the
// plain convolution, BatchToSpaceND), as Keras' dilated Conv1D/Conv2D emit them.
//
// The input is [batch] + spatial (M dims, M the length of block_shape) + remaining dims.
// SpaceToBatchND zero-pads the spatial dims by paddings ([M, 2]) and moves each offset within
// a block into the batch: output [batch * prod(block)] + padded / block + remaining, where
// output batch index (k * batch + n) holds, at spatial position o, the padded input's
// element (n, o * block + k), k the block offset in row-major order. BatchToSpaceND is its
// inverse, cropping crops ([M, 2]) from the result. The remaining dims move as contiguous
// rows. Errors are TensorFlow's.
#include <string>
#include <vector>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

struct SpaceBatchArgs {
  int64_t m = 0;          // spatial dims
  Dims block;             // [m]
  Dims lo, hi;            // paddings or crops, [m] each
  int64_t block_prod = 1;
  int64_t row = 1;        // elements of the remaining dims
};

Status ReadSpaceBatchArgs(const Tensor& in, const Tensor& block_t, const Tensor& pads_t, bool to_batch,
                          SpaceBatchArgs* a) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  if (block_t.rank() != 1) {
    return errors::InvalidArgument("block_shape rank should be 1 instead of ", block_t.rank());
  }
  a->m = block_t.num_elements();
  if (in.rank() < 1 + a->m) {
    return errors::InvalidArgument("input rank should be >= ", 1 + a->m, " instead of ", in.rank());
  }
  if (pads_t.rank() != 2 || pads_t.dim(0) != a->m || pads_t.dim(1) != 2) {
    return errors::InvalidArgument(pads_name, " should have shape [", a->m, ", 2] instead of ", ShapeText(pads_t.dims()));
  }
  Dims pads;
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(block_t, "block_shape", &a->block));
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(pads_t, pads_name, &pads));
  a->lo.resize(static_cast<size_t>(a->m));
  a->hi.resize(static_cast<size_t>(a->m));
  for (int64_t i = 0; i < a->m; ++i) {
    const int64_t b = a->block[static_cast<size_t>(i)];
    if (b < 1) {
      return errors::InvalidArgument("All values in block_shape must be positive, got value, ", b, " at index ", i, ".");
    }
    if (__builtin_mul_overflow(a->block_prod, b, &a->block_prod)) {
      return errors::InvalidArgument("block_shape product overflows");
    }
    a->lo[static_cast<size_t>(i)] = pads[static_cast<size_t>(2 * i)];
    a->hi[static_cast<size_t>(i)] = pads[static_cast<size_t>(2 * i + 1)];
    if (a->lo[static_cast<size_t>(i)] < 0 || a->hi[static_cast<size_t>(i)] < 0) {
      return errors::InvalidArgument(to_batch ? "Paddings must be non-negative" : "Crops must be non-negative");
    }
  }
  for (int64_t d = 1 + a->m; d < in.rank(); ++d) a->row *= in.dim(static_cast<int>(d));
  return Status::Ok();
}

// The block offsets k (row-major over the block) of block index blk.
inline void BlockOffsets(int64_t blk, const Dims& block, Dims* k) {
  for (size_t i = block.size(); i-- > 0;) {
    (*k)[i] = blk % block[i];
    blk /= block[i];
  }
}

template <typename T>
class SpaceToBatchNDKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    SpaceBatchArgs a;
    GRAFT_RETURN_IF_ERROR(ReadSpaceBatchArgs(in, ctx.input(1), ctx.input(2), true, &a));
    const size_t m = static_cast<size_t>(a.m);
    const Dims& in_dims = in.dims();
    Dims out_dims = in_dims;
    if (__builtin_mul_overflow(in_dims[0], a.block_prod, &out_dims[0])) {
      return errors::InvalidArgument("output batch size overflows");
    }
    for (size_t i = 0; i < m; ++i) {
      const int64_t padded = in_dims[1 + i] + a.lo[i] + a.hi[i];
      if (padded % a.block[i] != 0) {
        return errors::InvalidArgument("padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i,
                                       "]=", a.block[i]);
      }
      out_dims[1 + i] = padded / a.block[i];
    }
    const Dims in_strides = RowMajorStrides(in_dims);
    const int64_t batch = in_dims[0];
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), out_dims, [&](T* out) {
      int64_t spatial = 1;
      for (size_t i = 0; i < m; ++i) spatial *= out_dims[1 + i];
      Dims k(m), o(m);
      int64_t w = 0;
      for (int64_t ob = 0; ob < out_dims[0]; ++ob) {
        const int64_t n = ob % batch;
        BlockOffsets(ob / batch, a.block, &k);
        std::fill(o.begin(), o.end(), 0);
        for (int64_t s = 0; s < spatial; ++s, w += a.row) {
          int64_t off = n * in_strides[0];
          bool inside = true;
          for (size_t i = 0; i < m; ++i) {
            const int64_t p = o[i] * a.block[i] + k[i] - a.lo[i];
            if (p < 0 || p >= in_dims[1 + i]) {
              inside = false;
              break;
            }
            off += p * in_strides[1 + i];
          }
          if (inside) {
            std::copy_n(src + off, a.row, out + w);
          } else {
            std::fill_n(out + w, a.row, T{});
          }
          for (size_t i = m; i-- > 0;) {
            if (++o[i] < out_dims[1 + i]) break;
            o[i] = 0;
          }
        }
      }
    });
  }
};

template <typename T>
class BatchToSpaceNDKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    SpaceBatchArgs a;
    GRAFT_RETURN_IF_ERROR(ReadSpaceBatchArgs(in, ctx.input(1), ctx.input(2), false, &a));
    const size_t m = static_cast<size_t>(a.m);
    const Dims& in_dims = in.dims();
    if (in_dims[0] % a.block_prod != 0) {
      return errors::InvalidArgument("Input batch dimension (", in_dims[0],
                                     ") is not divisible by product of block sizes (", a.block_prod, ")");
    }
    Dims out_dims = in_dims;
    const int64_t batch = in_dims[0] / a.block_prod;
    out_dims[0] = batch;
    for (size_t i = 0; i < m; ++i) {
      int64_t full = 0;
      if (__builtin_mul_overflow(in_dims[1 + i], a.block[i], &full)) {
        return errors::InvalidArgument("output spatial size overflows");
      }
      const int64_t cropped = full - a.lo[i] - a.hi[i];
      if (cropped < 0) {
        return errors::InvalidArgument("cropped_shape[", i, "]=", cropped, " must be non-negative");
      }
      out_dims[1 + i] = cropped;
    }
    const Dims in_strides = RowMajorStrides(in_dims);
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), out_dims, [&](T* out) {
      int64_t spatial = 1;
      for (size_t i = 0; i < m; ++i) spatial *= out_dims[1 + i];
      Dims q(m);
      int64_t w = 0;
      for (int64_t n = 0; n < batch; ++n) {
        std::fill(q.begin(), q.end(), 0);
        for (int64_t s = 0; s < spatial; ++s, w += a.row) {
          int64_t blk = 0, off = 0;
          for (size_t i = 0; i < m; ++i) {
            const int64_t p = q[i] + a.lo[i];
            blk = blk * a.block[i] + p % a.block[i];
            off += (p / a.block[i]) * in_strides[1 + i];
          }
          off += (blk * batch + n) * in_strides[0];
          std::copy_n(src + off, a.row, out + w);
          for (size_t i = m; i-- > 0;) {
            if (++q[i] < out_dims[1 + i]) break;
            q[i] = 0;
          }
        }
      }
    });
  }
};

}  // namespace

void RegisterSpaceBatchKernels(KernelRegistry& r) {
  RegisterAllTypes<SpaceToBatchNDKernel>(r, "SpaceToBatchND");
  RegisterAllTypes<BatchToSpaceNDKernel>(r, "BatchToSpaceND");
}

}  // namespace graft::cpu
