"""graft.optimizers: Keras-style optimizers (SGD, Adam, RMSprop, Adagrad) over resource variables.

apply_gradients(zip(grads, vars)) runs one update per variable with the ResourceApply* ops,
eagerly, inside a graft.function (recorded in the traced graph) or in graph mode (variables of
a graft.Graph: the update ops are added and returned as a group). Slot variables are made on
a variable's first update (in a graft.function, on its first trace); `iterations` counts the
updates applied.

The formulas are the update ops' (their kernels in kernels/cpu/training_kernels.cc):
  SGD       momentum 0: var -= lr * g (ResourceApplyGradientDescent); else Keras's momentum
            (ResourceApplyKerasMomentum): m = momentum * m - lr * g; var += m, or with nesterov
            var += momentum * m - lr * g.
  Adam      t = iterations + 1; lr_t = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t);
            m += (g - m) * (1 - beta_1); v += (g^2 - v) * (1 - beta_2);
            var -= lr_t * m / (sqrt(v) + epsilon)  (ResourceApplyAdam). Epsilon is added to
            sqrt(v), the uncorrected second moment, as Keras (2 and 3) and TensorFlow 1's
            AdamOptimizer do, not to sqrt(v_hat) as the paper's Algorithm 1 writes it.
            amsgrad: vhat = max(vhat, v) divides instead of v (ResourceApplyAdamWithAmsgrad).
  RMSprop   ms = rho * ms + (1 - rho) * g^2; mom = momentum * mom + lr * g / sqrt(ms + epsilon);
            var -= mom (ResourceApplyRMSProp: epsilon inside the square root, as Keras 3).
            centered: mg = rho * mg + (1 - rho) * g and sqrt(ms - mg^2 + epsilon)
            (ResourceApplyCenteredRMSProp).
  Adagrad   accum += g^2; var -= lr * g / (sqrt(accum) + epsilon) (ResourceApplyAdagradV2),
            accum starting at initial_accumulator_value.
"""
import numpy as np

from graft import dtypes as _dtypes
from graft import framework as _fw
from graft import ops as _ops
from graft import variables as _variables
from graft.framework import Tensor, convert_to_tensor
from graft.indexed_slices import apply_update as _apply_update, deduplicate as _deduplicate


def _original(var):
    """The variable a graft.function's traced view stands for (slots are keyed by it)."""
    return getattr(var, "_original", var)


def _graph_of(var):
    return getattr(_original(var), "_graph", None)


class _GraphOf:
    """Enters var's graph (graph mode) so that the ops and slot variables go there."""

    def __init__(self, var):
        self._graph = _graph_of(var)
        self._ctx = None

    def __enter__(self):
        if self._graph is not None:
            self._ctx = self._graph.as_default()
            self._ctx.__enter__()

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.__exit__(*exc)
        return False


def _group(ops, name=None):
    ops = [o for o in ops if o is not None]
    if not ops:
        return None
    g = ops[0].graph
    with g.as_default(), g.control_dependencies(ops):
        return _fw.apply_op("NoOp", [], {}, name=name)


def _as_op(x):
    if isinstance(x, list):
        x = x[0] if x else None
    if isinstance(x, Tensor):
        return x.op
    return x


