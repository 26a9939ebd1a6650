// MatMul and BatchMatMulV2 on the OpenCL device through CLBlast's GEMM (float32 and, where the
// device has cl_khr_fp64, float64). BatchMatMulV2 broadcasts its batch dims as TensorFlow's
// and runs one batched GEMM over the output's matrices. CLBlast compiles its kernels for the
// device on first use (the first MatMul of a process on a device is slow).
#include <clblast_c.h>

#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/opencl_device.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

Status BlasStatus(CLBlastStatusCode code, const std::string& what) {
  if (code == CLBlastSuccess) return Status::Ok();
  return errors::Internal("CLBlast: ", what, " failed with status ", static_cast<int>(code));
}

template <typename T>
Status Gemm(ClContext& cl, bool ta, bool tb, size_t m, size_t n, size_t k, cl_mem a, const std::vector<size_t>& ao,
            size_t lda, cl_mem b, const std::vector<size_t>& bo, size_t ldb, cl_mem c, const std::vector<size_t>& co,
            size_t ldc) {
  cl_command_queue q = cl.queue();
  const auto lay = CLBlastLayoutRowMajor;
  const auto ta_ = ta ? CLBlastTransposeYes : CLBlastTransposeNo, tb_ = tb ? CLBlastTransposeYes : CLBlastTransposeNo;
  auto lock = cl.Lock();
  if (ao.size() == 1) {
    if constexpr (std::is_same_v<T, float>) {
      return BlasStatus(CLBlastSgemm(lay, ta_, tb_, m, n, k, 1.0f, a, ao[0], lda, b, bo[0], ldb, 0.0f, c, co[0], ldc, &q,
                                     nullptr),
                        "Sgemm");
    } else {
      return BlasStatus(CLBlastDgemm(lay, ta_, tb_, m, n, k, 1.0, a, ao[0], lda, b, bo[0], ldb, 0.0, c, co[0], ldc, &q,
                                     nullptr),
                        "Dgemm");
    }
  }
  std::vector<T> alphas(ao.size(), T(1)), betas(ao.size(), T(0));
  if constexpr (std::is_same_v<T, float>) {
    return BlasStatus(CLBlastSgemmBatched(lay, ta_, tb_, m, n, k, alphas.data(), a, ao.data(), lda, b, bo.data(), ldb,
                                          betas.data(), c, co.data(), ldc, ao.size(), &q, nullptr),
                      "SgemmBatched");
  } else {
    return BlasStatus(CLBlastDgemmBatched(lay, ta_, tb_, m, n, k, alphas.data(), a, ao.data(), lda, b, bo.data(), ldb,
                                          betas.data(), c, co.data(), ldc, ao.size(), &q, nullptr),
                      "DgemmBatched");
  }
}

template <typename T>
class MatMulKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    batch_ = node().type() != "MatMul";
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), batch_ ? "adj_x" : "transpose_a", &ta_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), batch_ ? "adj_y" : "transpose_b", &tb_));
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const std::string& op = node().type();
    if (a.rank() < 2 || b.rank() < 2 || (!batch_ && (a.rank() != 2 || b.rank() != 2))) {
      return errors::InvalidArgument(op, ": inputs must be ", batch_ ? "at least 2-D" : "matrices", ", got ",
                                     cpu::ShapeText(a.dims()), " and ", cpu::ShapeText(b.dims()));
    }
    const int ra = a.rank(), rb = b.rank();
    const int64_t m = ta_ ? a.dim(ra - 1) : a.dim(ra - 2), ka = ta_ ? a.dim(ra - 2) : a.dim(ra - 1);
    const int64_t kb = tb_ ? b.dim(rb - 1) : b.dim(rb - 2), n = tb_ ? b.dim(rb - 2) : b.dim(rb - 1);
    if (ka != kb) {
      return errors::InvalidArgument(op, ": matrix size-incompatible: In[0]: ", cpu::ShapeText(a.dims()), ", In[1]: ",
                                     cpu::ShapeText(b.dims()));
    }
    // Batch dims, broadcast.
    std::vector<int64_t> abatch(a.dims().begin(), a.dims().end() - 2), bbatch(b.dims().begin(), b.dims().end() - 2);
    cpu::Broadcast bc;
    GRAFT_RETURN_IF_ERROR(cpu::MakeBroadcast(abatch, bbatch, &bc));
    std::vector<int64_t> out_dims = bc.out_dims;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, a.dtype(), out_dims, &out));
    const int64_t batches = bc.out_elements;
    if (batches == 0 || m == 0 || n == 0) return Status::Ok();
    cl_mem am = nullptr, bm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(a, "input 0", &am));
    GRAFT_RETURN_IF_ERROR(ClMem(b, "input 1", &bm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    if (ka == 0) {  // an empty sum: zeros
      const T zero = T(0);
      auto lock = device->cl().Lock();
      return ClStatus(clEnqueueFillBuffer(device->cl().queue(), om, &zero, sizeof zero, 0, out->byte_size(), 0,
                                          nullptr, nullptr),
                      "filling the output with zeros");
    }
    std::vector<size_t> ao, bo, co;
    const int64_t a_mat = a.dim(ra - 2) * a.dim(ra - 1), b_mat = b.dim(rb - 2) * b.dim(rb - 1);
    std::vector<int64_t> index(bc.out_dims.size(), 0);
    for (int64_t i = 0; i < batches; ++i) {
      int64_t ia = 0, ib = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        ia += index[d] * bc.a_strides[d];
        ib += index[d] * bc.b_strides[d];
      }
      ao.push_back(static_cast<size_t>(ia * a_mat));
      bo.push_back(static_cast<size_t>(ib * b_mat));
      co.push_back(static_cast<size_t>(i * m * n));
      for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < bc.out_dims[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
    return Gemm<T>(device->cl(), ta_, tb_, static_cast<size_t>(m), static_cast<size_t>(n), static_cast<size_t>(ka), am,
                   ao, static_cast<size_t>(a.dim(ra - 1)), bm, bo, static_cast<size_t>(b.dim(rb - 1)), om, co,
                   static_cast<size_t>(n))
        .WithContext(op);
  }

 private:
  bool batch_ = false, ta_ = false, tb_ = false;
};

}  // namespace

void RegisterMatMulKernels(KernelRegistry& r) {
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    for (const char* op : {"MatMul", "BatchMatMulV2", "BatchMatMul"}) {
      (void)r.Register(op, device, "T", {DType::kFloat32}, &CreateKernel<MatMulKernel<float>>);
      (void)r.Register(op, device, "T", {DType::kFloat64}, &CreateKernel<MatMulKernel<double>>);
    }
  }
}

}  // namespace graft::opencl
