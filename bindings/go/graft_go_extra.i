/*
 * bindings/go/graft_go_extra.i: Go's additions to graft.i that need the shared layer's classes
 * (included after graft.hpp and graft_eager.hpp).
 */
/* ---- Function.Call's fast path ------------------------------------------------------------ */

/* A Go []int64 the call reads or writes in place: (pointer, length) of the slice's memory. */
%typemap(gotype) (int64_t *go_io, size_t go_io_len) "[]int64"
%typemap(in) (int64_t *go_io, size_t go_io_len) %{
  $1 = static_cast<int64_t *>($input.array);
  $2 = static_cast<size_t>($input.len);
%}

%{
namespace graft {
/* Results of a go_function_call that are not returned in its result, kept for
 * go_function_take_results on the same thread (the Go caller is locked to it). A function's
 * static: a namespace-scope thread_local costs a TLS init check on every call that names it. */
inline std::vector<Value> &go_pending_results() {
  thread_local std::vector<Value> pending;
  return pending;
}

/* Function::call's steps without its ArgList and vectors (a copy of each argument, three
 * allocations), for a Go caller: args are the addresses of Values. Returns the result's address
 * when there is one result (even, being aligned); else the number of results n as 2n + 1, the
 * results waiting for go_function_take_results; 0 on failure, recorded as the %exception
 * records one (a wrapper leaves a scalar result unset when it catches). */
inline int64_t go_call(Function *f, Context *ctx, const int64_t *args, int64_t nargs) {
  try {
    graft_arg small[8];
    std::vector<graft_arg> big;
    graft_arg *a = small;
    if (nargs > 8) {
      big.resize(static_cast<size_t>(nargs));
      a = big.data();
    }
    for (int64_t i = 0; i < nargs; ++i) {
      a[i] = graft_arg{};
      a[i].kind = GRAFT_ARG_VALUE;
      a[i].value = reinterpret_cast<const Value *>(static_cast<uintptr_t>(args[i]))->get();
    }
    detail::ActiveContext active(ctx->ref());
    int n = 0;
    detail::check(graft_function_call(detail::output_slots(), detail::kMaxOutputs, &n, f->c(), ctx->c(), a,
                                      static_cast<int>(nargs)));
    if (n == 1) return static_cast<int64_t>(reinterpret_cast<uintptr_t>(new Value(detail::output_slots()[0], ctx->ref())));
    go_pending_results() = detail::take_slots(n, ctx->ref());
    return 2 * static_cast<int64_t>(go_pending_results().size()) + 1;
  } catch (const Error &e) {
    graft_go_record(e.code(), e.what());
  } catch (const std::exception &e) {
    graft_go_record(GRAFT_EUNKNOWN, e.what());
  } catch (...) {
    graft_go_record(GRAFT_EUNKNOWN, "graft: unknown C++ exception");
  }
  return 0;
}
}  // namespace graft
%}

%inline %{
namespace graft {
/* Go's Function.Call when every argument is a Value (bindings/go/function.go): one crossing of
 * cgo for a function of one result, with no Go memory passed (no pointer checks) and no
 * interface to convert: f, ctx and the arguments a0..a3 (nargs of them) are addresses.
 * Results as go_call's: a result's address, 2n + 1 for n results to take, 0 on failure. */
inline int64_t go_function_call(int64_t f, int64_t ctx, int64_t nargs, int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  const int64_t args[4] = {a0, a1, a2, a3};
  if (nargs < 0 || nargs > 4) {
    graft_go_record(GRAFT_EINVAL, "graft: go_function_call takes 0 to 4 arguments");
    return 0;
  }
  return go_call(reinterpret_cast<Function *>(static_cast<uintptr_t>(f)),
                 reinterpret_cast<Context *>(static_cast<uintptr_t>(ctx)), args, nargs);
}
/* go_function_call with the arguments' addresses in a Go slice (any number of them). */
inline int64_t go_function_call_n(int64_t f, int64_t ctx, int64_t *go_io, size_t go_io_len) {
  return go_call(reinterpret_cast<Function *>(static_cast<uintptr_t>(f)),
                 reinterpret_cast<Context *>(static_cast<uintptr_t>(ctx)), go_io, static_cast<int64_t>(go_io_len));
}
/* The results a go_function_call on this thread left to take, into go_io (one address each: new
 * Values the caller owns). */
inline void go_function_take_results(int64_t *go_io, size_t go_io_len) {
  std::vector<Value> out = std::move(go_pending_results());
  go_pending_results().clear();
  if (out.size() != go_io_len) throw Error(GRAFT_EINTERNAL, "graft: go_function_take_results: no results of that count");
  for (size_t i = 0; i < out.size(); ++i)
    go_io[i] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(new Value(std::move(out[i]))));
}
/* Frees the Value at v (DeleteValue without converting a Go interface). */
inline void go_value_delete(int64_t v) { delete reinterpret_cast<Value *>(static_cast<uintptr_t>(v)); }
}  // namespace graft
%}
