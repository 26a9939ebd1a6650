// C API: describing and creating ops (graft/graph.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/graph.h"
#include "graft/operation.h"

using graft::Node;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);
}

namespace {

Status CheckCount(const void* values, int n) {
  if (n < 0) return graft::errors::InvalidArgument("n is ", n);
  if (n > 0 && values == nullptr) return graft::errors::InvalidArgument("values is NULL with n ", n);
  return Status::Ok();
}

}  // namespace

extern "C" {

GRAFT_API int graft_op_desc_new(graft_op_desc** out, graft_graph* graph, const char* op_type, const char* name) {
  return Guard("graft_op_desc_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(op_type);
    auto desc = std::make_unique<graft_op_desc>();
    desc->graph = graph;
    desc->spec.type = op_type;
    if (name) desc->spec.name = name;
    *out = desc.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_op_desc_free(graft_op_desc* desc) { delete desc; }

GRAFT_API int graft_op_desc_add_input(graft_op_desc* desc, graft_output input) {
  return Guard("graft_op_desc_add_input", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    if (!graft::capi::IsOutputOf(input, &desc->graph->graph)) {  // the message only on failure
      return graft::capi::CheckOutput(
          input, &desc->graph->graph, graft::StrCat("input ", desc->spec.inputs.size(), " of op '", desc->spec.name, "'"));
    }
    desc->spec.inputs.push_back(graft::NodeSpec::InputArg{{FromC(input)}, false});
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_add_input_list(graft_op_desc* desc, const graft_output* inputs, int n) {
  return Guard("graft_op_desc_add_input_list", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_RETURN_IF_ERROR(CheckCount(inputs, n));
    graft::NodeSpec::InputArg arg;
    arg.is_list = true;
    for (int i = 0; i < n; ++i) {
      if (!graft::capi::IsOutputOf(inputs[i], &desc->graph->graph)) {
        return graft::capi::CheckOutput(
            inputs[i], &desc->graph->graph,
            graft::StrCat("element ", i, " of input list ", desc->spec.inputs.size(), " of op '", desc->spec.name, "'"));
      }
      arg.tensors.push_back(FromC(inputs[i]));
    }
    desc->spec.inputs.push_back(std::move(arg));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_add_control_input(graft_op_desc* desc, graft_op* op) {
  return Guard("graft_op_desc_add_control_input", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_CHECK_ARG(op);
    if (FromC(op)->graph() != &desc->graph->graph) {
      return graft::errors::InvalidArgument("control input '", FromC(op)->name(), "' is from another graph");
    }
    desc->spec.control_inputs.push_back(FromC(op));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_device(graft_op_desc* desc, const char* device) {
  return Guard("graft_op_desc_set_device", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    desc->spec.device = device ? device : "";
    return Status::Ok();
  });
}

GRAFT_API graft_attrs* graft_op_desc_attrs(graft_op_desc* desc) { return desc ? &desc->attrs : nullptr; }

GRAFT_API int graft_op_desc_finish(graft_op** out, graft_op_desc* desc) {
  std::unique_ptr<graft_op_desc> owned(desc);  // consumed whatever happens
  return Guard("graft_op_desc_finish", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(desc);
    Node* node = nullptr;
    desc->spec.check_kernels = true;
    GRAFT_RETURN_IF_ERROR(desc->graph->graph.AddNode(std::move(desc->spec), &node));
    *out = ToC(node);
    return Status::Ok();
  });
}

}  // extern "C"
