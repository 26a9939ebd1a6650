/*
 * LifetimeTest: a symbolic Value kept past its trace (after the trace succeeded or failed)
 * stays inspectable and is refused as an input with an "out of scope" error; a function
 * calling itself while traced fails cleanly; graphs outlive their handles while sessions
 * and outputs use them.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LifetimeTest {
  private static Function leaky(List<Value> leak, boolean fail) {
    return Function.trace(fail ? "leaky_fail" : "leaky", (c, args) -> {
      Value y = c.op("Mul").addInput(args.value(0)).addInput(args.value(0)).execute().get(0);
      leak.add(y);
      if (fail) throw new IllegalStateException("failing on purpose");
      return List.of(y);
    });
  }

  private static void checkEscaped(Context ctx, Value y) {
    assertTrue(y.isSymbolic());
    assertEquals(DType.FLOAT32, y.dtype());
    assertTrue(y.toString().contains("symbolic"), y.toString());
    assertEquals("Mul", y.output().op().type());
    assertTrue(y.output().op().graph().numOps() >= 2);
    GraftException e = assertThrows(GraftException.class, () -> ctx.op("Neg").addInput(y).execute());
    assertTrue(e.getMessage().contains("out of scope"), e.getMessage());
    try (Function g = Function.trace("use_leaked", (c, args) ->
        List.of(c.op("AddV2").addInput(args.value(0)).addInput(y).execute().get(0)))) {
      GraftException e2 = assertThrows(GraftException.class,
          () -> g.call(ctx, ctx.fromDoubles(new double[] {1}, new long[] {}, DType.FLOAT32)));
      assertTrue(e2.getMessage().contains("out of scope"), e2.getMessage());
    }
  }

  @Test
  void valueEscapingASuccessfulTrace() {
    List<Value> leak = new ArrayList<>();
    try (Context ctx = new Context()) {
      Function f = leaky(leak, false);
      List<Value> r = f.call(ctx, ctx.fromDoubles(new double[] {3}, new long[] {}, DType.FLOAT32));
      assertArrayEquals(new float[] {9}, r.get(0).toFloats());
      f.close();
      System.gc();
      checkEscaped(ctx, leak.get(0));
    }
  }

  @Test
  void valueEscapingAFailedTrace() {
    List<Value> leak = new ArrayList<>();
    try (Context ctx = new Context()) {
      Function f = leaky(leak, true);
      GraftException e = assertThrows(GraftException.class,
          () -> f.call(ctx, ctx.fromDoubles(new double[] {3}, new long[] {}, DType.FLOAT32)));
      assertTrue(e.getMessage().contains("failing on purpose"), e.getMessage());
      f.close();
      System.gc();
      checkEscaped(ctx, leak.get(0));
    }
  }

  @Test
  void functionCallingItselfWhileTraced() {
    Function[] self = new Function[1];
    try (Context ctx = new Context()) {
      self[0] = Function.trace("recurse", (c, args) -> self[0].call(c, args.value(0)));
      GraftException e = assertThrows(GraftException.class,
          () -> self[0].call(ctx, ctx.fromDoubles(new double[] {1}, new long[] {}, DType.FLOAT32)));
      assertTrue(e.getMessage().contains("calls itself"), e.getMessage());
      self[0].close();
    }
  }

  @Test
  void graphOfAConcreteFunctionOutlivesTheFunction() {
    try (Context ctx = new Context()) {
      Function f = Function.trace("sq", (c, args) -> List.of(c.op("Square").addInput(args.value(0)).execute().get(0)));
      ConcreteFunction cf = f.getConcrete(ctx, ctx.fromDoubles(new double[] {2}, new long[] {1}, DType.FLOAT32));
      Graph g = cf.graph();
      Output out = cf.outputs().get(0);
      cf.close();
      f.close();
      System.gc();
      assertTrue(g.numOps() >= 2);
      assertEquals("Square", out.op().type());
      g.close();
      g.close();
      assertEquals("Square", out.op().type());
    }
  }
}
