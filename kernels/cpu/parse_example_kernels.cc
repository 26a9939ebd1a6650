// CPU kernels for tf.Example parsing: ParseExample and ParseExampleV2, with dense features
// (fixed shape, or variable length padded with the default) and sparse features (as
// indices/values/dense_shape). Ragged features (ParseExampleV2's ragged_keys) are not
// supported yet and fail as unimplemented.
//
// Examples are decoded with protobuf-c from proto/example.proto (wire-compatible with
// TensorFlow's), which accepts packed and unpacked float and int64 lists alike; when a
// feature name occurs twice in one example, the last occurrence counts (map semantics).
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "proto/example.pb-c.h"

namespace graft::cpu {
namespace {

struct ExampleDeleter {
  void operator()(Graftpb__Example* e) const { graftpb__example__free_unpacked(e, nullptr); }
};
using ExamplePtr = std::unique_ptr<Graftpb__Example, ExampleDeleter>;

// The values of one feature: its list's dtype (kInvalid for a Feature with no list set,
// which counts as empty) and elements.
struct FeatureValues {
  DType dtype = DType::kInvalid;
  size_t size = 0;
  const float* floats = nullptr;
  const int64_t* ints = nullptr;
  const ProtobufCBinaryData* bytes = nullptr;
};

FeatureValues ValuesOf(const Graftpb__Feature& f) {
  FeatureValues v;
  switch (f.kind_case) {
    case GRAFTPB__FEATURE__KIND_BYTES_LIST:
      v.dtype = DType::kString;
      v.size = f.bytes_list->n_value;
      v.bytes = f.bytes_list->value;
      break;
    case GRAFTPB__FEATURE__KIND_FLOAT_LIST:
      v.dtype = DType::kFloat32;
      v.size = f.float_list->n_value;
      v.floats = f.float_list->value;
      break;
    case GRAFTPB__FEATURE__KIND_INT64_LIST:
      v.dtype = DType::kInt64;
      v.size = f.int64_list->n_value;
      v.ints = f.int64_list->value;
      break;
    default:
      break;
  }
  return v;
}

// Element i of a feature's values as T (float, int64_t or std::string, matching its dtype).
template <typename T>
T ValueAt(const FeatureValues& v, size_t i);
template <>
float ValueAt<float>(const FeatureValues& v, size_t i) {
  return v.floats[i];
}
template <>
int64_t ValueAt<int64_t>(const FeatureValues& v, size_t i) {
  return v.ints[i];
}
template <>
std::string ValueAt<std::string>(const FeatureValues& v, size_t i) {
  return std::string(reinterpret_cast<const char*>(v.bytes[i].data), v.bytes[i].len);
}

// The elements of a tensor of T's dtype.
template <typename T>
const T* ElementsOf(const Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings().data();
  } else {
    return t.data<T>();
  }
}

std::string ListName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float";
    case DType::kInt64:
      return "int64";
    case DType::kString:
      return "string";
    default:
      return DTypeName(dtype);
  }
}

// What one run parses: the batch, the features asked for and their defaults.
struct ParseRequest {
  const Tensor* serialized = nullptr;  // a scalar or a vector of strings
  const Tensor* names = nullptr;       // empty, or one name per example
  std::vector<std::string> sparse_keys;
  std::vector<DType> sparse_types;
  std::vector<std::string> dense_keys;
  std::vector<DType> dense_types;
  std::vector<PartialShape> dense_shapes;
  std::vector<const Tensor*> dense_defaults;
  // Where the outputs go: sparse_indices at sparse_out, then values, then shapes; the dense
  // values at dense_out.
  int sparse_out = 0;
  int dense_out = 0;
};

class ExampleParser {
 public:
  ExampleParser(const ParseRequest& req, OpKernelContext& ctx) : req_(req), ctx_(ctx) {}

