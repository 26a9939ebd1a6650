"""graft.Session (tf.compat.v1.Session): runs a Graph's tensors and ops with feeds."""
import threading

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c


class _SessionStack(threading.local):
    def __init__(self):
        self.stack = []


_default_sessions = _SessionStack()


def get_default_session():
    return _default_sessions.stack[-1] if _default_sessions.stack else None


def _flatten_fetches(fetches):
    """Flat fetch list and a function rebuilding the caller's structure from the values."""
    if isinstance(fetches, (list, tuple)):
        parts = [_flatten_fetches(f) for f in fetches]
        flat = [x for p in parts for x in p[0]]

        def rebuild(values, parts=parts, kind=type(fetches)):
            out, i = [], 0
            for sub, fn in parts:
                out.append(fn(values[i:i + len(sub)]))
                i += len(sub)
            if hasattr(kind, "_fields"):
                return kind(*out)
            return kind(out) if kind is tuple else out
        return flat, rebuild
    if isinstance(fetches, dict):
        keys = list(fetches.keys())
        parts = [_flatten_fetches(fetches[k]) for k in keys]
        flat = [x for p in parts for x in p[0]]

        def rebuild(values, parts=parts, keys=keys, kind=type(fetches)):
            out, i = kind(), 0
            for k, (sub, fn) in zip(keys, parts):
                out[k] = fn(values[i:i + len(sub)])
                i += len(sub)
            return out
        return flat, rebuild
    if fetches is None:
        raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
    return [fetches], lambda values: values[0]


class RunOptions:
    """Options of one Session.run (tf.compat.v1.RunOptions): timeout_in_ms > 0 stops the run
    with DeadlineExceededError once that long has passed (checked before each op, loop
    iterations included); 0 uses the session's ConfigProto.operation_timeout_in_ms. The other
    fields of TensorFlow's message (tracing, debug options) are accepted and have no effect."""

    def __init__(self, timeout_in_ms=0, trace_level=0, **unused):
        self.timeout_in_ms = int(timeout_in_ms)
        self.trace_level = trace_level
        for name, value in unused.items():
            setattr(self, name, value)

    def __repr__(self):
        return f"RunOptions(timeout_in_ms={self.timeout_in_ms})"


class RunMetadata:
    """tf.compat.v1.RunMetadata: accepted by Session.run; Graft records nothing into it."""

    def __init__(self):
        self.step_stats = None
        self.partition_graphs = []


class ConfigProto:
    """Session options (tf.compat.v1.ConfigProto): operation_timeout_in_ms (> 0: the default
    deadline of every run of the session), inter_op_parallelism_threads (the threads that run
    the session's independent ops: 0 one per core, 1 the calling thread only, at most 1024).
    Other fields are accepted and have no effect."""

    def __init__(self, operation_timeout_in_ms=0, inter_op_parallelism_threads=0, intra_op_parallelism_threads=0,
                 **unused):
        self.operation_timeout_in_ms = int(operation_timeout_in_ms)
        self.inter_op_parallelism_threads = int(inter_op_parallelism_threads)
        self.intra_op_parallelism_threads = int(intra_op_parallelism_threads)
        for name, value in unused.items():
            setattr(self, name, value)


def _timeout_ms(options, default):
    """The run's deadline in ms: options' timeout_in_ms when > 0, else the session's default."""
    t = getattr(options, "timeout_in_ms", 0) if options is not None else 0
    if t < 0:
        raise ValueError(f"RunOptions.timeout_in_ms must be >= 0, got {t}")
    return t if t > 0 else default


