// Host elements to a tensor (see host_tensor.h).
#include "c_api/src/host_tensor.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "core/eager/host_convert.h"

namespace graft::capi {

Status TensorFromHost(graft_host_kind kind, const void* elements, const int64_t* dims, int ndims, graft_dtype dtype,
                      Tensor* out) {
  if (ndims < 0) return errors::InvalidArgument("ndims is ", ndims);
  if (ndims > 0) GRAFT_CHECK_ARG(dims);
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return errors::InvalidArgument("dimension ", i, " is ", dims[i]);
    if (dims[i] > 0 && n > (int64_t{1} << 40) / dims[i]) return errors::InvalidArgument("too many elements");
    n *= dims[i];
  }
  if (n > 0) GRAFT_CHECK_ARG(elements);
  std::span<const int64_t> d(dims ? dims : nullptr, static_cast<size_t>(ndims));
  DType dt = static_cast<DType>(dtype);
  if (dtype != GRAFT_DTYPE_INVALID && !IsValidDType(dt)) return errors::InvalidArgument("dtype ", dtype, " is unknown");
  const size_t count = static_cast<size_t>(n);
  switch (kind) {
    case GRAFT_HOST_INT64:
      GRAFT_RETURN_IF_ERROR(eager::TensorFromInts({static_cast<const int64_t*>(elements), count}, d, dt, out));
      break;
    case GRAFT_HOST_DOUBLE:
      GRAFT_RETURN_IF_ERROR(eager::TensorFromDoubles({static_cast<const double*>(elements), count}, d, dt, out));
      break;
    case GRAFT_HOST_BOOL: {
      auto* b = static_cast<const graft_bool*>(elements);
      std::unique_ptr<bool[]> flat(new bool[count + 1]);
      for (size_t i = 0; i < count; ++i) flat[i] = b[i] != 0;
      GRAFT_RETURN_IF_ERROR(eager::TensorFromBools({flat.get(), count}, d, dt, out));
      break;
    }
    case GRAFT_HOST_STRING: {
      std::vector<std::string> strings;
      auto* s = static_cast<const char* const*>(elements);
      for (size_t i = 0; i < count; ++i) {
        if (s[i] == nullptr) return errors::InvalidArgument("string element ", i, " is NULL");
        strings.emplace_back(s[i]);
      }
      GRAFT_RETURN_IF_ERROR(eager::TensorFromHostStrings(std::move(strings), d, dt, out));
      break;
    }
    default: return errors::InvalidArgument("host_kind ", kind, " is not a GRAFT_HOST_* kind");
  }
  return Status::Ok();
}

}  // namespace graft::capi

extern "C" GRAFT_API int graft_tensor_from_host(graft_tensor** out, graft_host_kind kind, const void* elements,
                                                const int64_t* dims, int ndims, graft_dtype dtype) {
  return graft::capi::Guard("graft_tensor_from_host", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    graft::Tensor t;
    GRAFT_RETURN_IF_ERROR(graft::capi::TensorFromHost(kind, elements, dims, ndims, dtype, &t));
    *out = new graft_tensor(std::move(t));
    return graft::Status::Ok();
  });
}
