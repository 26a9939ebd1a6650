// Tensor: a dense row-major value with a dtype, a fully-defined shape and a shared buffer.
// Copying a Tensor shares its buffer; Tensor::Copy makes a deep copy.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/partial_shape.h"
#include "core/status.h"
#include "core/tensor_buffer.h"

namespace graft {

class Tensor {
 public:
  Tensor() = default;  // an invalid (empty) tensor

  // A zero-filled tensor. Fails for dtypes without a fixed size (use FromStrings for
  // strings), for negative dimensions, for sizes that overflow and when memory runs out.
  static Status Allocate(DType dtype, std::span<const int64_t> dims, Tensor* out);
  // As Allocate, with the elements left uninitialized, for a caller that fills them all.
  static Status AllocateUninitialized(DType dtype, std::span<const int64_t> dims, Tensor* out);
  // A tensor over caller memory, used in place when it is aligned to the element size,
  // otherwise copied (and the deallocator called at once). On failure the deallocator is not
  // called.
  static Status Borrow(DType dtype, std::span<const int64_t> dims, void* data, size_t len,
                       BorrowedBuffer::Deallocator dealloc, void* arg, Tensor* out);
  // A string tensor holding strings. Under a memory cap (memory_account.h) the strings count
  // against it (their objects and their heap bytes) while the tensor's buffer lives, and a
  // tensor over the cap is kResourceExhausted.
  static Status FromStrings(std::span<const int64_t> dims, std::vector<std::string> strings, Tensor* out);
  // Whether n more strings (of about bytes_each bytes, when known) could be made under the
  // memory caps now (kResourceExhausted naming the bytes and the cap otherwise): what a kernel
  // asks before it makes a vector of n strings, so that a graph asking for a billion of them
  // fails before allocating. The strings' bytes are counted exactly when the tensor is made.
  static Status CheckStringsFit(int64_t n, int64_t bytes_each = 0);
  // A tensor of dtype and dims over buffer, which holds its elements somewhere else than host
  // memory (a device's: buffer->data() is null) and is at least FixedSizeByteCount long.
  static Status OnBuffer(DType dtype, std::span<const int64_t> dims, std::shared_ptr<TensorBuffer> buffer,
                         Tensor* out);
  // A scalar tensor of dtype (resource, or a reference dtype) over a special buffer
  // (HandleBuffer, RefBuffer: see core/variable.h).
  static Tensor Special(DType dtype, std::shared_ptr<TensorBuffer> buffer) {
    return Tensor(dtype, {}, 1, std::move(buffer));
  }

  bool valid() const { return buffer_ != nullptr; }
  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  PartialShape shape() const { return PartialShape(dims_); }
  int64_t num_elements() const { return num_elements_; }
  size_t byte_size() const { return buffer_ ? buffer_->size() : 0; }
  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  // The strings of a string tensor (empty for other dtypes).
  const std::vector<std::string>& strings() const;
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }

  Status Copy(Tensor* out) const;

 private:
  static Status AllocateImpl(DType dtype, std::span<const int64_t> dims, bool zero, Tensor* out);
  Tensor(DType dtype, std::vector<int64_t> dims, int64_t n, std::shared_ptr<TensorBuffer> buffer)
      : dtype_(dtype), dims_(std::move(dims)), num_elements_(n), buffer_(std::move(buffer)) {}

  DType dtype_ = DType::kInvalid;
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
};

// Checks that a dtype can be held in a plain host buffer and computes the byte size of
// dims elements of it, without overflow.
Status FixedSizeByteCount(DType dtype, std::span<const int64_t> dims, int64_t* num_elements, size_t* bytes);

}  // namespace graft
