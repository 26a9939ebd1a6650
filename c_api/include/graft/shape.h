/*
 * graft/shape.h: partial shapes, as TensorFlow's TensorShape and Dimension.
 *
 * A shape may be fully unknown (unknown rank), or have a known rank with some dimensions
 * unknown. Dimensions are int64_t values >= 0, or GRAFT_UNKNOWN_DIM (-1); a rank is an int
 * >= 0, or GRAFT_UNKNOWN_RANK (-1).
 *
 * Compatibility: two shapes are compatible if some fully-defined shape is represented by
 * both. The relation is reflexive and symmetric but not transitive. Merging two compatible
 * shapes gives the most specific shape that both represent.
 *
 * Ownership: a graft_shape returned through an out-parameter belongs to the caller, who frees
 * it with graft_shape_free(). Shapes are immutable; the operations below make new shapes.
 * Thread safety: a shape may be read from any number of threads at once.
 */
#ifndef GRAFT_SHAPE_H
#define GRAFT_SHAPE_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* The value of an unknown dimension, and the rank of a shape of unknown rank. */
enum graft_shape_constant { GRAFT_UNKNOWN_DIM = -1, GRAFT_UNKNOWN_RANK = -1 };

typedef struct graft_shape graft_shape;

/*
 * Makes a shape of rank ndims with the given dimensions. ndims == GRAFT_UNKNOWN_RANK makes the
 * fully unknown shape (dims is ignored). dims == NULL with ndims >= 0 makes a shape of that
 * rank whose dimensions are all unknown. GRAFT_EINVAL for ndims < -1 or a dimension < -1.
 * Free *out with graft_shape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_new(graft_shape **out, const int64_t *dims, int ndims);

/* Frees a shape. NULL is a harmless no-op. */
GRAFT_API void graft_shape_free(graft_shape *shape);

/* The rank, or GRAFT_UNKNOWN_RANK. */
GRAFT_API int graft_shape_rank(const graft_shape *shape);

/* Dimension index (0 <= index < rank) into *out: a size or GRAFT_UNKNOWN_DIM. GRAFT_ERANGE otherwise. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_dim(int64_t *out, const graft_shape *shape, int index);

/*
 * Copies all dimensions into out[0 .. rank-1]; capacity is the length of out.
 * GRAFT_ERANGE if capacity < rank, GRAFT_ESHAPE if the rank is unknown.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_dims(int64_t *out, int capacity, const graft_shape *shape);

/* 1 if the rank and every dimension are known. */
GRAFT_API graft_bool graft_shape_is_fully_defined(const graft_shape *shape);

/*
 * The number of elements into *out, or -1 when the shape is not fully defined.
 * GRAFT_ERANGE when the product does not fit an int64_t.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_num_elements(int64_t *out, const graft_shape *shape);

/* 1 if some fully-defined shape is represented by both a and b. */
GRAFT_API graft_bool graft_shape_is_compatible_with(const graft_shape *a, const graft_shape *b);

/* 1 if a and b are the same partial shape (same rank, same dimensions, unknowns alike). */
GRAFT_API graft_bool graft_shape_equal(const graft_shape *a, const graft_shape *b);

/*
 * The most specific shape represented by both a and b. GRAFT_ESHAPE if they are not compatible.
 * Free *out with graft_shape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_merge(graft_shape **out, const graft_shape *a, const graft_shape *b);

/*
 * The dimensions of a followed by those of b. If either has an unknown rank the result has
 * an unknown rank. Free *out with graft_shape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_concatenate(graft_shape **out, const graft_shape *a, const graft_shape *b);

/*
 * A shape at least as specific as shape with the given rank (an unknown rank becomes that
 * many unknown dimensions). GRAFT_ESHAPE if shape has another known rank. Free *out with
 * graft_shape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_with_rank(graft_shape **out, const graft_shape *shape, int rank);
/* As graft_shape_with_rank, for a rank of at least / at most the given one; graft_shape_free *out. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_with_rank_at_least(graft_shape **out, const graft_shape *shape, int rank);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_with_rank_at_most(graft_shape **out, const graft_shape *shape, int rank);

/*
 * The most specific shape that represents every shape a or b represents: unknown rank if the
 * ranks differ, otherwise each dimension where a and b agree and unknown where they do not.
 * (This is how a traced function relaxes its signature to serve two shapes.) Free *out with
 * graft_shape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_shape_most_specific_compatible(graft_shape **out, const graft_shape *a, const graft_shape *b);

/*
 * The shape as text, as TensorFlow prints it: "(2, None)", "()", "(5,)" and "<unknown>".
 * Borrowed: the string belongs to the shape and is valid until graft_shape_free (a static
 * "<null>" for NULL). Do not free it.
 */
GRAFT_API const char *graft_shape_string(const graft_shape *shape);

/* Dimensions: 1 if a and b are equal or either is GRAFT_UNKNOWN_DIM. */
GRAFT_API graft_bool graft_dim_is_compatible_with(int64_t a, int64_t b);

/* Merges two dimensions: the known one if either is known. GRAFT_ESHAPE if both are known and differ. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dim_merge(int64_t *out, int64_t a, int64_t b);

GRAFT_END_DECL

#endif /* GRAFT_SHAPE_H */
