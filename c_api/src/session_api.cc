// C API: sessions (graft/session.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "c_api/src/run_options_api.h"
#include "core/device_spec.h"
#include "core/runtime/session.h"
#include "graft/session.h"

using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;

namespace {
// A run's feeds, fetches and targets from the C arrays, checked (counts, NULLs, handles).
struct RunArgs {
  std::vector<graft::Output> feeds, fetches;
  std::vector<const graft::Node*> targets;
};
Status RunArgsFromC(const graft_output* feeds, int nfeeds, const graft_output* fetches, int nfetches,
                    graft_op* const* targets, int ntargets, RunArgs* out);

// Gives a run's values to the caller as new handles (all made before any is set, so that
// nothing is half-set on failure) and records the run's figures on the session.
void HandOut(graft_session* session, std::vector<graft::Tensor> values, const graft::RunStats& stats,
             graft_tensor** out_values) {
  std::vector<std::unique_ptr<graft_tensor>> handles;
  for (graft::Tensor& v : values) handles.push_back(std::make_unique<graft_tensor>(std::move(v)));
  for (size_t i = 0; i < handles.size(); ++i) out_values[i] = handles[i].release();
  session->last_peak_bytes.store(session->track_memory ? stats.peak_bytes : -1, std::memory_order_relaxed);
  session->last_ops_run.store(stats.nodes_run, std::memory_order_relaxed);
}
}

static_assert(GRAFT_SESSION_MAX_THREADS == graft::Session::kMaxThreads, "the documented cap is the core's");

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);

Status SessionOptionsFromC(const graft_session_options* options, SessionOptions* o, bool* track,
                           std::string* cluster) {
  *track = false;
  if (options == nullptr) return Status::Ok();
  *track = options->track_memory != 0;
  if (options->version < 1) return errors::InvalidArgument("options.version ", options->version, " is unknown");
  if (options->num_threads < 0 || options->num_threads > GRAFT_SESSION_MAX_THREADS) {
    return errors::InvalidArgument("options.num_threads is ", options->num_threads, "; it must be 0 (one per core) to ",
                                   GRAFT_SESSION_MAX_THREADS);
  }
  o->num_threads = options->num_threads;
  if ((options->disabled_rewrites & ~GRAFT_REWRITE_ALL) != 0) {
    return errors::InvalidArgument("options.disabled_rewrites has unknown bits ", options->disabled_rewrites);
  }
  o->rewrites.constant_folding = !(options->disabled_rewrites & GRAFT_REWRITE_CONSTANT_FOLDING);
  o->rewrites.common_subexpressions = !(options->disabled_rewrites & GRAFT_REWRITE_COMMON_SUBEXPRESSIONS);
  o->rewrites.remove_identity = !(options->disabled_rewrites & GRAFT_REWRITE_IDENTITY_REMOVAL);
  o->rewrites.fusion = !(options->disabled_rewrites & GRAFT_REWRITE_FUSION);
  if (options->version >= 2) {  // the fields version 1 callers' structs do not have
    if (options->default_device != nullptr && *options->default_device != '\0') {
      graft::DeviceSpec spec;
      GRAFT_RETURN_IF_ERROR(graft::DeviceSpec::Parse(options->default_device, &spec)
                                .WithContext("options.default_device"));
      o->placement.default_device = options->default_device;
    }
    o->placement.strict = options->strict_placement != 0;
  }
  if (options->version >= 3) {
    if (options->max_memory_bytes < 0) {
      return errors::InvalidArgument("options.max_memory_bytes is ", options->max_memory_bytes, "; 0 means no cap");
    }
    o->max_memory_bytes = options->max_memory_bytes;
  }
  if (options->version >= 4 && options->cluster != nullptr && *options->cluster != '\0') {
    if (cluster == nullptr) return errors::InvalidArgument("options.cluster is not supported here");
    *cluster = options->cluster;
  }
  return Status::Ok();
}
}  // namespace graft::capi

