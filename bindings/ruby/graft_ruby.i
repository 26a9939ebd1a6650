/*
 * bindings/ruby/graft_ruby.i: Ruby typemaps, exceptions and director guards for graft.i.
 *
 * Errors: a graft::Error becomes an instance of the Graft::Error subclass of its status code
 * (Graft::InvalidArgumentError for GRAFT_EINVAL, ...), defined here at load time so that the
 * extension raises them on its own; bindings/ruby/lib/graft/errors.rb adds their Ruby methods.
 * The exception is not raised inside the C++ catch block (a longjmp out of it would leak the
 * exception object and skip the wrapper's cleanup): %exception records it, the wrapper converts
 * its (empty) result and frees its argument temporaries as on success, and the "ret" typemaps
 * below raise it just before the wrapper returns.
 *
 * Directors: SWIG's Ruby directors call Ruby with rb_funcall, so a Ruby exception would unwind
 * through Graft's C++ frames; the Ruby overrides in lib/graft/callbacks.rb therefore never
 * raise (they return the error message, the directors' convention). Graft may run a host
 * function on one of its own threads, where Ruby cannot be entered: the guards below make such
 * a call fail with a message instead of crashing. The directors' Ruby objects are pinned (their
 * mark functions) so that GC.compact does not move them under the raw VALUE SWIG keeps.
 */