  Status Run() {
    batch_dims_ = req_.serialized->dims();
    const std::vector<std::string>& serialized = req_.serialized->strings();
    n_ = serialized.size();
    if (req_.names->num_elements() != 0 && static_cast<size_t>(req_.names->num_elements()) != n_) {
      return errors::InvalidArgument("names has ", req_.names->num_elements(), " elements, but serialized has ", n_,
                                     "; names must be empty or name every example");
    }
    GRAFT_RETURN_IF_ERROR(CheckDefaults());
    // Decode the examples and find, per example, the Feature of every key asked for.
    const size_t nd = req_.dense_keys.size(), ns = req_.sparse_keys.size();
    num_slots_ = nd + ns;
    std::unordered_map<std::string_view, std::vector<size_t>> slots;
    for (size_t d = 0; d < nd; ++d) slots[req_.dense_keys[d]].push_back(d);
    for (size_t s = 0; s < ns; ++s) slots[req_.sparse_keys[s]].push_back(nd + s);
    examples_.resize(n_);
    found_.assign(n_ * num_slots_, nullptr);
    for (size_t e = 0; e < n_; ++e) {
      const std::string& bytes = serialized[e];
      examples_[e].reset(
          graftpb__example__unpack(nullptr, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
      if (!examples_[e]) {
        return errors::InvalidArgument("Name: ", Name(e), ", Index: ", e, ". Could not parse example input (",
                                       bytes.size(), " bytes)");
      }
      const Graftpb__Features* features = examples_[e]->features;
      if (features == nullptr || num_slots_ == 0) continue;
      for (size_t i = 0; i < features->n_feature; ++i) {
        const Graftpb__Features__FeatureEntry* entry = features->feature[i];
        if (entry->key == nullptr || entry->value == nullptr) continue;
        auto it = slots.find(entry->key);
        if (it == slots.end()) continue;
        for (size_t slot : it->second) found_[e * num_slots_ + slot] = entry->value;
      }
    }
    for (size_t d = 0; d < nd; ++d) {
      switch (req_.dense_types[d]) {
        case DType::kFloat32:
          GRAFT_RETURN_IF_ERROR(Dense<float>(d));
          break;
        case DType::kInt64:
          GRAFT_RETURN_IF_ERROR(Dense<int64_t>(d));
          break;
        case DType::kString:
          GRAFT_RETURN_IF_ERROR(Dense<std::string>(d));
          break;
        default:
          return errors::InvalidArgument("dense feature '", req_.dense_keys[d], "' has unsupported dtype ",
                                         DTypeName(req_.dense_types[d]));
      }
    }
    for (size_t s = 0; s < ns; ++s) {
      switch (req_.sparse_types[s]) {
        case DType::kFloat32:
          GRAFT_RETURN_IF_ERROR(Sparse<float>(s));
          break;
        case DType::kInt64:
          GRAFT_RETURN_IF_ERROR(Sparse<int64_t>(s));
          break;
        case DType::kString:
          GRAFT_RETURN_IF_ERROR(Sparse<std::string>(s));
          break;
        default:
          return errors::InvalidArgument("sparse feature '", req_.sparse_keys[s], "' has unsupported dtype ",
                                         DTypeName(req_.sparse_types[s]));
      }
    }
    return Status::Ok();
  }

 private:
  std::string Name(size_t e) const {
    if (req_.names->num_elements() == 0) return "<unknown>";
    return req_.names->strings()[e];
  }

  // "Name: <name>, Key: <key>, Index: <e>. " before the errors about one feature of one example.
  std::string Where(size_t e, const std::string& key) const {
    std::string w = "Name: ";
    w.append(Name(e)).append(", Key: ").append(key).append(", Index: ").append(std::to_string(e)).append(". ");
    return w;
  }

  static bool VariableLength(const PartialShape& s) { return s.rank() > 0 && s.dim(0) == kUnknownDim; }

  // A default of no elements makes a fixed-shape feature required; otherwise it must have the
  // feature's shape. A variable-length feature's default is its padding element.
  Status CheckDefaults() const {
    for (size_t d = 0; d < req_.dense_keys.size(); ++d) {
      const PartialShape& shape = req_.dense_shapes[d];
      const Tensor& def = *req_.dense_defaults[d];
      if (def.dtype() != req_.dense_types[d]) {
        return errors::InvalidArgument("dense_defaults[", d, "] is ", DTypeName(def.dtype()), ", but feature '",
                                       req_.dense_keys[d], "' is ", DTypeName(req_.dense_types[d]));
      }
      if (VariableLength(shape)) {
        if (def.num_elements() != 1) {
          return errors::InvalidArgument("dense_shapes[", d, "] of feature '", req_.dense_keys[d],
                                         "' is a variable-length shape ", ShapeText(shape.dims()),
                                         ", so dense_defaults[", d,
                                         "] must hold a single element (the padding element), but its shape is ",
                                         ShapeText(def.dims()));
        }
      } else if (def.num_elements() > 0 && !shape.IsCompatibleWith(def.shape())) {
        return errors::InvalidArgument("dense_defaults[", d, "] of feature '", req_.dense_keys[d], "' has shape ",
                                       ShapeText(def.dims()), ", which is not compatible with dense_shapes[", d,
                                       "] ", ShapeText(shape.dims()));
      }
    }
    return Status::Ok();
  }

  // Checks that feature values suit a feature of dtype.
  Status CheckKind(const FeatureValues& v, DType dtype, size_t e, const std::string& key) const {
    if (v.dtype != DType::kInvalid && v.dtype != dtype) {
      return errors::InvalidArgument(Where(e, key), "Data types don't match. Expected type: ", ListName(dtype),
                                     ", Actual type: ", ListName(v.dtype));
    }
    return Status::Ok();
  }

  // Makes output i of dtype and dims, with its elements at *data (strings: in *strings,
  // which becomes the output in FinishOutput).
  template <typename T>
  Status MakeOutput(int i, const std::vector<int64_t>& dims, std::vector<std::string>* strings, T** data) {
    if constexpr (std::is_same_v<T, std::string>) {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      strings->assign(static_cast<size_t>(n), std::string());
      *data = strings->data();
      (void)i;
    } else {
      Tensor* t = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx_.AllocateOutput(i, DTypeOf<T>(), dims, &t));
      *data = t->data<T>();
    }
    return Status::Ok();
  }

  template <typename T>
  Status FinishOutput(int i, const std::vector<int64_t>& dims, std::vector<std::string>* strings) {
    if constexpr (std::is_same_v<T, std::string>) {
      Tensor t;
      GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(*strings), &t));
      ctx_.SetOutput(i, std::move(t));
    } else {
      (void)i;
      (void)dims;
      (void)strings;
    }
    return Status::Ok();
  }

  template <typename T>
  Status Dense(size_t d) {
    const std::string& key = req_.dense_keys[d];
    const DType dtype = req_.dense_types[d];
    const PartialShape& shape = req_.dense_shapes[d];
    const Tensor& def = *req_.dense_defaults[d];
    const T* def_values = def.num_elements() > 0 ? ElementsOf<T>(def) : nullptr;
    const bool variable = VariableLength(shape);
    // The elements per example (fixed shape) or per row (variable length).
    int64_t stride = 1;
    for (int i = variable ? 1 : 0; i < shape.rank(); ++i) stride *= shape.dim(i);
    const size_t ustride = static_cast<size_t>(stride);

    std::vector<int64_t> dims = batch_dims_;
    size_t rows = 1;  // rows per example (1 for a fixed shape)
    if (variable) {
      // Every example's values must fill whole rows; the output is padded to the longest.
      size_t max_rows = 0;
      for (size_t e = 0; e < n_; ++e) {
        const Graftpb__Feature* f = found_[e * num_slots_ + d];
        if (f == nullptr) continue;
        FeatureValues v = ValuesOf(*f);
        GRAFT_RETURN_IF_ERROR(CheckKind(v, dtype, e, key));
        if (ustride == 0 ? v.size != 0 : v.size % ustride != 0) {
          return errors::InvalidArgument(Where(e, key), "Number of ", ListName(dtype),
                                         " values is not a multiple of stride length. Saw ", v.size,
                                         " values but output shape is: ", ShapeText(shape.dims()));
        }
        if (ustride > 0) max_rows = std::max(max_rows, v.size / ustride);
      }
      rows = max_rows;
      dims.push_back(static_cast<int64_t>(max_rows));
      for (int i = 1; i < shape.rank(); ++i) dims.push_back(shape.dim(i));
    } else {
      for (int i = 0; i < shape.rank(); ++i) dims.push_back(shape.dim(i));
    }

    const int out = req_.dense_out + static_cast<int>(d);
    std::vector<std::string> strings;
    T* data = nullptr;
    GRAFT_RETURN_IF_ERROR(MakeOutput<T>(out, dims, &strings, &data));
    const size_t per_example = rows * ustride;
    for (size_t e = 0; e < n_; ++e) {
      T* dst = data + e * per_example;
      const Graftpb__Feature* f = found_[e * num_slots_ + d];
      size_t copied = 0;
      if (f != nullptr) {
        FeatureValues v = ValuesOf(*f);
        GRAFT_RETURN_IF_ERROR(CheckKind(v, dtype, e, key));
        if (!variable && v.size != ustride) {
          return errors::InvalidArgument(Where(e, key), "Number of ", ListName(dtype),
                                         " values != expected. Values size: ", v.size,
                                         " but output shape: ", ShapeText(shape.dims()));
        }
        for (; copied < v.size; ++copied) dst[copied] = ValueAt<T>(v, copied);
      } else if (!variable) {
        if (def_values == nullptr && ustride > 0) {
          return errors::InvalidArgument(Where(e, key), "Feature: ", key, " (data type: ", ListName(dtype), ")",
                                         " is required but could not be found.");
        }
        for (; copied < ustride; ++copied) dst[copied] = def_values[copied];
      }
      // Variable length: pad with the default's single element.
      for (; copied < per_example; ++copied) dst[copied] = def_values[0];
    }
    return FinishOutput<T>(out, dims, &strings);
  }

  template <typename T>
  Status Sparse(size_t s) {
    const std::string& key = req_.sparse_keys[s];
    const DType dtype = req_.sparse_types[s];
    const size_t slot = req_.dense_keys.size() + s;
    size_t total = 0, max_count = 0;
    for (size_t e = 0; e < n_; ++e) {
      const Graftpb__Feature* f = found_[e * num_slots_ + slot];
      if (f == nullptr) continue;
      FeatureValues v = ValuesOf(*f);
      GRAFT_RETURN_IF_ERROR(CheckKind(v, dtype, e, key));
      total += v.size;
      max_count = std::max(max_count, v.size);
    }
    const int ns = static_cast<int>(req_.sparse_keys.size());
    const int indices_out = req_.sparse_out + static_cast<int>(s);
    const int values_out = indices_out + ns;
    const int shape_out = values_out + ns;
    const int64_t rank = static_cast<int64_t>(batch_dims_.size()) + 1;  // batch dims + the value index
    const int64_t n_values = static_cast<int64_t>(total);

    Tensor* indices = nullptr;
    Tensor* dense_shape = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx_.AllocateOutput(indices_out, DType::kInt64, std::vector<int64_t>{n_values, rank}, &indices));
    GRAFT_RETURN_IF_ERROR(ctx_.AllocateOutput(shape_out, DType::kInt64, std::vector<int64_t>{rank}, &dense_shape));
    std::vector<int64_t> value_dims{n_values};
    std::vector<std::string> strings;
    T* values = nullptr;
    GRAFT_RETURN_IF_ERROR(MakeOutput<T>(values_out, value_dims, &strings, &values));
    int64_t* idx = indices->data<int64_t>();
    size_t k = 0;
    for (size_t e = 0; e < n_; ++e) {
      const Graftpb__Feature* f = found_[e * num_slots_ + slot];
      if (f == nullptr) continue;
      FeatureValues v = ValuesOf(*f);
      for (size_t j = 0; j < v.size; ++j, ++k) {
        if (rank == 2) *idx++ = static_cast<int64_t>(e);
        *idx++ = static_cast<int64_t>(j);
        values[k] = ValueAt<T>(v, j);
      }
    }
    int64_t* sh = dense_shape->data<int64_t>();
    if (rank == 2) *sh++ = static_cast<int64_t>(n_);
    *sh = static_cast<int64_t>(max_count);
    return FinishOutput<T>(values_out, value_dims, &strings);
  }

  const ParseRequest& req_;
  OpKernelContext& ctx_;
  std::vector<int64_t> batch_dims_;
  size_t n_ = 0;
  size_t num_slots_ = 0;
  std::vector<ExamplePtr> examples_;
  std::vector<const Graftpb__Feature*> found_;  // [example][dense keys, then sparse keys]
};

