"""graft.graph_io: GraphDef values (as_graph_def / import_graph_def) without a protobuf library.

A GraphDef here holds the serialized bytes and reads the fields people inspect (nodes with
name, op, input, device; versions) with a small wire-format reader; SerializeToString() gives
the bytes, which TensorFlow's own GraphDef.ParseFromString accepts.
"""
from graft import errors
from graft import framework as _fw


def _varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf):
    """(field number, wire type, value) of a message: bytes for length-delimited, int else."""
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            value, pos = bytes(buf[pos:pos + length]), pos + length
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], "little"), pos + 4
        else:
            raise errors.DataLossError(f"GraphDef: unsupported wire type {wire}")
        yield field, wire, value


class NodeDef:
    """The readable part of a NodeDef: name, op, input, device, attr names."""

    def __init__(self, data=b""):
        self.name, self.op, self.device = "", "", ""
        self.input = []
        self.attr = {}
        self._data = bytes(data)
        for field, _, value in _fields(self._data):
            if field == 1:
                self.name = value.decode()
            elif field == 2:
                self.op = value.decode()
            elif field == 3:
                self.input.append(value.decode())
            elif field == 4:
                self.device = value.decode()
            elif field == 5:
                key = next((v for f, _, v in _fields(value) if f == 1), b"").decode()
                self.attr[key] = next((v for f, _, v in _fields(value) if f == 2), b"")

    def SerializeToString(self):  # noqa: N802 - protobuf's name
        return self._data

    def __repr__(self):
        return f"name: {self.name!r} op: {self.op!r} input: {self.input} device: {self.device!r}"


class VersionDef:
    def __init__(self, producer=0, min_consumer=0):
        self.producer, self.min_consumer = producer, min_consumer
        self.bad_consumers = []

    def __repr__(self):
        return f"producer: {self.producer} min_consumer: {self.min_consumer}"


class GraphDef:
    """A serialized GraphDef with its nodes readable (node, versions, library present)."""

    def __init__(self, data=b""):
        self._data = b""
        self.ParseFromString(data)

    def ParseFromString(self, data):  # noqa: N802
        self._data = bytes(data)
        self.node = []
        self.versions = VersionDef()
        self._library = b""
        for field, _, value in _fields(self._data):
            if field == 1:
                self.node.append(NodeDef(value))
            elif field == 2:
                self._library = value
            elif field == 4:
                for f, _, v in _fields(value):
                    if f == 1:
                        self.versions.producer = v
                    elif f == 2:
                        self.versions.min_consumer = v
        return len(self._data)

    def SerializeToString(self):  # noqa: N802
        return self._data

    def ByteSize(self):  # noqa: N802
        return len(self._data)

    @property
    def library_bytes(self):
        return self._library

    def __eq__(self, other):
        return isinstance(other, GraphDef) and other._data == self._data

    def __repr__(self):
        return "\n".join(f"node {{ {n!r} }}" for n in self.node)


def node_def_of(op):
    data = op.graph._c.export_graph_def(False, -1)
    for n in GraphDef(data).node:
        if n.name == op.name:
            return n
    return NodeDef()


def graph_def_versions(graph):
    return GraphDef(graph._c.export_graph_def(False, -1)).versions


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports graph_def (a GraphDef or its bytes) into the default graph under name ("import"
    by default); input_map maps its tensor names to tensors of the graph; returns the elements
    named in return_elements (Operations or Tensors)."""
    if isinstance(graph_def, GraphDef):
        data = graph_def.SerializeToString()
    elif isinstance(graph_def, (bytes, bytearray)):
        data = bytes(graph_def)
    elif hasattr(graph_def, "SerializeToString"):
        data = graph_def.SerializeToString()
    else:
        raise TypeError("graph_def must be a GraphDef proto.")
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if return_elements is not None and not all(isinstance(x, str) for x in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    graph = _fw.get_default_graph()
    prefix = "import" if name is None else name
    if input_map:
        node_names = {n.name for n in GraphDef(data).node}
        missing = [k for k in input_map if k.lstrip("^").split(":")[0] not in node_names]
        if missing:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: {sorted(missing)}")
    names, tensors = [], []
    for k, v in (input_map or {}).items():
        if not isinstance(v, _fw.Tensor) and not isinstance(v, _fw.Operation):
            v = _fw.convert_to_tensor(v)
        if isinstance(v, _fw.Operation):
            names.append(k if k.startswith("^") else "^" + k)
            tensors.append(v.outputs[0]._out() if v.outputs else None)
            continue
        names.append(k if ":" in k or k.startswith("^") else k + ":0")
        tensors.append(v._out())
    try:
        result = graph._c.import_graph_def(data, prefix, names, tensors, list(return_elements or []))
    except (errors.InvalidArgumentError, errors.NotFoundError, errors.AlreadyExistsError) as e:
        raise ValueError(str(e)) from None
    if return_elements is None:
        return None
    out = []
    for op, t in zip(result.ops(), result.tensors()):
        if op.valid():
            out.append(graph._wrap_op(op))
        else:
            out.append(_fw._graph_tensor(graph, t))
    return out
