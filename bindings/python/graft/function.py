"""graft.function: traced functions (tf.function), polymorphic over their arguments.

A call flattens its (canonicalized) arguments: tensors (and Variables, by handle) are the
traced function's inputs; everything else — Python numbers, strings, None, objects — is part
of the call's structure key, a trace-time constant. Each structure key has its own C function
(graft_swig.Function), which keeps one concrete function per tensor signature (and relaxes
shapes with reduce_retracing); the Python callable is traced by the C trampoline calling
_TraceBody.trace. An input_signature fixes a single C function whose arguments must fit it.
"""
import functools
import inspect
import threading
import weakref

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft import nest
from graft import types as _types
from graft.framework import EagerTensor, Tensor, convert_to_tensor, _eager_enabled
from graft.tensor_shape import TensorShape, as_shape


class TensorSpec:
    """The dtype and (partial) shape of a tensor argument."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        return self._dtype.is_compatible_with(spec_or_tensor.dtype) and \
            self._shape.is_compatible_with(spec_or_tensor.shape)

    def most_specific_compatible_type(self, other):
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape), self._dtype)

    def _to_c(self):
        return _c.TensorSpec(self._dtype.as_datatype_enum, _fw._shape_to_c(self._shape), self._name or "")

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self._shape, self._dtype, self._name) == \
            (other._shape, other._dtype, other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


# ---- Argument flattening --------------------------------------------------------------------------

def _leaf_kind(x):
    from graft import variables
    if isinstance(x, Tensor):
        return "T"
    if isinstance(x, variables.Variable):
        return "V"
    if isinstance(x, (np.ndarray, np.generic)):
        return "T"
    return None


def _python_key(x):
    """The part of the structure key for a Python leaf (a trace-time constant)."""
    if x is None or isinstance(x, (bool, int, float, str, bytes, complex)):
        return f"{type(x).__name__}:{x!r}"
    if isinstance(x, _dtypes.DType):
        return f"dtype:{x.name}"
    if isinstance(x, TensorShape):
        return f"shape:{x!r}"
    # Any other object: by identity (kept alive while its traces exist).
    return f"obj:{id(x)}"


class _VariableMeta:
    """What a trace needs of a Variable argument: dtype, shape and name."""

    def __init__(self, v):
        self.dtype, self.shape, self._name, self.trainable = v.dtype, v.shape, v._name, v.trainable


class _Call:
    """A call's flattened arguments: the structure key, tensor leaves, Python leaves."""

    __slots__ = ("key", "tensors", "kinds", "python", "treedef", "specs")

    def metadata_only(self):
        """A copy keeping what traces need, not the call's tensors (a cache entry outlives them)."""
        c = _Call.__new__(_Call)
        c.key, c.kinds, c.python, c.treedef, c.specs = self.key, self.kinds, self.python, self.treedef, self.specs
        c.tensors = [_VariableMeta(t) if k == "V" else None
                     for k, t in zip((k for k in self.kinds if k != "P"), self.tensors)]
        return c

    def __init__(self, args):
        leaves, treedef = nest.flatten_with_treedef(args)
        self.treedef = treedef
        key_parts = [treedef.key]
        self.tensors, self.kinds, self.python, self.specs = [], [], [], []
        for leaf in leaves:
            kind = _leaf_kind(leaf)
            if kind is None and isinstance(leaf, TensorSpec):
                kind = "S"
            if kind is None:
                key_parts.append(_python_key(leaf))
                self.kinds.append("P")
                self.python.append(leaf)
            else:
                if kind == "V":
                    key_parts.append(f"V:{leaf.dtype.name}{leaf.shape}")  # by dtype and shape
                else:
                    key_parts.append(kind if kind != "S" else "T")
                self.kinds.append(kind)
                self.tensors.append(leaf)
        self.key = "|".join(key_parts)


def _eager_values(args):
    """The C values of args when every one is an eager tensor (the calls' fast paths), else None."""
    values = []
    for a in args:
        if type(a) is not EagerTensor:
            return None
        values.append(a._value)
    return values


