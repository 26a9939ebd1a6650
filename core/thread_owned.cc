// ThreadOwned: see thread_owned.h.
#include "core/thread_owned.h"

#include <pthread.h>

#include <mutex>
#include <new>

#include "core/unload.h"

namespace graft::internal {
namespace {

// Every thread's objects: one record per thread that adopted any, in a list of all records,
// so that unloading frees those of the threads still running. The mutex is constant-initialised
// and trivially destructible (no global constructor, usable during unload).
struct ThreadRecord {
  ThreadObject* objects = nullptr;
  ThreadRecord* prev = nullptr;
  ThreadRecord* next = nullptr;
};

std::mutex g_mu;
ThreadRecord* g_records = nullptr;  // guarded by g_mu
thread_local ThreadRecord* t_record = nullptr;

void FreeRecord(ThreadRecord* r) {  // r is unlinked
  for (ThreadObject* o = r->objects; o != nullptr;) {
    ThreadObject* next = o->next_in_thread;
    delete o;
    o = next;
  }
  delete r;
}

void Unlink(ThreadRecord* r) {  // g_mu held
  if (r->prev != nullptr) r->prev->next = r->next;
  else g_records = r->next;
  if (r->next != nullptr) r->next->prev = r->prev;
}

// A thread exits: its objects go.
void OnThreadExit(void* p) {
  auto* r = static_cast<ThreadRecord*>(p);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Unlink(r);
  }
  FreeRecord(r);
}

// Made on first adoption; deleted when libgraft is unloaded (DeleteAtUnload), not at exit,
// when other threads may still be using their objects.
struct Key {
  pthread_key_t key{};
  bool ok = false;
  Key() { ok = pthread_key_create(&key, OnThreadExit) == 0; }
  ~Key() {
    // No thread-exit callback into code about to be unmapped; then every remaining object.
    if (ok) pthread_key_delete(key);
    ThreadRecord* all;
    {
      std::lock_guard<std::mutex> lock(g_mu);
      all = g_records;
      g_records = nullptr;
    }
    while (all != nullptr) {
      ThreadRecord* next = all->next;
      FreeRecord(all);
      all = next;
    }
    t_record = nullptr;
  }
};

Key& TheKey() {
  static Key* key = DeleteAtUnload(new Key());
  return *key;
}

}  // namespace

void AdoptThreadObject(ThreadObject* obj) {
  Key& key = TheKey();
  if (t_record == nullptr) {
    auto* r = new (std::nothrow) ThreadRecord();
    if (r == nullptr) {
      delete obj;
      throw std::bad_alloc();
    }
    {
      std::lock_guard<std::mutex> lock(g_mu);
      r->next = g_records;
      if (g_records != nullptr) g_records->prev = r;
      g_records = r;
    }
    if (key.ok) pthread_setspecific(key.key, r);
    t_record = r;
  }
  obj->next_in_thread = t_record->objects;
  t_record->objects = obj;
}

}  // namespace graft::internal
