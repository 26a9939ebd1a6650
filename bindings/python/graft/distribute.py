"""graft.distribute: data-parallel training across the processes of an MPI job.

Start the program under MPI (``mpirun -np 4 python3 train.py``, or ``srun`` under Slurm): every
process is one rank and runs the same program on its share of the data. The collectives here
build TensorFlow's V2 collective ops (CollectiveReduceV2, CollectiveGatherV2,
CollectiveBcastSendV2/RecvV2), so they run eagerly and inside graft.function alike, over the job's
MPI (graft/distributed.h; docs/distributed.md):

    graft.distribute.broadcast_variables(model.trainable_variables)   # same start everywhere
    @graft.function
    def step(x, y):
        with graft.distribute.DistributedGradientTape(graft.GradientTape()) as tape:
            loss = loss_fn(model(x), y)
        grads = tape.gradient(loss, model.trainable_variables)        # averaged over the ranks
        opt.apply_gradients(zip(grads, model.trainable_variables))

Every rank must build the same collectives in the same order (the same program does): each op
gets the next instance key of a process-wide counter, and the ranks' ops meet by that key. A
program started without mpirun is a job of one rank, where every collective returns its input.
"""
import atexit
import threading
import weakref

from graft import graft_swig as _c
from graft import dtypes as _dtypes
from graft import nest as _nest
from graft.framework import apply_op, convert_to_tensor

__all__ = ["init", "rank", "size", "barrier", "finalize", "all_reduce", "all_gather", "broadcast",
           "broadcast_variables", "DistributedGradientTape"]

# Gradients smaller than this are packed together into one all-reduce (one message per bucket
# instead of one per tensor: small all-reduces cost their latency, not their bytes).
DEFAULT_BUCKET_BYTES = 4 << 20

_GROUP_KEY = 1
# Instance keys wrap below 2^23: within the message tags of every MPI (Open MPI's UCX transport
# has 2^23 - 1), and reusing a key is fine once its collective is over.
_MAX_KEY = 2**23 - 2
_lock = threading.Lock()
_state = {"next_key": 1, "exit_hook": False}
# Cluster sessions still open: closed before MPI is finalized at exit, so that rank 0's
# session tells the others to stop serving (they would wait forever otherwise).
_cluster_sessions = weakref.WeakSet()

_OPS = {"sum": ("Add", "Id"), "mean": ("Add", "Div"), "min": ("Min", "Id"), "max": ("Max", "Id"),
        "prod": ("Mul", "Id")}


def _joined():
    with _lock:
        if not _state["exit_hook"]:
            _c.distributed_init()
            # mpirun reports a rank that exits without finalizing MPI.
            atexit.register(finalize)
            _state["exit_hook"] = True


def init():
    """Joins the MPI job this process was started in (done by every other function when needed).
    Raises UnimplementedError when Graft was built without its MPI module."""
    _joined()


def rank():
    """This process's rank, 0 .. size() - 1."""
    _joined()
    return int(_c.distributed_rank())


def size():
    """The number of processes in the job."""
    _joined()
    return int(_c.distributed_size())


def barrier():
    """Returns when every rank has called it."""
    _joined()
    _c.distributed_barrier()


def finalize():
    """Leaves the job (finalizes MPI when Graft initialised it); called at exit. Cluster sessions
    still open are closed first."""
    for session in list(_cluster_sessions):
        session.close()
    _c.distributed_finalize()


def _track_cluster_session(session):
    _joined()
    _cluster_sessions.add(session)


def _next_key():
    with _lock:
        key = _state["next_key"]
        _state["next_key"] = key + 1 if key < _MAX_KEY else 1
        return key


def _keys():
    return [convert_to_tensor(size(), dtype=_dtypes.int32), convert_to_tensor(_GROUP_KEY, dtype=_dtypes.int32),
            convert_to_tensor(_next_key(), dtype=_dtypes.int32)]


def _reduce_one(value, op, timeout, name):
    merge, final = _OPS[op]
    return apply_op("CollectiveReduceV2", [value] + _keys() + [[]],
                    {"merge_op": merge, "final_op": final, "timeout_seconds": float(timeout)},
                    name=name or "CollectiveReduceV2")[0]


