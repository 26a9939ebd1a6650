/*
 * graft/library.h: loading op libraries (TensorFlow's tf.load_op_library).
 *
 * An op library is a shared library made with GRAFT_DEFINE_OP_LIBRARY (graft/kernel.h). Once
 * loaded, its ops work as built-in ops do: graph building, eager execution, traced functions,
 * GraphDef import and export, SavedModels that use them, gradients. A library stays loaded, and
 * its ops registered, for the rest of the process (other threads may be running its kernels);
 * a graft_library handle only names it.
 *
 * Thread-safety: loads are serialized; a handle may be read from any thread.
 */
#ifndef GRAFT_LIBRARY_H
#define GRAFT_LIBRARY_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

typedef struct graft_library graft_library;

/*
 * Loads the op library at path (dlopen's rules: a path with a '/' is a file, else searched)
 * and registers what its init function registers, all or nothing. Loading a library that is
 * loaded already (the same file) registers nothing again and gives a new handle to it.
 * Errors: GRAFT_ENOTFOUND (no such file, or not an op library: no entry points; the message
 * has dlerror's), GRAFT_EUNIMPLEMENTED (built against a newer kernel ABI than this Graft's),
 * GRAFT_EEXISTS (an op it defines is registered already: the message names the op and who
 * registered it), or what its init returned, with its message. Free *out with
 * graft_library_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_library_load(graft_library **out, const char *path);
/* Frees the handle (the library stays loaded). NULL is a harmless no-op. */
GRAFT_API void graft_library_free(graft_library *library);
/* The file it was loaded from (absolute); borrowed, valid until the handle is freed. */
GRAFT_API const char *graft_library_path(const graft_library *library);
/* The op types it registered, in registration order: index 0 .. count-1; the name is borrowed,
 * valid until the handle is freed; NULL when index is out of range. */
GRAFT_API int graft_library_op_count(const graft_library *library);
GRAFT_API const char *graft_library_op_name(const graft_library *library, int index);

GRAFT_END_DECL

#endif /* GRAFT_LIBRARY_H */
