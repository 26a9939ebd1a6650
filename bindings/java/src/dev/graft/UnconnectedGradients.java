/*
 * UnconnectedGradients: what GradientTape.gradient gives a source that no target depends on
 * (TensorFlow's tf.UnconnectedGradients).
 */
package dev.graft;

public enum UnconnectedGradients {
  /** null. */
  NONE,
  /** Zeros of the source's shape. */
  ZERO
}
