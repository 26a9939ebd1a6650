/*
 * Graft: the library as a whole (version, devices, op libraries, process-wide memory). The JNI
 * library libgraft_java.so is loaded by the generated class graft_swigJNI: from the system
 * property graft.library (a file), else from java.library.path, else from the jar.
 */
package dev.graft;

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
   * Loads the op library at path (TensorFlow's tf.load_op_library; graft_library_load): a shared
   * library made with GRAFT_DEFINE_OP_LIBRARY (graft/kernel.h) whose ops, kernels, shape functions
   * and gradients are registered, all or nothing, for the rest of the process. Its ops are then
   * made as built-in ops are, by type name: {@code graph.opBuilder("ZeroOut", "z")} or {@code
   * ctx.op("ZeroOut")}. Loading the same file again registers nothing again. The result names the
   * library's file ({@link Library#path()}, absolute) and its ops ({@link Library#opNames()}, in
   * registration order); closing it does not unload the library. Throws GraftException:
   * GRAFT_ENOTFOUND (no such file, or not an op library; the message names the path),
   * GRAFT_EUNIMPLEMENTED (built against a newer kernel ABI), GRAFT_EEXISTS (one of its ops is
   * registered already).
   */
  public static Library loadOpLibrary(String path) {
    return Library.load(path);
  }

  /** {@link #loadOpLibrary(String)} of a path. */
  public static Library loadOpLibrary(java.nio.file.Path path) {
    return Library.load(path.toString());
  }

  /** The bytes of freed tensor buffers Graft keeps for reuse (process-wide; graft/memory.h). */
  public static long memoryCachedBytes() {
    return graft_swig.graft_memory_cached_bytes();
  }

  /** Frees the tensor buffers kept for reuse; returns how many bytes that gave back. */
  public static long releaseCachedMemory() {
    return graft_swig.graft_memory_release_cached();
  }

  /**
   * Caps the tensor memory the whole process holds through Graft at bytes (0: no cap, the
   * default): an allocation past it fails with GraftException GRAFT_ENOMEM naming the op.
   * Throws GraftException GRAFT_EINVAL for a negative value.
   */
  public static void setMemoryLimit(long bytes) {
    int rc = graft_swig.graft_memory_set_limit(bytes);
    if (rc != Status.OK) throw Status.exception(rc, graft_swig.graft_error_last());
  }

  /** The process's cap on tensor memory in bytes (0: none). */
  public static long memoryLimit() {
    return graft_swig.graft_memory_limit();
  }

  /** The bytes counted against the process's cap now (tensors made while it was set). */
  public static long memoryInUse() {
    return graft_swig.graft_memory_in_use();
  }

  /**
   * How many C++ objects owned by Java proxies are not freed yet (closed, or collected and
   * cleaned): a diagnostic for leaks.
   */
  public static long liveObjects() {
    return NativeHandle.live();
  }
}
