/*
 * bindings/graft_eager.hpp: eager execution, traced functions, control flow and host
 * functions for the bindings (graft/eager.h, graft/function.h). Included by graft.hpp.
 */
#ifndef GRAFT_BINDINGS_GRAFT_EAGER_HPP
#define GRAFT_BINDINGS_GRAFT_EAGER_HPP

#include <mutex>
#include <unordered_map>

namespace graft {

class Context;

/* A value of a context: concrete (a tensor) or symbolic (a tensor of the graph being traced). */
class Value {
 public:
  Value() = default;
  bool valid() const { return h_ != nullptr; }
  bool is_symbolic() const { return graft_value_is_symbolic(get()) != 0; }
  int dtype() const { return graft_value_dtype(get()); }
  Shape shape() const {
    graft_shape *s = nullptr;
    detail::check(graft_value_shape(&s, get()));
    return Shape::from_c(s);
  }
  /* A concrete value's tensor (shares the buffer). */
  Tensor to_tensor() const {
    graft_tensor *t = nullptr;
    detail::check(graft_value_to_tensor(&t, get()));
    return Tensor(t);
  }
  /* A symbolic value's tensor in its traced graph (which the Output keeps alive). */
  Output output() const {
    graft_output o;
    detail::check(graft_value_output(&o, get()));
    return Output(GraphRef::share(graft_op_graph(o.op)), o);
  }
  bool same_as(const Value &other) const { return h_ == other.h_; }
  /* Whether both are handles of one variable (graft_variable_same). */
  bool same_variable(const Value &other) const {
    return h_ && other.h_ && graft_variable_same(h_.get(), other.h_.get()) != 0;
  }

#ifndef SWIG
  Value(graft_value *owned, std::shared_ptr<graft_context> ctx) : ctx_(std::move(ctx)), h_(owned, graft_value_free) {}
  graft_value *get() const {
    if (!h_) throw Error(GRAFT_EINVAL, "graft: use of an empty Value");
    return h_.get();
  }
  const std::shared_ptr<graft_context> &context() const { return ctx_; }
#endif

 private:
  std::shared_ptr<graft_context> ctx_;  // declared first: the value goes before its context
  std::shared_ptr<graft_value> h_;
};

namespace detail {
inline std::vector<Value> take_values(std::vector<graft_value *> &raw, int n, const std::shared_ptr<graft_context> &ctx) {
  std::vector<Value> out;
  out.reserve(n);
  for (int i = 0; i < n && i < static_cast<int>(raw.size()); ++i) out.emplace_back(raw[i], ctx);
  return out;
}
inline std::vector<const graft_value *> raw_values(const std::vector<Value> &values) {
  std::vector<const graft_value *> out;
  out.reserve(values.size());
  for (const Value &v : values) out.push_back(v.get());
  return out;
}
/* The contexts whose calls are on this thread's stack: a callback's ctx maps back to its owner. */
inline std::vector<std::shared_ptr<graft_context>> &active_contexts() {
  thread_local std::vector<std::shared_ptr<graft_context>> stack;
  return stack;
}
struct ActiveContext {
  explicit ActiveContext(const std::shared_ptr<graft_context> &c) { active_contexts().push_back(c); }
  ~ActiveContext() { active_contexts().pop_back(); }
};
inline std::shared_ptr<graft_context> owner_of(graft_context *c) {
  auto &stack = active_contexts();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->get() == c) return *it;
  return std::shared_ptr<graft_context>(c, [](graft_context *) {});  // borrowed
}
/* Output capacity of calls whose output count is only known afterwards. */
constexpr int kMaxOutputs = 4096;
/* This thread's output slots for such calls: allocated once and never resized, so a nested call
 * (from a callback) reuses it safely, its outputs being taken before the outer call writes. */
inline graft_value **output_slots() {
  thread_local std::vector<graft_value *> slots(kMaxOutputs, nullptr);
  return slots.data();
}
inline std::vector<Value> take_slots(int n, const std::shared_ptr<graft_context> &ctx) {
  graft_value **slots = output_slots();
  std::vector<Value> out;
  out.reserve(n);
  for (int i = 0; i < n && i < kMaxOutputs; ++i) out.emplace_back(slots[i], ctx);
  return out;
}
}  // namespace detail

