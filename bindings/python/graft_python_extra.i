/*
 * bindings/python/graft_python_extra.i: Python-only helpers, included at the end of graft.i (after
 * the classes they use): single-crossing fast paths for the hot calls of graft.function and eager
 * ops, and the benchmark baseline.
 */
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

%inline %{
namespace graft {
/*
 * graft.function's hot path: finds and runs the concrete function for tensor arguments in one
 * crossing; returns (concrete function id, outputs are symbolic, [output values]).
 */
inline PyObject *function_call_values(Function &function, Context &ctx, const std::vector<Value> &args) {
  FunctionCall call = function.call_values(ctx, args);  // without the GIL (-threads)
  bool symbolic = !call.outputs_.empty() && call.outputs_[0].is_symbolic();
  SWIG_PYTHON_THREAD_BEGIN_BLOCK;
  PyObject *out = Py_BuildValue("(LON)", static_cast<long long>(call.concrete_.id()),
                                symbolic ? Py_True : Py_False, graft_python_values(call.outputs_));
  SWIG_PYTHON_THREAD_END_BLOCK;
  return out;
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
