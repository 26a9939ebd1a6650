// CPU kernels of the whole-file ops: ReadFile (a file's bytes as a string scalar; SavedModels
// read their asset files this way) and WriteFile (creating the file's directory, as TensorFlow
// does). Errors name the file.
#include <string>

#include "core/checkpoint/file_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

Status FileName(const OpKernelContext& ctx, std::string* out) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return errors::InvalidArgument("filename must be a string scalar, but has shape ", t.shape().ToString());
  }
  *out = t.strings()[0];
  return Status::Ok();
}

class ReadFileKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::string path, contents;
    GRAFT_RETURN_IF_ERROR(FileName(ctx, &path));
    GRAFT_RETURN_IF_ERROR(checkpoint::ReadFileToString(path, &contents));
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings({}, {std::move(contents)}, &t));
    ctx.SetOutput(0, std::move(t));
    return Status::Ok();
  }
};

class WriteFileKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::string path;
    GRAFT_RETURN_IF_ERROR(FileName(ctx, &path));
    const Tensor& contents = ctx.input(1);
    if (contents.dtype() != DType::kString || contents.rank() != 0) {
      return errors::InvalidArgument("contents must be a string scalar, but has shape ", contents.shape().ToString());
    }
    const std::string dir = checkpoint::Dirname(path);
    if (!dir.empty()) GRAFT_RETURN_IF_ERROR(checkpoint::CreateDirs(dir));
    return checkpoint::WriteFileAtomically(path, contents.strings()[0]);
  }
};

}  // namespace

void RegisterFileKernels(KernelRegistry& r) {
  (void)r.Register("ReadFile", kDeviceCpu, "", {}, &CreateKernel<ReadFileKernel>);
  (void)r.Register("WriteFile", kDeviceCpu, "", {}, &CreateKernel<WriteFileKernel>);
}

}  // namespace graft::cpu
