/*
 * Graft: the library as a whole. The JNI library libgraft_java.so is loaded by the generated
 * class graft_swigJNI: from the system property graft.library (a file), else from
 * java.library.path.
 */
package graft;

public final class Graft {
  private Graft() {}

  /** The library's version, e.g. "0.1.0". */
  public static String version() {
    return graft_swig.graft_version();
  }

  /**
   * How many C++ objects owned by Java proxies are not freed yet (closed, or collected and
   * cleaned): a diagnostic for leaks.
   */
  public static long liveObjects() {
    return NativeHandle.live();
  }
}
