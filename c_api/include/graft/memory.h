/*
 * graft/memory.h: freeing memory that Graft hands to the caller.
 *
 * Strings that Graft makes for the caller come through a `char **out` parameter; the caller
 * frees them with graft_string_free(). Byte buffers come through `void **out` and are freed
 * with graft_buffer_free(). (Strings returned as `const char *` belong to the
 * object they came from and are not freed.) Each function's comment says which applies.
 *
 * Thread safety: both functions may be called from any thread (on memory no other thread uses).
 */
#ifndef GRAFT_MEMORY_H
#define GRAFT_MEMORY_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* Frees a string Graft returned through a char ** out-parameter. NULL is a harmless no-op. */
GRAFT_API void graft_string_free(char *string);

/* Frees a byte buffer Graft returned through a void ** out-parameter. NULL is a harmless no-op. */
GRAFT_API void graft_buffer_free(void *data);

GRAFT_END_DECL

#endif /* GRAFT_MEMORY_H */
