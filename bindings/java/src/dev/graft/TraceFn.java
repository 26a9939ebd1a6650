/*
 * TraceFn: the Java closure of a traced function (Function.trace) or of a cond / while_loop
 * branch (Context.cond, Context.whileLoop).
 */
package dev.graft;

import java.util.List;

@FunctionalInterface
public interface TraceFn {
  /**
   * Builds ops on ctx (op(...).addInput(...).execute()) from args and returns the outputs.
   * ctx and args are valid during the call only; the Values it makes are its own. An exception
   * fails the call that traced it with a GraftException carrying the exception's message.
   */
  List<Value> trace(Context ctx, ArgList args) throws Exception;
}
