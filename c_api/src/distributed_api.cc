// C API: the job of processes that collectives run across (graft/distributed.h).
#include "c_api/src/api_error.h"
#include "core/runtime/collective_transport.h"
#include "graft/distributed.h"

namespace graft::capi {
namespace {

Status Joined(CollectiveTransport** out) {
  CollectiveTransport* t = CollectiveTransport::Get();
  if (t == nullptr) return errors::Unimplemented("no collective transport in this build of Graft");
  GRAFT_RETURN_IF_ERROR(t->Init());
  *out = t;
  return Status::Ok();
}

}  // namespace
}  // namespace graft::capi

extern "C" GRAFT_API int graft_distributed_init(void) {
  return graft::capi::Guard("graft_distributed_init", [&]() -> graft::Status {
    graft::CollectiveTransport* t = nullptr;
    return graft::capi::Joined(&t);
  });
}

extern "C" GRAFT_API int graft_distributed_rank(int* out_rank) {
  return graft::capi::Guard("graft_distributed_rank", [&]() -> graft::Status {
    if (out_rank == nullptr) return graft::errors::InvalidArgument("out_rank is NULL");
    graft::CollectiveTransport* t = nullptr;
    GRAFT_RETURN_IF_ERROR(graft::capi::Joined(&t));
    *out_rank = t->rank();
    return graft::Status::Ok();
  });
}

extern "C" GRAFT_API int graft_distributed_size(int* out_size) {
  return graft::capi::Guard("graft_distributed_size", [&]() -> graft::Status {
    if (out_size == nullptr) return graft::errors::InvalidArgument("out_size is NULL");
    graft::CollectiveTransport* t = nullptr;
    GRAFT_RETURN_IF_ERROR(graft::capi::Joined(&t));
    *out_size = t->size();
    return graft::Status::Ok();
  });
}

extern "C" GRAFT_API int graft_distributed_barrier(void) {
  return graft::capi::Guard("graft_distributed_barrier", [&]() -> graft::Status {
    graft::CollectiveTransport* t = nullptr;
    GRAFT_RETURN_IF_ERROR(graft::capi::Joined(&t));
    return t->Barrier();
  });
}

extern "C" GRAFT_API int graft_distributed_finalize(void) {
  return graft::capi::Guard("graft_distributed_finalize", [&]() -> graft::Status {
    graft::CollectiveTransport* t = graft::CollectiveTransport::Get();
    return t == nullptr ? graft::Status::Ok() : t->Finalize();
  });
}