/* An argument of a function call: a value, or a host int, float, string or bool. Class-typed
 * members are read through methods returning copies (a field would hand the bindings a pointer
 * into this object). */
class Arg {
 public:
  int kind = GRAFT_ARG_VALUE; /* GRAFT_ARG_* */
  Value value() const { return value_; }
#ifndef SWIG
  Value value_;
#endif
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
};

/* The arguments of a call, or of a traced callback. */
class ArgList {
 public:
  int size() const { return static_cast<int>(args_.size()); }
  /* A copy of argument i (a reference would point into this list). */
  Arg get(int i) const {
    if (i < 0 || i >= size()) throw Error(GRAFT_ERANGE, "graft: argument index out of range");
    return args_[i];
  }
  void add_value(const Value &v) { push(GRAFT_ARG_VALUE).value_ = v; }
  void add_int(int64_t v) { push(GRAFT_ARG_INT).i = v; }
  void add_float(double v) { push(GRAFT_ARG_FLOAT).f = v; }
  void add_string(const std::string &v) { push(GRAFT_ARG_STRING).s = v; }
  void add_bool(bool v) { push(GRAFT_ARG_BOOL).b = v; }
  void clear() { args_.clear(); }
#ifndef SWIG
  std::vector<graft_arg> to_c() const {
    std::vector<graft_arg> out(args_.size());
    for (size_t k = 0; k < args_.size(); ++k) {
      const Arg &a = args_[k];
      out[k].kind = a.kind;
      out[k].value = a.kind == GRAFT_ARG_VALUE ? a.value_.get() : nullptr;
      out[k].i = a.i;
      out[k].f = a.f;
      out[k].s = a.s.c_str();
      out[k].b = a.b;
    }
    return out;
  }
  static ArgList from_c(const graft_arg *args, int nargs, const std::shared_ptr<graft_context> &ctx) {
    ArgList list;
    for (int k = 0; k < nargs; ++k) {
      Arg &a = list.push(args[k].kind);
      if (args[k].kind == GRAFT_ARG_VALUE) {
        graft_value *copy = nullptr;
        detail::check(graft_value_copy(&copy, args[k].value));
        a.value_ = Value(copy, ctx);
      }
      a.i = args[k].i;
      a.f = args[k].f;
      a.s = args[k].s ? args[k].s : "";
      a.b = args[k].b != 0;
    }
    return list;
  }
#endif

 private:
  Arg &push(int kind) {
    args_.emplace_back();
    args_.back().kind = kind;
    return args_.back();
  }
  std::vector<Arg> args_;
};

/* Where a traced callback puts its outputs. */
class ValueList {
 public:
  void append(const Value &v) {
    if (c_) detail::check(graft_value_list_append(c_, v.get()));
    values_.push_back(v);
  }
  int size() const { return static_cast<int>(values_.size()); }
#ifndef SWIG
  explicit ValueList(graft_value_list *c) : c_(c) {}
#endif
  ValueList() = default;

 private:
  graft_value_list *c_ = nullptr;
  std::vector<Value> values_;
};

/*
 * A callback traced into a function, or a branch/condition/body of cond and while_loop
 * (director): builds ops on ctx from args and appends its outputs. Returns "" on success,
 * else the message the call fails with.
 */
class TraceBody {
 public:
  virtual ~TraceBody() = default;
  virtual std::string trace(Context &ctx, const ArgList &args, ValueList &outputs) = 0;
};

