/*
 * MemoryTest: close() frees at once and is idempotent, closed objects throw instead of
 * crashing, objects may be closed or collected in any order, and what is dropped without
 * close() is freed by the garbage collector (Graft.liveObjects() returns to its baseline).
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryTest {
  @Test
  void closeIsIdempotentAndClosedObjectsThrow() {
    Tensor t = Tensor.scalar(1.0f);
    assertFalse(t.isClosed());
    t.close();
    assertTrue(t.isClosed());
    t.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, t::dtype);
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertEquals("Tensor(closed)", t.toString());

    Graph g = new Graph();
    g.close();
    assertThrows(IllegalStateException.class, g::numOps);
    // A closed object passed as an argument is refused too.
    assertThrows(NullPointerException.class, () -> new Session(g));
  }

  @Test
  void closingInAnyOrder() {
    Graph g = new Graph();
    Tensor v = Tensor.fromFloats(new float[] {1, 2, 3, 4}, new long[] {2, 2});
    Operation c = g.opBuilder("Const", "c").setAttrTensor("value", v).setAttrDtype("dtype", DType.FLOAT32).finish();
    Operation mm = g.opBuilder("MatMul", "mm").addInput(c.output(0)).addInput(c.output(0)).finish();
    Output out = mm.output(0);
    Session s = new Session(g);
    // Parents first: the session and the outputs keep the graph alive.
    v.close();
    g.close();
    c.close();
    mm.close();
    assertArrayEquals(new float[] {7, 10, 15, 22}, s.run(List.of(out)).get(0).toFloats());
    assertEquals("mm", out.op().name());
    s.close();
    out.close();

    // Values keep their context, concrete functions their function.
    Context ctx = new Context();
    Value x = ctx.fromDoubles(new double[] {2}, new long[] {1}, DType.FLOAT64);
    Function f = Function.trace("sq", (cc, args) -> List.of(cc.op("Square").addInput(args.value(0)).execute().get(0)));
    ConcreteFunction cf = f.getConcrete(ctx, x);
    f.close();
    ctx.close();
    assertEquals(DType.FLOAT64, x.dtype());
    assertArrayEquals(new double[] {2}, x.toDoubles());
    try (Context other = new Context()) {
      assertArrayEquals(new double[] {4}, cf.call(other, List.of(x)).get(0).toDoubles());
    }
    cf.close();
    x.close();
  }

  /** Builds, runs and drops many objects without closing them. */
  private static void churn(int rounds) {
    for (int i = 0; i < rounds; ++i) {
      Graph g = new Graph();
      Operation c = g.opBuilder("Const", "c").setAttrTensor("value", Tensor.fromFloats(new float[64], new long[] {64}))
                        .setAttrDtype("dtype", DType.FLOAT32).finish();
      Operation sq = g.opBuilder("Square", "sq").addInput(c.output(0)).finish();
      new Session(g).run(List.of(sq.output(0))).get(0).toFloats();
      Context ctx = new Context();
      Function f = Function.trace("churn" + i, (cc, args) -> List.of(cc.op("Neg").addInput(args.value(0)).execute().get(0)));
      f.call(ctx, ctx.fromDoubles(new double[] {i}, new long[] {1}, DType.FLOAT32)).get(0).toFloats();
    }
  }

  @Test
  void droppedObjectsAreCollected() throws InterruptedException {
    churn(5); // warm-up: the classes' own constants
    System.gc();
    long baseline = Graft.liveObjects();
    churn(300);
    assertTrue(Graft.liveObjects() > baseline + 1000, "churn allocates proxies: " + Graft.liveObjects());
    long live = Long.MAX_VALUE;
    for (int attempt = 0; attempt < 100 && live > baseline + 50; ++attempt) {
      System.gc();
      Thread.sleep(50);
      live = Graft.liveObjects();
    }
    assertTrue(live <= baseline + 50, "objects left after GC: " + live + " (baseline " + baseline + ")");
  }

  /** Collects garbage until the count of live objects stops changing. */
  private static long settle() throws InterruptedException {
    long previous = -1;
    long live = Graft.liveObjects();
    for (int stable = 0, attempt = 0; stable < 3 && attempt < 100; ++attempt) {
      System.gc();
      Thread.sleep(20);
      previous = live;
      live = Graft.liveObjects();
      stable = live == previous ? stable + 1 : 0;
    }
    return live;
  }

  @Test
  void closingEverythingFreesEverything() throws InterruptedException {
    long baseline = settle();
    try (Graph g = new Graph();
         Tensor v = Tensor.scalar(2.0);
         Context ctx = new Context()) {
      Operation c = g.opBuilder("Const", "c").setAttrTensor("value", v).setAttrDtype("dtype", DType.FLOAT64).finish();
      try (Session s = new Session(g); Output o = c.output(0)) {
        for (Tensor t : s.run(List.of(o))) t.close();
      }
      c.close();
      try (Value x = ctx.fromTensor(v); Tensor t = x.toTensor()) {
        assertArrayEquals(new double[] {2}, t.toDoubles());
      }
    }
    assertEquals(baseline, Graft.liveObjects());
  }
}
