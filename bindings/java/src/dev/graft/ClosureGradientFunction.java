/*
 * ClosureGradientFunction: the GradientFunction director that runs a GradFn (see Gradients).
 */
package dev.graft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

final class ClosureGradientFunction extends GradientFunction {
  private final GradFn fn;

  ClosureGradientFunction(GradFn fn) {
    if (fn == null) throw new NullPointerException("graft: null GradFn");
    this.fn = fn;
  }

  @Override
  public String gradient(GradientContext ctx) {
    try {
      Operation op = ctx.op();
      List<Output> grads = new ArrayList<>();
      for (int i = 0, n = op.numOutputs(); i < n; ++i) {
        Output g = ctx.outputGrad(i);
        grads.add(g.isValid() ? g : null);
      }
      List<Output> result = fn.gradient(op, Collections.unmodifiableList(grads));
      int n = op.numInputs();
      if (result == null || result.size() != n) {
        return "the gradient function of " + op.type() + " op '" + op.name() + "' returned "
            + (result == null ? "null" : result.size() + " gradients") + " for " + n + " inputs";
      }
      for (int i = 0; i < n; ++i) {
        if (result.get(i) != null) ctx.setInputGrad(i, result.get(i));
      }
      return "";
    } catch (Throwable t) {
      return Callbacks.message(t);
    } finally {
      ctx.delete();
    }
  }
}