def _value_of(leaf):
    from graft import variables
    if isinstance(leaf, variables.Variable):
        return leaf._handle_value()
    if isinstance(leaf, (np.ndarray, np.generic)):
        return convert_to_tensor(leaf)._value
    if leaf._value is None:
        raise TypeError(f"A graft.function was called with a tensor of a Graph ({leaf.name}); call it with eager "
                        "tensors, or inside another graft.function.")
    return leaf._value


# ---- Tracing ---------------------------------------------------------------------------------------

_function_call_tensors = _c.function_call_tensors


class _TraceState(threading.local):
    def __init__(self):
        self.pending = None  # the exception a trace raised, re-raised after the C call fails


_trace_state = _TraceState()


class _TraceBody(_c.TraceBody):
    """The director the C function calls to trace: rebuilds the Python arguments, calls the
    Python function, flattens its outputs."""

    def __init__(self, function, call_info):
        super().__init__()
        self._function = weakref.ref(function)
        self._call = call_info  # the _Call that first made this structure key (its Python leaves)
        self.out_structure = None

    def trace(self, ctx, args, outputs):
        from graft import variables
        function = self._function()
        try:
            tensors = [args.get(i).value() for i in range(args.size())]
            leaves, ti, pi = [], 0, 0
            for kind in self._call.kinds:
                if kind == "P":
                    leaves.append(self._call.python[pi])
                    pi += 1
                else:
                    v = tensors[ti]
                    ti += 1
                    t = Tensor(value=v)
                    leaves.append(variables._TracedVariable(t, self._call.tensors[ti - 1]) if kind == "V" else t)
            py_args, py_kwargs = nest.pack(self._call.treedef, leaves)
            with _fw.tracing_scope():
                result = function._traced_callable()(*py_args, **py_kwargs)
            out_leaves, out_treedef = nest.flatten_with_treedef(result)
            kinds = []
            for leaf in out_leaves:
                if isinstance(leaf, variables.Variable):
                    leaf = leaf.read_value()
                if isinstance(leaf, Tensor):
                    if leaf._value is None:
                        raise TypeError(f"graft.function returned a tensor of a Graph ({leaf.name})")
                    outputs.append(leaf._value)
                    kinds.append(("T", None))
                elif isinstance(leaf, (np.ndarray, np.generic, int, float, complex)) and \
                        not isinstance(leaf, bool) or isinstance(leaf, bool):
                    # Python numbers and arrays come back as tensors (constants of the trace).
                    outputs.append(convert_to_tensor(leaf)._value)
                    kinds.append(("T", None))
                else:
                    kinds.append(("P", leaf))
            # The output structure of this entry's traces (a trace holds the C function's lock).
            self.out_structure = (out_treedef, kinds)
            return ""
        except BaseException as e:  # noqa: BLE001 - re-raised by the caller
            _trace_state.pending = e
            return f"{type(e).__name__}: {e}"


def _raise_pending(exc):
    pending = _trace_state.pending
    _trace_state.pending = None
    if pending is not None:
        raise pending.with_traceback(pending.__traceback__) from None
    raise exc


