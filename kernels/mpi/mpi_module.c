/* libgraft_mpi.so: Graft's only code that calls MPI (see graft_mpi_module.h). A thin layer:
 * non-blocking point-to-point messages on a duplicate of MPI_COMM_WORLD; the collective
 * algorithms, deadlines and error messages live in libgraft. */
#include <mpi.h>
#include <limits.h>
#include <string.h>

#include "graft_mpi_module.h"

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "MPI_Request must fit the module's 64-bit request");

/* One duplicate of MPI_COMM_WORLD per channel; set by init under libgraft's init lock. */
static MPI_Comm g_comms[GRAFT_MPI_MODULE_CHANNELS] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
static int g_we_initialized = 0;

static MPI_Request load(const uint64_t* r) {
  MPI_Request req;
  memcpy(&req, r, sizeof req);
  return req;
}

static void store(uint64_t* r, MPI_Request req) {
  *r = 0;
  memcpy(r, &req, sizeof req);
}

static int module_init(int* rank, int* size, int* max_tag, int* thread_level) {
  int initialized = 0, finalized = 0, rc;
  MPI_Finalized(&finalized);
  if (finalized) return MPI_ERR_OTHER;
  MPI_Initialized(&initialized);
  if (!initialized) {
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, thread_level);
    if (rc != MPI_SUCCESS) return rc;
    g_we_initialized = 1;
  } else {
    MPI_Query_thread(thread_level);
  }
  *thread_level = *thread_level >= MPI_THREAD_MULTIPLE;
  for (int c = 0; c < GRAFT_MPI_MODULE_CHANNELS; ++c) {
    if (g_comms[c] != MPI_COMM_NULL) continue;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &g_comms[c]);
    if (rc != MPI_SUCCESS) return rc;
    /* Errors come back as codes (Graft turns them into its own), never abort the job. */
    MPI_Comm_set_errhandler(g_comms[c], MPI_ERRORS_RETURN);
  }
  MPI_Comm_rank(g_comms[0], rank);
  MPI_Comm_size(g_comms[0], size);
  void* value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  *max_tag = flag && value != NULL ? *(int*)value : 32767;
  return MPI_SUCCESS;
}

static int module_isend(int channel, const void* data, int64_t bytes, int peer, int tag, uint64_t* request) {
  MPI_Request req;
  if (channel < 0 || channel >= GRAFT_MPI_MODULE_CHANNELS) return MPI_ERR_COMM;
  if (bytes < 0 || bytes > INT_MAX) return MPI_ERR_COUNT; /* libgraft splits larger messages */
  int rc = MPI_Isend(data, (int)bytes, MPI_BYTE, peer, tag, g_comms[channel], &req);
  if (rc == MPI_SUCCESS) store(request, req);
  return rc;
}

static int module_irecv(int channel, void* data, int64_t bytes, int peer, int tag, uint64_t* request) {
  MPI_Request req;
  if (channel < 0 || channel >= GRAFT_MPI_MODULE_CHANNELS) return MPI_ERR_COMM;
  if (bytes < 0 || bytes > INT_MAX) return MPI_ERR_COUNT;
  int rc = MPI_Irecv(data, (int)bytes, MPI_BYTE, peer < 0 ? MPI_ANY_SOURCE : peer, tag, g_comms[channel], &req);
  if (rc == MPI_SUCCESS) store(request, req);
  return rc;
}

static int module_test(uint64_t* request, int* done, int* source, int64_t* bytes) {
  MPI_Request req = load(request);
  MPI_Status status;
  memset(&status, 0, sizeof status);
  int rc = MPI_Test(&req, done, &status);
  if (rc != MPI_SUCCESS) {
    int error_class = 0;
    MPI_Error_class(rc, &error_class);
    if (error_class == MPI_ERR_TRUNCATE) { /* the message was longer than the buffer: it is gone */
      *done = 1;
      *source = status.MPI_SOURCE;
      *bytes = -1;
      /* Open MPI keeps a request that finished with an error (MPICH frees it): let it go. */
      if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
      store(request, MPI_REQUEST_NULL);
      return MPI_SUCCESS;
    }
    return rc;
  }
  store(request, req);
  if (*done) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    *source = status.MPI_SOURCE;
    *bytes = count;
  }
  return MPI_SUCCESS;
}

static int module_cancel(uint64_t* request) {
  MPI_Request req = load(request);
  int rc = MPI_Cancel(&req);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  store(request, req);
  return rc;
}

static int module_barrier(void) { return MPI_Barrier(g_comms[0]); }

static int module_finalize(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return MPI_SUCCESS;
  for (int c = 0; c < GRAFT_MPI_MODULE_CHANNELS; ++c) {
    if (g_comms[c] != MPI_COMM_NULL) MPI_Comm_free(&g_comms[c]);
    g_comms[c] = MPI_COMM_NULL;
  }
  if (g_we_initialized) {
    g_we_initialized = 0;
    return MPI_Finalize();
  }
  return MPI_SUCCESS;
}

static void module_error_string(int code, char* buf, int len) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (len <= 0) return;
  if (MPI_Error_string(code, text, &n) != MPI_SUCCESS) n = 0;
  text[n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1] = '\0';
  strncpy(buf, n > 0 ? text : "unknown MPI error", (size_t)len - 1);
  buf[len - 1] = '\0';
}

static const char* module_library_version(void) {
  static char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  if (version[0] == '\0') MPI_Get_library_version(version, &n);
  return version;
}

static const graft_mpi_module g_module = {
    GRAFT_MPI_MODULE_VERSION, module_init,    module_isend,    module_irecv,         module_test,
    module_cancel,            module_barrier, module_finalize, module_error_string, module_library_version,
};

__attribute__((visibility("default"))) const graft_mpi_module* graft_mpi_module_get(void) { return &g_module; }
