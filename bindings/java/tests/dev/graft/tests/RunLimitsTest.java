/*
 * RunLimitsTest: a session's memory cap (Session.Options.maxMemoryBytes) fails an op over it
 * with GRAFT_ENOMEM naming the op, a cancelled token or a passed deadline stops a run with
 * GRAFT_ECANCELLED / GRAFT_EDEADLINE, and the session stays usable after each.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunLimitsTest {
  /** Fill(dims, 1.0f) named "fill", its dims fed through "dims". */
  private static Output fill(Graph g, Operation[] dims) {
    dims[0] = g.opBuilder("Placeholder", "dims").setAttrDtype("dtype", DType.INT64).finish();
    Operation one = g.opBuilder("Const", "one").setAttrTensor("value", Tensor.scalar(1.0f))
        .setAttrDtype("dtype", DType.FLOAT32).finish();
    return g.opBuilder("Fill", "fill").addInput(dims[0].output(0)).addInput(one.output(0)).finish().output(0);
  }

  @Test
  void memoryCapFailsTheOpAndKeepsTheSession() {
    try (Graph g = new Graph()) {
      Operation[] dims = new Operation[1];
      Output out = fill(g, dims);
      Session.Options options = new Session.Options().maxMemoryBytes(1 << 20);
      assertEquals(1 << 20, options.maxMemoryBytes());
      try (Session s = new Session(g, options)) {
        GraftException e = assertThrows(GraftException.class,
            () -> s.run(List.of(out), Map.of(dims[0].output(0), Tensor.fromInt64s(new long[] {1024, 1024}, new long[] {2}))));
        assertEquals(Status.ENOMEM, e.code());
        assertTrue(e.getMessage().contains("Fill op 'fill'"), e.getMessage());
        assertTrue(e.getMessage().contains("memory cap of 1048576 bytes"), e.getMessage());
        Result small = s.run(List.of(out), Map.of(dims[0].output(0), Tensor.fromInt64s(new long[] {4}, new long[] {1})));
        assertArrayEquals(new float[] {1, 1, 1, 1}, small.get(0).toFloats());
      }
    }
  }

  @Test
  void cancellationAndDeadline() {
    try (Graph g = new Graph()) {
      Operation[] dims = new Operation[1];
      Output out = fill(g, dims);
      try (Session s = new Session(g); Cancellation token = new Cancellation()) {
        Map<Output, Tensor> feeds = Map.of(dims[0].output(0), Tensor.fromInt64s(new long[] {3}, new long[] {1}));
        token.cancel();
        assertTrue(token.cancelled());
        GraftException e = assertThrows(GraftException.class, () -> s.run(List.of(out), feeds, 0, token));
        assertEquals(Status.ECANCELLED, e.code());
        token.reset();
        assertFalse(token.cancelled());
        assertEquals(3, s.run(List.of(out), feeds, 60000, token).get(0).toFloats().length);
        // A deadline of 1 ms on a run of 100 products of 512 x 512 matrices (hundreds of ms on two
        // cores, far above a coarse-clock tick even on a fast machine).
        e = assertThrows(GraftException.class, () -> {
          try (Graph h = new Graph()) {
            Operation x = h.opBuilder("Placeholder", "x").setAttrDtype("dtype", DType.FLOAT32).finish();
            Output slow = x.output(0);
            for (int i = 0; i < 100; ++i) {
              slow = h.opBuilder("MatMul", "m" + i).addInput(slow).addInput(x.output(0)).finish().output(0);
            }
            try (Session hs = new Session(h)) {
              hs.run(List.of(slow), Map.of(x.output(0), Tensor.fromFloats(new float[512 * 512], new long[] {512, 512})), 1,
                     null);
            }
          }
        });
        assertEquals(Status.EDEADLINE, e.code(), e.getMessage());
      }
    }
  }

  @Test
  void processMemoryLimit() {
    assertEquals(0, Graft.memoryLimit());
    GraftException e = assertThrows(GraftException.class, () -> Graft.setMemoryLimit(-1));
    assertEquals(Status.EINVAL, e.code());
    try {
      Graft.setMemoryLimit(1L << 40);
      assertEquals(1L << 40, Graft.memoryLimit());
      try (Tensor t = Tensor.zeros(new long[] {1024}, DType.FLOAT32)) {
        assertTrue(Graft.memoryInUse() >= 4096, "in use: " + Graft.memoryInUse());
      }
    } finally {
      Graft.setMemoryLimit(0);
    }
    assertTrue(Graft.memoryCachedBytes() >= 0);
    assertTrue(Graft.releaseCachedMemory() >= 0);
  }
}
