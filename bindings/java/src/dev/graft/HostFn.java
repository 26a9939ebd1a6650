/*
 * HostFn: a Java closure run by the host-function op (HostFunctions.register), possibly on a
 * thread of Graft's and on several threads at once.
 */
package dev.graft;

import java.util.List;

@FunctionalInterface
public interface HostFn {
  /**
   * Computes the outputs from the input tensors (which are closed after the call unless
   * returned). An exception fails the op's run with a GraftException carrying its message.
   */
  List<Tensor> call(List<Tensor> inputs) throws Exception;
}
