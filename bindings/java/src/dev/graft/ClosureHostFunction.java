/*
 * ClosureHostFunction: the HostFunction director that runs a HostFn (see HostFunctions).
 */
package dev.graft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

final class ClosureHostFunction extends HostFunction {
  private final HostFn fn;

  ClosureHostFunction(HostFn fn) {
    if (fn == null) throw new NullPointerException("graft: null HostFn");
    this.fn = fn;
  }

  @Override
  public String call(TensorList inputs, TensorList outputs) {
    List<Tensor> in = new ArrayList<>();
    List<Tensor> out = null;
    try {
      for (int i = 0, n = inputs.size(); i < n; ++i) in.add(inputs.get(i));
      out = fn.call(Collections.unmodifiableList(in));
      if (out != null) {
        for (Tensor t : out) outputs.append(t);
      }
      return "";
    } catch (Throwable t) {
      return Callbacks.message(t);
    } finally {
      inputs.delete();
      outputs.delete();
      for (Tensor t : in) {
        if (!containsSame(out, t)) t.close();
      }
    }
  }

  private static boolean containsSame(List<Tensor> list, Tensor t) {
    if (list == null) return false;
    for (Tensor x : list) {
      if (x == t) return true;
    }
    return false;
  }
}
