/*
 * graft/error.h: status codes and error messages.
 *
 * Every call that can fail returns an int: GRAFT_OK (0) on success or one of the negative
 * codes below. The codes form an append-only set: new codes may be added in later versions,
 * existing ones never change meaning, so treat an unknown negative value as GRAFT_EUNKNOWN.
 *
 * When a call fails it also records a one-line message naming what was wrong (the function,
 * and the op, tensor, argument or field at fault). The message is thread-local: it belongs to
 * the thread that made the failing call, and stays until that thread's next failing call or
 * graft_error_clear(). Successful calls leave it as it was.
 *
 * A failing call leaves every object it was given as it was before the call.
 *
 * Thread safety: every function here may be called from any thread.
 */
#ifndef GRAFT_ERROR_H
#define GRAFT_ERROR_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* Status codes: every call that can fail returns one, as an int (0 or negative). */
typedef int32_t graft_status;
enum graft_status_value {
  GRAFT_OK = 0,
  GRAFT_EUNKNOWN = -1,        /* an error of no other kind */
  GRAFT_EINVAL = -2,          /* an argument is invalid (NULL handle, bad value, bad name) */
  GRAFT_ENOTFOUND = -3,       /* something named does not exist (op, tensor, file, key) */
  GRAFT_EEXISTS = -4,         /* something to be created exists already */
  GRAFT_EDTYPE = -5,          /* a dtype is wrong, unknown or not supported here */
  GRAFT_ESHAPE = -6,          /* shapes are incompatible or a rank is wrong */
  GRAFT_ERANGE = -7,          /* a value is out of range (an index, a size that overflows) */
  GRAFT_ENOMEM = -8,          /* memory or another resource is exhausted */
  GRAFT_EPRECONDITION = -9,   /* the object is not in a state that allows the call */
  GRAFT_EUNIMPLEMENTED = -10, /* not implemented or not supported */
  GRAFT_EINTERNAL = -11,      /* a bug in Graft: please report it */
  GRAFT_EDATALOSS = -12,      /* input data is corrupt or truncated */
  GRAFT_EDEVICE = -13,        /* a device failed or is missing */
  GRAFT_ECANCELLED = -14,     /* the operation was cancelled */
  GRAFT_EDEADLINE = -15       /* the operation passed its deadline */
};

/*
 * The message of this thread's last failed call, one line without a trailing newline;
 * "" when there is none. Borrowed: the string belongs to Graft (to this thread) and is valid
 * until this thread's next failing call, graft_error_set() or graft_error_clear(), and not after
 * the thread exits; copy it to keep it. Do not free it.
 */
GRAFT_API const char *graft_error_last(void);

/* The status code of this thread's last failed call, GRAFT_OK when there is none. */
GRAFT_API int graft_error_last_code(void);

/* Forgets this thread's last error. */
GRAFT_API void graft_error_clear(void);

/* The code's name, e.g. "GRAFT_EINVAL"; "GRAFT_EUNKNOWN" for a value that is no code. Static. */
GRAFT_API const char *graft_status_name(int status);

/*
 * Sets this thread's last error to code and message (one line) and returns code; GRAFT_OK
 * clears it. For host callbacks (traced functions, host-function ops) to report why they
 * failed: the run that called them fails with this code and message.
 */
GRAFT_API int graft_error_set(int code, const char *message);

/* A short description of the code, e.g. "invalid argument". Static. */
GRAFT_API const char *graft_status_str(int status);

GRAFT_END_DECL

#endif /* GRAFT_ERROR_H */
