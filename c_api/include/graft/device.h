/*
 * graft/device.h: device specifications, as TensorFlow's DeviceSpec, and the list of the
 * devices this machine has (graft_device_list, as TensorFlow's list_physical_devices).
 *
 * A device spec names where an op runs: /job:J/replica:R/task:T/device:TYPE:INDEX, each part
 * optional. Parsing accepts TensorFlow's forms, including the legacy "/cpu:0" and "/GPU:1".
 * Merging takes every part the second spec sets, so an inner scope's parts win over an
 * outer's.
 *
 * Ownership: a graft_device_spec returned through an out-parameter belongs to the caller and
 * is freed with graft_device_spec_free(). Specs are immutable and may be read from any thread.
 *
 * A device list (graft_device_list_new) is what the machine has: the CPU first, then each
 * registered device type's devices (the OpenCL devices: type "GPU" for GPUs and accelerators,
 * "OPENCL" for CPU OpenCL devices such as PoCL; GRAFT_OPENCL=0 hides them), in the order a
 * session numbers them, so "/device:OPENCL:0" placed on an op is the first "OPENCL" entry. It is
 * a snapshot taken when made; it belongs to the caller and is freed with
 * graft_device_list_free(). A list is immutable: it may be read from any thread.
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

typedef struct graft_device_list graft_device_list;

/*
 * The devices of this machine: the CPU, then each registered device type's devices (finding
 * them may start the OpenCL runtime: tens of milliseconds the first time in a process).
 * Thread-safe. Free *out with graft_device_list_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_new(graft_device_list **out);

/* Frees a list, and with it every string its accessors returned. NULL is a harmless no-op. */
GRAFT_API void graft_device_list_free(graft_device_list *list);

/* How many devices the list holds (at least 1: the CPU); -1 for NULL. */
GRAFT_API int64_t graft_device_list_count(const graft_device_list *list);

/*
 * Device index's fields (0 <= index < count) into *out. GRAFT_EINVAL for a NULL out or list,
 * GRAFT_ERANGE for an index out of range. Strings are borrowed from the list: valid until
 * graft_device_list_free; do not free them. A field the device does not report is "" (0 for
 * numbers).
 *   name:   the full device name, "/job:localhost/replica:0/task:0/device:OPENCL:0"
 *   type:   "CPU", "GPU", "OPENCL": the type placement and kernels use
 *   model:  "AMD EPYC 7B13" (the CPU's model name), "NVIDIA H100 80GB HBM3", "cpu-haswell-AMD ..."
 *   vendor: "AuthenticAMD", "NVIDIA Corporation", ...
 *   driver: the driver and runtime versions ("OpenCL 3.0 CUDA, driver 550.54"; the kernel's
 *           release for the CPU)
 *   memory_bytes:  global memory (the host's physical RAM for the CPU)
 *   compute_units: compute units (the CPU's hardware threads)
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_name(const char **out, const graft_device_list *list,
                                                           int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_type(const char **out, const graft_device_list *list,
                                                           int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_model(const char **out, const graft_device_list *list,
                                                            int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_vendor(const char **out, const graft_device_list *list,
                                                             int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_driver(const char **out, const graft_device_list *list,
                                                             int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_memory_bytes(int64_t *out, const graft_device_list *list,
                                                                   int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_device_list_compute_units(int64_t *out, const graft_device_list *list,
                                                                    int64_t index);

GRAFT_END_DECL

#endif /* GRAFT_DEVICE_H */
