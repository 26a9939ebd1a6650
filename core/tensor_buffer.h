// TensorBuffer: the memory behind a tensor, shared by every Tensor that refers to it.
// Host buffers are allocated aligned (AlignedBuffer), borrowed from the caller with a
// deallocator (BorrowedBuffer), or hold strings (StringBuffer). Device buffers of later
// devices derive from TensorBuffer too.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/memory_account.h"
#include "core/status.h"

namespace graft {

inline constexpr size_t kTensorAlignment = 64;

class TensorBuffer {
 public:
  virtual ~TensorBuffer() = default;
  virtual void* data() const = 0;
  virtual size_t size() const = 0;  // bytes
  // Graft's own memory, which a kernel may overwrite in place once nothing else holds it
  // (never true for memory borrowed from a caller).
  bool reusable() const { return reusable_; }

 protected:
  bool reusable_ = false;
};

class AlignedBuffer final : public TensorBuffer {
 public:
  // A buffer of bytes bytes aligned to kTensorAlignment, zero-filled when zero is set;
  // kResourceExhausted when the allocation fails or would pass a memory cap (the calling
  // thread's MemoryAccount, the process's). A size of 0 gives a null data().
  static Status Allocate(size_t bytes, bool zero, std::shared_ptr<TensorBuffer>* out);
  ~AlignedBuffer() override;
  void* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  // Only Allocate makes one (the key is private), with make_shared: one allocation for the
  // object and its control block.
  struct Key {};

 public:
  AlignedBuffer(Key, void* data, size_t size) : data_(data), size_(size) { reusable_ = true; }

 private:
  void* data_;
  size_t size_;
  MemoryCharge charge_;  // size_ bytes on the caps, given back after the memory
};

class BorrowedBuffer final : public TensorBuffer {
 public:
  using Deallocator = void (*)(void* data, size_t len, void* arg);
  BorrowedBuffer(void* data, size_t size, Deallocator dealloc, void* arg)
      : data_(data), size_(size), dealloc_(dealloc), arg_(arg) {}
  ~BorrowedBuffer() override {
    if (dealloc_ != nullptr) dealloc_(data_, size_, arg_);
  }
  BorrowedBuffer(const BorrowedBuffer&) = delete;
  BorrowedBuffer& operator=(const BorrowedBuffer&) = delete;
  void* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  void* data_;
  size_t size_;
  Deallocator dealloc_;
  void* arg_;
};

class StringBuffer final : public TensorBuffer {
 public:
  // charge: what the strings count against the memory caps (given back with the buffer).
  explicit StringBuffer(std::vector<std::string> strings, MemoryCharge charge = {})
      : strings_(std::move(strings)), charge_(std::move(charge)) {}
  void* data() const override { return nullptr; }
  size_t size() const override;  // total bytes of the strings
  const std::vector<std::string>& strings() const { return strings_; }
  std::vector<std::string>& mutable_strings() { return strings_; }

 private:
  std::vector<std::string> strings_;
  MemoryCharge charge_;
};

}  // namespace graft