class Session:
    """Runs graph (the default graph when None). Usable as a context manager, which makes it
    the default session. A run is cancelled by Ctrl-C (KeyboardInterrupt) and stops at its
    deadline (RunOptions.timeout_in_ms, ConfigProto.operation_timeout_in_ms)."""

    def __init__(self, target="", graph=None, config=None, num_threads=0, max_memory_bytes=0, cluster=None):
        """max_memory_bytes > 0 caps the tensor memory the session's runs hold at once (Graft's
        own option): an allocation past it raises ResourceExhaustedError naming the op.

        cluster: a cluster spec ("worker:2,ps:1") to run the graph across the processes of the
        MPI job this one is in (mpirun): each op runs on the task its device names
        (graft.device("/job:ps/task:0")). Every process builds the same graph and makes the
        session; rank 0 runs it, the others call serve() (docs/distributed.md)."""
        self._graph = graph if graph is not None else _fw.get_default_graph()
        if config is not None and not num_threads:
            num_threads = getattr(config, "inter_op_parallelism_threads", 0) or 0
        self._timeout = max(0, int(getattr(config, "operation_timeout_in_ms", 0) or 0)) if config is not None else 0
        if max_memory_bytes or cluster:
            self._c = _c.Session(self._graph._c, num_threads, False, 0, "", False, int(max_memory_bytes),
                                 str(cluster or ""))
            if cluster:
                from graft import distribute
                distribute._track_cluster_session(self)
        else:
            self._c = _c.Session(self._graph._c, num_threads)
        self._closed = False
        self._take_results = not max_memory_bytes
        self._default_ctx = None
        self._plans = {}   # fetch structure -> _fetch_plan's result
        self._feeds = {}   # feed key -> _feed_info's result

    @classmethod
    def _from_c(cls, c_session, graph):
        """A Session over an existing C session (a loaded SavedModel's) and its graph."""
        s = cls.__new__(cls)
        s._graph, s._c, s._closed, s._default_ctx = graph, c_session, False, None
        s._plans, s._feeds, s._timeout, s._take_results = {}, {}, 0, True
        return s

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    def _element(self, fetch):
        if isinstance(fetch, str):
            fetch = self._graph.as_graph_element(fetch)
        if isinstance(fetch, _fw.Tensor):
            if fetch._value is not None and not isinstance(fetch, _fw.EagerTensor):
                raise TypeError(f"Fetch {fetch!r} is a tensor of a traced function, not of this session's graph.")
            if isinstance(fetch, _fw.EagerTensor):
                return ("eager", fetch)
            if fetch.graph is not self._graph:
                raise ValueError(f"Tensor {fetch.name} is not an element of this graph.")
            if not self._graph.is_fetchable(fetch):
                raise ValueError(f"Operation {fetch.op.name!r} has been marked as not fetchable.")
            return ("tensor", fetch)
        if isinstance(fetch, _fw.Operation):
            if fetch.graph is not self._graph:
                raise ValueError(f"Operation {fetch.name} is not an element of this graph.")
            if not self._graph.is_fetchable(fetch):
                raise ValueError(f"Operation {fetch.name!r} has been marked as not fetchable.")
            return ("op", fetch)
        if hasattr(fetch, "_as_graph_element"):
            return self._element(fetch._as_graph_element())
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or Tensor.")

    def _fetch_plan(self, fetches):
        """What a fetch structure resolves to (its elements, the C outputs and targets, the
        rebuilding function, each fetched tensor's NumPy dtype), made once per fetch object
        and structure: TensorFlow's programs call run with the same fetches over and over."""
        key = fetches if isinstance(fetches, (_fw.Tensor, _fw.Operation)) else None
        if key is None and isinstance(fetches, (list, tuple)) and \
                all(isinstance(f, (_fw.Tensor, _fw.Operation)) for f in fetches):
            key = (type(fetches), tuple(fetches))
        if key is not None:
            try:
                plan = self._plans.get(key)
            except TypeError:  # an unhashable fetch
                key, plan = None, None
            if plan is not None:
                return plan
        flat, rebuild = _flatten_fetches(fetches)
        elements = [self._element(f) for f in flat]
        fetch_outputs, targets = [], []
        for i, (kind, x) in enumerate(elements):
            if kind == "tensor":
                fetch_outputs.append(x._out())
                # The NumPy type string of a plain numeric result, for the fast copy in _results.
                np_dtype = x.dtype.base_dtype.as_numpy_dtype if x.dtype.base_dtype != _dtypes.string else None
                kind_char = np.dtype(np_dtype).kind if np_dtype is not None else "O"
                elements[i] = (kind, np.dtype(np_dtype).str if kind_char in "biufc" else None)
            elif kind == "op":
                targets.append(x._c)
        plan = (elements, fetch_outputs, targets, rebuild)
        if key is not None and len(self._plans) < 256:
            self._plans[key] = plan
        return plan

    def _feed_info(self, key):
        """A feed key's checked facts, once per key: (output, dtype, NumPy dtype, static dims or
        None for an unknown rank, whether the dtype is an integer one, the key, the dtype's enum)."""
        info = self._feeds.get(key)
        if info is not None:
            return info
        if isinstance(key, str):
            return self._feed_info(self._graph.as_graph_element(key, allow_operation=False))
        if not isinstance(key, _fw.Tensor) or key._value is not None:
            raise TypeError(f"Cannot interpret feed_dict key {key!r} as a Tensor of this graph.")
        if key.graph is not self._graph:
            raise ValueError(f"Tensor {key.name} is not an element of this graph.")
        if not self._graph.is_feedable(key):
            raise ValueError(f"Tensor {key.name} may not be fed.")
        dtype = key.dtype.base_dtype
        np_dtype = dtype.as_numpy_dtype if dtype != _dtypes.string else object
        dims = None if key.shape.rank is None else tuple(key.shape.as_list())
        info = (key._out(), dtype, np_dtype, dims, dtype.is_integer, key, dtype.as_datatype_enum)
        if len(self._feeds) < 1024:
            self._feeds[key] = info
        return info

    @staticmethod
    def _feed_value(info, value):
        """A feed's value as a graft_swig.Tensor, checked against the fed tensor's dtype and shape."""
        out, dtype, np_dtype, dims, is_integer, key, enum = info
        if isinstance(value, _fw.Tensor):
            if isinstance(value, _fw.EagerTensor):
                value = value.numpy()
            else:
                raise TypeError("The value of a feed cannot be a graft.Tensor object. Acceptable feed values "
                                "include Python scalars, strings, lists, numpy ndarrays.")
        arr = np.asarray(value, dtype=np_dtype)
        if is_integer and np.asarray(value).dtype.kind == "f":
            if not np.all(np.mod(np.asarray(value), 1) == 0):
                raise ValueError(f"Cannot feed value {value!r} to tensor {key.name} of dtype {dtype.name}")
        if dims is not None:
            shape = arr.shape
            if len(shape) != len(dims) or any(d is not None and d != n for d, n in zip(dims, shape)):
                raise ValueError(f"Cannot feed value of shape {shape} for Tensor {key.name}, which has shape "
                                 f"{key.shape}")
        if arr.dtype.kind in "biufc" and arr.flags.c_contiguous:
            # Read in place, as TensorFlow does: Graft never writes a fed buffer (kernels make
            # their outputs in memory of their own) and keeps the array until the run lets go.
            return _c.tensor_borrow_buffer(enum, list(arr.shape), arr)
        return _fw._c_tensor_from_numpy(arr, dtype)

    @staticmethod
    def _results(elements, values, rebuild, take=True):
        """The fetched values as NumPy arrays. take: an output that the run hands over whole
        (no variable, cache or feed shares its buffer) becomes the array's memory without a
        copy; off for a session with max_memory_bytes or while the process has a memory cap
        (graft.config.set_memory_limit), which would go on counting results the caller keeps."""
        results, i = [], 0
        for kind, x in elements:
            if kind == "tensor":
                results.append(_fw._numpy_of(values[i], copy=True, typestr=x, take=take))
                i += 1
            elif kind == "eager":
                results.append(x.numpy())
            else:
                results.append(None)
        return rebuild(results)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        elements, fetch_outputs, targets, rebuild = self._fetch_plan(fetches)
        feeds, feed_values = [], []
        if feed_dict:
            for key, value in feed_dict.items():
                info = self._feed_info(key)
                feeds.append(info[0])
                feed_values.append(self._feed_value(info, value))
        timeout = _timeout_ms(options, self._timeout)
        values = _c.session_run(self._c, fetch_outputs, feeds, feed_values, targets, timeout)
        return self._results(elements, values, rebuild, self._take_results and not _c.graft_memory_limit())

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function that runs fetches with the values of feed_list's tensors (in that order) as
        its positional arguments, as TensorFlow's Session.make_callable: the run is prepared
        once (pruning, rewrites, kernels), so each call only feeds and runs. It keeps working
        after the session is closed, until it is garbage-collected."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        elements, fetch_outputs, targets, rebuild = self._fetch_plan(fetches)
        infos = [self._feed_info(k) for k in (feed_list or [])]
        c_callable = _c.Callable(self._c, fetch_outputs, [info[0] for info in infos], targets)
        feed_value, results, default_timeout, take = self._feed_value, self._results, self._timeout, self._take_results
        memory_limit = _c.graft_memory_limit
        callable_run = _c.callable_run

        def run_callable(*args, **kwargs):
            timeout = default_timeout
            if kwargs:
                if not (accept_options and set(kwargs) <= {"options", "run_metadata"}):
                    raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
                timeout = _timeout_ms(kwargs.get("options"), default_timeout)
            if len(args) != len(infos):
                raise TypeError(f"the callable takes {len(infos)} feed values, got {len(args)}")
            values = callable_run(c_callable, [feed_value(info, v) for info, v in zip(infos, args)], timeout)
            return results(elements, values, rebuild, take and not memory_limit())

        return run_callable

    def serve(self):
        """A cluster session's processes other than rank 0: run their parts of rank 0's runs until
        rank 0 closes its session."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        self._c.serve()

    def close(self):
        """Releases the session's resources (its variables); closing again does nothing."""
        self._closed = True
        self._c = None

    def as_default(self):
        return _DefaultSession(self)

    def __enter__(self):
        self._default_ctx = self.as_default()
        self._graph_ctx = self._graph.as_default()
        self._graph_ctx.__enter__()
        return self._default_ctx.__enter__()

    def __exit__(self, *exc):
        self._default_ctx.__exit__(*exc)
        self._graph_ctx.__exit__(*exc)
        self.close()
        return False

    @staticmethod
    def reset(target, containers=None, config=None):
        return None


class _DefaultSession:
    def __init__(self, session):
        self._s = session

    def __enter__(self):
        _default_sessions.stack.append(self._s)
        return self._s

    def __exit__(self, *exc):
        _default_sessions.stack.pop()
        return False


class InteractiveSession(Session):
    """A Session that makes itself the default session on creation."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        _default_sessions.stack.append(self)

    def close(self):
        super().close()
        if self in _default_sessions.stack:
            _default_sessions.stack.remove(self)