%{
/* The Graft::Error class of each status code. */
static const struct {
  int code;
  const char *name;
} graft_ruby_error_names[] = {
    {GRAFT_EUNKNOWN, "UnknownError"},
    {GRAFT_EINVAL, "InvalidArgumentError"},
    {GRAFT_ENOTFOUND, "NotFoundError"},
    {GRAFT_EEXISTS, "AlreadyExistsError"},
    {GRAFT_EDTYPE, "DTypeError"},
    {GRAFT_ESHAPE, "ShapeError"},
    {GRAFT_ERANGE, "OutOfRangeError"},
    {GRAFT_ENOMEM, "ResourceExhaustedError"},
    {GRAFT_EPRECONDITION, "FailedPreconditionError"},
    {GRAFT_EUNIMPLEMENTED, "UnimplementedError"},
    {GRAFT_EINTERNAL, "InternalError"},
    {GRAFT_EDATALOSS, "DataLossError"},
    {GRAFT_EDEVICE, "DeviceError"},
    {GRAFT_ECANCELLED, "CancelledError"},
    {GRAFT_EDEADLINE, "DeadlineExceededError"},
};
static VALUE graft_ruby_mGraft = Qnil;
static VALUE graft_ruby_eError = Qnil;
static VALUE graft_ruby_error_classes[sizeof(graft_ruby_error_names) / sizeof(graft_ruby_error_names[0])];
/* The exception a wrapper raises when it returns (set by %exception; the GVL guards it). */
static VALUE graft_ruby_pending = Qnil;

/* Defines the error classes; the statics are GC roots (marked, so never moved by GC.compact). */
static void graft_ruby_define_errors(void) {
  graft_ruby_mGraft = rb_define_module("Graft");
  graft_ruby_eError = rb_define_class_under(graft_ruby_mGraft, "Error", rb_eStandardError);
  rb_define_const(graft_ruby_eError, "CODE", INT2NUM(GRAFT_EUNKNOWN));
  rb_gc_register_address(&graft_ruby_mGraft);
  rb_gc_register_address(&graft_ruby_eError);
  for (size_t i = 0; i < sizeof(graft_ruby_error_names) / sizeof(graft_ruby_error_names[0]); ++i) {
    VALUE cls = rb_define_class_under(graft_ruby_mGraft, graft_ruby_error_names[i].name, graft_ruby_eError);
    rb_define_const(cls, "CODE", INT2NUM(graft_ruby_error_names[i].code));
    graft_ruby_error_classes[i] = cls;
    rb_gc_register_address(&graft_ruby_error_classes[i]);
  }
  rb_gc_register_address(&graft_ruby_pending);
}

static VALUE graft_ruby_error_class(int code) {
  for (size_t i = 0; i < sizeof(graft_ruby_error_names) / sizeof(graft_ruby_error_names[0]); ++i)
    if (graft_ruby_error_names[i].code == code) return graft_ruby_error_classes[i];
  return graft_ruby_eError;
}

struct graft_ruby_error_args {
  VALUE cls;
  const char *message;
  int code;
};

static VALUE graft_ruby_new_error(VALUE p) {
  const graft_ruby_error_args *a = reinterpret_cast<const graft_ruby_error_args *>(p);
  VALUE exc = rb_exc_new_cstr(a->cls, a->message);
  rb_ivar_set(exc, rb_intern("@code"), INT2NUM(a->code));
  return exc;
}

/* Records the exception of a failed call; it must not raise (we are in a C++ catch block). */
static void graft_ruby_set_pending(VALUE cls, int code, const char *message) {
  graft_ruby_error_args args = {cls, message, code};
  int state = 0;
  VALUE exc = rb_protect(graft_ruby_new_error, reinterpret_cast<VALUE>(&args), &state);
  if (state) {  // Error#initialize failed: raise what it raised
    exc = rb_errinfo();
    rb_set_errinfo(Qnil);
  }
  graft_ruby_pending = exc;
}

static int graft_ruby_pending_tag;

static void graft_ruby_raise_pending(void) {
  if (graft_ruby_pending_tag != 0) {  // an interrupt taken while waiting at the callback gate
    const int tag = graft_ruby_pending_tag;
    graft_ruby_pending_tag = 0;
    graft_ruby_pending = Qnil;
    rb_jump_tag(tag);
  }
  if (NIL_P(graft_ruby_pending)) return;
  VALUE exc = graft_ruby_pending;
  graft_ruby_pending = Qnil;
  rb_exc_raise(exc);
}

/* Whether this thread may call Ruby: Graft can run a host function on a thread of its own. */
static bool graft_ruby_can_call_ruby(void) { return ruby_native_thread_p() != 0; }

/*
 * The callback gate. The extension keeps the GVL through every native call, so a second Ruby
 * thread that entered Graft while the first is inside a callback (the GVL is free while Ruby
 * code runs) could block on a lock the first thread's call holds, and the first could never
 * get the GVL back to finish. A native call that may run callbacks therefore waits, without
 * the GVL, while a callback of another thread is running. The check is made in C, under the
 * GVL, right before the call, so no thread can start a callback in between; the calls of a
 * callback itself pass (this thread's own callbacks are the running ones). The directors count
 * the callbacks (GraftRubyCallbackScope, in the directorin typemaps). The count is per native
 * thread: fibers of one thread pass each other's gate (as they passed the Monitor before).
 */
#include <ruby/thread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace {
struct GraftRubyGate {
  std::atomic<int> running{0};  // callbacks running, on every thread
  std::mutex mu;
  std::condition_variable left;
};
GraftRubyGate &graft_ruby_gate_state() {
  static GraftRubyGate gate;
  return gate;
}
thread_local int graft_ruby_my_callbacks = 0;  // the running callbacks of this thread

struct GraftRubyGateWait {
  bool ran = false;
  bool interrupted = false;
};
void *graft_ruby_gate_wait(void *p) {  // without the GVL
  GraftRubyGateWait *w = static_cast<GraftRubyGateWait *>(p);
  w->ran = true;
  GraftRubyGate &g = graft_ruby_gate_state();
  std::unique_lock<std::mutex> lock(g.mu);
  g.left.wait_for(lock, std::chrono::milliseconds(100),
                  [&] { return w->interrupted || g.running.load() == graft_ruby_my_callbacks; });
  return nullptr;
}
void graft_ruby_gate_interrupt(void *p) {  // Thread#raise, #kill, a signal
  GraftRubyGate &g = graft_ruby_gate_state();
  std::lock_guard<std::mutex> lock(g.mu);
  static_cast<GraftRubyGateWait *>(p)->interrupted = true;
  g.left.notify_all();
}
}  // namespace

/* A director's call into Ruby (the directorin typemaps below): counted from before the Ruby
 * method is entered until after it returned, with no Ruby code outside the count. */
