// C API: memory handed to the caller (graft/memory.h).
#include <cstdlib>
#include <cstring>
#include <string>

#include "c_api/src/api_error.h"
#include "core/buffer_cache.h"
#include "core/memory_account.h"
#include "graft/memory.h"

namespace graft::capi {
// A malloc'd copy of s, for char ** out-parameters (freed by graft_string_free).
char* CopyString(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}
}  // namespace graft::capi

extern "C" GRAFT_API void graft_string_free(char* string) { std::free(string); }
extern "C" GRAFT_API void graft_buffer_free(void* data) { std::free(data); }

// The cache of freed tensor buffers (core/buffer_cache.h).
extern "C" GRAFT_API size_t graft_memory_cached_bytes(void) { return graft::BufferCache::Global().cached_bytes(); }
extern "C" GRAFT_API size_t graft_memory_release_cached(void) { return graft::BufferCache::Global().Release(); }

// The process's memory cap (core/memory_account.h).
extern "C" GRAFT_API int graft_memory_set_limit(int64_t bytes) {
  return graft::capi::Guard("graft_memory_set_limit", [&]() -> graft::Status {
    if (bytes < 0) return graft::errors::InvalidArgument("the limit is ", bytes, " bytes; 0 means no cap");
    graft::MemoryAccount::SetProcessLimit(bytes);
    return graft::Status::Ok();
  });
}
extern "C" GRAFT_API int64_t graft_memory_limit(void) { return graft::MemoryAccount::Process().limit(); }
extern "C" GRAFT_API int64_t graft_memory_in_use(void) { return graft::MemoryAccount::Process().used(); }
