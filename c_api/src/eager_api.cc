// C API: eager execution, values, op calls and variables (graft/eager.h).
#include <algorithm>
#include <memory>

#include "c_api/src/api_error.h"
#include "core/device_spec.h"
#include "c_api/src/eager_handles.h"
#include "c_api/src/host_tensor.h"
#include "c_api/src/run_options_api.h"
#include "core/runtime/run_control.h"
#include "core/variable.h"

using graft::Status;
using graft::capi::Guard;
using graft::eager::OpCall;
using graft::eager::Value;

namespace {

Status NewValue(graft_value** out, Value v) {
  *out = new graft_value{std::move(v)};
  return Status::Ok();
}

Status ExecuteOne(graft_context* ctx, OpCall call, std::vector<Value>* outputs) {
  return ctx->ctx.Execute(call, outputs);
}

Status VariableDType(const graft_value* handle, graft::DType* out) {
  const auto* hb = handle->v.is_symbolic() ? nullptr
                                           : dynamic_cast<const graft::HandleBuffer*>(handle->v.tensor.buffer().get());
  if (hb == nullptr) return graft::errors::InvalidArgument("the value is not a variable handle (from graft_variable_new)");
  *out = hb->handle().dtype;
  return Status::Ok();
}

Status UpdateVariable(graft_context* ctx, const graft_value* handle, const graft_value* value, const char* op) {
  GRAFT_CHECK_ARG(ctx);
  GRAFT_CHECK_ARG(handle);
  GRAFT_CHECK_ARG(value);
  graft::DType dtype = graft::DType::kInvalid;
  GRAFT_RETURN_IF_ERROR(VariableDType(handle, &dtype));
  OpCall call;
  call.type = op;
  call.inputs = {{{handle->v}, false}, {{value->v}, false}};
  call.attrs["dtype"] = graft::AttrValue::Type(dtype);
  std::vector<Value> none;
  return ExecuteOne(ctx, std::move(call), &none);
}

}  // namespace

namespace graft::capi {
graft_context* ToC(eager::Context& ctx) { return static_cast<graft_context*>(ctx.handle()); }

Status HandOutValues(graft_value** outputs, int capacity, int* noutputs, std::vector<Value>& values) {
  if (noutputs) *noutputs = static_cast<int>(values.size());
  const size_t n = std::min(values.size(), static_cast<size_t>(capacity < 0 ? 0 : capacity));
  if (n == 1) {  // the common case: one allocation
    outputs[0] = new graft_value{std::move(values[0])};
    return Status::Ok();
  }
  std::vector<std::unique_ptr<graft_value>> handles;
  for (size_t i = 0; i < n; ++i) handles.push_back(std::make_unique<graft_value>(graft_value{std::move(values[i])}));
  for (size_t i = 0; i < handles.size(); ++i) outputs[i] = handles[i].release();
  return Status::Ok();
}
}  // namespace graft::capi

extern "C" {

GRAFT_API int graft_context_new(graft_context** out) {
  return Guard("graft_context_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    *out = new graft_context();
    return Status::Ok();
  });
}

GRAFT_API void graft_context_free(graft_context* ctx) { delete ctx; }

GRAFT_API graft_bool graft_context_is_tracing(const graft_context* ctx) {
  return ctx != nullptr && ctx->ctx.current_trace() != nullptr;
}

GRAFT_API int graft_context_trace_graph(graft_graph** out, graft_context* ctx) {
  return Guard("graft_context_trace_graph", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    graft::eager::Trace* trace = ctx->ctx.current_trace();
    if (trace == nullptr) return graft::errors::FailedPrecondition("no function of the context is being traced on this thread");
    return graft::capi::NewReference(graft::capi::HandleOf(trace->graph()), out);
  });
}

GRAFT_API void graft_context_clear_caches(graft_context* ctx) {
  if (ctx == nullptr) return;
  try {
    ctx->ctx.ClearKernelCache();
  } catch (...) {
    // Out of memory while retiring the kernels: the cache stays as it was.
  }
}

GRAFT_API int graft_value_from_tensor(graft_value** out, const graft_tensor* tensor) {
  return Guard("graft_value_from_tensor", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(tensor);
    return NewValue(out, Value::Concrete(tensor->tensor));
  });
}

GRAFT_API int graft_value_from_host(graft_value** out, graft_context* ctx, graft_host_kind host_kind,
                                    const void* elements, const int64_t* dims, int ndims, graft_dtype dtype) {
  return Guard("graft_value_from_host", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    graft::Tensor t;
    GRAFT_RETURN_IF_ERROR(graft::capi::TensorFromHost(host_kind, elements, dims, ndims, dtype, &t));
    if (ctx->ctx.current_trace() == nullptr) return NewValue(out, Value::Concrete(std::move(t)));
    // While tracing: a constant of the traced graph.
    OpCall c;
    c.type = "Const";
    c.attrs["dtype"] = graft::AttrValue::Type(t.dtype());
    c.attrs["value"] = graft::AttrValue::TensorValue(std::move(t));
    std::vector<Value> outs;
    GRAFT_RETURN_IF_ERROR(ExecuteOne(ctx, std::move(c), &outs));
    return NewValue(out, std::move(outs[0]));
  });
}

