"""graft.compat.v1.train: TensorFlow 1's optimizers in graph mode.

optimizer.minimize(loss) = compute_gradients (graft.gradients of loss with respect to the
trainable variables of loss's graph) + apply_gradients (one ResourceApply* op per variable,
the slot variables made beside each variable and added to GLOBAL_VARIABLES, so that
global_variables_initializer() run after minimize initializes them). It returns the train op;
with global_step, the op also adds 1 to it after the updates.

AdamOptimizer keeps beta1_power and beta2_power as variables (starting at beta1 and beta2, each
multiplied by its beta after every step) and passes them to ResourceApplyAdam, which computes
lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power) and var -= lr_t * m / (sqrt(v) + epsilon):
epsilon is added to sqrt(v), the uncorrected second moment (TensorFlow 1's "epsilon hat"), the
same formula as graft.optimizers.Adam; the default epsilon is 1e-8 here, 1e-7 there.
"""
import numpy as np

from graft import framework as _fw
from graft import gradients_impl as _gradients
from graft import ops as _ops
from graft import variables as _variables
from graft.framework import Tensor, convert_to_tensor
from graft.indexed_slices import apply_update as _apply_update, deduplicate as _deduplicate


def _as_op(x):
    if isinstance(x, list):
        x = x[0] if x else None
    return x.op if isinstance(x, Tensor) else x


def _group(graph, ops, name):
    with graph.as_default(), graph.control_dependencies([o for o in ops if o is not None]):
        return _fw.apply_op("NoOp", [], {}, name=name)


