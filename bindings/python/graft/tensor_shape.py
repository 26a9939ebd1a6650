"""graft.TensorShape and graft.Dimension: partial shapes with TensorFlow's semantics.

An unknown dimension is None; an unknown rank is TensorShape(None). Comparisons of unknown
dimensions give None (unknown), merging checks compatibility and raises ValueError.
"""
import operator


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
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

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

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self):
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        try:
            return TensorShape([Dimension(a).merge_with(b) for a, b in zip(self._dims, other._dims)])
        except ValueError:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from None

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank):
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

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
