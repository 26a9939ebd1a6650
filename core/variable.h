// Variable: the state behind a resource variable (VarHandleOp) or a TensorFlow 1 reference
// variable (VariableV2), kept by a session's ResourceMgr across runs.
#pragma once

#include <atomic>

#include <memory>
#include <mutex>
#include <string>

#include "core/tensor.h"

namespace graft {

struct Variable {
  DType dtype = DType::kInvalid;
  PartialShape shape;  // declared shape (may be partial)
  std::mutex mu;       // guards value and initialized
  Tensor value;
  bool initialized = false;
};

// A resource handle: names a resource in a ResourceMgr. Carried by scalar tensors of dtype
// resource (the output of VarHandleOp).
struct ResourceHandle {
  std::string container;
  std::string name;
  DType dtype = DType::kInvalid;
  PartialShape shape;
};

// The buffer of a scalar resource tensor.
class HandleBuffer final : public TensorBuffer {
 public:
  explicit HandleBuffer(ResourceHandle h) : handle_(std::move(h)) {}
  void* data() const override { return nullptr; }
  size_t size() const override { return 0; }
  const ResourceHandle& handle() const { return handle_; }
  // Whether a gradient tape that watches accessed variables watches this one when it is read
  // (TensorFlow's trainable); every copy of the handle tensor shares it.
  bool trainable() const { return trainable_.load(std::memory_order_relaxed); }
  void set_trainable(bool t) { trainable_.store(t, std::memory_order_relaxed); }

 private:
  ResourceHandle handle_;
  std::atomic<bool> trainable_{true};
};

// The buffer of a reference tensor (a TensorFlow 1 variable's output): it points at the
// variable, whose current value readers take.
class RefBuffer final : public TensorBuffer {
 public:
  explicit RefBuffer(std::shared_ptr<Variable> v) : var_(std::move(v)) {}
  void* data() const override { return nullptr; }
  size_t size() const override { return 0; }
  const std::shared_ptr<Variable>& variable() const { return var_; }

 private:
  std::shared_ptr<Variable> var_;
};

}  // namespace graft
