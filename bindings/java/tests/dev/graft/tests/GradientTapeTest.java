/*
 * GradientTapeTest: eager gradients with GradientTape: a watched tensor, MatMul through a
 * variable read (trainable variables are watched when read), persistent and one-shot tapes,
 * unconnected sources, upstream gradients, nested tapes (second derivatives), pausing, and the
 * thread rules (a tape records, and is closed while recording, on its own thread).
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class GradientTapeTest {
  private static Value scalar(Context ctx, double x) {
    return ctx.fromDoubles(new double[] {x}, new long[] {}, DType.FLOAT32);
  }

  private static Value op(Context ctx, String type, Value... inputs) {
    OpCall call = ctx.op(type);
    for (Value v : inputs) call.addInput(v);
    try (OpCall c = call) {
      return c.execute().get(0);
    }
  }

  @Test
  void squareOnce() {
    try (Context ctx = new Context()) {
      Value x = scalar(ctx, 3);
      Value dx;
      Value y;
      try (GradientTape tape = new GradientTape(ctx)) {
        assertTrue(tape.isRecording());
        tape.watch(x);
        y = op(ctx, "Mul", x, x);
        tape.stop();
        assertFalse(tape.isRecording());
        dx = tape.gradient(y, x);
        assertArrayEquals(new float[] {6}, dx.toFloats());
        // Not persistent: a second gradient is the C API's error.
        GraftException e = assertThrows(GraftException.class, () -> tape.gradient(y, x));
        assertEquals(Status.EPRECONDITION, e.code());
        assertEquals("GRAFT_EPRECONDITION", e.codeName());
        assertTrue(e.getMessage().contains("persistent"), e.getMessage());
        // Closing a stopped tape is fine, twice too; the gradient outlives it.
        tape.close();
        assertTrue(tape.isClosed());
        assertThrows(IllegalStateException.class, () -> tape.gradient(y, x));
      }
      assertArrayEquals(new float[] {6}, dx.toFloats());
    }
  }

  @Test
  void matMulThroughAVariableRead() {
    try (Context ctx = new Context()) {
      Value x = ctx.fromDoubles(new double[] {1, 2}, new long[] {1, 2}, DType.FLOAT32);
      Value w = ctx.variableNew(ctx.fromDoubles(new double[] {3, 4}, new long[] {2, 1}, DType.FLOAT32), "w");
      Value frozen = ctx.variableNew(scalar(ctx, 2), "frozen");
      ctx.variableSetTrainable(frozen, false);
      try (GradientTape tape = new GradientTape(ctx)) {
        tape.watch(x);
        Value y = op(ctx, "MatMul", x, ctx.variableRead(w)); // [[11]]
        Value z = op(ctx, "Mul", y, ctx.variableRead(frozen));
        tape.stop();
        List<Value> watched = tape.watchedVariables(); // w (trainable, read), not frozen
        assertEquals(1, watched.size());
        assertArrayEquals(new float[] {3, 4}, ctx.variableRead(watched.get(0)).toFloats());
        Value[] g = tape.gradient(z, new Value[] {x, w, frozen});
        assertArrayEquals(new float[] {6, 8}, g[0].toFloats()); // 2 w^T
        assertArrayEquals(new float[] {2, 4}, g[1].toFloats()); // 2 x^T
        assertArrayEquals(new long[] {2, 1}, g[1].shape().dims());
        assertNull(g[2]);
      }
      // Without watching accessed variables only explicit watches count.
      try (GradientTape tape = new GradientTape(ctx, false, false)) {
        tape.watch(frozen);
        Value y = op(ctx, "Mul", ctx.variableRead(w), ctx.variableRead(frozen));
        tape.stop();
        Value[] g = tape.gradient(y, new Value[] {w, frozen});
        assertNull(g[0]);
        assertArrayEquals(new float[] {7}, g[1].toFloats());
      }
    }
  }

  @Test
  void persistentTapeAndUnconnectedSources() {
    try (Context ctx = new Context();
         GradientTape tape = new GradientTape(ctx, true)) {
      Value x = scalar(ctx, 3);
      Value u = ctx.fromDoubles(new double[] {1, 2}, new long[] {2}, DType.FLOAT32);
      tape.watch(x, u);
      Value y = op(ctx, "Square", x);
      Value z = op(ctx, "Square", y); // x^4
      tape.stop();
      assertArrayEquals(new float[] {108}, tape.gradient(z, x).toFloats());
      assertArrayEquals(new float[] {6}, tape.gradient(y, x).toFloats());
      Value[] scaled = tape.gradient(new Value[] {y}, new Value[] {x}, new Value[] {scalar(ctx, 10)},
                                     UnconnectedGradients.NONE);
      assertArrayEquals(new float[] {60}, scaled[0].toFloats());
      assertNull(tape.gradient(z, u));
      Value[] zero = tape.gradient(new Value[] {z}, new Value[] {u}, null, UnconnectedGradients.ZERO);
      assertArrayEquals(new float[] {0, 0}, zero[0].toFloats());
      GraftException e = assertThrows(GraftException.class,
          () -> tape.gradient(new Value[] {}, new Value[] {x}, null, UnconnectedGradients.NONE));
      assertEquals(Status.EINVAL, e.code());
      assertTrue(e.getMessage().contains("target"), e.getMessage());
    }
  }

  @Test
  void secondDerivativeWithNestedTapes() {
    try (Context ctx = new Context()) {
      Value x = scalar(ctx, 3);
      Value dy;
      Value d2y;
      try (GradientTape outer = new GradientTape(ctx)) {
        outer.watch(x);
        try (GradientTape inner = new GradientTape(ctx)) {
          inner.watch(x);
          Value y = op(ctx, "Mul", op(ctx, "Mul", x, x), x); // x^3
          inner.stop();
          dy = inner.gradient(y, x); // 3x^2, recorded by outer
        }
        outer.stop();
        d2y = outer.gradient(dy, x); // 6x
      }
      assertArrayEquals(new float[] {27}, dy.toFloats());
      assertArrayEquals(new float[] {18}, d2y.toFloats());
    }
  }

  @Test
  void stopRecordingAndThreads() throws Exception {
    try (Context ctx = new Context();
         GradientTape tape = new GradientTape(ctx, true)) {
      Value x = scalar(ctx, 2);
      tape.watch(x);
      Value hidden;
      try (GradientTape.Paused paused = tape.stopRecording()) {
        assertFalse(tape.isRecording());
        hidden = op(ctx, "Square", x);
      }
      assertTrue(tape.isRecording());
      GraftException again = assertThrows(GraftException.class, tape::start);
      assertTrue(again.getMessage().contains("already recording"), again.getMessage());
      Value seen = op(ctx, "Square", x);
      // Closing a recording tape on another thread fails and leaves it open.
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread other = new Thread(() -> {
        try {
          tape.close();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      other.start();
      other.join();
      assertTrue(failure.get() instanceof GraftException, String.valueOf(failure.get()));
      assertTrue(failure.get().getMessage().contains("another thread"), failure.get().getMessage());
      assertFalse(tape.isClosed());
      assertTrue(tape.isRecording());
      tape.stop();
      GraftException twice = assertThrows(GraftException.class, tape::stop);
      assertTrue(twice.getMessage().contains("not recording"), twice.getMessage());
      assertNull(tape.gradient(hidden, x));
      assertArrayEquals(new float[] {4}, tape.gradient(new Value[] {hidden, seen}, new Value[] {x}, null,
                                                       UnconnectedGradients.NONE)[0].toFloats());
      // A stopped tape may be used and closed on any thread.
      Thread closer = new Thread(() -> {
        try {
          assertArrayEquals(new float[] {4}, tape.gradient(seen, x).toFloats());
          tape.close();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      failure.set(null);
      closer.start();
      closer.join();
      assertNull(failure.get());
      assertTrue(tape.isClosed());
    }
  }

  @Test
  void droppedTapesAreFreed() throws Exception {
    try (Context ctx = new Context()) {
      Value x = scalar(ctx, 1);
      long before = Graft.liveObjects();
      for (int i = 0; i < 100; ++i) {
        GradientTape tape = new GradientTape(ctx);
        tape.watch(x);
        op(ctx, "Square", x).close();
        tape.stop(); // a stopped tape may be left to the Cleaner
      }
      for (int i = 0; i < 50 && Graft.liveObjects() > before; ++i) {
        System.gc();
        Thread.sleep(20);
      }
      assertTrue(Graft.liveObjects() <= before, "live objects " + Graft.liveObjects() + " > " + before);
    }
  }

  /** gradientSparse: a variable read only by ResourceGather gets rows (ValueRows). */
  @Test
  void gradientAsRows() {
    try (Context ctx = new Context()) {
      Value emb = ctx.variableNew(ctx.fromDoubles(new double[] {1, 2, 3, 4, 5, 6}, new long[] {3, 2}, DType.FLOAT32), "emb");
      Value ids = ctx.fromInts(new long[] {2, 0, 2}, new long[] {3}, DType.INT32);
      Value axes = ctx.fromInts(new long[] {0, 1}, new long[] {2}, DType.INT32);
      try (GradientTape tape = new GradientTape(ctx, true, true)) {
        Value rows;
        try (OpCall c = ctx.op("ResourceGather")) {
          c.addInput(emb);
          c.addInput(ids);
          c.setAttrDtype("dtype", DType.FLOAT32);
          rows = c.execute().get(0);
        }
        Value y = op(ctx, "Sum", op(ctx, "Square", rows), axes);
        tape.stop();
        Object[] g = tape.gradientSparse(new Value[] {y}, new Value[] {emb}, null, UnconnectedGradients.NONE);
        assertTrue(g[0] instanceof ValueRows, String.valueOf(g[0]));
        try (ValueRows r = (ValueRows) g[0]) {
          assertArrayEquals(new float[] {10, 12, 2, 4, 10, 12}, r.values().toFloats());
          assertArrayEquals(new int[] {2, 0, 2}, r.indices().toInt32s());
          assertArrayEquals(new int[] {3, 2}, r.denseShape().toInt32s());
        }
        assertArrayEquals(new float[] {2, 4, 0, 0, 20, 24}, tape.gradient(y, emb).toFloats());
      }
    }
  }
}
