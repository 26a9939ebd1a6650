/*
 * graft/kernel.h: kernels written outside Graft, and op libraries (plug-ins) that add ops.
 *
 * A kernel is three C callbacks and a user data pointer: create (once per op node, when the
 * graph, function or eager op is prepared: reads attributes and makes the node's state),
 * compute (each time the op runs: reads inputs, allocates or sets outputs), delete (frees the
 * state). Everything crosses as C types, so a kernel built with another compiler or C++
 * standard library works. A kernel runs on the CPU device ("CPU"); compute may run on several
 * threads at once for different runs, so it must not change shared state without a lock.
 *
 * An op library is a shared library with the two entry points GRAFT_DEFINE_OP_LIBRARY makes:
 * graft_library_load (graft/library.h) dlopens it, checks the kernel ABI version it was built
 * against, and calls its init function, which registers op definitions (graft_op_register),
 * shape functions, kernels (graft_kernel_register) and gradients (graft_gradient_register)
 * with the same calls a program uses. What it registers takes effect only when init returns
 * GRAFT_OK and every registration is valid: a library that fails halfway registers nothing.
 *
 *   static int init(void) {
 *     graft_op_def_builder *b = NULL;
 *     int rc = graft_op_def_builder_new(&b, "ZeroOut");
 *     if (rc == GRAFT_OK) rc = graft_op_def_builder_add_input(b, "to_zero: int32");
 *     ...
 *     if (rc == GRAFT_OK) rc = graft_op_register(b); else graft_op_def_builder_free(b);
 *     return rc;
 *   }
 *   GRAFT_DEFINE_OP_LIBRARY(init)
 *
 * Ownership: contexts passed to callbacks are borrowed for the callback's duration only.
 */
#ifndef GRAFT_KERNEL_H
#define GRAFT_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

/*
 * The kernel ABI version: what graft/kernel.h and graft/op_registry.h give a plug-in. It grows
 * by one when functions are added (never changed); a library built against version N loads
 * into any Graft whose version is N or newer.
 */
#define GRAFT_KERNEL_ABI_VERSION 1u

typedef struct graft_kernel_builder graft_kernel_builder;
typedef struct graft_kernel_construction graft_kernel_construction;
typedef struct graft_kernel_context graft_kernel_context;

/*
 * Makes a node's state (*state, NULL allowed) from its attributes. Returns GRAFT_OK, or an
 * error code after graft_error_set (graft/error.h): the graph, function or eager op then fails
 * to prepare with that code and message, naming the op.
 */
typedef int (*graft_kernel_create_fn)(void **state, const graft_kernel_construction *ctx, void *user_data);
/* Runs the op once. Returns GRAFT_OK, or an error code after graft_error_set: the run fails
 * with it, naming the op. */
typedef int (*graft_kernel_compute_fn)(graft_kernel_context *ctx, void *state);
/* Frees a state create made (called once per successful create; may be NULL). */
typedef void (*graft_kernel_delete_fn)(void *state);

/*
 * Starts a kernel for op type `op` on device type `device_type` ("CPU"). create and delete
 * may be NULL (no state); compute may not. user_data is given to create and must live as long
 * as the process (registrations are never undone). Free *out with graft_kernel_builder_free
 * unless given to graft_kernel_register, which consumes it.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_builder_new(graft_kernel_builder **out, const char *op,
                                                             const char *device_type, graft_kernel_create_fn create,
                                                             graft_kernel_compute_fn compute,
                                                             graft_kernel_delete_fn del, void *user_data);
/* Restricts the kernel to nodes whose type attribute `attr` is one of dtypes[0..n) (n >= 1).
 * At most one constraint per kernel. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_builder_type_constraint(graft_kernel_builder *builder,
                                                                         const char *attr, const graft_dtype *dtypes,
                                                                         int n);
GRAFT_API void graft_kernel_builder_free(graft_kernel_builder *builder);
/*
 * Registers the kernel (consuming builder, also on failure). The op must be registered (in
 * this library or before); GRAFT_EEXISTS when a kernel for the same op, device and dtypes is.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_register(graft_kernel_builder *builder);

/* ---- At create: the node ----------------------------------------------------------------- */