/* A tensor's dtype and partial shape (an input signature entry). */
class TensorSpec {
 public:
  TensorSpec() = default;
  TensorSpec(int dtype_, const Shape &shape_, const std::string &name_) : dtype(dtype_), shape_(shape_), name(name_) {}
  int dtype = GRAFT_FLOAT32;
  Shape shape() const { return shape_; }
#ifndef SWIG
  Shape shape_;
#endif
  std::string name;
#ifndef SWIG
  graft_tensor_spec to_c() const {
    graft_tensor_spec c;
    c.dtype = dtype;
    c.dims = shape_.data();
    c.ndims = shape_.rank();
    c.name = name.empty() ? nullptr : name.c_str();
    return c;
  }
#endif
};

/* Runs ops eagerly, or records them while one of its functions is traced on this thread. */
class Context {
 public:
  Context() {
    graft_context *c = nullptr;
    detail::check(graft_context_new(&c));
    c_.reset(c, graft_context_free);
  }
  bool is_tracing() const { return graft_context_is_tracing(c()) != 0; }
  /* Forgets cached eager kernels (random ops start afresh after a new seed). */
  void clear_caches() { graft_context_clear_caches(c()); }
  /* The graph of the function being traced on this thread (a reference: it outlives the trace). */
  Graph trace_graph() {
    graft_graph *g = nullptr;
    detail::check(graft_context_trace_graph(&g, c()));
    return Graph(GraphRef::adopt(g));
  }

  /* While tracing: the symbolic value of a tensor of the trace graph (graft_value_from_output). */
  Value value_from_output(const Output &output) {
    graft_value *v = nullptr;
    detail::check(graft_value_from_output(&v, c(), output.c()));
    return Value(v, c_);
  }
  Value from_tensor(const Tensor &t) {
    graft_value *v = nullptr;
    detail::check(graft_value_from_tensor(&v, t.get()));
    return Value(v, c_);
  }
  /* convert_to_tensor of host numbers (dtype GRAFT_DTYPE_INVALID infers it). */
  Value from_ints(const std::vector<int64_t> &v, const std::vector<int64_t> &dims, int dtype) {
    return from_host(GRAFT_HOST_INT64, v.data(), dims, dtype);
  }
  Value from_doubles(const std::vector<double> &v, const std::vector<int64_t> &dims, int dtype) {
    return from_host(GRAFT_HOST_DOUBLE, v.data(), dims, dtype);
  }
  Value from_bools(const std::vector<bool> &v, const std::vector<int64_t> &dims, int dtype) {
    std::vector<graft_bool> b(v.begin(), v.end());
    return from_host(GRAFT_HOST_BOOL, b.data(), dims, dtype);
  }
  Value from_strings(const std::vector<std::string> &v, const std::vector<int64_t> &dims) {
    std::vector<const char *> p;
    for (const auto &s : v) p.push_back(s.c_str());
    return from_host(GRAFT_HOST_STRING, p.data(), dims, GRAFT_STRING);
  }

  Value variable_new(const Value &initial, const std::string &name) {
    graft_value *v = nullptr;
    detail::check(graft_variable_new(&v, c(), initial.get(), name.empty() ? nullptr : name.c_str()));
    return Value(v, c_);
  }
  void variable_set_trainable(const Value &handle, bool trainable) {
    detail::check(graft_variable_set_trainable(handle.get(), trainable ? 1 : 0));
  }
  Value variable_read(const Value &handle) {
    graft_value *v = nullptr;
    detail::check(graft_variable_read(&v, c(), handle.get()));
    return Value(v, c_);
  }
  void variable_assign(const Value &handle, const Value &value) {
    detail::check(graft_variable_assign(c(), handle.get(), value.get()));
  }
  void variable_assign_add(const Value &handle, const Value &value) {
    detail::check(graft_variable_assign_add(c(), handle.get(), value.get()));
  }
  void variable_assign_sub(const Value &handle, const Value &value) {
    detail::check(graft_variable_assign_sub(c(), handle.get(), value.get()));
  }