class Optimizer:
    """The base of graft.optimizers: hyperparameters, slot variables and the iteration count."""

    def __init__(self, name, learning_rate=0.01, **kwargs):
        unknown = set(kwargs) - {"clipnorm", "clipvalue", "global_clipnorm", "weight_decay", "use_ema",
                                 "ema_momentum", "ema_overwrite_frequency", "jit_compile", "decay"}
        if unknown:
            raise TypeError(f"Unexpected keyword argument(s) passed to optimizer: {sorted(unknown)}")
        self.name = name
        self.learning_rate = learning_rate
        self._slots = {}  # id(variable) -> (variable, {slot name: Variable})
        self._iterations = None
        self._graph = None

    # -- state
    @property
    def iterations(self):
        """The number of apply_gradients calls so far (an int64 Variable, made on first use)."""
        if self._iterations is None:
            self._iterations = _variables.Variable(np.int64(0), trainable=False, name=f"{self.name}/iter",
                                                   dtype=_dtypes.int64)
        return self._iterations

    def get_slot(self, var, slot_name):
        return self._slots[id(_original(var))][1][slot_name]

    def get_slot_names(self):
        return list(self._slot_names())

    def variables(self):
        out = [self._iterations] if self._iterations is not None else []
        for _, slots in self._slots.values():
            out.extend(slots.values())
        return out

    def _slot_names(self):
        return ()

    def _slot_initial(self, name, var):
        return 0.0

    def _make_slots(self, var):
        orig = _original(var)
        entry = self._slots.get(id(orig))
        if entry is not None:
            return entry[1]
        if not orig.shape.is_fully_defined():
            raise ValueError(f"{self.name}: variable {orig.name} needs a fully defined shape for its slots")
        slots = {}
        base = orig._name
        with _GraphOf(orig):
            for name in self._slot_names():
                init = np.full(orig.shape.as_list(), self._slot_initial(name, orig), orig.dtype.as_numpy_dtype)
                slots[name] = _variables.Variable(init, trainable=False, name=f"{base}/{self.name}/{name}",
                                                  dtype=orig.dtype)
        self._slots[id(orig)] = (orig, slots)  # keeps orig alive: id() stays unique
        return slots

    def _hyper(self, value, dtype):
        if callable(value) and not isinstance(value, (Tensor, _variables.Variable)):
            value = value()
        if isinstance(value, _variables.Variable):
            value = value.read_value()
        return convert_to_tensor(value, dtype=dtype)

    def _step(self, dtype):
        """t = iterations + 1 as dtype (the step being applied)."""
        return _ops.cast(self.iterations.read_value() + np.int64(1), dtype)

    # -- updates
    def apply_gradients(self, grads_and_vars, name=None, **unused):
        """Applies one update per (gradient, variable) pair (pairs with a None gradient are
        skipped), then adds 1 to iterations. Returns the iterations' new value (eagerly and in
        a graft.function) or, in graph mode, the op that runs the updates."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        graph = _graph_of(pairs[0][1])
        if graph is not None:
            with graph.as_default():
                self.iterations  # noqa: B018 - made in the variables' graph
                updates = []
                for g, v in pairs:
                    self._make_slots(v)
                    updates.append(_as_op(self._apply(g, v)))
                with graph.control_dependencies(updates):
                    inc = self.iterations.assign_add(np.int64(1), read_value=False)
                return _group([_as_op(inc)], name=name or self.name)
        self.iterations  # noqa: B018
        for g, v in pairs:
            self._make_slots(v)
        for g, v in pairs:
            self._apply(g, v)
        return self.iterations.assign_add(np.int64(1))

    def _apply(self, grad, var):
        return _apply_update(grad, var, self._apply_sparse, self._apply_dense)

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _apply_sparse(self, grad, var):
        """The update for a gradient given as rows, touching only those rows; None where the
        optimizer applies the dense gradient instead."""
        return None

    def _handle(self, var):
        return var.handle

    def _slot_handle(self, var, name):
        return self._slots[id(_original(var))][1][name].handle

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of loss (a callable taking no arguments, or a tensor when tape is
        given or in graph mode) with respect to var_list (a list of variables, or a callable
        returning one) and applies them. In graph mode the gradients are symbolic
        (graft.gradients); eagerly and inside a graft.function they come from graft.GradientTape."""
        import graft
        if tape is not None:
            var_list = var_list() if callable(var_list) else list(var_list)
            return self.apply_gradients(zip(tape.gradient(loss, var_list), var_list))
        graph_mode = _fw._graph_mode_graph() is not None or (isinstance(loss, Tensor) and loss._value is None)
        if graph_mode:
            loss_value = loss() if callable(loss) else loss
            var_list = var_list() if callable(var_list) else list(var_list)
            return self.apply_gradients(zip(graft.gradients(loss_value, var_list), var_list))
        if not callable(loss):
            raise ValueError(f"{type(self).__name__}.minimize: eagerly, loss must be a callable (or pass tape=)")
        with graft.GradientTape() as t:
            loss_value = loss()
        var_list = var_list() if callable(var_list) else list(var_list)
        return self.apply_gradients(zip(t.gradient(loss_value, var_list), var_list))

    def get_config(self):
        return {"name": self.name, "learning_rate": self.learning_rate}


