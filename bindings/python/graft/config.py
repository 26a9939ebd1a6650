"""graft.config: the devices Graft finds, as tf.config lists them.

    graft.config.list_physical_devices()       # [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'), ...]
    graft.config.list_physical_devices("GPU")  # only the GPUs
    graft.config.list_logical_devices()        # [LogicalDevice(name='/job:localhost/replica:0/task:0/device:CPU:0', ...)]
    graft.config.experimental.get_device_details(dev)
        # {'device_name': 'AMD EPYC', 'vendor': ..., 'driver': ..., 'memory_bytes': ..., 'compute_units': 2}

The CPU comes first, then each registered device type's devices in the order sessions number
them: the OpenCL devices, type "GPU" for GPUs and accelerators and "OPENCL" for CPU OpenCL
devices such as PoCL (GRAFT_OPENCL=0 in the environment hides them). Over
graft_device_list (graft/device.h) through the shared layer's list_devices().
"""
import collections
import types as _types

from graft import graft_swig as _c

# As TensorFlow's (tensorflow/python/eager/context.py): plain named tuples.
PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_LOGICAL_PREFIX = "/job:localhost/replica:0/task:0/device:"


def _devices():
    """The C API's list: (full name, type, DeviceInfo) per device."""
    return [(d.name, d.device_type, d) for d in _c.list_devices()]


def _physical_name(full_name):
    """'/physical_device:GPU:0' from '/job:localhost/replica:0/task:0/device:GPU:0'."""
    i = full_name.find("/device:")
    return "/physical_device:" + (full_name[i + len("/device:"):] if i >= 0 else full_name)


def list_physical_devices(device_type=None):
    """The machine's devices, of device_type ("CPU", "GPU", "OPENCL") or all of them."""
    return [PhysicalDevice(name=_physical_name(name), device_type=kind) for name, kind, _ in _devices()
            if device_type is None or kind == device_type]


def list_logical_devices(device_type=None):
    """The devices ops can be placed on: one per physical device (Graft does not split them)."""
    return [LogicalDevice(name=name, device_type=kind) for name, kind, _ in _devices()
            if device_type is None or kind == device_type]


def get_device_details(device):
    """What a PhysicalDevice is: {'device_name': model, 'vendor', 'driver', 'memory_bytes',
    'compute_units'} (TensorFlow gives 'device_name' and, for CUDA GPUs, 'compute_capability')."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError("device must be a graft.config.PhysicalDevice, but got: %r" % (device,))
    for name, kind, info in _devices():
        if _physical_name(name) == device.name and kind == device.device_type:
            return {
                "device_name": info.model,
                "vendor": info.vendor,
                "driver": info.driver,
                "memory_bytes": int(info.memory_bytes),
                "compute_units": int(info.compute_units),
            }
    raise ValueError("Unrecognized device: %r" % (device,))


def set_memory_limit(limit_bytes):
    """Caps the tensor memory the whole process holds through Graft (every session, function
    call and eager op) at limit_bytes; 0 removes the cap (the default). An allocation past it
    raises ResourceExhaustedError naming the op, the bytes asked for and the cap
    (graft_memory_set_limit)."""
    from graft import errors
    limit_bytes = int(limit_bytes)
    if limit_bytes < 0:
        raise ValueError(f"the memory limit must be >= 0 bytes (0: none), got {limit_bytes}")
    rc = _c.graft_memory_set_limit(limit_bytes)
    if rc != 0:
        raise errors._from_c(rc, _c.graft_error_last())


def get_memory_limit():
    """The process's memory cap in bytes (0: none)."""
    return int(_c.graft_memory_limit())


def get_memory_in_use():
    """The bytes of tensor memory counted against the process's cap now (0 while it has none)."""
    return int(_c.graft_memory_in_use())


experimental = _types.SimpleNamespace(
    set_memory_limit=set_memory_limit,
    get_memory_limit=get_memory_limit,
    get_memory_in_use=get_memory_in_use,
    get_device_details=get_device_details,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
)
