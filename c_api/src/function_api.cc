// C API: traced functions, concrete functions and host functions (graft/function.h).
#include <cstdlib>
#include <cstring>
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/eager_handles.h"
#include "c_api/src/run_options_api.h"
#include "graft/control_flow.h"
#include "core/eager/control_flow.h"
#include "core/runtime/host_function.h"

using graft::Status;
using graft::capi::Guard;
using graft::eager::Arg;
using graft::eager::TensorSpec;
using graft::eager::Value;

namespace {

Status SpecsFromC(const graft_tensor_spec* specs, int n, std::vector<TensorSpec>* out) {
  if (n < 0) return graft::errors::InvalidArgument("the number of specs is ", n);
  if (n > 0 && specs == nullptr) return graft::errors::InvalidArgument("specs is NULL");
  for (int i = 0; i < n; ++i) {
    const graft_tensor_spec& s = specs[i];
    TensorSpec t;
    t.dtype = static_cast<graft::DType>(s.dtype);
    if (!graft::IsValidDType(t.dtype)) return graft::errors::InvalidArgument("spec ", i, " has an unknown dtype ", s.dtype);
    if (s.ndims < -1 || (s.ndims > 0 && s.dims == nullptr)) return graft::errors::InvalidArgument("spec ", i, " has bad dims");
    t.shape = s.ndims < 0 ? graft::PartialShape::Unknown()
                          : graft::PartialShape(std::vector<int64_t>(s.dims, s.dims + s.ndims));
    if (s.name) t.name = s.name;
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status ArgsFromC(const graft_arg* args, int n, std::vector<Arg>* out) {
  if (n < 0) return graft::errors::InvalidArgument("nargs is ", n);
  if (n > 0 && args == nullptr) return graft::errors::InvalidArgument("args is NULL");
  for (int i = 0; i < n; ++i) {
    Arg a;
    switch (args[i].kind) {
      case GRAFT_ARG_VALUE:
        if (args[i].value == nullptr) return graft::errors::InvalidArgument("argument ", i, " has no value");
        a.kind = Arg::Kind::kValue;
        a.value = args[i].value->v;
        break;
      case GRAFT_ARG_INT: a.kind = Arg::Kind::kInt; a.i = args[i].i; break;
      case GRAFT_ARG_FLOAT: a.kind = Arg::Kind::kFloat; a.f = args[i].f; break;
      case GRAFT_ARG_BOOL: a.kind = Arg::Kind::kBool; a.b = args[i].b != 0; break;
      case GRAFT_ARG_STRING:
        if (args[i].s == nullptr) return graft::errors::InvalidArgument("argument ", i, " has no string");
        a.kind = Arg::Kind::kString;
        a.s = args[i].s;
        break;
      default: return graft::errors::InvalidArgument("argument ", i, " has an unknown kind ", args[i].kind);
    }
    out->push_back(std::move(a));
  }
  return Status::Ok();
}

// A C trace callback as a core TraceFn: the callback sees its arguments as C values, alive for
// the duration of the call.
graft::eager::TraceFn WrapTraceFn(graft_trace_fn fn, void* user_data) {
  return [fn, user_data](graft::eager::Context& ctx, const std::vector<Arg>& args, std::vector<Value>* outputs) -> Status {
    std::vector<graft_value> values;
    values.reserve(args.size());
    std::vector<graft_arg> c(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg& a = args[i];
      c[i] = graft_arg{GRAFT_ARG_VALUE, nullptr, 0, 0, nullptr, 0};
      switch (a.kind) {
        case Arg::Kind::kValue:
          values.push_back(graft_value{a.value});
          c[i].value = &values.back();
          break;
        case Arg::Kind::kInt: c[i].kind = GRAFT_ARG_INT; c[i].i = a.i; break;
        case Arg::Kind::kFloat: c[i].kind = GRAFT_ARG_FLOAT; c[i].f = a.f; break;
        case Arg::Kind::kBool: c[i].kind = GRAFT_ARG_BOOL; c[i].b = a.b; break;
        case Arg::Kind::kString: c[i].kind = GRAFT_ARG_STRING; c[i].s = a.s.c_str(); break;
      }
    }
    graft_value_list list;
    graft_error_clear();
    int rc = fn(graft::capi::ToC(ctx), c.data(), static_cast<int>(c.size()), &list, user_data);
    GRAFT_RETURN_IF_ERROR(graft::capi::CallbackStatus(rc, "the callback"));
    *outputs = std::move(list.values);
    return Status::Ok();
  };
}

std::vector<Value> ValuesFromC(const graft_value* const* values, int n) {
  std::vector<Value> out;
  for (int i = 0; i < n; ++i) out.push_back(values[i]->v);
  return out;
}

Status CheckValues(const graft_value* const* values, int n, const char* what) {
  if (n < 0) return graft::errors::InvalidArgument("the number of ", what, " is ", n);
  if (n > 0 && values == nullptr) return graft::errors::InvalidArgument(what, " is NULL");
  for (int i = 0; i < n; ++i) {
    if (values[i] == nullptr) return graft::errors::InvalidArgument(what, " ", i, " is NULL");
  }
  return Status::Ok();
}

graft_concrete_function* Borrow(graft_function* f, std::shared_ptr<graft::eager::ConcreteFunction> fn) {
  std::lock_guard lock(f->mu);
  auto& slot = f->concretes[fn.get()];
  if (!slot) {
    slot = std::make_unique<graft_concrete_function>();
    slot->fn = std::move(fn);
  }
  return slot.get();
}

}  // namespace

extern "C" {

GRAFT_API int graft_value_list_append(graft_value_list* list, const graft_value* value) {
  return Guard("graft_value_list_append", [&]() -> Status {
    GRAFT_CHECK_ARG(list);
    GRAFT_CHECK_ARG(value);
    list->values.push_back(value->v);
    return Status::Ok();
  });
}

GRAFT_API int graft_function_new(graft_function** out, const char* name, graft_trace_fn fn, void* user_data,
                                 const graft_function_options* options) {
  return Guard("graft_function_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(name);
    GRAFT_CHECK_ARG(fn);
    graft::eager::FunctionOptions o;
    if (options != nullptr) {
      if (options->version < 1) return graft::errors::InvalidArgument("options.version ", options->version, " is unknown");
      if (options->input_signature != nullptr || options->ninput_signature > 0) {
        std::vector<TensorSpec> specs;
        GRAFT_RETURN_IF_ERROR(SpecsFromC(options->input_signature, options->ninput_signature, &specs)
                                  .WithContext("options.input_signature"));
        o.input_signature = std::move(specs);
      }
      o.reduce_retracing = options->reduce_retracing != 0;
    }
    std::string fname = name;
    graft::eager::TraceFn trace = WrapTraceFn(fn, user_data);
    auto f = std::make_unique<graft_function>();
    f->fn = std::make_unique<graft::eager::PolymorphicFunction>(fname, std::move(trace), std::move(o));
    *out = f.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_function_free(graft_function* function) { delete function; }

static Status FunctionCall(graft_value** outputs, int capacity, int* noutputs, graft_function* function,
                           graft_context* ctx, const graft_arg* args, int nargs, const graft_run_options* options) {
  GRAFT_CHECK_ARG(noutputs);
  GRAFT_CHECK_ARG(function);
  GRAFT_CHECK_ARG(ctx);
  if (capacity < 0) return graft::errors::InvalidArgument("capacity is ", capacity);
  if (capacity > 0) GRAFT_CHECK_ARG(outputs);
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  std::vector<Arg> a;
  GRAFT_RETURN_IF_ERROR(ArgsFromC(args, nargs, &a));
  std::vector<Value> outs;
  GRAFT_RETURN_IF_ERROR(function->fn->Call(ctx->ctx, a, &outs, &control));
  return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
}

GRAFT_API int graft_function_call(graft_value** outputs, int capacity, int* noutputs, graft_function* function,
                                  graft_context* ctx, const graft_arg* args, int nargs) {
  return Guard("graft_function_call",
               [&] { return FunctionCall(outputs, capacity, noutputs, function, ctx, args, nargs, nullptr); });
}

GRAFT_API int graft_function_call_with_options(graft_value** outputs, int capacity, int* noutputs,
                                               graft_function* function, graft_context* ctx, const graft_arg* args,
                                               int nargs, const graft_run_options* options) {
  return Guard("graft_function_call_with_options",
               [&] { return FunctionCall(outputs, capacity, noutputs, function, ctx, args, nargs, options); });
}

GRAFT_API int graft_function_get_concrete(graft_concrete_function** out, graft_function* function, graft_context* ctx,
                                          const graft_arg* args, int nargs) {
  return Guard("graft_function_get_concrete", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(function);
    GRAFT_CHECK_ARG(ctx);
    std::vector<Arg> a;
    GRAFT_RETURN_IF_ERROR(ArgsFromC(args, nargs, &a));
    std::shared_ptr<graft::eager::ConcreteFunction> fn;
    GRAFT_RETURN_IF_ERROR(function->fn->GetConcreteFunction(ctx->ctx, a, &fn));
    *out = Borrow(function, std::move(fn));
    return Status::Ok();
  });
}

GRAFT_API int graft_function_get_concrete_for_specs(graft_concrete_function** out, graft_function* function,
                                                    graft_context* ctx, const graft_tensor_spec* specs, int n) {
  return Guard("graft_function_get_concrete_for_specs", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(function);
    GRAFT_CHECK_ARG(ctx);
    std::vector<TensorSpec> s;
    GRAFT_RETURN_IF_ERROR(SpecsFromC(specs, n, &s));
    std::shared_ptr<graft::eager::ConcreteFunction> fn;
    GRAFT_RETURN_IF_ERROR(function->fn->GetConcreteFunction(ctx->ctx, s, &fn));
    *out = Borrow(function, std::move(fn));
    return Status::Ok();
  });
}

GRAFT_API int64_t graft_function_tracing_count(const graft_function* function) {
  return function ? function->fn->tracing_count() : 0;
}

GRAFT_API const char* graft_concrete_function_name(const graft_concrete_function* f) {
  return f ? f->fn->name().c_str() : nullptr;
}
GRAFT_API graft_graph* graft_concrete_function_graph(graft_concrete_function* f) {
  return f ? graft::capi::HandleOrNull(f->fn->mutable_graph()) : nullptr;
}
GRAFT_API int graft_concrete_function_num_inputs(const graft_concrete_function* f) {
  return f ? static_cast<int>(f->fn->inputs().size()) : 0;
}
GRAFT_API graft_output graft_concrete_function_input(const graft_concrete_function* f, int i) {
  if (f == nullptr || i < 0 || static_cast<size_t>(i) >= f->fn->inputs().size()) return graft_output{nullptr, 0};
  return graft::capi::ToC(f->fn->inputs()[static_cast<size_t>(i)]);
}
GRAFT_API int graft_concrete_function_num_captured(const graft_concrete_function* f) {
  return f ? static_cast<int>(f->fn->captured_inputs().size()) : 0;
}
GRAFT_API graft_output graft_concrete_function_captured_placeholder(const graft_concrete_function* f, int i) {
  if (f == nullptr || i < 0 || static_cast<size_t>(i) >= f->fn->capture_placeholders().size()) return graft_output{nullptr, 0};
  return graft::capi::ToC(f->fn->capture_placeholders()[static_cast<size_t>(i)]);
}
GRAFT_API int graft_concrete_function_captured_value(graft_value** out, const graft_concrete_function* f, int i) {
  return Guard("graft_concrete_function_captured_value", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(f);
    if (i < 0 || static_cast<size_t>(i) >= f->fn->captured_inputs().size()) {
      return graft::errors::OutOfRange("function '", f->fn->name(), "' has no captured input ", i);
    }
    *out = new graft_value{f->fn->captured_inputs()[static_cast<size_t>(i)]};
    return Status::Ok();
  });
}
GRAFT_API int graft_concrete_function_num_outputs(const graft_concrete_function* f) {
  return f ? static_cast<int>(f->fn->outputs().size()) : 0;
}
GRAFT_API graft_output graft_concrete_function_output(const graft_concrete_function* f, int i) {
  if (f == nullptr || i < 0 || static_cast<size_t>(i) >= f->fn->outputs().size()) return graft_output{nullptr, 0};
  return graft::capi::ToC(f->fn->outputs()[static_cast<size_t>(i)]);
}

static Status ConcreteFunctionCall(graft_value** outputs, int capacity, int* noutputs, graft_concrete_function* f,
                                   graft_context* ctx, const graft_value* const* inputs, int ninputs,
                                   const graft_run_options* options) {
  GRAFT_CHECK_ARG(noutputs);
  GRAFT_CHECK_ARG(f);
  GRAFT_CHECK_ARG(ctx);
  if (capacity < 0 || ninputs < 0) return graft::errors::InvalidArgument("a count is negative");
  if (capacity > 0) GRAFT_CHECK_ARG(outputs);
  if (ninputs > 0) GRAFT_CHECK_ARG(inputs);
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  std::vector<Value> in;
  for (int i = 0; i < ninputs; ++i) {
    if (inputs[i] == nullptr) return graft::errors::InvalidArgument("input ", i, " is NULL");
    in.push_back(inputs[i]->v);
  }
  std::vector<Value> outs;
  GRAFT_RETURN_IF_ERROR(f->fn->Call(ctx->ctx, in, &outs, &control));
  return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
}

GRAFT_API int graft_concrete_function_call(graft_value** outputs, int capacity, int* noutputs, graft_concrete_function* f,
                                           graft_context* ctx, const graft_value* const* inputs, int ninputs) {
  return Guard("graft_concrete_function_call",
               [&] { return ConcreteFunctionCall(outputs, capacity, noutputs, f, ctx, inputs, ninputs, nullptr); });
}

GRAFT_API int graft_concrete_function_call_with_options(graft_value** outputs, int capacity, int* noutputs,
                                                        graft_concrete_function* f, graft_context* ctx,
                                                        const graft_value* const* inputs, int ninputs,
                                                        const graft_run_options* options) {
  return Guard("graft_concrete_function_call_with_options",
               [&] { return ConcreteFunctionCall(outputs, capacity, noutputs, f, ctx, inputs, ninputs, options); });
}

GRAFT_API int graft_concrete_function_to_function_def(void** out_data, size_t* out_len, const graft_concrete_function* f) {
  return Guard("graft_concrete_function_to_function_def", [&]() -> Status {
    GRAFT_CHECK_ARG(out_data);
    GRAFT_CHECK_ARG(out_len);
    GRAFT_CHECK_ARG(f);
    const std::string* fd = nullptr;
    GRAFT_RETURN_IF_ERROR(f->fn->FunctionDef(&fd));
    void* buffer = std::malloc(fd->empty() ? 1 : fd->size());
    if (buffer == nullptr) return graft::errors::ResourceExhausted("out of memory");
    std::memcpy(buffer, fd->data(), fd->size());
    *out_data = buffer;
    *out_len = fd->size();
    return Status::Ok();
  });
}

GRAFT_API int graft_concrete_function_add_to_graph(const graft_concrete_function* f, graft_graph* graph) {
  return Guard("graft_concrete_function_add_to_graph", [&]() -> Status {
    GRAFT_CHECK_ARG(f);
    GRAFT_CHECK_ARG(graph);
    const std::string* fd = nullptr;
    GRAFT_RETURN_IF_ERROR(f->fn->FunctionDef(&fd));
    for (const graft::LibraryFunction& lf : f->fn->graph().functions()) GRAFT_RETURN_IF_ERROR(graph->graph.AddFunction(lf));
    return graph->graph.AddFunction(graft::LibraryFunction{f->fn->name(), *fd});
  });
}

GRAFT_API int graft_cond(graft_value** outputs, int capacity, int* noutputs, graft_context* ctx, const graft_value* pred,
                         const graft_value* const* inputs, int ninputs, graft_trace_fn then_fn, void* then_user_data,
                         graft_trace_fn else_fn, void* else_user_data) {
  return Guard("graft_cond", [&]() -> Status {
    GRAFT_CHECK_ARG(noutputs);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(pred);
    GRAFT_CHECK_ARG(then_fn);
    GRAFT_CHECK_ARG(else_fn);
    if (capacity < 0) return graft::errors::InvalidArgument("capacity is ", capacity);
    if (capacity > 0) GRAFT_CHECK_ARG(outputs);
    GRAFT_RETURN_IF_ERROR(CheckValues(inputs, ninputs, "inputs"));
    std::vector<Value> outs;
    GRAFT_RETURN_IF_ERROR(graft::eager::Cond(ctx->ctx, pred->v, ValuesFromC(inputs, ninputs),
                                             WrapTraceFn(then_fn, then_user_data), WrapTraceFn(else_fn, else_user_data), &outs));
    return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
  });
}

GRAFT_API int graft_while_loop_with_shapes(graft_value** outputs, int capacity, int* noutputs, graft_context* ctx,
                                           graft_trace_fn cond_fn, void* cond_user_data, graft_trace_fn body_fn,
                                           void* body_user_data, const graft_value* const* loop_vars, int nvars,
                                           const graft_shape* const* shape_invariants) {
  return Guard("graft_while_loop", [&]() -> Status {
    GRAFT_CHECK_ARG(noutputs);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(cond_fn);
    GRAFT_CHECK_ARG(body_fn);
    if (capacity < 0) return graft::errors::InvalidArgument("capacity is ", capacity);
    if (capacity > 0) GRAFT_CHECK_ARG(outputs);
    GRAFT_RETURN_IF_ERROR(CheckValues(loop_vars, nvars, "loop_vars"));
    std::vector<std::optional<graft::PartialShape>> invariants;
    if (shape_invariants != nullptr) {
      for (int i = 0; i < nvars; ++i) {
        if (shape_invariants[i] != nullptr) invariants.emplace_back(shape_invariants[i]->shape);
        else invariants.emplace_back(std::nullopt);
      }
    }
    std::vector<Value> outs;
    GRAFT_RETURN_IF_ERROR(graft::eager::WhileLoop(ctx->ctx, WrapTraceFn(cond_fn, cond_user_data),
                                                  WrapTraceFn(body_fn, body_user_data), ValuesFromC(loop_vars, nvars),
                                                  &outs, invariants));
    return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
  });
}

GRAFT_API int graft_while_loop(graft_value** outputs, int capacity, int* noutputs, graft_context* ctx,
                               graft_trace_fn cond_fn, void* cond_user_data, graft_trace_fn body_fn, void* body_user_data,
                               const graft_value* const* loop_vars, int nvars) {
  return graft_while_loop_with_shapes(outputs, capacity, noutputs, ctx, cond_fn, cond_user_data, body_fn,
                                      body_user_data, loop_vars, nvars, nullptr);
}

GRAFT_API int graft_host_function_register(const char* token, graft_host_fn fn, void* user_data,
                                           void (*destroy)(void*)) {
  return Guard("graft_host_function_register", [&]() -> Status {
    GRAFT_CHECK_ARG(token);
    GRAFT_CHECK_ARG(fn);
    // The user data is released (destroy) when the last copy of the callback goes.
    std::shared_ptr<void> data(user_data, [destroy](void* p) {
      if (destroy) destroy(p);
    });
    std::string tok = token;
    graft::HostFunction hf = [fn, data, tok](const std::vector<graft::Tensor>& inputs,
                                             std::vector<graft::Tensor>* outputs) -> Status {
      std::vector<graft_tensor> in;
      in.reserve(inputs.size());
      for (const graft::Tensor& t : inputs) in.emplace_back(t);
      std::vector<graft_tensor*> in_ptrs;
      for (graft_tensor& t : in) in_ptrs.push_back(&t);
      // The callback may return any number of outputs up to a generous bound; the kernel checks
      // them against the declared Tout.
      constexpr int kMaxOutputs = 256;
      std::vector<graft_tensor*> outs(kMaxOutputs, nullptr);
      int nout = 0;
      graft_error_clear();
      int rc = fn(outs.data(), kMaxOutputs, &nout, in_ptrs.data(), static_cast<int>(in_ptrs.size()), data.get());
      auto release = [&]() {
        for (graft_tensor* t : outs) graft_tensor_free(t);
      };
      if (rc != GRAFT_OK) {
        release();
        return graft::capi::CallbackStatus(rc, "the callback");
      }
      if (nout < 0 || nout > kMaxOutputs) {
        release();
        return graft::errors::InvalidArgument("the callback returned ", nout, " outputs");
      }
      outputs->clear();
      for (int i = 0; i < nout; ++i) outputs->push_back(outs[static_cast<size_t>(i)] ? outs[static_cast<size_t>(i)]->tensor : graft::Tensor());
      release();
      return Status::Ok();
    };
    return graft::HostFunctionRegistry::Global().Register(tok, std::move(hf));
  });
}

GRAFT_API int graft_host_function_unregister(const char* token) {
  return Guard("graft_host_function_unregister", [&]() -> Status {
    GRAFT_CHECK_ARG(token);
    return graft::HostFunctionRegistry::Global().Unregister(token);
  });
}

GRAFT_API int graft_host_function_call(graft_value** outputs, int capacity, int* noutputs, graft_context* ctx,
                                       const char* token, const graft_value* const* inputs, int ninputs,
                                       const graft_dtype* tout, int ntout) {
  return Guard("graft_host_function_call", [&]() -> Status {
    GRAFT_CHECK_ARG(noutputs);
    GRAFT_CHECK_ARG(ctx);
    GRAFT_CHECK_ARG(token);
    if (capacity < 0 || ninputs < 0 || ntout < 0) return graft::errors::InvalidArgument("a count is negative");
    if (capacity > 0) GRAFT_CHECK_ARG(outputs);
    if (ninputs > 0) GRAFT_CHECK_ARG(inputs);
    if (ntout > 0) GRAFT_CHECK_ARG(tout);
    graft::eager::OpCall call;
    call.type = "EagerPyFunc";
    graft::eager::OpCall::Arg in;
    in.is_list = true;
    std::vector<graft::DType> tin, to;
    for (int i = 0; i < ninputs; ++i) {
      if (inputs[i] == nullptr) return graft::errors::InvalidArgument("input ", i, " is NULL");
      in.values.push_back(inputs[i]->v);
      tin.push_back(inputs[i]->v.dtype());
    }
    for (int i = 0; i < ntout; ++i) to.push_back(static_cast<graft::DType>(tout[i]));
    call.inputs.push_back(std::move(in));
    call.attrs["token"] = graft::AttrValue::String(token);
    call.attrs["Tin"] = graft::AttrValue::TypeList(tin);
    call.attrs["Tout"] = graft::AttrValue::TypeList(to);
    std::vector<Value> outs;
    GRAFT_RETURN_IF_ERROR(ctx->ctx.Execute(call, &outs));
    return graft::capi::HandOutValues(outputs, capacity, noutputs, outs);
  });
}

}  // extern "C"