class SGD(Optimizer):
    """Gradient descent, with (Nesterov) momentum when momentum > 0."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        if not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    def _slot_names(self):
        return ("momentum",) if self.momentum > 0 else ()

    def _apply_sparse(self, grad, var):
        if self.momentum != 0:
            return None
        # var[indices] -= lr * values, rows named twice moving twice (ResourceScatterAdd).
        delta = _ops.multiply(convert_to_tensor(grad.values, dtype=var.dtype), -self._hyper(self.learning_rate, var.dtype))
        return _fw.apply_op("ResourceScatterAdd", [self._handle(var), convert_to_tensor(grad.indices), delta],
                            {"dtype": var.dtype})

    def _apply_dense(self, grad, var):
        lr = self._hyper(self.learning_rate, var.dtype)
        if self.momentum == 0:
            return _fw.apply_op("ResourceApplyGradientDescent", [self._handle(var), lr, grad], {})
        return _fw.apply_op("ResourceApplyKerasMomentum",
                            [self._handle(var), self._slot_handle(var, "momentum"), lr, grad,
                             self._hyper(self.momentum, var.dtype)], {"use_nesterov": self.nesterov})


class Adam(Optimizer):
    """Adam (Kingma & Ba), with TensorFlow's bias correction folded into the step size."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, bool(amsgrad)

    def _slot_names(self):
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        t = self._step(dtype)
        b1 = self._hyper(self.beta_1, dtype)
        b2 = self._hyper(self.beta_2, dtype)
        slots = [self._slot_handle(var, n) for n in self._slot_names()]
        # AMSGrad divides by the running maximum of v (ResourceApplyAdamWithAmsgrad).
        return _fw.apply_op("ResourceApplyAdamWithAmsgrad" if self.amsgrad else "ResourceApplyAdam",
                            [self._handle(var)] + slots +
                            [_ops.pow(b1, t), _ops.pow(b2, t), self._hyper(self.learning_rate, dtype), b1, b2,
                             self._hyper(self.epsilon, dtype), grad], {})

    def get_config(self):
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                    amsgrad=self.amsgrad)


class RMSprop(Optimizer):
    """RMSprop: the gradient scaled by a moving average of its square, with optional momentum."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, bool(centered)

    def _slot_names(self):
        return ("rms", "momentum", "average_gradient") if self.centered else ("rms", "momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        # Centered: the mean gradient's square is taken off the mean square (ResourceApplyCenteredRMSProp).
        slots = [self._slot_handle(var, "rms"), self._slot_handle(var, "momentum")]
        if self.centered:
            slots = [self._slot_handle(var, "average_gradient")] + slots
        return _fw.apply_op("ResourceApplyCenteredRMSProp" if self.centered else "ResourceApplyRMSProp",
                            [self._handle(var)] + slots +
                            [self._hyper(self.learning_rate, dtype), self._hyper(self.rho, dtype),
                             self._hyper(self.momentum, dtype), self._hyper(self.epsilon, dtype), grad], {})


class Adagrad(Optimizer):
    """Adagrad: the step scaled by the root of the sum of the squared gradients."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        if initial_accumulator_value < 0:
            raise ValueError("initial_accumulator_value must be non-negative: %s" % initial_accumulator_value)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def _slot_names(self):
        return ("accumulator",)

    def _slot_initial(self, name, var):
        return self.initial_accumulator_value

    def _apply_sparse(self, grad, var):
        # Rows no index names keep their accumulator and value, as the dense update leaves them.
        values, indices = _deduplicate(grad, var.dtype)
        dtype = var.dtype
        return _fw.apply_op("ResourceSparseApplyAdagradV2",
                            [self._handle(var), self._slot_handle(var, "accumulator"),
                             self._hyper(self.learning_rate, dtype), self._hyper(self.epsilon, dtype), values,
                             indices], {})

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        return _fw.apply_op("ResourceApplyAdagradV2",
                            [self._handle(var), self._slot_handle(var, "accumulator"),
                             self._hyper(self.learning_rate, dtype), self._hyper(self.epsilon, dtype), grad], {})
