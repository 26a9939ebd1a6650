/*
 * NativeHandle: the C++ object behind one owning proxy, freed exactly once: by close() or, as
 * a fallback, by a Cleaner when the proxy has been collected. It holds no reference to the
 * proxy (a Cleaner action must not), only the pointer and the generated delete function.
 */
package dev.graft;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

final class NativeHandle implements Runnable {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final AtomicLong LIVE = new AtomicLong();

  private final LongConsumer deleter;
  private long ptr;
  private Cleaner.Cleanable cleanable;

  private NativeHandle(long ptr, LongConsumer deleter) {
    this.ptr = ptr;
    this.deleter = deleter;
  }

  /** Frees ptr with deleter once owner is unreachable, unless free() or disown() comes first. */
  static NativeHandle register(Object owner, long ptr, LongConsumer deleter) {
    NativeHandle handle = new NativeHandle(ptr, deleter);
    LIVE.incrementAndGet();
    handle.cleanable = CLEANER.register(owner, handle);
    return handle;
  }

  /** How many C++ objects owned by proxies are not freed yet. */
  static long live() {
    return LIVE.get();
  }

  /** Frees the object now (at most once). */
  void free() {
    cleanable.clean();
  }

  /** Forgets the object without freeing it (C++ took it over). */
  void disown() {
    boolean owned;
    synchronized (this) {
      owned = ptr != 0;
      ptr = 0;
    }
    if (owned) LIVE.decrementAndGet();
    cleanable.clean();
  }

  /** The Cleaner's action (also run by free()). */
  @Override
  public void run() {
    long p;
    synchronized (this) {
      p = ptr;
      ptr = 0;
    }
    if (p != 0) {
      deleter.accept(p);
      LIVE.decrementAndGet();
    }
  }
}
