"""Gradient and shape function registries (RegisterGradient, NoGradient, RegisterShape).

The functions are kept in Python, by op type, for the gradient machinery of a later issue; an
op's gradient_override_map entry is its "_gradient_op_type" attr (get_gradient_function)."""

_gradients = {}
_shapes = {}


class RegisterGradient:
    """A decorator registering a gradient function for an op type."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        if self._op_type in _gradients:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        _gradients[self._op_type] = f
        return f


def NoGradient(op_type):  # noqa: N802 - TensorFlow's name
    """Marks op_type as having no gradient."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in _gradients:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    _gradients[op_type] = None


NotDifferentiable = NoGradient


def get_gradient_function(op):
    op_type = op.type
    try:
        op_type = op.get_attr("_gradient_op_type")
        if isinstance(op_type, bytes):
            op_type = op_type.decode()
    except ValueError:
        pass
    if op_type not in _gradients:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})")
    return _gradients[op_type]


class RegisterShape:
    """A decorator registering a (legacy) shape function for an op type."""

    def __init__(self, op_type):
        self._op_type = op_type

    def __call__(self, f):
        _shapes[self._op_type] = f
        return f
