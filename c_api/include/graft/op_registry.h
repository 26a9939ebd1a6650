/*
 * graft/op_registry.h: adding op types, shape functions and gradients from outside Graft.
 *
 * The registry is process-wide and thread-safe. Plug-ins and bindings register op types with
 * an op definition builder (TensorFlow's spec strings), an optional shape function (a C
 * callback), and gradient functions by name. A name can be registered once: a second
 * registration is GRAFT_EEXISTS. Registrations last as long as the process, so payloads given
 * here must too.
 */
#ifndef GRAFT_OP_REGISTRY_H
#define GRAFT_OP_REGISTRY_H

#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/shape.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_op_def_builder graft_op_def_builder;
typedef struct graft_shape_context graft_shape_context;

/*
 * A shape function: reads the inputs' shapes, dtypes and attributes from ctx and sets each
 * output's shape. Returns GRAFT_OK, or an error code after graft_shape_context_fail. Runs on
 * the thread that creates the op; it must not create ops itself. ctx is borrowed for the call:
 * valid only until the shape function returns, on that thread.
 */
typedef int (*graft_shape_fn)(graft_shape_context *ctx, void *user_data);

/*
 * Starts an op definition. Op names are identifiers starting with a capital letter. Free *out
 * with graft_op_def_builder_free, unless it is given to graft_op_register, which consumes it.
 * A builder belongs to one thread at a time.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_new(graft_op_def_builder **out, const char *name);
/* Frees a builder that was not given to graft_op_register. NULL is a harmless no-op. */
GRAFT_API void graft_op_def_builder_free(graft_op_def_builder *builder);
/* Arguments: "x: T", "x: float", "values: N * T", "args: Tin", "ref: Ref(T)". */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_add_input(graft_op_def_builder *builder, const char *spec);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_add_output(graft_op_def_builder *builder, const char *spec);
/* Attributes: "T: {float, double}", "N: int >= 1", "axis: int = -1", "mode: {'a', 'b'} = 'a'". */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_add_attr(graft_op_def_builder *builder, const char *spec);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_set_stateful(graft_op_def_builder *builder, graft_bool stateful);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_set_commutative(graft_op_def_builder *builder,
                                                                         graft_bool commutative);
/* Without a shape function every output's shape is unknown. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_def_builder_set_shape_fn(graft_op_def_builder *builder, graft_shape_fn fn,
                                                                      void *user_data);

/*
 * Parses the definition and registers the op. The builder is consumed (freed) whether or not
 * this succeeds. GRAFT_EINVAL naming the spec that does not parse; GRAFT_EEXISTS for a name
 * that is taken.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_register(graft_op_def_builder *builder);

/* 1 if an op type of this name is registered (built-in or added). */
GRAFT_API graft_bool graft_op_is_registered(const char *name);

/* ---- Shape functions' view of an op being created ------------------------------------- */

/* Call these only from inside a shape function, with the ctx it was given (on its thread). */

GRAFT_API int graft_shape_context_num_inputs(const graft_shape_context *ctx);
GRAFT_API int graft_shape_context_num_outputs(const graft_shape_context *ctx);
GRAFT_API graft_dtype graft_shape_context_input_dtype(const graft_shape_context *ctx, int index);
GRAFT_API graft_dtype graft_shape_context_output_dtype(const graft_shape_context *ctx, int index);
/* Input index's partial shape; free it with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_input_shape(graft_shape **out, const graft_shape_context *ctx,
                                                                    int index);
/*
 * Input index's value when it is known while building (a constant); GRAFT_ENOTFOUND otherwise.
 * *out is a new handle sharing the constant's buffer: free it with graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_input_value(graft_tensor **out, const graft_shape_context *ctx,
                                                                    int index);
/* Attribute name of the op being created, copied into *out. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_attr_int(int64_t *out, const graft_shape_context *ctx,
                                                                 const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_attr_type(graft_dtype *out, const graft_shape_context *ctx,
                                                                  const char *name);
/* A shape attribute; free *out with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_attr_shape(graft_shape **out, const graft_shape_context *ctx,
                                                                   const char *name);
/* Sets output index's shape; shape is copied and stays the caller's. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_context_set_output_shape(graft_shape_context *ctx, int index,
                                                                         const graft_shape *shape);
/*
 * Records why the op cannot be created (message is copied); the shape function then returns the
 * code it chose.
 */
GRAFT_API void graft_shape_context_fail(graft_shape_context *ctx, const char *message);

/* ---- Gradients ------------------------------------------------------------------------ */

/* What a gradient function reads and sets: graft/gradients.h (graft_gradient_context_*). */
typedef struct graft_gradient_context graft_gradient_context;
typedef int (*graft_gradient_fn)(graft_gradient_context *ctx, void *user_data);

/*
 * Registers the gradient of op type `name` (or a name used in a gradient override map, as
 * TensorFlow's RegisterGradient). GRAFT_EEXISTS if one is registered. A gradient function
 * returns GRAFT_OK, or an error code after graft_error_set (graft/error.h): the gradient
 * computation then fails with that code and message.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_gradient_register(const char *name, graft_gradient_fn fn, void *user_data);
/* Declares that op type `name` has no gradient (TensorFlow's NoGradient). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_gradient_register_none(const char *name);

typedef int32_t graft_gradient_kind;
enum graft_gradient_kind_value {
  GRAFT_GRADIENT_UNREGISTERED = 0,
  GRAFT_GRADIENT_FUNCTION = 1,
  GRAFT_GRADIENT_NONE = 2 /* registered as not differentiable */
};
/* What is registered under name. */
GRAFT_API graft_gradient_kind graft_gradient_lookup(const char *name);

GRAFT_END_DECL

#endif /* GRAFT_OP_REGISTRY_H */
