// C API: registering ops, shape functions and gradients (graft/op_registry.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "c_api/src/pending_registrations.h"
#include "core/op_registry.h"
#include "graft/op_registry.h"

using graft::InferenceContext;
using graft::Status;
using graft::capi::Guard;

struct graft_op_def_builder {
  explicit graft_op_def_builder(std::string name) : builder(std::move(name)) {}
  graft::OpDefBuilder builder;
  graft_shape_fn shape_fn = nullptr;
  void* user_data = nullptr;
};

struct graft_shape_context {
  InferenceContext* ctx;
  std::string failure;
};

namespace {

Status CheckIndex(int index, int n, const char* what) {
  if (index < 0 || index >= n) return graft::errors::OutOfRange(what, " ", index, " is out of range (the op has ", n, ")");
  return Status::Ok();
}

// Adapts a C shape function to the core's ShapeFn.
graft::ShapeFn WrapShapeFn(graft_shape_fn fn, void* user_data) {
  return [fn, user_data](InferenceContext& c) -> Status {
    graft_shape_context ctx{&c, {}};
    int rc = fn(&ctx, user_data);
    if (rc == GRAFT_OK) return Status::Ok();
    std::string message = ctx.failure.empty() ? std::string("the shape function failed") : ctx.failure;
    switch (rc) {
      case GRAFT_EDTYPE: return graft::errors::DTypeError(message);
      case GRAFT_EINVAL: return graft::errors::InvalidArgument(message);
      default: return graft::errors::ShapeError(message);
    }
  };
}

}  // namespace

extern "C" {

GRAFT_API int graft_op_def_builder_new(graft_op_def_builder** out, const char* name) {
  return Guard("graft_op_def_builder_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(name);
    *out = new graft_op_def_builder(name);
    return Status::Ok();
  });
}

GRAFT_API void graft_op_def_builder_free(graft_op_def_builder* builder) { delete builder; }

GRAFT_API int graft_op_def_builder_add_input(graft_op_def_builder* b, const char* spec) {
  return Guard("graft_op_def_builder_add_input", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    GRAFT_CHECK_ARG(spec);
    b->builder.Input(spec);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_def_builder_add_output(graft_op_def_builder* b, const char* spec) {
  return Guard("graft_op_def_builder_add_output", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    GRAFT_CHECK_ARG(spec);
    b->builder.Output(spec);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_def_builder_add_attr(graft_op_def_builder* b, const char* spec) {
  return Guard("graft_op_def_builder_add_attr", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    GRAFT_CHECK_ARG(spec);
    b->builder.Attr(spec);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_def_builder_set_stateful(graft_op_def_builder* b, graft_bool stateful) {
  return Guard("graft_op_def_builder_set_stateful", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    if (stateful) b->builder.SetIsStateful();
    return Status::Ok();
  });
}

GRAFT_API int graft_op_def_builder_set_commutative(graft_op_def_builder* b, graft_bool commutative) {
  return Guard("graft_op_def_builder_set_commutative", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    if (commutative) b->builder.SetIsCommutative();
    return Status::Ok();
  });
}

GRAFT_API int graft_op_def_builder_set_shape_fn(graft_op_def_builder* b, graft_shape_fn fn, void* user_data) {
  return Guard("graft_op_def_builder_set_shape_fn", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    b->shape_fn = fn;
    b->user_data = user_data;
    return Status::Ok();
  });
}

GRAFT_API int graft_op_register(graft_op_def_builder* builder) {
  std::unique_ptr<graft_op_def_builder> owned(builder);
  return Guard("graft_op_register", [&]() -> Status {
    GRAFT_CHECK_ARG(builder);
    graft::ShapeFn fn = builder->shape_fn ? WrapShapeFn(builder->shape_fn, builder->user_data) : graft::ShapeFn();
    graft::OpDef def;
    GRAFT_RETURN_IF_ERROR(builder->builder.Finalize(&def));
    if (auto* pending = graft::capi::PendingRegistrations::Current()) {  // an op library's init
      std::string name = def.name;
      return pending->AddOp(name, [def = std::move(def), fn = std::move(fn)]() mutable {
        return graft::OpRegistry::Global().Register(std::move(def), std::move(fn));
      });
    }
    return graft::OpRegistry::Global().Register(std::move(def), std::move(fn));
  });
}

GRAFT_API graft_bool graft_op_is_registered(const char* name) {
  // The first use of the registry builds it (every built-in op), which allocates.
  try {
    return name != nullptr && graft::OpRegistry::Global().Find(name) != nullptr;
  } catch (...) {
    return 0;
  }
}

GRAFT_API int graft_shape_context_num_inputs(const graft_shape_context* c) { return c ? c->ctx->num_inputs() : 0; }
GRAFT_API int graft_shape_context_num_outputs(const graft_shape_context* c) { return c ? c->ctx->num_outputs() : 0; }

GRAFT_API graft_dtype graft_shape_context_input_dtype(const graft_shape_context* c, int index) {
  if (c == nullptr || index < 0 || index >= c->ctx->num_inputs()) return GRAFT_DTYPE_INVALID;
  return static_cast<graft_dtype>(c->ctx->input_type(index));
}

GRAFT_API graft_dtype graft_shape_context_output_dtype(const graft_shape_context* c, int index) {
  if (c == nullptr || index < 0 || index >= c->ctx->num_outputs()) return GRAFT_DTYPE_INVALID;
  return static_cast<graft_dtype>(c->ctx->output_type(index));
}

GRAFT_API int graft_shape_context_input_shape(graft_shape** out, const graft_shape_context* c, int index) {
  return Guard("graft_shape_context_input_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_RETURN_IF_ERROR(CheckIndex(index, c->ctx->num_inputs(), "input"));
    *out = new graft_shape(c->ctx->input(index));
    return Status::Ok();
  });
}

GRAFT_API int graft_shape_context_input_value(graft_tensor** out, const graft_shape_context* c, int index) {
  return Guard("graft_shape_context_input_value", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_RETURN_IF_ERROR(CheckIndex(index, c->ctx->num_inputs(), "input"));
    const graft::Tensor* v = c->ctx->input_value(index);
    if (v == nullptr) return graft::errors::NotFound("the value of input ", index, " is not known while building");
    *out = new graft_tensor(*v);
    return Status::Ok();
  });
}

GRAFT_API int graft_shape_context_attr_int(int64_t* out, const graft_shape_context* c, const char* name) {
  return Guard("graft_shape_context_attr_int", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    return c->ctx->GetAttr(name, out);
  });
}

