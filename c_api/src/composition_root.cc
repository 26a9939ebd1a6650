#include "c_api/src/composition_root.h"

#include "core/eager/host_function_grad_kernel.h"
#include "core/node_validator.h"
#include "core/runtime/collective_transport.h"
#include "core/runtime/control_flow_kernels.h"
#include "core/runtime/function_call_kernel.h"
#include "core/runtime/host_function.h"
#include "core/runtime/kernel.h"
#include "graft/version.h"
#include "kernels/cpu/register.h"
#include "kernels/mpi/mpi_transport.h"
#ifdef GRAFT_HAVE_OPENCL
#include "kernels/opencl/register.h"
#endif

#define GRAFT_STRINGIFY_(x) #x
#define GRAFT_STRINGIFY(x) GRAFT_STRINGIFY_(x)

namespace graft::capi {

namespace {

void RegisterAll() {
  KernelRegistry& kernels = KernelRegistry::Global();
  RegisterBuiltinKernels(kernels);
  RegisterFunctionCallKernels(kernels);
  RegisterHostFunctionKernels(kernels);
  eager::RegisterHostFunctionGradKernels(kernels);
  RegisterControlFlowKernels(kernels);
#ifdef GRAFT_HAVE_OPENCL
  // The OpenCL device's kernels and its device types (devices are found on first use).
  opencl::RegisterOpenCl(kernels);
#endif
  // The collective ops' transport: MPI through Graft's MPI module, loaded on first use.
  CollectiveTransport::Install(mpi::MakeMpiTransport("libgraft_mpi.so." GRAFT_STRINGIFY(GRAFT_SOVERSION)));
  // Ops built through the API are refused when every kernel of theirs refuses their dtypes.
  NodeValidatorRegistry::Global().Add(
      [](const std::string& op, const std::string& node_name, const AttrMap& attrs) {
        return KernelRegistry::Global().CheckSupported(op, node_name, attrs);
      });
}

}  // namespace

void RegisterBuiltins() {
  // A function-local static: after the first call its check is one inlined load, where
  // std::call_once costs a call and thread-local bookkeeping on every C call. A throw leaves
  // it uninitialised, so the next call tries again.
  static const bool registered = (RegisterAll(), true);
  (void)registered;
}

}  // namespace graft::capi