class ConcreteFunction(_types.ConcreteFunction):
    """One traced graph of a graft.function: its graph, inputs, outputs and captures."""

    def __init__(self, c_concrete, function, call_info, out_structure):
        self._c = c_concrete
        self._function = function
        self._call = call_info
        self._out = out_structure
        # One tensor output, returned as is (the common case, made fast).
        self._single = out_structure is not None and out_structure[0] is nest._LEAF and \
            out_structure[1][0][0] == "T"
        # Traced for tensors passed positionally, nothing else: such a call needs no flattening.
        n = len(call_info.kinds)
        self._flat_arity = n if (all(k in ("T", "S") for k in call_info.kinds) and function is not None and
                                 function._simple_arity == n and not function._follow_type_hints and
                                 call_info.treedef.key == nest.flatten_with_treedef((tuple(range(n)), {}))[1].key) \
            else None

    @property
    def name(self):
        return self._c.name()

    @property
    def graph(self):
        return _fw._wrap_graph(self._c.graph())

    @property
    def inputs(self):
        g = self.graph
        return [_fw._graph_tensor(g, o) for o in self._c.inputs()] + \
            [_fw._graph_tensor(g, o) for o in self._c.captured_placeholders()]

    @property
    def outputs(self):
        g = self.graph
        return [_fw._graph_tensor(g, o) for o in self._c.outputs()]

    @property
    def captured_inputs(self):
        return [EagerTensor(v) for v in self._c.captured_values(_fw._context)]

    @property
    def structured_input_signature(self):
        leaves, ti = [], 0
        ins = self._c.inputs()
        for kind, leaf in zip(self._call.kinds, self._leaves()):
            if kind == "P":
                leaves.append(leaf)
            else:
                o = ins[ti]
                ti += 1
                spec = TensorSpec(_fw._shape_from_c(o.shape()), o.dtype(), o.op().name())
                leaves.append(spec)
        return nest.pack(self._call.treedef, leaves)

    def _leaves(self):
        out, pi, ti = [], 0, 0
        for kind in self._call.kinds:
            if kind == "P":
                out.append(self._call.python[pi])
                pi += 1
            else:
                out.append(self._call.tensors[ti])
                ti += 1
        return out

    @property
    def structured_outputs(self):
        treedef, kinds = self._out
        tensors = self.outputs
        return _pack_outputs(treedef, kinds, tensors)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda t: t.shape if isinstance(t, Tensor) else None, self.structured_outputs)

    @property
    def output_dtypes(self):
        return nest.map_structure(lambda t: t.dtype if isinstance(t, Tensor) else None, self.structured_outputs)

    @property
    def function_type(self):
        args, kwargs = self.structured_input_signature
        return _FunctionType(self._function._signature, args, kwargs, self.structured_outputs)

    @property
    def variables(self):
        return []

    @property
    def inference_fn(self):
        """The function run for a call (in Graft the concrete function itself)."""
        return self

    @property
    def function_def(self):
        return self._c.function_def()

    def pretty_printed_signature(self, verbose=True):
        args, kwargs = self.structured_input_signature
        params = ", ".join(f"{n}: {a!r}" for n, a in zip(self._function._param_names(), args))
        return f"Input Parameters:\n  {params}\nOutput Type:\n  {self.structured_outputs!r}"

    def __call__(self, *args, **kwargs):
        # Fast path: eager tensors only, positionally, as traced, outside graph mode.
        if not kwargs and len(args) == self._flat_arity and not _fw._tls.graph_stack and _eager_enabled[0]:
            values = _eager_values(args)
            if values is not None:
                try:
                    out = _c.concrete_function_call(self._c, _fw._context, values)
                except errors.OpError as e:
                    _raise_pending(e)
                if self._single:
                    return _fw._eager(out[0])
                return _wrap_outputs(self._out, out)
        args, kwargs = self._function._canonicalize(args, kwargs)
        flat = nest.flatten((args, kwargs))
        tensors = [x for x in flat if _leaf_kind(x) is not None]
        if len(tensors) != len(self._call.tensors):
            raise TypeError(f"{self.name} takes {len(self._call.tensors)} tensor arguments, got {len(tensors)}")
        if _fw._graph_mode_graph() is not None and not _fw._context.is_tracing():
            return self._function._call_concrete_in_graph(self, tensors)
        values = [_value_of(t if not isinstance(t, (int, float)) else convert_to_tensor(t)) for t in tensors]
        try:
            out = _c.concrete_function_call(self._c, _fw._context, values)
        except errors.OpError as e:
            _raise_pending(e)
        return _wrap_outputs(self._out, out)

    def add_to_graph(self, g=None):
        g = g if g is not None else _fw.get_default_graph()
        self._c.add_to_graph(g._c)

    def __repr__(self):
        return f"<ConcreteFunction {self._function._name} at {id(self):#x}>"


