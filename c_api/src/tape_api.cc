// C API: gradient tapes (graft/tape.h).
#include <memory>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/eager_handles.h"
#include "core/eager/tape.h"
#include "graft/tape.h"

using graft::Status;
using graft::capi::Guard;
using graft::eager::Value;

struct graft_tape {
  graft_tape(graft_context* c, graft::eager::TapeOptions o) : tape(&c->ctx, o) {}
  graft::eager::Tape tape;
};

namespace {

Status Values(const graft_value* const* vs, int n, const char* what, bool allow_null_array, std::vector<Value>* out) {
  if (n < 0) return graft::errors::InvalidArgument("the number of ", what, " is negative (", n, ")");
  if (n > 0 && vs == nullptr) {
    if (allow_null_array) return Status::Ok();
    return graft::errors::InvalidArgument("argument '", what, "' is NULL");
  }
  for (int i = 0; i < n; ++i) {
    if (vs[i] == nullptr) return graft::errors::InvalidArgument(what, "[", i, "] is NULL");
    out->push_back(vs[i]->v);
  }
  return Status::Ok();
}

}  // namespace

GRAFT_API int graft_tape_new(graft_tape** out, graft_context* ctx, graft_bool persistent,
                             graft_bool watch_accessed_variables) {
  return Guard("graft_tape_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(ctx);
    graft::eager::TapeOptions options;
    options.persistent = persistent != 0;
    options.watch_accessed_variables = watch_accessed_variables != 0;
    auto tape = std::make_unique<graft_tape>(ctx, options);
    GRAFT_RETURN_IF_ERROR(tape->tape.Start());
    *out = tape.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_tape_free(graft_tape* tape) { delete tape; }

GRAFT_API int graft_tape_stop(graft_tape* tape) {
  return Guard("graft_tape_stop", [&]() -> Status {
    GRAFT_CHECK_ARG(tape);
    return tape->tape.Stop();
  });
}

GRAFT_API int graft_tape_start(graft_tape* tape) {
  return Guard("graft_tape_start", [&]() -> Status {
    GRAFT_CHECK_ARG(tape);
    return tape->tape.Start();
  });
}

GRAFT_API graft_bool graft_tape_is_recording(const graft_tape* tape) {
  return tape != nullptr && tape->tape.recording() ? 1 : 0;
}

GRAFT_API int graft_tape_watch(graft_tape* tape, const graft_value* value) {
  return Guard("graft_tape_watch", [&]() -> Status {
    GRAFT_CHECK_ARG(tape);
    GRAFT_CHECK_ARG(value);
    return tape->tape.Watch(value->v);
  });
}

GRAFT_API int graft_tape_num_watched_variables(const graft_tape* tape) {
  return tape == nullptr ? 0 : static_cast<int>(tape->tape.watched_variables().size());
}

GRAFT_API int graft_tape_watched_variable(graft_value** out, const graft_tape* tape, int i) {
  return Guard("graft_tape_watched_variable", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(tape);
    const auto& vars = tape->tape.watched_variables();
    if (i < 0 || static_cast<size_t>(i) >= vars.size()) {
      return graft::errors::OutOfRange("watched variable ", i, " is out of range (the tape watches ", vars.size(), ")");
    }
    *out = new graft_value{vars[static_cast<size_t>(i)]};
    return Status::Ok();
  });
}

namespace {

int TapeGradient(const char* function, graft_value** out_grads, graft_value** out_indices,
                 graft_value** out_dense_shapes, bool rows, graft_tape* tape, const graft_value* const* targets,
                 int ntargets, const graft_value* const* sources, int nsources,
                 const graft_value* const* output_gradients, graft_unconnected_gradients unconnected) {
  return Guard(function, [&]() -> Status {
    GRAFT_CHECK_ARG(tape);
    if (nsources > 0) GRAFT_CHECK_ARG(out_grads);
    if (rows && nsources > 0) {
      GRAFT_CHECK_ARG(out_indices);
      GRAFT_CHECK_ARG(out_dense_shapes);
    }
    if (unconnected != GRAFT_UNCONNECTED_NONE && unconnected != GRAFT_UNCONNECTED_ZERO) {
      return graft::errors::InvalidArgument("unconnected is ", unconnected,
                                            " (GRAFT_UNCONNECTED_NONE or GRAFT_UNCONNECTED_ZERO)");
    }
    std::vector<Value> t, s, d;
    GRAFT_RETURN_IF_ERROR(Values(targets, ntargets, "targets", false, &t));
    GRAFT_RETURN_IF_ERROR(Values(sources, nsources, "sources", false, &s));
    GRAFT_RETURN_IF_ERROR(Values(output_gradients, output_gradients ? ntargets : 0, "output_gradients", true, &d));
    std::vector<std::optional<Value>> grads;
    std::vector<std::optional<graft::eager::Tape::Rows>> grad_rows;
    GRAFT_RETURN_IF_ERROR(tape->tape.Gradient(t, s, d,
                                              unconnected == GRAFT_UNCONNECTED_ZERO
                                                  ? graft::UnconnectedGradients::kZero
                                                  : graft::UnconnectedGradients::kNone,
                                              &grads, rows ? &grad_rows : nullptr));
    // Every handle is made before any is handed out, so a failed allocation leaks nothing.
    std::vector<std::unique_ptr<graft_value>> handles, indices, shapes;
    for (auto& g : grads) handles.push_back(g ? std::make_unique<graft_value>(graft_value{std::move(*g)}) : nullptr);
    for (auto& r : grad_rows) {
      indices.push_back(r ? std::make_unique<graft_value>(graft_value{r->indices}) : nullptr);
      shapes.push_back(r ? std::make_unique<graft_value>(graft_value{r->dense_shape}) : nullptr);
    }
    for (int i = 0; i < nsources; ++i) {
      const size_t k = static_cast<size_t>(i);
      out_grads[i] = handles[k].release();
      if (!rows) continue;
      out_indices[i] = k < indices.size() ? indices[k].release() : nullptr;
      out_dense_shapes[i] = k < shapes.size() ? shapes[k].release() : nullptr;
    }
    return Status::Ok();
  });
}

}  // namespace

GRAFT_API int graft_tape_gradient(graft_value** out_grads, graft_tape* tape, const graft_value* const* targets,
                                  int ntargets, const graft_value* const* sources, int nsources,
                                  const graft_value* const* output_gradients, graft_unconnected_gradients unconnected) {
  return TapeGradient("graft_tape_gradient", out_grads, nullptr, nullptr, false, tape, targets, ntargets, sources,
                      nsources, output_gradients, unconnected);
}

GRAFT_API int graft_tape_gradient_sparse(graft_value** out_grads, graft_value** out_indices,
                                         graft_value** out_dense_shapes, graft_tape* tape,
                                         const graft_value* const* targets, int ntargets,
                                         const graft_value* const* sources, int nsources,
                                         const graft_value* const* output_gradients,
                                         graft_unconnected_gradients unconnected) {
  return TapeGradient("graft_tape_gradient_sparse", out_grads, out_indices, out_dense_shapes, true, tape, targets,
                      ntargets, sources, nsources, output_gradients, unconnected);
}
