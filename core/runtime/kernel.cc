#include "core/runtime/kernel.h"
#include "core/unload.h"

#include <algorithm>
#include <mutex>

#include "core/runtime/device.h"

namespace graft {

Status OpKernelContext::AllocateOutput(int i, DType dtype, std::span<const int64_t> dims, Tensor** out,
                                       int reuse_input) {
  Tensor& slot = outputs_[static_cast<size_t>(i)];
  if (reuse_input >= 0 && static_cast<size_t>(reuse_input) < inputs_.size() &&
      forwardable_[static_cast<size_t>(reuse_input)]) {
    const Tensor& in = *inputs_[static_cast<size_t>(reuse_input)];
    // Reuse only a buffer nobody else holds, of the same dtype and dims.
    if (in.valid() && in.dtype() == dtype && in.buffer().use_count() == 1 && DTypeSize(dtype) > 0 &&
        std::equal(dims.begin(), dims.end(), in.dims().begin(), in.dims().end()) &&
        in.buffer()->reusable()) {
      slot = in;  // the kernel may still read the input: it is the same memory
      *out = &slot;
      return Status::Ok();
    }
  }
  if (device_ != nullptr) {
    GRAFT_RETURN_IF_ERROR(device_->Allocate(dtype, dims, &slot));
  } else {
    GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, dims, &slot));
  }
  *out = &slot;
  return Status::Ok();
}

Status OpKernelContext::AllocateHostOutput(int i, DType dtype, std::span<const int64_t> dims, Tensor** out) {
  Tensor& slot = outputs_[static_cast<size_t>(i)];
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, dims, &slot));
  *out = &slot;
  return Status::Ok();
}

Status OpKernelContext::InputRef(int i, std::shared_ptr<Variable>* out) const {
  const Tensor& t = input(i);
  auto* ref = dynamic_cast<const RefBuffer*>(t.buffer().get());
  if (ref == nullptr) {
    return errors::InvalidArgument(node_.type(), " op '", node_.name(), "': input ", i, " is not a reference");
  }
  *out = ref->variable();
  return Status::Ok();
}

KernelRegistry& KernelRegistry::Global() {
  // Starts empty: the library's composition root registers the built-in kernel families.
  static KernelRegistry* registry = DeleteAtUnload(new KernelRegistry());
  return *registry;
}

Status KernelRegistry::Register(std::string op, std::string device_type, std::string constraint_attr,
                                std::vector<DType> dtypes, KernelFactory factory) {
  std::unique_lock lock(mu_);
  auto& list = entries_[{op, device_type}];
  for (const Entry& e : list) {
    if (e.constraint_attr != constraint_attr) continue;
    for (DType d : dtypes) {
      if (e.Admits(d) || (d == DType::kInvalid && e.dtypes.empty())) {
        return errors::AlreadyExists("a ", device_type, " kernel for ", op, " with ", constraint_attr, "=",
                                     DTypeName(d), " is already registered");
      }
    }
    if (dtypes.empty() && e.dtypes.empty()) {
      return errors::AlreadyExists("a ", device_type, " kernel for ", op, " is already registered");
    }
  }
  list.push_back(Entry{std::move(constraint_attr), std::move(dtypes), std::move(factory)});
  return Status::Ok();
}

Status KernelRegistry::Register(const char* op, const char* device_type, const char* constraint_attr,
                                std::initializer_list<DType> dtypes, KernelCreateFn create) {
  return Register(std::string(op), std::string(device_type), std::string(constraint_attr), std::vector<DType>(dtypes),
                  KernelFactory(create));
}

Status KernelRegistry::Find(const Node& node, const std::string& device_type, KernelFactory* out) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find({node.type(), device_type});
  std::string dtype_text;
  if (it != entries_.end()) {
    for (const Entry& e : it->second) {
      if (e.constraint_attr.empty()) {
        *out = e.factory;
        return Status::Ok();
      }
      const AttrValue* v = node.attr(e.constraint_attr);
      const DType* d = v ? v->get<DType>() : nullptr;
      if (d == nullptr) continue;
      dtype_text = StrCat(" with ", e.constraint_attr, "=", DTypeName(*d));
      if (e.Admits(*d)) {
        *out = e.factory;
        return Status::Ok();
      }
    }
  }
  return errors::NotFound("no ", device_type, " kernel for ", node.type(), " op '", node.name(), "'", dtype_text);
}

Status KernelRegistry::FindForDType(const std::string& op, const std::string& device_type,
                                    const std::string& constraint_attr, DType dtype, KernelFactory* out) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find({op, device_type});
  if (it != entries_.end()) {
    for (const Entry& e : it->second) {
      if (e.constraint_attr == constraint_attr && e.Admits(dtype)) {
        *out = e.factory;
        return Status::Ok();
      }
    }
  }
  return errors::NotFound("no ", device_type, " kernel for ", op, " with ", constraint_attr, "=", DTypeName(dtype));
}

std::vector<std::string> KernelRegistry::Ops(const std::string& device_type) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> ops;
  for (const auto& [key, list] : entries_) {
    if (key.second == device_type) ops.push_back(key.first);
  }
  return ops;
}

std::vector<DType> KernelRegistry::DTypes(const std::string& op, const std::string& device_type,
                                          const std::string& constraint_attr) const {
  std::shared_lock lock(mu_);
  std::vector<DType> out;
  auto it = entries_.find({op, device_type});
  if (it == entries_.end()) return out;
  for (const Entry& e : it->second) {
    if (e.constraint_attr == constraint_attr) out.insert(out.end(), e.dtypes.begin(), e.dtypes.end());
  }
  return out;
}

Status KernelRegistry::CheckSupported(const std::string& op, const std::string& node_name, const AttrMap& attrs) const {
  std::shared_lock lock(mu_);
  const Entry* refused = nullptr;
  DType refused_dtype = DType::kInvalid;
  for (auto it = entries_.lower_bound({op, std::string()}); it != entries_.end() && it->first.first == op; ++it) {
    for (const Entry& e : it->second) {
      if (e.constraint_attr.empty()) return Status::Ok();
      auto a = attrs.find(e.constraint_attr);
      const DType* d = a == attrs.end() ? nullptr : a->second.get<DType>();
      if (d == nullptr) return Status::Ok();  // not a single type here: the kernel decides when it runs
      if (e.Admits(*d)) return Status::Ok();
      refused = &e;
      refused_dtype = *d;
    }
  }
  if (refused == nullptr) return Status::Ok();
  std::vector<DType> seen;
  std::string admitted;
  for (auto it = entries_.lower_bound({op, std::string()}); it != entries_.end() && it->first.first == op; ++it) {
    for (const Entry& e : it->second) {
      if (e.constraint_attr != refused->constraint_attr) continue;
      for (DType d : e.dtypes) {
        if (std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
        seen.push_back(d);
        admitted += (admitted.empty() ? "" : ", ") + DTypeName(d);
      }
    }
  }
  return errors::InvalidArgument(op, " op '", node_name, "': no kernel supports ", refused->constraint_attr, "=",
                                 DTypeName(refused_dtype), " (kernels take ", refused->constraint_attr, " in {",
                                 admitted, "})");
}

bool KernelRegistry::HasKernel(const std::string& op, const std::string& device_type) const {
  std::shared_lock lock(mu_);
  return entries_.count({op, device_type}) != 0;
}

}  // namespace graft
