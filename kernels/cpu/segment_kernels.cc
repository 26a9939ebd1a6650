// CPU kernels for the unsorted segment reductions: UnsortedSegmentSum, UnsortedSegmentProd,
// UnsortedSegmentMax and UnsortedSegmentMin.
//
// segment_ids has a prefix of data's shape; each of its entries names the output row (of
// num_segments) that the matching slice of data folds into. Negative ids drop their slice, as
// TensorFlow's CPU kernels do; an id >= num_segments is an error. A segment no id names holds
// the reduction's identity: 0, 1, the type's lowest value (Max) or highest (Min). Every id is
// checked before the output is allocated. This is also the dense form of a gather's gradient.
#include <algorithm>
#include <complex>
#include <limits>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T>
struct SegmentSum {
  static T Identity() { return T(0); }
  static T Fold(T a, T b) { return WrapAdd(a, b); }
};
template <typename T>
struct SegmentProd {
  static T Identity() { return T(1); }
  static T Fold(T a, T b) { return WrapMul(a, b); }
};
template <typename T>
struct SegmentMax {
  static T Identity() { return std::numeric_limits<T>::lowest(); }
  static T Fold(T a, T b) { return b > a ? b : a; }
};
template <typename T>
struct SegmentMin {
  static T Identity() { return std::numeric_limits<T>::max(); }
  static T Fold(T a, T b) { return b < a ? b : a; }
};

template <typename T, template <typename> class R>
class UnsortedSegmentKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& ids_t = ctx.input(1);
    const Tensor& num_t = ctx.input(2);
    if (num_t.rank() != 0) {
      return errors::InvalidArgument("num_segments must be a scalar, got shape ", ShapeText(num_t.dims()));
    }
    Dims num;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(num_t, "num_segments", &num));
    const int64_t n = num[0];
    if (n < 0) return errors::InvalidArgument("num_segments must be >= 0, got ", n);
    const Dims& dd = data.dims();
    const Dims& id = ids_t.dims();
    if (id.size() > dd.size() || !std::equal(id.begin(), id.end(), dd.begin())) {
      return errors::InvalidArgument("segment_ids shape ", ShapeText(id), " must be a prefix of data shape ",
                                     ShapeText(dd));
    }
    Dims ids;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(ids_t, "segment_ids", &ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= n) {
        return errors::InvalidArgument("segment_ids", IndexText(id, static_cast<int64_t>(i)), " = ", ids[i],
                                       " is out of range [0, ", n, ")");
      }
    }
    Dims out_dims{n};
    out_dims.insert(out_dims.end(), dd.begin() + static_cast<std::ptrdiff_t>(id.size()), dd.end());
    int64_t inner = 1;
    for (size_t d = id.size(); d < dd.size(); ++d) inner *= dd[d];
    const T* src = data.data<T>();
    return Produce<T>(ctx, 0, data.dtype(), out_dims, [&](T* out) {
      std::fill_n(out, n * inner, R<T>::Identity());
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;
        T* row = out + ids[i] * inner;
        const T* from = src + static_cast<int64_t>(i) * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] = R<T>::Fold(row[j], from[j]);
      }
    });
  }
};

template <template <typename> class R, typename... Ts>
void RegisterSegment(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, MakeFactory<UnsortedSegmentKernel<Ts, R>>()), ...);
}


}  // namespace

void RegisterSegmentKernels(KernelRegistry& r) {
  RegisterSegment<SegmentSum, GRAFT_CPU_NUMBER_TYPES>(r, "UnsortedSegmentSum");
  RegisterSegment<SegmentProd, GRAFT_CPU_NUMBER_TYPES>(r, "UnsortedSegmentProd");
  RegisterSegment<SegmentMax, GRAFT_CPU_REAL_TYPES>(r, "UnsortedSegmentMax");
  RegisterSegment<SegmentMin, GRAFT_CPU_REAL_TYPES>(r, "UnsortedSegmentMin");
}

}  // namespace graft::cpu
