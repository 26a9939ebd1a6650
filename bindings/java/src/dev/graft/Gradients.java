/*
 * Gradients: Java gradient functions in the process-wide gradient registry (TensorFlow's
 * RegisterGradient / NoGradient). A registration lasts as long as the process, so each closure
 * stays referenced here for good.
 */
package dev.graft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public final class Gradients {
  private static final Map<String, GradientFunction> REGISTRY = new ConcurrentHashMap<>();

  private Gradients() {}

  /**
   * Registers fn as the gradient of ops of type opType, or of ops built under a gradient
   * override map naming opType. Throws a GraftException (GRAFT_EEXISTS) when opType has one.
   */
  public static void register(String opType, GradFn fn) {
    ClosureGradientFunction director = new ClosureGradientFunction(fn);
    synchronized (REGISTRY) {
      GradientFunction.registerFunction(opType, director);
      REGISTRY.put(opType, director);
    }
  }

  /** Declares ops of type opType not differentiable (no gradient flows through them). */
  public static void registerNone(String opType) {
    GradientFunction.registerNone(opType);
  }

  /** Whether opType has a gradient function (built-in or registered) or is marked as having none. */
  public static boolean isRegistered(String opType) {
    return GradientFunction.lookup(opType) != 0;
  }
}
