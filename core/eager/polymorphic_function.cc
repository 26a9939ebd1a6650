#include "core/eager/polymorphic_function.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>

#include "core/eager/host_convert.h"
#include "core/thread_owned.h"

namespace graft::eager {
namespace {

// Concrete functions are named uniquely in the process: a caller's library may hold several.
std::atomic<int64_t> next_function_id{0};


template <typename T>
Status FillScalar(double v, bool integral, Tensor* t, DType dtype) {
  if constexpr (std::is_integral_v<T>) {
    if (!integral && v != std::floor(v)) return errors::InvalidArgument("the value ", v, " is not an integer");
    if (!DoubleFitsInteger<T>(v)) {
      return errors::InvalidArgument("the value ", v, " does not fit ", DTypeName(dtype));
    }
  }
  GRAFT_RETURN_IF_ERROR(Tensor::Allocate(dtype, {}, t));
  *t->data<T>() = static_cast<T>(v);
  return Status::Ok();
}

// A host number, bool or string as a scalar tensor of dtype (convert_to_tensor's rules: an
// integer fits an integer or float dtype, a float only a float dtype).
Status HostScalar(const Arg& a, DType dtype, Tensor* out) {
  if (a.kind == Arg::Kind::kString) {
    if (dtype != DType::kString) return errors::DTypeError("a string cannot be a ", DTypeName(dtype), " tensor");
    return Tensor::FromStrings({}, {a.s}, out);
  }
  if (a.kind == Arg::Kind::kBool) {
    if (dtype != DType::kBool) return errors::DTypeError("a bool cannot be a ", DTypeName(dtype), " tensor");
    GRAFT_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, {}, out));
    *out->data<bool>() = a.b;
    return Status::Ok();
  }
  bool integral = a.kind == Arg::Kind::kInt;
  double v = integral ? static_cast<double>(a.i) : a.f;
  switch (dtype) {
    case DType::kFloat32: return FillScalar<float>(v, integral, out, dtype);
    case DType::kFloat64: return FillScalar<double>(v, integral, out, dtype);
    case DType::kInt8: return FillScalar<int8_t>(v, integral, out, dtype);
    case DType::kInt16: return FillScalar<int16_t>(v, integral, out, dtype);
    case DType::kInt32: return FillScalar<int32_t>(v, integral, out, dtype);
    case DType::kInt64:
      if (integral) {
        GRAFT_RETURN_IF_ERROR(Tensor::Allocate(dtype, {}, out));
        *out->data<int64_t>() = a.i;
        return Status::Ok();
      }
      return FillScalar<int64_t>(v, integral, out, dtype);
    case DType::kUInt8: return FillScalar<uint8_t>(v, integral, out, dtype);
    case DType::kUInt16: return FillScalar<uint16_t>(v, integral, out, dtype);
    default: return errors::DTypeError("a host number cannot be a ", DTypeName(dtype), " tensor");
  }
}

// The most specific specs compatible with both a and b (differing dims unknown; differing
// ranks: unknown rank).
std::vector<TensorSpec> Relax(const std::vector<TensorSpec>& a, const std::vector<TensorSpec>& b) {
  std::vector<TensorSpec> out = a;
  for (size_t i = 0; i < a.size(); ++i) {
    const PartialShape &x = a[i].shape, &y = b[i].shape;
    if (!x.known_rank() || !y.known_rank() || x.rank() != y.rank()) {
      out[i].shape = PartialShape::Unknown();
      continue;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < x.rank(); ++d) dims.push_back(x.dim(d) == y.dim(d) ? x.dim(d) : kUnknownDim);
    out[i].shape = PartialShape(dims);
  }
  return out;
}

}  // namespace

PolymorphicFunction::PolymorphicFunction(std::string name, TraceFn fn, FunctionOptions options)
    : name_(std::move(name)), fn_(std::move(fn)), options_(std::move(options)) {}