/* The node's name and op type; borrowed, valid while create runs. */
GRAFT_API const char *graft_kernel_construction_node_name(const graft_kernel_construction *ctx);
GRAFT_API const char *graft_kernel_construction_op_type(const graft_kernel_construction *ctx);
/* Attribute `name` of the node: GRAFT_ENOTFOUND when absent, GRAFT_EINVAL when of another type. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_int(int64_t *out,
                                                                       const graft_kernel_construction *ctx,
                                                                       const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_float(float *out,
                                                                         const graft_kernel_construction *ctx,
                                                                         const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_bool(graft_bool *out,
                                                                        const graft_kernel_construction *ctx,
                                                                        const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_type(graft_dtype *out,
                                                                        const graft_kernel_construction *ctx,
                                                                        const char *name);
/* A string attribute: *out borrowed (not NUL-terminated if the value holds NULs: use *len),
 * valid while create runs. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_string(const char **out, size_t *len,
                                                                          const graft_kernel_construction *ctx,
                                                                          const char *name);
/* An int list attribute: *count gets its length; values[0..min(capacity, count)) its values. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_construction_attr_int_list(int64_t *values, int capacity, int *count,
                                                                            const graft_kernel_construction *ctx,
                                                                            const char *name);

/* ---- At compute: inputs and outputs ------------------------------------------------------- */

GRAFT_API int graft_kernel_context_num_inputs(const graft_kernel_context *ctx);
GRAFT_API int graft_kernel_context_num_outputs(const graft_kernel_context *ctx);
/* Input index; borrowed, valid while compute runs (its data must not be written). NULL when
 * index is out of range. */
GRAFT_API const graft_tensor *graft_kernel_context_input(const graft_kernel_context *ctx, int index);
/*
 * Allocates output index (uninitialized elements, fixed-size dtypes) and sets *out to it,
 * borrowed and valid while compute runs: write its elements through graft_tensor_data.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_context_allocate_output(graft_tensor **out, graft_kernel_context *ctx,
                                                                         int index, graft_dtype dtype,
                                                                         const int64_t *dims, int ndims);
/* Sets output index to tensor (its buffer shared, e.g. an input passed through); tensor stays
 * the caller's. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_kernel_context_set_output(graft_kernel_context *ctx, int index,
                                                                    const graft_tensor *tensor);

/* ---- Op libraries ------------------------------------------------------------------------- */

#if defined(_WIN32)
#define GRAFT_OP_LIBRARY_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define GRAFT_OP_LIBRARY_EXPORT __attribute__((visibility("default")))
#else
#define GRAFT_OP_LIBRARY_EXPORT
#endif

/* The entry points of an op library: the kernel ABI version it was built against, and its
 * init function (int init(void), returning GRAFT_OK or an error code after graft_error_set). */
#ifdef __cplusplus
#define GRAFT_OP_LIBRARY_LINKAGE extern "C"
#else
#define GRAFT_OP_LIBRARY_LINKAGE
#endif
#define GRAFT_DEFINE_OP_LIBRARY(init)                                                                       \
  GRAFT_OP_LIBRARY_LINKAGE GRAFT_OP_LIBRARY_EXPORT uint32_t graft_op_library_abi_version(void) {          \
    return GRAFT_KERNEL_ABI_VERSION;                                                                      \
  }                                                                                                       \
  GRAFT_OP_LIBRARY_LINKAGE GRAFT_OP_LIBRARY_EXPORT int graft_op_library_init(void) { return (init)(); }

GRAFT_END_DECL

#endif /* GRAFT_KERNEL_H */
