/*
 * bindings/go/graft_go.i: Go typemaps and error reporting for graft.i (swig -go -cgo).
 *
 * Errors: a Go panic cannot safely unwind the C++ frames of a wrapper, so no wrapper panics.
 * The %exception below records a failure (graft::Error, or any C++ exception) in a thread-local
 * slot and lets the wrapper return its zero result; the idiomatic package (bindings/go/*.go)
 * locks the goroutine to its OS thread around each call and takes the slot with
 * graft_go_error_code / graft_go_error_take, turning it into a *graft.Error.
 *
 * Slices: vectors of numbers travel as Go slices both ways (one copy, no per-element calls).
 */

%{
#include <cstring>
#include <string>

namespace {
struct GraftGoErrorSlot {
  int code = 0;
  std::string message;
};
thread_local GraftGoErrorSlot graft_go_error_slot;

void graft_go_record(int code, const char *message) {
  graft_go_error_slot.code = code == 0 ? GRAFT_EUNKNOWN : code;
  graft_go_error_slot.message = message ? message : "";
}
}  // namespace
%}

%exception {
  graft_go_error_slot.code = 0;  /* no stale failure survives a successful call */
  try {
    $action
  } catch (const graft::Error &e) {
    graft_go_record(e.code(), e.what());
  } catch (const std::exception &e) {
    graft_go_record(GRAFT_EUNKNOWN, e.what());
  } catch (...) {
    graft_go_record(GRAFT_EUNKNOWN, "graft: unknown C++ exception");
  }
}

/* The vector templates' own checks (get/set out of range) are recorded the same way. */
%typemap(throws) std::out_of_range %{ graft_go_record(GRAFT_ERANGE, $1.what()); %}

/* Reading the slot must not clear it first. */
%noexception graft_go_error_code;
%noexception graft_go_error_take;

%inline %{
/* The status code of this thread's last failed wrapper call (0: none). */
int graft_go_error_code() { return graft_go_error_slot.code; }
/* The message of this thread's last failed wrapper call; clears the slot. */
std::string graft_go_error_take() {
  std::string m;
  m.swap(graft_go_error_slot.message);
  graft_go_error_slot.code = 0;
  return m;
}
%}

/* ---- Numeric vectors as Go slices -------------------------------------------------------- */

%define GRAFT_GO_SLICE(CTYPE, GOTYPE)
%typemap(gotype) const std::vector<CTYPE> & "[]GOTYPE"
%typemap(in) const std::vector<CTYPE> & (std::vector<CTYPE> temp) %{
  temp.assign(static_cast<const CTYPE *>($input.array), static_cast<const CTYPE *>($input.array) + $input.len);
  $1 = &temp;
%}
%typemap(gotype) std::vector<CTYPE> "[]GOTYPE"
%typemap(out) std::vector<CTYPE> %{
  $result.len = $result.cap = static_cast<intgo>($1.size());
  $result.array = malloc($1.size() * sizeof(CTYPE) + 1);
  if ($1.size()) memcpy($result.array, $1.data(), $1.size() * sizeof(CTYPE));
%}
%typemap(goout) std::vector<CTYPE> %{
  {
    $result = make([]GOTYPE, len($1))
    copy($result, $1)
    Swig_free(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&$1))))
  }
%}
%enddef

/* The numeric vector classes of graft.i are not needed in Go (slices replace them). */
%ignore std::vector<int64_t>;
%ignore std::vector<int>;
%ignore std::vector<float>;
%ignore std::vector<double>;

GRAFT_GO_SLICE(int64_t, int64)
GRAFT_GO_SLICE(int, int32)
GRAFT_GO_SLICE(float, float32)
GRAFT_GO_SLICE(double, float64)

/* vector<bool> is packed in C++: converted element by element. */
%typemap(gotype) const std::vector<bool> & "[]bool"
%typemap(in) const std::vector<bool> & (std::vector<bool> temp) %{
  temp.assign(static_cast<const bool *>($input.array), static_cast<const bool *>($input.array) + $input.len);
  $1 = &temp;
%}

/* A Go []byte to fill: (pointer, length) of the slice's memory. */
%typemap(gotype) (char *go_buffer, size_t go_len) "[]byte"
%typemap(in) (char *go_buffer, size_t go_len) %{
  $1 = static_cast<char *>($input.array);
  $2 = static_cast<size_t>($input.len);
%}

%extend graft::Tensor {
  /* Copies the elements' bytes into a Go buffer of byte_size() bytes (one copy, no C string). */
  void read_into(char *go_buffer, size_t go_len) const {
    if (go_len != $self->byte_size())
      throw graft::Error(GRAFT_EINVAL, "graft: read_into needs " + std::to_string($self->byte_size()) + " bytes, got " +
                                           std::to_string(go_len));
    const void *p = graft_tensor_data($self->get());
    if (p && go_len) memcpy(go_buffer, p, go_len);
  }
}

/* `type` is a Go keyword. */
%rename(op_type) graft::Operation::type;

/* Value copies for the classes the Go package keeps its own handles of. */
%copyctor graft::Tensor;
%copyctor graft::Value;
%copyctor graft::Context;
%copyctor graft::Graph;
%copyctor graft::Operation;
%copyctor graft::Output;
%copyctor graft::Session;

/*
 * Host functions owned by Graft: registered with a destroy callback, so that the director is
 * deleted when its token is unregistered and no run uses it any more (HostFunction's own
 * register_function passes none, and unregistering during a run would free it too early).
 */
%extend graft::HostFunction {
  static void register_owned(const std::string &token, graft::HostFunction *fn) {
    graft::detail::check(graft_host_function_register(
        token.c_str(), &graft::HostFunction::trampoline, fn,
        [](void *p) { delete static_cast<graft::HostFunction *>(p); }));
  }
}