Status RequireStrings(const Tensor& t, const char* what) {
  if (t.dtype() != DType::kString) return errors::InvalidArgument(what, " must be a string tensor");
  return Status::Ok();
}

// ParseExample: serialized and names are vectors; every key is a separate scalar input.
class ParseExampleKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    int64_t ns = 0, nd = 0;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "Nsparse", &ns));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "Ndense", &nd));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "sparse_types", &sparse_types_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "Tdense", &dense_types_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "dense_shapes", &dense_shapes_));
    if (static_cast<int64_t>(sparse_types_.size()) != ns || static_cast<int64_t>(dense_types_.size()) != nd ||
        dense_shapes_.size() != dense_types_.size()) {
      return errors::InvalidArgument("Nsparse, sparse_types, Ndense, Tdense and dense_shapes disagree");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const int ns = static_cast<int>(sparse_types_.size()), nd = static_cast<int>(dense_types_.size());
    ParseRequest req;
    req.serialized = &ctx.input(0);
    req.names = &ctx.input(1);
    GRAFT_RETURN_IF_ERROR(RequireStrings(*req.serialized, "serialized"));
    if (req.serialized->rank() != 1) {
      return errors::InvalidArgument("serialized must be a vector, but has shape ",
                                     ShapeText(req.serialized->dims()));
    }
    if (req.names->rank() != 1) {
      return errors::InvalidArgument("names must be a vector, but has shape ", ShapeText(req.names->dims()));
    }
    for (int i = 0; i < ns + nd; ++i) {
      const Tensor& k = ctx.input(2 + i);
      if (k.num_elements() != 1 || k.rank() != 0) {
        return errors::InvalidArgument(i < ns ? "sparse_keys[" : "dense_keys[", i < ns ? i : i - ns,
                                       "] must be a scalar, but has shape ", ShapeText(k.dims()));
      }
      (i < ns ? req.sparse_keys : req.dense_keys).push_back(k.strings()[0]);
    }
    for (int d = 0; d < nd; ++d) req.dense_defaults.push_back(&ctx.input(2 + ns + nd + d));
    req.sparse_types = sparse_types_;
    req.dense_types = dense_types_;
    req.dense_shapes = dense_shapes_;
    req.sparse_out = 0;
    req.dense_out = 3 * ns;
    return ExampleParser(req, ctx).Run();
  }

 private:
  std::vector<DType> sparse_types_, dense_types_;
  std::vector<PartialShape> dense_shapes_;
};