namespace {
Status RunArgsFromC(const graft_output* feeds, int nfeeds, const graft_output* fetches, int nfetches,
                    graft_op* const* targets, int ntargets, RunArgs* out) {
  if (nfetches < 0 || nfeeds < 0 || ntargets < 0) return graft::errors::InvalidArgument("a count is negative");
  if (nfetches > 0) GRAFT_CHECK_ARG(fetches);
  if (nfeeds > 0) GRAFT_CHECK_ARG(feeds);
  if (ntargets > 0) GRAFT_CHECK_ARG(targets);
  for (int i = 0; i < nfeeds; ++i) {
    // The message is built only for a bad tensor: StrCat on every run cost more than the run.
    if (!graft::capi::IsOutputOf(feeds[i], nullptr)) {
      return graft::capi::CheckOutput(feeds[i], nullptr, graft::StrCat("feed ", i));
    }
    out->feeds.push_back(FromC(feeds[i]));
  }
  for (int i = 0; i < nfetches; ++i) {
    if (!graft::capi::IsOutputOf(fetches[i], nullptr)) {
      return graft::capi::CheckOutput(fetches[i], nullptr, graft::StrCat("fetch ", i));
    }
    out->fetches.push_back(FromC(fetches[i]));
  }
  for (int i = 0; i < ntargets; ++i) {
    if (targets[i] == nullptr) return graft::errors::InvalidArgument("target ", i, " is NULL");
    out->targets.push_back(FromC(targets[i]));
  }
  return Status::Ok();
}
}  // namespace

namespace {
Status SessionRun(graft_tensor** out_values, graft_session* session, const graft_output* feeds,
                  graft_tensor* const* feed_values, int nfeeds, const graft_output* fetches, int nfetches,
                  graft_op* const* targets, int ntargets, const graft_run_options* options) {
  GRAFT_CHECK_ARG(session);
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  RunArgs a;
  GRAFT_RETURN_IF_ERROR(RunArgsFromC(feeds, nfeeds, fetches, nfetches, targets, ntargets, &a));
  if (nfetches > 0) GRAFT_CHECK_ARG(out_values);
  if (nfeeds > 0) GRAFT_CHECK_ARG(feed_values);
  std::vector<std::pair<graft::Output, graft::Tensor>> f;
  for (int i = 0; i < nfeeds; ++i) {
    if (feed_values[i] == nullptr) return graft::errors::InvalidArgument("feed value ", i, " is NULL");
    f.emplace_back(a.feeds[static_cast<size_t>(i)], feed_values[i]->tensor);
  }
  std::vector<graft::Tensor> values;
  graft::RunStats stats;
  if (session->cluster != nullptr) {
    GRAFT_RETURN_IF_ERROR(session->cluster->Run(f, a.fetches, a.targets, &values, &control));
  } else {
    GRAFT_RETURN_IF_ERROR(
        session->session.Run(f, a.fetches, a.targets, &values, &stats, session->track_memory, &control));
  }
  HandOut(session, std::move(values), stats, out_values);
  return Status::Ok();
}

Status CallableRun(graft_tensor** out_values, graft_callable* callable, graft_tensor* const* feed_values, int nfeeds,
                   const graft_run_options* options) {
  GRAFT_CHECK_ARG(callable);
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  if (nfeeds != callable->num_feeds) {
    return graft::errors::InvalidArgument(nfeeds, " feed values for a callable of ", callable->num_feeds, " feeds");
  }
  if (nfeeds > 0) GRAFT_CHECK_ARG(feed_values);
  if (callable->num_fetches > 0) GRAFT_CHECK_ARG(out_values);
  std::vector<graft::Tensor> f;
  f.reserve(static_cast<size_t>(nfeeds));
  for (int i = 0; i < nfeeds; ++i) {
    if (feed_values[i] == nullptr) return graft::errors::InvalidArgument("feed value ", i, " is NULL");
    f.push_back(feed_values[i]->tensor);
  }
  std::vector<graft::Tensor> values;
  graft::RunStats stats;
  graft_session* s = callable->session;
  GRAFT_RETURN_IF_ERROR(s->session.RunCallable(*callable->exe, f, &values, &stats, s->track_memory, &control));
  HandOut(s, std::move(values), stats, out_values);
  return Status::Ok();
}
}  // namespace

