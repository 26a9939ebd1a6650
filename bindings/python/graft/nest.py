"""graft.nest: flattening nested structures (lists, tuples, namedtuples, dicts) to leaves and
packing leaves back, as tf.nest does (dicts in sorted key order)."""


class TreeDef:
    """The shape of a nested structure; `key` is a string naming it (for signature keys)."""

    __slots__ = ("kind", "meta", "children", "key")

    def __init__(self, kind, meta, children, key):
        self.kind, self.meta, self.children, self.key = kind, meta, children, key


_LEAF = TreeDef("leaf", None, (), "*")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _build(x, leaves):
    if isinstance(x, list):
        children = [_build(v, leaves) for v in x]
        return TreeDef("list", None, children, "[" + ",".join(c.key for c in children) + "]")
    if _is_namedtuple(x):
        children = [_build(v, leaves) for v in x]
        return TreeDef("namedtuple", type(x), children,
                       f"{type(x).__name__}(" + ",".join(c.key for c in children) + ")")
    if isinstance(x, tuple):
        children = [_build(v, leaves) for v in x]
        return TreeDef("tuple", None, children, "(" + ",".join(c.key for c in children) + ")")
    if isinstance(x, dict):
        keys = sorted(x.keys(), key=repr) if not all(isinstance(k, str) for k in x) else sorted(x.keys())
        children = [_build(x[k], leaves) for k in keys]
        return TreeDef("dict", (type(x), keys), children,
                       "{" + ",".join(f"{k!r}:{c.key}" for k, c in zip(keys, children)) + "}")
    leaves.append(x)
    return _LEAF


def flatten_with_treedef(structure):
    leaves = []
    treedef = _build(structure, leaves)
    return leaves, treedef


def flatten(structure):
    return flatten_with_treedef(structure)[0]


def _pack(treedef, it):
    if treedef.kind == "leaf":
        return next(it)
    children = [_pack(c, it) for c in treedef.children]
    if treedef.kind == "list":
        return children
    if treedef.kind == "tuple":
        return tuple(children)
    if treedef.kind == "namedtuple":
        return treedef.meta(*children)
    cls, keys = treedef.meta
    out = cls() if cls is not dict else {}
    for k, v in zip(keys, children):
        out[k] = v
    return out


def pack_leaves(treedef, leaves):
    return _pack(treedef, iter(leaves))


def pack(treedef, leaves):
    return pack_leaves(treedef, leaves)


def pack_sequence_as(structure, flat_sequence):
    _, treedef = flatten_with_treedef(structure)
    return pack_leaves(treedef, list(flat_sequence))


def map_structure(fn, *structures):
    flats = [flatten(s) for s in structures]
    _, treedef = flatten_with_treedef(structures[0])
    return pack_leaves(treedef, [fn(*xs) for xs in zip(*flats)])


def assert_same_structure(a, b):
    if flatten_with_treedef(a)[1].key != flatten_with_treedef(b)[1].key:
        raise ValueError(f"The two structures don't have the same nested structure: {a!r} and {b!r}")


def is_nested(x):
    return isinstance(x, (list, tuple, dict))
