/*
 * graft/tensor.h: dense tensors of any dtype and shape.
 *
 * A tensor is a row-major buffer of elements with a dtype and a fully-defined shape. Its
 * buffer is reference-counted inside Graft: a graft_tensor handle that the caller frees may
 * still be in use by a graph or a run, and the memory goes when the last user lets go.
 *
 * Memory: buffers that Graft allocates are aligned to GRAFT_TENSOR_ALIGNMENT bytes and
 * zero-filled when no data is given. A borrowed buffer (graft_tensor_new_borrowed) is used in
 * place, without a copy, when it is aligned to its element size; otherwise Graft copies it
 * into an aligned buffer and calls the deallocator at once. A tensor of 0 elements may have
 * a NULL data pointer.
 *
 * Strings: a string tensor holds one byte string (any bytes, NUL included) per element. Its
 * graft_tensor_data() is NULL; read it with graft_tensor_string().
 *
 * Sizes: element counts and byte sizes are checked, so a shape whose size overflows is a
 * GRAFT_ERANGE error rather than an allocation; an allocation that fails is GRAFT_ENOMEM.
 *
 * Ownership: a graft_tensor returned through an out-parameter belongs to the caller, who
 * frees it with graft_tensor_free(). Data returned by the getters belongs to the tensor.
 * Thread safety: a tensor may be read from any number of threads at once. Writing through
 * graft_tensor_data() is for filling a tensor you just made, before anything else uses it.
 */
#ifndef GRAFT_TENSOR_H
#define GRAFT_TENSOR_H

#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/shape.h"

GRAFT_BEGIN_DECL

#define GRAFT_TENSOR_ALIGNMENT 64

typedef struct graft_tensor graft_tensor;

/* Called once when Graft no longer needs a borrowed buffer: (data, len) as given, and user_data. */
typedef void (*graft_deallocator)(void *data, size_t len, void *user_data);

/*
 * Makes a tensor of dtype with shape dims[0 .. ndims-1] (every dimension >= 0; ndims 0 makes a
 * scalar). With data, copies len bytes from it, and len must be the tensor's byte size; with
 * data NULL (and len 0) the elements are zero. String, resource, variant and reference dtypes
 * cannot be made this way (GRAFT_EDTYPE): use graft_tensor_new_strings() for strings.
 * Free *out with graft_tensor_free. Thread-safe.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_new(graft_tensor **out, graft_dtype dtype,
                                                     const int64_t *dims, int ndims,
                                                     const void *data, size_t len);

/*
 * Makes a tensor over caller memory without copying it (see "Memory" above). On success Graft
 * owns the buffer and calls deallocator(data, len, deallocator_user_data) exactly once when it is
 * done with it (deallocator may be NULL when nothing needs doing). On failure the buffer stays
 * the caller's and the deallocator is not called. Free *out with graft_tensor_free (the
 * deallocator runs when the buffer's last user, this handle or a graph or run, lets go).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_new_borrowed(graft_tensor **out, graft_dtype dtype,
                                                              const int64_t *dims, int ndims,
                                                              void *data, size_t len,
                                                              graft_deallocator deallocator,
                                                              void *deallocator_user_data);

/*
 * Makes a string tensor of shape dims from count strings, copied, in row-major order; count
 * must equal the number of elements. lengths[i] is the byte length of strings[i]; with
 * lengths NULL every string is NUL-terminated. Free *out with graft_tensor_free. Thread-safe.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_new_strings(graft_tensor **out, const int64_t *dims, int ndims,
                                                             const char *const *strings,
                                                             const size_t *lengths, size_t count);

/* Kinds of host elements for graft_tensor_from_host and graft_value_from_host. */
typedef int32_t graft_host_kind;
enum graft_host_kind_value {
  GRAFT_HOST_INT64 = 1,  /* int64_t: int32 when every value fits (TensorFlow's choice), else int64 */
  GRAFT_HOST_DOUBLE = 2, /* double: float32 */
  GRAFT_HOST_BOOL = 3,   /* graft_bool: bool */
  GRAFT_HOST_STRING = 4  /* const char * (NUL-terminated): string */
};

