// The C API's handles for eager execution and traced functions.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "c_api/src/handles.h"
#include "core/eager/context.h"
#include "core/eager/polymorphic_function.h"
#include "graft/eager.h"
#include "graft/function.h"

struct graft_context {
  graft_context() { ctx.set_handle(this); }
  graft::eager::Context ctx;
};

struct graft_value {
  graft::eager::Value v;
};

struct graft_op_call {
  graft_op_call() = default;
  graft_op_call(const graft_op_call&) = delete;  // attrs points into it
  graft_op_call& operator=(const graft_op_call&) = delete;
  graft_context* ctx = nullptr;
  graft::eager::OpCall call;
  graft::eager::KernelHint hint;  // reset whenever the call changes
  graft_attrs attrs{&call.attrs, &call.type, [](void* owner) { static_cast<graft_op_call*>(owner)->hint = {}; }, this};
};

struct graft_value_list {
  std::vector<graft::eager::Value> values;
};

// Borrowed from its graft_function; one per concrete function, so the same signature gives
// the same pointer.
struct graft_concrete_function {
  std::shared_ptr<graft::eager::ConcreteFunction> fn;
};

struct graft_function {
  std::unique_ptr<graft::eager::PolymorphicFunction> fn;
  std::mutex mu;  // guards concretes
  std::map<const graft::eager::ConcreteFunction*, std::unique_ptr<graft_concrete_function>> concretes;
};

namespace graft::capi {
graft_context* ToC(eager::Context& ctx);
// Sets *noutputs and hands the first `capacity` values out as new handles: all or nothing.
Status HandOutValues(graft_value** outputs, int capacity, int* noutputs, std::vector<eager::Value>& values);
}  // namespace graft::capi
