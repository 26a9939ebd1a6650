// CPU kernels for the segment reductions: the unsorted ones (UnsortedSegmentSum, UnsortedSegmentProd,
// UnsortedSegmentMax, UnsortedSegmentMin) and the sorted ones (SegmentSum, SegmentMean,
// SegmentProd, SegmentMax, SegmentMin). Both fold rows with the same reduction functors.
//
// Unsorted:
// segment_ids has a prefix of data's shape; each of its entries names the output row (of
// num_segments) that the matching slice of data folds into. Negative ids drop their slice, as
// TensorFlow's CPU kernels do; an id >= num_segments is an error. A segment no id names holds
// the reduction's identity: 0, 1, the type's lowest value (Max) or highest (Min). Every id is
// checked before the output is allocated. This is also the dense form of a gather's gradient.
//
// Sorted: segment_ids is a vector as long as data's first dim, non-decreasing and >= 0; the
// output has last id + 1 rows. A segment no id names is 0 (1 for SegmentProd), not the
// reduction's identity: TensorFlow's sorted kernels differ from the unsorted ones there.
#include <algorithm>
#include <complex>
#include <limits>
#include <type_traits>

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

// A segment reduction's checked ids and output shape, worked out once for every instance of
// the kernels below: each instance keeps its fold loop.
struct SegmentPlan {
  Dims ids;
  Dims out_dims;
  int64_t n = 0;      // output rows
  int64_t inner = 1;  // elements per row
};

Status PlanUnsortedSegment(OpKernelContext& ctx, SegmentPlan* plan) {
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
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(ids_t, "segment_ids", &plan->ids));
  const Dims& ids = plan->ids;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= n) {
      return errors::InvalidArgument("segment_ids", IndexText(id, static_cast<int64_t>(i)), " = ", ids[i],
                                     " is out of range [0, ", n, ")");
    }
  }
  plan->n = n;
  plan->out_dims = {n};
  plan->out_dims.insert(plan->out_dims.end(), dd.begin() + static_cast<std::ptrdiff_t>(id.size()), dd.end());
  for (size_t d = id.size(); d < dd.size(); ++d) plan->inner *= dd[d];
  return Status::Ok();
}

template <typename T, template <typename> class R>
class UnsortedSegmentKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    SegmentPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanUnsortedSegment(ctx, &plan));
    const Tensor& data = ctx.input(0);
    const T* src = data.data<T>();
    return Produce<T>(ctx, 0, data.dtype(), plan.out_dims, [&](T* out) {
      const Dims& ids = plan.ids;
      const int64_t inner = plan.inner;
      std::fill_n(out, plan.n * inner, R<T>::Identity());
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;
        T* row = out + ids[i] * inner;
        const T* from = src + static_cast<int64_t>(i) * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] = R<T>::Fold(row[j], from[j]);
      }
    });
  }
};

// SegmentMean: the sum, divided by the row count afterwards (integers divide as integers).
template <typename T>
struct SegmentMean : SegmentSum<T> {
  static T Finish(T sum, int64_t rows) { return sum / static_cast<T>(rows); }
};

// Whether R has a Finish step (only SegmentMean).
template <typename R, typename = void>
struct HasFinish : std::false_type {};
template <typename R>
struct HasFinish<R, std::void_t<decltype(&R::Finish)>> : std::true_type {};