  /* The host-function op calling the callback registered under token. */
  std::vector<Value> host_function_call(const std::string &token, const std::vector<Value> &inputs,
                                        const std::vector<int> &tout) {
    std::vector<const graft_value *> in = detail::raw_values(inputs);
    std::vector<graft_dtype> t(tout.begin(), tout.end());
    std::vector<graft_value *> out(t.size(), nullptr);
    int n = 0;
    detail::check(graft_host_function_call(out.data(), static_cast<int>(out.size()), &n, c(), token.c_str(),
                                           in.data(), static_cast<int>(in.size()), t.data(),
                                           static_cast<int>(t.size())));
    return detail::take_values(out, n, c_);
  }

  /* cond / while_loop with director callbacks (each must live through the call). */
  std::vector<Value> cond(const Value &pred, const std::vector<Value> &inputs, TraceBody *then_fn,
                          TraceBody *else_fn) {
    detail::ActiveContext active(c_);
    std::vector<const graft_value *> in = detail::raw_values(inputs);
    int n = 0;
    detail::check(graft_cond(detail::output_slots(), detail::kMaxOutputs, &n, c(), pred.get(), in.data(),
                             static_cast<int>(in.size()), &trampoline, then_fn, &trampoline, else_fn));
    return detail::take_slots(n, c_);
  }
  /* shape_invariants: empty, or one per loop variable (graft_while_loop_with_shapes; a
   * variable's own entry shape where the caller has no invariant for it). */
  std::vector<Value> while_loop(TraceBody *cond_fn, TraceBody *body_fn, const std::vector<Value> &loop_vars,
                                const std::vector<Shape> &shape_invariants = {}) {
    detail::ActiveContext active(c_);
    std::vector<const graft_value *> in = detail::raw_values(loop_vars);
    std::vector<graft_value *> out(in.size(), nullptr);
    std::vector<std::unique_ptr<graft_shape, void (*)(graft_shape *)>> owned;
    std::vector<const graft_shape *> shapes;
    for (const Shape &s : shape_invariants) {
      owned.emplace_back(s.to_c(), graft_shape_free);
      shapes.push_back(owned.back().get());
    }
    if (!shapes.empty() && shapes.size() != in.size()) {
      throw Error(GRAFT_EINVAL, "while_loop: " + std::to_string(shapes.size()) + " shape invariants for " +
                                    std::to_string(in.size()) + " loop variables");
    }
    int n = 0;
    detail::check(graft_while_loop_with_shapes(out.data(), static_cast<int>(out.size()), &n, c(), &trampoline, cond_fn,
                                               &trampoline, body_fn, in.data(), static_cast<int>(in.size()),
                                               shapes.empty() ? nullptr : shapes.data()));
    return detail::take_values(out, n, c_);
  }

#ifndef SWIG
  explicit Context(std::shared_ptr<graft_context> c) : c_(std::move(c)) {}
  graft_context *c() const { return c_.get(); }
  const std::shared_ptr<graft_context> &ref() const { return c_; }

  /* The one C trampoline of every TraceBody. */
  static int trampoline(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs,
                        void *user_data) {
    auto *body = static_cast<TraceBody *>(user_data);
    try {
      std::shared_ptr<graft_context> owner = detail::owner_of(ctx);
      Context context(owner);
      ArgList list = ArgList::from_c(args, nargs, owner);
      ValueList out(outputs);
      std::string error = body->trace(context, list, out);
      if (!error.empty()) return graft_error_set(GRAFT_EINVAL, error.c_str());
      return GRAFT_OK;
    } catch (const Error &e) {
      return graft_error_set(e.code(), e.what());
    } catch (const std::exception &e) {
      return graft_error_set(GRAFT_EUNKNOWN, e.what());
    } catch (...) {
      return graft_error_set(GRAFT_EUNKNOWN, "graft: a traced callback failed");
    }
  }
#endif

 private:
  Value from_host(int kind, const void *elements, const std::vector<int64_t> &dims, int dtype) {
    graft_value *v = nullptr;
    detail::check(
        graft_value_from_host(&v, c(), kind, elements, dims.data(), static_cast<int>(dims.size()), dtype));
    return Value(v, c_);
  }
  std::shared_ptr<graft_context> c_;
};

/* One op run eagerly (or recorded while tracing) on a context. */
class OpCall
#ifndef SWIG
    : public AttrSetter