extern "C" {

GRAFT_API int graft_session_new(graft_session** out, graft_graph* graph, const graft_session_options* options) {
  return Guard("graft_session_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    graft::SessionOptions o;
    bool track = false;
    std::string cluster;
    GRAFT_RETURN_IF_ERROR(graft::capi::SessionOptionsFromC(options, &o, &track, &cluster));
    std::shared_ptr<graft::Graph> g;
    GRAFT_RETURN_IF_ERROR(graft::capi::SharedGraph(graph, &g));
    graft::ClusterSpec spec;
    if (!cluster.empty()) GRAFT_RETURN_IF_ERROR(graft::ClusterSpec::Parse(cluster, &spec).WithContext("options.cluster"));
    auto session = std::make_unique<graft_session>(g, o, track);
    GRAFT_RETURN_IF_ERROR(session->session.init_status());
    if (!cluster.empty()) GRAFT_RETURN_IF_ERROR(graft::ClusterSession::Create(g, spec, o, &session->cluster));
    *out = session.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_session_free(graft_session* session) { delete session; }


GRAFT_API int graft_session_run(graft_tensor** out_values, graft_session* session, const graft_output* feeds,
                                graft_tensor* const* feed_values, int nfeeds, const graft_output* fetches, int nfetches,
                                graft_op* const* targets, int ntargets) {
  return Guard("graft_session_run", [&] {
    return SessionRun(out_values, session, feeds, feed_values, nfeeds, fetches, nfetches, targets, ntargets, nullptr);
  });
}

GRAFT_API int graft_session_serve(graft_session* session) {
  return Guard("graft_session_serve", [&]() -> Status {
    GRAFT_CHECK_ARG(session);
    if (session->cluster == nullptr) {
      return graft::errors::FailedPrecondition("the session has no cluster (options.cluster): nothing to serve");
    }
    return session->cluster->Serve();
  });
}

GRAFT_API int graft_session_run_with_options(graft_tensor** out_values, graft_session* session,
                                             const graft_output* feeds, graft_tensor* const* feed_values, int nfeeds,
                                             const graft_output* fetches, int nfetches, graft_op* const* targets,
                                             int ntargets, const graft_run_options* options) {
  return Guard("graft_session_run_with_options", [&] {
    return SessionRun(out_values, session, feeds, feed_values, nfeeds, fetches, nfetches, targets, ntargets, options);
  });
}

GRAFT_API int graft_session_make_callable(graft_callable** out, graft_session* session, const graft_output* feeds,
                                          int nfeeds, const graft_output* fetches, int nfetches,
                                          graft_op* const* targets, int ntargets) {
  return Guard("graft_session_make_callable", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(session);
    if (session->cluster != nullptr) {
      return graft::errors::Unimplemented("a cluster session has no callables yet: use graft_session_run");
    }
    RunArgs a;
    GRAFT_RETURN_IF_ERROR(RunArgsFromC(feeds, nfeeds, fetches, nfetches, targets, ntargets, &a));
    auto c = std::make_unique<graft_callable>();
    GRAFT_RETURN_IF_ERROR(session->session.MakeCallable(a.feeds, a.fetches, a.targets, &c->exe));
    c->session = session;
    c->num_feeds = nfeeds;
    c->num_fetches = nfetches;
    *out = c.release();
    return Status::Ok();
  });
}

GRAFT_API int graft_callable_run(graft_tensor** out_values, graft_callable* callable, graft_tensor* const* feed_values,
                                 int nfeeds) {
  return Guard("graft_callable_run", [&] { return CallableRun(out_values, callable, feed_values, nfeeds, nullptr); });
}

GRAFT_API int graft_callable_run_with_options(graft_tensor** out_values, graft_callable* callable,
                                              graft_tensor* const* feed_values, int nfeeds,
                                              const graft_run_options* options) {
  return Guard("graft_callable_run_with_options",
               [&] { return CallableRun(out_values, callable, feed_values, nfeeds, options); });
}

GRAFT_API void graft_callable_free(graft_callable* callable) { delete callable; }

GRAFT_API int64_t graft_session_last_ops_run(const graft_session* session) {
  return session ? session->last_ops_run.load(std::memory_order_relaxed) : 0;
}

GRAFT_API int64_t graft_session_memory_in_use(const graft_session* session) {
  const graft::MemoryAccount* m = session != nullptr ? session->session.memory() : nullptr;
  return m != nullptr ? m->used() : -1;
}

GRAFT_API int64_t graft_session_last_peak_bytes(const graft_session* session) {
  return session && session->track_memory ? session->last_peak_bytes.load(std::memory_order_relaxed) : -1;
}

}  // extern "C"
