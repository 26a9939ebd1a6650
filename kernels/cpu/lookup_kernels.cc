// CPU kernels of the lookup-table ops (core/ops/lookup_ops.cc) over core's LookupTable: the
// table ops find or make their table in the session's ResourceMgr by (container, shared_name)
// — the node's name when shared_name is empty — and output a scalar resource tensor carrying
// it; the other ops act on the table their handle carries.
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/checkpoint/file_util.h"
#include "core/lookup_table.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

class LookupTableBuffer final : public TensorBuffer {
 public:
  explicit LookupTableBuffer(std::shared_ptr<LookupTable> table) : table_(std::move(table)) {}
  void* data() const override { return nullptr; }
  size_t size() const override { return 0; }
  const std::shared_ptr<LookupTable>& table() const { return table_; }

 private:
  std::shared_ptr<LookupTable> table_;
};

Status TableOf(const OpKernelContext& ctx, std::shared_ptr<LookupTable>* out) {
  const Tensor& t = ctx.input(0);
  const auto* b = t.valid() && t.dtype() == DType::kResource && t.rank() == 0
                      ? dynamic_cast<const LookupTableBuffer*>(t.buffer().get())
                      : nullptr;
  if (b == nullptr) return errors::InvalidArgument("table_handle is not a lookup table handle (made by HashTableV2)");
  *out = b->table();
  return Status::Ok();
}

class TableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "container", &container_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shared_name", &name_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "key_dtype", &key_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "value_dtype", &value_));
    if (name_.empty()) name_ = node().name();
    mutable_ = node().type() == "MutableHashTableV2";
    if (!LookupTable::IsKeyType(key_)) {
      return errors::Unimplemented("key_dtype ", DTypeName(key_), " is not supported (string, int32 or int64)");
    }
    if (!LookupTable::IsValueType(value_)) {
      return errors::Unimplemented("value_dtype ", DTypeName(value_),
                                   " is not supported (string, bool, int32, int64, float or double)");
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    if (ctx.resources() == nullptr) return errors::FailedPrecondition("no resource manager to keep the table in");
    std::shared_ptr<Resource> r;
    GRAFT_RETURN_IF_ERROR(ctx.resources()->LookupOrCreateResource(
        container_, name_,
        [&](std::shared_ptr<Resource>* made) {
          *made = std::make_shared<LookupTable>(key_, value_, mutable_);
          return Status::Ok();
        },
        &r));
    auto table = std::dynamic_pointer_cast<LookupTable>(r);
    if (table == nullptr) return errors::InvalidArgument("resource '", name_, "' is a ", r->TypeName(), ", not a lookup table");
    if (table->key_dtype() != key_ || table->value_dtype() != value_ || table->is_mutable() != mutable_) {
      return errors::InvalidArgument("table '", name_, "' exists with ", DTypeName(table->key_dtype()), " -> ",
                                     DTypeName(table->value_dtype()), " entries", table->is_mutable() ? " (mutable)" : "",
                                     ", not ", DTypeName(key_), " -> ", DTypeName(value_));
    }
    ctx.SetOutput(0, Tensor::Special(DType::kResource, std::make_shared<LookupTableBuffer>(std::move(table))));
    return Status::Ok();
  }

 private:
  std::string container_, name_;
  DType key_ = DType::kInvalid, value_ = DType::kInvalid;
  bool mutable_ = false;
};

class FindKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    Tensor values;
    GRAFT_RETURN_IF_ERROR(table->Find(ctx.input(1), ctx.input(2), &values));
    ctx.SetOutput(0, std::move(values));
    return Status::Ok();
  }
};

// LookupTableImportV2 and InitializeTableV2 initialize (a mutable table: replace), Insert adds.
class FillKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    if (node().type() == "LookupTableInsertV2") return table->Insert(ctx.input(1), ctx.input(2));
    return table->Initialize(ctx.input(1), ctx.input(2));
  }
};

class RemoveKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    return table->Remove(ctx.input(1));
  }
};

class SizeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt64, {}, &out));
    out->data<int64_t>()[0] = table->Size();
    return Status::Ok();
  }
};

class ExportKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    Tensor keys, values;
    GRAFT_RETURN_IF_ERROR(table->Export(&keys, &values));
    ctx.SetOutput(0, std::move(keys));
    ctx.SetOutput(1, std::move(values));
    return Status::Ok();
  }
};

