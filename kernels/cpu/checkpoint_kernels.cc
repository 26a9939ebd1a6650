// CPU kernels of the saver graph: SaveV2, RestoreV2 and MergeV2Checkpoints (TensorFlow's
// tensor-bundle checkpoints, core/checkpoint/), and the string ops that build checkpoint
// paths: ShardedFilename and ShardedFilespec (StringJoin is in string_kernels.cc,
// StaticRegexFullMatch in regex_kernels.cc). Also
// DisableCopyOnRead, which TensorFlow 2 savers emit before reading each variable (a no-op
// here: reads never copy on read).
#include <cstdio>
#include <string>
#include <vector>

#include "core/checkpoint/bundle_merge.h"
#include "core/checkpoint/file_util.h"
#include "core/checkpoint/tensor_bundle_reader.h"
#include "core/checkpoint/tensor_bundle_writer.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// The single string of a scalar (or one-element) string input.
Status ScalarString(const OpKernelContext& ctx, int i, const char* what, std::string* out) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.num_elements() != 1) {
    return errors::InvalidArgument(what, " must be a single string, but has shape ", t.shape().ToString());
  }
  *out = t.strings()[0];
  return Status::Ok();
}

Status ScalarInt32(const OpKernelContext& ctx, int i, const char* what, int32_t* out) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 || t.rank() != 0) {
    return errors::InvalidArgument(what, " must be an int32 scalar, but has shape ", t.shape().ToString());
  }
  *out = t.data<int32_t>()[0];
  return Status::Ok();
}

Status StringOutput(OpKernelContext& ctx, int i, std::vector<int64_t> dims, std::vector<std::string> strings) {
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(strings), &t));
  ctx.SetOutput(i, std::move(t));
  return Status::Ok();
}

// The tensor names and slice specs of SaveV2/RestoreV2 (inputs 1 and 2), n of each; only
// whole tensors (empty slice specs) are supported.
Status NamesAndSlices(const OpKernelContext& ctx, size_t n, std::vector<std::string>* names) {
  const Tensor& names_t = ctx.input(1);
  const Tensor& slices_t = ctx.input(2);
  if (names_t.rank() != 1 || slices_t.rank() != 1) {
    return errors::InvalidArgument("tensor_names and shape_and_slices must be vectors, but have shapes ",
                                   names_t.shape().ToString(), " and ", slices_t.shape().ToString());
  }
  const std::vector<std::string>& slices = slices_t.strings();
  *names = names_t.strings();
  if (names->size() != n || slices.size() != n) {
    return errors::InvalidArgument("tensor_names has ", names->size(), " and shape_and_slices ", slices.size(),
                                   " elements, but there are ", n, " tensors");
  }
  for (size_t i = 0; i < n; ++i) {
    if (!slices[i].empty()) {
      return errors::Unimplemented("tensor '", (*names)[i], "' has the slice spec '", slices[i],
                                   "': partitioned (sliced) checkpoint tensors are not supported");
    }
  }
  return Status::Ok();
}

class RestoreV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "dtypes", &dtypes_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::string prefix;
    GRAFT_RETURN_IF_ERROR(ScalarString(ctx, 0, "prefix", &prefix));
    std::vector<std::string> names;
    GRAFT_RETURN_IF_ERROR(NamesAndSlices(ctx, dtypes_.size(), &names));
    std::unique_ptr<checkpoint::TensorBundleReader> reader;
    GRAFT_RETURN_IF_ERROR(checkpoint::TensorBundleReader::Open(prefix, &reader));
    for (size_t i = 0; i < names.size(); ++i) {
      Tensor t;
      GRAFT_RETURN_IF_ERROR(reader->ReadChecked(names[i], dtypes_[i], nullptr, &t));
      ctx.SetOutput(static_cast<int>(i), std::move(t));
    }
    return Status::Ok();
  }

 private:
  std::vector<DType> dtypes_;
};