#endif
{
 public:
#ifdef SWIG
  GRAFT_ATTR_SETTERS
  OpCall(Context &ctx, const std::string &op_type);
#else
  OpCall(Context &ctx, const std::string &op_type) : AttrSetter(op_type), ctx_(ctx.ref()) {
    graft_op_call *call = nullptr;
    detail::check(graft_op_call_new(&call, ctx.c(), op_type.c_str()));
    call_.reset(call, graft_op_call_free);
  }
#endif
  void add_input(const Value &v) {
    detail::check(graft_op_call_add_input(c(), v.get()));
    keep_.push_back(v);
  }
  void add_input_list(const std::vector<Value> &values) {
    std::vector<const graft_value *> raw = detail::raw_values(values);
    detail::check(graft_op_call_add_input_list(c(), raw.data(), static_cast<int>(raw.size())));
    keep_.insert(keep_.end(), values.begin(), values.end());
  }
  void set_name(const std::string &name) { detail::check(graft_op_call_set_name(c(), name.c_str())); }
  void set_device(const std::string &device) { detail::check(graft_op_call_set_device(c(), device.c_str())); }
  std::vector<Value> execute() {
    int n = 0;
    detail::check(graft_op_call_execute(detail::output_slots(), detail::kMaxOutputs, &n, c()));
    return detail::take_slots(n, ctx_);
  }

 protected:
#ifndef SWIG
  graft_attrs *attrs() const override { return graft_op_call_attrs(c()); }
#endif

 private:
  graft_op_call *c() const { return call_.get(); }
  std::shared_ptr<graft_context> ctx_;  // first: the call goes before its context
  std::shared_ptr<graft_op_call> call_;
  std::vector<Value> keep_;
};

class Function;

/* One traced graph of a function (borrowed from it; keeps it alive). */
class ConcreteFunction {
 public:
  ConcreteFunction() = default;
  std::string name() const { return graft_concrete_function_name(f_); }
  /* Its graph (a reference of its own: the graph outlives the function if kept). */
  Graph graph() const { return Graph(GraphRef::share(graft_concrete_function_graph(f_))); }
  std::vector<Output> inputs() const {
    std::vector<Output> out;
    Graph g = graph();
    for (int i = 0; i < graft_concrete_function_num_inputs(f_); ++i)
      out.emplace_back(g.ref(), graft_concrete_function_input(f_, i));
    return out;
  }
  std::vector<Output> captured_placeholders() const {
    std::vector<Output> out;
    Graph g = graph();
    for (int i = 0; i < graft_concrete_function_num_captured(f_); ++i)
      out.emplace_back(g.ref(), graft_concrete_function_captured_placeholder(f_, i));
    return out;
  }
  std::vector<Value> captured_values(Context &ctx) const {
    std::vector<Value> out;
    for (int i = 0; i < graft_concrete_function_num_captured(f_); ++i) {
      graft_value *v = nullptr;
      detail::check(graft_concrete_function_captured_value(&v, f_, i));
      out.emplace_back(v, ctx.ref());
    }
    return out;
  }
  std::vector<Output> outputs() const {
    std::vector<Output> out;
    Graph g = graph();
    for (int i = 0; i < graft_concrete_function_num_outputs(f_); ++i)
      out.emplace_back(g.ref(), graft_concrete_function_output(f_, i));
    return out;
  }
  int num_outputs() const { return graft_concrete_function_num_outputs(f_); }
  /* timeout_ms and cancellation as Session::run's. */
  std::vector<Value> call(Context &ctx, const std::vector<Value> &inputs, int64_t timeout_ms = 0,
                          const Cancellation *cancellation = nullptr) const {
    detail::ActiveContext active(ctx.ref());
    std::vector<const graft_value *> in = detail::raw_values(inputs);
    std::vector<graft_value *> out(num_outputs(), nullptr);
    int n = 0;
    detail::RunOptionsArg opts(timeout_ms, cancellation);
    detail::check(graft_concrete_function_call_with_options(out.data(), static_cast<int>(out.size()), &n, f_, ctx.c(),
                                                            in.data(), static_cast<int>(in.size()), opts.get()));
    return detail::take_values(out, n, ctx.ref());
  }
  /* The serialized FunctionDef. */
  Bytes function_def() const {
    void *data = nullptr;
    size_t len = 0;
    detail::check(graft_concrete_function_to_function_def(&data, &len, f_));
    std::string out(static_cast<const char *>(data), len);
    graft_buffer_free(data);
    return out;
  }
  void add_to_graph(Graph &graph) const { detail::check(graft_concrete_function_add_to_graph(f_, graph.c())); }
  bool same_as(const ConcreteFunction &other) const { return f_ == other.f_; }
  int64_t id() const { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(f_)); }

