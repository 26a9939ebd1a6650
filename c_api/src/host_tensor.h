// Host elements (a binding's numbers, bools or strings, flat with dims) to a tensor: the one
// place the C API applies the host dtype rule (core/eager/host_convert.h) for every caller.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "graft/tensor.h"

namespace graft::capi {

Status TensorFromHost(graft_host_kind kind, const void* elements, const int64_t* dims, int ndims, graft_dtype dtype,
                      Tensor* out);

}  // namespace graft::capi
