/*
 * FunctionTest: Java lambdas traced into functions (Function.trace): retracing per input
 * shape and cache hits, input signatures, host arguments, concrete functions, cond and
 * while_loop, and failures raised inside a traced closure.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FunctionTest {
  private static Value add(Context ctx, Value a, Value b) {
    return ctx.op("AddV2").addInput(a).addInput(b).execute().get(0);
  }

  private static Value floats(Context ctx, long[] dims, double... v) {
    return ctx.fromDoubles(v, dims, DType.FLOAT32);
  }

  @Test
  void twoShapesTraceTwiceThenHitTheCache() {
    AtomicInteger traces = new AtomicInteger();
    try (Context ctx = new Context();
         Function f = Function.trace("double_it", (c, args) -> {
           traces.incrementAndGet();
           assertTrue(c.isTracing());
           Value x = args.value(0);
           assertTrue(x.isSymbolic());
           return List.of(add(c, x, x));
         })) {
      List<Value> r1 = f.call(ctx, floats(ctx, new long[] {2}, 1.5, 2));
      assertEquals(1, f.tracingCount());
      assertFalse(r1.get(0).isSymbolic());
      assertArrayEquals(new float[] {3, 4}, r1.get(0).toFloats());

      List<Value> r2 = f.call(ctx, floats(ctx, new long[] {3}, 1, 2, 3));
      assertEquals(2, f.tracingCount());
      assertArrayEquals(new float[] {2, 4, 6}, r2.get(0).toFloats());

      List<Value> r3 = f.call(ctx, floats(ctx, new long[] {3}, 10, 20, 30));
      assertEquals(2, f.tracingCount()); // a cache hit: no new trace
      assertEquals(2, traces.get());
      assertArrayEquals(new float[] {20, 40, 60}, r3.get(0).toFloats());

      List<Value> r4 = f.call(ctx, floats(ctx, new long[] {2}, 0, 1));
      assertEquals(2, f.tracingCount());
      assertArrayEquals(new float[] {0, 2}, r4.get(0).toFloats());
    }
  }

  @Test
  void inputSignatureTracesOnce() {
    TensorSpec spec = new TensorSpec(new Shape(new long[] {-1}), DType.FLOAT32, "x");
    assertEquals(new Shape(new long[] {-1}), spec.shape());
    assertEquals("x", spec.getName());
    try (Context ctx = new Context();
         Function f = Function.trace("sig", List.of(spec), (c, args) -> List.of(add(c, args.value(0), args.value(0))))) {
      assertArrayEquals(new float[] {2}, f.call(ctx, floats(ctx, new long[] {1}, 1)).get(0).toFloats());
      assertArrayEquals(new float[] {2, 4, 6, 8}, f.call(ctx, floats(ctx, new long[] {4}, 1, 2, 3, 4)).get(0).toFloats());
      assertEquals(1, f.tracingCount());
      // An argument that does not fit the signature.
      GraftException e = assertThrows(GraftException.class,
                                      () -> f.call(ctx, floats(ctx, new long[] {2, 2}, 1, 2, 3, 4)));
      assertFalse(e.getMessage().isEmpty());
    }
  }

  @Test
  void hostArgumentsReachTheClosure() {
    List<Object> seen = new ArrayList<>();
    try (Context ctx = new Context();
         Function f = Function.trace("scaled", (c, args) -> {
           seen.add(args.object(1));
           seen.add(args.object(2));
           seen.add(args.object(3));
           double factor = (Double) args.object(1);
           Value k = c.fromDoubles(new double[] {factor}, new long[0], DType.FLOAT32);
           return List.of(c.op("Mul").addInput(args.value(0)).addInput(k).execute().get(0));
         })) {
      Value x = floats(ctx, new long[] {2}, 1, 2);
      assertArrayEquals(new float[] {3, 6}, f.call(ctx, x, 3.0, "tag", true).get(0).toFloats());
      assertEquals(List.of(3.0, "tag", true), seen);
      ArgList args = ArgList.of(x, 2.0, "tag", true);
      assertEquals(4, args.size());
      assertEquals(2.0, args.object(1));
      assertThrows(IllegalArgumentException.class, () -> args.value(1));
      assertThrows(IllegalArgumentException.class, () -> ArgList.of(new Object()));
      assertArrayEquals(new float[] {2, 4}, f.call(ctx, args).get(0).toFloats());
    }
  }

  @Test
  void concreteFunctionsOutliveTheirFunction() {
    try (Context ctx = new Context()) {
      Function f = Function.trace("square", (c, args) -> List.of(c.op("Square").addInput(args.value(0)).execute().get(0)));
      ConcreteFunction cf = f.getConcrete(ctx, floats(ctx, new long[] {2}, 0, 0));
      assertEquals(1, cf.numOutputs());
      assertEquals(1, cf.inputs().size());
      assertTrue(cf.graph().numOps() >= 2);
      assertTrue(cf.functionDef().length > 0);
      f.close(); // the concrete function keeps the traced graph
      List<Value> out = cf.call(ctx, List.of(floats(ctx, new long[] {2}, 3, 4)));
      assertArrayEquals(new float[] {9, 16}, out.get(0).toFloats());
      cf.close();
    }
  }

  @Test
  void aThrowingClosureFailsTheCall() {
    try (Context ctx = new Context();
         Function f = Function.trace("broken", (c, args) -> {
           throw new IllegalStateException("closure refuses to trace");
         })) {
      GraftException e = assertThrows(GraftException.class, () -> f.call(ctx, floats(ctx, new long[] {1}, 1)));
      assertTrue(e.getMessage().contains("closure refuses to trace"), e.getMessage());
      assertEquals("GRAFT_EINVAL", e.codeName());
      assertEquals(Status.EINVAL, e.code());
      // The closure's own exception is the cause, once: a later unrelated failure has none.
      assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
      assertEquals("closure refuses to trace", e.getCause().getMessage());
      GraftException later = assertThrows(GraftException.class, () -> ctx.op("NoSuchOp").execute());
      assertNull(later.getCause());
    }
  }

  @Test
  void aFailingOpInsideTheClosureFailsTheCall() {
    try (Context ctx = new Context();
         Function f = Function.trace("mismatch", (c, args) -> {
           Value x = args.value(0);
           return List.of(c.op("MatMul").addInput(x).addInput(x).execute().get(0)); // [2] x [2]: rank 1
         })) {
      GraftException e = assertThrows(GraftException.class, () -> f.call(ctx, floats(ctx, new long[] {2}, 1, 2)));
      assertFalse(e.getMessage().isEmpty());
    }
  }

  @Test
  void closureViewsAreInvalidAfterTheCall() {
    Context[] kept = new Context[1];
    ArgList[] keptArgs = new ArgList[1];
    try (Context ctx = new Context();
         Function f = Function.trace("leaky", (c, args) -> {
           kept[0] = c;
           keptArgs[0] = args;
           return List.of(args.value(0));
         })) {
      assertArrayEquals(new float[] {5}, f.call(ctx, floats(ctx, new long[] {1}, 5)).get(0).toFloats());
      assertTrue(kept[0].isClosed());
      assertThrows(IllegalStateException.class, () -> kept[0].isTracing());
      assertThrows(IllegalStateException.class, () -> keptArgs[0].size());
    }
  }

  @Test
  void condAndWhileLoopTakeLambdas() {
    try (Context ctx = new Context()) {
      Value x = floats(ctx, new long[] {2}, 1, 2);
      Value yes = ctx.fromBools(new boolean[] {true}, new long[0], DType.BOOL);
      Value no = ctx.fromBools(new boolean[] {false}, new long[0], DType.BOOL);
      TraceFn twice = (c, args) -> List.of(add(c, args.value(0), args.value(0)));
      TraceFn negate = (c, args) -> List.of(c.op("Neg").addInput(args.value(0)).execute().get(0));
      assertArrayEquals(new float[] {2, 4}, ctx.cond(yes, List.of(x), twice, negate).get(0).toFloats());
      assertArrayEquals(new float[] {-1, -2}, ctx.cond(no, List.of(x), twice, negate).get(0).toFloats());

      // i = 0; while (i < 5) i += 1
      Value i0 = ctx.fromInts(new long[] {0}, new long[0], DType.INT32);
      Value limit = ctx.fromInts(new long[] {5}, new long[0], DType.INT32);
      Value one = ctx.fromInts(new long[] {1}, new long[0], DType.INT32);
      List<Value> out = ctx.whileLoop(
          (c, args) -> List.of(c.op("Less").addInput(args.value(0)).addInput(limit).execute().get(0)),
          (c, args) -> List.of(add(c, args.value(0), one)), List.of(i0));
      assertArrayEquals(new int[] {5}, out.get(0).toInt32s());

      // A branch that throws fails the cond with its message.
      GraftException e = assertThrows(GraftException.class, () -> ctx.cond(yes, List.of(x), (c, args) -> {
        throw new RuntimeException("branch exploded");
      }, negate));
      assertTrue(e.getMessage().contains("branch exploded"), e.getMessage());
    }
  }

  @Test
  void eagerOpsAndVariables() {
    try (Context ctx = new Context()) {
      assertFalse(ctx.isTracing());
      Value v = ctx.variableNew(floats(ctx, new long[] {2}, 1, 2), "v");
      ctx.variableAssignAdd(v, floats(ctx, new long[] {2}, 10, 10));
      assertArrayEquals(new float[] {11, 12}, ctx.variableRead(v).toFloats());
      Value big = ctx.fromInts(new long[] {1L << 40}, new long[] {1}, DType.INT64);
      assertArrayEquals(new long[] {1L << 40}, big.toInt64s());
      assertEquals(new Shape(new long[] {1}), big.shape());
      assertEquals(DType.INT64, big.dtype());
      GraftException e = assertThrows(GraftException.class, () -> ctx.op("NoSuchOp").execute());
      assertTrue(e.getMessage().contains("NoSuchOp"), e.getMessage());
    }
  }
}
