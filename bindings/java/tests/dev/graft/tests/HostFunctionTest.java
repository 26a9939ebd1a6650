/*
 * HostFunctionTest: Java lambdas run by the host-function op (HostFunctions): results, a
 * closure that throws, wrong results, registration errors, host functions inside traced
 * functions and on several threads.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HostFunctionTest {
  private static Value floats(Context ctx, double... v) {
    return ctx.fromDoubles(v, new long[] {v.length}, DType.FLOAT32);
  }

  /** Multiplies each float by factor. */
  private static HostFn scale(float factor) {
    return inputs -> {
      float[] v = inputs.get(0).toFloats();
      for (int i = 0; i < v.length; ++i) v[i] *= factor;
      return List.of(Tensor.fromFloats(v, inputs.get(0).shape()));
    };
  }

  @Test
  void computesEagerly() {
    try (HostFunctions.Registration reg = HostFunctions.register("java.scale3", scale(3));
         Context ctx = new Context()) {
      assertEquals("java.scale3", reg.token());
      assertTrue(HostFunctions.isRegistered("java.scale3"));
      List<Value> out = ctx.hostFunctionCall("java.scale3", List.of(floats(ctx, 1, 2)), DType.FLOAT32);
      assertEquals(1, out.size());
      assertArrayEquals(new float[] {3, 6}, out.get(0).toFloats());
    }
    assertFalse(HostFunctions.isRegistered("java.scale3"));
  }

  @Test
  void aThrowingClosureFailsTheOpWithItsMessage() {
    try (HostFunctions.Registration reg = HostFunctions.register("java.fail", inputs -> {
           throw new IllegalArgumentException("tokenizer exploded on input");
         });
         Context ctx = new Context()) {
      GraftException e = assertThrows(GraftException.class,
                                      () -> ctx.hostFunctionCall("java.fail", List.of(floats(ctx, 1)), DType.FLOAT32));
      assertTrue(e.getMessage().contains("tokenizer exploded on input"), e.getMessage());
      assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
      assertEquals("GRAFT_EINVAL", e.codeName());
      assertEquals(Status.EINVAL, e.code());
      // The failure left the registration usable: it fails the same way again.
      GraftException again = assertThrows(GraftException.class,
                                          () -> ctx.hostFunctionCall("java.fail", List.of(floats(ctx, 2)), DType.FLOAT32));
      assertTrue(again.getMessage().contains("tokenizer exploded on input"));
    }
  }

  @Test
  void wrongResultsAreErrors() {
    try (Context ctx = new Context();
         HostFunctions.Registration none = HostFunctions.register("java.none", inputs -> List.of());
         HostFunctions.Registration two = HostFunctions.register("java.two", inputs -> List.of(inputs.get(0), inputs.get(0)));
         HostFunctions.Registration nul = HostFunctions.register("java.null", inputs -> {
           List<Tensor> out = new ArrayList<>();
           out.add(null);
           return out;
         })) {
      assertThrows(GraftException.class, () -> ctx.hostFunctionCall("java.none", List.of(floats(ctx, 1)), DType.FLOAT32));
      GraftException e = assertThrows(GraftException.class,
                                      () -> ctx.hostFunctionCall("java.two", List.of(floats(ctx, 1)), DType.FLOAT32));
      assertTrue(e.getMessage().contains("2"), e.getMessage());
      assertThrows(GraftException.class, () -> ctx.hostFunctionCall("java.null", List.of(floats(ctx, 1)), DType.FLOAT32));
    }
  }

  @Test
  void registrationErrors() {
    try (HostFunctions.Registration reg = HostFunctions.register("java.taken", scale(1))) {
      GraftException e = assertThrows(GraftException.class, () -> HostFunctions.register("java.taken", scale(2)));
      assertEquals("GRAFT_EEXISTS", e.codeName());
      assertTrue(HostFunctions.isRegistered("java.taken"));
    }
    assertThrows(GraftException.class, () -> HostFunctions.unregister("java.taken"));
    try (Context ctx = new Context()) {
      GraftException e = assertThrows(GraftException.class,
                                      () -> ctx.hostFunctionCall("java.taken", List.of(floats(ctx, 1)), DType.FLOAT32));
      assertTrue(e.getMessage().contains("java.taken"), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> HostFunctions.register("java.null-fn", null));
  }

  @Test
  void insideATracedFunction() {
    AtomicInteger calls = new AtomicInteger();
    try (HostFunctions.Registration reg = HostFunctions.register("java.counted", inputs -> {
           calls.incrementAndGet();
           return scale(2).call(inputs);
         });
         Context ctx = new Context();
         Function f = Function.trace("with_host", (c, args) -> {
           Value y = c.hostFunctionCall("java.counted", List.of(args.value(0)), DType.FLOAT32).get(0);
           return List.of(c.op("AddV2").addInput(y).addInput(args.value(0)).execute().get(0));
         })) {
      assertEquals(0, calls.get()); // nothing runs before the call
      assertArrayEquals(new float[] {3, 6}, f.call(ctx, floats(ctx, 1, 2)).get(0).toFloats());
      assertArrayEquals(new float[] {30, 60}, f.call(ctx, floats(ctx, 10, 20)).get(0).toFloats());
      assertEquals(1, f.tracingCount());
      assertEquals(2, calls.get()); // run at each call, not only while tracing
    }
  }

  @Test
  void aFailureInsideATracedFunctionReachesTheCaller() {
    try (HostFunctions.Registration reg = HostFunctions.register("java.fail.traced", inputs -> {
           throw new IllegalStateException("no vocabulary loaded");
         });
         Context ctx = new Context();
         Function f = Function.trace("host_fails", (c, args) ->
             c.hostFunctionCall("java.fail.traced", List.of(args.value(0)), DType.FLOAT32))) {
      GraftException e = assertThrows(GraftException.class, () -> f.call(ctx, floats(ctx, 1)));
      assertTrue(e.getMessage().contains("no vocabulary loaded"), e.getMessage());
      assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
    }
  }

  @Test
  void runsOnSeveralThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (HostFunctions.Registration reg = HostFunctions.register("java.threads", scale(2))) {
      List<Future<float[]>> results = new ArrayList<>();
      for (int t = 0; t < 8; ++t) {
        final int k = t;
        results.add(pool.submit(() -> {
          float[] last = null;
          try (Context ctx = new Context()) {
            for (int i = 0; i < 50; ++i)
              last = ctx.hostFunctionCall("java.threads", List.of(floats(ctx, k, i)), DType.FLOAT32).get(0).toFloats();
          }
          return last;
        }));
      }
      for (int t = 0; t < 8; ++t) assertArrayEquals(new float[] {2 * t, 98}, results.get(t).get());
    } finally {
      pool.shutdown();
    }
  }
}