class SaveV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::string prefix;
    GRAFT_RETURN_IF_ERROR(ScalarString(ctx, 0, "prefix", &prefix));
    const size_t n = static_cast<size_t>(ctx.num_inputs() - 3);
    std::vector<std::string> names;
    GRAFT_RETURN_IF_ERROR(NamesAndSlices(ctx, n, &names));
    checkpoint::TensorBundleWriter writer(prefix);
    for (size_t i = 0; i < n; ++i) GRAFT_RETURN_IF_ERROR(writer.Add(names[i], ctx.input(static_cast<int>(i) + 3)));
    return writer.Finish();
  }
};

class MergeV2CheckpointsKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "delete_old_dirs", &delete_old_dirs_));
    return GetAttr(node(), "allow_missing_files", &allow_missing_files_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& prefixes_t = ctx.input(0);
    if (prefixes_t.rank() != 1) {
      return errors::InvalidArgument("checkpoint_prefixes must be a vector, but has shape ",
                                     prefixes_t.shape().ToString());
    }
    std::string dest;
    GRAFT_RETURN_IF_ERROR(ScalarString(ctx, 1, "destination_prefix", &dest));
    const std::vector<std::string>& prefixes = prefixes_t.strings();
    GRAFT_RETURN_IF_ERROR(checkpoint::MergeBundles(prefixes, dest, allow_missing_files_));
    if (delete_old_dirs_) {
      // The per-shard directories (such as <prefix>_temp/) are removed once empty; one that
      // still holds other files stays, as does the destination's own directory.
      const std::string dest_dir = checkpoint::Dirname(dest);
      for (const std::string& p : prefixes) {
        const std::string dir = checkpoint::Dirname(p);
        if (dir != dest_dir) (void)checkpoint::RemoveEmptyDir(dir);
      }
    }
    return Status::Ok();
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

class ShardedFilenameKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    std::string base;
    int32_t shard = 0, num_shards = 0;
    GRAFT_RETURN_IF_ERROR(ScalarString(ctx, 0, "basename", &base));
    GRAFT_RETURN_IF_ERROR(ScalarInt32(ctx, 1, "shard", &shard));
    GRAFT_RETURN_IF_ERROR(ScalarInt32(ctx, 2, "num_shards", &num_shards));
    char suffix[40];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d", static_cast<int>(shard), static_cast<int>(num_shards));
    base.append(suffix);
    return StringOutput(ctx, 0, {}, {std::move(base)});
  }
};

class ShardedFilespecKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    std::string base;
    int32_t num_shards = 0;
    GRAFT_RETURN_IF_ERROR(ScalarString(ctx, 0, "basename", &base));
    GRAFT_RETURN_IF_ERROR(ScalarInt32(ctx, 1, "num_shards", &num_shards));
    char suffix[40];
    std::snprintf(suffix, sizeof suffix, "-\?\?\?\?\?-of-%05d", static_cast<int>(num_shards));
    base.append(suffix);
    return StringOutput(ctx, 0, {}, {std::move(base)});
  }
};

class DisableCopyOnReadKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext&) const override { return Status::Ok(); }
};

}  // namespace

void RegisterCheckpointKernels(KernelRegistry& r) {
  (void)r.Register("RestoreV2", kDeviceCpu, "", {}, &CreateKernel<RestoreV2Kernel>);
  (void)r.Register("SaveV2", kDeviceCpu, "", {}, &CreateKernel<SaveV2Kernel>);
  (void)r.Register("MergeV2Checkpoints", kDeviceCpu, "", {}, &CreateKernel<MergeV2CheckpointsKernel>);
  (void)r.Register("ShardedFilename", kDeviceCpu, "", {}, &CreateKernel<ShardedFilenameKernel>);
  (void)r.Register("ShardedFilespec", kDeviceCpu, "", {}, &CreateKernel<ShardedFilespecKernel>);
  (void)r.Register("DisableCopyOnRead", kDeviceCpu, "", {}, &CreateKernel<DisableCopyOnReadKernel>);
}

}  // namespace graft::cpu
