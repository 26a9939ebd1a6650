"""Gradient and shape function registries (RegisterGradient, NoGradient, RegisterShape).

A gradient function is registered with the C library's gradient registry (graft.gradients
calls it while it builds gradients) and kept here by op type, with the director that the C
registry points to: registrations last as long as the process, so both stay referenced. An
op's gradient_override_map entry is its "_gradient_op_type" attr (get_gradient_function)."""
import threading

_gradients = {}
_directors = {}  # op type -> the graft_swig.GradientFunction the C registry calls
_lock = threading.Lock()
_shapes = {}


class RegisterGradient:
    """A decorator registering a gradient function for an op type."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        from graft import gradients_impl as gradients
        with _lock:
            if self._op_type in _gradients:
                raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
            _directors[self._op_type] = gradients.register_gradient_function(self._op_type, f)
            _gradients[self._op_type] = f
        return f


def NoGradient(op_type):  # noqa: N802 - TensorFlow's name
    """Marks op_type as having no gradient."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    from graft import gradients_impl as gradients
    with _lock:
        if op_type in _gradients:
            raise KeyError(f"Registering two gradient with name '{op_type}'!")
        gradients.register_no_gradient(op_type)
        _gradients[op_type] = None


NotDifferentiable = NoGradient
no_gradient = NoGradient


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