GRAFT_API int graft_value_to_tensor(graft_tensor** out, const graft_value* value) {
  return Guard("graft_value_to_tensor", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(value);
    if (value->v.is_symbolic()) {
      return graft::errors::FailedPrecondition("the value is symbolic (tensor '", value->v.symbolic.node->name(), ":",
                                               value->v.symbolic.index, "' of a traced function): it has no contents");
    }
    *out = new graft_tensor(value->v.tensor);
    return Status::Ok();
  });
}

GRAFT_API graft_bool graft_value_is_symbolic(const graft_value* value) { return value && value->v.is_symbolic(); }

GRAFT_API graft_dtype graft_value_dtype(const graft_value* value) {
  return value ? static_cast<graft_dtype>(value->v.dtype()) : GRAFT_DTYPE_INVALID;
}

GRAFT_API int graft_value_shape(graft_shape** out, const graft_value* value) {
  return Guard("graft_value_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(value);
    *out = new graft_shape(value->v.shape());
    return Status::Ok();
  });
}

GRAFT_API int graft_value_output(graft_output* out, const graft_value* value) {
  return Guard("graft_value_output", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(value);
    if (!value->v.is_symbolic()) return graft::errors::FailedPrecondition("the value is concrete: it has no graph tensor");
    *out = graft::capi::ToC(value->v.symbolic);
    return Status::Ok();
  });
}

GRAFT_API int graft_value_from_output(graft_value** out, graft_context* ctx, graft_output output) {
  return Guard("graft_value_from_output", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    graft::eager::Trace* trace = ctx->ctx.current_trace();
    if (trace == nullptr) return graft::errors::FailedPrecondition("no function of the context is being traced on this thread");
    if (!graft::capi::IsOutputOf(output, &trace->graph())) {
      return graft::errors::InvalidArgument("argument 'output' is not a tensor of the graph being traced");
    }
    return NewValue(out, Value::Symbolic(graft::capi::FromC(output), trace->shared_graph()));
  });
}

GRAFT_API int graft_value_copy(graft_value** out, const graft_value* value) {
  return Guard("graft_value_copy", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(value);
    return NewValue(out, value->v);
  });
}

GRAFT_API void graft_value_free(graft_value* value) { delete value; }

