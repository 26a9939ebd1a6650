// TensorStack: the value behind TensorFlow's stack ops (StackV2, StackPushV2, StackPopV2,
// StackCloseV2), which TensorFlow 1's loop gradients use to keep each iteration's values: a
// last-in first-out store of tensors of one dtype, changed in place.
//
// A stack travels through a graph as a scalar resource tensor over a TensorStackBuffer. Unlike
// a TensorList it is mutable, so pushing and popping cost O(1) however long the stack is; each
// run of a StackV2 op makes a new stack, which lives as long as a tensor carries it. Pushes and
// pops lock the stack, so ops of one run (or runs sharing a handle) may use it from several
// threads, in whatever order their dependencies allow.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace graft {

struct TensorStack {
  TensorStack(DType dtype, int64_t max) : element_dtype(dtype), max_size(max) {}
  const DType element_dtype;
  const int64_t max_size;  // -1: unbounded
  std::mutex mu;
  std::vector<Tensor> items;  // guarded by mu; the top is the back
};

// The buffer of a scalar resource tensor that carries a TensorStack.
class TensorStackBuffer final : public TensorBuffer {
 public:
  explicit TensorStackBuffer(std::shared_ptr<TensorStack> stack) : stack_(std::move(stack)) {}
  void* data() const override { return nullptr; }
  size_t size() const override { return 0; }
  const std::shared_ptr<TensorStack>& stack() const { return stack_; }

 private:
  std::shared_ptr<TensorStack> stack_;
};

inline Tensor TensorStackToTensor(std::shared_ptr<TensorStack> stack) {
  return Tensor::Special(DType::kResource, std::make_shared<TensorStackBuffer>(std::move(stack)));
}

// The stack that t carries; an error naming `what` when t is not a stack handle.
inline Status GetTensorStack(const Tensor& t, std::string_view what, std::shared_ptr<TensorStack>* out) {
  const auto* b = t.valid() && t.dtype() == DType::kResource && t.rank() == 0
                      ? dynamic_cast<const TensorStackBuffer*>(t.buffer().get())
                      : nullptr;
  if (b == nullptr || b->stack() == nullptr) {
    return errors::InvalidArgument(what, " is not a stack handle (a scalar resource tensor made by StackV2)");
  }
  *out = b->stack();
  return Status::Ok();
}

}  // namespace graft