class _FunctionType:
    """What a concrete function takes and returns (its parameters with their specs)."""

    def __init__(self, signature, args, kwargs, outputs):
        self.parameters = dict(zip(signature.parameters.keys() if signature else [], args))
        self.output = outputs

    def __repr__(self):
        params = ", ".join(f"{k}: {v!r}" for k, v in self.parameters.items())
        return f"({params}) -> {self.output!r}"


def _pack_outputs(treedef, kinds, tensors):
    leaves, ti = [], 0
    for kind, value in kinds:
        if kind == "T":
            leaves.append(tensors[ti])
            ti += 1
        else:
            leaves.append(value)
    return nest.pack_leaves(treedef, leaves)


def _wrap_outputs(out_structure, values):
    if values and values[0].is_symbolic():
        tensors = [_fw._symbolic(v) for v in values]
    else:
        tensors = [_fw._eager(v) for v in values]
    return _structure_outputs(out_structure, tensors)


def _structure_outputs(out_structure, tensors):
    if out_structure is None:
        return tensors[0] if len(tensors) == 1 else tensors
    treedef, kinds = out_structure
    if treedef is nest._LEAF:
        return tensors[0] if kinds[0][0] == "T" else kinds[0][1]
    return _pack_outputs(treedef, kinds, tensors)