// ParseExampleV2: serialized (and names) a scalar or a vector; the keys are string vectors.
class ParseExampleV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    int64_t ns = 0;
    std::vector<DType> ragged_values, ragged_splits;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "num_sparse", &ns));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "sparse_types", &sparse_types_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "Tdense", &dense_types_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "dense_shapes", &dense_shapes_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ragged_value_types", &ragged_values));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ragged_split_types", &ragged_splits));
    if (static_cast<int64_t>(sparse_types_.size()) != ns || dense_shapes_.size() != dense_types_.size()) {
      return errors::InvalidArgument("num_sparse, sparse_types, Tdense and dense_shapes disagree");
    }
    if (!ragged_values.empty() || !ragged_splits.empty()) {
      return errors::Unimplemented("ParseExampleV2 with ragged features is not supported yet");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const size_t ns = sparse_types_.size(), nd = dense_types_.size();
    ParseRequest req;
    req.serialized = &ctx.input(0);
    req.names = &ctx.input(1);
    GRAFT_RETURN_IF_ERROR(RequireStrings(*req.serialized, "serialized"));
    if (req.serialized->rank() > 1) {
      return errors::InvalidArgument("serialized must be a scalar or a vector, but has shape ",
                                     ShapeText(req.serialized->dims()));
    }
    if (req.names->num_elements() != 0 && req.names->dims() != req.serialized->dims()) {
      return errors::InvalidArgument("names must be empty or have the shape of serialized ",
                                     ShapeText(req.serialized->dims()), ", but has shape ",
                                     ShapeText(req.names->dims()));
    }
    GRAFT_RETURN_IF_ERROR(Keys(ctx.input(2), "sparse_keys", ns, &req.sparse_keys));
    GRAFT_RETURN_IF_ERROR(Keys(ctx.input(3), "dense_keys", nd, &req.dense_keys));
    if (ctx.input(4).num_elements() != 0) {
      return errors::Unimplemented("ParseExampleV2 with ragged features is not supported yet (ragged_keys has ",
                                   ctx.input(4).num_elements(), " keys)");
    }
    for (size_t d = 0; d < nd; ++d) req.dense_defaults.push_back(&ctx.input(5 + static_cast<int>(d)));
    req.sparse_types = sparse_types_;
    req.dense_types = dense_types_;
    req.dense_shapes = dense_shapes_;
    req.sparse_out = 0;
    req.dense_out = 3 * static_cast<int>(ns);
    return ExampleParser(req, ctx).Run();
  }

 private:
  static Status Keys(const Tensor& t, const char* what, size_t n, std::vector<std::string>* out) {
    if (t.rank() > 1) {
      return errors::InvalidArgument(what, " must be a vector, but has shape ", ShapeText(t.dims()));
    }
    if (static_cast<size_t>(t.num_elements()) != n) {
      return errors::InvalidArgument(what, " has ", t.num_elements(), " keys, but the op's attrs expect ", n);
    }
    *out = t.strings();
    return Status::Ok();
  }

  std::vector<DType> sparse_types_, dense_types_;
  std::vector<PartialShape> dense_shapes_;
};

}  // namespace

void RegisterParseExampleKernels(KernelRegistry& r) {
  (void)r.Register("ParseExample", kDeviceCpu, "", {}, &CreateKernel<ParseExampleKernel>);
  (void)r.Register("ParseExampleV2", kDeviceCpu, "", {}, &CreateKernel<ParseExampleV2Kernel>);
}

}  // namespace graft::cpu
