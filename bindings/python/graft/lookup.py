"""graft.lookup (tf.lookup): hash tables from keys to values — StaticHashTable filled once by an
initializer (key/value tensors or a text file such as a vocabulary), MutableHashTable with
inserts and removals. Both work eagerly, in graphs and in traced functions; the tables live in
the runtime (the HashTableV2 / MutableHashTableV2 ops and their lookup ops), shared by name."""
import itertools

from graft import dtypes as _dtypes
from graft.framework import apply_op, convert_to_tensor

_ids = itertools.count()


def _one(out):
    return out[0] if isinstance(out, list) else out


class TextFileIndex:
    """Which part of a text file's line becomes a key or value."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


class KeyValueTensorInitializer:
    """Fills a table with keys[i] -> values[i]."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self.key_dtype = self._keys.dtype
        self.value_dtype = self._values.dtype

    def initialize(self, table):
        return apply_op("LookupTableImportV2", [table.resource_handle, self._keys, self._values],
                        {"Tin": self.key_dtype, "Tout": self.value_dtype})


class TextFileInitializer:
    """Fills a table from a text file, one entry per line: a key and a value each taken from the
    whole line (TextFileIndex.WHOLE_LINE), its number (LINE_NUMBER, plus value_index_offset) or
    the index-th field split by delimiter."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"vocab_size must be > 0, got {vocab_size}")
        self._filename = filename
        self.key_dtype = _dtypes.as_dtype(key_dtype)
        self.value_dtype = _dtypes.as_dtype(value_dtype)
        self._attrs = {"key_index": int(key_index), "value_index": int(value_index),
                       "vocab_size": -1 if vocab_size is None else int(vocab_size), "delimiter": delimiter,
                       "offset": int(value_index_offset)}

    def initialize(self, table):
        filename = self._filename
        if hasattr(filename, "asset_path"):
            filename = filename.asset_path
        return apply_op("InitializeTableFromTextFileV2",
                        [table.resource_handle, convert_to_tensor(filename, dtype=_dtypes.string)], self._attrs)


class _Table:
    def __init__(self, op, key_dtype, value_dtype, default_value, name):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._default = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._name = name or op
        # A name of its own, so that two tables never share state (a graph's table op is still
        # one table for every run of that graph).
        self._handle = _one(apply_op(op, [], {"key_dtype": self._key_dtype, "value_dtype": self._value_dtype,
                                              "shared_name": f"{self._name}_{next(_ids)}"}))

    @property
    def resource_handle(self):
        return self._handle

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return self._default

    @property
    def name(self):
        return self._name

    def lookup(self, keys, name=None):
        """The value of each key (the default value for keys not in the table), in keys' shape."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        return _one(apply_op("LookupTableFindV2", [self._handle, keys, self._default],
                             {"Tin": self._key_dtype, "Tout": self._value_dtype}, name=name))

    __getitem__ = lookup

    def size(self, name=None):
        return _one(apply_op("LookupTableSizeV2", [self._handle], {}, name=name))

    def export(self, name=None):
        """(keys, values): the entries, in no particular order."""
        out = apply_op("LookupTableExportV2", [self._handle], {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                       name=name)
        return out[0], out[1]


class StaticHashTable(_Table):
    """A table filled once by initializer (KeyValueTensorInitializer or TextFileInitializer):
    eagerly at once; in a graph by the op `initializer` (run it before looking up, or through
    graft.compat.v1.tables_initializer())."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super().__init__("HashTableV2", initializer.key_dtype, initializer.value_dtype, default_value, name)
        self._initializer = initializer
        out = initializer.initialize(self)
        self.initializer = out if not isinstance(out, list) else None
        graph = getattr(self.initializer, "graph", None)
        if graph is not None:
            graph.add_to_collection(_TABLE_INITIALIZERS, self.initializer)


class MutableHashTable(_Table):
    """A table that starts empty and takes insert, remove and import."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        super().__init__("MutableHashTableV2", key_dtype, value_dtype, default_value, name)

    def insert(self, keys, values, name=None):
        return apply_op("LookupTableInsertV2", [self._handle, convert_to_tensor(keys, dtype=self._key_dtype),
                                                convert_to_tensor(values, dtype=self._value_dtype)],
                        {"Tin": self._key_dtype, "Tout": self._value_dtype}, name=name)

    def remove(self, keys, name=None):
        return apply_op("LookupTableRemoveV2", [self._handle, convert_to_tensor(keys, dtype=self._key_dtype)],
                        {"Tin": self._key_dtype}, name=name)

    def import_(self, keys, values, name=None):
        """Replaces the contents with keys[i] -> values[i]."""
        return apply_op("LookupTableImportV2", [self._handle, convert_to_tensor(keys, dtype=self._key_dtype),
                                                convert_to_tensor(values, dtype=self._value_dtype)],
                        {"Tin": self._key_dtype, "Tout": self._value_dtype}, name=name)


# The graph collection of table initializer ops (TensorFlow's GraphKeys.TABLE_INITIALIZERS).
_TABLE_INITIALIZERS = "table_initializer"


def tables_initializer(name="init_all_tables"):
    """tf.compat.v1.tables_initializer: one op running the initializers of the default graph's
    tables."""
    import graft
    return graft.group(*graft.get_default_graph().get_collection(_TABLE_INITIALIZERS), name=name)