class Function(_types.GenericFunction):
    """A polymorphic traced function (graft.function): one concrete function per call signature."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True, reduce_retracing=False,
                 jit_compile=None, experimental_relax_shapes=None, **unused):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._converted = None  # what traces call: the AutoGraph-converted function (made once)
        self._reduce_retracing = bool(reduce_retracing or experimental_relax_shapes)
        # jit_compile=True asks for compiled, fused kernels: Graft's executor fuses every traced
        # function (Conv2D/MatMul + BiasAdd + activation, elementwise chains; issue #21), so the
        # flag is accepted and needs nothing more (TensorFlow raises when it has no XLA).
        self._jit_compile = jit_compile
        self._follow_type_hints = bool(unused.get("experimental_follow_type_hints"))
        self._lock = threading.RLock()
        self._by_key = {}  # structure key -> (C function, _TraceBody, _Call)
        self._concrete = {}  # C concrete function id -> ConcreteFunction
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        params = list(self._signature.parameters.values()) if self._signature else []
        self._simple_arity = None
        if params and all(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params):
            self._simple_arity = len(params)
        elif not params and self._signature is not None:
            self._simple_arity = 0
        if input_signature is not None:
            input_signature = tuple(input_signature)
            for spec in nest.flatten(input_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, "
                                    f"got {spec!r}")
        self._input_signature = input_signature
        # A method with an input_signature (def __call__(self, x) with one spec): one required
        # positional parameter more than the signature has entries. Its first argument is the
        # instance, a trace-time constant outside the signature, as TensorFlow binds it.
        required = [p for p in params if p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
        self._method = input_signature is not None and len(required) == len(input_signature) + 1
        # Calls with eager tensors only: arity -> C function entry (None with an input signature).
        self._fast = {} if input_signature is None else None
        functools.update_wrapper(self, python_function, updated=())

    @property
    def python_function(self):
        return self._python_function

    def _traced_callable(self):
        fn = self._converted
        if fn is None:
            fn = self._python_function
            if self._autograph:
                from graft.autograph import conversion
                fn = conversion.convert_callable(fn)
            self._converted = fn
        return fn

    @property
    def input_signature(self):
        return self._input_signature

    def _param_names(self):
        return list(self._signature.parameters.keys()) if self._signature else []

    def _canonicalize(self, args, kwargs):
        """Positional arguments with defaults filled in (keyword-only ones stay keywords)."""
        if not kwargs and self._simple_arity == len(args) and not self._follow_type_hints:
            return args, {}
        if self._signature is None:
            return args, kwargs
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e}") from None
        bound.apply_defaults()
        if self._follow_type_hints:
            # Arguments annotated graft.Tensor become tensors (Python values then share a trace).
            for name, param in self._signature.parameters.items():
                if param.annotation is Tensor and name in bound.arguments and \
                        not isinstance(bound.arguments[name], Tensor):
                    bound.arguments[name] = convert_to_tensor(bound.arguments[name])
        return tuple(bound.args), dict(bound.kwargs)

    def _entry(self, call):
        entry = self._by_key.get(call.key)
        if entry is None:
            with self._lock:
                entry = self._by_key.get(call.key)
                if entry is None:
                    call = call.metadata_only()
                    body = _TraceBody(self, call)
                    specs = []
                    has_sig = self._input_signature is not None
                    if has_sig:
                        specs = [s._to_c() for s in nest.flatten(self._input_signature)]
                    c_fn = _c.Function(self._name, body, specs, has_sig, self._reduce_retracing)
                    entry = (c_fn, body, call)
                    self._by_key[call.key] = entry
        return entry

    def _call_info(self, args, kwargs):
        if self._input_signature is not None:
            flat = nest.flatten(self._input_signature)
            instance = ()
            if self._method and args:
                instance, args = args[:1], args[1:]  # a trace-time constant, as without a signature
            given = nest.flatten((args, kwargs))
            if len(given) != len(flat):
                raise TypeError(f"{self._name}: the input_signature has {len(flat)} tensors, the call has "
                                f"{len(given)} arguments")
            converted = []
            for i, (spec, x) in enumerate(zip(flat, given)):
                if isinstance(x, TensorSpec):
                    converted.append(x)
                    continue
                if not isinstance(x, Tensor):
                    try:
                        x = convert_to_tensor(x, dtype=spec.dtype)
                    except (TypeError, ValueError) as e:
                        raise TypeError(f"{self._name}: argument {i} ({x!r}) does not match the input_signature "
                                        f"{spec}: {e}") from None
                if not spec.is_compatible_with(x):
                    raise TypeError(f"{self._name}: argument {i} of dtype {x.dtype.name} and shape {x.shape} does "
                                    f"not match the input_signature {spec}")
                converted.append(x)
            sig_args = tuple(converted)
            return _Call((instance + sig_args, {}))
        return _Call((args, kwargs))

    def _new_concrete(self, entry, values, key):
        arglist = _c.ArgList()
        for v in values:
            arglist.add_value(v)
        concrete = ConcreteFunction(entry[0].get_concrete(_fw._context, arglist), self, entry[2],
                                    entry[1].out_structure)
        self._concrete[key] = concrete
        return concrete

    def _concrete_for(self, call):
        c_fn, body, first = self._entry(call)
        ctx = _fw._context
        try:
            if any(kind == "S" for kind in call.kinds):
                specs = [s._to_c() if isinstance(s, TensorSpec) else TensorSpec.from_tensor(
                    s if isinstance(s, Tensor) else convert_to_tensor(s))._to_c() for s in call.tensors]
                cf = c_fn.get_concrete_for_specs(ctx, specs)
            else:
                arglist = _c.ArgList()
                for t in call.tensors:
                    arglist.add_value(_value_of(t))
                cf = c_fn.get_concrete(ctx, arglist)
        except errors.OpError as e:
            _raise_pending(e)
        key = cf.id()
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = ConcreteFunction(cf, self, first, body.out_structure)
            self._concrete[key] = concrete
        return concrete

    def __call__(self, *args, **kwargs):
        # Fast path: eager tensors only, positionally, outside graph mode: one crossing into C++
        # finds (tracing on a miss) and runs the concrete function.
        if not kwargs and len(args) == self._simple_arity and self._fast is not None and \
                not _fw._tls.graph_stack and _eager_enabled[0]:
            entry = self._fast.get(len(args))
            if entry is None and _eager_values(args) is not None:
                entry = self._fast[len(args)] = self._entry(_Call((args, {})))
            if entry is not None:
                try:
                    # None unless every argument is an EagerTensor
                    result = _function_call_tensors(entry[0], _fw._context, args, EagerTensor, Tensor)
                except errors.OpError as e:
                    _raise_pending(e)
                if result is not None:
                    key, tensors = result
                    concrete = self._concrete.get(key)
                    if concrete is None:
                        concrete = self._new_concrete(entry, _eager_values(args), key)
                    if concrete._single:
                        return tensors[0]
                    return _structure_outputs(concrete._out, tensors)
        args, kwargs = self._canonicalize(args, kwargs)
        call = self._call_info(args, kwargs)
        if _fw._graph_mode_graph() is not None and not _fw._context.is_tracing():
            return self._call_in_graph(call)
        concrete = self._concrete_for(call)
        values = [_value_of(t) for t in call.tensors]
        try:
            out = _c.concrete_function_call(concrete._c, _fw._context, values)
        except errors.OpError as e:
            _raise_pending(e)
        return _wrap_outputs(concrete._out, out)

    def _call_in_graph(self, call):
        """Calling from graph mode: a PartitionedCall op of the default graph."""
        g = _fw._graph_mode_graph()
        specs = []
        for t in call.tensors:
            t = t if isinstance(t, Tensor) else convert_to_tensor(t)
            specs.append(TensorSpec(t.shape, t.dtype))
        call.kinds = ["S" if k == "T" else k for k in call.kinds]
        graph_tensors = call.tensors
        call.tensors = specs
        concrete = self._concrete_for(call)
        return self._call_concrete_in_graph(concrete, graph_tensors)

    def _call_concrete_in_graph(self, concrete, graph_tensors):
        g = _fw._graph_mode_graph()
        concrete._c.add_to_graph(g._c)
        captured = concrete.captured_inputs
        inputs = [_fw.convert_to_tensor(t) for t in graph_tensors] + \
            [_fw.constant_in_graph(g, c.numpy(), c.dtype) for c in captured]
        out_types = [o.dtype for o in concrete.outputs]
        outs = _fw.apply_op("StatefulPartitionedCall", [inputs],
                            {"Tin": [t.dtype for t in inputs], "Tout": out_types, "f": _fw._Func(concrete.name)})
        tensors = outs if isinstance(outs, list) else []
        treedef, kinds = concrete._out
        return _pack_outputs(treedef, kinds, tensors)

    def get_concrete_function(self, *args, **kwargs):
        """The concrete function for these arguments (tensors, TensorSpecs or Python values),
        traced if needed; with no arguments, the input_signature's."""
        if not args and not kwargs and self._input_signature is not None:
            if self._method:
                raise TypeError(f"{self._name} is a method: call get_concrete_function() on an instance "
                                f"(obj.{self._name}.get_concrete_function())")
            args = self._input_signature
        else:
            args, kwargs = self._canonicalize(args, kwargs)
        call = self._call_info(args, kwargs)
        return self._concrete_for(call)

    def experimental_get_tracing_count(self):
        return sum(entry[0].tracing_count() for entry in list(self._by_key.values()))

    def __get__(self, instance, owner):
        if instance is None:
            return self
        bound = _bound_functions.get((id(self), id(instance)))
        if bound is None or bound._instance() is not instance:
            bound = _BoundFunction(self, instance)
            _bound_functions[(id(self), id(instance))] = bound
        return bound

    def __repr__(self):
        return f"<graft.function {self._name}>"


_bound_functions = weakref.WeakValueDictionary()


class _BoundFunction:
    """A graft.function method bound to an instance (the instance is a trace-time constant)."""

    def __init__(self, function, instance):
        self._function = function
        self._instance = weakref.ref(instance)

    def __call__(self, *args, **kwargs):
        return self._function(self._instance(), *args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        if not args and not kwargs and self._function._input_signature is not None:
            args = tuple(self._function._input_signature)  # the signature's, after the instance
        return self._function.get_concrete_function(self._instance(), *args, **kwargs)

    def experimental_get_tracing_count(self):
        return self._function.experimental_get_tracing_count()

    @property
    def python_function(self):
        return self._function.python_function


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_relax_shapes=None, name=None, experimental_follow_type_hints=None, **kwargs):
    """graft.function: as a decorator (with or without arguments) or called on a function."""
    def decorate(f):
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, experimental_relax_shapes=experimental_relax_shapes,
                        jit_compile=jit_compile, experimental_follow_type_hints=experimental_follow_type_hints)
    if func is not None:
        return decorate(func)
    return decorate
