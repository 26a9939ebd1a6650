/*
 * GraftException: a failed Graft call. Carries the C status code (a negative graft_status),
 * its name ("GRAFT_EINVAL", ...) and the C message as the exception's message.
 */
package dev.graft;

public class GraftException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String codeName;

  /** Made by the JNI wrapper (graft_java.i) from a graft::Error. */
  public GraftException(int code, String codeName, String message) {
    super(message);
    this.code = code;
    this.codeName = codeName;
    // A call that failed because a Java closure threw (a trace, a host function, a gradient
    // function) keeps that exception as its cause.
    Throwable cause = Callbacks.takeCause(message);
    if (cause != null) initCause(cause);
  }

  /** The status code: one of Status.E* (negative). */
  public int code() {
    return code;
  }

  /** The status code's name, e.g. "GRAFT_EINVAL". */
  public String codeName() {
    return codeName;
  }

  @Override
  public String toString() {
    return "dev.graft.GraftException[" + codeName + "]: " + getMessage();
  }
}
