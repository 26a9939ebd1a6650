// C API: loading op libraries (graft/library.h). A library is dlopened once per file and stays
// loaded; its init function's registrations are collected (PendingRegistrations) and applied
// together when it succeeds.
#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/pending_registrations.h"
#include "graft/kernel.h"
#include "graft/library.h"

using graft::Status;
using graft::capi::Guard;

namespace {

struct LoadedLibrary {
  std::string path;
  std::vector<std::string> ops;
};

// The libraries this process loaded, by file, and which library registered each op type.
struct Loaded {
  std::mutex mu;  // serializes loads
  std::map<std::string, std::shared_ptr<const LoadedLibrary>> by_path;
  std::map<std::string, std::string> op_origin;
};

Loaded& Libraries() {
  static Loaded* loaded = new Loaded();  // never destroyed: libraries stay loaded
  return *loaded;
}

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

}  // namespace

struct graft_library {
  std::shared_ptr<const LoadedLibrary> lib;
};

namespace graft::capi {

std::string OpOrigin(const std::string& name) {
  // Called only while a load runs, by its thread, which holds the lock.
  Loaded& l = Libraries();
  auto it = l.op_origin.find(name);
  return it == l.op_origin.end() ? std::string() : "op library " + it->second;
}

}  // namespace graft::capi

GRAFT_API int graft_library_load(graft_library** out, const char* path) {
  return Guard("graft_library_load", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    *out = nullptr;
    GRAFT_CHECK_ARG(path);
    Loaded& l = Libraries();
    std::lock_guard<std::mutex> lock(l.mu);
    std::error_code ec;
    std::string file = path;
    if (file.find('/') != std::string::npos) {
      const std::filesystem::path canonical = std::filesystem::canonical(file, ec);
      if (ec) return graft::errors::NotFound("op library ", file, ": ", ec.message());
      file = canonical.string();
    }
    if (auto it = l.by_path.find(file); it != l.by_path.end()) {
      *out = new graft_library{it->second};
      return Status::Ok();
    }
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return graft::errors::NotFound("op library ", file, " cannot be loaded: ", DlError());
    // Every failure from here unloads it again: nothing of it was registered.
    std::unique_ptr<void, int (*)(void*)> unload(handle, dlclose);
    using VersionFn = uint32_t (*)();
    using InitFn = int (*)();
    auto version = reinterpret_cast<VersionFn>(dlsym(handle, "graft_op_library_abi_version"));
    auto init = reinterpret_cast<InitFn>(dlsym(handle, "graft_op_library_init"));
    if (version == nullptr || init == nullptr) {
      return graft::errors::NotFound(file, " is not a Graft op library: it has no graft_op_library_abi_version and ",
                                     "graft_op_library_init (GRAFT_DEFINE_OP_LIBRARY in graft/kernel.h)");
    }
    const uint32_t built = version();
    if (built > GRAFT_KERNEL_ABI_VERSION || built == 0) {
      return graft::errors::Unimplemented("op library ", file, " was built against Graft kernel ABI version ", built,
                                          "; this Graft has version ", GRAFT_KERNEL_ABI_VERSION,
                                          " (a library loads into the version it was built against or newer)");
    }
    graft::capi::PendingRegistrations pending(file);
    int rc = GRAFT_OK;
    {
      graft::capi::PendingRegistrations::Scope scope(&pending);
      rc = init();
    }
    if (rc != GRAFT_OK) {
      Status s = graft::capi::CallbackStatus(rc, "its init function");
      return Status(s.code(), graft::StrCat("op library ", file, ": ", s.message(), " (nothing of it was registered)"));
    }
    GRAFT_RETURN_IF_ERROR(pending.Apply());
    auto lib = std::make_shared<LoadedLibrary>(LoadedLibrary{file, pending.ops()});
    for (const std::string& op : lib->ops) l.op_origin[op] = file;
    l.by_path[file] = lib;
    (void)unload.release();  // loaded for good: its kernels and callbacks are registered
    *out = new graft_library{std::move(lib)};
    return Status::Ok();
  });
}

GRAFT_API void graft_library_free(graft_library* library) { delete library; }

GRAFT_API const char* graft_library_path(const graft_library* library) {
  return library != nullptr ? library->lib->path.c_str() : "";
}

GRAFT_API int graft_library_op_count(const graft_library* library) {
  return library != nullptr ? static_cast<int>(library->lib->ops.size()) : 0;
}

GRAFT_API const char* graft_library_op_name(const graft_library* library, int index) {
  if (library == nullptr || index < 0 || static_cast<size_t>(index) >= library->lib->ops.size()) return nullptr;
  return library->lib->ops[static_cast<size_t>(index)].c_str();
}
