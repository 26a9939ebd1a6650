/*
 * Status: Graft's status codes (the C API's graft_status, graft/error.h) as int constants, the
 * codes of GraftException.code(). As DType, no code is typed here: every constant is the C
 * API's, through SWIG.
 */
package dev.graft;

public final class Status {
  private Status() {}

  public static final int OK = graft_swig.GRAFT_OK;
  /** An error of no other kind. */
  public static final int EUNKNOWN = graft_swig.GRAFT_EUNKNOWN;
  /** An argument is invalid (bad value, bad name). */
  public static final int EINVAL = graft_swig.GRAFT_EINVAL;
  /** Something named does not exist (op, tensor, file, key). */
  public static final int ENOTFOUND = graft_swig.GRAFT_ENOTFOUND;
  /** Something to be created exists already. */
  public static final int EEXISTS = graft_swig.GRAFT_EEXISTS;
  /** A dtype is wrong, unknown or not supported here. */
  public static final int EDTYPE = graft_swig.GRAFT_EDTYPE;
  /** Shapes are incompatible or a rank is wrong. */
  public static final int ESHAPE = graft_swig.GRAFT_ESHAPE;
  /** A value is out of range. */
  public static final int ERANGE = graft_swig.GRAFT_ERANGE;
  /** Memory or another resource is exhausted. */
  public static final int ENOMEM = graft_swig.GRAFT_ENOMEM;
  /** The object is not in a state that allows the call. */
  public static final int EPRECONDITION = graft_swig.GRAFT_EPRECONDITION;
  /** Not implemented or not supported. */
  public static final int EUNIMPLEMENTED = graft_swig.GRAFT_EUNIMPLEMENTED;
  /** A bug in Graft. */
  public static final int EINTERNAL = graft_swig.GRAFT_EINTERNAL;
  /** Input data is corrupt or truncated. */
  public static final int EDATALOSS = graft_swig.GRAFT_EDATALOSS;
  /** A device failed or is missing. */
  public static final int EDEVICE = graft_swig.GRAFT_EDEVICE;
  /** The operation was cancelled (a Cancellation). */
  public static final int ECANCELLED = graft_swig.GRAFT_ECANCELLED;
  /** The operation passed its deadline (a run's timeout). */
  public static final int EDEADLINE = graft_swig.GRAFT_EDEADLINE;

  /** The code's name ("GRAFT_EINVAL", ...), as GraftException.codeName() gives it. */
  public static String name(int code) {
    String name = graft_swig.graft_status_name(code);
    return name == null ? "GRAFT_EUNKNOWN" : name;
  }

  /** A GraftException of code made on the Java side (the C message's form: "graft: ..."). */
  static GraftException exception(int code, String message) {
    return new GraftException(code, name(code), message);
  }
}
