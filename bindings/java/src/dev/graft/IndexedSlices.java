/*
 * IndexedSlices: a gradient given as rows (TensorFlow's tf.IndexedSlices), from
 * Graph.addGradientsSparse: zero except at the rows `indices` (1-D int32 or int64) of a tensor
 * of shape `denseShape` (1-D int32), which get the matching rows of `values`; a row named twice
 * gets both. ResourceScatterAdd or a ResourceSparseApply* op applies it to those rows only.
 * The outputs belong to their graph, as every Output does.
 */
package dev.graft;

public final class IndexedSlices {
  private final Output values, indices, denseShape;

  public IndexedSlices(Output values, Output indices, Output denseShape) {
    this.values = values;
    this.indices = indices;
    this.denseShape = denseShape;
  }

  /** One row per index. */
  public Output values() {
    return values;
  }

  /** The rows' numbers in the dense tensor. */
  public Output indices() {
    return indices;
  }

  /** The dense tensor's shape. */
  public Output denseShape() {
    return denseShape;
  }
}
