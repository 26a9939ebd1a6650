// CPU kernels for matrix products: MatMul on OpenBLAS for float, double, complex64 and
// complex128 (transposes do not conjugate, as in TensorFlow's MatMul), a plain loop for the
// integer types.
#include <cblas.h>

#include <complex>

#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb), 0.0f,
                c, static_cast<int>(n));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb), 0.0, c,
                static_cast<int>(n));
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    const T one(1, 0), zero(0, 0);
    auto gemm = [&](auto fn) {
      fn(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
         static_cast<int>(n), static_cast<int>(k), &one, a, static_cast<int>(lda), b, static_cast<int>(ldb), &zero, c,
         static_cast<int>(n));
    };
    if constexpr (std::is_same_v<T, std::complex<float>>) {
      gemm(cblas_cgemm);
    } else {
      gemm(cblas_zgemm);
    }
  } else {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T acc = T(0);
        for (int64_t p = 0; p < k; ++p) {
          T x = ta ? a[p * lda + i] : a[i * lda + p];
          T y = tb ? b[j * ldb + p] : b[p * ldb + j];
          acc = WrapAdd(acc, WrapMul(x, y));  // integers wrap, as in TensorFlow
        }
        c[i * n + j] = acc;
      }
    }
  }
}

// MatMul, and Graft's fused _GraftFusedMatMul (a bias as input 2 and an "activation" attr:
// what the fusion rewrite, core/runtime/fusion.h, makes of MatMul + BiasAdd + activation).
template <typename T>
class MatMulKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool UsesAllCores() const override {
    if constexpr (!kBlasType<T>) {
      return false;
    } else {
      // m * n * k as far as shape inference knows them (unknown sizes count as 1).
      const PartialShape& a = InputShape(node(), 0);
      const double k = a.rank() == 2 && a.dim(ta_ ? 0 : 1) >= 0 ? static_cast<double>(a.dim(ta_ ? 0 : 1)) : 1.0;
      return BlasUsesThreads(KnownElements(node().output_shape(0)) * k);
    }
  }
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "transpose_a", &ta_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "transpose_b", &tb_));
    if constexpr (std::is_floating_point_v<T>) GRAFT_RETURN_IF_ERROR(fused_.Init(node(), "MatMul"));
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) {
      return errors::InvalidArgument("inputs must be matrices, got shapes ", ShapeText(a.dims()), " and ",
                                     ShapeText(b.dims()));
    }
    int64_t m = ta_ ? a.dim(1) : a.dim(0), k = ta_ ? a.dim(0) : a.dim(1);
    int64_t k2 = tb_ ? b.dim(1) : b.dim(0), n = tb_ ? b.dim(0) : b.dim(1);
    if (k != k2) {
      return errors::InvalidArgument("matrix size-incompatible: In[0]: ", ShapeText(a.dims()), ", In[1]: ",
                                     ShapeText(b.dims()));
    }
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return errors::InvalidArgument("matrix too large for BLAS");
    [[maybe_unused]] Epilogue<T> epilogue;
    if constexpr (std::is_floating_point_v<T>) GRAFT_RETURN_IF_ERROR(fused_.Make(ctx, 2, n, &epilogue));
    Tensor* out = nullptr;
    std::vector<int64_t> dims = {m, n};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    if (m == 0 || n == 0) return Status::Ok();
    if (k == 0) {
      std::fill(out->data<T>(), out->data<T>() + m * n, T(0));
    } else {
      Gemm<T>(ta_, tb_, m, n, k, a.data<T>(), a.dim(1), b.data<T>(), b.dim(1), out->data<T>());
    }
    if constexpr (std::is_floating_point_v<T>) epilogue.ApplyRows(out->data<T>(), m, n, n);
    return Status::Ok();
  }

 private:
  bool ta_ = false, tb_ = false;
  FusedEpilogue<T> fused_;  // float and double only
};

}  // namespace

void RegisterMatMulKernels(KernelRegistry& r) {
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<MatMulKernel<float>>);
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<MatMulKernel<double>>);
  (void)r.Register("_GraftFusedMatMul", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<MatMulKernel<float>>);
  (void)r.Register("_GraftFusedMatMul", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<MatMulKernel<double>>);
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kInt32}, &CreateKernel<MatMulKernel<int32_t>>);
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kInt64}, &CreateKernel<MatMulKernel<int64_t>>);
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kComplex64}, &CreateKernel<MatMulKernel<std::complex<float>>>);
  (void)r.Register("MatMul", kDeviceCpu, "T", {DType::kComplex128}, &CreateKernel<MatMulKernel<std::complex<double>>>);
}

}  // namespace graft::cpu
