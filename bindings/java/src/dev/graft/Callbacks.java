/*
 * Callbacks: how a Java closure's failure crosses into C++: the directors return the message
 * (a non-empty string fails the C call with it), never a Java exception. The exception itself
 * is kept, so that the GraftException the failed call ends in has it as its cause: on the
 * failing thread (a trace, a branch, a gradient function: the caller's own thread), or, for a
 * host function run by one of Graft's threads, in a small table matched by message.
 */
package dev.graft;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

final class Callbacks {
  private Callbacks() {}

  private static final ThreadLocal<Map.Entry<String, Throwable>> PENDING = new ThreadLocal<>();
  // Failures of callbacks on other threads, by message; bounded (a failure whose call never
  // ends in a GraftException must not be kept for ever).
  private static final int MAX_ELSEWHERE = 64;
  private static final Map<String, Throwable> ELSEWHERE = new ConcurrentHashMap<>();

  /** The message a failed callback reports (the exception's message, else its class); keeps t. */
  static String message(Throwable t) {
    String m = t.getMessage();
    String message = m == null || m.isEmpty() ? t.getClass().getName() : m;
    PENDING.set(Map.entry(message, t));
    if (ELSEWHERE.size() >= MAX_ELSEWHERE) ELSEWHERE.clear();
    ELSEWHERE.put(message, t);
    return message;
  }

  /** The callback failure behind a GraftException with this message, if any (taken once). */
  static Throwable takeCause(String message) {
    Map.Entry<String, Throwable> mine = PENDING.get();
    PENDING.remove();
    if (message == null) return null;
    if (mine != null && message.contains(mine.getKey())) {
      ELSEWHERE.remove(mine.getKey(), mine.getValue());
      return mine.getValue();
    }
    for (Iterator<Map.Entry<String, Throwable>> it = ELSEWHERE.entrySet().iterator(); it.hasNext();) {
      Map.Entry<String, Throwable> e = it.next();
      if (message.contains(e.getKey())) {
        it.remove();
        return e.getValue();
      }
    }
    return null;
  }
}