class Optimizer:
    """TensorFlow 1's Optimizer: compute_gradients, apply_gradients and minimize in graph mode."""

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = bool(use_locking)
        self._name = name
        self._slots = {}  # id(var) -> (var, {slot name: Variable})
        self._non_slots = {}  # (graph id, name) -> Variable

    def get_name(self):
        return self._name

    # -- gradients
    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        if callable(loss):
            raise NotImplementedError("compute_gradients of a callable loss needs eager execution and "
                                      "graft.GradientTape; pass a tensor of a graph")
        if not isinstance(loss, Tensor) or loss._value is not None:
            raise ValueError("compute_gradients needs a loss tensor of a graph (graph mode)")
        graph = loss.graph
        if var_list is None:
            with graph.as_default():
                var_list = _variables.trainable_variables()
        var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = _gradients.gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}.")
        graph = pairs[0][1].graph
        if graph is None:
            raise ValueError("graft.compat.v1.train optimizers work in graph mode (variables of a graft.Graph)")
        with graph.as_default():
            for _, v in pairs:
                self._make_slots(v)
            self._prepare(graph)
            with _fw.name_scope(name or self._name):
                updates = [_as_op(self._apply(g, v)) for g, v in pairs]
                finish = self._finish(graph, updates)
                if global_step is None:
                    return _group(graph, finish, name or self._name)
                with graph.control_dependencies(finish):
                    inc = global_step.assign_add(np.ones((), global_step.dtype.as_numpy_dtype), read_value=False)
                return _group(graph, [_as_op(inc)], name or self._name)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, grad_loss=grad_loss)
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[v.name for _, v in grads_and_vars]} and "
                             f"loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    # -- slots
    def _slot_names(self):
        return ()

    def _slot_initial(self, name):
        return 0.0

    def _slot_var_name(self, var, name):
        return f"{var._name}/{self._name}" if name == self._name else f"{var._name}/{self._name}_{name}"

    def _make_slots(self, var):
        entry = self._slots.get(id(var))
        if entry is not None:
            return
        if not var.shape.is_fully_defined():
            raise ValueError(f"{self._name}: variable {var.name} needs a fully defined shape for its slots")
        slots = {}
        for name in self._slot_names():
            init = np.full(var.shape.as_list(), self._slot_initial(name), var.dtype.as_numpy_dtype)
            slots[name] = _variables.Variable(init, trainable=False, name=self._slot_var_name(var, name),
                                              dtype=var.dtype)
        self._slots[id(var)] = (var, slots)

    def get_slot(self, var, name):
        entry = self._slots.get(id(var))
        return entry[1].get(name) if entry else None

    def get_slot_names(self):
        return sorted(self._slot_names())

    def _slot(self, var, name):
        return self._slots[id(var)][1][name].handle

    def _non_slot(self, graph, name, initial, dtype):
        key = (id(graph), name)
        if key not in self._non_slots:
            self._non_slots[key] = _variables.Variable(np.asarray(initial, dtype.as_numpy_dtype), trainable=False,
                                                       name=name, dtype=dtype)
        return self._non_slots[key]

    def variables(self):
        out = list(self._non_slots.values())
        for _, slots in self._slots.values():
            out.extend(slots.values())
        return out

    def _prepare(self, graph):
        pass

    def _finish(self, graph, updates):
        return updates

    def _apply(self, grad, var):
        return _apply_update(grad, var, self._apply_sparse, self._apply_dense)

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _apply_sparse(self, grad, var):
        """The update for a gradient given as rows (IndexedSlices), touching only those rows; None
        where the dense gradient is applied instead."""
        return None

    def _hyper(self, value, dtype):
        if callable(value) and not isinstance(value, (Tensor, _variables.Variable)):
            value = value()
        if isinstance(value, _variables.Variable):
            value = value.read_value()
        return convert_to_tensor(value, dtype=dtype)

    def _attrs(self, **extra):
        return dict(use_locking=self._use_locking, **extra)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad (ResourceApplyGradientDescent)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_sparse(self, grad, var):
        delta = _ops.multiply(convert_to_tensor(grad.values, dtype=var.dtype),
                              -self._hyper(self._learning_rate, var.dtype))
        return _fw.apply_op("ResourceScatterAdd", [var.handle, convert_to_tensor(grad.indices), delta],
                            {"dtype": var.dtype})

    def _apply_dense(self, grad, var):
        return _fw.apply_op("ResourceApplyGradientDescent",
                            [var.handle, self._hyper(self._learning_rate, var.dtype), grad], self._attrs())


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (ResourceApplyMomentum), or with
    use_nesterov var -= lr * grad + lr * momentum * accum."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate, self._momentum, self._use_nesterov = learning_rate, momentum, bool(use_nesterov)

    def _slot_names(self):
        return (self._name,)

    def _apply_sparse(self, grad, var):
        # TensorFlow 1's sparse momentum: only the named rows' accumulators move.
        values, indices = _deduplicate(grad, var.dtype)
        return _fw.apply_op("ResourceSparseApplyMomentum",
                            [var.handle, self._slot(var, self._name), self._hyper(self._learning_rate, var.dtype),
                             values, indices, self._hyper(self._momentum, var.dtype)],
                            self._attrs(use_nesterov=self._use_nesterov))

    def _apply_dense(self, grad, var):
        return _fw.apply_op("ResourceApplyMomentum",
                            [var.handle, self._slot(var, self._name), self._hyper(self._learning_rate, var.dtype),
                             grad, self._hyper(self._momentum, var.dtype)],
                            self._attrs(use_nesterov=self._use_nesterov))


class AdamOptimizer(Optimizer):
    """Adam with beta1_power / beta2_power variables (ResourceApplyAdam); see the module's doc."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _slot_names(self):
        return ("m", "v")

    def _slot_var_name(self, var, name):
        # TensorFlow's names: var/Adam (m) and var/Adam_1 (v).
        return f"{var._name}/{self._name}" + ("" if name == "m" else "_1")

    def _betas(self, graph, dtype):
        return (self._non_slot(graph, "beta1_power", self._beta1, dtype),
                self._non_slot(graph, "beta2_power", self._beta2, dtype))

    def _prepare(self, graph):
        import graft
        self._powers_dtype = None
        for var, _ in self._slots.values():
            if var.graph is graph:
                self._powers_dtype = var.dtype
                break
        self._betas(graph, self._powers_dtype or graft.float32)

    def get_beta_accumulators(self):
        return [v for (_, n), v in self._non_slots.items() if n in ("beta1_power", "beta2_power")]

    def _apply_dense(self, grad, var):
        b1p, b2p = self._betas(var.graph, self._powers_dtype or var.dtype)
        dtype = var.dtype
        return _fw.apply_op("ResourceApplyAdam",
                            [var.handle, self._slot(var, "m"), self._slot(var, "v"),
                             _cast(b1p.read_value(), dtype), _cast(b2p.read_value(), dtype),
                             self._hyper(self._lr, dtype), self._hyper(self._beta1, dtype),
                             self._hyper(self._beta2, dtype), self._hyper(self._epsilon, dtype), grad],
                            self._attrs())

    def _finish(self, graph, updates):
        b1p, b2p = self._betas(graph, self._powers_dtype)
        with graph.control_dependencies(updates):
            u1 = b1p.assign(b1p.read_value() * self._hyper(self._beta1, b1p.dtype), read_value=False)
            u2 = b2p.assign(b2p.read_value() * self._hyper(self._beta2, b2p.dtype), read_value=False)
        return [_as_op(u1), _as_op(u2)]


class AdagradOptimizer(Optimizer):
    """accum += grad^2; var -= lr * grad / sqrt(accum) (ResourceApplyAdagrad)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate, self._initial = learning_rate, initial_accumulator_value

    def _slot_names(self):
        return ("accumulator",)

    def _slot_initial(self, name):
        return self._initial

    def _apply_sparse(self, grad, var):
        values, indices = _deduplicate(grad, var.dtype)
        return _fw.apply_op("ResourceSparseApplyAdagrad",
                            [var.handle, self._slot(var, "accumulator"), self._hyper(self._learning_rate, var.dtype),
                             values, indices], self._attrs())

    def _apply_dense(self, grad, var):
        return _fw.apply_op("ResourceApplyAdagrad",
                            [var.handle, self._slot(var, "accumulator"), self._hyper(self._learning_rate, var.dtype),
                             grad], self._attrs())


