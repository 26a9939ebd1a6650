/*
 * bindings/python/graft_python_extra.i: Python-only helpers, included at the end of graft.i (after
 * the classes they use): single-crossing fast paths for the hot calls of graft.function and eager
 * ops, Ctrl-C cancelling runs, and the benchmark baseline.
 */

/* Ctrl-C stops the runs Python's main thread has in flight. A SIGINT handler put in front of
 * Python's own cancels the token of each such run, then calls Python's handler, which raises
 * KeyboardInterrupt once the run has returned (with GRAFT_ECANCELLED). Runs of other threads go
 * on, as Python delivers KeyboardInterrupt to the main thread only.
 * Each run takes one of kSlots slots, each with a token made at install: free (0), claimed (1)
 * or armed (2); the handler cancels the armed ones. A signal handler reaches nothing but
 * globals: these are set once, by install_interrupt_cancellation, before the handler is. */
%{
#include <atomic>
#include <csignal>
#include <pthread.h>
namespace graft_python_interrupt {
constexpr int kSlots = 16;  // runs nested on the main thread at once (a py_function's own runs)
graft::Cancellation *g_tokens[kSlots];      // made once, never freed (the process's)
graft_cancellation *g_raw[kSlots];          // their C handles, for the handler
std::atomic<int> g_state[kSlots];           // 0 free, 1 claimed, 2 armed
std::atomic<unsigned> g_signals{0};         // SIGINTs seen
std::atomic<bool> g_ready{false};
pthread_t g_main;                           // Python's main thread
struct sigaction g_previous;                // Python's handler, called after ours
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<unsigned>::is_always_lock_free);

void OnSigint(int sig, siginfo_t *info, void *context) {
  g_signals.fetch_add(1);
  for (int i = 0; i < kSlots; ++i) {
    if (g_state[i].load() == 2) graft_cancellation_cancel(g_raw[i]);
  }
  if ((g_previous.sa_flags & SA_SIGINFO) != 0) {
    if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
}

// A forked child has only the thread that forked: no run of the parent's is in flight there.
void AfterForkInChild() {
  for (int i = 0; i < kSlots; ++i) g_state[i].store(0);
  g_main = pthread_self();
}

/* Around one run from Python: a main-thread run takes a slot and its token (a run elsewhere,
 * or with every slot taken, runs without). A SIGINT from the moment it starts cancels it:
 * either the handler sees the slot armed, or the run sees the count of signals change. */
class Scope {
 public:
  Scope() {
    if (!g_ready.load(std::memory_order_acquire) || !pthread_equal(pthread_self(), g_main)) return;
    for (int i = 0; i < kSlots; ++i) {
      int free_slot = 0;
      if (g_state[i].compare_exchange_strong(free_slot, 1)) {
        slot_ = i;
        break;
      }
    }
    if (slot_ < 0) return;
    const unsigned seen = g_signals.load();
    g_tokens[slot_]->reset();
    g_state[slot_].store(2);
    if (g_signals.load() != seen) g_tokens[slot_]->cancel();
  }
  ~Scope() {
    if (slot_ >= 0) g_state[slot_].store(0);
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  const graft::Cancellation *token() const { return slot_ >= 0 ? g_tokens[slot_] : nullptr; }

 private:
  int slot_ = -1;
};
}  // namespace graft_python_interrupt
%}

/* Borrowed feed buffers (tensor_borrow_buffer below). */
%{
#include <mutex>
namespace graft_python_borrow {
/* A Python buffer that a tensor reads in place; released once Graft lets go of it. The last
 * holder may be a thread of Graft's pool, which must not wait for the GIL (the thread that
 * holds it may be waiting for the pool): such releases queue here, and the end of the run, or
 * the next call that holds the GIL, performs them (as TensorFlow's delayed NumPy decrefs). */
struct Held {
  Py_buffer view;
};
inline std::mutex &pending_mu() {
  static std::mutex mu;
  return mu;
}
inline std::vector<Held *> &pending() {
  static std::vector<Held *> held;
  return held;
}
inline bool interpreter_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}
/* With the GIL held. */
inline void release_now(Held *h) {
  PyBuffer_Release(&h->view);
  delete h;
}
inline void release_pending() {
  std::vector<Held *> done;
  {
    std::lock_guard<std::mutex> lock(pending_mu());
    done.swap(pending());
  }
  for (Held *h : done) release_now(h);
}
/* After a run (without the GIL): the releases its threads queued, if any. */
inline void release_pending_after_run() {
  {
    std::lock_guard<std::mutex> lock(pending_mu());
    if (pending().empty()) return;
  }
  PyGILState_STATE g = PyGILState_Ensure();
  release_pending();
  PyGILState_Release(g);
}
inline void on_graft_done(void *, size_t, void *arg) {
  Held *h = static_cast<Held *>(arg);
  if (!interpreter_alive()) return;  // the interpreter (and the memory) is gone or going
  if (PyGILState_GetThisThreadState() != nullptr) {
    // A Python thread, holding the GIL or inside a call that let it go (a tensor's handle
    // freed, say): every call into Graft lets it go first, so no GIL holder waits for this
    // thread. (Not PyGILState_Check: it answers 1 everywhere once a subinterpreter exists.)
    PyGILState_STATE g = PyGILState_Ensure();
    release_now(h);
    PyGILState_Release(g);
  } else {
    std::lock_guard<std::mutex> lock(pending_mu());
    pending().push_back(h);
  }
}
}  // namespace graft_python_borrow
%}

