"""graft.saved_model: loading TensorFlow SavedModels and calling their signatures, and saving a
session's graph and variables as one (save_session, compat.v1.saved_model.simple_save)."""
import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
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
        outs = self._model._c.run(self.name, keys, tensors, self._outputs)
        return {k: EagerTensor(_fw._context.from_tensor(t)) for k, t in zip(self._outputs, outs)}

    def __repr__(self):
        return f"<graft.saved_model signature {self.name!r}>"


class LoadedModel:
    """A loaded SavedModel: .signatures maps names to callables; .graph and .session expose it."""

    def __init__(self, path, tags):
        self._c = _c.SavedModel(str(path), list(tags))
        self.signatures = {s.name: _Signature(self, s) for s in self._c.signatures()}
        self.tensorflow_version = None

    @property
    def graph(self):
        return _fw._wrap_graph(self._c.graph())

    def __repr__(self):
        return f"<graft LoadedModel signatures={sorted(self.signatures)}>"


def load(export_dir, tags=None, options=None):
    """Loads the SavedModel in export_dir (the MetaGraph tagged `tags`, "serve" by default)."""
    if tags is None:
        tags = []
    elif isinstance(tags, str):
        tags = [tags]
    return LoadedModel(export_dir, tags)


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
