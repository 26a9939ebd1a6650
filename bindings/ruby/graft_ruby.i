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

static void graft_ruby_raise_pending(void) {
  if (NIL_P(graft_ruby_pending)) return;
  VALUE exc = graft_ruby_pending;
  graft_ruby_pending = Qnil;
  rb_exc_raise(exc);
}

/* Whether this thread may call Ruby: Graft can run a host function on a thread of its own. */
static bool graft_ruby_can_call_ruby(void) { return ruby_native_thread_p() != 0; }

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

%exception {
  try {
    $action
  } catch (const graft::Error &e) {
    graft_ruby_set_pending(graft_ruby_error_class(e.code()), e.code(), e.what());
  } catch (const std::bad_alloc &e) {
    graft_ruby_set_pending(graft_ruby_error_class(GRAFT_ENOMEM), GRAFT_ENOMEM, e.what());
  } catch (const std::exception &e) {
    graft_ruby_set_pending(graft_ruby_error_class(GRAFT_EUNKNOWN), GRAFT_EUNKNOWN, e.what());
  }
}

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

/* Director guards: fail, rather than enter Ruby, on a thread Ruby does not know. */
%typemap(directorin) graft::Context &ctx %{
  if (!graft_ruby_can_call_ruby())
    return std::string("graft: a Ruby traced function was called on a thread that is not a Ruby thread");
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::Context *), 0);
%}
%typemap(directorin) const graft::TensorList &inputs %{
  if (!graft_ruby_can_call_ruby())
    return std::string("graft: a Ruby host function was called on a thread that is not a Ruby thread");
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::TensorList *), 0);
%}
%typemap(directorin) const graft::Operation &op %{
  if (!graft_ruby_can_call_ruby()) return std::string();
  $input = SWIG_NewPointerObj(SWIG_as_voidptr(&$1), $descriptor(graft::Operation *), 0);
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
 * nil when an argument is anything else (or a freed Value): the caller then takes the general
 * path, which converts or reports it.
 */
%extend graft::Function {
  VALUE ruby_call_values(graft::Context &ctx, VALUE args) {
    if (!RB_TYPE_P(args, T_ARRAY)) return Qnil;
    const long n = RARRAY_LEN(args);
    graft::ArgList list;
    for (long i = 0; i < n; ++i) {
      void *p = nullptr;
      if (!SWIG_IsOK(SWIG_ConvertPtr(RARRAY_AREF(args, i), &p, SWIGTYPE_p_graft__Value, 0)) || p == nullptr) return Qnil;
      list.add_value(*static_cast<const graft::Value *>(p));
    }
    std::vector<graft::Value> out = $self->call(ctx, list);
    VALUE result = rb_ary_new_capa(static_cast<long>(out.size()));
    for (graft::Value &v : out)
      rb_ary_push(result, SWIG_NewPointerObj(new graft::Value(std::move(v)), SWIGTYPE_p_graft__Value, SWIG_POINTER_OWN));
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
