/*
 * Callbacks: how a Java closure's failure crosses into C++: the directors return the message
 * (a non-empty string fails the C call with it), never a Java exception.
 */
package dev.graft;

final class Callbacks {
  private Callbacks() {}

  /** The message a failed callback reports: the exception's message, else its class. */
  static String message(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isEmpty() ? t.getClass().getName() : m;
  }
}
