/*
 * ValueRows: a gradient given as rows (TensorFlow's tf.IndexedSlices), from
 * GradientTape.gradientSparse: `values` holds one row per index of `indices` (1-D int32 or
 * int64) of a tensor of shape `denseShape`; a row named twice gets both. Closing it closes the
 * three values.
 */
package dev.graft;

public final class ValueRows implements AutoCloseable {
  private final Value values, indices, denseShape;

  public ValueRows(Value values, Value indices, Value denseShape) {
    this.values = values;
    this.indices = indices;
    this.denseShape = denseShape;
  }

  /** One row per index. */
  public Value values() {
    return values;
  }

  /** The rows' numbers in the dense tensor. */
  public Value indices() {
    return indices;
  }

  /** The dense tensor's shape. */
  public Value denseShape() {
    return denseShape;
  }

  @Override
  public void close() {
    values.close();
    indices.close();
    denseShape.close();
  }
}