struct GraftRubyCallbackScope {
  GraftRubyCallbackScope() {
    ++graft_ruby_my_callbacks;
    graft_ruby_gate_state().running.fetch_add(1, std::memory_order_acq_rel);
  }
  ~GraftRubyCallbackScope() {
    GraftRubyGate &g = graft_ruby_gate_state();
    --graft_ruby_my_callbacks;
    {
      std::lock_guard<std::mutex> lock(g.mu);
      g.running.fetch_sub(1, std::memory_order_acq_rel);
    }
    g.left.notify_all();
  }
  GraftRubyCallbackScope(const GraftRubyCallbackScope &) = delete;
  GraftRubyCallbackScope &operator=(const GraftRubyCallbackScope &) = delete;
};

/* What interrupted a wait at the gate (Thread#raise, #kill, a signal's exception): the tag to
 * jump with once the wrapper has cleaned up (graft_ruby_raise_pending). The GVL guards it. */

static VALUE graft_ruby_check_ints(VALUE) {
  rb_thread_check_ints();
  return Qnil;
}

/* True when the call may go on; false when an interrupt is to be raised (pending). */
static bool graft_ruby_gate(void) {
  GraftRubyGate &g = graft_ruby_gate_state();
  while (g.running.load(std::memory_order_acquire) != graft_ruby_my_callbacks) {
    // The variant that leaves pending interrupts to us (the other one raises them right here,
    // past the wrapper's cleanup); it returns without waiting when any is pending already.
    GraftRubyGateWait w;
    rb_thread_call_without_gvl2(graft_ruby_gate_wait, &w, graft_ruby_gate_interrupt, &w);
    if (w.interrupted || !w.ran) {  // run what is pending: an exception is raised after cleanup
      int state = 0;
      rb_protect(graft_ruby_check_ints, Qnil, &state);
      if (state != 0) {
        graft_ruby_pending_tag = state;
        return false;
      }
    }
  }
  return true;
}

/*
 * Mark functions of the director classes: a director keeps its Ruby object as a raw VALUE,
 * which GC.compact would leave stale if the object moved; marking the object with rb_gc_mark
 * pins it. (Keeping it alive is the Ruby layer's job: a mark function only runs while the
 * object is reachable.)
 */
template <typename T>
static void graft_ruby_mark_director(void *ptr) {
  Swig::Director *director = dynamic_cast<Swig::Director *>(static_cast<T *>(ptr));
  if (director) rb_gc_mark(director->swig_get_self());
}
static void graft_ruby_mark_trace_body(void *ptr) { graft_ruby_mark_director<graft::TraceBody>(ptr); }
static void graft_ruby_mark_host_function(void *ptr) { graft_ruby_mark_director<graft::HostFunction>(ptr); }
static void graft_ruby_mark_device_function(void *ptr) { graft_ruby_mark_director<graft::DeviceFunction>(ptr); }
%}

%markfunc graft::TraceBody "graft_ruby_mark_trace_body";
%markfunc graft::HostFunction "graft_ruby_mark_host_function";
%markfunc graft::DeviceFunction "graft_ruby_mark_device_function";

%init %{
  graft_ruby_define_errors();
%}

/*
 * SWIG gives every object it makes an "@__swigtype__" instance variable, a new String of its
 * type's name that its conversions read back to check types. On a T_DATA object that is a
 * generic instance variable, which costs about 0.25 µs per object made and freed: as much as
 * a whole op call. Objects of proxy classes are made without it here; their class holds the
 * name, and an object converted without one gets its class's first, so SWIG's checks see what
 * they always saw. Opaque pointers and tracked classes keep SWIG's way.
 */