def all_reduce(values, op="sum", bucket_bytes=DEFAULT_BUCKET_BYTES, timeout=0, name=None):
    """The elementwise op ("sum", "mean", "min", "max" or "prod") of every rank's values: a tensor,
    or a structure of them (lists, tuples, dicts; IndexedSlices are made dense), given back in the
    same structure. Every rank gets the same bits. Tensors of one dtype whose shapes are known
    are packed into buckets of up to bucket_bytes, reduced with one op each. "mean" of integers
    truncates, as TensorFlow's. timeout: seconds each collective may wait (0: the default)."""
    if op not in _OPS:
        raise ValueError("op must be one of %s, got %r" % (", ".join(sorted(_OPS)), op))
    flat = _nest.flatten(values)
    tensors = [convert_to_tensor(v) for v in flat]  # IndexedSlices made dense
    out = [None] * len(tensors)
    # Buckets: consecutive tensors of one dtype with static shapes, up to bucket_bytes.
    buckets = []
    for i, t in enumerate(tensors):
        n = t.shape.num_elements()  # None unless the shape is known
        nbytes = None if n is None else n * t.dtype.size
        if nbytes is None or nbytes >= bucket_bytes:
            out[i] = _reduce_one(t, op, timeout, name)
            continue
        last = buckets[-1] if buckets else None
        if last is not None and last["dtype"] == t.dtype and last["bytes"] + nbytes <= bucket_bytes:
            last["items"].append((i, n))
            last["bytes"] += nbytes
        else:
            buckets.append({"dtype": t.dtype, "bytes": nbytes, "items": [(i, n)]})
    from graft import ops as _ops
    for b in buckets:
        items = b["items"]
        if len(items) == 1:
            i, _ = items[0]
            out[i] = _reduce_one(tensors[i], op, timeout, name)
            continue
        packed = _ops.concat([_ops.reshape(tensors[i], [-1]) for i, _ in items], 0)
        reduced = _reduce_one(packed, op, timeout, name)
        parts = _ops.split(reduced, [n for _, n in items], 0)
        for (i, _), part in zip(items, parts):
            out[i] = _ops.reshape(part, tensors[i].shape.as_list())
    return _nest.pack_sequence_as(values, out)


def all_gather(value, timeout=0, name=None):
    """Every rank's value concatenated along dimension 0, in rank order (the ranks' first
    dimensions may differ, the others must match)."""
    value = convert_to_tensor(value)
    return apply_op("CollectiveGatherV2", [value] + _keys() + [[]], {"timeout_seconds": float(timeout)},
                    name=name or "CollectiveGatherV2")[0]


def broadcast(value, root=0, timeout=0, name=None):
    """root's value on every rank. Every rank passes a tensor of the same dtype and shape (the
    others' values are not read, only their dtype and shape)."""
    value = convert_to_tensor(value)
    keys = _keys()
    if rank() == root:
        return apply_op("CollectiveBcastSendV2", [value] + keys, {"timeout_seconds": float(timeout)},
                        name=name or "CollectiveBcastSendV2")[0]
    if value.shape.is_fully_defined():
        shape_t = convert_to_tensor(value.shape.as_list(), dtype=_dtypes.int32)
    else:
        from graft import ops as _ops
        shape_t = _ops.shape(value)
    return apply_op("CollectiveBcastRecvV2", keys + [shape_t],
                    {"T": value.dtype, "timeout_seconds": float(timeout)}, name=name or "CollectiveBcastRecvV2")[0]


def broadcast_variables(variables, root=0):
    """Assigns every variable root's value (so that every rank starts training from the same
    weights). Returns the variables."""
    variables = list(variables)
    for v in variables:
        v.assign(broadcast(v.read_value(), root=root))
    return variables


class DistributedGradientTape:
    """Wraps a graft.GradientTape: gradient() returns the gradients all-reduced over the ranks
    (averaged by default, as Horovod's DistributedGradientTape), bucketed as all_reduce does.
    Everything else is the wrapped tape's."""

    def __init__(self, tape, op="mean", bucket_bytes=DEFAULT_BUCKET_BYTES):
        if op not in _OPS:
            raise ValueError("op must be one of %s, got %r" % (", ".join(sorted(_OPS)), op))
        self._tape = tape
        self._op = op
        self._bucket_bytes = bucket_bytes

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._tape, name)

    def gradient(self, target, sources, output_gradients=None, **kwargs):
        grads = self._tape.gradient(target, sources, output_gradients=output_gradients, **kwargs)
        flat = _nest.flatten(grads)
        present = [i for i, g in enumerate(flat) if g is not None]
        reduced = all_reduce([flat[i] for i in present], op=self._op, bucket_bytes=self._bucket_bytes)
        for i, g in zip(present, reduced):
            flat[i] = g
        return _nest.pack_sequence_as(grads, flat)