// InitializeTableFromTextFileV2: one entry per line of a text file (a vocabulary). A column
// index of -2 takes the whole line, -1 the line number (plus offset), k >= 0 the k-th field
// split by the delimiter; fields convert to the table's dtypes.
class TextFileInitKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "key_index", &key_index_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "value_index", &value_index_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "vocab_size", &vocab_size_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "delimiter", &delimiter_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "offset", &offset_));
    if (delimiter_.empty()) return errors::InvalidArgument("delimiter must not be empty");
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<LookupTable> table;
    GRAFT_RETURN_IF_ERROR(TableOf(ctx, &table));
    const Tensor& f = ctx.input(1);
    if (f.dtype() != DType::kString || f.rank() != 0) {
      return errors::InvalidArgument("filename must be a string scalar, but has shape ", f.shape().ToString());
    }
    const std::string& path = f.strings()[0];
    std::string text;
    GRAFT_RETURN_IF_ERROR(checkpoint::ReadFileToString(path, &text));
    std::vector<std::string> lines;
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
      start = end + 1;
      if (vocab_size_ > 0 && static_cast<int64_t>(lines.size()) == vocab_size_) break;
    }
    if (vocab_size_ > 0 && static_cast<int64_t>(lines.size()) < vocab_size_) {
      return errors::InvalidArgument("invalid vocab_size in '", path, "': expected ", vocab_size_, " lines, but it has ",
                                     lines.size());
    }
    Tensor keys, values;
    GRAFT_RETURN_IF_ERROR(Column(lines, key_index_, table->key_dtype(), path, &keys));
    GRAFT_RETURN_IF_ERROR(Column(lines, value_index_, table->value_dtype(), path, &values));
    return table->Initialize(keys, values);
  }

 private:
  Status Column(const std::vector<std::string>& lines, int64_t index, DType dtype, const std::string& path,
                Tensor* out) const {
    const int64_t n = static_cast<int64_t>(lines.size());
    std::vector<std::string> fields(lines.size());
    for (int64_t i = 0; i < n; ++i) {
      const std::string& line = lines[static_cast<size_t>(i)];
      if (index == -2) {
        fields[static_cast<size_t>(i)] = line;
      } else if (index == -1) {
        fields[static_cast<size_t>(i)] = std::to_string(i + offset_);
      } else {
        std::vector<std::string> parts;
        for (size_t start = 0;;) {
          size_t end = line.find(delimiter_, start);
          parts.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
          if (end == std::string::npos) break;
          start = end + delimiter_.size();
        }
        if (index >= static_cast<int64_t>(parts.size())) {
          return errors::InvalidArgument("invalid number of columns in '", path, "' line ", i, " (", line,
                                         "): expected more than ", index, ", got ", parts.size());
        }
        fields[static_cast<size_t>(i)] = parts[static_cast<size_t>(index)];
      }
    }
    const int64_t dims[1] = {n};
    if (dtype == DType::kString) return Tensor::FromStrings(dims, std::move(fields), out);
    GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, dims, out));
    for (int64_t i = 0; i < n; ++i) {
      const std::string& s = fields[static_cast<size_t>(i)];
      char* end = nullptr;
      errno = 0;
      bool ok = !s.empty();
      if (dtype == DType::kFloat32 || dtype == DType::kFloat64) {
        const double v = std::strtod(s.c_str(), &end);
        ok = ok && *end == '\0';
        if (dtype == DType::kFloat32) out->data<float>()[i] = static_cast<float>(v);
        else out->data<double>()[i] = v;
      } else {
        const long long v = std::strtoll(s.c_str(), &end, 10);
        ok = ok && *end == '\0' && errno == 0;
        if (dtype == DType::kInt32) {
          ok = ok && v >= INT32_MIN && v <= INT32_MAX;
          out->data<int32_t>()[i] = static_cast<int32_t>(v);
        } else if (dtype == DType::kInt64) {
          out->data<int64_t>()[i] = v;
        } else if (dtype == DType::kBool) {
          out->data<bool>()[i] = v != 0;
        }
      }
      if (!ok) {
        return errors::InvalidArgument("field '", s, "' in line ", i, " of '", path, "' is not a valid ",
                                       DTypeName(dtype));
      }
    }
    return Status::Ok();
  }

  int64_t key_index_ = -2, value_index_ = -1, vocab_size_ = -1, offset_ = 0;
  std::string delimiter_;
};

}  // namespace

void RegisterLookupKernels(KernelRegistry& r) {
  (void)r.Register("HashTableV2", kDeviceCpu, "", {}, &CreateKernel<TableKernel>);
  (void)r.Register("MutableHashTableV2", kDeviceCpu, "", {}, &CreateKernel<TableKernel>);
  (void)r.Register("LookupTableFindV2", kDeviceCpu, "", {}, &CreateKernel<FindKernel>);
  for (const char* name : {"LookupTableImportV2", "LookupTableInsertV2", "InitializeTableV2"}) {
    (void)r.Register(name, kDeviceCpu, "", {}, &CreateKernel<FillKernel>);
  }
  (void)r.Register("LookupTableRemoveV2", kDeviceCpu, "", {}, &CreateKernel<RemoveKernel>);
  (void)r.Register("LookupTableSizeV2", kDeviceCpu, "", {}, &CreateKernel<SizeKernel>);
  (void)r.Register("LookupTableExportV2", kDeviceCpu, "", {}, &CreateKernel<ExportKernel>);
  (void)r.Register("InitializeTableFromTextFileV2", kDeviceCpu, "", {}, &CreateKernel<TextFileInitKernel>);
}

}  // namespace graft::cpu