%header %{
static ID graft_ruby_swigtype_id(void) {
  static const ID id = rb_intern("@__swigtype__");
  return id;
}

/* The class of sk holds type's name (for graft_ruby_convert_ptr). */
static void graft_ruby_name_class(swig_class *sk, swig_type_info *type) {
  const ID id = graft_ruby_swigtype_id();
  if (NIL_P(rb_attr_get(sk->klass, id))) rb_ivar_set(sk->klass, id, rb_obj_freeze(rb_str_new_cstr(type->name)));
}

static VALUE graft_ruby_new_pointer_obj(void *ptr, swig_type_info *type, int flags) {
  swig_class *sk = type != nullptr ? static_cast<swig_class *>(type->clientdata) : nullptr;
  if (ptr == nullptr || sk == nullptr || sk->trackObjects) return SWIG_Ruby_NewPointerObj(ptr, type, flags);
  graft_ruby_name_class(sk, type);
  return Data_Wrap_Struct(sk->klass, VOIDFUNC(sk->mark), (flags & SWIG_POINTER_OWN) ? VOIDFUNC(sk->destroy) : 0, ptr);
}

static int graft_ruby_convert_ptr(VALUE obj, void **ptr, swig_type_info *ty, int flags, swig_ruby_owntype *own) {
  const ID id = graft_ruby_swigtype_id();
  if (!RB_TYPE_P(obj, T_DATA) || RTYPEDDATA_P(obj) || RTEST(rb_ivar_defined(obj, id)))
    return SWIG_Ruby_ConvertPtrAndOwn(obj, ptr, ty, flags, own);
  VALUE name = Qnil;
  for (VALUE k = rb_obj_class(obj); NIL_P(name) && RTEST(k); k = rb_class_superclass(k)) name = rb_attr_get(k, id);
  if (NIL_P(name)) return SWIG_Ruby_ConvertPtrAndOwn(obj, ptr, ty, flags, own);  // not one of ours
  if (!RB_OBJ_FROZEN(obj)) {
    rb_ivar_set(obj, id, name);
    return SWIG_Ruby_ConvertPtrAndOwn(obj, ptr, ty, flags, own);
  }
  // A frozen object cannot take the name: its twin (same class, pointer and free function for
  // the conversion's ownership report, which is then taken back) is converted instead.
  if (flags & (SWIG_POINTER_DISOWN | SWIG_POINTER_CLEAR)) return SWIG_ERROR;  // they would change obj
  VALUE twin = Data_Wrap_Struct(rb_obj_class(obj), RDATA(obj)->dmark, RDATA(obj)->dfree, DATA_PTR(obj));
  rb_ivar_set(twin, id, name);
  int rc = SWIG_Ruby_ConvertPtrAndOwn(twin, ptr, ty, flags, own);
  RDATA(twin)->dfree = 0;
  RB_GC_GUARD(obj);
  return rc;
}

#undef SWIG_NewPointerObj
#define SWIG_NewPointerObj(ptr, type, flags) graft_ruby_new_pointer_obj(ptr, type, flags)
#undef SWIG_ConvertPtr
#define SWIG_ConvertPtr(obj, pptr, type, flags) graft_ruby_convert_ptr(obj, pptr, type, flags, 0)
#undef SWIG_ConvertPtrAndOwn
#define SWIG_ConvertPtrAndOwn(obj, pptr, type, flags, own) graft_ruby_convert_ptr(obj, pptr, type, flags, own)
%}

%define GRAFT_RUBY_CALL(GATE)
  try {
    if (GATE) {
      $action
    }
  } catch (const graft::Error &e) {
    graft_ruby_set_pending(graft_ruby_error_class(e.code()), e.code(), e.what());
  } catch (const std::bad_alloc &e) {
    graft_ruby_set_pending(graft_ruby_error_class(GRAFT_ENOMEM), GRAFT_ENOMEM, e.what());
  } catch (const std::exception &e) {
    graft_ruby_set_pending(graft_ruby_error_class(GRAFT_EUNKNOWN), GRAFT_EUNKNOWN, e.what());
  }
%enddef
%exception { GRAFT_RUBY_CALL(true) }

/* The calls that may run Ruby callbacks (traced blocks, host functions, gradient blocks) pass
 * the callback gate above first. */
