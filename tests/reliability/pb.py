"""A tiny protobuf wire-format encoder for TensorFlow's GraphDef and the messages it holds.

Field numbers follow TensorFlow's .proto files (tensorflow/core/framework/{graph,node_def,
attr_value,tensor,tensor_shape,function,op_def,versions}.proto). Every function returns the
encoded bytes of one message, so messages nest by plain concatenation. Nothing is validated:
the point is to write malformed graphs as easily as well-formed ones.
"""

import struct

# DataType (types.proto).
FLOAT, DOUBLE, INT32, UINT8, INT16, INT8, STRING, COMPLEX64, INT64, BOOL = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
BFLOAT16, UINT16, COMPLEX128, HALF, RESOURCE, VARIANT, UINT32, UINT64 = 14, 17, 18, 19, 20, 21, 22, 23

# Wire types.
VARINT, I64, LEN, I32 = 0, 1, 2, 5


def varint(n):
    """Base-128 varint; negative numbers as their 64-bit two's complement (10 bytes)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, VARINT) + varint(int(v))


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode("utf-8")
    return key(field, LEN) + varint(len(b)) + b


def f_float(field, v):
    return key(field, I32) + struct.pack("<f", v)


def f_double(field, v):
    return key(field, I64) + struct.pack("<d", v)


def f_packed(field, values, fmt=None):
    """A packed repeated field: varints, or fixed-size values of struct format fmt."""
    body = b"".join(struct.pack("<" + fmt, v) for v in values) if fmt else b"".join(varint(int(v)) for v in values)
    return f_bytes(field, body)


def _map(field, items, value_fn):
    """A map field: one entry message {1: key, 2: value} per item (sorted, for determinism)."""
    return b"".join(f_bytes(field, f_bytes(1, k) + f_bytes(2, value_fn(v))) for k, v in sorted(items.items()))


# TensorShapeProto: 2 dim {1 size, 2 name}, 3 unknown_rank.
def shape(dims=(), unknown_rank=False):
    if dims is None:
        return f_int(3, 1)
    return b"".join(f_bytes(2, f_int(1, d)) for d in dims) + (f_int(3, 1) if unknown_rank else b"")


# TensorProto.
_VAL_FIELDS = {  # dtype -> (field, struct format or None for varints)
    FLOAT: (5, "f"), DOUBLE: (6, "d"), INT32: (7, None), UINT8: (7, None), INT16: (7, None),
    INT8: (7, None), UINT16: (7, None), INT64: (10, None), BOOL: (11, None), HALF: (13, None),
    BFLOAT16: (13, None), UINT32: (16, None), UINT64: (17, None), COMPLEX64: (9, "f"), COMPLEX128: (12, "d"),
}


def tensor(dtype, dims=(), values=None, content=None, strings=None, val_field=None):
    """A TensorProto: values in the dtype's *_val field (or val_field), raw tensor_content, or
    string_val entries. dims None means no shape field at all."""
    out = f_int(1, dtype)
    if dims is not None:
        out += f_bytes(2, shape(dims))
    if content is not None:
        out += f_bytes(4, content)
    if strings is not None:
        out += b"".join(f_bytes(8, s) for s in strings)
    if values is not None:
        field, fmt = val_field or _VAL_FIELDS[dtype]
        out += f_packed(field, values, fmt)
    return out


# AttrValue: 1 list, 2 s, 3 i, 4 f, 5 b, 6 type, 7 shape, 8 tensor, 9 placeholder, 10 func.
def a_s(v):
    return f_bytes(2, v)


def a_i(v):
    return f_int(3, v)


def a_f(v):
    return f_float(4, v)


def a_b(v):
    return f_int(5, 1 if v else 0)


def a_type(t):
    return f_int(6, t)


def a_shape(dims=(), unknown_rank=False):
    return f_bytes(7, shape(dims, unknown_rank))


def a_tensor(t):
    return f_bytes(8, t)


def a_placeholder(name):
    return f_bytes(9, name)


def a_func(name, attrs=None):
    return f_bytes(10, name_attr_list(name, attrs))


def a_list(s=(), i=(), f=(), types=(), shapes=(), funcs=()):
    """AttrValue.ListValue (an empty list is still written: a zero-length field 1)."""
    body = b"".join(f_bytes(2, x) for x in s)
    body += f_packed(3, i) if i else b""
    body += f_packed(4, f, "f") if f else b""
    body += f_packed(6, types) if types else b""
    body += b"".join(f_bytes(7, shape(d)) for d in shapes)
    body += b"".join(f_bytes(9, name_attr_list(n)) for n in funcs)
    return f_bytes(1, body)


def name_attr_list(name, attrs=None):
    return f_bytes(1, name) + _map(2, attrs or {}, lambda v: v)


# NodeDef: 1 name, 2 op, 3 input, 4 device, 5 attr.
def node(name, op, inputs=(), attrs=None, device=""):
    out = f_bytes(1, name) + f_bytes(2, op) + b"".join(f_bytes(3, i) for i in inputs)
    if device:
        out += f_bytes(4, device)
    return out + _map(5, attrs or {}, lambda v: v)


# OpDef.ArgDef: 1 name, 3 type, 4 type_attr; OpDef: 1 name, 2 input_arg, 3 output_arg, 4 attr.
def arg_def(name, dtype=None, type_attr=None):
    out = f_bytes(1, name)
    if dtype is not None:
        out += f_int(3, dtype)
    if type_attr is not None:
        out += f_bytes(4, type_attr)
    return out


def op_def(name, inputs=(), outputs=(), attrs=()):
    """inputs/outputs: (name, dtype) pairs; attrs: (name, type string) pairs."""
    out = f_bytes(1, name)
    out += b"".join(f_bytes(2, arg_def(n, t)) for n, t in inputs)
    out += b"".join(f_bytes(3, arg_def(n, t)) for n, t in outputs)
    out += b"".join(f_bytes(4, f_bytes(1, n) + f_bytes(2, t)) for n, t in attrs)
    return out


# FunctionDef: 1 signature, 3 node_def, 4 ret, 5 attr.
def function(name, inputs=(), outputs=(), nodes=(), ret=None, attrs=()):
    out = f_bytes(1, op_def(name, inputs, outputs, attrs))
    out += b"".join(f_bytes(3, n) for n in nodes)
    return out + _map(4, ret or {}, lambda v: v.encode("utf-8"))


# FunctionDefLibrary: 1 function.
def library(functions):
    return b"".join(f_bytes(1, f) for f in functions)


# GraphDef: 1 node, 2 library, 4 versions {1 producer, 2 min_consumer}.
def graph(nodes, functions=(), producer=1882, min_consumer=None):
    out = b"".join(f_bytes(1, n) for n in nodes)
    if functions:
        out += f_bytes(2, library(functions))
        if min_consumer is None:
            min_consumer = 12
    versions = f_int(1, producer) + (f_int(2, min_consumer) if min_consumer is not None else b"")
    return out + f_bytes(4, versions)


# Decoding, to edit the messages of existing files.
def _read_varint(data, i):
    n = shift = 0
    while True:
        b = data[i]
        n |= (b & 0x7F) << shift
        i += 1
        shift += 7
        if not b & 0x80:
            return n, i


def decode(data):
    """The fields of one message as [field, wire type, value] lists: an int for a varint,
    bytes for anything else (the payload of a length-delimited field)."""
    fields, i = [], 0
    while i < len(data):
        k, i = _read_varint(data, i)
        field, wire = k >> 3, k & 7
        if wire == VARINT:
            v, i = _read_varint(data, i)
        elif wire == LEN:
            n, i = _read_varint(data, i)
            v, i = data[i:i + n], i + n
        elif wire in (I64, I32):
            n = 8 if wire == I64 else 4
            v, i = data[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wire)
        fields.append([field, wire, v])
    return fields


def encode(fields):
    out = b""
    for field, wire, v in fields:
        out += f_int(field, v) if wire == VARINT else f_bytes(field, v) if wire == LEN else key(field, wire) + v
    return out


def rewrite(data, path, change):
    """data with the sub-messages at path changed: path is a list of field numbers (every
    occurrence) or (field, k) pairs (the k-th occurrence only); change(fields) edits the decoded
    fields of each message reached, in place."""
    fields = decode(data)
    if not path:
        change(fields)
        return encode(fields)
    step = path[0]
    number, only = step if isinstance(step, tuple) else (step, None)
    seen = 0
    for f in fields:
        if f[0] == number and f[1] == LEN:
            if only is None or seen == only:
                f[2] = rewrite(f[2], path[1:], change)
            seen += 1
    return encode(fields)
