"""graft.saved_model: loading TensorFlow SavedModels — their signatures and, for models saved
from TensorFlow 2 objects, the saved module itself: its tracked children (modules, lists and
dicts of them), variables and tf.functions, as tf.saved_model.load restores them — and saving:
save (tf.saved_model.save: an object's signature functions with the variables they use) and
save_session (a session's graph and variables, compat.v1.saved_model.simple_save)."""
import collections
import json
import re

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft import nest
from graft.framework import EagerTensor, Tensor


class _Signature:
    """A callable signature: keyword tensors in, a dict of output tensors out."""

    def __init__(self, model, c_sig):
        self._model = model
        self._sig = c_sig
        self.name = c_sig.name
        self.method_name = c_sig.method_name
        self._inputs = {t.key: t for t in c_sig.inputs()}
        self._outputs = [t.key for t in c_sig.outputs()]

    @property
    def structured_input_signature(self):
        from graft.function import TensorSpec
        return ((), {k: TensorSpec(_fw._shape_from_c(t.shape()), t.dtype, k) for k, t in self._inputs.items()})

    @property
    def structured_outputs(self):
        from graft.function import TensorSpec
        return {t.key: TensorSpec(_fw._shape_from_c(t.shape()), t.dtype, t.key) for t in self._sig.outputs()}

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(f"signature {self.name!r} takes its inputs as keyword arguments: "
                            f"{sorted(self._inputs)}")
        missing = set(self._inputs) - set(kwargs)
        if missing:
            raise TypeError(f"signature {self.name!r} is missing inputs {sorted(missing)}")
        unknown = set(kwargs) - set(self._inputs)
        if unknown:
            raise TypeError(f"signature {self.name!r} got unexpected inputs {sorted(unknown)}; it takes "
                            f"{sorted(self._inputs)}")
        keys, tensors = [], []
        for key, value in kwargs.items():
            dtype = _dtypes.as_dtype(self._inputs[key].dtype)
            if isinstance(value, EagerTensor):
                if value.dtype != dtype:
                    raise TypeError(f"input {key!r} of signature {self.name!r} must be {dtype.name}, got "
                                    f"{value.dtype.name}")
                tensors.append(value._value.to_tensor())
            else:
                tensors.append(_fw._host_c_tensor(value, dtype))
            keys.append(key)
        outs = _c.saved_model_run(self._model._c, self.name, keys, tensors, self._outputs)
        return {k: EagerTensor(_fw._context.from_tensor(t)) for k, t in zip(self._outputs, outs)}

    def __repr__(self):
        return f"<graft.saved_model signature {self.name!r}>"


# The values of graft_saved_object_kind (graft/saved_model.h).
_USER, _VARIABLE, _FUNCTION, _CONCRETE_FUNCTION, _ASSET, _CONSTANT, _RESOURCE, _OTHER, _LIST, _DICT, _TUPLE = range(11)


class _RestoredObject:
    """A tracked object of the saved module: its children are attributes; calling it calls its
    restored `__call__` function when it has one (a Keras layer, a module with __call__)."""

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError(f"{self!r} is not callable (it was saved without a __call__ tf.function)")
        return fn(*args, **kwargs)

    def __repr__(self):
        names = sorted(k for k in self.__dict__ if not k.startswith("_graft"))
        return f"<graft restored object with {names}>"


class RestoredVariable:
    """A variable of the saved module; its value is the model's current one (functions that
    update it are seen here)."""

    def __init__(self, model, path):
        self._model = model
        self._path = path
        self._spec = None

    def read_value(self):
        return EagerTensor(_fw._context.from_tensor(self._model._c.read_variable(self._path)))

    value = read_value

    def numpy(self):
        return self.read_value().numpy()

    def __array__(self, dtype=None, copy=None):
        v = self.numpy()
        return v if dtype is None else v.astype(dtype)

    @property
    def dtype(self):
        return self.read_value().dtype

    @property
    def shape(self):
        return self.read_value().shape

    def __repr__(self):
        v = self.read_value()
        return f"<graft restored Variable '{self._path}' shape={v.shape} dtype={v.dtype.name}, numpy={v.numpy()!r}>"


