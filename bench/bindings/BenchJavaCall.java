// BenchJavaCall: the per-call cost of a cached one-op function (x + x on a scalar) called from
// Java, and the binding's floor (Graft.version(), one call into libgraft). Issue #23's goal:
// under 1.5 µs per function call. Run by bench/bench_bindings_call.sh.
import dev.graft.Context;
import dev.graft.DType;
import dev.graft.Function;
import dev.graft.Graft;
import dev.graft.Value;
import java.util.List;

public class BenchJavaCall {
  interface Body { void run(); }

  static double bestMicros(Body body, int n) {
    for (int i = 0; i < n; ++i) body.run();  // warm up (JIT)
    double best = Double.MAX_VALUE;
    for (int r = 0; r < 5; ++r) {
      long start = System.nanoTime();
      for (int i = 0; i < n; ++i) body.run();
      best = Math.min(best, (System.nanoTime() - start) / 1e3 / n);
    }
    return best;
  }

  public static void main(String[] args) {
    int n = 200000;
    try (Context ctx = new Context();
         Function f = Function.trace("twice", (c, fargs) ->
             List.of(c.op("AddV2").addInput(fargs.value(0)).addInput(fargs.value(0)).execute().get(0)))) {
      Value x = ctx.fromDoubles(new double[] {1.5}, new long[] {}, DType.FLOAT32);
      double call = bestMicros(() -> {
        for (Value v : f.call(ctx, x)) v.close();
      }, n);
      double floor = bestMicros(() -> Graft.version(), n);
      System.out.printf("java function_call_us %.3f%n", call);
      System.out.printf("java floor_us %.3f%n", floor);
      x.close();
    }
  }
}
