"""NodeDef builders for the ops the catalogue uses: each returns the encoded NodeDef bytes
with the attrs TensorFlow's OpDef requires (T, Tidx, ...) filled in, unless overridden."""

import struct

import pb
from pb import a_i, a_type, a_tensor, a_list, a_s, a_b

_PACK = {pb.FLOAT: "f", pb.DOUBLE: "d", pb.INT32: "i", pb.INT64: "q", pb.UINT8: "B", pb.INT8: "b",
         pb.INT16: "h", pb.BOOL: "?"}


def _flat(values):
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in _flat(v)]
    return [values]


def _dims(values):
    dims = []
    while isinstance(values, (list, tuple)):
        dims.append(len(values))
        values = values[0] if values else None
    return dims


def const(name, values, dtype=pb.INT32, dims=None):
    """A Const holding values (nested lists or a scalar); dims overrides the shape (a splat when
    it has more elements than values). Strings (dtype STRING) go in string_val; more than one
    numeric value goes in tensor_content, as Python writers do."""
    flat = _flat(values)
    if dims is None:
        dims = _dims(values)
    if dtype == pb.STRING:
        t = pb.tensor(dtype, dims, strings=flat)
    elif len(flat) > 1:
        t = pb.tensor(dtype, dims, content=struct.pack("<%d%s" % (len(flat), _PACK[dtype]), *flat))
    else:
        t = pb.tensor(dtype, dims, values=flat)
    return raw_const(name, t, dtype)


def raw_const(name, tensor_proto, dtype):
    return pb.node(name, "Const", attrs={"dtype": a_type(dtype), "value": a_tensor(tensor_proto)})


def placeholder(name, dtype=pb.FLOAT, dims=None):
    attrs = {"dtype": a_type(dtype)}
    if dims is not None:
        attrs["shape"] = pb.a_shape(dims)
    return pb.node(name, "Placeholder", attrs=attrs)


def op(name, op_type, inputs=(), **attrs):
    """Any op; keyword attrs are AttrValue bytes, or Python values: int -> i, str -> s,
    bool -> b, list of int -> list(i)."""
    enc = {}
    for k, v in attrs.items():
        if isinstance(v, bytes):
            enc[k] = v
        elif isinstance(v, bool):
            enc[k] = a_b(v)
        elif isinstance(v, int):
            enc[k] = a_i(v)
        elif isinstance(v, str):
            enc[k] = a_s(v)
        elif isinstance(v, (list, tuple)):
            enc[k] = a_list(i=v)
        else:
            raise TypeError("attr %s: %r" % (k, v))
    return pb.node(name, op_type, inputs, enc)


def T(dtype):
    return a_type(dtype)


def identity(name, inp, dtype=pb.FLOAT):
    return op(name, "Identity", [inp], T=T(dtype))
