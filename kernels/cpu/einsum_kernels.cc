// CPU kernel for Einsum (float, double): any number of operands, contracted left to right two
// at a time. Each step lays both operands out as [batch, free, contracted] matrices with one
// strided pass (which also sums the labels only that operand has, takes diagonals of repeated
// labels and drops broadcast dims of size 1), multiplies them with one OpenBLAS gemm per batch
// entry, and the last step's result is transposed to the output's order (an output label
// given twice places it on that diagonal, zeros elsewhere, as TensorFlow's kernel inflates it).
// A single operand is one strided pass (transpose, sums, diagonals). Labels are
// einsum_equation.h's.
#include <cblas.h>

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>
#include <vector>

#include "core/einsum_equation.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// An operand: its values and one label per dim.
template <typename T>
struct Operand {
  std::vector<T> values;
  const T* data = nullptr;  // values.data(), or the input tensor's buffer
  std::vector<int> labels;
};

// out[out_labels] = Σ in[in_labels] over the labels of in that are not in out_labels (a label
// repeated in in walks its diagonal; one repeated in out_labels writes only its diagonal, the
// rest of out is 0). sizes has every label's size.
template <typename T>
void ReduceTranspose(const T* in, const std::vector<int>& in_labels, const std::vector<int>& out_labels,
                     const std::map<int, int64_t>& sizes, T* out) {
  // The loop labels: out's (once each), then the summed ones; each with its size and strides.
  std::vector<int> loop;
  for (const auto* labels : {&out_labels, &in_labels}) {
    for (int l : *labels) {
      if (std::find(loop.begin(), loop.end(), l) == loop.end()) loop.push_back(l);
    }
  }
  const size_t n = loop.size();
  std::vector<int64_t> dim(n), in_stride(n, 0), out_stride(n, 0);
  int64_t total = 1;
  for (size_t i = 0; i < n; ++i) {
    dim[i] = sizes.at(loop[i]);
    total *= dim[i];
  }
  // A label's stride is the sum of the strides of the dims it labels (a diagonal).
  auto index_of = [&loop](int l) { return static_cast<size_t>(std::find(loop.begin(), loop.end(), l) - loop.begin()); };
  int64_t stride = 1;
  for (size_t p = in_labels.size(); p-- > 0;) {
    in_stride[index_of(in_labels[p])] += stride;
    stride *= sizes.at(in_labels[p]);
  }
  int64_t out_size = 1;
  for (size_t p = out_labels.size(); p-- > 0;) {
    out_stride[index_of(out_labels[p])] += out_size;
    out_size *= sizes.at(out_labels[p]);
  }
  std::fill(out, out + out_size, T(0));
  if (total == 0) return;
  std::vector<int64_t> idx(n, 0);
  int64_t io = 0, oo = 0;
  for (int64_t e = 0; e < total; ++e) {
    out[oo] += in[io];
    for (size_t d = n; d-- > 0;) {
      io += in_stride[d];
      oo += out_stride[d];
      if (++idx[d] < dim[d]) break;
      io -= in_stride[d] * dim[d];
      oo -= out_stride[d] * dim[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void Gemm(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, 1.0f, a, ik, b, in, 0.0f, c, in);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, im, in, ik, 1.0, a, ik, b, in, 0.0, c, in);
  }
}

bool Has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// a · b summed over their shared labels that are not in keep; the result's labels are the
// batch labels (shared, kept), a's free labels, then b's (kept, in one operand only).
template <typename T>
Status Contract(const Operand<T>& a, const Operand<T>& b, const std::set<int>& keep,
                const std::map<int, int64_t>& sizes, Operand<T>* out) {
  std::vector<int> batch, contract, free_a, free_b;
  auto add = [](std::vector<int>& v, int l) {
    if (!Has(v, l)) v.push_back(l);
  };
  for (int l : a.labels) {
    const bool in_b = Has(b.labels, l), kept = keep.count(l) != 0;
    if (in_b && kept) add(batch, l);
    if (in_b && !kept) add(contract, l);
    if (!in_b && kept) add(free_a, l);
  }
  for (int l : b.labels) {
    if (!Has(a.labels, l) && keep.count(l) != 0) add(free_b, l);
  }
  auto product = [&sizes](const std::vector<int>& v) {
    int64_t p = 1;
    for (int l : v) p *= sizes.at(l);
    return p;
  };
  const int64_t nb = product(batch), m = product(free_a), k = product(contract), n = product(free_b);
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return errors::InvalidArgument("matrices too large for BLAS");
  std::vector<int> la = batch, lb = batch;
  la.insert(la.end(), free_a.begin(), free_a.end());
  la.insert(la.end(), contract.begin(), contract.end());
  lb.insert(lb.end(), contract.begin(), contract.end());
  lb.insert(lb.end(), free_b.begin(), free_b.end());
  std::vector<T> pa(static_cast<size_t>(nb * m * k)), pb(static_cast<size_t>(nb * k * n));
  ReduceTranspose(a.data, a.labels, la, sizes, pa.data());
  ReduceTranspose(b.data, b.labels, lb, sizes, pb.data());
  out->values.assign(static_cast<size_t>(nb * m * n), T(0));
  if (k > 0 && m > 0 && n > 0) {
    for (int64_t i = 0; i < nb; ++i) {
      Gemm<T>(m, n, k, pa.data() + i * m * k, pb.data() + i * k * n, out->values.data() + i * m * n);
    }
  }
  out->data = out->values.data();
  out->labels = batch;
  out->labels.insert(out->labels.end(), free_a.begin(), free_a.end());
  out->labels.insert(out->labels.end(), free_b.begin(), free_b.end());
  return Status::Ok();
}

template <typename T>
class EinsumKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool UsesAllCores() const override {
    // Only a product of two operands calls BLAS (one operand is a transpose or a sum): at least
    // one multiply-add per output element, as far as shape inference knows them.
    if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
      return false;
    } else {
      return node().num_inputs() == 2 && BlasUsesThreads(KnownElements(node().output_shape(0)));
    }
  }
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "equation", &equation_));
    return ParseEinsumEquation(equation_, node().num_inputs(), &eq_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const int num = ctx.num_inputs();
    std::vector<int> ranks;
    std::vector<std::vector<int64_t>> dims;
    for (int i = 0; i < num; ++i) {
      ranks.push_back(ctx.input(i).rank());
      dims.emplace_back(ctx.input(i).dims().begin(), ctx.input(i).dims().end());
    }
    std::vector<std::vector<int>> labels;
    std::vector<int> out_labels;
    GRAFT_RETURN_IF_ERROR(ExpandEinsumEllipsis(eq_, ranks, &labels, &out_labels).WithContext(equation_));
    std::map<int, int64_t> sizes;
    GRAFT_RETURN_IF_ERROR(EinsumLabelSizes(labels, dims, &sizes).WithContext(equation_));
    // A broadcast dim of size 1 where the label is wider gets a label of its own (summed away).
    int fresh = kEinsumEllipsisBase * 2;
    for (int i = 0; i < num; ++i) {
      auto& ls = labels[static_cast<size_t>(i)];
      for (size_t p = 0; p < ls.size(); ++p) {
        if (ls[p] >= kEinsumEllipsisBase && dims[static_cast<size_t>(i)][p] == 1 && sizes.at(ls[p]) != 1) {
          ls[p] = fresh;
          sizes[fresh++] = 1;
        }
      }
    }
    std::vector<int64_t> out_dims;
    for (int l : out_labels) out_dims.push_back(sizes.at(l));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), out_dims, &out));
    Operand<T> acc;
    acc.data = ctx.input(0).template data<T>();
    acc.labels = labels[0];
    for (int i = 1; i < num; ++i) {
      // Keep the labels the output or a later operand needs.
      std::set<int> keep(out_labels.begin(), out_labels.end());
      for (int j = i + 1; j < num; ++j) keep.insert(labels[static_cast<size_t>(j)].begin(), labels[static_cast<size_t>(j)].end());
      Operand<T> next;
      next.data = ctx.input(i).template data<T>();
      next.labels = labels[static_cast<size_t>(i)];
      Operand<T> result;
      GRAFT_RETURN_IF_ERROR(Contract(acc, next, keep, sizes, &result));
      acc = std::move(result);
      acc.data = acc.values.data();
    }
    ReduceTranspose(acc.data, acc.labels, out_labels, sizes, out->data<T>());
    return Status::Ok();
  }

 private:
  std::string equation_;
  EinsumEquation eq_;
};

}  // namespace

void RegisterEinsumKernels(KernelRegistry& r) { RegisterTypes<EinsumKernel, float, double>(r, "Einsum"); }

}  // namespace graft::cpu