int64_t PolymorphicFunction::tracing_count() const {
  std::lock_guard lock(mu_);
  return tracing_count_;
}

Status PolymorphicFunction::Signature(const std::vector<Arg>& args, std::vector<TensorSpec>* specs,
                                      std::string* key) const {
  // The key is built for every call, so it is plain: numbers written with to_chars.
  key->clear();
  char buf[32];
  auto number = [&](auto v) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    key->append(buf, ec == std::errc() ? end : buf);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    switch (a.kind) {
      case Arg::Kind::kValue: {
        if (!a.value.is_symbolic() && !a.value.tensor.valid()) return errors::InvalidArgument("argument ", i, " is empty");
        key->push_back('T');
        number(static_cast<int>(a.value.dtype()));
        key->push_back(':');
        if (a.value.is_symbolic()) {
          const PartialShape& shape = a.value.symbolic.node->output_shape(a.value.symbolic.index);
          if (!shape.known_rank()) key->push_back('?');
          for (int d = 0; shape.known_rank() && d < shape.rank(); ++d) {
            number(shape.dim(d));
            key->push_back(',');
          }
        } else {
          for (int64_t d : a.value.tensor.dims()) {
            number(d);
            key->push_back(',');
          }
        }
        if (specs != nullptr) specs->push_back(TensorSpec{a.value.dtype(), a.value.shape(), ""});
        break;
      }
      case Arg::Kind::kInt: key->push_back('i'); number(a.i); break;
      case Arg::Kind::kFloat: key->append(StrCat("f", a.f)); break;
      case Arg::Kind::kBool: key->append(a.b ? "b1" : "b0"); break;
      case Arg::Kind::kString: key->append(StrCat("s", a.s.size(), ":", a.s)); break;
    }
    key->push_back(';');
  }
  return Status::Ok();
}

// args as the trace sees them: each tensor argument an argument Placeholder of the trace
// (named after its spec, or args_<i>), the host arguments as they are.
static Status TraceArgs(eager::Trace& trace, const std::vector<Arg>& args, const std::vector<TensorSpec>& specs,
                        std::vector<Arg>* traced, std::vector<Output>* inputs) {
  *traced = args;
  size_t k = 0;
  for (Arg& a : *traced) {
    if (a.kind != Arg::Kind::kValue) continue;
    const TensorSpec& s = specs[k++];
    Output o;
    GRAFT_RETURN_IF_ERROR(trace.AddArg(s.dtype, s.shape, s.name.empty() ? StrCat("args_", k - 1) : s.name, &o));
    inputs->push_back(o);
    a.value = Value::Symbolic(o, trace.shared_graph());
  }
  return Status::Ok();
}

Status PolymorphicFunction::Trace(Context& ctx, const std::vector<Arg>& args, const std::vector<TensorSpec>& specs,
                                  const std::string& key, std::shared_ptr<ConcreteFunction>* out) {
  // A callback that calls its own function with the same signature would trace forever (and
  // overflow the stack); one that recurses with changing host arguments ends, or hits the
  // nesting limit. mu_ is held, so tracing_ is this thread's.
  if (std::find(tracing_.begin(), tracing_.end(), key) != tracing_.end()) {
    return errors::InvalidArgument("function '", name_, "' calls itself with the same arguments while it is being "
                                   "traced: recursion is not supported");
  }
  int depth = 0;
  for (eager::Trace* t = ctx.current_trace(); t != nullptr; t = t->parent()) ++depth;
  if (depth >= kMaxTraceDepth) {
    return errors::ResourceExhausted("tracing function '", name_, "': traced functions nested too deeply (limit ",
                                     kMaxTraceDepth, ")");
  }
  tracing_.push_back(key);
  struct Pop {
    std::vector<std::string>& v;
    ~Pop() { v.pop_back(); }
  } pop{tracing_};
  eager::Trace trace(&ctx, ctx.current_trace(), tracing_count_ == 0);
  std::vector<Arg> traced;
  std::vector<Output> inputs;
  GRAFT_RETURN_IF_ERROR(TraceArgs(trace, args, specs, &traced, &inputs));
  const bool first = tracing_count_ == 0;
  ++tracing_count_;
  std::vector<Value> outputs;
  Status s;
  {
    Context::TraceScope scope(&trace);
    s = fn_(ctx, traced, &outputs);
  }
  if (s.ok()) {
    s = ConcreteFunction::Create(StrCat("__inference_", name_, "_", next_function_id++), trace, inputs, specs,
                                 outputs, out);
  }
  if (s.ok() && first && trace.variables_created() > 0) s = CheckVariablesCreatedOnce(ctx, args, specs);
  return s.WithContext(StrCat("tracing function '", name_, "'"));
}

