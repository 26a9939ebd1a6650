/*
 * graft/version.h: the version of these headers and of the library that is loaded.
 *
 * GRAFT_VERSION_* describe the headers you compile against; graft_version() and
 * graft_version_number() describe the libgraft that is loaded at run time. GRAFT_SOVERSION is
 * the ABI version in the library's SONAME (libgraft.so.N): it changes only when the ABI breaks.
 * The ABI only grows within one SOVERSION: functions and enum values are added, never changed.
 *
 * Thread safety: every function here may be called from any thread.
 */
#ifndef GRAFT_VERSION_H
#define GRAFT_VERSION_H

#include "graft/common.h"

#define GRAFT_VERSION_MAJOR 0
#define GRAFT_VERSION_MINOR 3
#define GRAFT_VERSION_PATCH 0
#define GRAFT_VERSION_STRING "0.3.0"
#define GRAFT_VERSION_NUMBER (GRAFT_VERSION_MAJOR * 10000 + GRAFT_VERSION_MINOR * 100 + GRAFT_VERSION_PATCH)
#define GRAFT_SOVERSION 2

GRAFT_BEGIN_DECL

/* The loaded library's version as "MAJOR.MINOR.PATCH". A static string: valid forever; do not free. */
GRAFT_API const char *graft_version(void);

/* The loaded library's version as MAJOR * 10000 + MINOR * 100 + PATCH. */
GRAFT_API int graft_version_number(void);

/* The loaded library's ABI version, the N of libgraft.so.N. */
GRAFT_API int graft_soversion(void);

/*
 * Checks that the loaded library can serve a program compiled against headers of version
 * header_version_number: same major version, and a library at least as new as the headers.
 * Returns GRAFT_OK, or GRAFT_EPRECONDITION with a message giving both versions.
 * Use it as GRAFT_VERSION_CHECK() at start-up.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_version_check(int header_version_number);
#define GRAFT_VERSION_CHECK() graft_version_check(GRAFT_VERSION_NUMBER)

GRAFT_END_DECL

#endif /* GRAFT_VERSION_H */