Status PlanSortedSegment(OpKernelContext& ctx, SegmentPlan* plan) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids_t = ctx.input(1);
  if (data.rank() < 1) return errors::InvalidArgument("input must be at least rank 1");
  if (ids_t.rank() != 1) return errors::InvalidArgument("segment_ids should be a vector.");
  const Dims& dd = data.dims();
  if (ids_t.dims()[0] != dd[0]) {
    return errors::InvalidArgument("segment_ids should be the same size as dimension 0 of input.");
  }
  GRAFT_RETURN_IF_ERROR(ReadIndexTensor(ids_t, "segment_ids", &plan->ids));
  const Dims& ids = plan->ids;
  const int64_t n = ids.empty() ? 0 : ids.back() + 1;
  if (n < 0) return errors::InvalidArgument("segment ids must be >= 0");
  // The order first, then the range, id by id (which error TensorFlow reports first).
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && ids[i + 1] < ids[i]) return errors::InvalidArgument("segment ids are not increasing");
    if (ids[i] < 0 || ids[i] >= n) {
      return errors::InvalidArgument("Segment id ", ids[i], " out of range [0, ", n,
                                     "), possibly because 'segment_ids' input is not sorted.");
    }
  }
  plan->n = n;
  plan->out_dims = dd;
  plan->out_dims[0] = n;
  for (size_t d = 1; d < dd.size(); ++d) plan->inner *= dd[d];
  return Status::Ok();
}

template <typename T, template <typename> class R>
class SortedSegmentKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    SegmentPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanSortedSegment(ctx, &plan));
    const Tensor& data = ctx.input(0);
    const T* src = data.data<T>();
    const T empty = std::is_same_v<R<T>, SegmentProd<T>> ? T(1) : T(0);
    return Produce<T>(ctx, 0, data.dtype(), plan.out_dims, [&](T* out) {
      const Dims& ids = plan.ids;
      const int64_t inner = plan.inner;
      std::fill_n(out, plan.n * inner, empty);
      // One run of equal ids at a time: its first row, folded with the rest.
      for (size_t i = 0; i < ids.size();) {
        size_t end = i + 1;
        while (end < ids.size() && ids[end] == ids[i]) ++end;
        T* row = out + ids[i] * inner;
        std::copy_n(src + static_cast<int64_t>(i) * inner, inner, row);
        for (size_t k = i + 1; k < end; ++k) {
          const T* from = src + static_cast<int64_t>(k) * inner;
          for (int64_t j = 0; j < inner; ++j) row[j] = R<T>::Fold(row[j], from[j]);
        }
        if constexpr (HasFinish<R<T>>::value) {
          for (int64_t j = 0; j < inner; ++j) row[j] = R<T>::Finish(row[j], static_cast<int64_t>(end - i));
        }
        i = end;
      }
    });
  }
};

template <template <typename> class R, typename... Ts>
void RegisterSegment(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, &CreateKernel<UnsortedSegmentKernel<Ts, R>>), ...);
}

template <template <typename> class R, typename... Ts>
void RegisterSortedSegment(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, &CreateKernel<SortedSegmentKernel<Ts, R>>), ...);
}


}  // namespace

void RegisterSegmentKernels(KernelRegistry& r) {
  RegisterSegment<SegmentSum, GRAFT_CPU_NUMBER_TYPES>(r, "UnsortedSegmentSum");
  RegisterSegment<SegmentProd, GRAFT_CPU_NUMBER_TYPES>(r, "UnsortedSegmentProd");
  RegisterSegment<SegmentMax, GRAFT_CPU_REAL_TYPES>(r, "UnsortedSegmentMax");
  RegisterSegment<SegmentMin, GRAFT_CPU_REAL_TYPES>(r, "UnsortedSegmentMin");
  RegisterSortedSegment<SegmentSum, GRAFT_CPU_NUMBER_TYPES>(r, "SegmentSum");
  RegisterSortedSegment<SegmentMean, GRAFT_CPU_NUMBER_TYPES>(r, "SegmentMean");
  RegisterSortedSegment<SegmentProd, GRAFT_CPU_NUMBER_TYPES>(r, "SegmentProd");
  RegisterSortedSegment<SegmentMax, GRAFT_CPU_REAL_TYPES>(r, "SegmentMax");
  RegisterSortedSegment<SegmentMin, GRAFT_CPU_REAL_TYPES>(r, "SegmentMin");
}

}  // namespace graft::cpu
