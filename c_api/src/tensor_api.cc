// C API: tensors (graft/tensor.h).
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/tensor.h"

using graft::Status;
using graft::Tensor;

namespace {

Status Dims(const int64_t* dims, int ndims, std::span<const int64_t>* out) {
  if (ndims < 0) return graft::errors::InvalidArgument("ndims is ", ndims, " (must be >= 0)");
  if (ndims > 0 && dims == nullptr) return graft::errors::InvalidArgument("argument 'dims' is NULL with ndims ", ndims);
  *out = ndims == 0 ? std::span<const int64_t>() : std::span<const int64_t>(dims, static_cast<size_t>(ndims));
  return Status::Ok();
}

Status Emit(graft_tensor** out, Tensor t) {
  *out = new graft_tensor(std::move(t));
  return Status::Ok();
}

}  // namespace

extern "C" {

GRAFT_API int graft_tensor_new(graft_tensor** out, graft_dtype dtype, const int64_t* dims, int ndims,
                               const void* data, size_t len) {
  return graft::capi::Guard("graft_tensor_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    std::span<const int64_t> d;
    GRAFT_RETURN_IF_ERROR(Dims(dims, ndims, &d));
    // Check the sizes before allocating anything.
    int64_t n = 0;
    size_t bytes = 0;
    GRAFT_RETURN_IF_ERROR(graft::FixedSizeByteCount(static_cast<graft::DType>(dtype), d, &n, &bytes));
    if (data != nullptr && len != bytes) {
      return graft::errors::InvalidArgument("data of ", len, " bytes does not match ", n, " elements of ",
                                            graft::DTypeName(static_cast<graft::DType>(dtype)), " (", bytes, " bytes)");
    }
    if (data == nullptr && len != 0) {
      return graft::errors::InvalidArgument("argument 'data' is NULL with len ", len);
    }
    Tensor t;
    auto dt = static_cast<graft::DType>(dtype);
    GRAFT_RETURN_IF_ERROR(data ? Tensor::AllocateUninitialized(dt, d, &t) : Tensor::Allocate(dt, d, &t));
    if (data != nullptr && bytes > 0) std::memcpy(t.raw_data(), data, bytes);
    return Emit(out, std::move(t));
  });
}

GRAFT_API int graft_tensor_new_borrowed(graft_tensor** out, graft_dtype dtype, const int64_t* dims, int ndims,
                                        void* data, size_t len, graft_deallocator deallocator,
                                        void* deallocator_user_data) {
  return graft::capi::Guard("graft_tensor_new_borrowed", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    std::span<const int64_t> d;
    GRAFT_RETURN_IF_ERROR(Dims(dims, ndims, &d));
    // The handle is allocated first so that nothing can fail after the buffer changes hands.
    auto handle = std::make_unique<graft_tensor>(Tensor());
    GRAFT_RETURN_IF_ERROR(Tensor::Borrow(static_cast<graft::DType>(dtype), d, data, len, deallocator,
                                         deallocator_user_data, &handle->tensor));
    *out = handle.release();
    return Status::Ok();
  });
}

GRAFT_API int graft_tensor_new_strings(graft_tensor** out, const int64_t* dims, int ndims,
                                       const char* const* strings, const size_t* lengths, size_t count) {
  return graft::capi::Guard("graft_tensor_new_strings", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    std::span<const int64_t> d;
    GRAFT_RETURN_IF_ERROR(Dims(dims, ndims, &d));
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(graft::CheckedNumElements(d, &n));
    if (static_cast<uint64_t>(n) != count) {
      return graft::errors::InvalidArgument(count, " strings do not match the ", n, " elements of the shape");
    }
    if (count > 0) GRAFT_CHECK_ARG(strings);
    std::vector<std::string> values;
    values.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (strings[i] == nullptr) return graft::errors::InvalidArgument("strings[", i, "] is NULL");
      values.emplace_back(strings[i], lengths ? lengths[i] : std::strlen(strings[i]));
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(d, std::move(values), &t));
    return Emit(out, std::move(t));
  });
}

GRAFT_API void graft_tensor_free(graft_tensor* tensor) { delete tensor; }

GRAFT_API graft_dtype graft_tensor_dtype(const graft_tensor* tensor) {
  return tensor ? static_cast<graft_dtype>(tensor->tensor.dtype()) : GRAFT_DTYPE_INVALID;
}

GRAFT_API int graft_tensor_rank(const graft_tensor* tensor) { return tensor ? tensor->tensor.rank() : -1; }

GRAFT_API int64_t graft_tensor_dim(const graft_tensor* tensor, int index) {
  if (tensor == nullptr || index < 0 || index >= tensor->tensor.rank()) return -1;
  return tensor->tensor.dim(index);
}

GRAFT_API int graft_tensor_shape(graft_shape** out, const graft_tensor* tensor) {
  return graft::capi::Guard("graft_tensor_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(tensor);
    *out = new graft_shape(tensor->tensor.shape());
    return Status::Ok();
  });
}

GRAFT_API int64_t graft_tensor_num_elements(const graft_tensor* tensor) {
  return tensor ? tensor->tensor.num_elements() : 0;
}

GRAFT_API size_t graft_tensor_byte_size(const graft_tensor* tensor) {
  return tensor ? tensor->tensor.byte_size() : 0;
}

GRAFT_API void* graft_tensor_data(const graft_tensor* tensor) {
  return tensor ? tensor->tensor.raw_data() : nullptr;
}

GRAFT_API int graft_tensor_string(const char** out, size_t* out_len, const graft_tensor* tensor, int64_t index) {
  return graft::capi::Guard("graft_tensor_string", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(out_len);
    GRAFT_CHECK_ARG(tensor);
    if (tensor->tensor.dtype() != graft::DType::kString) {
      return graft::errors::DTypeError("tensor of dtype ", graft::DTypeName(tensor->tensor.dtype()),
                                       " does not hold strings");
    }
    const auto& strings = tensor->tensor.strings();
    if (index < 0 || static_cast<uint64_t>(index) >= strings.size()) {
      return graft::errors::OutOfRange("index ", index, " is out of range for a string tensor of ",
                                       strings.size(), " elements");
    }
    const std::string& s = strings[static_cast<size_t>(index)];
    *out = s.data();
    *out_len = s.size();
    return Status::Ok();
  });
}

GRAFT_API int graft_tensor_share(graft_tensor** out, const graft_tensor* tensor) {
  return graft::capi::Guard("graft_tensor_share", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(tensor);
    return Emit(out, tensor->tensor);
  });
}

GRAFT_API graft_bool graft_tensor_is_exclusive(const graft_tensor* tensor) {
  // Strings, resources and variants own more than their bytes (DTypeSize 0): never exclusive.
  if (tensor == nullptr || graft::DTypeSize(tensor->tensor.dtype()) == 0 || tensor->tensor.raw_data() == nullptr) return 0;
  const std::shared_ptr<graft::TensorBuffer>& buf = tensor->tensor.buffer();
  return buf != nullptr && buf.use_count() == 1 && buf->reusable() ? 1 : 0;
}

GRAFT_API int graft_tensor_copy(graft_tensor** out, const graft_tensor* tensor) {
  return graft::capi::Guard("graft_tensor_copy", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(tensor);
    Tensor t;
    GRAFT_RETURN_IF_ERROR(tensor->tensor.Copy(&t));
    return Emit(out, std::move(t));
  });
}

}  // extern "C"