#ifndef SWIG
  ConcreteFunction(graft_concrete_function *f, std::shared_ptr<void> owner) : owner_(std::move(owner)), f_(f) {}
#endif

 private:
  std::shared_ptr<void> owner_;
  graft_concrete_function *f_ = nullptr;
};

/* What Function::call_values returns: the concrete function that ran, and its outputs. */
class FunctionCall {
 public:
  ConcreteFunction concrete() const { return concrete_; }
  std::vector<Value> outputs() const { return outputs_; }
#ifndef SWIG
  ConcreteFunction concrete_;
  std::vector<Value> outputs_;
#endif
};

/* A traced function (tf.function) over a TraceBody, which must outlive it. */
class Function {
 public:
  Function(const std::string &name, TraceBody *body, const std::vector<TensorSpec> &input_signature,
           bool has_input_signature, bool reduce_retracing) {
    std::vector<graft_tensor_spec> specs;
    for (const TensorSpec &s : input_signature) specs.push_back(s.to_c());
    graft_function_options opts = GRAFT_FUNCTION_OPTIONS_INIT;
    if (has_input_signature) {
      opts.input_signature = specs.data();
      opts.ninput_signature = static_cast<int>(specs.size());
    }
    opts.reduce_retracing = reduce_retracing;
    graft_function *f = nullptr;
    detail::check(graft_function_new(&f, name.c_str(), &Context::trampoline, body, &opts));
    f_.reset(f, graft_function_free);
  }
  /* timeout_ms and cancellation as Session::run's. */
  std::vector<Value> call(Context &ctx, const ArgList &args, int64_t timeout_ms = 0,
                          const Cancellation *cancellation = nullptr) {
    detail::ActiveContext active(ctx.ref());
    std::vector<graft_arg> a = args.to_c();
    int n = 0;
    detail::RunOptionsArg opts(timeout_ms, cancellation);
    detail::check(graft_function_call_with_options(detail::output_slots(), detail::kMaxOutputs, &n, f_.get(), ctx.c(),
                                                   a.data(), static_cast<int>(a.size()), opts.get()));
    return detail::take_slots(n, ctx.ref());
  }
  /* A call with tensor arguments only, in one step: the concrete function for them (traced if
   * needed), called; returns both (a binding maps the concrete function to its output structure). */
  FunctionCall call_values(Context &ctx, const std::vector<Value> &args, const Cancellation *cancellation = nullptr) {
    detail::ActiveContext active(ctx.ref());
    std::vector<graft_arg> a(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      a[i] = graft_arg{};
      a[i].kind = GRAFT_ARG_VALUE;
      a[i].value = args[i].get();
    }
    graft_concrete_function *cf = nullptr;
    detail::check(graft_function_get_concrete(&cf, f_.get(), ctx.c(), a.data(), static_cast<int>(a.size())));
    FunctionCall result;
    result.concrete_ = ConcreteFunction(cf, f_);
    std::vector<const graft_value *> in = detail::raw_values(args);
    int n = 0;
    detail::RunOptionsArg opts(0, cancellation);
    detail::check(graft_concrete_function_call_with_options(detail::output_slots(), detail::kMaxOutputs, &n, cf,
                                                            ctx.c(), in.data(), static_cast<int>(in.size()),
                                                            opts.get()));
    result.outputs_ = detail::take_slots(n, ctx.ref());
    return result;
  }
  ConcreteFunction get_concrete(Context &ctx, const ArgList &args) {
    detail::ActiveContext active(ctx.ref());
    std::vector<graft_arg> a = args.to_c();
    graft_concrete_function *cf = nullptr;
    detail::check(graft_function_get_concrete(&cf, f_.get(), ctx.c(), a.data(), static_cast<int>(a.size())));
    return ConcreteFunction(cf, f_);
  }
  ConcreteFunction get_concrete_for_specs(Context &ctx, const std::vector<TensorSpec> &specs) {
    detail::ActiveContext active(ctx.ref());
    std::vector<graft_tensor_spec> c;
    for (const TensorSpec &s : specs) c.push_back(s.to_c());
    graft_concrete_function *cf = nullptr;
    detail::check(
        graft_function_get_concrete_for_specs(&cf, f_.get(), ctx.c(), c.data(), static_cast<int>(c.size())));
    return ConcreteFunction(cf, f_);
  }
  int64_t tracing_count() const { return graft_function_tracing_count(f_.get()); }
#ifndef SWIG
  graft_function *c() const { return f_.get(); }
#endif

