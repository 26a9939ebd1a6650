// CPU kernels hashing strings into buckets, as TensorFlow's: StringToHashBucketFast
// (Fingerprint64, fingerprint64.h), StringToHashBucketStrong (SipHash-2-4 keyed by the `key`
// attr's two words, siphash.h) and the deprecated StringToHashBucket (Hash64, hash64.h). The
// bucket is the 64-bit hash modulo num_buckets (an op-def attr, >= 1); the output has the
// input's shape.
#include <string>
#include <vector>

#include "kernels/cpu/fingerprint64.h"
#include "kernels/cpu/hash64.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/siphash.h"

namespace graft::cpu {
namespace {

enum class HashKind { kFast, kStrong, kLegacy };

template <HashKind K>
class StringToHashBucketKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "num_buckets", &num_buckets_));
    if (num_buckets_ <= 0) return errors::InvalidArgument("num_buckets must be >= 1, got ", num_buckets_);
    if constexpr (K == HashKind::kStrong) {
      std::vector<int64_t> key;
      GRAFT_RETURN_IF_ERROR(GetAttr(node(), "key", &key));
      if (key.size() != 2) return errors::InvalidArgument("Key must have 2 elements, got ", key.size());
      k0_ = static_cast<uint64_t>(key[0]);
      k1_ = static_cast<uint64_t>(key[1]);
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt64, in.dims(), &out));
    const std::string* s = in.strings().data();
    int64_t* o = out->data<int64_t>();
    const auto buckets = static_cast<uint64_t>(num_buckets_);
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      uint64_t h;
      if constexpr (K == HashKind::kFast) {
        h = Fingerprint64(s[i]);
      } else if constexpr (K == HashKind::kStrong) {
        h = SipHash24(k0_, k1_, s[i]);
      } else {
        h = Hash64(s[i]);
      }
      o[i] = static_cast<int64_t>(h % buckets);
    }
    return Status::Ok();
  }

 private:
  int64_t num_buckets_ = 1;
  uint64_t k0_ = 0, k1_ = 0;
};

}  // namespace

void RegisterStringHashKernels(KernelRegistry& r) {
  (void)r.Register("StringToHashBucketFast", kDeviceCpu, "", {},
                   &CreateKernel<StringToHashBucketKernel<HashKind::kFast>>);
  (void)r.Register("StringToHashBucketStrong", kDeviceCpu, "", {},
                   &CreateKernel<StringToHashBucketKernel<HashKind::kStrong>>);
  (void)r.Register("StringToHashBucket", kDeviceCpu, "", {},
                   &CreateKernel<StringToHashBucketKernel<HashKind::kLegacy>>);
}

}  // namespace graft::cpu
