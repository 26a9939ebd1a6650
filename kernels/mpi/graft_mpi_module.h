/* The table of functions that Graft's MPI module (libgraft_mpi.so, mpi_module.c) exports as
 * graft_mpi_module_get(). libgraft loads the module with dlopen the first time a collective op
 * or graft_distributed_* needs it (mpi_transport.cc), so libgraft itself never links MPI and
 * programs that do not use it pay nothing for it. Private to Graft: the module and libgraft
 * are built together and check GRAFT_MPI_MODULE_VERSION. */
#ifndef GRAFT_MPI_MODULE_H_
#define GRAFT_MPI_MODULE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRAFT_MPI_MODULE_VERSION 2
#define GRAFT_MPI_MODULE_CHANNELS 3

/* Every function returns 0 or an MPI error code; error_string describes one. A request is an
 * MPI_Request kept in 64 bits. */
typedef struct graft_mpi_module {
  int version; /* GRAFT_MPI_MODULE_VERSION */
  /* Initialises MPI (MPI_THREAD_MULTIPLE) unless already initialised, and duplicates
   * MPI_COMM_WORLD once per channel (GRAFT_MPI_MODULE_CHANNELS), so that Graft's messages never
   * match the host's, nor one channel's another's. thread_multiple: 1 when
   * MPI allows calls from several threads at once. */
  int (*init)(int* rank, int* size, int* max_tag, int* thread_multiple);
  int (*isend)(int channel, const void* data, int64_t bytes, int peer, int tag, uint64_t* request);
  int (*irecv)(int channel, void* data, int64_t bytes, int peer /* -1: any */, int tag, uint64_t* request);
  /* done: 1 when finished (the request is then freed); source and bytes of a receive (bytes -1:
   * the message was longer than the buffer, and is gone). Messages are at most INT_MAX bytes. */
  int (*test)(uint64_t* request, int* done, int* source, int64_t* bytes);
  int (*cancel)(uint64_t* request);
  int (*barrier)(void);
  /* Frees the duplicated communicators; finalises MPI when init initialised it. */
  int (*finalize)(void);
  void (*error_string)(int code, char* buf, int len);
  const char* (*library_version)(void);
} graft_mpi_module;

const graft_mpi_module* graft_mpi_module_get(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_MPI_MODULE_H_ */
