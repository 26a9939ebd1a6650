/*
 * Result: the output tensors of one run (Session.run, Callable.run, SavedModel.run), by index
 * and by name, as TensorFlow Java's Result and onnxruntime's OrtSession.Result hold them.
 */
package dev.graft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The tensors a run returned, in the order of its fetches (or output keys), each with a name:
 * the fetched output's name ({@code "mm:0"}) for Session and Callable runs, the signature's
 * output key ({@code "y"}) for SavedModel runs. {@code close()} closes every tensor the result
 * still owns, so {@code try (Result r = s.run(fetches)) { ... }} frees them all; a tensor that
 * must outlive the result is {@link #take taken} out of it. A result that is never closed
 * leaves its tensors to the garbage collector, as any tensor: {@code s.run(fetches).get(0)} is
 * fine.
 */
public final class Result implements AutoCloseable, Iterable<Tensor> {
  private final List<Tensor> tensors;
  private final List<String> names;
  private final boolean[] taken;
  private boolean closed;

  /** tensors and their names, one each (the result owns the tensors). */
  Result(List<Tensor> tensors, List<String> names) {
    if (tensors.size() != names.size())
      throw new IllegalArgumentException("graft: " + tensors.size() + " tensors, " + names.size() + " names");
    this.tensors = Collections.unmodifiableList(new ArrayList<>(tensors));
    this.names = Collections.unmodifiableList(new ArrayList<>(names));
    this.taken = new boolean[tensors.size()];
  }

  /** The names of fetched outputs ("op:0"), which Session and Callable results go by. */
  static List<String> outputNames(List<Output> outputs) {
    List<String> names = new ArrayList<>(outputs.size());
    for (Output o : outputs) names.add(o.name());
    return names;
  }

  /** Closes tensors after a failure, keeping the failure. */
  static void closeAll(List<Tensor> tensors, RuntimeException failure) {
    for (Tensor t : tensors) {
      try {
        t.close();
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** How many tensors the run returned. */
  public int size() {
    return tensors.size();
  }

  /** Whether the run returned no tensor. */
  public boolean isEmpty() {
    return tensors.isEmpty();
  }

  /** The tensors' names, in order. */
  public List<String> names() {
    return names;
  }

  /** Tensor index (IndexOutOfBoundsException when there is none). */
  public Tensor get(int index) {
    check();
    return tensors.get(index);
  }

  /**
   * The tensor named name: a fetched output's name ({@code "mm:0"}, or {@code "mm"} for
   * {@code "mm:0"}) or a signature's output key. The first of that name when fetched twice.
   * Throws IllegalArgumentException naming it when the result has none.
   */
  public Tensor get(String name) {
    check();
    return tensors.get(indexOf(name));
  }

  /** Whether the result has a tensor named name (as {@link #get(String)} finds it). */
  public boolean contains(String name) {
    return find(name) >= 0;
  }

  /**
   * Tensor index, which the result stops owning: its close() leaves it open (the caller closes
   * it). get() still returns it until the result is closed.
   */
  public Tensor take(int index) {
    Tensor t = get(index);
    taken[index] = true;
    return t;
  }

  /** The tensor named name (as {@link #get(String)}), which the result stops owning. */
  public Tensor take(String name) {
    check();
    return take(indexOf(name));
  }

  /** The tensors in order (an unmodifiable list; the result still owns them). */
  public List<Tensor> asList() {
    check();
    return tensors;
  }

  /** The tensors in order (the result still owns them). */
  @Override
  public Iterator<Tensor> iterator() {
    check();
    return tensors.iterator();
  }

  /** Closes every tensor the result still owns (those not taken); idempotent. */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    for (int i = 0; i < tensors.size(); ++i) {
      if (!taken[i]) tensors.get(i).close();
    }
  }

  /** Whether close() was called. */
  public boolean isClosed() {
    return closed;
  }

  @Override
  public String toString() {
    if (closed) return "Result(closed)";
    StringBuilder s = new StringBuilder("Result(");
    for (int i = 0; i < tensors.size(); ++i) {
      if (i > 0) s.append(", ");
      s.append(names.get(i)).append('=').append(tensors.get(i));
    }
    return s.append(')').toString();
  }

  private void check() {
    if (closed) throw new IllegalStateException("graft: use of a closed Result");
  }

  private int find(String name) {
    int i = names.indexOf(name);
    // TensorFlow's rule for a fetch by name: an op's name alone is its output 0.
    if (i < 0 && name != null && name.indexOf(':') < 0) i = names.indexOf(name + ":0");
    return i;
  }

  private int indexOf(String name) {
    int i = find(name);
    if (i < 0) throw new IllegalArgumentException("graft: the result has no tensor '" + name + "' (it has " + names + ")");
    return i;
  }
}