class RestoredAsset:
    """An asset file of the saved module: asset_path is where it is in the SavedModel."""

    def __init__(self, path):
        self.asset_path = path

    def __repr__(self):
        return f"<graft restored Asset {self.asset_path!r}>"


class _NoMatch(Exception):
    pass


def _leaf_value(node):
    """The Python value of a non-tensor leaf of a structure."""
    if "none" in node:
        return None
    for key, conv in (("bool", bool), ("int", int), ("float", float), ("string", str)):
        if key in node:
            return conv(node[key])
    raise _NoMatch


def _as_input(value, spec, convert):
    """value as a graft_swig.Tensor matching spec (a {"tensor": ...} node), or _NoMatch."""
    dtype = _dtypes.as_dtype(spec["dtype"])
    if isinstance(value, EagerTensor):
        if value.dtype != dtype:
            raise _NoMatch
        t = value._value.to_tensor()
    elif isinstance(value, Tensor):
        raise TypeError("a function restored from a SavedModel is called eagerly: symbolic tensors cannot be passed "
                        "to it (calling it inside graft.function is not supported yet)")
    elif isinstance(value, (np.ndarray, np.generic)):
        if np.asarray(value).dtype != dtype.as_numpy_dtype and not convert:
            raise _NoMatch
        t = _fw._host_c_tensor(value, dtype)
    elif convert and isinstance(value, (bool, int, float, list, tuple)):
        # A Python value converts as graft.constant would (floats to float32, ints to int32).
        converted = _fw.convert_to_tensor(value)
        if converted.dtype != dtype:
            raise _NoMatch
        t = converted._value.to_tensor()
    else:
        raise _NoMatch
    shape = spec["shape"]
    if shape is not None:
        dims = list(t.shape())
        if len(dims) != len(shape) or any(w >= 0 and d != w for d, w in zip(dims, shape)):
            raise _NoMatch
    return t


def _flatten_into(node, value, flat, convert):
    if "tensor" in node:
        flat[node["tensor"]] = _as_input(value, node, convert)
    elif "tuple" in node or "list" in node:
        items = node.get("tuple", node.get("list"))
        if not isinstance(value, (tuple, list)) or len(value) != len(items):
            raise _NoMatch
        for n, v in zip(items, value):
            _flatten_into(n, v, flat, convert)
    elif "dict" in node:
        if not isinstance(value, dict) or set(value) != set(node["dict"]):
            raise _NoMatch
        for k, n in node["dict"].items():
            _flatten_into(n, value[k], flat, convert)
    elif "namedtuple" in node:
        if not isinstance(value, tuple) or len(value) != len(node["fields"]):
            raise _NoMatch
        for (_, n), v in zip(node["fields"], value):
            _flatten_into(n, v, flat, convert)
    else:
        try:
            same = _leaf_value(node) == value
        except _NoMatch:
            raise
        if not same:
            raise _NoMatch


def _rebuild(node, flat):
    if "tensor" in node:
        return flat[node["tensor"]]
    if "tuple" in node:
        return tuple(_rebuild(n, flat) for n in node["tuple"])
    if "list" in node:
        return [_rebuild(n, flat) for n in node["list"]]
    if "dict" in node:
        return {k: _rebuild(n, flat) for k, n in node["dict"].items()}
    if "namedtuple" in node:
        cls = collections.namedtuple(node["namedtuple"] or "NamedTuple", [k for k, _ in node["fields"]])
        return cls(*[_rebuild(n, flat) for _, n in node["fields"]])
    return _leaf_value(node)


