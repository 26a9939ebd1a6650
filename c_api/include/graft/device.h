/*
 * graft/device.h: device specifications, as TensorFlow's DeviceSpec.
 *
 * A device spec names where an op runs: /job:J/replica:R/task:T/device:TYPE:INDEX, each part
 * optional. Parsing accepts TensorFlow's forms, including the legacy "/cpu:0" and "/GPU:1".
 * Merging takes every part the second spec sets, so an inner scope's parts win over an
 * outer's.
 *
 * Ownership: a graft_device_spec returned through an out-parameter belongs to the caller and
 * is freed with graft_device_spec_free(). Specs are immutable and may be read from any thread.
 */
#ifndef GRAFT_DEVICE_H
#define GRAFT_DEVICE_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

typedef struct graft_device_spec graft_device_spec;

/*
 * Parses a device string. GRAFT_EINVAL, naming the part that is wrong, for a malformed one.
 * Free *out with graft_device_spec_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_spec_parse(graft_device_spec **out, const char *spec);

/*
 * Makes a spec from its parts: NULL strings and negative numbers leave a part unset
 * (a device type with device_index < 0 means any device of that type). The strings are copied.
 * Free *out with graft_device_spec_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_spec_new(graft_device_spec **out, const char *job,
                                                          int64_t replica, int64_t task,
                                                          const char *device_type, int64_t device_index);

/* Frees a spec, and with it the strings its getters returned. NULL is a harmless no-op. */
GRAFT_API void graft_device_spec_free(graft_device_spec *spec);

/* The parts: NULL or -1 when unset. Strings are borrowed: valid until graft_device_spec_free. */
GRAFT_API const char *graft_device_spec_job(const graft_device_spec *spec);
GRAFT_API int64_t graft_device_spec_replica(const graft_device_spec *spec);
GRAFT_API int64_t graft_device_spec_task(const graft_device_spec *spec);
GRAFT_API const char *graft_device_spec_device_type(const graft_device_spec *spec);
GRAFT_API int64_t graft_device_spec_device_index(const graft_device_spec *spec);

/*
 * The spec as a string, "/job:ps/device:GPU:0" (empty for an empty spec). Borrowed from the
 * spec, valid until graft_device_spec_free.
 */
GRAFT_API const char *graft_device_spec_string(const graft_device_spec *spec);

/*
 * A new spec: base with every part that override sets replaced by override's. Free *out with
 * graft_device_spec_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_spec_merge(graft_device_spec **out, const graft_device_spec *base,
                                                            const graft_device_spec *override_spec);

GRAFT_END_DECL

#endif /* GRAFT_DEVICE_H */