 private:
  std::shared_ptr<graft_function> f_;
};

/* Tensors handed to and returned by a host function. */
class TensorList {
 public:
  int size() const { return static_cast<int>(tensors_.size()); }
  Tensor get(int i) const {
    if (i < 0 || i >= size()) throw Error(GRAFT_ERANGE, "graft: tensor index out of range");
    return tensors_[i];
  }
  void append(const Tensor &t) { tensors_.push_back(t); }
  void clear() { tensors_.clear(); }

 private:
  std::vector<Tensor> tensors_;
};

/*
 * A host function (director), run by the host-function op: reads inputs, appends its outputs,
 * returns "" on success or the message the run fails with. It may run on any thread.
 */
class HostFunction {
 public:
  virtual ~HostFunction() = default;
  virtual std::string call(const TensorList &inputs, TensorList &outputs) = 0;

  /* Registers fn under token (process-wide); fn must live until unregister. */
  static void register_function(const std::string &token, HostFunction *fn) {
    detail::check(graft_host_function_register(token.c_str(), &HostFunction::trampoline, fn, nullptr));
  }
  static void unregister_function(const std::string &token) {
    detail::check(graft_host_function_unregister(token.c_str()));
  }

#ifndef SWIG
  static int trampoline(graft_tensor **outputs, int capacity, int *noutputs, graft_tensor *const *inputs,
                        int ninputs, void *user_data) {
    auto *fn = static_cast<HostFunction *>(user_data);
    try {
      TensorList in, out;
      for (int i = 0; i < ninputs; ++i) {
        graft_tensor *t = nullptr;
        detail::check(graft_tensor_share(&t, inputs[i]));
        in.append(Tensor(t));
      }
      std::string error = fn->call(in, out);
      if (!error.empty()) return graft_error_set(GRAFT_EINVAL, error.c_str());
      if (out.size() > capacity)
        return graft_error_set(GRAFT_EINVAL, ("host function returned " + std::to_string(out.size()) +
                                              " values, expected " + std::to_string(capacity))
                                                 .c_str());
      for (int i = 0; i < out.size(); ++i) outputs[i] = out.get(i).share();
      *noutputs = out.size();
      return GRAFT_OK;
    } catch (const Error &e) {
      return graft_error_set(e.code(), e.what());
    } catch (const std::exception &e) {
      return graft_error_set(GRAFT_EUNKNOWN, e.what());
    } catch (...) {
      return graft_error_set(GRAFT_EUNKNOWN, "graft: a host function failed");
    }
  }
#endif
};

/*
 * A gradient tape (graft/tape.h): records the eager ops of the thread that made it from
 * construction until stop(). gradient() returns one Value per source, an empty one (valid()
 * false) where no gradient flows and unconnected_zero is false.
 */