/*
 * convert_to_tensor for host data, the one rule every binding and tool uses: host elements (a
 * scalar with ndims 0, nested lists given flat in row-major order with their dims) as a tensor
 * of dtype, or of the dtype inferred from the kind (see the kinds) when dtype is
 * GRAFT_DTYPE_INVALID. Integers convert to any real numeric dtype they fit, doubles to floating
 * dtypes (and to integer dtypes when integral). A value that does not fit the dtype (1.5 as
 * int32, 300 as uint8, a string as a number) is GRAFT_EDTYPE or GRAFT_EINVAL naming the element.
 * Free the tensor with graft_tensor_free. Thread-safe.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_from_host(graft_tensor **out, graft_host_kind kind,
                                                           const void *elements, const int64_t *dims, int ndims,
                                                           graft_dtype dtype);

/*
 * Lets go of a tensor handle (the buffer goes when its last user lets go). NULL is a harmless
 * no-op. Thread-safe, as long as no other thread is using this same handle.
 */
GRAFT_API void graft_tensor_free(graft_tensor *tensor);

/* The dtype; GRAFT_DTYPE_INVALID for NULL. */
GRAFT_API graft_dtype graft_tensor_dtype(const graft_tensor *tensor);

/* The rank (number of dimensions); -1 for NULL. */
GRAFT_API int graft_tensor_rank(const graft_tensor *tensor);

/* The size of dimension index, or -1 when index is not in [0, rank). */
GRAFT_API int64_t graft_tensor_dim(const graft_tensor *tensor, int index);

/* The shape as a new graft_shape; free *out with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_shape(graft_shape **out, const graft_tensor *tensor);

/* The number of elements (1 for a scalar); 0 for NULL. */
GRAFT_API int64_t graft_tensor_num_elements(const graft_tensor *tensor);

/*
 * The size in bytes: elements times the dtype's size, or for a string tensor the sum of its
 * strings' lengths.
 */
GRAFT_API size_t graft_tensor_byte_size(const graft_tensor *tensor);

/*
 * The element buffer (row-major); NULL for string tensors and may be NULL for empty tensors.
 * Borrowed from the tensor: valid while this handle lives (until graft_tensor_free); do not free it.
 */
GRAFT_API void *graft_tensor_data(const graft_tensor *tensor);

/*
 * Element index (row-major, 0 <= index < num_elements) of a string tensor: *out points to its
 * bytes, borrowed from the tensor (valid until graft_tensor_free; the bytes may hold NULs, so
 * use *out_len), and *out_len is their number. GRAFT_EDTYPE for a tensor that does not hold
 * strings, GRAFT_ERANGE for an index out of range.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_string(const char **out, size_t *out_len,
                                                        const graft_tensor *tensor, int64_t index);

/* A new handle to the same buffer (no copy); both handles must be freed with graft_tensor_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_share(graft_tensor **out, const graft_tensor *tensor);

/*
 * Whether this handle alone holds tensor's elements and they are Graft's own memory: no other
 * handle, graph, run, variable or cache shares the buffer, and it was not borrowed through
 * graft_tensor_new_borrowed. Then the caller may write the elements (graft_tensor_data) and
 * hand them on, as a host array over the buffer that keeps the handle, without a copy: a run's
 * fetched outputs usually are. 0 for NULL, string tensors and tensors of no elements.
 * Thread-safe; the answer holds until this handle is shared (graft_tensor_share, or a feed).
 */
GRAFT_API graft_bool graft_tensor_is_exclusive(const graft_tensor *tensor);

/* A new tensor with a copy of the elements of tensor; free *out with graft_tensor_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tensor_copy(graft_tensor **out, const graft_tensor *tensor);

GRAFT_END_DECL

#endif /* GRAFT_TENSOR_H */