%inline %{
namespace graft {
/* Makes Ctrl-C cancel the runs made from Python's main thread (Session.run, callables,
 * graft.function and concrete function calls, SavedModel signatures): puts a SIGINT handler in
 * front of the one installed now, which it calls. graft/__init__.py calls it from the main
 * thread when Python's default handler is installed. A later signal.signal(SIGINT, ...)
 * replaces it (Ctrl-C then waits for the run to end, as before); calling this again puts it
 * back in front. Returns whether it is installed. */
inline bool install_interrupt_cancellation() {
  using namespace graft_python_interrupt;
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return false;
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == OnSigint) return true;  // in front already
  if ((current.sa_flags & SA_SIGINFO) == 0 && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) {
    return false;
  }
  if (!g_ready.load()) {
    for (int i = 0; i < kSlots; ++i) {
      g_tokens[i] = new Cancellation();
      g_raw[i] = g_tokens[i]->c();
      g_state[i].store(0);
    }
    graft_cancellation_cancel(nullptr);  // binds the symbol now: the handler must not run the dynamic linker
    g_main = pthread_self();
    pthread_atfork(nullptr, nullptr, AfterForkInChild);
    g_ready.store(true, std::memory_order_release);
  }
  g_previous = current;
  struct sigaction mine = current;  // the same mask and flags, with ours
  mine.sa_flags |= SA_SIGINFO;
  mine.sa_sigaction = OnSigint;
  return sigaction(SIGINT, &mine, nullptr) == 0;
}

/* Session::run and Callable::run for Python: cancelled by Ctrl-C; timeout_ms > 0 a deadline. */
inline std::vector<Tensor> session_run(Session &session, const std::vector<Output> &fetches,
                                       const std::vector<Output> &feeds, const std::vector<Tensor> &feed_values,
                                       const std::vector<Operation> &targets, int64_t timeout_ms) {
  graft_python_interrupt::Scope scope;
  std::vector<Tensor> out = session.run(fetches, feeds, feed_values, targets, timeout_ms, scope.token());
  graft_python_borrow::release_pending_after_run();
  return out;
}
inline std::vector<Tensor> callable_run(Callable &callable, const std::vector<Tensor> &feed_values,
                                        int64_t timeout_ms) {
  graft_python_interrupt::Scope scope;
  std::vector<Tensor> out = callable.run(feed_values, timeout_ms, scope.token());
  graft_python_borrow::release_pending_after_run();
  return out;
}
/* SavedModel::run for Python: cancelled by Ctrl-C. */
inline std::vector<Tensor> saved_model_run(SavedModel &model, const std::string &signature,
                                           const std::vector<std::string> &input_keys,
                                           const std::vector<Tensor> &inputs,
                                           const std::vector<std::string> &output_keys) {
  graft_python_interrupt::Scope scope;
  return model.run(signature, input_keys, inputs, output_keys, 0, scope.token());
}
/* ConcreteFunction::call for Python: cancelled by Ctrl-C. */
inline std::vector<Value> concrete_function_call(ConcreteFunction &function, Context &ctx,
                                                 const std::vector<Value> &inputs) {
  graft_python_interrupt::Scope scope;
  return function.call(ctx, inputs, 0, scope.token());
}
}  // namespace graft
%}
/* For bench/bench_python_call.py: n calls of graft_function_call straight from C (outputs freed
 * as a C caller would), the baseline the Python call overhead is measured against. Seconds per
 * call. */
