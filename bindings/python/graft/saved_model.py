"""graft.saved_model: loading TensorFlow SavedModels and calling their signatures."""
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


def contains_saved_model(export_dir):
    import os
    return os.path.exists(os.path.join(str(export_dir), "saved_model.pb"))


SERVING = "serve"
TRAINING = "train"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
