#include "kernels/mpi/mpi_transport.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/str_cat.h"
#include "kernels/mpi/graft_mpi_module.h"

namespace graft::mpi {
namespace {

// Where the module is: $GRAFT_MPI_MODULE, else beside the library this code is in (libgraft.so
// in a build tree or an install), else wherever the dynamic loader finds it.
void* OpenModule(const std::string& file_name, std::string* tried) {
  if (const char* env = std::getenv("GRAFT_MPI_MODULE"); env != nullptr && *env != '\0') {
    *tried = env;
    return dlopen(env, RTLD_NOW | RTLD_LOCAL);
  }
  Dl_info info{};
  static const int anchor = 0;
  if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos) {
      std::string path = self.substr(0, slash + 1) + file_name;
      *tried = path;
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    }
  }
  *tried += tried->empty() ? file_name : StrCat(", ", file_name);
  return dlopen(file_name.c_str(), RTLD_NOW | RTLD_LOCAL);
}

class MpiTransport final : public CollectiveTransport {
 public:
  explicit MpiTransport(std::string file_name) : file_name_(std::move(file_name)) {}

  Status Init() override {
    std::lock_guard<std::mutex> lock(init_mu_);
    if (finalized_.load()) return Finalized();
    if (module_.load() != nullptr) return Status::Ok();
    std::string tried;
    void* handle = OpenModule(file_name_, &tried);
    if (handle == nullptr) {
      const char* why = dlerror();
      return errors::Unimplemented("MPI: Graft's MPI module could not be loaded (tried ", tried, ": ",
                                   why != nullptr ? why : "not found",
                                   "); build Graft with Open MPI (libopenmpi-dev) to use collectives");
    }
    using GetFn = const graft_mpi_module* (*)();
    auto get = reinterpret_cast<GetFn>(dlsym(handle, "graft_mpi_module_get"));
    const graft_mpi_module* m = get != nullptr ? get() : nullptr;
    if (m == nullptr || m->version != GRAFT_MPI_MODULE_VERSION) {
      dlclose(handle);
      return errors::FailedPrecondition("MPI: ", tried, " is not a Graft MPI module of version ",
                                        GRAFT_MPI_MODULE_VERSION);
    }
    int multiple = 0;
    int rc = m->init(&rank_, &size_, &max_tag_, &multiple);
    if (rc != 0) return Error(m, rc, "initialising MPI");
    // MPI_THREAD_MULTIPLE lets kernels on several threads message at once; with less, every
    // call into MPI is serialized here.
    serialize_ = multiple == 0;
    module_.store(m, std::memory_order_release);
    return Status::Ok();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int max_tag() const override { return max_tag_; }

  Status Send(const void* data, size_t bytes, int peer, int tag, Request* out, Channel channel) override {
    if (!usable()) return Finalized();
    Guard g(this);
    int rc = module_.load()->isend(channel, data, static_cast<int64_t>(bytes), peer, tag, &out->handle);
    if (rc != 0) return Error(module_.load(), rc, StrCat("sending ", bytes, " bytes to rank ", peer));
    out->active = true;
    out->is_recv = false;
    out->peer = peer;
    return Status::Ok();
  }

  Status Recv(void* data, size_t bytes, int peer, int tag, Request* out, Channel channel) override {
    if (!usable()) return Finalized();
    Guard g(this);
    int rc = module_.load()->irecv(channel, data, static_cast<int64_t>(bytes), peer, tag, &out->handle);
    if (rc != 0) return Error(module_.load(), rc, StrCat("receiving ", bytes, " bytes from rank ", peer));
    out->active = true;
    out->is_recv = true;
    out->peer = peer;
    return Status::Ok();
  }

  Status Test(Request& r, bool* done) override {
    *done = !r.active;
    if (!r.active) return Status::Ok();
    if (!usable()) return Finalized();
    Guard g(this);
    int finished = 0, source = -1;
    int64_t bytes = 0;
    int rc = module_.load()->test(&r.handle, &finished, &source, &bytes);
    if (finished) {
      r.active = false;
      r.source = source;
      r.truncated = bytes < 0;
      r.bytes = bytes < 0 ? 0 : static_cast<size_t>(bytes);
    }
    if (rc != 0) return Error(module_.load(), rc, r.is_recv ? "receiving" : "sending");
    *done = finished != 0;
    return Status::Ok();
  }

  void CancelRecv(Request& r) override {
    if (!r.active || !r.is_recv || !usable()) return;
    Guard g(this);
    (void)module_.load()->cancel(&r.handle);
    r.active = false;
  }

  Status Barrier() override {
    if (!usable()) return Finalized();
    Guard g(this);
    int rc = module_.load()->barrier();
    return rc == 0 ? Status::Ok() : Error(module_.load(), rc, "in a barrier");
  }

  Status Finalize() override {
    std::lock_guard<std::mutex> lock(init_mu_);
    if (module_.load() == nullptr || finalized_.load()) {
      finalized_.store(true);
      return Status::Ok();
    }
    Guard g(this);
    for (Request& r : TakeAbandoned()) {
      if (r.is_recv) (void)module_.load()->cancel(&r.handle);
    }
    finalized_.store(true);
    int rc = module_.load()->finalize();
    // The module stays loaded: MPI's libraries do not support being unloaded.
    return rc == 0 ? Status::Ok() : Error(module_.load(), rc, "finalizing MPI");
  }

 private:
  // Holds the MPI lock when MPI serializes calls (below MPI_THREAD_MULTIPLE).
  class Guard {
   public:
    explicit Guard(MpiTransport* t) : t_(t) {
      if (t_->serialize_) t_->call_mu_.lock();
    }
    ~Guard() {
      if (t_->serialize_) t_->call_mu_.unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    MpiTransport* t_;
  };

  bool usable() const { return module_.load(std::memory_order_acquire) != nullptr && !finalized_.load(); }
  static Status Finalized() {
    return errors::FailedPrecondition("MPI: the job was left (graft_distributed_finalize); no more messages");
  }

  static Status Error(const graft_mpi_module* m, int rc, const std::string& what) {
    char text[256];
    m->error_string(rc, text, sizeof text);
    return errors::Unknown("MPI error ", what, ": ", text, " (code ", rc, ")");
  }

  const std::string file_name_;
  std::mutex init_mu_;
  std::mutex call_mu_;
  // Set once by Init (after the module initialised MPI); calls made before it, or after
  // Finalize, fail instead of calling into MPI (which aborts the process after MPI_Finalize).
  std::atomic<const graft_mpi_module*> module_{nullptr};
  bool serialize_ = false;
  std::atomic<bool> finalized_{false};
  int rank_ = 0, size_ = 1, max_tag_ = 32767;
};

}  // namespace

std::unique_ptr<CollectiveTransport> MakeMpiTransport(const char* module_file_name) {
  return std::make_unique<MpiTransport>(module_file_name);
}

}  // namespace graft::mpi