%inline %{
#include <chrono>
namespace graft {
inline double bench_c_function_calls(Function &function, Context &ctx, const ArgList &args, int n) {
  std::vector<graft_arg> c_args = args.to_c();
  graft_value *outputs[16];
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    int nout = 0;
    detail::check(graft_function_call(outputs, 16, &nout, function.c(), ctx.c(), c_args.data(),
                                      static_cast<int>(c_args.size())));
    for (int k = 0; k < nout && k < 16; ++k) graft_value_free(outputs[k]);
  }
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / (n > 0 ? n : 1);
}
}  // namespace graft
%}

%{
/* A new Python proxy owning a copy of v (the GIL is held). */
static PyObject *graft_python_value(const graft::Value &v) {
  return SWIG_InternalNewPointerObj(new graft::Value(v), SWIGTYPE_p_graft__Value, SWIG_POINTER_OWN);
}
static PyObject *graft_python_values(const std::vector<graft::Value> &values) {
  PyObject *list = PyList_New(static_cast<Py_ssize_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), graft_python_value(values[i]));
  return list;
}
%}

%nothread graft::function_call_tensors;
%inline %{
namespace graft {
/*
 * graft.function's hot path: finds (tracing on a miss) and runs the concrete function for a
 * tuple of eager tensors in one crossing; returns (concrete function id, [output tensors]),
 * the outputs made as object.__new__(eager_type or symbolic_type) with their Value in _value
 * (framework._eager and _symbolic), or None unless each argument is exactly of eager_type
 * with a Value in its _value (the caller then takes the general path). The GIL is let go only
 * around the run itself (%nothread: no GIL round trip to build the result).
 */
inline PyObject *function_call_tensors(Function &function, Context &ctx, PyObject *args, PyObject *eager_type,
                                       PyObject *symbolic_type) {
  static PyObject *const value_attr = PyUnicode_InternFromString("_value");
  static PyObject *const no_args = PyTuple_New(0);
  if (!PyTuple_Check(args) || !PyType_Check(eager_type) || !PyType_Check(symbolic_type)) Py_RETURN_NONE;
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  std::vector<Value> values;
  values.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PyTuple_GET_ITEM(args, i);
    if (Py_TYPE(item) != reinterpret_cast<PyTypeObject *>(eager_type)) Py_RETURN_NONE;
    PyObject *v = PyObject_GetAttr(item, value_attr);
    void *p = nullptr;
    const int res = v != nullptr ? SWIG_ConvertPtr(v, &p, SWIGTYPE_p_graft__Value, 0) : SWIG_ERROR;
    if (!SWIG_IsOK(res) || p == nullptr) {
      Py_XDECREF(v);
      PyErr_Clear();
      Py_RETURN_NONE;
    }
    values.push_back(*static_cast<const Value *>(p));  // while v holds the Value
    Py_DECREF(v);
  }
  FunctionCall call;
  {
    graft_python_interrupt::Scope scope;  // Ctrl-C cancels it
    PyThreadState *state = PyEval_SaveThread();
    try {
      call = function.call_values(ctx, values, scope.token());
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
  }
  const bool symbolic = !call.outputs_.empty() && call.outputs_[0].is_symbolic();
  PyTypeObject *cls = reinterpret_cast<PyTypeObject *>(symbolic ? symbolic_type : eager_type);
  PyObject *tensors = PyList_New(static_cast<Py_ssize_t>(call.outputs_.size()));
  if (tensors == nullptr) return nullptr;
  for (size_t i = 0; i < call.outputs_.size(); ++i) {
    PyObject *t = PyBaseObject_Type.tp_new(cls, no_args, nullptr);
    PyObject *v = t != nullptr ? graft_python_value(call.outputs_[i]) : nullptr;
    const int rc = v != nullptr ? PyObject_SetAttr(t, value_attr, v) : -1;
    Py_XDECREF(v);
    if (rc != 0) {
      Py_XDECREF(t);
      Py_DECREF(tensors);
      return nullptr;  // the Python error is set
    }
    PyList_SET_ITEM(tensors, static_cast<Py_ssize_t>(i), t);
  }
  return Py_BuildValue("(LN)", static_cast<long long>(call.concrete_.id()), tensors);
}

/* An eager op (or one recorded while tracing) without attrs, in one crossing:
 * (outputs are symbolic, [output values]). */
inline PyObject *run_op(Context &ctx, const std::string &op_type, const std::vector<Value> &inputs) {
  OpCall call(ctx, op_type);
  for (const Value &v : inputs) call.add_input(v);
  std::vector<Value> outputs = call.execute();
  bool symbolic = !outputs.empty() && outputs[0].is_symbolic();
  SWIG_PYTHON_THREAD_BEGIN_BLOCK;
  PyObject *out = Py_BuildValue("(ON)", symbolic ? Py_True : Py_False, graft_python_values(outputs));
  SWIG_PYTHON_THREAD_END_BLOCK;
  return out;
}
}  // namespace graft
%}