// A first trace that created variables is traced once more, as TensorFlow does, and thrown away:
// if that trace creates variables too, the function makes new ones on every call, which a traced
// function cannot do (its first trace's variables would silently stand for all of them).
Status PolymorphicFunction::CheckVariablesCreatedOnce(Context& ctx, const std::vector<Arg>& args,
                                                      const std::vector<TensorSpec>& specs) {
  eager::Trace again(&ctx, ctx.current_trace(), false);
  std::vector<Arg> traced;
  std::vector<Output> inputs;
  GRAFT_RETURN_IF_ERROR(TraceArgs(again, args, specs, &traced, &inputs));
  std::vector<Value> outputs;
  Status s;
  {
    Context::TraceScope scope(&again);
    s = fn_(ctx, traced, &outputs);
  }
  if (s.ok()) return Status::Ok();
  if (again.variables_created() == 0) return s;  // it failed otherwise: as TensorFlow's second trace would
  return errors::InvalidArgument(
      "it creates variables on every call; a traced function supports only variables created on its first call "
      "(as tf.function: singleton variables): create them once, for example only while they do not exist yet, "
      "or outside the function");
}

Status PolymorphicFunction::Lookup(Context& ctx, std::vector<Arg>& args, std::shared_ptr<ConcreteFunction>* out) {
  std::lock_guard lock(mu_);
  if (options_.input_signature) {
    const std::vector<TensorSpec>& sig = *options_.input_signature;
    if (args.size() != sig.size()) {
      return errors::InvalidArgument("function '", name_, "' has an input signature of ", sig.size(),
                                     " tensors, but was called with ", args.size(), " arguments");
    }
    for (size_t i = 0; i < args.size(); ++i) {
      std::string what = sig[i].name.empty() ? StrCat("argument ", i) : StrCat("argument '", sig[i].name, "'");
      Arg& a = args[i];
      if (a.kind != Arg::Kind::kValue) {
        Tensor t;
        GRAFT_RETURN_IF_ERROR(HostScalar(a, sig[i].dtype, &t).WithContext(StrCat("function '", name_, "' ", what)));
        a.kind = Arg::Kind::kValue;
        a.value = Value::Concrete(std::move(t));
      }
      if (a.value.dtype() != sig[i].dtype) {
        return errors::DTypeError("function '", name_, "' ", what, " must be ", DTypeName(sig[i].dtype),
                                  " (its input signature), but is ", DTypeName(a.value.dtype()));
      }
      if (!sig[i].shape.IsCompatibleWith(a.value.shape())) {
        return errors::ShapeError("function '", name_, "' ", what, " must have a shape compatible with ",
                                  sig[i].shape.ToString(), " (its input signature), but has shape ",
                                  a.value.shape().ToString());
      }
    }
    auto it = cache_.find("");
    if (it != cache_.end()) {
      *out = it->second;
      return Status::Ok();
    }
    GRAFT_RETURN_IF_ERROR(Trace(ctx, args, sig, "", out));
    cache_[""] = *out;
    return Status::Ok();
  }
  // Reused: the common case (a hit) allocates nothing for it. ThreadOwned: see thread_owned.h.
  struct KeyTag;
  std::string& key = ThreadOwned<std::string, KeyTag>();
  if (Status st = Signature(args, nullptr, &key); !st.ok()) return st.WithContext(StrCat("function '", name_, "'"));
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  std::string miss_key = key;
  std::vector<TensorSpec> specs;
  GRAFT_RETURN_IF_ERROR(Signature(args, &specs, &key));
  key = miss_key;
  if (options_.reduce_retracing) {
    // The same call with shapes left out groups the traces that may serve each other.
    std::string group;
    for (const Arg& a : args) {
      switch (a.kind) {
        case Arg::Kind::kValue: group.append(DTypeName(a.value.dtype())); break;
        case Arg::Kind::kInt: group.append(StrCat("i", a.i)); break;
        case Arg::Kind::kFloat: group.append(StrCat("f", a.f)); break;
        case Arg::Kind::kBool: group.append(a.b ? "b1" : "b0"); break;
        case Arg::Kind::kString: group.append(StrCat("s", a.s.size(), ":", a.s)); break;
      }
      group.push_back(';');
    }
    auto& traced = relaxed_[group];
    for (const auto& [ts, fn] : traced) {
      bool fits = true;
      for (size_t i = 0; i < ts.size(); ++i) fits = fits && ts[i].shape.IsCompatibleWith(specs[i].shape);
      if (fits) {
        *out = fn;
        return Status::Ok();
      }
    }
    std::vector<TensorSpec> use = traced.empty() ? specs : Relax(traced.back().first, specs);
    GRAFT_RETURN_IF_ERROR(Trace(ctx, args, use, miss_key, out));
    traced.emplace_back(use, *out);
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(Trace(ctx, args, specs, miss_key, out));
  cache_[miss_key] = *out;
  return Status::Ok();
}

Status PolymorphicFunction::GetConcreteFunction(Context& ctx, const std::vector<Arg>& args,
                                                std::shared_ptr<ConcreteFunction>* out) {
  std::vector<Arg> a = args;
  return Lookup(ctx, a, out);
}

Status PolymorphicFunction::GetConcreteFunction(Context& ctx, const std::vector<TensorSpec>& specs,
                                                std::shared_ptr<ConcreteFunction>* out) {
  // A symbolic stand-in per spec: only its dtype and shape matter for the lookup.
  eager::Trace scratch(&ctx, nullptr, false);
  std::vector<Arg> args;
  for (const TensorSpec& s : specs) {
    Output o;
    GRAFT_RETURN_IF_ERROR(scratch.AddArg(s.dtype, s.shape, "spec", &o));
    Arg a;
    a.value = Value::Symbolic(o, scratch.shared_graph());
    args.push_back(std::move(a));
  }
  if (options_.input_signature) {
    std::lock_guard lock(mu_);
    const std::vector<TensorSpec>& sig = *options_.input_signature;
    bool same = sig.size() == specs.size();
    for (size_t i = 0; same && i < sig.size(); ++i) {
      same = sig[i].dtype == specs[i].dtype && sig[i].shape.IsCompatibleWith(specs[i].shape);
    }
    if (!same) return errors::InvalidArgument("function '", name_, "': the specs do not match its input signature");
  }
  return Lookup(ctx, args, out);
}

Status PolymorphicFunction::Call(Context& ctx, const std::vector<Arg>& args, std::vector<Value>* outputs,
                                 const RunControl* control) {
  std::vector<Arg> a = args;
  std::shared_ptr<ConcreteFunction> f;
  GRAFT_RETURN_IF_ERROR(Lookup(ctx, a, &f));
  std::vector<Value> values;
  for (const Arg& x : a) {
    if (x.kind == Arg::Kind::kValue) values.push_back(x.value);
  }
  return f->Call(ctx, values, outputs, control);
}

}  // namespace graft::eager
