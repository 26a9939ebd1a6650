#include "core/lookup_table.h"

#include <functional>

namespace graft {
namespace {

template <typename F>
auto WithNumber(DType t, F&& f) {
  switch (t) {
    case DType::kInt32: return f(int32_t{});
    case DType::kInt64: return f(int64_t{});
    case DType::kBool: return f(bool{});
    case DType::kFloat32: return f(float{});
    case DType::kFloat64: return f(double{});
    default: return f(int64_t{});  // unreachable: dtypes are checked first
  }
}

}  // namespace

bool LookupTable::IsKeyType(DType t) { return t == DType::kString || t == DType::kInt32 || t == DType::kInt64; }

bool LookupTable::IsValueType(DType t) {
  return IsKeyType(t) || t == DType::kBool || t == DType::kFloat32 || t == DType::kFloat64;
}

size_t LookupTable::KeyHash::operator()(const Key& k) const {
  if (const auto* i = std::get_if<int64_t>(&k)) return std::hash<int64_t>()(*i);
  return std::hash<std::string>()(std::get<std::string>(k));
}

Status LookupTable::CheckTypes(const Tensor& keys, const Tensor* values) const {
  if (keys.dtype() != key_dtype_) {
    return errors::DTypeError("the table's keys are ", DTypeName(key_dtype_), ", but ", DTypeName(keys.dtype()),
                              " keys were given");
  }
  if (values != nullptr && values->dtype() != value_dtype_) {
    return errors::DTypeError("the table's values are ", DTypeName(value_dtype_), ", but ",
                              DTypeName(values->dtype()), " values were given");
  }
  return Status::Ok();
}

namespace {

template <typename K>
std::variant<int64_t, std::string> KeyAt(const Tensor& t, int64_t i) {
  if constexpr (std::is_same_v<K, std::string>) {
    return t.strings()[static_cast<size_t>(i)];
  } else {
    return static_cast<int64_t>(t.data<K>()[i]);
  }
}

std::variant<int64_t, std::string> AnyKeyAt(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kString) return KeyAt<std::string>(t, i);
  if (t.dtype() == DType::kInt32) return KeyAt<int32_t>(t, i);
  return KeyAt<int64_t>(t, i);
}

std::variant<int64_t, double, std::string> ValueAt(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kString) return t.strings()[static_cast<size_t>(i)];
  return WithNumber(t.dtype(), [&](auto zero) -> std::variant<int64_t, double, std::string> {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<double>(t.data<T>()[i]);
    } else {
      return static_cast<int64_t>(t.data<T>()[i]);
    }
  });
}

std::string KeyText(const std::variant<int64_t, std::string>& k) {
  if (const auto* i = std::get_if<int64_t>(&k)) return std::to_string(*i);
  return StrCat("'", std::get<std::string>(k), "'");
}

// Writes values (one per element, in order) into a new tensor of dtype and dims.
Status MakeTensor(DType dtype, std::span<const int64_t> dims,
                  const std::vector<const std::variant<int64_t, double, std::string>*>& values, Tensor* out) {
  if (dtype == DType::kString) {
    std::vector<std::string> s;
    s.reserve(values.size());
    for (const auto* v : values) s.push_back(std::get<std::string>(*v));
    return Tensor::FromStrings(dims, std::move(s), out);
  }
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, dims, out));
  WithNumber(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* p = out->data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(std::get<double>(*values[i]));
      } else {
        p[i] = static_cast<T>(std::get<int64_t>(*values[i]));
      }
    }
    return 0;
  });
  return Status::Ok();
}

}  // namespace

