/*
 * ClosureTraceBody: the TraceBody director that runs a TraceFn. The C++ call's ctx, args and
 * outputs are views of its stack: they are invalidated (closed) when the closure returns.
 */
package dev.graft;

import java.util.List;

final class ClosureTraceBody extends TraceBody {
  private final TraceFn fn;

  ClosureTraceBody(TraceFn fn) {
    if (fn == null) throw new NullPointerException("graft: null TraceFn");
    this.fn = fn;
  }

  @Override
  public String trace(Context ctx, ArgList args, ValueList outputs) {
    try {
      List<Value> result = fn.trace(ctx, args);
      if (result != null) {
        for (Value v : result) outputs.append(v);
      }
      return "";
    } catch (Throwable t) {
      return Callbacks.message(t);
    } finally {
      ctx.delete();
      args.delete();
      outputs.delete();
    }
  }
}