class GradientTape {
 public:
#ifdef SWIG
  GradientTape(Context &ctx, bool persistent, bool watch_accessed_variables);
#else
  GradientTape(Context &ctx, bool persistent, bool watch_accessed_variables) : ctx_(ctx.ref()) {
    graft_tape *t = nullptr;
    detail::check(graft_tape_new(&t, ctx.c(), persistent ? 1 : 0, watch_accessed_variables ? 1 : 0));
    tape_.reset(t, graft_tape_free);
  }
#endif
  void watch(const Value &v) {
    detail::check(graft_tape_watch(c(), v.get()));
    keep_.push_back(v);
  }
  void stop() { detail::check(graft_tape_stop(c())); }
  void start() { detail::check(graft_tape_start(c())); }
  bool is_recording() const { return graft_tape_is_recording(c()) != 0; }
  std::vector<Value> watched_variables() const {
    std::vector<Value> out;
    const int n = graft_tape_num_watched_variables(c());
    for (int i = 0; i < n; ++i) {
      graft_value *v = nullptr;
      detail::check(graft_tape_watched_variable(&v, c(), i));
      out.emplace_back(v, ctx_);
    }
    return out;
  }
  std::vector<Value> gradient(const std::vector<Value> &targets, const std::vector<Value> &sources,
                              const std::vector<Value> &output_gradients, bool unconnected_zero) {
    std::vector<const graft_value *> t = detail::raw_values(targets), s = detail::raw_values(sources),
                                     d = detail::raw_values(output_gradients);
    std::vector<graft_value *> raw(sources.size(), nullptr);
    detail::check(graft_tape_gradient(raw.data(), c(), t.data(), static_cast<int>(t.size()), s.data(),
                                      static_cast<int>(s.size()), d.empty() ? nullptr : d.data(),
                                      unconnected_zero ? GRAFT_UNCONNECTED_ZERO : GRAFT_UNCONNECTED_NONE));
    std::vector<Value> out;
    out.reserve(raw.size());
    for (graft_value *v : raw) out.push_back(v ? Value(v, ctx_) : Value());
    return out;
  }
  /* gradient keeping rows as rows (graft_tape_gradient_sparse): {values, indices, dense_shapes},
   * one per source each; indices and dense_shapes are invalid where the gradient is dense. */
  std::vector<std::vector<Value>> gradient_sparse(const std::vector<Value> &targets, const std::vector<Value> &sources,
                                                  const std::vector<Value> &output_gradients, bool unconnected_zero) {
    std::vector<const graft_value *> t = detail::raw_values(targets), s = detail::raw_values(sources),
                                     d = detail::raw_values(output_gradients);
    std::vector<graft_value *> values(sources.size(), nullptr), indices(sources.size(), nullptr),
        shapes(sources.size(), nullptr);
    detail::check(graft_tape_gradient_sparse(values.data(), indices.data(), shapes.data(), c(), t.data(),
                                             static_cast<int>(t.size()), s.data(), static_cast<int>(s.size()),
                                             d.empty() ? nullptr : d.data(),
                                             unconnected_zero ? GRAFT_UNCONNECTED_ZERO : GRAFT_UNCONNECTED_NONE));
    std::vector<std::vector<Value>> out(3);
    for (size_t i = 0; i < sources.size(); ++i) {
      out[0].push_back(values[i] ? Value(values[i], ctx_) : Value());
      out[1].push_back(indices[i] ? Value(indices[i], ctx_) : Value());
      out[2].push_back(shapes[i] ? Value(shapes[i], ctx_) : Value());
    }
    return out;
  }

 private:
  graft_tape *c() const { return tape_.get(); }
  std::shared_ptr<graft_context> ctx_;  // first: the tape goes before its context
  std::shared_ptr<graft_tape> tape_;
  std::vector<Value> keep_;  // watched values stay alive as long as the tape
};

}  // namespace graft

#endif /* GRAFT_BINDINGS_GRAFT_EAGER_HPP */
