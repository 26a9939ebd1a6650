// The MPI transport of the collective ops: a CollectiveTransport over Graft's MPI module
// (libgraft_mpi.so.N, mpi_module.c), which it loads with dlopen on the first Init. The
// composition root installs it whatever the build: without the module (Graft built without
// MPI, or the module not installed) Init fails saying so, and nothing else changes.
#pragma once

#include <memory>

#include "core/runtime/collective_transport.h"

namespace graft::mpi {

// The module's file name: libgraft_mpi.so.<SONAME version of libgraft>.
std::unique_ptr<CollectiveTransport> MakeMpiTransport(const char* module_file_name);

}  // namespace graft::mpi