GRAFT_API int graft_op_call_new(graft_op_call** out, graft_context* ctx, const char* op_type) {
  return Guard("graft_op_call_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(op_type);
    if (graft::OpRegistry::Global().Find(op_type) == nullptr) {
      return graft::errors::NotFound("op type '", op_type, "' is not registered");
    }
    auto c = std::make_unique<graft_op_call>();
    c->ctx = ctx;
    c->call.type = op_type;
    *out = c.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_op_call_free(graft_op_call* call) { delete call; }

GRAFT_API int graft_op_call_add_input(graft_op_call* call, const graft_value* value) {
  return Guard("graft_op_call_add_input", [&]() -> Status {
    GRAFT_CHECK_ARG(call);
    GRAFT_CHECK_ARG(value);
    call->call.inputs.push_back(OpCall::Arg{{value->v}, false});
    call->hint = {};
    return Status::Ok();
  });
}

GRAFT_API int graft_op_call_add_input_list(graft_op_call* call, const graft_value* const* values, int n) {
  return Guard("graft_op_call_add_input_list", [&]() -> Status {
    GRAFT_CHECK_ARG(call);
    if (n < 0) return graft::errors::InvalidArgument("n is ", n);
    if (n > 0) GRAFT_CHECK_ARG(values);
    OpCall::Arg arg;
    arg.is_list = true;
    for (int i = 0; i < n; ++i) {
      if (values[i] == nullptr) return graft::errors::InvalidArgument("value ", i, " is NULL");
      arg.values.push_back(values[i]->v);
    }
    call->call.inputs.push_back(std::move(arg));
    call->hint = {};
    return Status::Ok();
  });
}

GRAFT_API graft_attrs* graft_op_call_attrs(graft_op_call* call) { return call ? &call->attrs : nullptr; }

GRAFT_API int graft_op_call_set_name(graft_op_call* call, const char* name) {
  return Guard("graft_op_call_set_name", [&]() -> Status {
    GRAFT_CHECK_ARG(call);
    GRAFT_CHECK_ARG(name);
    call->call.name = name;
    return Status::Ok();
  });
}

GRAFT_API int graft_op_call_set_device(graft_op_call* call, const char* device) {
  return Guard("graft_op_call_set_device", [&]() -> Status {
    GRAFT_CHECK_ARG(call);
    GRAFT_CHECK_ARG(device);
    graft::DeviceSpec spec;
    GRAFT_RETURN_IF_ERROR(graft::DeviceSpec::Parse(device, &spec));
    call->call.device = device;
    return Status::Ok();
  });
}

static Status ExecuteOpCall(graft_value** outputs, int capacity, int* noutputs, graft_op_call* call,
                            const graft_run_options* options) {
  GRAFT_CHECK_ARG(call);
  GRAFT_CHECK_ARG(noutputs);
  if (capacity < 0) return graft::errors::InvalidArgument("capacity is ", capacity);
  if (capacity > 0) GRAFT_CHECK_ARG(outputs);
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  std::vector<Value> outs;
  if (control.active() && call->ctx->ctx.current_trace() == nullptr) {  // traced: recorded, not run
    if (control.cancellation != nullptr && control.cancellation->cancelled()) {
      return graft::errors::Cancelled("the call was cancelled before op '", call->call.type, "' ran");
    }
    // The op's nested runs (function calls, loops) check the control the thread's scope sets.
    graft::RunControlScope scope(&control);
    GRAFT_RETURN_IF_ERROR(call->ctx->ctx.Execute(call->call, &outs, &call->hint));
  } else {
    GRAFT_RETURN_IF_ERROR(call->ctx->ctx.Execute(call->call, &outs, &call->hint));
  }
  return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
}

GRAFT_API int graft_op_call_execute(graft_value** outputs, int capacity, int* noutputs, graft_op_call* call) {
  return Guard("graft_op_call_execute", [&] { return ExecuteOpCall(outputs, capacity, noutputs, call, nullptr); });
}

GRAFT_API int graft_op_call_execute_with_options(graft_value** outputs, int capacity, int* noutputs,
                                                 graft_op_call* call, const graft_run_options* options) {
  return Guard("graft_op_call_execute_with_options",
               [&] { return ExecuteOpCall(outputs, capacity, noutputs, call, options); });
}

GRAFT_API int graft_variable_new(graft_value** out_handle, graft_context* ctx, const graft_value* initial,
                                 const char* name) {
  return Guard("graft_variable_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out_handle);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(initial);
    Value h;
    GRAFT_RETURN_IF_ERROR(ctx->ctx.CreateVariable(initial->v, name ? name : "", &h));
    return NewValue(out_handle, std::move(h));
  });
}

GRAFT_API int graft_variable_set_trainable(graft_value* handle, graft_bool trainable) {
  return Guard("graft_variable_set_trainable", [&]() -> Status {
    GRAFT_CHECK_ARG(handle);
    auto* hb = handle->v.is_symbolic() || !handle->v.tensor.valid()
                   ? nullptr
                   : dynamic_cast<graft::HandleBuffer*>(handle->v.tensor.buffer().get());
    if (hb == nullptr) return graft::errors::InvalidArgument("the value is not a variable's handle");
    hb->set_trainable(trainable != 0);
    return Status::Ok();
  });
}

GRAFT_API graft_bool graft_variable_is_trainable(const graft_value* handle) {
  if (handle == nullptr || handle->v.is_symbolic() || !handle->v.tensor.valid()) return 0;
  auto* hb = dynamic_cast<const graft::HandleBuffer*>(handle->v.tensor.buffer().get());
  return hb != nullptr && hb->trainable();
}

GRAFT_API graft_bool graft_variable_same(const graft_value* a, const graft_value* b) {
  auto handle_of = [](const graft_value* v) -> const graft::HandleBuffer* {
    if (v == nullptr || v->v.is_symbolic() || !v->v.tensor.valid()) return nullptr;
    return dynamic_cast<const graft::HandleBuffer*>(v->v.tensor.buffer().get());
  };
  const graft::HandleBuffer* ha = handle_of(a);
  const graft::HandleBuffer* hb = handle_of(b);
  // The handle's buffer, not its resource name: the same name in another context or session
  // is another variable.
  return ha != nullptr && ha == hb;
}

GRAFT_API int graft_variable_read(graft_value** out, graft_context* ctx, const graft_value* handle) {
  return Guard("graft_variable_read", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(handle);
    graft::DType dtype = graft::DType::kInvalid;
    GRAFT_RETURN_IF_ERROR(VariableDType(handle, &dtype));
    OpCall call;
    call.type = "ReadVariableOp";
    call.inputs = {{{handle->v}, false}};
    call.attrs["dtype"] = graft::AttrValue::Type(dtype);
    std::vector<Value> outs;
    GRAFT_RETURN_IF_ERROR(ExecuteOne(ctx, std::move(call), &outs));
    return NewValue(out, std::move(outs[0]));
  });
}

GRAFT_API int graft_variable_assign(graft_context* ctx, const graft_value* handle, const graft_value* value) {
  return Guard("graft_variable_assign", [&]() { return UpdateVariable(ctx, handle, value, "AssignVariableOp"); });
}
GRAFT_API int graft_variable_assign_add(graft_context* ctx, const graft_value* handle, const graft_value* value) {
  return Guard("graft_variable_assign_add", [&]() { return UpdateVariable(ctx, handle, value, "AssignAddVariableOp"); });
}
GRAFT_API int graft_variable_assign_sub(graft_context* ctx, const graft_value* handle, const graft_value* value) {
  return Guard("graft_variable_assign_sub", [&]() { return UpdateVariable(ctx, handle, value, "AssignSubVariableOp"); });
}

}  // extern "C"
