// CPU kernels for network layers: BiasAdd and Softmax (NHWC / last-axis layouts), the softmax
// cross-entropy losses (dense and sparse labels) and L2Loss.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T>
class BiasAddKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string format;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "data_format", &format));
    nchw_ = format == "NCHW";
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (x.rank() < 2) return errors::InvalidArgument("input must be at least 2-D, got ", ShapeText(x.dims()));
    if (bias.rank() != 1) return errors::InvalidArgument("bias must be 1-D, got ", ShapeText(bias.dims()));
    int channel_dim = nchw_ ? 1 : x.rank() - 1;
    int64_t c = x.dim(channel_dim);
    if (bias.dim(0) != c) {
      return errors::InvalidArgument("bias of ", bias.dim(0), " elements does not match the ", c, " channels of ",
                                     ShapeText(x.dims()));
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out, 0));
    const T* px = x.data<T>();
    const T* pb = bias.data<T>();
    T* po = out->data<T>();
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < x.rank(); ++d) inner *= x.dim(d);
    int64_t outer = c == 0 || inner == 0 ? 0 : x.num_elements() / (c * inner);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const T bv = pb[ch];
        const int64_t base = (o * c + ch) * inner;
        for (int64_t i = 0; i < inner; ++i) po[base + i] = px[base + i] + bv;
      }
    }
    return Status::Ok();
  }

 private:
  bool nchw_ = false;
};

template <typename T>
class SoftmaxKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    log_ = node().type() == "LogSoftmax";
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 1) return errors::InvalidArgument("logits must have rank >= 1, got a scalar");
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out, 0));
    int64_t n = x.dim(x.rank() - 1);
    int64_t rows = n == 0 ? 0 : x.num_elements() / n;
    const T* px = x.data<T>();
    T* po = out->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = px + r * n;
      T* dst = po + r * n;
      T mx = *std::max_element(row, row + n);
      T sum = T(0);
      for (int64_t i = 0; i < n; ++i) sum += std::exp(row[i] - mx);
      if (log_) {
        T lse = std::log(sum);
        for (int64_t i = 0; i < n; ++i) dst[i] = row[i] - mx - lse;
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = std::exp(row[i] - mx) / sum;
      }
    }
    return Status::Ok();
  }

 private:
  bool log_ = false;
};

// Row r of logits: its softmax into p and its log-sum-exp (with the max subtracted: stable).
template <typename T>
T SoftmaxRow(const T* row, int64_t n, T* p) {
  T mx = n == 0 ? T(0) : *std::max_element(row, row + n);
  T sum = T(0);
  for (int64_t i = 0; i < n; ++i) {
    p[i] = std::exp(row[i] - mx);
    sum += p[i];
  }
  for (int64_t i = 0; i < n; ++i) p[i] /= sum;
  return mx + std::log(sum);
}

// SparseSoftmaxCrossEntropyWithLogits: loss[b] = logsumexp(x[b]) - x[b, label[b]], backprop =
// softmax(x) - onehot(label). A label outside [0, classes) is an error.
template <typename T, typename L>
class SparseSoftmaxCrossEntropyKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    if (x.rank() != 2) return errors::InvalidArgument("logits must be 2-D, got ", ShapeText(x.dims()));
    if (labels.rank() != 1 || labels.dim(0) != x.dim(0)) {
      return errors::InvalidArgument("labels must be 1-D with the logits' batch size ", x.dim(0), ", got ",
                                     ShapeText(labels.dims()));
    }
    const int64_t batch = x.dim(0), classes = x.dim(1);
    const L* pl = labels.data<L>();
    for (int64_t b = 0; b < batch; ++b) {
      if (pl[b] < 0 || pl[b] >= classes) {
        return errors::InvalidArgument("label ", static_cast<int64_t>(pl[b]), " at index ", b,
                                       " is outside the valid range [0, ", classes, ")");
      }
    }
    Tensor* loss = nullptr;
    Tensor* back = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), std::vector<int64_t>{batch}, &loss));
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, DTypeOf<T>(), x.dims(), &back));
    const T* px = x.data<T>();
    T* pb = back->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = px + b * classes;
      T lse = SoftmaxRow(row, classes, pb + b * classes);
      loss->data<T>()[b] = lse - row[pl[b]];
      pb[b * classes + pl[b]] -= T(1);
    }
    return Status::Ok();
  }
};