class RestoredConcreteFunction:
    """One traced concrete function of a restored tf.function: called with arguments of its
    input signature, it returns its outputs in their saved structure."""

    def __init__(self, model, c_sig):
        self._model = model
        self.name = c_sig.name
        self._keys = [t.key for t in c_sig.inputs()]
        self._out_keys = [t.key for t in c_sig.outputs()]
        ins = json.loads(c_sig.input_structure)
        self._structure = ins["structure"]
        self._arg_names = ins.get("arg_names", [])
        self._outputs = json.loads(c_sig.output_structure)["structure"]
        self._num_inputs = len(_tensor_nodes(self._structure))

    @property
    def structured_input_signature(self):
        return _rebuild(self._structure, [_spec(n) for n in _tensor_nodes(self._structure)])

    @property
    def structured_outputs(self):
        return _rebuild(self._outputs, [_spec(n) for n in _tensor_nodes(self._outputs)])

    def _bind(self, args, kwargs, convert):
        """The flat input tensors for args/kwargs, or _NoMatch."""
        top = self._structure.get("tuple")
        if top is None or len(top) != 2 or "tuple" not in top[0] or "dict" not in top[1]:
            raise _NoMatch
        params, kw_params = top[0]["tuple"], top[1]["dict"]
        if len(args) > len(params):
            raise _NoMatch
        kwargs = dict(kwargs)
        positional = list(args)
        for i in range(len(args), len(params)):
            name = self._arg_names[i] if i < len(self._arg_names) else None
            if name is not None and name in kwargs:
                positional.append(kwargs.pop(name))
            elif "tensor" not in params[i] and not any(k in params[i] for k in ("tuple", "list", "dict", "namedtuple")):
                positional.append(_leaf_value(params[i]))  # a Python default the trace used
            else:
                raise _NoMatch
        flat = [None] * self._num_inputs
        _flatten_into({"tuple": params}, tuple(positional), flat, convert)
        _flatten_into({"dict": kw_params}, kwargs, flat, convert)
        return flat

    def _run(self, flat):
        if any(t is None for t in flat):
            raise _NoMatch
        if len(flat) != len(self._keys):
            # A function Graft cannot call lists no inputs; running it reports why before it
            # looks at any key.
            self._model._c.run(self.name, [], [], ["output_0"])
        outs = _c.saved_model_run(self._model._c, self.name, self._keys, flat, self._out_keys)
        values = [EagerTensor(_fw._context.from_tensor(t)) for t in outs]
        return _rebuild(self._outputs, values)

    def __call__(self, *args, **kwargs):
        for convert in (False, True):
            try:
                flat = self._bind(args, kwargs, convert)
            except _NoMatch:
                continue
            return self._run(flat)
        raise TypeError(f"concrete function {self.name!r} cannot be called with {_describe(args, kwargs)}; it "
                        f"takes {self.structured_input_signature}")

    def __repr__(self):
        return f"<graft restored ConcreteFunction {self.name!r} inputs={self.structured_input_signature}>"


def _tensor_nodes(node):
    out = []

    def walk(n):
        if "tensor" in n:
            out.append(n)
        for key in ("tuple", "list"):
            for c in n.get(key, ()):
                walk(c)
        for c in n.get("dict", {}).values():
            walk(c)
        for _, c in n.get("fields", ()):
            walk(c)
    walk(node)
    out.sort(key=lambda n: n["tensor"])
    return out


def _spec(node):
    from graft.function import TensorSpec
    shape = None if node["shape"] is None else [None if d < 0 else d for d in node["shape"]]
    return TensorSpec(shape, _dtypes.as_dtype(node["dtype"]), node["name"] or None)


def _describe(args, kwargs):
    def one(v):
        if isinstance(v, Tensor):
            return f"Tensor(shape={v.shape}, dtype={v.dtype.name})"
        return repr(v)
    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


class RestoredFunction:
    """A tf.function of the saved module: its saved concrete functions (one per input signature
    it was traced with); a call runs the first one its arguments match, as TensorFlow does."""

    def __init__(self, model, path):
        self._path = path
        self.concrete_functions = [RestoredConcreteFunction(model, s) for s in model._c.functions(path)]

    def __call__(self, *args, **kwargs):
        for convert in (False, True):
            for cf in self.concrete_functions:
                try:
                    flat = cf._bind(args, kwargs, convert)
                except _NoMatch:
                    continue
                return cf._run(flat)
        options = "\n".join(f"  Option {i + 1}: {cf.structured_input_signature}"
                            for i, cf in enumerate(self.concrete_functions))
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel "
                         f"('{self._path}'). Got: {_describe(args, kwargs)}. Expected these arguments to match "
                         f"one of the following {len(self.concrete_functions)} option(s):\n{options}")

    def get_concrete_function(self, *args, **kwargs):
        for convert in (False, True):
            for cf in self.concrete_functions:
                try:
                    cf._bind(args, kwargs, convert)
                except _NoMatch:
                    continue
                return cf
        raise ValueError(f"no concrete function of '{self._path}' matches {_describe(args, kwargs)}")

    def __repr__(self):
        return f"<graft restored function '{self._path}' with {len(self.concrete_functions)} concrete function(s)>"


