"""graft.device in eager mode and in traced functions: ops asking for the OpenCL device run
there when the process has one (PoCL in CI) and give the CPU's values; a device the process
lacks falls back to the CPU; a device string that does not parse is an error."""
import numpy as np
import pytest

import graft


def _opencl_device():
    for kind in ("GPU", "OPENCL"):
        if graft.config.list_physical_devices(kind):
            return f"/device:{kind}:0"
    return None


def test_eager_ops_on_the_device_match_the_cpu():
    device = _opencl_device()
    if device is None:
        pytest.skip("Graft was built without OpenCL or the machine has no OpenCL device")
    rng = np.random.default_rng(3)
    a = graft.constant(rng.standard_normal((5, 7)).astype(np.float32))
    b = graft.constant(rng.standard_normal((7, 3)).astype(np.float32))
    want = graft.nn.relu(graft.matmul(a, b) - 0.5).numpy()
    with graft.device(device):
        got = graft.nn.relu(graft.matmul(a, b) - 0.5)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)

    @graft.function
    def f(x, y):
        with graft.device(device):
            return graft.nn.softmax(graft.matmul(x, y))

    np.testing.assert_allclose(f(a, b).numpy(), graft.nn.softmax(graft.matmul(a, b)).numpy(), rtol=1e-5,
                               atol=1e-6)


def test_missing_device_falls_back_and_bad_strings_are_errors():
    a = graft.constant([1.0, 2.0])
    with graft.device("/device:GPU:7"):
        np.testing.assert_array_equal((a + a).numpy(), [2.0, 4.0])
    with pytest.raises((ValueError, graft.errors.InvalidArgumentError)):
        with graft.device("/device:GPU:x:y"):
            a + a
