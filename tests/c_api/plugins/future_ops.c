/* A test op library that says it was built against a kernel ABI newer than any Graft has. */
#include <stdint.h>

#include <graft/graft.h>

GRAFT_OP_LIBRARY_LINKAGE GRAFT_OP_LIBRARY_EXPORT uint32_t graft_op_library_abi_version(void) { return 999; }
GRAFT_OP_LIBRARY_LINKAGE GRAFT_OP_LIBRARY_EXPORT int graft_op_library_init(void) { return GRAFT_OK; }
