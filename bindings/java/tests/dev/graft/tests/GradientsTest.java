/*
 * GradientsTest: symbolic gradients (Graph.addGradients) of graphs built with OpBuilder, run in
 * a Session; none for an unconnected x; upstream gradients (dys).
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GradientsTest {
  private static Output constant(Graph g, String name, Tensor value) {
    return g.opBuilder("Const", name).setAttrTensor("value", value).setAttrDtype("dtype", value.dtype()).finish()
        .output(0);
  }

  @Test
  void gradientOfSquareAndMatMul() {
    try (Graph g = new Graph();
         Tensor xv = Tensor.fromFloats(new float[] {1, 2}, new long[] {1, 2});
         Tensor wv = Tensor.fromFloats(new float[] {3, 4}, new long[] {2, 1});
         Tensor dyv = Tensor.fromFloats(new float[] {10}, new long[] {1, 1})) {
      Output x = constant(g, "x", xv);
      Output w = constant(g, "w", wv);
      Output y = g.opBuilder("MatMul", "y").addInput(x).addInput(w).finish().output(0);
      Output[] grads = g.addGradients(new Output[] {y}, new Output[] {x, w}, null);
      assertEquals(2, grads.length);
      assertTrue(grads[0].name().startsWith("gradients/"), grads[0].name());
      Output sq = g.opBuilder("Square", "sq").addInput(x).finish().output(0);
      Output dsq = g.addGradients(sq, x);
      Output[] scaled = g.addGradients("scaled", new Output[] {y}, new Output[] {w}, new Output[] {constant(g, "dy", dyv)});
      assertTrue(scaled[0].name().startsWith("scaled/"), scaled[0].name());
      try (Session s = new Session(g)) {
        try (Result out = s.run(List.of(grads[0], grads[1], dsq, scaled[0]))) {
          assertArrayEquals(new float[] {3, 4}, out.get(0).toFloats());
          assertArrayEquals(new float[] {1, 2}, out.get(1).toFloats());
          assertArrayEquals(new float[] {2, 4}, out.get(2).toFloats());
          assertArrayEquals(new float[] {10, 20}, out.get(3).toFloats());
        }
      }
    }
  }

  @Test
  void unconnectedGradientIsNullAndErrorsAreExceptions() {
    try (Graph g = new Graph();
         Tensor av = Tensor.fromFloats(new float[] {2}, new long[] {});
         Tensor iv = Tensor.fromInt32s(new int[] {2}, new long[] {})) {
      Output a = constant(g, "a", av);
      Output b = constant(g, "b", av);
      Output y = g.opBuilder("Square", "y").addInput(a).finish().output(0);
      assertNull(g.addGradients(y, b));
      Output i = constant(g, "i", iv);
      assertThrows(GraftException.class, () -> g.addGradients(new Output[] {y}, new Output[] {a},
                                                              new Output[] {i})); // dtype mismatch
    }
  }

  @Test
  void javaGradientFunctionThroughAnOverrideMap() {
    Gradients.register("JavaTimesTen", (op, grads) -> {
      try (Tensor ten = Tensor.fromFloats(new float[] {10}, new long[] {})) {
        Graph g = op.graph();
        Output c = g.opBuilder("Const", "").setAttrTensor("value", ten).setAttrDtype("dtype", DType.FLOAT32)
            .finish().output(0);
        return List.of(g.opBuilder("Mul", "").addInput(grads.get(0)).addInput(c).finish().output(0));
      }
    });
    Gradients.register("JavaFails", (op, grads) -> {
      throw new IllegalStateException("no gradient today");
    });
    assertTrue(Gradients.isRegistered("JavaTimesTen"));
    assertThrows(GraftException.class, () -> Gradients.register("JavaTimesTen", (op, grads) -> grads));
    try (Graph g = new Graph(); Tensor xv = Tensor.fromFloats(new float[] {3, 4}, new long[] {2})) {
      Output x = constant(g, "x", xv);
      g.pushGradientOverrideMap(List.of("Identity", "Neg"), List.of("JavaTimesTen", "JavaFails"));
      Output y = g.opBuilder("Identity", "y").addInput(x).finish().output(0);
      Output z = g.opBuilder("Neg", "z").addInput(x).finish().output(0);
      g.popGradientOverrideMap();
      Output dx = g.addGradients(y, x);
      long n = g.numOps();
      GraftException e = assertThrows(GraftException.class, () -> g.addGradients(z, x));
      assertTrue(e.getMessage().contains("no gradient today"), e.getMessage());
      assertEquals(n, g.numOps());
      try (Session s = new Session(g)) {
        Tensor out = s.run(List.of(dx)).get(0);
        assertArrayEquals(new float[] {10, 10}, out.toFloats());
        out.close();
      }
    }
  }

  /** An embedding read only by ResourceGather gets rows; read whole too, a dense gradient. */
  @Test
  void gradientsAsRows() {
    try (Graph g = new Graph();
         Tensor v0 = Tensor.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, new long[] {3, 2});
         Tensor idv = Tensor.fromInt32s(new int[] {2, 0, 2}, new long[] {3})) {
      Output h = g.opBuilder("VarHandleOp", "emb").setAttrDtype("dtype", DType.FLOAT32)
          .setAttrShape("shape", new Shape(new long[] {3, 2})).finish().output(0);
      Operation init = g.opBuilder("AssignVariableOp", "init").addInput(h).addInput(constant(g, "v0", v0))
          .setAttrDtype("dtype", DType.FLOAT32).finish();
      Output rows = g.opBuilder("ResourceGather", "rows").addInput(h).addInput(constant(g, "ids", idv))
          .setAttrDtype("dtype", DType.FLOAT32).finish().output(0);
      Output read = g.opBuilder("ReadVariableOp", "read").addInput(h).setAttrDtype("dtype", DType.FLOAT32).finish()
          .output(0);
      Object[] sparse = g.addGradientsSparse(new Output[] {rows}, new Output[] {h}, null);
      assertTrue(sparse[0] instanceof IndexedSlices, String.valueOf(sparse[0]));
      IndexedSlices r = (IndexedSlices) sparse[0];
      Object[] dense = g.addGradientsSparse(new Output[] {rows, read}, new Output[] {h}, null);
      assertTrue(dense[0] instanceof Output, String.valueOf(dense[0]));
      try (Session s = new Session(g)) {
        assertTrue(s.run(List.of(), Map.of(), List.of(init)).isEmpty()); // a target alone
        try (Result out = s.run(List.of(r.values(), r.indices(), r.denseShape(), (Output) dense[0]))) {
          assertArrayEquals(new float[] {1, 1, 1, 1, 1, 1}, out.get(0).toFloats());
          assertArrayEquals(new int[] {2, 0, 2}, out.get(1).toInt32s());
          assertArrayEquals(new int[] {3, 2}, out.get(2).toInt32s());
          assertArrayEquals(new float[] {2, 2, 1, 1, 3, 3}, out.get(3).toFloats());
        }
      }
    }
  }
}