%define GRAFT_RUBY_GATED(NAME)
%exception NAME { GRAFT_RUBY_CALL(graft_ruby_gate()) }
%enddef
GRAFT_RUBY_GATED(graft::Function::call)
GRAFT_RUBY_GATED(graft::Function::ruby_call_values)
GRAFT_RUBY_GATED(graft::Function::get_concrete)
GRAFT_RUBY_GATED(graft::Function::get_concrete_for_specs)
GRAFT_RUBY_GATED(graft::ConcreteFunction::call)
GRAFT_RUBY_GATED(graft::OpCall::execute)
GRAFT_RUBY_GATED(graft::Context::cond)
GRAFT_RUBY_GATED(graft::Context::while_loop)
GRAFT_RUBY_GATED(graft::Context::host_function_call)
GRAFT_RUBY_GATED(graft::GradientTape::gradient)
GRAFT_RUBY_GATED(graft::GradientTape::gradient_sparse)
GRAFT_RUBY_GATED(graft::Graph::add_gradients)
GRAFT_RUBY_GATED(graft::Graph::add_gradients_sparse)
GRAFT_RUBY_GATED(graft::Graph::import_graph_def)
GRAFT_RUBY_GATED(graft::Session::run)
GRAFT_RUBY_GATED(graft::Session::serve)
GRAFT_RUBY_GATED(graft::Callable::run)
GRAFT_RUBY_GATED(graft::SavedModel::SavedModel)
GRAFT_RUBY_GATED(graft::SavedModel::list_tags)
GRAFT_RUBY_GATED(graft::SavedModel::run)
GRAFT_RUBY_GATED(graft::GradientFunction::register_function)
GRAFT_RUBY_GATED(graft::GradientFunction::register_none)
GRAFT_RUBY_GATED(graft::HostFunction::unregister_function)


/* Raise the recorded exception once the wrapper has cleaned up ("ret" runs last on success). */
%typemap(ret) SWIGTYPE, SWIGTYPE *, SWIGTYPE &, SWIGTYPE &&, SWIGTYPE [], void,
              bool, char, signed char, unsigned char, short, unsigned short, int, unsigned int,
              long, unsigned long, long long, unsigned long long, float, double, size_t,
              int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t,
              const bool &, const int &, const long &, const double &, const int64_t &,
              char *, const char *, std::string, const std::string &, graft::Bytes, VALUE
  "graft_ruby_raise_pending();"

/* Text out: UTF-8 strings; bytes out (graft::Bytes): binary (ASCII-8BIT) strings. */
%typemap(out) std::string "$result = rb_utf8_str_new($1.data(), static_cast<long>($1.size()));"
%typemap(out) graft::Bytes "$result = rb_str_new($1.data(), static_cast<long>($1.size()));"

/* Director guards: fail, rather than enter Ruby, on a thread Ruby does not know; and count the
 * call for the callback gate (each director method has one of these arguments). */
%typemap(directorin) graft::Context &ctx %{
  if (!graft_ruby_can_call_ruby())
    return std::string("graft: a Ruby traced function was called on a thread that is not a Ruby thread");
  GraftRubyCallbackScope graft_ruby_callback_scope;
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::Context *), 0);
%}
%typemap(directorin) const graft::TensorList &inputs %{
  if (!graft_ruby_can_call_ruby())
    return std::string("graft: a Ruby host function was called on a thread that is not a Ruby thread");
  GraftRubyCallbackScope graft_ruby_callback_scope;
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::TensorList *), 0);
%}
%typemap(directorin) const graft::Operation &op %{
  if (!graft_ruby_can_call_ruby()) return std::string();
  GraftRubyCallbackScope graft_ruby_callback_scope;
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::Operation *), 0);
%}
%typemap(directorin) graft::GradientContext &ctx %{
  if (!graft_ruby_can_call_ruby())
    return std::string("graft: a Ruby gradient function was called on a thread that is not a Ruby thread");
  GraftRubyCallbackScope graft_ruby_callback_scope;
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::GradientContext *), 0);
%}

/*
 * Copies that outlive a callback: the references a director receives point into the caller's
 * stack frame, so the Ruby layer keeps owned copies of what it hands to user code.
 */
%extend graft::ArgList {
  int kind_at(int i) const { return $self->get(i).kind; }
  graft::Value value_at(int i) const { return $self->get(i).value(); }
  int64_t int_at(int i) const { return $self->get(i).i; }
  double float_at(int i) const { return $self->get(i).f; }
  std::string string_at(int i) const { return $self->get(i).s; }
  bool bool_at(int i) const { return $self->get(i).b; }
}
%extend graft::Context {
  graft::Context copy() const { return *$self; }
}

