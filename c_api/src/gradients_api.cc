// C API: symbolic gradients and the gradient context of C gradient functions (graft/gradients.h).
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "core/gradients/gradient_builder.h"
#include "core/gradients/gradient_context.h"
#include "graft/gradients.h"

using graft::Output;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);
}  // namespace graft::capi

namespace {

graft::GradientContext* Ctx(const graft_gradient_context* ctx) {
  return reinterpret_cast<graft::GradientContext*>(const_cast<graft_gradient_context*>(ctx));
}

Status Tensors(const graft_output* ts, int n, const graft::Graph& graph, const char* what, std::vector<Output>* out) {
  if (n < 0) return graft::errors::InvalidArgument("the number of ", what, " is negative (", n, ")");
  if (n > 0 && ts == nullptr) return graft::errors::InvalidArgument("argument '", what, "' is NULL");
  for (int i = 0; i < n; ++i) {
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(ts[i], &graph, graft::StrCat(what, "[", i, "]")));
    out->push_back(FromC(ts[i]));
  }
  return Status::Ok();
}

int AddGradients(const char* function, graft_output* out_grads, graft_graph* graph, const graft_output* ys, int ny,
                 const graft_output* xs, int nx, const graft_output* grad_ys, const graft_output* stop_gradients,
                 int nstop, graft_unconnected_gradients unconnected, const char* scope,
                 graft_output* out_indices = nullptr, graft_output* out_dense_shapes = nullptr, bool rows = false) {
  return Guard(function, [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    if (nx > 0) GRAFT_CHECK_ARG(out_grads);
    if (rows && nx > 0) {
      GRAFT_CHECK_ARG(out_indices);
      GRAFT_CHECK_ARG(out_dense_shapes);
    }
    if (unconnected != GRAFT_UNCONNECTED_NONE && unconnected != GRAFT_UNCONNECTED_ZERO) {
      return graft::errors::InvalidArgument("unconnected is ", unconnected,
                                            " (GRAFT_UNCONNECTED_NONE or GRAFT_UNCONNECTED_ZERO)");
    }
    graft::Graph& g = graph->graph;
    std::vector<Output> y, x;
    graft::GradientsOptions options;
    GRAFT_RETURN_IF_ERROR(Tensors(ys, ny, g, "ys", &y));
    GRAFT_RETURN_IF_ERROR(Tensors(xs, nx, g, "xs", &x));
    if (grad_ys != nullptr) GRAFT_RETURN_IF_ERROR(Tensors(grad_ys, ny, g, "grad_ys", &options.grad_ys));
    GRAFT_RETURN_IF_ERROR(Tensors(stop_gradients, nstop, g, "stop_gradients", &options.stop_gradients));
    options.unconnected =
        unconnected == GRAFT_UNCONNECTED_ZERO ? graft::UnconnectedGradients::kZero : graft::UnconnectedGradients::kNone;
    if (scope != nullptr) options.scope = scope;
    std::vector<std::optional<Output>> result;
    std::vector<std::optional<graft::IndexedSlicesGrad>> result_rows;
    GRAFT_RETURN_IF_ERROR(graft::AddGradients(g, y, x, options, &result, rows ? &result_rows : nullptr));
    for (int i = 0; i < nx; ++i) {
      const auto& r = result[static_cast<size_t>(i)];
      out_grads[i] = r ? ToC(*r) : graft_output{nullptr, 0};
      if (!rows) continue;
      const auto& sr = result_rows[static_cast<size_t>(i)];
      out_indices[i] = sr ? ToC(sr->indices) : graft_output{nullptr, 0};
      out_dense_shapes[i] = sr ? ToC(sr->dense_shape) : graft_output{nullptr, 0};
    }
    return Status::Ok();
  });
}

}  // namespace

GRAFT_API int graft_graph_add_gradients(graft_output* out_grads, graft_graph* graph, const graft_output* ys, int ny,
                                        const graft_output* xs, int nx, const graft_output* grad_ys,
                                        const char* scope) {
  return AddGradients("graft_graph_add_gradients", out_grads, graph, ys, ny, xs, nx, grad_ys, nullptr, 0,
                      GRAFT_UNCONNECTED_NONE, scope);
}

GRAFT_API int graft_graph_add_gradients_ex(graft_output* out_grads, graft_graph* graph, const graft_output* ys, int ny,
                                           const graft_output* xs, int nx, const graft_output* grad_ys,
                                           const graft_output* stop_gradients, int nstop,
                                           graft_unconnected_gradients unconnected, const char* scope) {
  return AddGradients("graft_graph_add_gradients_ex", out_grads, graph, ys, ny, xs, nx, grad_ys, stop_gradients,
                      nstop, unconnected, scope);
}

GRAFT_API int graft_graph_add_gradients_sparse(graft_output* out_grads, graft_output* out_indices,
                                               graft_output* out_dense_shapes, graft_graph* graph,
                                               const graft_output* ys, int ny, const graft_output* xs, int nx,
                                               const graft_output* grad_ys, const graft_output* stop_gradients,
                                               int nstop, graft_unconnected_gradients unconnected, const char* scope) {
  return AddGradients("graft_graph_add_gradients_sparse", out_grads, graph, ys, ny, xs, nx, grad_ys, stop_gradients,
                      nstop, unconnected, scope, out_indices, out_dense_shapes, true);
}

GRAFT_API graft_op* graft_gradient_context_op(const graft_gradient_context* ctx) {
  return ctx == nullptr ? nullptr : ToC(Ctx(ctx)->op);
}

GRAFT_API graft_graph* graft_gradient_context_graph(const graft_gradient_context* ctx) {
  return ctx == nullptr ? nullptr : graft::capi::HandleOrNull(Ctx(ctx)->graph);
}

GRAFT_API int graft_gradient_context_output_grad(graft_output* out, const graft_gradient_context* ctx, int index) {
  return Guard("graft_gradient_context_output_grad", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    graft::GradientContext* c = Ctx(ctx);
    if (index < 0 || index >= c->num_outputs()) {
      return graft::errors::OutOfRange("op '", c->op->name(), "' has no output ", index);
    }
    Output g = c->grad(index);
    *out = g.node ? ToC(g) : graft_output{nullptr, 0};
    return Status::Ok();
  });
}

GRAFT_API int graft_gradient_context_set_input_grad(graft_gradient_context* ctx, int index, graft_output grad) {
  return Guard("graft_gradient_context_set_input_grad", [&]() -> Status {
    GRAFT_CHECK_ARG(ctx);
    graft::GradientContext* c = Ctx(ctx);
    if (index < 0 || index >= c->num_inputs()) {
      return graft::errors::OutOfRange("op '", c->op->name(), "' has no input ", index);
    }
    if (grad.op == nullptr) {
      c->grad_inputs[static_cast<size_t>(index)].reset();
      return Status::Ok();
    }
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(grad, &c->graph, "grad"));
    c->set_grad(index, FromC(grad));
    return Status::Ok();
  });
}
