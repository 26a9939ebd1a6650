// LookupTable: the state behind TensorFlow's lookup-table ops (tf.lookup.StaticHashTable is
// HashTableV2, MutableHashTable is MutableHashTableV2): a map from scalar keys (string, int32,
// int64) to scalar values (string, bool, integers, floats), kept in the session's ResourceMgr
// by name so that the ops of every run, and every function capturing its handle, share it.
//
// A static table is filled once (InitializeTableV2, InitializeTableFromTextFileV2 or
// LookupTableImportV2): initializing it again with the same entries is a no-op and with other
// entries an error, as TensorFlow's initializable tables; finding keys in it before that is an
// error. A mutable table starts empty and takes inserts, removals and imports (which replace
// its contents). Every operation locks the table.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/runtime/resource_mgr.h"
#include "core/tensor.h"

namespace graft {

class LookupTable final : public Resource {
 public:
  LookupTable(DType key_dtype, DType value_dtype, bool is_mutable)
      : key_dtype_(key_dtype), value_dtype_(value_dtype), mutable_(is_mutable) {}
  std::string_view TypeName() const override { return "lookup table"; }

  // Key types a table may have: string, int32, int64. Value types: those, bool, float, double.
  static bool IsKeyType(DType t);
  static bool IsValueType(DType t);

  DType key_dtype() const { return key_dtype_; }
  DType value_dtype() const { return value_dtype_; }
  bool is_mutable() const { return mutable_; }

  // Static tables: fills an uninitialized table with keys[i] -> values[i] (same number of
  // elements; a key twice with different values is an error naming it). On an initialized
  // table: kOk when the entries are the same, else kFailedPrecondition.
  // Mutable tables: replaces the contents.
  Status Initialize(const Tensor& keys, const Tensor& values);
  // Mutable tables: adds or overwrites keys[i] -> values[i].
  Status Insert(const Tensor& keys, const Tensor& values);
  // Mutable tables: removes keys (absent keys are ignored).
  Status Remove(const Tensor& keys);
  // *values becomes a tensor of keys' shape holding each key's value, or default_value
  // (a scalar) for keys not in the table.
  Status Find(const Tensor& keys, const Tensor& default_value, Tensor* values) const;
  int64_t Size() const;
  // The entries in unspecified order, as two rank-1 tensors.
  Status Export(Tensor* keys, Tensor* values) const;

 private:
  // Integer keys are kept as int64, string keys as their bytes.
  using Key = std::variant<int64_t, std::string>;
  // Integer and bool values as int64, floating ones as double, strings as bytes.
  using Value = std::variant<int64_t, double, std::string>;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  Status CheckTypes(const Tensor& keys, const Tensor* values) const;
  Status Entries(const Tensor& keys, const Tensor& values, std::unordered_map<Key, Value, KeyHash>* out) const;

  const DType key_dtype_;
  const DType value_dtype_;
  const bool mutable_;
  mutable std::mutex mu_;
  bool initialized_ = false;  // guarded by mu_
  std::unordered_map<Key, Value, KeyHash> map_;  // guarded by mu_
};

}  // namespace graft