class LoadedModel(_RestoredObject):
    """A loaded SavedModel: .signatures maps names to callables; .graph and .session expose it.
    A model saved from TensorFlow 2 objects is also the saved root object: its tracked children,
    variables and tf.functions are attributes (lists and dicts of tracked objects are Python
    lists and dicts), as tf.saved_model.load gives them."""

    def __init__(self, path, tags):
        self._c = _c.SavedModel(str(path), list(tags))
        self.signatures = {s.name: _Signature(self, s) for s in self._c.signatures()}
        self.tensorflow_version = None
        try:
            self._c.object_kind("")
        except errors.NotFoundError:
            return  # a TensorFlow 1 model: no object graph
        restored = {0: self}
        for name in self._c.object_children(""):
            if name == "signatures":
                continue  # the SignatureDefs above
            value = self._restore(name, restored)
            if value is not None:
                setattr(self, name, value)

    def _restore(self, path, restored):
        oid = self._c.object_id(path)
        if oid in restored:
            return restored[oid]
        kind = self._c.object_kind(path)
        if kind == _VARIABLE:
            value = RestoredVariable(self, path)
        elif kind in (_FUNCTION, _CONCRETE_FUNCTION):
            value = RestoredFunction(self, path)
            if kind == _CONCRETE_FUNCTION and len(value.concrete_functions) == 1:
                value = value.concrete_functions[0]
        elif kind == _ASSET:
            value = RestoredAsset(self._c.asset_path(path))
        elif kind in (_LIST, _TUPLE):
            value = []
            restored[oid] = value
            value.extend(self._restore(f"{path}.{n}", restored) for n in self._c.object_children(path))
            if kind == _TUPLE:
                value = tuple(value)
        elif kind == _DICT:
            value = {}
            restored[oid] = value
            for n in self._c.object_children(path):
                value[n] = self._restore(f"{path}.{n}", restored)
        elif kind in (_USER, _RESOURCE):
            value = _RestoredObject()  # a resource (a lookup table) shows its functions
            restored[oid] = value
            for n in self._c.object_children(path):
                child = self._restore(f"{path}.{n}", restored)
                if child is not None:
                    value.__dict__[n] = child
        else:
            value = None  # constants are only what functions capture
        restored[oid] = value
        return value

    @property
    def graph(self):
        return _fw._wrap_graph(self._c.graph())

    @property
    def session(self):
        """The model's session (its variables restored), to run any tensor of .graph:
        model.session.run(model.graph.get_tensor_by_name("dense/BiasAdd:0"), {...}).
        Closing it closes this wrapper only; the model keeps its session."""
        if getattr(self, "_session", None) is None or self._session._closed:
            from graft import session as _session
            self._session = _session.Session._from_c(self._c.session(), self.graph)
        return self._session

    def __repr__(self):
        return f"<graft LoadedModel signatures={sorted(self.signatures)}>"


def load(export_dir, tags=None, options=None):
    """Loads the SavedModel in export_dir (the MetaGraph tagged `tags`, "serve" by default)."""
    if tags is None:
        tags = []
    elif isinstance(tags, str):
        tags = [tags]
    return LoadedModel(export_dir, tags)