/*
 * Function#call's fast path (lib/graft/function.rb) when every argument is a Graft::Value: the
 * Ruby Array in, a Ruby Array of new Values out, in one call where the general path builds an
 * ArgList and a ValueList and crosses into the extension once per argument and per result.
 * nil when an argument is anything else (or a freed Value), or the context is no Context (or
 * a freed one): the caller then takes the general path, which converts or reports it.
 */
%{
/* The fast path's arguments without SWIG's generic conversion: the proxy class is checked with
 * kind_of (SWIG compares type names, read from the object, along its type's cast list). */
template <typename T>
static T *graft_ruby_object_of(VALUE obj, swig_type_info *type) {
  swig_class *sk = static_cast<swig_class *>(type->clientdata);
  if (sk == nullptr || !RB_TYPE_P(obj, T_DATA) || RTYPEDDATA_P(obj) || !RTEST(rb_obj_is_kind_of(obj, sk->klass)))
    return nullptr;
  return static_cast<T *>(DATA_PTR(obj));
}

/* Under rb_protect: a Ruby Array of new Values taking *out's (each object is made before the
 * C++ Value it will own, so a NoMemoryError leaves nothing allocated behind). */
static VALUE graft_ruby_make_values(VALUE p) {
  std::vector<graft::Value> *out = reinterpret_cast<std::vector<graft::Value> *>(p);
  swig_class *sk = static_cast<swig_class *>(SWIGTYPE_p_graft__Value->clientdata);
  graft_ruby_name_class(sk, SWIGTYPE_p_graft__Value);
  VALUE result = rb_ary_new_capa(static_cast<long>(out->size()));
  for (graft::Value &v : *out) {
    VALUE obj = Data_Wrap_Struct(sk->klass, VOIDFUNC(sk->mark), VOIDFUNC(sk->destroy), nullptr);
    graft::Value *copy = new (std::nothrow) graft::Value(std::move(v));
    if (copy == nullptr) rb_memerror();
    DATA_PTR(obj) = copy;
    rb_ary_push(result, obj);
  }
  return result;
}
%}
%extend graft::Function {
  VALUE ruby_call_values(VALUE context, VALUE args) {
    graft::Context *ctx = graft_ruby_object_of<graft::Context>(context, SWIGTYPE_p_graft__Context);
    if (ctx == nullptr || !RB_TYPE_P(args, T_ARRAY)) return Qnil;
    VALUE result = Qnil;
    int state = 0;
    {  // C++ objects live in this block only: a Ruby exception is raised after it
      const long n = RARRAY_LEN(args);
      graft::ArgList list;
      for (long i = 0; i < n; ++i) {
        const graft::Value *p = graft_ruby_object_of<graft::Value>(RARRAY_AREF(args, i), SWIGTYPE_p_graft__Value);
        if (p == nullptr) return Qnil;
        list.add_value(*p);
      }
      std::vector<graft::Value> out = $self->call(*ctx, list);
      result = rb_protect(graft_ruby_make_values, reinterpret_cast<VALUE>(&out), &state);
    }
    if (state != 0) rb_jump_tag(state);
    return result;
  }
}
%extend graft::Operation {
  graft::Operation copy() const { return *$self; }
}

/*
 * GradientTape#close frees the native tape at once (the GC would later), so that its recorded
 * tensors go with it: the Ruby object's pointer is cleared first, so that neither a later call
 * nor the GC's free function reaches the deleted tape. lib/graft/tape.rb stops the tape before
 * (a recording tape must be freed on its own thread) and refuses calls on a closed one.
 */
%extend graft::GradientTape {
  void free_native(VALUE *RUBY_SELF) {
    if (RDATA(*RUBY_SELF)->dfree == 0 || DATA_PTR(*RUBY_SELF) != static_cast<void *>($self)) return; /* not owned */
    DATA_PTR(*RUBY_SELF) = 0;
    delete $self;
  }
}