GRAFT_API int graft_shape_context_attr_type(graft_dtype* out, const graft_shape_context* c, const char* name) {
  return Guard("graft_shape_context_attr_type", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    graft::DType d;
    GRAFT_RETURN_IF_ERROR(c->ctx->GetAttr(name, &d));
    *out = static_cast<graft_dtype>(d);
    return Status::Ok();
  });
}

GRAFT_API int graft_shape_context_attr_shape(graft_shape** out, const graft_shape_context* c, const char* name) {
  return Guard("graft_shape_context_attr_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    graft::PartialShape s;
    GRAFT_RETURN_IF_ERROR(c->ctx->GetAttr(name, &s));
    *out = new graft_shape(std::move(s));
    return Status::Ok();
  });
}

GRAFT_API int graft_shape_context_set_output_shape(graft_shape_context* c, int index, const graft_shape* shape) {
  return Guard("graft_shape_context_set_output_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(shape);
    GRAFT_RETURN_IF_ERROR(CheckIndex(index, c->ctx->num_outputs(), "output"));
    c->ctx->set_output(index, shape->shape);
    return Status::Ok();
  });
}

GRAFT_API void graft_shape_context_fail(graft_shape_context* c, const char* message) {
  if (c == nullptr) return;
  // Called from the plug-in's C shape function: nothing may be thrown through its frames.
  try {
    c->failure = message ? message : "";
  } catch (...) {
    c->failure.clear();  // out of memory: the generic "the shape function failed"
  }
}

GRAFT_API int graft_gradient_register(const char* name, graft_gradient_fn fn, void* user_data) {
  return Guard("graft_gradient_register", [&]() -> Status {
    GRAFT_CHECK_ARG(name);
    GRAFT_CHECK_ARG(fn);
    // The gradient builder will call fn with its context; the registry keeps it now.
    graft::GradientFn gradient = [fn, user_data](graft::GradientContext& ctx) -> Status {
      int rc = fn(reinterpret_cast<graft_gradient_context*>(&ctx), user_data);
      // Its code, and the message it set with graft_error_set (or of the graft call that failed in it).
      return graft::capi::CallbackStatus(rc, "the gradient function");
    };
    if (auto* pending = graft::capi::PendingRegistrations::Current()) {
      return pending->AddGradient(name, [n = std::string(name), gradient]() {
        return graft::GradientRegistry::Global().Register(n, gradient);
      });
    }
    return graft::GradientRegistry::Global().Register(name, std::move(gradient));
  });
}

GRAFT_API int graft_gradient_register_none(const char* name) {
  return Guard("graft_gradient_register_none", [&]() -> Status {
    GRAFT_CHECK_ARG(name);
    if (auto* pending = graft::capi::PendingRegistrations::Current()) {
      return pending->AddGradient(name, [n = std::string(name)]() {
        return graft::GradientRegistry::Global().RegisterNotDifferentiable(n);
      });
    }
    return graft::GradientRegistry::Global().RegisterNotDifferentiable(name);
  });
}

GRAFT_API graft_gradient_kind graft_gradient_lookup(const char* name) {
  if (name == nullptr) return GRAFT_GRADIENT_UNREGISTERED;
  try {  // the registry is made on first use
    const graft::GradientEntry* e = graft::GradientRegistry::Global().Find(name);
    if (e == nullptr) return GRAFT_GRADIENT_UNREGISTERED;
    return e->not_differentiable ? GRAFT_GRADIENT_NONE : GRAFT_GRADIENT_FUNCTION;
  } catch (...) {
    return GRAFT_GRADIENT_UNREGISTERED;
  }
}

}  // extern "C"
