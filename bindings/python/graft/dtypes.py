"""graft.dtypes: DType, the element type of tensors, and its TensorFlow-named instances."""
import builtins

import numpy as np

from graft import graft_swig as _c

_REF_OFFSET = 100


class DType:
    """An element type (a TensorFlow DataType enum value), with its properties."""

    __slots__ = ("_enum",)

    def __init__(self, type_enum):
        type_enum = int(type_enum)
        if not _c.graft_dtype_is_valid(type_enum):
            raise TypeError(f"{type_enum} is not a valid DataType enum value")
        self._enum = type_enum

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def name(self):
        return _c.graft_dtype_name(self._enum)

    @property
    def _is_ref_dtype(self):
        return builtins.bool(_c.graft_dtype_is_ref(self._enum))

    is_ref_dtype = _is_ref_dtype

    @property
    def _as_ref(self):
        return as_dtype(_c.graft_dtype_as_ref(self._enum))

    as_ref = _as_ref

    @property
    def base_dtype(self):
        return as_dtype(_c.graft_dtype_base(self._enum))

    @property
    def real_dtype(self):
        return as_dtype(_c.graft_dtype_real(self._enum))

    @property
    def is_floating(self):
        return builtins.bool(_c.graft_dtype_is_floating(self._enum))

    @property
    def is_complex(self):
        return builtins.bool(_c.graft_dtype_is_complex(self._enum))

    @property
    def is_integer(self):
        return builtins.bool(_c.graft_dtype_is_integer(self._enum))

    @property
    def is_quantized(self):
        return builtins.bool(_c.graft_dtype_is_quantized(self._enum))

    @property
    def is_unsigned(self):
        return builtins.bool(_c.graft_dtype_is_unsigned(self._enum))

    @property
    def is_bool(self):
        return builtins.bool(_c.graft_dtype_is_bool(self._enum))

    @property
    def is_numpy_compatible(self):
        return self.base_dtype._enum in _NUMPY

    @property
    def as_numpy_dtype(self):
        return _NUMPY.get(self.base_dtype._enum)

    @property
    def size(self):
        return int(_c.graft_dtype_size(self.base_dtype._enum))

    @property
    def min(self):
        return self._limit(0)

    @property
    def max(self):
        return self._limit(1)

    @property
    def limits(self):
        return (self.min, self.max)

    def _limit(self, which):
        base = self.base_dtype
        if base.is_bool:
            return builtins.bool(which)
        np_type = base.as_numpy_dtype
        if np_type is None or np_type is np.object_ or base.is_complex or base.is_quantized:
            raise TypeError(f"Cannot find minimum/maximum value of {self}.")
        info = np.finfo(np_type) if base.is_floating else np.iinfo(np_type)
        return info.max if which else info.min

    def is_compatible_with(self, other):
        other = as_dtype(other)
        return builtins.bool(_c.graft_dtype_is_compatible_with(self._enum, other._enum))

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        if other is None:
            return False
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __reduce__(self):
        return as_dtype, (self.name,)

    def __repr__(self):
        return "graft." + self.name

    def __str__(self):
        return f"<dtype: '{self.name}'>"


_ALL = {}
for _e in _c.dtype_codes():  # the C API's dtype table (graft_dtype_list), and the reference types
    _ALL[_e] = DType(_e)
    if _c.graft_dtype_is_valid(_e + _REF_OFFSET):
        _ALL[_e + _REF_OFFSET] = DType(_e + _REF_OFFSET)

float16 = half = _ALL[_c.GRAFT_FLOAT16]
float32 = _ALL[_c.GRAFT_FLOAT32]
float64 = double = _ALL[_c.GRAFT_FLOAT64]
bfloat16 = _ALL[_c.GRAFT_BFLOAT16]
int8 = _ALL[_c.GRAFT_INT8]
int16 = _ALL[_c.GRAFT_INT16]
int32 = _ALL[_c.GRAFT_INT32]
int64 = _ALL[_c.GRAFT_INT64]
uint8 = _ALL[_c.GRAFT_UINT8]
uint16 = _ALL[_c.GRAFT_UINT16]
uint32 = _ALL[_c.GRAFT_UINT32]
uint64 = _ALL[_c.GRAFT_UINT64]
bool = _ALL[_c.GRAFT_BOOL]  # noqa: A001 - TensorFlow's name
string = _ALL[_c.GRAFT_STRING]
complex64 = _ALL[_c.GRAFT_COMPLEX64]
complex128 = _ALL[_c.GRAFT_COMPLEX128]
qint8 = _ALL[_c.GRAFT_QINT8]
quint8 = _ALL[_c.GRAFT_QUINT8]
qint16 = _ALL[_c.GRAFT_QINT16]
quint16 = _ALL[_c.GRAFT_QUINT16]
qint32 = _ALL[_c.GRAFT_QINT32]
resource = _ALL[_c.GRAFT_RESOURCE]
variant = _ALL[_c.GRAFT_VARIANT]

_NUMPY = {
    float16._enum: np.float16, float32._enum: np.float32, float64._enum: np.float64,
    int8._enum: np.int8, int16._enum: np.int16, int32._enum: np.int32, int64._enum: np.int64,
    uint8._enum: np.uint8, uint16._enum: np.uint16, uint32._enum: np.uint32, uint64._enum: np.uint64,
    bool._enum: np.bool_, string._enum: np.object_, complex64._enum: np.complex64,
    complex128._enum: np.complex128,
}
try:  # NumPy has no bfloat16; TensorFlow takes it from ml_dtypes, and so does graft when it is there
    import ml_dtypes as _ml_dtypes
    _NUMPY[bfloat16._enum] = _ml_dtypes.bfloat16
except ImportError:
    pass
_FROM_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items() if v is not np.object_}

_BY_NAME = {d.name: d for d in _ALL.values()}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})

_PYTHON_TYPES = {builtins.float: float32, builtins.bool: bool, builtins.int: int32,
                 builtins.str: string, builtins.bytes: string, builtins.complex: complex128}


def as_dtype(type_value):
    """The DType of type_value: a DType, an enum value, a name, a NumPy dtype or a Python type."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, builtins.int) and not isinstance(type_value, builtins.bool):
        if type_value in _ALL:
            return _ALL[type_value]
        raise TypeError(f"Cannot convert value {type_value!r} to a graft DType.")
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"Cannot convert value {type_value!r} to a graft DType.")
    if type_value in _PYTHON_TYPES:
        return _PYTHON_TYPES[type_value]
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        np_dtype = None
    if np_dtype is not None:
        if np_dtype in _FROM_NUMPY:
            return _ALL[_FROM_NUMPY[np_dtype]]
        if np_dtype.kind in "OSU":
            return string
    raise TypeError(f"Cannot convert value {type_value!r} to a graft DType.")
