/*
 * ClosureDeviceFunction: the DeviceFunction director of Graph.pushDeviceFunction.
 */
package dev.graft;

final class ClosureDeviceFunction extends DeviceFunction {
  private final java.util.function.Function<Operation, String> fn;

  ClosureDeviceFunction(java.util.function.Function<Operation, String> fn) {
    if (fn == null) throw new NullPointerException("graft: null device function");
    this.fn = fn;
  }

  @Override
  public String deviceFor(Operation op) {
    try {
      String device = fn.apply(op);
      return device == null ? "" : device;
    } catch (RuntimeException e) {
      return ""; // Graft's device functions cannot fail: no device
    } finally {
      op.delete();
    }
  }
}
