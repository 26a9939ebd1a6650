#include "core/tensor.h"

#include <cstdint>
#include <cstring>

namespace graft {

Status FixedSizeByteCount(DType dtype, std::span<const int64_t> dims, int64_t* num_elements, size_t* bytes) {
  if (!IsValidDType(dtype)) {
    return errors::DTypeError("invalid dtype ", static_cast<int32_t>(dtype));
  }
  if (IsRefDType(dtype)) {
    return errors::DTypeError("cannot make a tensor of reference dtype ", DTypeName(dtype),
                              " (use its base dtype ", DTypeName(BaseDType(dtype)), ")");
  }
  size_t elem = DTypeSize(dtype);
  if (elem == 0) {
    return errors::DTypeError("cannot make a tensor of dtype ", DTypeName(dtype),
                              " from host memory", dtype == DType::kString ? " (use string tensors)" : "");
  }
  GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, num_elements));
  size_t total = 0;
  // Byte sizes stay within PTRDIFF_MAX so that pointer arithmetic over a buffer is defined.
  if (__builtin_mul_overflow(static_cast<uint64_t>(*num_elements), elem, &total) ||
      total > static_cast<size_t>(PTRDIFF_MAX)) {
    return errors::OutOfRange("a tensor of ", *num_elements, " ", DTypeName(dtype),
                              " elements overflows the addressable size");
  }
  *bytes = total;
  return Status::Ok();
}

Status Tensor::Allocate(DType dtype, std::span<const int64_t> dims, Tensor* out) {
  return AllocateImpl(dtype, dims, /*zero=*/true, out);
}

Status Tensor::AllocateUninitialized(DType dtype, std::span<const int64_t> dims, Tensor* out) {
  return AllocateImpl(dtype, dims, /*zero=*/false, out);
}

Status Tensor::AllocateImpl(DType dtype, std::span<const int64_t> dims, bool zero, Tensor* out) {
  int64_t n = 0;
  size_t bytes = 0;
  GRAFT_RETURN_IF_ERROR(FixedSizeByteCount(dtype, dims, &n, &bytes));
  std::shared_ptr<TensorBuffer> buffer;
  GRAFT_RETURN_IF_ERROR(AlignedBuffer::Allocate(bytes, zero, &buffer));
  *out = Tensor(dtype, std::vector<int64_t>(dims.begin(), dims.end()), n, std::move(buffer));
  return Status::Ok();
}

Status Tensor::OnBuffer(DType dtype, std::span<const int64_t> dims, std::shared_ptr<TensorBuffer> buffer,
                        Tensor* out) {
  int64_t n = 0;
  size_t bytes = 0;
  GRAFT_RETURN_IF_ERROR(FixedSizeByteCount(dtype, dims, &n, &bytes));
  if (buffer == nullptr || buffer->size() < bytes) {
    return errors::InvalidArgument("a device buffer of ", buffer ? buffer->size() : 0, " bytes cannot hold ", n,
                                   " elements of ", DTypeName(dtype));
  }
  *out = Tensor(dtype, std::vector<int64_t>(dims.begin(), dims.end()), n, std::move(buffer));
  return Status::Ok();
}

Status Tensor::Borrow(DType dtype, std::span<const int64_t> dims, void* data, size_t len,
                      BorrowedBuffer::Deallocator dealloc, void* arg, Tensor* out) {
  int64_t n = 0;
  size_t bytes = 0;
  GRAFT_RETURN_IF_ERROR(FixedSizeByteCount(dtype, dims, &n, &bytes));
  if (len != bytes) {
    return errors::InvalidArgument("buffer of ", len, " bytes does not match ", n, " elements of ",
                                   DTypeName(dtype), " (", bytes, " bytes)");
  }
  if (data == nullptr && bytes > 0) {
    return errors::InvalidArgument("buffer of ", bytes, " bytes is NULL");
  }
  size_t elem = DTypeSize(dtype);
  std::vector<int64_t> d(dims.begin(), dims.end());
  if (reinterpret_cast<uintptr_t>(data) % elem != 0) {
    // Kernels need elements at their natural alignment: copy, and give the memory back now.
    Tensor copy;
    GRAFT_RETURN_IF_ERROR(AllocateUninitialized(dtype, dims, &copy));
    std::memcpy(copy.raw_data(), data, bytes);
    if (dealloc != nullptr) dealloc(data, len, arg);
    *out = std::move(copy);
    return Status::Ok();
  }
  auto buffer = std::make_shared<BorrowedBuffer>(data, len, dealloc, arg);
  *out = Tensor(dtype, std::move(d), n, std::move(buffer));
  return Status::Ok();
}

Status Tensor::FromStrings(std::span<const int64_t> dims, std::vector<std::string> strings, Tensor* out) {
  int64_t n = 0;
  GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, &n));
  if (static_cast<uint64_t>(n) != strings.size()) {
    return errors::InvalidArgument(strings.size(), " strings do not match the ", n, " elements of shape ",
                                   PartialShape(std::vector<int64_t>(dims.begin(), dims.end())).ToString());
  }
  MemoryCharge charge;
  if (MemoryCharge::Active()) {
    size_t bytes = strings.capacity() * sizeof(std::string);
    const size_t inline_capacity = std::string().capacity();
    for (const std::string& s : strings) {
      if (s.capacity() > inline_capacity) bytes += s.capacity() + 1;  // on the heap
    }
    GRAFT_RETURN_IF_ERROR(charge.Charge(bytes));
  }
  auto buffer = std::make_shared<StringBuffer>(std::move(strings), std::move(charge));
  *out = Tensor(DType::kString, std::vector<int64_t>(dims.begin(), dims.end()), n, std::move(buffer));
  return Status::Ok();
}

Status Tensor::CheckStringsFit(int64_t n, int64_t bytes_each) {
  if (!MemoryCharge::Active() || n <= 0) return Status::Ok();
  size_t bytes = 0;
  if (bytes_each < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(n), sizeof(std::string) + static_cast<uint64_t>(bytes_each), &bytes)) {
    return errors::ResourceExhausted("cannot allocate ", n, " strings of ", bytes_each, " bytes");
  }
  return MemoryCharge::CheckFits(bytes);
}

const std::vector<std::string>& Tensor::strings() const {
  static const std::vector<std::string> kNone;
  if (dtype_ != DType::kString || buffer_ == nullptr) return kNone;
  return static_cast<const StringBuffer*>(buffer_.get())->strings();
}

Status Tensor::Copy(Tensor* out) const {
  if (!valid()) return errors::InvalidArgument("cannot copy an invalid tensor");
  if (dtype_ == DType::kString) return FromStrings(dims_, strings(), out);
  Tensor t;
  GRAFT_RETURN_IF_ERROR(AllocateUninitialized(dtype_, dims_, &t));
  if (byte_size() > 0) std::memcpy(t.raw_data(), raw_data(), byte_size());
  *out = std::move(t);
  return Status::Ok();
}

}  // namespace graft