class RMSPropOptimizer(Optimizer):
    """ms = decay * ms + (1 - decay) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + epsilon);
    var -= mom (ResourceApplyRMSProp; ms starts at 1, as TensorFlow 1's). centered: mg = decay * mg +
    (1 - decay) * grad and ms - mg^2 under the root (ResourceApplyCenteredRMSProp)."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._lr, self._decay, self._momentum, self._epsilon = learning_rate, decay, momentum, epsilon
        self._centered = bool(centered)

    def _slot_names(self):
        return ("rms", "momentum", "mg") if self._centered else ("rms", "momentum")

    def _slots_in_order(self, var):
        """var's slots in the update ops' order: (mg,) ms, mom."""
        slots = [self._slot(var, "rms"), self._slot(var, "momentum")]
        return [self._slot(var, "mg")] + slots if self._centered else slots

    def _slot_initial(self, name):
        return 1.0 if name == "rms" else 0.0

    def _apply_sparse(self, grad, var):
        # TensorFlow 1's sparse RMSProp: only the named rows' ms and mom move.
        values, indices = _deduplicate(grad, var.dtype)
        dtype = var.dtype
        return _fw.apply_op("ResourceSparseApplyCenteredRMSProp" if self._centered else "ResourceSparseApplyRMSProp",
                            [var.handle] + self._slots_in_order(var) +
                            [self._hyper(self._lr, dtype), self._hyper(self._decay, dtype),
                             self._hyper(self._momentum, dtype), self._hyper(self._epsilon, dtype), values, indices],
                            self._attrs())

    def _apply_dense(self, grad, var):
        dtype = var.dtype
        return _fw.apply_op("ResourceApplyCenteredRMSProp" if self._centered else "ResourceApplyRMSProp",
                            [var.handle] + self._slots_in_order(var) +
                            [self._hyper(self._lr, dtype), self._hyper(self._decay, dtype),
                             self._hyper(self._momentum, dtype), self._hyper(self._epsilon, dtype), grad],
                            self._attrs())


def _cast(x, dtype):
    from graft import ops
    return x if x.dtype == dtype else ops.cast(x, dtype)


# ---- global step ----------------------------------------------------------------------------------

def get_global_step(graph=None):
    graph = graph or _fw.get_default_graph()
    items = graph.get_collection(_variables.GraphKeys.GLOBAL_STEP)
    return items[0] if items else None


def create_global_step(graph=None):
    import graft
    graph = graph or _fw.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError("\"global_step\" already exists.")
    with graph.as_default():
        step = _variables.Variable(np.int64(0), trainable=False, name="global_step", dtype=graft.int64,
                                   collections=[_variables.GraphKeys.GLOBAL_VARIABLES,
                                                _variables.GraphKeys.GLOBAL_STEP])
    return step


def get_or_create_global_step(graph=None):
    return get_global_step(graph) or create_global_step(graph)


def global_step(sess, global_step_tensor):
    return int(sess.run(global_step_tensor))