Status LookupTable::Entries(const Tensor& keys, const Tensor& values,
                            std::unordered_map<Key, Value, KeyHash>* out) const {
  GRAFT_RETURN_IF_ERROR(CheckTypes(keys, &values));
  if (keys.num_elements() != values.num_elements()) {
    return errors::InvalidArgument("keys and values must have the same number of elements: keys has shape ",
                                   keys.shape().ToString(), ", values ", values.shape().ToString());
  }
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    Key k = AnyKeyAt(keys, i);
    Value v = ValueAt(values, i);
    auto [it, added] = out->emplace(std::move(k), v);
    if (!added && it->second != v) {
      return errors::FailedPrecondition("the table has different values for the same key: key ", KeyText(it->first),
                                        " is given twice");
    }
  }
  return Status::Ok();
}

Status LookupTable::Initialize(const Tensor& keys, const Tensor& values) {
  std::unordered_map<Key, Value, KeyHash> entries;
  GRAFT_RETURN_IF_ERROR(Entries(keys, values, &entries));
  std::lock_guard<std::mutex> lock(mu_);
  if (!mutable_ && initialized_) {
    if (entries != map_) return errors::FailedPrecondition("the table was already initialized with different data");
    return Status::Ok();
  }
  map_ = std::move(entries);
  initialized_ = true;
  return Status::Ok();
}

Status LookupTable::Insert(const Tensor& keys, const Tensor& values) {
  if (!mutable_) return errors::FailedPrecondition("a static table (HashTableV2) does not take inserts");
  GRAFT_RETURN_IF_ERROR(CheckTypes(keys, &values));
  if (keys.num_elements() != values.num_elements()) {
    return errors::InvalidArgument("keys and values must have the same number of elements: keys has shape ",
                                   keys.shape().ToString(), ", values ", values.shape().ToString());
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.num_elements(); ++i) map_[AnyKeyAt(keys, i)] = ValueAt(values, i);
  return Status::Ok();
}

Status LookupTable::Remove(const Tensor& keys) {
  if (!mutable_) return errors::FailedPrecondition("a static table (HashTableV2) does not take removals");
  GRAFT_RETURN_IF_ERROR(CheckTypes(keys, nullptr));
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.num_elements(); ++i) map_.erase(AnyKeyAt(keys, i));
  return Status::Ok();
}

Status LookupTable::Find(const Tensor& keys, const Tensor& default_value, Tensor* values) const {
  GRAFT_RETURN_IF_ERROR(CheckTypes(keys, nullptr));
  if (default_value.dtype() != value_dtype_) {
    return errors::DTypeError("the table's values are ", DTypeName(value_dtype_), ", but the default value is ",
                              DTypeName(default_value.dtype()));
  }
  if (default_value.num_elements() != 1) {
    return errors::InvalidArgument("the default value must be a scalar, but has shape ",
                                   default_value.shape().ToString());
  }
  const Value fallback = ValueAt(default_value, 0);
  std::vector<const Value*> found(static_cast<size_t>(keys.num_elements()));
  std::lock_guard<std::mutex> lock(mu_);
  if (!mutable_ && !initialized_) return errors::FailedPrecondition("the table is not initialized");
  for (int64_t i = 0; i < keys.num_elements(); ++i) {
    auto it = map_.find(AnyKeyAt(keys, i));
    found[static_cast<size_t>(i)] = it == map_.end() ? &fallback : &it->second;
  }
  return MakeTensor(value_dtype_, keys.dims(), found, values);
}

int64_t LookupTable::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(map_.size());
}

Status LookupTable::Export(Tensor* keys, Tensor* values) const {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t n = static_cast<int64_t>(map_.size());
  std::vector<Value> key_values;
  std::vector<const Value*> kp, vp;
  key_values.reserve(map_.size());
  for (const auto& [k, v] : map_) {
    if (const auto* i = std::get_if<int64_t>(&k)) key_values.emplace_back(*i);
    else key_values.emplace_back(std::get<std::string>(k));
    vp.push_back(&v);
  }
  for (const Value& k : key_values) kp.push_back(&k);
  const int64_t dims[1] = {n};
  GRAFT_RETURN_IF_ERROR(MakeTensor(key_dtype_, dims, kp, keys));
  return MakeTensor(value_dtype_, dims, vp, values);
}

}  // namespace graft