def save(obj, export_dir, signatures=None, options=None):
    """tf.saved_model.save: writes signature functions of obj, with the current values of the
    variables they use, as a SavedModel in export_dir (which must not exist or be empty) that
    graft.saved_model.load and TensorFlow load and serve.

    signatures: a graft.function with an input_signature, a ConcreteFunction, or a dict of
    signature name -> either; None takes obj's one graft.function with an input_signature (as
    "serving_default"). Input keys are the TensorSpecs' names (else the parameters'); output
    keys a returned dict's keys, else output_0, output_1, ... A variable a function uses must
    be reachable from obj (an attribute, or in a list, tuple, dict or Module of them), as
    TensorFlow requires; it is saved under its name."""
    del options  # TensorFlow's SaveOptions: nothing in them applies here
    import sys

    from graft import session as _session
    from graft import variables as _variables
    from graft.compat import placeholder

    _function = sys.modules["graft.function"]  # (the package's graft.function is the decorator)
    concretes = _signature_functions(obj, signatures, _function)
    tracked, seen = [], set()
    is_variable = lambda x: isinstance(x, _variables.Variable)  # noqa: E731
    _variables._collect(obj, is_variable, tracked, seen)
    if not isinstance(obj, (_variables.Module, _variables.Variable, list, tuple, dict)) and hasattr(obj, "__dict__"):
        for key in sorted(vars(obj)):  # a plain object: its attributes, as a Module's
            _variables._collect(getattr(obj, key), is_variable, tracked, seen)

    graph = _fw.Graph()
    handles = {}  # id(variable) -> its VarHandleOp's output in graph
    names = set()  # the variables' names in graph
    inits = []  # (AssignVariableOp, placeholder, value)
    sigs = {}
    with graph.as_default():
        for sig_name, concrete in concretes.items():
            specs = _flat_specs(concrete, sig_name, _function)
            inputs = {}
            args = []
            for key, spec in specs:
                if key in inputs:
                    raise ValueError(f"save: signature {sig_name!r} has two inputs named {key!r}; name the "
                                     "TensorSpecs of its input_signature apart")
                inputs[key] = placeholder(spec.dtype, spec.shape, name=f"{sig_name}_{key}")
                args.append(inputs[key])
            captured = []
            for c in concrete.captured_inputs:
                if c.dtype != _dtypes.resource:
                    captured.append(_fw.constant_in_graph(graph, c.numpy(), c.dtype))
                    continue
                var = next((v for v in tracked if v._handle.same_variable(c._value)), None)
                if var is None:
                    raise ValueError(f"save: signature {sig_name!r} ({concrete.name}) uses a variable that is not "
                                     "reachable from the object being saved; make it an attribute of the object "
                                     "(as TensorFlow requires for tracked resources)")
                if id(var) not in handles:
                    name = _variable_key(var, names)
                    h = _fw.apply_op("VarHandleOp", [], {"dtype": var.dtype, "shape": var.shape,
                                                         "shared_name": name, "container": ""}, name=name)[0]
                    p = placeholder(var.dtype, var.shape, name=f"{name}/initial_value")
                    assign = _fw.apply_op("AssignVariableOp", [h, p], {"dtype": var.dtype}, name=f"{name}/Assign")
                    handles[id(var)] = h
                    inits.append((assign, p, var.numpy()))
                captured.append(handles[id(var)])
            concrete._c.add_to_graph(graph._c)
            call_inputs = args + captured
            outs = _fw.apply_op("StatefulPartitionedCall", [call_inputs],
                                {"Tin": [t.dtype for t in call_inputs], "Tout": [o.dtype for o in concrete.outputs],
                                 "f": _fw._Func(concrete.name)}, name=f"{sig_name}_call")
            outs = outs if isinstance(outs, list) else []
            sigs[sig_name] = (inputs, _output_keys(concrete, outs, sig_name))
    with _session.Session(graph=graph) as sess:
        for assign, p, value in inits:
            sess.run(assign, {p: value})
        save_session(sess, export_dir, sigs)


def _signature_functions(obj, signatures, _function):
    """{signature name: ConcreteFunction} for save's signatures argument."""
    if signatures is None:
        found = []
        for key in sorted(dir(type(obj))):
            attr = getattr(type(obj), key, None)
            if isinstance(attr, _function.Function) and attr._input_signature is not None:
                found.append(getattr(obj, key))
        for key, attr in sorted(vars(obj).items()) if hasattr(obj, "__dict__") else []:
            if isinstance(attr, _function.Function) and attr._input_signature is not None:
                found.append(attr)
        if len(found) != 1:
            raise ValueError(f"save: {type(obj).__name__} has {len(found)} graft.functions with an input_signature; "
                             "pass signatures= (a function, a concrete function, or a dict of them by name)")
        signatures = found[0]
    if not isinstance(signatures, dict):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for name, fn in signatures.items():
        if isinstance(fn, _function.ConcreteFunction):
            out[str(name)] = fn
        elif hasattr(fn, "get_concrete_function"):
            function = getattr(fn, "_function", fn)
            if getattr(function, "_input_signature", None) is None:
                raise ValueError(f"save: signature {name!r} is a graft.function without an input_signature; give it "
                                 "one, or pass fn.get_concrete_function(specs...)")
            out[str(name)] = fn.get_concrete_function()
        else:
            raise TypeError(f"save: signature {name!r} is {fn!r}, not a graft.function or a ConcreteFunction")
    return out


