// C API: dtypes (graft/dtype.h).
#include "c_api/src/api_error.h"
#include "core/dtype.h"
#include "graft/dtype.h"

using graft::DType;

namespace {
DType D(graft_dtype d) { return static_cast<DType>(d); }
graft_dtype C(DType d) { return static_cast<graft_dtype>(d); }

graft::Status Limits(graft_dtype dtype, graft::DTypeLimits* out) {
  return graft::GetDTypeLimits(D(dtype), out);
}
}  // namespace

extern "C" {

GRAFT_API graft_bool graft_dtype_is_valid(graft_dtype dtype) { return graft::IsValidDType(D(dtype)); }
GRAFT_API int graft_dtype_list(graft_dtype* out, int capacity) {
  int n = 0;
  for (graft_dtype d = GRAFT_FLOAT32; d <= GRAFT_UINT64; ++d) {
    if (!graft::IsValidDType(D(d))) continue;
    if (out != nullptr && n < capacity) out[n] = d;
    ++n;
  }
  return n;
}

GRAFT_API const char* graft_dtype_name(graft_dtype dtype) { return graft::DTypeNameOrNull(D(dtype)); }

GRAFT_API int graft_dtype_from_name(graft_dtype* out, const char* name) {
  return graft::capi::Guard("graft_dtype_from_name", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(name);
    auto dtype = graft::DTypeFromName(name);
    if (!dtype) return graft::errors::DTypeError("'", name, "' is not the name of a dtype");
    *out = C(*dtype);
    return graft::Status::Ok();
  });
}

GRAFT_API size_t graft_dtype_size(graft_dtype dtype) { return graft::DTypeSize(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_floating(graft_dtype dtype) { return graft::DTypeIsFloating(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_complex(graft_dtype dtype) { return graft::DTypeIsComplex(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_integer(graft_dtype dtype) { return graft::DTypeIsInteger(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_quantized(graft_dtype dtype) { return graft::DTypeIsQuantized(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_unsigned(graft_dtype dtype) { return graft::DTypeIsUnsigned(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_bool(graft_dtype dtype) { return graft::DTypeIsBool(D(dtype)); }
GRAFT_API graft_bool graft_dtype_is_ref(graft_dtype dtype) { return graft::IsRefDType(D(dtype)); }
GRAFT_API graft_dtype graft_dtype_base(graft_dtype dtype) { return C(graft::BaseDType(D(dtype))); }
GRAFT_API graft_dtype graft_dtype_as_ref(graft_dtype dtype) { return C(graft::RefDType(D(dtype))); }
GRAFT_API graft_dtype graft_dtype_real(graft_dtype dtype) { return C(graft::RealDType(D(dtype))); }

GRAFT_API graft_bool graft_dtype_is_compatible_with(graft_dtype self, graft_dtype other) {
  return graft::DTypeIsCompatibleWith(D(self), D(other));
}

GRAFT_API int graft_dtype_min(double* out, graft_dtype dtype) {
  return graft::capi::Guard("graft_dtype_min", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    graft::DTypeLimits l;
    GRAFT_RETURN_IF_ERROR(Limits(dtype, &l));
    *out = l.min;
    return graft::Status::Ok();
  });
}

GRAFT_API int graft_dtype_max(double* out, graft_dtype dtype) {
  return graft::capi::Guard("graft_dtype_max", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    graft::DTypeLimits l;
    GRAFT_RETURN_IF_ERROR(Limits(dtype, &l));
    *out = l.max;
    return graft::Status::Ok();
  });
}

GRAFT_API int graft_dtype_int_min(int64_t* out, graft_dtype dtype) {
  return graft::capi::Guard("graft_dtype_int_min", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    graft::DTypeLimits l;
    GRAFT_RETURN_IF_ERROR(Limits(dtype, &l));
    if (!l.is_integer) return graft::errors::DTypeError(graft::DTypeName(graft::BaseDType(D(dtype))), " is not an integer dtype");
    *out = l.int_min;
    return graft::Status::Ok();
  });
}

GRAFT_API int graft_dtype_int_max(uint64_t* out, graft_dtype dtype) {
  return graft::capi::Guard("graft_dtype_int_max", [&]() -> graft::Status {
    GRAFT_CHECK_ARG(out);
    graft::DTypeLimits l;
    GRAFT_RETURN_IF_ERROR(Limits(dtype, &l));
    if (!l.is_integer) return graft::errors::DTypeError(graft::DTypeName(graft::BaseDType(D(dtype))), " is not an integer dtype");
    *out = l.int_max;
    return graft::Status::Ok();
  });
}

}  // extern "C"
