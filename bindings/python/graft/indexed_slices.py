"""graft.IndexedSlices: rows of a dense tensor, as tf.IndexedSlices.

graft.gradients gives a variable (or tensor) that only gathers read its gradient in this form,
one row of values per index, so that an optimizer can update just those rows
(ResourceScatterAdd); anything that needs a tensor gets the dense sum of the rows
(UnsortedSegmentSum into dense_shape), through graft.convert_to_tensor.
"""
from graft import framework as _fw


class IndexedSlices:
    """values: one row per index ([len(indices)] + dense_shape[1:]); indices: 1-D row numbers
    (a row named twice counts twice); dense_shape: the dense tensor's shape, or None."""

    def __init__(self, values, indices, dense_shape=None):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self):
        return getattr(self.values, "dtype", None)

    @property
    def graph(self):
        return getattr(self.values, "graph", None)

    @property
    def name(self):
        return getattr(self.values, "name", None)

    def __neg__(self):
        from graft import ops
        return IndexedSlices(ops.negative(self.values), self.indices, self.dense_shape)

    def __repr__(self):
        return f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, dense_shape={self.dense_shape!r})"


def apply_update(grad, var, apply_sparse, apply_dense):
    """An optimizer's update of var: apply_sparse(rows, var) for a gradient given as rows, when it
    gives one (an update of those rows only), else apply_dense(the dense gradient, var)."""
    if isinstance(grad, IndexedSlices):
        update = apply_sparse(grad, var)
        if update is not None:
            return update
    return apply_dense(_fw.convert_to_tensor(grad, dtype=var.dtype), var)


def deduplicate(grad, dtype=None):
    """(values, indices) with each index once and its rows summed (TensorFlow's optimizers do
    this before a row-wise update, so that it equals the dense update)."""
    from graft import ops
    values = _fw.convert_to_tensor(grad.values, dtype=dtype)
    unique, positions = ops.unique(_fw.convert_to_tensor(grad.indices))
    return ops.unsorted_segment_sum(values, positions, ops.size(unique)), unique


def _to_dense(value, dtype=None, name=None, as_ref=False):
    from graft import ops
    if value.dense_shape is None:
        raise ValueError("cannot convert IndexedSlices without a dense_shape to a tensor")
    shape = _fw.convert_to_tensor(value.dense_shape, dtype_hint=None)
    rows = ops.gather(shape, 0)
    return ops.unsorted_segment_sum(_fw.convert_to_tensor(value.values, dtype=dtype), value.indices, rows, name=name)


_fw.register_tensor_conversion_function(IndexedSlices, _to_dense)
