"""graft.TensorShape and graft.Dimension: partial shapes with TensorFlow's semantics.

An unknown dimension is None; an unknown rank is TensorShape(None). Comparisons of unknown
dimensions give None (unknown), merging checks compatibility and raises ValueError.
The algebra (compatibility, merging, concatenation, ranks, element counts) is graft/shape.h's,
called through graft.Shape; this module holds the dimensions and gives TensorFlow's errors.
"""
import operator

from graft import errors
from graft import graft_swig as _c


def _c_dim(d):
    return -1 if d is None else d


def _to_c(dims):
    return _c.Shape() if dims is None else _c.Shape([_c_dim(d) for d in dims])


def _from_c(shape):
    return TensorShape(None) if shape.rank() < 0 else TensorShape([None if d < 0 else d for d in shape.dims()])


def _c_op(fn, error):
    """fn() of the C shape algebra, its incompatibility (GRAFT_ESHAPE) as ValueError(error)."""
    try:
        return fn()
    except errors.InvalidArgumentError:
        raise ValueError(error) from None


class Dimension:
    """One dimension of a shape: a non-negative int, or unknown (None)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
            return
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"Dimension value must be integer or None, got {value!r} of type {type(value).__name__}")
        value = operator.index(value)
        if value < 0:
            raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __hash__(self):
        return hash(self._value)

    def _other(self, other):
        try:
            return as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __eq__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        eq = self.__eq__(other)
        if eq is NotImplemented or eq is None:
            return eq
        return not eq

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return _c.Shape.dims_compatible(_c_dim(self._value), _c_dim(other.value))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        d = _c_op(lambda: _c.Shape.merge_dims(_c_dim(self._value), _c_dim(other.value)),
                  f"Dimensions {self} and {other} are not compatible")
        return Dimension(None if d < 0 else d)

    def _arith(self, other, fn, reverse=False):
        other = self._other(other)
        if other is NotImplemented:
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        a, b = (other.value, self._value) if reverse else (self._value, other.value)
        return Dimension(fn(a, b))

    def __add__(self, other):
        return self._arith(other, operator.add)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, operator.sub)

    def __rsub__(self, other):
        return self._arith(other, operator.sub, True)

    def __mul__(self, other):
        return self._arith(other, operator.mul)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._arith(other, operator.floordiv, True)

    def __mod__(self, other):
        return self._arith(other, operator.mod)

    def __rmod__(self, other):
        return self._arith(other, operator.mod, True)

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A partial shape: None for an unknown rank, else a list of dimensions (ints or None)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"A string has ambiguous TensorShape, please wrap in a list or convert to an int: {dims!r}")
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (as_dimension(dims).value,)
            else:
                self._dims = tuple(as_dimension(d).value for d in it)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                start, stop = key.start, key.stop
                if (start is None or start >= 0) and stop is not None and stop >= 0 and key.step in (None, 1):
                    return unknown_shape(stop - (start or 0))
                return unknown_shape()
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def _c(self):
        return _to_c(self._dims)

    def num_elements(self):
        n = self._c().num_elements()
        return None if n < 0 else n

    def is_fully_defined(self):
        return self._c().is_fully_defined()

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_compatible_with(self, other):
        return self._c().is_compatible_with(as_shape(other)._c())

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        other = as_shape(other)
        return _from_c(_c_op(lambda: self._c().merge_with(other._c()), f"Shapes {self} and {other} are not compatible"))

    def concatenate(self, other):
        return _from_c(self._c().concatenate(as_shape(other)._c()))

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        return _from_c(_c_op(lambda: self._c().with_rank(rank), f"Shape {self} must have rank {rank}"))

    def with_rank_at_least(self, rank):
        return _from_c(_c_op(lambda: self._c().with_rank_at_least(rank), f"Shape {self} must have rank at least {rank}"))

    def with_rank_at_most(self, rank):
        return _from_c(_c_op(lambda: self._c().with_rank_at_most(rank), f"Shape {self} must have rank at most {rank}"))

    def most_specific_compatible_shape(self, other):
        return _from_c(self._c().most_specific_compatible(as_shape(other)._c()))

    def is_subtype_of(self, other):
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def as_proto(self):
        """A TensorShapeProto-like value: .dim (each with .size, -1 unknown) and .unknown_rank."""
        import types
        if self._dims is None:
            return types.SimpleNamespace(dim=[], unknown_rank=True)
        return types.SimpleNamespace(dim=[types.SimpleNamespace(size=-1 if d is None else d, name="")
                                          for d in self._dims], unknown_rank=False)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    return TensorShape(None if rank is None else [None] * rank)


def scalar():
    return TensorShape([])


def vector(length):
    return TensorShape([length])


def matrix(rows, cols):
    return TensorShape([rows, cols])
