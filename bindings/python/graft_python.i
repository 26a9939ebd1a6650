/*
 * bindings/python/graft_python.i: Python typemaps and exceptions for graft.i.
 * Errors become the exceptions of graft.errors (made by graft.errors._from_c(code, message)).
 */
%{
static void graft_python_raise(int code, const char *message) {
  PyObject *errors = PyImport_ImportModule("graft.errors");
  PyObject *exc = errors ? PyObject_CallMethod(errors, "_from_c", "is", code, message) : NULL;
  if (exc) {
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, message);
  }
  Py_XDECREF(errors);
}
%}

%exception {
  try {
    $action
  } catch (const graft::Error &e) {
    SWIG_PYTHON_THREAD_BEGIN_BLOCK;
    /* A run cancelled by Ctrl-C (graft_python_extra.i): Python's pending KeyboardInterrupt. */
    if (e.code() != GRAFT_ECANCELLED || PyErr_CheckSignals() == 0) graft_python_raise(e.code(), e.what());
    SWIG_PYTHON_THREAD_END_BLOCK;
    SWIG_fail;
  } catch (const std::exception &e) {
    SWIG_PYTHON_THREAD_BEGIN_BLOCK;
    PyErr_SetString(PyExc_RuntimeError, e.what());
    SWIG_PYTHON_THREAD_END_BLOCK;
    SWIG_fail;
  }
}

/* Bytes out: Python bytes. */
%typemap(out) graft::Bytes {
  $result = PyBytes_FromStringAndSize($1.data(), $1.size());
}

/* Binary data in: any object with the buffer protocol (bytes, bytearray, memoryview, NumPy
 * arrays), read in place. */
%typemap(in) (const char *data, size_t len) (Py_buffer view, int have_view = 0) {
  if (PyObject_GetBuffer($input, &view, PyBUF_CONTIG_RO) != 0) SWIG_fail;
  have_view = 1;
  $1 = (char *)view.buf;
  $2 = (size_t)view.len;
}
%typemap(freearg) (const char *data, size_t len) {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) (const char *data, size_t len) {
  $1 = PyObject_CheckBuffer($input) ? 1 : 0;
}
