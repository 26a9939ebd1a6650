/*
 * RecordingTapes: the gradient tapes recording on each thread, kept reachable from that thread
 * so that the Cleaner (which runs on a thread of its own) never frees a tape whose thread still
 * records into it (graft/tape.h: a tape records, and is stopped, on the thread that started it).
 * When the thread ends, its tapes become collectable: nothing records into them any more.
 */
package dev.graft;

import java.util.ArrayList;
import java.util.List;

final class RecordingTapes {
  private static final ThreadLocal<List<Object>> RECORDING = ThreadLocal.withInitial(ArrayList::new);

  private RecordingTapes() {}

  /** tape records on this thread from now on. */
  static void started(Object tape) {
    RECORDING.get().add(tape);
  }

  /** tape stopped recording (it did on this thread: the C API refuses to stop it elsewhere). */
  static void stopped(Object tape) {
    List<Object> tapes = RECORDING.get();
    for (int i = tapes.size() - 1; i >= 0; --i) {
      if (tapes.get(i) == tape) {
        tapes.remove(i);
        return;
      }
    }
  }
}
