"""graft.config.list_physical_devices / list_logical_devices / experimental.get_device_details,
as tf.config's, over graft_device_list."""
import os

import pytest

import graft


def test_cpu_first():
    devices = graft.config.list_physical_devices()
    assert devices[0] == graft.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert devices[0].name == "/physical_device:CPU:0"
    assert devices[0].device_type == "CPU"
    assert repr(devices[0]) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert [d.device_type for d in devices].count("CPU") == 1


def test_filter_by_type():
    assert graft.config.list_physical_devices("CPU") == [
        graft.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]
    assert graft.config.list_physical_devices("TPU") == []
    every = graft.config.list_physical_devices()
    for kind in {d.device_type for d in every}:
        assert graft.config.list_physical_devices(kind) == [d for d in every if d.device_type == kind]


def test_logical_devices():
    logical = graft.config.list_logical_devices()
    physical = graft.config.list_physical_devices()
    assert logical[0] == graft.config.LogicalDevice(name="/job:localhost/replica:0/task:0/device:CPU:0",
                                                     device_type="CPU")
    assert len(logical) == len(physical)
    for lg, ph in zip(logical, physical):
        assert lg.device_type == ph.device_type
        assert lg.name.endswith(ph.name[len("/physical_device"):])
    assert graft.config.experimental.list_logical_devices("CPU") == logical[:1]


def test_cpu_details():
    cpu = graft.config.list_physical_devices("CPU")[0]
    details = graft.config.experimental.get_device_details(cpu)
    assert set(details) == {"device_name", "vendor", "driver", "memory_bytes", "compute_units"}
    assert isinstance(details["device_name"], str) and details["device_name"]
    assert details["memory_bytes"] >= 64 << 20
    assert details["compute_units"] >= 1


def test_opencl_details():
    opencl = [d for d in graft.config.list_physical_devices() if d.device_type in ("GPU", "OPENCL")]
    if os.environ.get("GRAFT_OPENCL") == "0":
        assert opencl == []
        return
    if not opencl:
        pytest.skip("no OpenCL device (built without GRAFT_OPENCL, or no OpenCL platform)")
    for i, dev in enumerate(d for d in opencl if d.device_type == opencl[0].device_type):
        assert dev.name == "/physical_device:%s:%d" % (opencl[0].device_type, i)
    details = graft.config.experimental.get_device_details(opencl[0])
    assert details["device_name"]
    assert details["driver"].startswith("OpenCL ")
    assert details["memory_bytes"] > 0
    assert details["compute_units"] >= 1


def test_details_errors():
    with pytest.raises(ValueError, match="PhysicalDevice"):
        graft.config.experimental.get_device_details("/physical_device:CPU:0")
    with pytest.raises(ValueError, match="Unrecognized device"):
        graft.config.experimental.get_device_details(
            graft.config.PhysicalDevice(name="/physical_device:GPU:99", device_type="GPU"))


def test_place_on_a_listed_device():
    """A listed logical device's name places ops, and the result is the CPU's."""
    for dev in graft.config.list_logical_devices():
        with graft.device(dev.name):
            y = graft.add(graft.constant([1.0, 2.0]), graft.constant([3.0, 4.0]))
        assert y.numpy().tolist() == [4.0, 6.0]
