/*
 * literal.h: tensors from command-line literals, as `graft run --feed NAME=VALUE` takes them.
 *
 *   3   -2.5   1e-3   inf   nan   true   false   2+1j   "text"   'text'
 *   [1, 2, 3]   [[1.5, 2], [3, 4]]   []   [[true], [false]]   ["a", "bc"]
 *
 * optionally followed by ":DTYPE" (any dtype name graft_dtype_from_name() knows: "int64",
 * "float32", "float", "half", "string", ...) to give the dtype. Nested lists must be
 * rectangular; a trailing comma is allowed; whitespace is ignored. Strings take the escapes
 * \\ \" \' \n \t \r \0 and \xHH and are byte strings.
 *
 * The dtype is the suffix's, else the default given by the caller (the fed tensor's dtype),
 * else inferred. The elements are sorted into one kind of host value (all integers, integers
 * and floats, all bools, all strings: strings and bools do not mix with numbers) and made into
 * the tensor by graft_tensor_from_host, the C API's one rule for host data (TensorFlow's
 * convert_to_tensor): int32 when every integer fits it, else int64; float32 for floats and for
 * "[]"; bool; string. What the host kinds cannot carry is made by the tool itself: complex
 * values (complex128 unless complex64 is given), integers beyond int64 (with ":uint64" only)
 * and strings holding NUL bytes.
 *
 * Every value must fit the dtype, by the same rule: integers in range (an integral float such
 * as 2.0 is taken for an integer dtype, 1.5 is not), finite values within the dtype's range
 * (1e39 does not fit float32), bools only for bool, strings only for string. The message names
 * the first element that does not fit.
 */
#ifndef GRAFT_TOOL_LITERAL_H
#define GRAFT_TOOL_LITERAL_H

#include <stddef.h>

#include <graft/graft.h>

/* The deepest nesting of lists a literal may have. */
#define LITERAL_MAX_RANK 32

/*
 * Parses text into a new tensor (*out; free it with graft_tensor_free). default_dtype is the
 * dtype for a literal without a ":DTYPE" suffix, or GRAFT_DTYPE_INVALID to infer it (a
 * reference dtype counts as its base dtype). Returns 0, or -1 with a one-line message in
 * err[0 .. err_size-1] that names the part of text at fault.
 */
int literal_parse(graft_tensor **out, const char *text, graft_dtype default_dtype, char *err, size_t err_size);

#endif /* GRAFT_TOOL_LITERAL_H */
