"""python -m graft: what this installation is. Prints the package's and libgraft's versions,
where libgraft was loaded from, and the devices Graft finds (graft.config); exits 1 when the
library does not run a one-op graph on the CPU."""
import os
import sys


def _loaded_library():
    """The path of the libgraft the extension loaded (from the process's maps on Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libgraft.so"):
                    return path
    except OSError:
        pass
    return "(unknown)"


def main(argv=None):
    import numpy as np

    import graft
    from graft import graft_swig as _c

    print(f"graft {graft.__version__} (Python package at {os.path.dirname(graft.__file__)})")
    print(f"libgraft {_c.graft_version()}, soversion {_c.graft_soversion()}: {_loaded_library()}")
    print("devices:")
    for dev in graft.config.list_physical_devices():
        details = graft.config.experimental.get_device_details(dev)
        memory = details["memory_bytes"] / (1 << 30)
        print(f"  {dev.name} ({dev.device_type}): {details['device_name']}, {details['compute_units']} compute units, "
              f"{memory:.1f} GiB")
    got = graft.matmul(graft.constant([[1.0, 2.0]]), graft.constant([[3.0], [4.0]])).numpy()
    if not np.array_equal(got, [[11.0]]):
        print(f"self-check failed: [[1, 2]] x [[3], [4]] gave {got!r}", file=sys.stderr)
        return 1
    print("self-check: a MatMul ran on the CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
