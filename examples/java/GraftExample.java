/*
 * GraftExample: Graft from Java. Builds a graph with a MatMul and runs it in a session (tensors
 * from n-d Java arrays, the outputs in a Result), then traces a Java lambda into a function and
 * calls it with two input shapes.
 *
 * Run: java -cp graft.jar:. GraftExample   (the jar brings its native libraries)
 */
import dev.graft.Context;
import dev.graft.DType;
import dev.graft.Function;
import dev.graft.Graph;
import dev.graft.Operation;
import dev.graft.Result;
import dev.graft.Session;
import dev.graft.Tensor;
import dev.graft.Value;
import java.util.Arrays;
import java.util.List;

public final class GraftExample {
  public static void main(String[] args) {
    System.out.println("Graft " + dev.graft.Graft.version());

    // A graph: y = a x b, run in a session. Tensors from n-d arrays (shape from the nesting).
    try (Graph g = new Graph();
         Tensor a = Tensor.fromArray(new float[][] {{1, 2}, {3, 4}});
         Tensor b = Tensor.fromFloats(new float[] {5, 6, 7, 8}, new long[] {2, 2})) {  // flat data, shape
      Operation ca = g.opBuilder("Const", "a").setAttrTensor("value", a).setAttrDtype("dtype", DType.FLOAT32).finish();
      Operation cb = g.opBuilder("Const", "b").setAttrTensor("value", b).setAttrDtype("dtype", DType.FLOAT32).finish();
      Operation mm = g.opBuilder("MatMul", "y").addInput(ca.output(0)).addInput(cb.output(0)).finish();
      try (Session session = new Session(g);
           Result result = session.run(List.of(mm.output(0)))) {  // closing the Result closes its tensors
        Tensor y = result.get("y:0");
        float[][] m = y.copyTo(new float[2][2]);
        System.out.println("matmul " + y + " = " + Arrays.toString(y.toFloats()) + " " + Arrays.deepToString(m));
      }
    }

    // A traced function: f(x) = x * x + x, traced once per input shape.
    try (Context ctx = new Context();
         Function f = Function.trace("square_plus", (c, fargs) -> {
           Value x = fargs.value(0);
           Value sq = c.op("Mul").addInput(x).addInput(x).execute().get(0);
           return List.of(c.op("AddV2").addInput(sq).addInput(x).execute().get(0));
         })) {
      for (double[] input : new double[][] {{1, 2}, {1, 2, 3}, {4, 5, 6}}) {
        Value x = ctx.fromArray(input, DType.FLOAT32);  // double[] as float32, shape [n]
        Value r = f.call(ctx, x).get(0);
        System.out.println("f(" + Arrays.toString(input) + ") = " + Arrays.toString(r.toFloats())
                           + " (traces: " + f.tracingCount() + ")");
      }
    }
  }
}
