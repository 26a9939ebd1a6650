/*
 * Graft: the library as a whole. The JNI library libgraft_java.so is loaded by the generated
 * class graft_swigJNI: from the system property graft.library (a file), else from
 * java.library.path.
 */
package graft;

public final class Graft {
  private Graft() {}

  /** The library's version, e.g. "0.1.0". */
  public static String version() {
    return graft_swig.graft_version();
  }

  /**
   * The devices of this machine (graft_device_list, as TensorFlow's list_physical_devices): the
   * CPU first, then each registered device type's devices (the OpenCL devices: "GPU" for GPUs
   * and accelerators, "OPENCL" for CPU OpenCL devices such as PoCL; GRAFT_OPENCL=0 hides them),
   * in the order a session numbers them. Finding them may start the OpenCL runtime (tens of
   * milliseconds the first time in a process). Each DeviceInfo is a copy, read through its
   * getters (getName(), getDeviceType(), getModel(), getVendor(), getDriver(), getMemoryBytes(),
   * getComputeUnits()).
   */
  public static java.util.List<DeviceInfo> listDevices() {
    return graft_swig.list_devices();
  }

  /** The devices of type deviceType ("CPU", "GPU", "OPENCL"), in listDevices() order. */
  public static java.util.List<DeviceInfo> listDevices(String deviceType) {
    java.util.List<DeviceInfo> out = new java.util.ArrayList<>();
    for (DeviceInfo d : listDevices()) {
      if (d.getDeviceType().equals(deviceType))
        out.add(d);
      else
        d.close();
    }
    return out;
  }

  /**
   * How many C++ objects owned by Java proxies are not freed yet (closed, or collected and
   * cleaned): a diagnostic for leaks.
   */
  public static long liveObjects() {
    return NativeHandle.live();
  }
}
