// C API: kernels written outside Graft (graft/kernel.h), adapted to the core's OpKernel.
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "c_api/src/pending_registrations.h"
#include "core/runtime/kernel.h"
#include "graft/kernel.h"

using graft::Status;
using graft::capi::Guard;

namespace {

struct Callbacks {
  graft_kernel_create_fn create;
  graft_kernel_compute_fn compute;
  graft_kernel_delete_fn del;
  void* user_data;
};

}  // namespace

struct graft_kernel_builder {
  std::string op, device;
  Callbacks callbacks;
  std::string attr;
  std::vector<graft::DType> dtypes;
};

struct graft_kernel_construction {
  const graft::Node* node;
};

struct graft_kernel_context {
  graft::OpKernelContext* ctx;
  std::vector<graft_tensor> inputs;   // views of the inputs (sharing their buffers)
  std::deque<graft_tensor> outputs;   // views of the outputs allocated so far
};

namespace {

class CKernel final : public graft::OpKernel {
 public:
  CKernel(const graft::Node& node, std::shared_ptr<const Callbacks> callbacks, void* state)
      : OpKernel(node), callbacks_(std::move(callbacks)), state_(state) {}
  ~CKernel() override {
    if (callbacks_->del != nullptr) callbacks_->del(state_);
  }
  Status Compute(graft::OpKernelContext& ctx) const override {
    graft_kernel_context c{&ctx, {}, {}};
    c.inputs.reserve(static_cast<size_t>(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i) c.inputs.emplace_back(ctx.input(i));
    const int rc = callbacks_->compute(&c, state_);
    if (rc != GRAFT_OK) return graft::capi::CallbackStatus(rc, "the kernel");
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      if (!ctx.output(i).valid()) return graft::errors::Internal("the kernel set no output ", i);
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const Callbacks> callbacks_;
  void* state_;
};

graft::KernelFactory Factory(std::shared_ptr<const Callbacks> callbacks) {
  return [callbacks](const graft::Node& node, std::unique_ptr<graft::OpKernel>* out) -> Status {
    void* state = nullptr;
    if (callbacks->create != nullptr) {
      graft_kernel_construction c{&node};
      const int rc = callbacks->create(&state, &c, callbacks->user_data);
      if (rc != GRAFT_OK) return graft::capi::CallbackStatus(rc, "the kernel's create function");
    }
    *out = std::make_unique<CKernel>(node, callbacks, state);
    return Status::Ok();
  };
}

// Attribute name of the node, of type T.
template <typename T>
Status Attr(const graft_kernel_construction* c, const char* name, const char* kind, const T** out) {
  const graft::AttrValue* v = c->node->attr(name);
  if (v == nullptr) {
    return graft::errors::NotFound(c->node->type(), " op '", c->node->name(), "' has no attribute '", name, "'");
  }
  *out = v->get<T>();
  if (*out == nullptr) {
    return graft::errors::InvalidArgument("attribute '", name, "' of ", c->node->type(), " op '", c->node->name(),
                                          "' is not ", kind);
  }
  return Status::Ok();
}

}  // namespace

GRAFT_API int graft_kernel_builder_new(graft_kernel_builder** out, const char* op, const char* device_type,
                                       graft_kernel_create_fn create, graft_kernel_compute_fn compute,
                                       graft_kernel_delete_fn del, void* user_data) {
  return Guard("graft_kernel_builder_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    *out = nullptr;
    GRAFT_CHECK_ARG(op);
    GRAFT_CHECK_ARG(device_type);
    GRAFT_CHECK_ARG(compute);
    *out = new graft_kernel_builder{op, device_type, Callbacks{create, compute, del, user_data}, "", {}};
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_builder_type_constraint(graft_kernel_builder* b, const char* attr, const graft_dtype* dtypes,
                                                   int n) {
  return Guard("graft_kernel_builder_type_constraint", [&]() -> Status {
    GRAFT_CHECK_ARG(b);
    GRAFT_CHECK_ARG(attr);
    if (n < 1) return graft::errors::InvalidArgument("a type constraint needs at least one dtype, got ", n);
    GRAFT_CHECK_ARG(dtypes);
    if (!b->attr.empty()) {
      return graft::errors::InvalidArgument("the kernel for ", b->op, " has a type constraint (on '", b->attr,
                                            "') already");
    }
    std::vector<graft::DType> list;
    for (int i = 0; i < n; ++i) {
      const auto d = static_cast<graft::DType>(dtypes[i]);
      if (graft::DTypeNameOrNull(d) == nullptr) return graft::errors::InvalidArgument("dtype ", dtypes[i], " is not a dtype");
      list.push_back(d);
    }
    b->attr = attr;
    b->dtypes = std::move(list);
    return Status::Ok();
  });
}

GRAFT_API void graft_kernel_builder_free(graft_kernel_builder* b) { delete b; }

GRAFT_API int graft_kernel_register(graft_kernel_builder* builder) {
  std::unique_ptr<graft_kernel_builder> b(builder);
  return Guard("graft_kernel_register", [&]() -> Status {
    GRAFT_CHECK_ARG(builder);
    auto callbacks = std::make_shared<const Callbacks>(b->callbacks);
    auto apply = [op = b->op, device = b->device, attr = b->attr, dtypes = b->dtypes, callbacks]() {
      return graft::KernelRegistry::Global().Register(op, device, attr, dtypes, Factory(callbacks));
    };
    if (auto* pending = graft::capi::PendingRegistrations::Current()) {
      std::vector<int> keys;
      for (graft::DType d : b->dtypes) keys.push_back(static_cast<int>(d));
      return pending->AddKernel(b->op, b->device, b->attr, keys, std::move(apply));
    }
    return apply();
  });
}

GRAFT_API const char* graft_kernel_construction_node_name(const graft_kernel_construction* c) {
  return c != nullptr ? c->node->name().c_str() : "";
}

GRAFT_API const char* graft_kernel_construction_op_type(const graft_kernel_construction* c) {
  return c != nullptr ? c->node->type().c_str() : "";
}

GRAFT_API int graft_kernel_construction_attr_int(int64_t* out, const graft_kernel_construction* c, const char* name) {
  return Guard("graft_kernel_construction_attr_int", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    const int64_t* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "an int", &v));
    *out = *v;
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_construction_attr_float(float* out, const graft_kernel_construction* c, const char* name) {
  return Guard("graft_kernel_construction_attr_float", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    const float* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "a float", &v));
    *out = *v;
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_construction_attr_bool(graft_bool* out, const graft_kernel_construction* c,
                                                  const char* name) {
  return Guard("graft_kernel_construction_attr_bool", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    const bool* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "a bool", &v));
    *out = *v ? 1 : 0;
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_construction_attr_type(graft_dtype* out, const graft_kernel_construction* c,
                                                  const char* name) {
  return Guard("graft_kernel_construction_attr_type", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    const graft::DType* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "a type", &v));
    *out = static_cast<graft_dtype>(*v);
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_construction_attr_string(const char** out, size_t* len, const graft_kernel_construction* c,
                                                    const char* name) {
  return Guard("graft_kernel_construction_attr_string", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(len);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    const std::string* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "a string", &v));
    *out = v->c_str();
    *len = v->size();
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_construction_attr_int_list(int64_t* values, int capacity, int* count,
                                                      const graft_kernel_construction* c, const char* name) {
  return Guard("graft_kernel_construction_attr_int_list", [&]() -> Status {
    GRAFT_CHECK_ARG(count);
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(name);
    if (capacity < 0) return graft::errors::InvalidArgument("capacity is ", capacity);
    if (capacity > 0) GRAFT_CHECK_ARG(values);
    const std::vector<int64_t>* v = nullptr;
    GRAFT_RETURN_IF_ERROR(Attr(c, name, "a list of ints", &v));
    *count = static_cast<int>(v->size());
    for (size_t i = 0; i < v->size() && i < static_cast<size_t>(capacity); ++i) values[i] = (*v)[i];
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_context_num_inputs(const graft_kernel_context* c) { return c ? c->ctx->num_inputs() : 0; }
GRAFT_API int graft_kernel_context_num_outputs(const graft_kernel_context* c) { return c ? c->ctx->num_outputs() : 0; }

GRAFT_API const graft_tensor* graft_kernel_context_input(const graft_kernel_context* c, int index) {
  if (c == nullptr || index < 0 || static_cast<size_t>(index) >= c->inputs.size()) return nullptr;
  return &c->inputs[static_cast<size_t>(index)];
}

GRAFT_API int graft_kernel_context_allocate_output(graft_tensor** out, graft_kernel_context* c, int index,
                                                   graft_dtype dtype, const int64_t* dims, int ndims) {
  return Guard("graft_kernel_context_allocate_output", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    *out = nullptr;
    GRAFT_CHECK_ARG(c);
    if (index < 0 || index >= c->ctx->num_outputs()) {
      return graft::errors::OutOfRange("output ", index, " is out of range (the op has ", c->ctx->num_outputs(), ")");
    }
    if (ndims < 0) return graft::errors::InvalidArgument("ndims is ", ndims);
    if (ndims > 0) GRAFT_CHECK_ARG(dims);
    const auto dt = static_cast<graft::DType>(dtype);
    if (dt != c->ctx->node().output_type(index)) {
      return graft::errors::InvalidArgument("output ", index, " of ", c->ctx->node().type(), " is ",
                                            graft::DTypeName(c->ctx->node().output_type(index)), ", not ",
                                            graft::DTypeNameOrNull(dt) ? graft::DTypeName(dt) : std::to_string(dtype));
    }
    graft::Tensor* t = nullptr;
    GRAFT_RETURN_IF_ERROR(c->ctx->AllocateOutput(index, dt, std::span<const int64_t>(dims, static_cast<size_t>(ndims)), &t));
    c->outputs.emplace_back(*t);
    *out = &c->outputs.back();
    return Status::Ok();
  });
}

GRAFT_API int graft_kernel_context_set_output(graft_kernel_context* c, int index, const graft_tensor* tensor) {
  return Guard("graft_kernel_context_set_output", [&]() -> Status {
    GRAFT_CHECK_ARG(c);
    GRAFT_CHECK_ARG(tensor);
    if (index < 0 || index >= c->ctx->num_outputs()) {
      return graft::errors::OutOfRange("output ", index, " is out of range (the op has ", c->ctx->num_outputs(), ")");
    }
    if (tensor->tensor.dtype() != c->ctx->node().output_type(index)) {
      return graft::errors::InvalidArgument("output ", index, " of ", c->ctx->node().type(), " is ",
                                            graft::DTypeName(c->ctx->node().output_type(index)), ", not ",
                                            graft::DTypeName(tensor->tensor.dtype()));
    }
    c->ctx->SetOutput(index, tensor->tensor);
    return Status::Ok();
  });
}