def _flat_specs(concrete, sig_name, _function):
    """[(input key, TensorSpec)] of a concrete function's tensor inputs, in order."""
    specs = []
    args, kwargs = concrete.structured_input_signature
    params = [o.op.name for o in concrete.inputs[:len(concrete.inputs) - len(concrete.captured_inputs)]]
    leaves = [x for x in nest.flatten((args, kwargs)) if isinstance(x, _function.TensorSpec)]
    if len(leaves) != len(params):
        raise ValueError(f"save: signature {sig_name!r} takes Python values besides tensors; trace it with "
                         "TensorSpecs only")
    # A placeholder named for its position (args_0: a spec without a name, or a concrete
    # function traced from TensorSpecs) takes its Python parameter's name, as TensorFlow's keys.
    function = getattr(concrete, "_function", None)
    py_params = list(function._signature.parameters) if getattr(function, "_signature", None) else []
    if getattr(function, "_method", False) and py_params:
        py_params = py_params[1:]  # the instance
    if len(py_params) != len(leaves):
        py_params = params
    for spec, param, py_param in zip(leaves, params, py_params):
        auto = not spec.name or re.fullmatch(r"args_\d+(_\d+)?", spec.name) is not None
        specs.append((py_param if auto else spec.name, spec))
    return specs


def _output_keys(concrete, outs, sig_name):
    structure = concrete.structured_outputs
    if isinstance(structure, dict):
        keys = sorted(structure)  # the flattening order of a dict
    elif isinstance(structure, (list, tuple)):
        keys = [f"output_{i}" for i in range(len(structure))]
    else:
        keys = ["output_0"] if structure is not None else []
    if len(keys) != len(outs):
        raise ValueError(f"save: signature {sig_name!r} must return a tensor, or a flat list or dict of tensors")
    return dict(zip((str(k) for k in keys), outs))


def _variable_key(var, taken):
    """The variable's name without its ':0', made unique among the names in taken (added)."""
    base = var.name.split(":")[0] or "Variable"
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def save_session(session, export_dir, signatures, tags=None):
    """Writes session's graph with its variables' current values to export_dir (which must not
    exist or be empty) as a SavedModel that TensorFlow loads. signatures maps a signature name to
    (inputs, outputs), each a dict of key -> graph tensor of the session's graph; tags defaults
    to ["serve"]."""
    if tags is None:
        tags = [SERVING]
    elif isinstance(tags, str):
        tags = [tags]
    names, in_keys, in_tensors, out_keys, out_tensors = [], [], [], [], []
    for name, (inputs, outputs) in signatures.items():
        names.append(str(name))
        for keys, tensors, d in ((in_keys, in_tensors, inputs), (out_keys, out_tensors, outputs)):
            keys.append([str(k) for k in d])
            tensors.append(_c.OutputVector([_graph_tensor(t, session, name)._out() for t in d.values()]))
    if session._c is None:
        raise RuntimeError("save_session: the session is closed")
    _c.SavedModel.save(session._c, str(export_dir), list(tags), names, in_keys,
                       _c.OutputVectorVector(in_tensors), out_keys, _c.OutputVectorVector(out_tensors))


def _graph_tensor(t, session, signature):
    if not isinstance(t, Tensor) or isinstance(t, EagerTensor) or t.graph is not session.graph:
        raise ValueError(f"save_session: signature {signature!r} maps a key to {t!r}, which is not a tensor of the "
                         "session's graph")
    return t


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """tf.compat.v1.saved_model.simple_save: one "serving_default" signature, tagged "serve"."""
    save_session(session, export_dir, {DEFAULT_SERVING_SIGNATURE_DEF_KEY: (inputs, outputs)})


def contains_saved_model(export_dir):
    import os
    return os.path.exists(os.path.join(str(export_dir), "saved_model.pb"))


SERVING = "serve"
TRAINING = "train"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
