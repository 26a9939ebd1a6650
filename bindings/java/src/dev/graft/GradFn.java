/*
 * GradFn: a Java gradient function (TensorFlow's RegisterGradient), registered with
 * Gradients.register and called while Graph.addGradients builds a gradient.
 */
package dev.graft;

import java.util.List;

@FunctionalInterface
public interface GradFn {
  /**
   * Builds the gradient of op's inputs (ops added to op.graph(), under the op's gradient name
   * scope) from grads, the incoming gradient of each of op's outputs (null where none flows).
   * Returns one gradient per input of op, null for none. An exception fails addGradients with a
   * GraftException carrying its message.
   */
  List<Output> gradient(Operation op, List<Output> grads) throws Exception;
}
