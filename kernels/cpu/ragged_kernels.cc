// CPU kernels of ragged tensors' ops, as TensorFlow's:
//
// RaggedTensorToTensor: a ragged tensor (flat values and row partitions, outermost first) as a
// dense tensor padded with default_value (broadcast to the values' inner shape). The partitions
// are "ROW_SPLITS" at every level, or "FIRST_DIM_SIZE" (the row count, a scalar) followed by
// "VALUE_ROWIDS" (each value's row, sorted); a level may mix ROW_SPLITS and VALUE_ROWIDS. The
// output's shape is `shape` where it is given (a scalar or -1 entries: unknown), else the row
// count and each ragged level's longest row; rows and values beyond it are dropped.
//
// RaggedBincount: counts (or weights summed, or 1 with binary_output) of each value of each row
// of a ragged matrix (int64 row splits and values), [rows, size]; values >= size are dropped.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// An int32 or int64 tensor's elements as int64.
std::vector<int64_t> Int64s(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt32) {
    std::copy_n(t.data<int32_t>(), v.size(), v.begin());
  } else {
    std::copy_n(t.data<int64_t>(), v.size(), v.begin());
  }
  return v;
}

// A shape as TensorFlow prints it in these messages: [?,?,3].
std::string ShapeWithUnknowns(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

enum class Partition { kRowSplits, kValueRowIds, kFirstDimSize };

class RaggedTensorToTensorKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::vector<std::string> types;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "row_partition_types", &types));
    if (types.empty()) return errors::InvalidArgument("No row_partition_types given.");
    for (size_t i = 0; i < types.size(); ++i) {
      const std::string& t = types[i];
      if (t == "ROW_SPLITS") {
        types_.push_back(Partition::kRowSplits);
      } else if (t == "VALUE_ROWIDS") {
        if (i == 0) return errors::InvalidArgument("Cannot handle VALUE_ROWIDS in first dimension.");
        types_.push_back(Partition::kValueRowIds);
      } else if (t == "FIRST_DIM_SIZE") {
        if (i != 0) return errors::InvalidArgument("FIRST_DIM_SIZE must be the first row partition type");
        types_.push_back(Partition::kFirstDimSize);
      } else {
        return errors::InvalidArgument("Unknown string for partition info type: ", t);
      }
    }
    if (types_[0] == Partition::kFirstDimSize && types_.size() < 2) {
      return errors::InvalidArgument("FIRST_DIM_SIZE must be followed by a VALUE_ROWIDS partition");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& shape_t = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& default_value = ctx.input(2);
    const int num_partitions = ctx.num_inputs() - 3;
    if (num_partitions != static_cast<int>(types_.size())) {
      return errors::InvalidArgument("row_partition_types has ", types_.size(), " entries, but there are ",
                                     num_partitions, " row partition tensors");
    }
    if (values.rank() < 1) return errors::InvalidArgument("values must have rank >= 1, got a scalar");
    const bool first_dim_size = types_[0] == Partition::kFirstDimSize;
    const int ragged_rank = num_partitions - (first_dim_size ? 1 : 0);
    const int out_rank = ragged_rank + values.rank();
    const std::vector<int64_t>& vdims = values.dims();

    // default_value: broadcast to the values' inner shape.
    if (default_value.rank() >= values.rank()) {
      return errors::InvalidArgument("default_value.shape=", ShapeText(default_value.dims()),
                                     " and rt_input.flat_values.shape=", ShapeText(vdims),
                                     " are incompatible: default_value.rank = ", default_value.rank(),
                                     "  must be less than rt_input.flat_values.rank = ", values.rank());
    }
    const std::vector<int64_t> inner(vdims.begin() + 1, vdims.end());
    for (int i = 0; i < default_value.rank(); ++i) {
      const int64_t d = default_value.dim(default_value.rank() - 1 - i);
      const int64_t v = inner[inner.size() - 1 - static_cast<size_t>(i)];
      if (d != 1 && d != v) {
        return errors::InvalidArgument("default_value.shape=", ShapeText(default_value.dims()),
                                       " and rt_input.flat_values.shape=", ShapeText(vdims),
                                       " are incompatible: default_value can not be broadcast to the values' inner "
                                       "shape ", ShapeText(inner));
      }
    }

    // The requested shape: -1 (or a scalar) where unknown.
    std::vector<int64_t> dims(static_cast<size_t>(out_rank), -1);
    if (shape_t.rank() > 1) return errors::InvalidArgument("shape must be a scalar or a vector, got shape ", ShapeText(shape_t.dims()));
    if (shape_t.rank() == 1) {
      const std::vector<int64_t> given = Int64s(shape_t);
      if (static_cast<int>(given.size()) != out_rank) {
        return errors::InvalidArgument("rt_input.shape and shape=", ShapeWithUnknowns(given),
                                       " are incompatible: rt_input.rank = ", out_rank,
                                       " but shape.rank = ", given.size());
      }
      for (int64_t d : given) {
        if (d < -1) return errors::InvalidArgument("Dimension ", d, " must be >= -1");
      }
      for (int i = ragged_rank + 1; i < out_rank; ++i) {
        const int64_t v = vdims[static_cast<size_t>(i - ragged_rank)];
        if (given[static_cast<size_t>(i)] != -1 && given[static_cast<size_t>(i)] != v) {
          return errors::InvalidArgument("rt_input.shape and shape=", ShapeWithUnknowns(given),
                                         " are incompatible: rt_input.shape[", i, "] = ", v, " but shape[", i,
                                         "] = ", given[static_cast<size_t>(i)]);
        }
      }
      dims = given;
    }

    // The partitions, outermost first, and the row count.
    std::vector<std::vector<int64_t>> parts;
    for (int p = first_dim_size ? 1 : 0; p < num_partitions; ++p) parts.push_back(Int64s(ctx.input(3 + p)));
    int64_t nrows;
    if (first_dim_size) {
      const Tensor& t = ctx.input(3);
      if (t.num_elements() != 1) return errors::InvalidArgument("FIRST_DIM_SIZE must be a scalar, got shape ", ShapeText(t.dims()));
      nrows = Int64s(t)[0];
      if (nrows < 0) return errors::InvalidArgument("Dimension ", nrows, " must be >= 0");
    } else {
      if (parts[0].empty()) {
        return errors::InvalidArgument("Invalid first partition input. Tensor requires at least one element.");
      }
      nrows = static_cast<int64_t>(parts[0].size()) - 1;
    }
    if (dims[0] == -1) dims[0] = nrows;
    for (int k = 0; k < ragged_rank; ++k) {
      if (dims[static_cast<size_t>(k + 1)] != -1) continue;
      const std::vector<int64_t>& t = parts[static_cast<size_t>(k)];
      const bool splits = types_[static_cast<size_t>(k + (first_dim_size ? 1 : 0))] == Partition::kRowSplits;
      int64_t widest = 0;
      if (splits) {
        for (size_t i = 0; i + 1 < t.size(); ++i) widest = std::max(widest, t[i + 1] - t[i]);
      } else {
        for (size_t i = 0, run = 0; i < t.size(); ++i) {
          run = (i > 0 && t[i] == t[i - 1]) ? run + 1 : 1;
          widest = std::max(widest, static_cast<int64_t>(run));
        }
      }
      dims[static_cast<size_t>(k + 1)] = widest;
    }
    for (int i = ragged_rank + 1; i < out_rank; ++i) dims[static_cast<size_t>(i)] = vdims[static_cast<size_t>(i - ragged_rank)];

    // Each value row's position in the output's ragged dimensions (-1: dropped).
    std::vector<int64_t> index(static_cast<size_t>(nrows));
    for (int64_t i = 0; i < nrows; ++i) index[static_cast<size_t>(i)] = i < dims[0] ? i : -1;
    for (int k = 0; k < ragged_rank; ++k) {
      const std::vector<int64_t>& t = parts[static_cast<size_t>(k)];
      const int64_t width = dims[static_cast<size_t>(k + 1)];
      const bool splits = types_[static_cast<size_t>(k + (first_dim_size ? 1 : 0))] == Partition::kRowSplits;
      std::vector<int64_t> next;
      next.reserve(t.size());
      if (splits) {
        if (t.empty()) return errors::InvalidArgument("Invalid row split size.");
        if (static_cast<int64_t>(t.size()) - 1 > static_cast<int64_t>(index.size())) {
          return errors::InvalidArgument("Row partition size is greater than output size: ", t.size() - 1, " > ",
                                         index.size());
        }
        for (size_t i = 0; i + 1 < t.size(); ++i) {
          const int64_t length = t[i + 1] - t[i];
          const int64_t parent = index[i];
          const int64_t kept = parent == -1 ? 0 : std::min(width, length);
          for (int64_t j = 0; j < kept; ++j) next.push_back(parent * width + j);
          for (int64_t j = kept; j < length; ++j) next.push_back(-1);
        }
        if (static_cast<int64_t>(next.size()) != t.back()) return errors::InvalidArgument("Invalid row split size.");
      } else {
        int64_t column = 0;
        for (size_t i = 0; i < t.size(); ++i) {
          const int64_t row = t[i];
          if (i > 0 && row == t[i - 1]) {
            ++column;
          } else {
            column = 0;
            if (row < 0 || row >= static_cast<int64_t>(index.size())) {
              return errors::InvalidArgument("Got next_value_rowid=", row, " which is not less than ", index.size());
            }
          }
          const int64_t parent = index[static_cast<size_t>(row)];
          next.push_back(parent == -1 || column >= width ? -1 : parent * width + column);
        }
      }
      index = std::move(next);
    }
    if (static_cast<int64_t>(index.size()) > vdims[0]) {
      return errors::InvalidArgument("The row partitions place ", index.size(), " values, but values has only ",
                                     vdims[0], " rows");
    }

    // Fill with the default, then place the values.
    int64_t inner_size = 1;
    for (int64_t d : inner) inner_size *= d;
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    const int64_t slots = inner_size == 0 ? 0 : total / inner_size;
    const int64_t default_size = default_value.num_elements();
    // Element e of an inner block takes the default's element at the broadcast position.
    std::vector<int64_t> default_at(static_cast<size_t>(inner_size), 0);
    if (default_size > 1) {
      std::vector<int64_t> ddims(inner.size(), 1);
      std::copy(default_value.dims().begin(), default_value.dims().end(),
                ddims.begin() + static_cast<std::ptrdiff_t>(inner.size() - static_cast<size_t>(default_value.rank())));
      for (int64_t e = 0; e < inner_size; ++e) {
        int64_t rest = e, at = 0, stride = 1;
        for (size_t d = inner.size(); d-- > 0;) {
          const int64_t coord = rest % inner[d];
          rest /= inner[d];
          if (ddims[d] != 1) at += coord * stride;
          stride *= ddims[d];
        }
        default_at[static_cast<size_t>(e)] = at;
      }
    }
    if (values.dtype() == DType::kString) {
      const std::vector<std::string>& v = values.strings();
      const std::vector<std::string>& dv = default_value.strings();
      GRAFT_RETURN_IF_ERROR(Tensor::CheckStringsFit(total));
      std::vector<std::string> out(static_cast<size_t>(total));
      for (int64_t s = 0; s < slots; ++s) {
        for (int64_t e = 0; e < inner_size; ++e) out[static_cast<size_t>(s * inner_size + e)] = dv[static_cast<size_t>(default_at[static_cast<size_t>(e)])];
      }
      for (size_t j = 0; j < index.size(); ++j) {
        if (index[j] < 0) continue;
        for (int64_t e = 0; e < inner_size; ++e) {
          out[static_cast<size_t>(index[j] * inner_size + e)] = v[j * static_cast<size_t>(inner_size) + static_cast<size_t>(e)];
        }
      }
      Tensor t;
      GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(out), &t));
      ctx.SetOutput(0, std::move(t));
      return Status::Ok();
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, values.dtype(), dims, &out));
    const size_t esize = DTypeSize(values.dtype());
    auto* o = static_cast<unsigned char*>(out->raw_data());
    const auto* v = static_cast<const unsigned char*>(values.raw_data());
    const auto* dv = static_cast<const unsigned char*>(default_value.raw_data());
    if (total > 0) {
      if (default_size > 0) {
        std::vector<unsigned char> block(static_cast<size_t>(inner_size) * esize);
        for (int64_t e = 0; e < inner_size; ++e) {
          std::memcpy(block.data() + static_cast<size_t>(e) * esize, dv + static_cast<size_t>(default_at[static_cast<size_t>(e)]) * esize, esize);
        }
        for (int64_t s = 0; s < slots; ++s) std::memcpy(o + static_cast<size_t>(s) * block.size(), block.data(), block.size());
      }
      const size_t row_bytes = static_cast<size_t>(inner_size) * esize;
      for (size_t j = 0; j < index.size(); ++j) {
        if (index[j] >= 0) std::memcpy(o + static_cast<size_t>(index[j]) * row_bytes, v + j * row_bytes, row_bytes);
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<Partition> types_;
};

class RaggedBincountKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "binary_output", &binary_); }

  Status Compute(OpKernelContext& ctx) const override {
    switch (ctx.input(3).dtype()) {
      case DType::kInt32:
        return Run<int32_t>(ctx);
      case DType::kInt64:
        return Run<int64_t>(ctx);
      case DType::kFloat32:
        return Run<float>(ctx);
      case DType::kFloat64:
        return Run<double>(ctx);
      default:
        return errors::DTypeError("RaggedBincount's weights must be int32, int64, float or double, not ",
                                  DTypeName(ctx.input(3).dtype()));
    }
  }

 private:
  template <typename T>
  Status Run(OpKernelContext& ctx) const {
    const Tensor& splits_t = ctx.input(0);
    const Tensor& values_t = ctx.input(1);
    const Tensor& size_t_ = ctx.input(2);
    const Tensor& weights_t = ctx.input(3);
    if (size_t_.rank() != 0) return errors::InvalidArgument("Shape must be rank 0 but is rank ", size_t_.rank());
    const int64_t size = Int64s(size_t_)[0];
    if (size < 0) return errors::InvalidArgument("size (", size, ") must be non-negative");
    const int64_t* splits = splits_t.data<int64_t>();
    const int64_t nsplits = splits_t.num_elements();
    const std::vector<int64_t> values = Int64s(values_t);
    const auto num_values = static_cast<int64_t>(values.size());
    if (nsplits == 0) return errors::InvalidArgument("Splits must be non-empty");
    const int64_t rows = nsplits - 1;
    if (splits[0] != 0) return errors::InvalidArgument("Splits must start with 0, not with ", splits[0]);
    if (splits[rows] != num_values) {
      return errors::InvalidArgument("Splits must end with the number of values, got ", splits[rows], " instead of ",
                                     num_values);
    }
    const int64_t nweights = weights_t.num_elements();
    if (!binary_ && nweights > 0 && nweights != num_values) {
      return errors::InvalidArgument("weights must be empty or have as many elements as values (", num_values,
                                     "), got ", nweights);
    }
    Tensor* out = nullptr;
    const int64_t dims[] = {rows, size};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    T* o = out->data<T>();
    std::fill_n(o, rows * size, T{0});
    const T* w = nweights > 0 ? weights_t.data<T>() : nullptr;
    int64_t batch = 0;
    for (int64_t i = 0; i < num_values; ++i) {
      while (batch <= rows && i >= splits[batch]) ++batch;
      const int64_t bin = values[static_cast<size_t>(i)];
      if (bin < 0) return errors::InvalidArgument("Input must be non-negative");
      if (bin >= size) continue;
      T& cell = o[(batch - 1) * size + bin];
      if (binary_) {
        cell = T{1};
      } else {
        cell = static_cast<T>(cell + (w != nullptr ? w[i] : T{1}));
      }
    }
    return Status::Ok();
  }

  bool binary_ = false;
};

}  // namespace

void RegisterRaggedKernels(KernelRegistry& r) {
  (void)r.Register("RaggedTensorToTensor", kDeviceCpu, "", {}, &CreateKernel<RaggedTensorToTensorKernel>);
  (void)r.Register("RaggedBincount", kDeviceCpu, "T", {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64},
                   &CreateKernel<RaggedBincountKernel>);
}

}  // namespace graft::cpu
