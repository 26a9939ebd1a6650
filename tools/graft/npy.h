/*
 * npy.h: reading and writing NumPy's .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Reading takes C-order arrays (Fortran order only for rank <= 1, where it is the same) of
 * the dtypes Graft has: '|b1' bool, 'i1'..'i8' and 'u1'..'u8' integers, 'f2' float16, 'f4',
 * 'f8', 'c8' complex64, 'c16' complex128, in either byte order ('<', '>', '|', '='), and
 * strings: '|S<n>' bytes (trailing NULs dropped, as NumPy does) and '<U<n>' text (encoded as
 * UTF-8), which become string tensors. Object arrays ('|O') need pickle and are refused.
 *
 * Writing gives version 1.0 files as NumPy writes them (little-endian descrs, the header padded
 * with spaces to a multiple of 64 bytes); string tensors are written as fixed-width bytes,
 * '|S<n>' with n the longest string (at least 1), so trailing NULs of a string are lost.
 * bfloat16, quantized, resource and variant tensors cannot be written.
 *
 * Errors: both functions return 0, or -1 with a one-line message naming the file in
 * err[0 .. err_size-1].
 */
#ifndef GRAFT_TOOL_NPY_H
#define GRAFT_TOOL_NPY_H

#include <stddef.h>
#include <stdio.h>

#include <graft/graft.h>

/* Reads the .npy file at path into a new tensor (*out; free it with graft_tensor_free). */
int npy_read(graft_tensor **out, const char *path, char *err, size_t err_size);

/* As npy_read, from an open stream (read to its end); path only names it in messages. */
int npy_read_stream(graft_tensor **out, FILE *stream, const char *path, char *err, size_t err_size);

/* Writes tensor to a new .npy file at path (replacing any file there). */
int npy_write(const char *path, const graft_tensor *tensor, char *err, size_t err_size);

/* Writes tensor as .npy to stream when it is not NULL (path then only names it in messages),
 * else to a new file at path. */
int npy_write_stream(FILE *stream, const char *path, const graft_tensor *tensor, char *err, size_t err_size);

#endif /* GRAFT_TOOL_NPY_H */
