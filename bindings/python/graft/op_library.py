"""graft.load_op_library and graft.load_library: op libraries (TensorFlow's tf.load_op_library).

An op library is a shared library made with GRAFT_DEFINE_OP_LIBRARY (graft/kernel.h, see
docs/plugins.md); loading it registers its ops, kernels, shape functions and gradients with
Graft for the rest of the process:

    lib = graft.load_op_library("/path/to/libgraft_example_ops.so")
    lib.zero_out([5, 3, 1])                 # eager: [5, 0, 0]
    with graft.GradientTape() as tape:      # its gradient is the library's
        tape.watch(x)
        y = lib.swish(x)

load_op_library returns a module with one function per op the library registered, named as
TensorFlow names generated op functions (graft_swig.op_function_name: ZeroOut -> zero_out,
SwishGrad -> swish_grad). Each is called as op_function(*inputs, name=None, **attrs) and works
where the built-in ops do: eagerly, inside graft.function, and in graph mode. Inputs are
positional, in the op's order (tensors, NumPy arrays or Python values, which take the dtype of
the first tensor input where they can; a list or tuple of tensors is a list input); keyword arguments are the op's attrs (type attrs such as T are
inferred from the inputs). The result is a Tensor for an op with one output, a list of Tensors
for several, and for an op without outputs the Operation in graph mode, None eagerly.
"""
import os
import types as _types

from graft import graft_swig as _c
from graft import framework as _fw


def _as_input(x, hint):
    if isinstance(x, _fw.Tensor):
        return x
    if isinstance(x, (list, tuple)) and x and all(isinstance(v, _fw.Tensor) for v in x):
        return list(x)  # a list input (N * T)
    return _fw.convert_to_tensor(x, dtype_hint=hint)


def _op_function(op_type, function_name):
    def op_function(*inputs, name=None, **attrs):
        # Python values take the dtype of the first tensor input where they can (as ops' T).
        hint = next((x.dtype for x in inputs if isinstance(x, _fw.Tensor)), None)
        outputs = _fw.apply_op(op_type, [_as_input(x, hint) for x in inputs], attrs, name=name)
        if isinstance(outputs, list):
            if not outputs:
                return None
            return outputs[0] if len(outputs) == 1 else outputs
        return outputs  # graph mode, an op without outputs: the Operation

    op_function.__name__ = op_function.__qualname__ = function_name
    op_function.__doc__ = (f"Makes a {op_type} op (from an op library) of the inputs, in their order, "
                           f"with attrs as keyword arguments; name names the op in a graph.")
    return op_function


def load_op_library(library_filename):
    """Loads the op library at library_filename (a path with a '/' is a file; else dlopen searches)
    and returns a module with one Python function per op it registered (see the module's doc).
    Loading a library again is harmless (nothing is registered twice). Raises
    graft.errors.NotFoundError (no such file, or not an op library: the message names the path),
    UnimplementedError (built for a newer Graft), AlreadyExistsError (one of its ops exists)."""
    library = _c.Library.load(os.fspath(library_filename))
    path = library.path()
    module = _types.ModuleType(os.path.splitext(os.path.basename(path))[0],
                               f"The ops of the op library {path}.")
    module.__file__ = path
    module.OP_NAMES = tuple(library.op_names())
    names = []
    for op_type, function_name in zip(library.op_names(), library.function_names()):
        setattr(module, function_name, _op_function(op_type, function_name))
        names.append(function_name)
    module.__all__ = names
    return module


def load_library(library_location):
    """Loads an op library, or each op library in a directory (TensorFlow's tf.load_library:
    libraries that only add kernels or ops, used by name). Returns None."""
    location = os.fspath(library_location)
    if os.path.isdir(location):
        files = sorted(os.path.join(location, f) for f in os.listdir(location)
                       if f.endswith((".so", ".dylib")) or ".so." in f)
    else:
        files = [location]
    for f in files:
        _c.Library.load(f)