%inline %{
namespace graft {
/* A string tensor of dims from a Python sequence of bytes objects (any bytes, NUL included). */
inline Tensor tensor_from_bytes_list(const std::vector<int64_t> &dims, PyObject *items) {
  std::vector<std::string> strings;
  bool ok = true;
  SWIG_PYTHON_THREAD_BEGIN_BLOCK;
  PyObject *seq = PySequence_Fast(items, "expected a sequence of bytes");
  if (seq == nullptr) {
    PyErr_Clear();
    ok = false;
  } else {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && ok; ++i) {
      char *data = nullptr;
      Py_ssize_t len = 0;
      if (PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(seq, i), &data, &len) != 0) {
        PyErr_Clear();
        ok = false;
      } else {
        strings.emplace_back(data, static_cast<size_t>(len));
      }
    }
    Py_DECREF(seq);
  }
  SWIG_PYTHON_THREAD_END_BLOCK;
  if (!ok) throw Error(GRAFT_EINVAL, "graft: a string tensor needs a sequence of bytes objects");
  return Tensor::from_strings(dims, strings);
}
}  // namespace graft
%}

/* ---- Feeds over NumPy's memory ------------------------------------------------------------ */

%inline %{
namespace graft {
/* A tensor of dtype and dims over obj's memory (any C-contiguous buffer of exactly the tensor's
 * bytes, a NumPy array say), without a copy: Graft reads it in place and never writes it (its
 * kernels make outputs in memory of their own), and keeps obj's buffer until the tensor and
 * everything that shares it let go. A buffer not aligned to its element size is copied. */
inline Tensor tensor_borrow_buffer(int dtype, const std::vector<int64_t> &dims, PyObject *obj) {
  graft_python_borrow::Held *h = new graft_python_borrow::Held;
  bool ok;
  SWIG_PYTHON_THREAD_BEGIN_BLOCK;
  graft_python_borrow::release_pending();
  ok = PyObject_GetBuffer(obj, &h->view, PyBUF_C_CONTIGUOUS) == 0;
  if (!ok) PyErr_Clear();
  SWIG_PYTHON_THREAD_END_BLOCK;
  if (!ok) {
    delete h;
    throw Error(GRAFT_EINVAL, "graft: a borrowed tensor needs an object with a C-contiguous buffer");
  }
  graft_tensor *t = nullptr;
  const int rc = graft_tensor_new_borrowed(&t, dtype, dims.data(), static_cast<int>(dims.size()), h->view.buf,
                                           static_cast<size_t>(h->view.len), graft_python_borrow::on_graft_done, h);
  if (rc != GRAFT_OK) {  // the buffer stays ours
    std::string message = graft_error_last();
    SWIG_PYTHON_THREAD_BEGIN_BLOCK;
    graft_python_borrow::release_now(h);
    SWIG_PYTHON_THREAD_END_BLOCK;
    throw Error(rc, message);
  }
  return Tensor(t);
}
/* Performs the buffer releases that Graft's threads queued (see tensor_borrow_buffer). */
inline void release_borrowed_buffers() {
  SWIG_PYTHON_THREAD_BEGIN_BLOCK;
  graft_python_borrow::release_pending();
  SWIG_PYTHON_THREAD_END_BLOCK;
}
}  // namespace graft
%}
