/*
 * graft/memory.h: freeing memory that Graft hands to the caller.
 *
 * Strings that Graft makes for the caller come through a `char **out` parameter; the caller
 * frees them with graft_string_free(). Byte buffers come through `void **out` and are freed
 * with graft_buffer_free(). (Strings returned as `const char *` belong to the
 * object they came from and are not freed.) Each function's comment says which applies.
 *
 * Tensor memory: the buffers of large tensors (64 KiB and more) that are freed are kept, up to
 * 64 MiB in all, and reused by the next tensors of the same size, so that a loop running the
 * same graph does not take fresh pages from the system on every step.
 * graft_memory_release_cached() gives them back (as malloc_trim does for malloc).
 *
 * Thread safety: every function here may be called from any thread (the free functions on
 * memory no other thread uses).
 */
#ifndef GRAFT_MEMORY_H
#define GRAFT_MEMORY_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* Frees a string Graft returned through a char ** out-parameter. NULL is a harmless no-op. */
GRAFT_API void graft_string_free(char *string);

/* Frees a byte buffer Graft returned through a void ** out-parameter. NULL is a harmless no-op. */
GRAFT_API void graft_buffer_free(void *data);

/* The bytes of freed tensor buffers kept for reuse (process-wide). */
GRAFT_API size_t graft_memory_cached_bytes(void);

/* Frees the tensor buffers kept for reuse; returns how many bytes that gave back. */
GRAFT_API size_t graft_memory_release_cached(void);

/*
 * Caps the tensor memory the whole process holds through Graft (every session, eager op and
 * function call; tensors the caller made from host data included) at bytes; 0 removes the cap
 * (the default, as TensorFlow). An allocation that would pass it fails with GRAFT_ENOMEM (in
 * a run: its op fails, named, with the bytes asked for and the cap). Tensors made while there
 * was no cap are not counted. GRAFT_EINVAL for a negative value. Thread-safe.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_memory_set_limit(int64_t bytes);
/* The process's cap in bytes (0: none). Thread-safe. */
GRAFT_API int64_t graft_memory_limit(void);
/* The bytes counted against the process's cap now (tensors made while it was set). Thread-safe. */
GRAFT_API int64_t graft_memory_in_use(void);

GRAFT_END_DECL

#endif /* GRAFT_MEMORY_H */
