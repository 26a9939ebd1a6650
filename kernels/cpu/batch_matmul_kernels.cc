// CPU kernel for BatchMatMulV2: a matrix product per batch entry, with numpy broadcasting
// of the batch dims and adj_x / adj_y (transpose, conjugated for complex). float, double,
// complex64 and complex128 run one OpenBLAS gemm per batch entry; the integer types a plain
// loop that wraps around on overflow.
#include <cblas.h>

#include <algorithm>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// One product c[m, n] = op(a) * op(b), where op transposes (and conjugates complex values)
// when adj is set; a is [m, k] ([k, m] when adjoint), b is [k, n] ([n, k]).
template <typename T>
void BatchGemm(bool adj_a, bool adj_b, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  const int lda = adj_a ? im : ik, ldb = adj_b ? ik : in;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, adj_a ? CblasTrans : CblasNoTrans, adj_b ? CblasTrans : CblasNoTrans, im, in, ik, 1.0f,
                a, lda, b, ldb, 0.0f, c, in);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, adj_a ? CblasTrans : CblasNoTrans, adj_b ? CblasTrans : CblasNoTrans, im, in, ik, 1.0, a,
                lda, b, ldb, 0.0, c, in);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    const std::complex<float> one(1, 0), zero(0, 0);
    cblas_cgemm(CblasRowMajor, adj_a ? CblasConjTrans : CblasNoTrans, adj_b ? CblasConjTrans : CblasNoTrans, im, in, ik,
                &one, a, lda, b, ldb, &zero, c, in);
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    const std::complex<double> one(1, 0), zero(0, 0);
    cblas_zgemm(CblasRowMajor, adj_a ? CblasConjTrans : CblasNoTrans, adj_b ? CblasConjTrans : CblasNoTrans, im, in, ik,
                &one, a, lda, b, ldb, &zero, c, in);
  } else {
    // Integers: products and sums in uint64_t arithmetic, which wraps, then the low bits.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        uint64_t acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T x = adj_a ? a[p * m + i] : a[i * k + p];
          const T y = adj_b ? b[j * k + p] : b[p * n + j];
          acc += static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
        }
        c[i * n + j] = static_cast<T>(acc);
      }
    }
  }
}

template <typename T>
class BatchMatMulKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool UsesAllCores() const override {
    if constexpr (!kBlasType<T>) {
      return false;
    } else {
      // One product per batch element: the largest is m * n * k of the sizes shape inference
      // knows (unknown sizes count as 1).
      const PartialShape& x = InputShape(node(), 0);
      const PartialShape& c = node().output_shape(0);
      const int xr = x.rank(), cr = c.rank();
      const int64_t k = xr >= 2 ? x.dim(xr - (adj_x_ ? 2 : 1)) : -1;
      if (cr < 2) return false;
      auto known = [](int64_t d) { return d < 0 ? 1.0 : static_cast<double>(d); };
      return BlasUsesThreads(known(c.dim(cr - 2)) * known(c.dim(cr - 1)) * known(k));
    }
  }
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "adj_x", &adj_x_));
    return GetAttr(node(), "adj_y", &adj_y_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.rank() < 2) return errors::InvalidArgument("In[0] ndims must be >= 2: ", x.rank());
    if (y.rank() < 2) return errors::InvalidArgument("In[1] ndims must be >= 2: ", y.rank());
    const std::vector<int64_t> xb(x.dims().begin(), x.dims().end() - 2), yb(y.dims().begin(), y.dims().end() - 2);
    Broadcast bc;
    if (!MakeBroadcast(xb, yb, &bc).ok()) {
      return errors::InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ", ShapeText(x.dims()),
                                     " vs. ", ShapeText(y.dims()));
    }
    const int64_t xr = x.dim(x.rank() - 2), xc = x.dim(x.rank() - 1);
    const int64_t yr = y.dim(y.rank() - 2), yc = y.dim(y.rank() - 1);
    const int64_t m = adj_x_ ? xc : xr, k = adj_x_ ? xr : xc;
    const int64_t k2 = adj_y_ ? yc : yr, n = adj_y_ ? yr : yc;
    if (k != k2) {
      return errors::InvalidArgument("Matrix size-incompatible: In[0]: ", ShapeText(x.dims()), ", In[1]: ",
                                     ShapeText(y.dims()));
    }
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) {
      return errors::InvalidArgument("BatchMatMulV2: matrices too large for BLAS");
    }
    std::vector<int64_t> out_dims = bc.out_dims;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), out_dims, &out));
    const int64_t batches = bc.out_elements;
    if (batches == 0 || m == 0 || n == 0) return Status::Ok();
    T* po = out->data<T>();
    if (k == 0) {
      std::fill(po, po + batches * m * n, T(0));
      return Status::Ok();
    }
    // The matrix of x and of y for each output batch entry, walking the broadcast batch dims
    // in row-major order (strides counted in matrices; 0 where a dim broadcasts).
    const int64_t x_size = xr * xc, y_size = yr * yc;
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    const size_t rank = bc.out_dims.size();
    std::vector<int64_t> idx(rank, 0);
    int64_t xo = 0, yo = 0;
    for (int64_t b = 0; b < batches; ++b) {
      BatchGemm<T>(adj_x_, adj_y_, m, n, k, px + xo * x_size, py + yo * y_size, po + b * m * n);
      for (size_t d = rank; d-- > 0;) {
        xo += bc.a_strides[d];
        yo += bc.b_strides[d];
        if (++idx[d] < bc.out_dims[d]) break;
        xo -= bc.a_strides[d] * bc.out_dims[d];
        yo -= bc.b_strides[d] * bc.out_dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

template <typename... Ts>
void RegisterBatchMatMul(KernelRegistry& r) {
  ((void)r.Register("BatchMatMulV2", kDeviceCpu, "T", {DTypeOf<Ts>()}, &CreateKernel<BatchMatMulKernel<Ts>>), ...);
}

}  // namespace

void RegisterBatchMatMulKernels(KernelRegistry& r) {
  RegisterBatchMatMul<float, double, std::complex<float>, std::complex<double>, int16_t, int32_t, int64_t, uint8_t,
                      uint16_t, uint32_t, uint64_t>(r);
}

}  // namespace graft::cpu