// The kernel for the node's label type (Tlabels: int32 or int64).
template <typename T>
KernelFactory SparseSoftmaxCrossEntropyFactory() {
  return [](const Node& n, std::unique_ptr<OpKernel>* out) -> Status {
    DType labels = DType::kInt64;
    GRAFT_RETURN_IF_ERROR(GetAttr(n, "Tlabels", &labels));
    if (labels == DType::kInt32) return CreateKernel<SparseSoftmaxCrossEntropyKernel<T, int32_t>>(n, out);
    return CreateKernel<SparseSoftmaxCrossEntropyKernel<T, int64_t>>(n, out);
  };
}

// SoftmaxCrossEntropyWithLogits: loss[b] = Σ labels · (logsumexp(x[b]) - x[b]), backprop =
// softmax(x) · Σ labels - labels; features and labels broadcast against each other.
template <typename T>
class SoftmaxCrossEntropyKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.rank() != 2 || y.rank() != 2) {
      return errors::InvalidArgument("logits and labels must be 2-D, got ", ShapeText(x.dims()), " and ",
                                     ShapeText(y.dims()));
    }
    int64_t dims[2];
    for (int i = 0; i < 2; ++i) {
      if (x.dim(i) != y.dim(i) && x.dim(i) != 1 && y.dim(i) != 1) {
        return errors::InvalidArgument("logits ", ShapeText(x.dims()), " and labels ", ShapeText(y.dims()),
                                       " are not broadcast-compatible");
      }
      dims[i] = x.dim(i) == 1 ? y.dim(i) : x.dim(i);
    }
    const int64_t batch = dims[0], classes = dims[1];
    Tensor* loss = nullptr;
    Tensor* back = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), std::vector<int64_t>{batch}, &loss));
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, DTypeOf<T>(), std::vector<int64_t>{batch, classes}, &back));
    // Element (b, c) of an operand, with size-1 axes broadcast.
    auto at = [](const Tensor& t, int64_t b, int64_t c) {
      return t.data<T>()[(t.dim(0) == 1 ? 0 : b) * t.dim(1) + (t.dim(1) == 1 ? 0 : c)];
    };
    std::vector<T> row(static_cast<size_t>(classes));
    T* pb = back->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < classes; ++c) row[static_cast<size_t>(c)] = at(x, b, c);
      T lse = SoftmaxRow(row.data(), classes, pb + b * classes);
      T l = T(0), total = T(0);
      for (int64_t c = 0; c < classes; ++c) {
        const T yc = at(y, b, c);
        l += yc * (lse - row[static_cast<size_t>(c)]);
        total += yc;
      }
      for (int64_t c = 0; c < classes; ++c) pb[b * classes + c] = pb[b * classes + c] * total - at(y, b, c);
      loss->data<T>()[b] = l;
    }
    return Status::Ok();
  }
};

// L2Loss: Σ x² / 2, accumulated in double.
template <typename T>
class L2LossKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), std::vector<int64_t>{}, &out));
    double sum = 0;
    const T* px = x.data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i) sum += static_cast<double>(px[i]) * static_cast<double>(px[i]);
    *out->data<T>() = static_cast<T>(sum / 2);
    return Status::Ok();
  }
};

}  // namespace

void RegisterNnKernels(KernelRegistry& r) {
  (void)r.Register("BiasAdd", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<BiasAddKernel<float>>);
  (void)r.Register("BiasAdd", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<BiasAddKernel<double>>);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    (void)r.Register(op, kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<SoftmaxKernel<float>>);
    (void)r.Register(op, kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<SoftmaxKernel<double>>);
  }
  (void)r.Register("SparseSoftmaxCrossEntropyWithLogits", kDeviceCpu, "T", {DType::kFloat32},
                   SparseSoftmaxCrossEntropyFactory<float>());
  (void)r.Register("SparseSoftmaxCrossEntropyWithLogits", kDeviceCpu, "T", {DType::kFloat64},
                   SparseSoftmaxCrossEntropyFactory<double>());
  (void)r.Register("SoftmaxCrossEntropyWithLogits", kDeviceCpu, "T", {DType::kFloat32},
                   &CreateKernel<SoftmaxCrossEntropyKernel<float>>);
  (void)r.Register("SoftmaxCrossEntropyWithLogits", kDeviceCpu, "T", {DType::kFloat64},
                   &CreateKernel<SoftmaxCrossEntropyKernel<double>>);
  (void)r.Register("L2Loss", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<L2LossKernel<float>>);
  (void)r.Register("L2Loss", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<L2LossKernel<double>>);
}

}  // namespace graft::cpu
