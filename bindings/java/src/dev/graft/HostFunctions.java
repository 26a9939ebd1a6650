/*
 * HostFunctions: the process-wide registry of Java host functions, run by the host-function op
 * (Context.hostFunctionCall(token, ...), eagerly or inside a traced function). Each closure
 * stays referenced here until it is unregistered.
 */
package dev.graft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public final class HostFunctions {
  private static final Map<String, HostFunction> REGISTRY = new ConcurrentHashMap<>();

  private HostFunctions() {}

  /**
   * Registers fn under token; closing the returned registration unregisters it. Throws a
   * GraftException (GRAFT_EEXISTS) when token is taken.
   */
  public static Registration register(String token, HostFn fn) {
    ClosureHostFunction director = new ClosureHostFunction(fn);
    synchronized (REGISTRY) {
      try {
        HostFunction.registerFunction(token, director);
      } catch (RuntimeException e) {
        director.close();
        throw e;
      }
      REGISTRY.put(token, director);
    }
    return new Registration(token);
  }

  /**
   * Unregisters token (GraftException GRAFT_ENOTFOUND when it is not registered). The closure
   * is released for the garbage collector, since a run may still be using it.
   */
  public static void unregister(String token) {
    synchronized (REGISTRY) {
      try {
        HostFunction.unregisterFunction(token);
      } finally {
        REGISTRY.remove(token);
      }
    }
  }

  /** Whether token is registered through this class. */
  public static boolean isRegistered(String token) {
    return REGISTRY.containsKey(token);
  }

  /** A registered host function; close() unregisters it (once). */
  public static final class Registration implements AutoCloseable {
    private final String token;
    private boolean closed;

    private Registration(String token) {
      this.token = token;
    }

    public String token() {
      return token;
    }

    @Override
    public synchronized void close() {
      if (closed) return;
      closed = true;
      unregister(token);
    }
  }
}
