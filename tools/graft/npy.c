/*
 * npy.c: NumPy .npy files (see npy.h).
 *
 * A .npy file is the magic "\x93NUMPY", a major and a minor version byte, the header length
 * (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header (a Python
 * dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, padded with
 * spaces and ending in '\n'; latin-1 in versions 1 and 2, UTF-8 in version 3), then the
 * elements in row-major order.
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
/* Headers longer than this are refused (NumPy's own limit is 10000 by default). */
#define NPY_MAX_HEADER (1u << 20)
#define NPY_MAX_RANK 64

static int fail(char *err, size_t err_size, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err_size > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_size, fmt, args);
    va_end(args);
  }
  return -1;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Reverses the bytes of each of count elements of size bytes. */
static void byteswap(unsigned char *data, size_t count, size_t size) {
  if (size <= 1) return;
  for (size_t i = 0; i < count; ++i) {
    unsigned char *e = data + i * size;
    for (size_t a = 0, b = size - 1; a < b; ++a, --b) {
      unsigned char t = e[a];
      e[a] = e[b];
      e[b] = t;
    }
  }
}

/* ---- The header -------------------------------------------------------------------------- */

typedef struct {
  char descr[64];
  int have_descr, have_fortran, have_shape;
  int fortran_order;
  int ndims;
  int64_t dims[NPY_MAX_RANK];
} npy_header;

typedef struct {
  const char *s;
  size_t pos, len;
  const char *path;
  char *err;
  size_t err_size;
} header_parser;

static int header_fail(header_parser *h, const char *what) {
  return fail(h->err, h->err_size, "'%s' has a malformed .npy header: %s (at byte %zu of the header)", h->path,
              what, h->pos);
}

static void header_skip_space(header_parser *h) {
  while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' || h->s[h->pos] == '\n' ||
                             h->s[h->pos] == '\r'))
    ++h->pos;
}

static int header_expect(header_parser *h, char c, const char *what) {
  header_skip_space(h);
  if (h->pos >= h->len || h->s[h->pos] != c) return header_fail(h, what);
  ++h->pos;
  return 0;
}

/* A Python string literal without escapes into out (at most out_size - 1 bytes). */
static int header_string(header_parser *h, char *out, size_t out_size) {
  header_skip_space(h);
  if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"')) return header_fail(h, "expected a string");
  char quote = h->s[h->pos++];
  size_t n = 0;
  while (h->pos < h->len && h->s[h->pos] != quote) {
    if (h->s[h->pos] == '\\') return header_fail(h, "unexpected '\\' in a string");
    if (n + 1 >= out_size) return header_fail(h, "a string is too long");
    out[n++] = h->s[h->pos++];
  }
  if (h->pos >= h->len) return header_fail(h, "a string is not closed");
  ++h->pos;
  out[n] = '\0';
  return 0;
}

static int header_word(header_parser *h, const char *word) {
  size_t n = strlen(word);
  if (h->len - h->pos >= n && memcmp(h->s + h->pos, word, n) == 0) {
    h->pos += n;
    return 1;
  }
  return 0;
}

/* A tuple of non-negative integers: (), (3,), (2, 3) (Python 2 files may write 3L). */
static int header_shape(header_parser *h, npy_header *out) {
  if (header_expect(h, '(', "'shape' is not a tuple") != 0) return -1;
  out->ndims = 0;
  for (;;) {
    header_skip_space(h);
    if (h->pos < h->len && h->s[h->pos] == ')') {
      ++h->pos;
      break;
    }
    if (h->pos >= h->len || h->s[h->pos] < '0' || h->s[h->pos] > '9')
      return header_fail(h, "a dimension of 'shape' is not a non-negative integer");
    int64_t d = 0;
    while (h->pos < h->len && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
      int digit = h->s[h->pos++] - '0';
      if (d > (INT64_MAX - digit) / 10) return header_fail(h, "a dimension of 'shape' is too large");
      d = d * 10 + digit;
    }
    if (h->pos < h->len && (h->s[h->pos] == 'L' || h->s[h->pos] == 'l')) ++h->pos;
    if (out->ndims >= NPY_MAX_RANK) return header_fail(h, "'shape' has too many dimensions");
    out->dims[out->ndims++] = d;
    header_skip_space(h);
    if (h->pos < h->len && h->s[h->pos] == ',') {
      ++h->pos;
      continue;
    }
    if (h->pos < h->len && h->s[h->pos] == ')') {
      ++h->pos;
      break;
    }
    return header_fail(h, "expected ',' or ')' in 'shape'");
  }
  return 0;
}

static int parse_header(npy_header *out, const char *s, size_t len, const char *path, char *err, size_t err_size) {
  header_parser h = {s, 0, len, path, err, err_size};
  memset(out, 0, sizeof *out);
  if (header_expect(&h, '{', "it is not a dict") != 0) return -1;
  for (;;) {
    header_skip_space(&h);
    if (h.pos < h.len && h.s[h.pos] == '}') {
      ++h.pos;
      break;
    }
    char key[32];
    if (header_string(&h, key, sizeof key) != 0) return -1;
    if (header_expect(&h, ':', "expected ':' after a key") != 0) return -1;
    header_skip_space(&h);
    if (strcmp(key, "descr") == 0 && !out->have_descr) {
      if (h.pos < h.len && h.s[h.pos] == '[')
        return fail(err, err_size, "'%s' holds a structured array, which is not supported", path);
      if (header_string(&h, out->descr, sizeof out->descr) != 0) return -1;
      out->have_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0 && !out->have_fortran) {
      if (header_word(&h, "True"))
        out->fortran_order = 1;
      else if (header_word(&h, "False"))
        out->fortran_order = 0;
      else
        return header_fail(&h, "'fortran_order' is not True or False");
      out->have_fortran = 1;
    } else if (strcmp(key, "shape") == 0 && !out->have_shape) {
      if (header_shape(&h, out) != 0) return -1;
      out->have_shape = 1;
    } else {
      return header_fail(&h, "unexpected or repeated key");
    }
    header_skip_space(&h);
    if (h.pos < h.len && h.s[h.pos] == ',') {
      ++h.pos;
      continue;
    }
    if (h.pos < h.len && h.s[h.pos] == '}') {
      ++h.pos;
      break;
    }
    return header_fail(&h, "expected ',' or '}'");
  }
  header_skip_space(&h);
  if (h.pos != h.len) return header_fail(&h, "unexpected text after the dict");
  if (!out->have_descr || !out->have_fortran || !out->have_shape)
    return fail(err, err_size, "'%s' has a malformed .npy header: it lacks '%s'", path,
                !out->have_descr ? "descr" : !out->have_fortran ? "fortran_order" : "shape");
  return 0;
}

/* ---- Dtypes ------------------------------------------------------------------------------ */

typedef enum { KIND_NUMERIC, KIND_BYTES, KIND_UNICODE } elem_kind;

typedef struct {
  graft_dtype dtype;
  elem_kind kind;
  size_t itemsize;  /* bytes per element in the file */
  size_t swap_unit; /* bytes per unit to byte-swap (0: no swapping needed) */
} npy_dtype;

static int parse_descr(npy_dtype *out, const char *descr, const char *path, char *err, size_t err_size) {
  const char *p = descr;
  char order = '=';
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
  char code = *p++;
  if (code == '\0') return fail(err, err_size, "'%s' has an empty dtype descr", path);
  size_t size = 0;
  int has_size = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (size > 100000000u) return fail(err, err_size, "'%s' has dtype '%s', whose size is too large", path, descr);
    size = size * 10 + (size_t)(*p - '0');
    has_size = 1;
  }
  if (*p != '\0') return fail(err, err_size, "'%s' has dtype '%s', which is not supported", path, descr);
  if (code == 'O') return fail(err, err_size, "'%s' holds Python objects (dtype '%s'), which need pickle: not supported", path, descr);

  out->kind = KIND_NUMERIC;
  out->dtype = GRAFT_DTYPE_INVALID;
  out->itemsize = size;
  switch (code) {
    case 'b': if (size == 1) out->dtype = GRAFT_BOOL; break;
    case '?': out->dtype = GRAFT_BOOL; out->itemsize = size = 1; has_size = 1; break;
    case 'i':
      out->dtype = size == 1 ? GRAFT_INT8 : size == 2 ? GRAFT_INT16 : size == 4 ? GRAFT_INT32 : size == 8 ? GRAFT_INT64 : GRAFT_DTYPE_INVALID;
      break;
    case 'u':
      out->dtype = size == 1 ? GRAFT_UINT8 : size == 2 ? GRAFT_UINT16 : size == 4 ? GRAFT_UINT32 : size == 8 ? GRAFT_UINT64 : GRAFT_DTYPE_INVALID;
      break;
    case 'f':
      out->dtype = size == 2 ? GRAFT_FLOAT16 : size == 4 ? GRAFT_FLOAT32 : size == 8 ? GRAFT_FLOAT64 : GRAFT_DTYPE_INVALID;
      break;
    case 'c': out->dtype = size == 8 ? GRAFT_COMPLEX64 : size == 16 ? GRAFT_COMPLEX128 : GRAFT_DTYPE_INVALID; break;
    case 'S': case 'a':
      if (has_size) {
        out->dtype = GRAFT_STRING;
        out->kind = KIND_BYTES;
      }
      break;
    case 'U':
      if (has_size) {
        out->dtype = GRAFT_STRING;
        out->kind = KIND_UNICODE;
        if (size > ((size_t)-1) / 4) return fail(err, err_size, "'%s' has dtype '%s', whose size is too large", path, descr);
        out->itemsize = size * 4;
      }
      break;
    default: break;
  }
  if (!has_size || out->dtype == GRAFT_DTYPE_INVALID)
    return fail(err, err_size, "'%s' has dtype '%s', which is not supported", path, descr);

  size_t unit = out->kind == KIND_UNICODE ? 4 : out->kind == KIND_BYTES ? 1 : out->dtype == GRAFT_COMPLEX64 ? 4 : out->dtype == GRAFT_COMPLEX128 ? 8 : out->itemsize;
  int file_little = order == '<' || (order == '=' && host_is_little_endian());
  int need_swap = order != '|' && unit > 1 && file_little != host_is_little_endian();
  out->swap_unit = need_swap ? unit : 0;
  return 0;
}

/* ---- Reading ----------------------------------------------------------------------------- */

static void free_buffer(void *data, size_t len, void *arg) {
  (void)len;
  (void)arg;
  free(data);
}

/* Appends code point cp as UTF-8. Returns the bytes written, or 0 for an invalid code point. */
static size_t put_utf8(unsigned char *dst, uint32_t cp) {
  if (cp < 0x80) {
    dst[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    dst[0] = (unsigned char)(0xC0 | (cp >> 6));
    dst[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  if (cp < 0x10000) {
    dst[0] = (unsigned char)(0xE0 | (cp >> 12));
    dst[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    dst[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp > 0x10FFFF) return 0;
  dst[0] = (unsigned char)(0xF0 | (cp >> 18));
  dst[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  dst[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  dst[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Makes a string tensor from count fixed-width elements of data. */
static int make_strings(graft_tensor **out, const npy_dtype *dt, const int64_t *dims, int ndims,
                        const unsigned char *data, size_t count, const char *path, char *err, size_t err_size) {
  /* With a width of 0 (|S0, <U0) there is no data at all, so the count is bounded by nothing
   * but the shape. */
  if (count > (SIZE_MAX - 1) / sizeof(const char *) || count > (SIZE_MAX - 1) / sizeof(size_t))
    return fail(err, err_size, "cannot read '%s': %zu strings are too many", path, count);
  const char **strings = malloc((count + 1) * sizeof *strings);
  size_t *lengths = malloc((count + 1) * sizeof *lengths);
  /* UTF-8 needs at most 4 bytes per code point, as many as UCS-4 does: the same size suffices. */
  unsigned char *text = malloc(count * dt->itemsize + 1);
  int status = -1;
  if (strings == NULL || lengths == NULL || text == NULL) {
    fail(err, err_size, "cannot read '%s': out of memory", path);
    goto done;
  }
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    /* data is NULL when the width is 0 (every string empty): no pointer arithmetic on it. */
    const unsigned char *e = dt->itemsize > 0 ? data + i * dt->itemsize : NULL;
    size_t len = 0;
    if (e == NULL) {
      /* an empty string */
    } else if (dt->kind == KIND_BYTES) {
      len = dt->itemsize;
      while (len > 0 && e[len - 1] == 0) --len; /* NumPy drops trailing NULs */
      if (len > 0) memcpy(text + used, e, len);
    } else {
      size_t units = dt->itemsize / 4;
      while (units > 0 && memcmp(e + (units - 1) * 4, "\0\0\0\0", 4) == 0) --units;
      for (size_t u = 0; u < units; ++u) {
        uint32_t cp;
        memcpy(&cp, e + u * 4, 4); /* already in host byte order */
        size_t n = put_utf8(text + used + len, cp);
        if (n == 0) {
          fail(err, err_size, "'%s' holds an invalid code point U+%04lX in string %zu", path, (unsigned long)cp, i);
          goto done;
        }
        len += n;
      }
    }
    strings[i] = (const char *)(text + used);
    lengths[i] = len;
    used += len;
  }
  if (graft_tensor_new_strings(out, dims, ndims, strings, lengths, count) != GRAFT_OK) {
    fail(err, err_size, "cannot read '%s': %s", path, graft_error_last());
    goto done;
  }
  status = 0;
done:
  free(strings);
  free(lengths);
  free(text);
  return status;
}

static int read_exact(FILE *file, void *buf, size_t n) { return n == 0 || fread(buf, 1, n, file) == n; }

int npy_read_stream(graft_tensor **out, FILE *file, const char *path, char *err, size_t err_size) {
  unsigned char prefix[NPY_MAGIC_LEN + 2];
  size_t got = fread(prefix, 1, sizeof prefix, file);
  if (ferror(file)) return fail(err, err_size, "cannot read '%s': %s", path, strerror(errno));
  if (got < NPY_MAGIC_LEN || memcmp(prefix, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
    return fail(err, err_size, "'%s' is not a .npy file (it does not start with \\x93NUMPY)", path);
  if (got < sizeof prefix) return fail(err, err_size, "'%s' is truncated: it ends inside the .npy preamble", path);
  int major = prefix[NPY_MAGIC_LEN];
  if (major < 1 || major > 3)
    return fail(err, err_size, "'%s' has .npy format version %d.%d, which is not supported (only 1.0, 2.0 and 3.0)",
                path, major, prefix[NPY_MAGIC_LEN + 1]);
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  size_t len_size = major == 1 ? 2 : 4;
  if (!read_exact(file, len_bytes, len_size))
    return fail(err, err_size, "'%s' is truncated: it ends inside the .npy preamble", path);
  size_t header_len = (size_t)len_bytes[0] | (size_t)len_bytes[1] << 8 | (size_t)len_bytes[2] << 16 |
                      (size_t)len_bytes[3] << 24;
  if (header_len > NPY_MAX_HEADER)
    return fail(err, err_size, "'%s' has a .npy header of %zu bytes, more than the %u allowed", path, header_len,
                NPY_MAX_HEADER);
  char *header = malloc(header_len + 1);
  if (header == NULL) return fail(err, err_size, "cannot read '%s': out of memory", path);
  if (!read_exact(file, header, header_len)) {
    free(header);
    return fail(err, err_size, "'%s' is truncated: it ends inside the .npy header (%zu bytes announced)", path,
                header_len);
  }
  header[header_len] = '\0';
  npy_header h;
  int status = parse_header(&h, header, header_len, path, err, err_size);
  free(header);
  if (status != 0) return -1;

  npy_dtype dt;
  memset(&dt, 0, sizeof dt);
  if (parse_descr(&dt, h.descr, path, err, err_size) != 0) return -1;
  if (h.fortran_order && h.ndims > 1)
    return fail(err, err_size, "'%s' is in Fortran order, which is not supported (only C order)", path);

  size_t count = 1;
  for (int i = 0; i < h.ndims; ++i) {
    if (h.dims[i] != 0 && count > ((size_t)-1) / (size_t)h.dims[i])
      return fail(err, err_size, "'%s' has a shape whose size overflows", path);
    count *= (size_t)h.dims[i];
  }
  if (dt.itemsize != 0 && count > ((size_t)-1) / dt.itemsize)
    return fail(err, err_size, "'%s' has a shape whose size overflows", path);
  size_t data_len = count * dt.itemsize;

  /* For a regular file, check its size before allocating the data. */
  long here = ftell(file);
  if (here >= 0 && fseek(file, 0, SEEK_END) == 0) {
    long end = ftell(file);
    if (end >= here && fseek(file, here, SEEK_SET) == 0) {
      size_t left = (size_t)(end - here);
      if (left < data_len)
        return fail(err, err_size, "'%s' is truncated: the data needs %zu bytes, the file has %zu after the header",
                    path, data_len, left);
      if (left > data_len)
        return fail(err, err_size, "'%s' is malformed: %zu bytes follow the %zu bytes of data", path,
                    left - data_len, data_len);
    }
  }

  unsigned char *data = data_len > 0 ? malloc(data_len) : NULL;
  if (data_len > 0 && data == NULL) return fail(err, err_size, "cannot read '%s': out of memory", path);
  if (!read_exact(file, data, data_len)) {
    free(data);
    if (ferror(file)) return fail(err, err_size, "cannot read '%s': %s", path, strerror(errno));
    return fail(err, err_size, "'%s' is truncated: the data needs %zu bytes", path, data_len);
  }
  if (fgetc(file) != EOF) {
    free(data);
    return fail(err, err_size, "'%s' is malformed: bytes follow the %zu bytes of data", path, data_len);
  }
  if (dt.swap_unit > 1) byteswap(data, data_len / dt.swap_unit, dt.swap_unit);
  if (dt.dtype == GRAFT_BOOL)
    for (size_t i = 0; i < count; ++i) data[i] = data[i] != 0;

  if (dt.dtype == GRAFT_STRING) {
    status = make_strings(out, &dt, h.dims, h.ndims, data, count, path, err, err_size);
    free(data);
    return status;
  }
  if (data == NULL) {
    status = graft_tensor_new(out, dt.dtype, h.dims, h.ndims, NULL, 0);
  } else {
    status = graft_tensor_new_borrowed(out, dt.dtype, h.dims, h.ndims, data, data_len, free_buffer, NULL);
    if (status != GRAFT_OK) free(data);
  }
  if (status != GRAFT_OK) return fail(err, err_size, "cannot read '%s': %s", path, graft_error_last());
  return 0;
}

int npy_read(graft_tensor **out, const char *path, char *err, size_t err_size) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return fail(err, err_size, "cannot read '%s': %s", path, strerror(errno));
  int status = npy_read_stream(out, file, path, err, err_size);
  fclose(file);
  return status;
}

/* ---- Writing ----------------------------------------------------------------------------- */

/* The descr of a numeric dtype, or NULL when .npy has none. */
static const char *numeric_descr(graft_dtype dtype) {
  switch (dtype) {
    case GRAFT_BOOL: return "|b1";
    case GRAFT_INT8: return "|i1";
    case GRAFT_INT16: return "<i2";
    case GRAFT_INT32: return "<i4";
    case GRAFT_INT64: return "<i8";
    case GRAFT_UINT8: return "|u1";
    case GRAFT_UINT16: return "<u2";
    case GRAFT_UINT32: return "<u4";
    case GRAFT_UINT64: return "<u8";
    case GRAFT_FLOAT16: return "<f2";
    case GRAFT_FLOAT32: return "<f4";
    case GRAFT_FLOAT64: return "<f8";
    case GRAFT_COMPLEX64: return "<c8";
    case GRAFT_COMPLEX128: return "<c16";
    default: return NULL;
  }
}

static int write_data(FILE *file, const graft_tensor *tensor, graft_dtype dtype, size_t string_width) {
  int64_t count = graft_tensor_num_elements(tensor);
  if (dtype == GRAFT_STRING) {
    for (int64_t i = 0; i < count; ++i) {
      const char *s = NULL;
      size_t len = 0;
      if (graft_tensor_string(&s, &len, tensor, i) != GRAFT_OK) return -1;
      if (len > 0 && fwrite(s, 1, len, file) != len) return -1;
      for (size_t k = len; k < string_width; ++k)
        if (fputc(0, file) == EOF) return -1;
    }
    return 0;
  }
  size_t len = graft_tensor_byte_size(tensor);
  const unsigned char *data = graft_tensor_data(tensor);
  if (len == 0) return 0;
  if (host_is_little_endian()) return fwrite(data, 1, len, file) == len ? 0 : -1;
  /* A big-endian host: swap a copy. */
  size_t unit = dtype == GRAFT_COMPLEX64 ? 4 : dtype == GRAFT_COMPLEX128 ? 8 : graft_dtype_size(dtype);
  unsigned char *copy = malloc(len);
  if (copy == NULL) return -1;
  memcpy(copy, data, len);
  byteswap(copy, len / unit, unit);
  int ok = fwrite(copy, 1, len, file) == len;
  free(copy);
  return ok ? 0 : -1;
}

/* The preamble, the header (n bytes) and the data; -1 (errno set) on a write error. */
static int write_to(FILE *file, const char *header, size_t n, const graft_tensor *tensor, graft_dtype dtype,
                    size_t string_width) {
  unsigned char pre[10];
  memcpy(pre, NPY_MAGIC, NPY_MAGIC_LEN);
  pre[6] = 1; /* version 1.0 */
  pre[7] = 0;
  pre[8] = (unsigned char)(n & 0xFF);
  pre[9] = (unsigned char)(n >> 8);
  errno = 0;
  return fwrite(pre, 1, sizeof pre, file) == sizeof pre && fwrite(header, 1, n, file) == n &&
                 write_data(file, tensor, dtype, string_width) == 0
             ? 0
             : -1;
}

int npy_write(const char *path, const graft_tensor *tensor, char *err, size_t err_size) {
  return npy_write_stream(NULL, path, tensor, err, err_size);
}

int npy_write_stream(FILE *stream, const char *path, const graft_tensor *tensor, char *err, size_t err_size) {
  graft_dtype dtype = graft_tensor_dtype(tensor);
  char descr[32];
  size_t string_width = 0;
  if (dtype == GRAFT_STRING) {
    string_width = 1; /* NumPy's narrowest bytes dtype is S1 */
    int64_t count = graft_tensor_num_elements(tensor);
    for (int64_t i = 0; i < count; ++i) {
      const char *s = NULL;
      size_t len = 0;
      if (graft_tensor_string(&s, &len, tensor, i) != GRAFT_OK)
        return fail(err, err_size, "cannot write '%s': %s", path, graft_error_last());
      if (len > string_width) string_width = len;
    }
    snprintf(descr, sizeof descr, "|S%zu", string_width);
  } else {
    const char *d = numeric_descr(dtype);
    if (d == NULL) {
      const char *name = graft_dtype_name(dtype);
      return fail(err, err_size, "cannot write '%s': a %s tensor has no .npy dtype", path, name != NULL ? name : "invalid");
    }
    snprintf(descr, sizeof descr, "%s", d);
  }

  /* The header, as NumPy writes it: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } */
  int rank = graft_tensor_rank(tensor);
  size_t cap = 128 + (size_t)(rank > 0 ? rank : 0) * 24 + NPY_ALIGN;
  char *header = malloc(cap);
  if (header == NULL) return fail(err, err_size, "cannot write '%s': out of memory", path);
  size_t n = (size_t)snprintf(header, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < rank; ++i)
    n += (size_t)snprintf(header + n, cap - n, "%s%lld", i > 0 ? ", " : "", (long long)graft_tensor_dim(tensor, i));
  n += (size_t)snprintf(header + n, cap - n, "%s), }", rank == 1 ? "," : "");
  /* Pad with spaces and end with '\n' so that the data starts at a multiple of 64 bytes. */
  size_t preamble = NPY_MAGIC_LEN + 2 + 2;
  size_t total = preamble + n + 1;
  size_t pad = (NPY_ALIGN - total % NPY_ALIGN) % NPY_ALIGN;
  memset(header + n, ' ', pad);
  n += pad;
  header[n++] = '\n';
  if (n > 0xFFFF) {
    free(header);
    return fail(err, err_size, "cannot write '%s': the .npy header is too long", path);
  }

  if (stream != NULL) {
    int ok = write_to(stream, header, n, tensor, dtype, string_width) == 0;
    int saved = errno;
    free(header);
    if (!ok) return fail(err, err_size, "cannot write '%s': %s", path, saved != 0 ? strerror(saved) : "write error");
    return 0;
  }
  FILE *file = fopen(path, "wb");
  if (file == NULL) {
    free(header);
    return fail(err, err_size, "cannot write '%s': %s", path, strerror(errno));
  }
  int ok = write_to(file, header, n, tensor, dtype, string_width) == 0;
  int saved = errno;
  free(header);
  if (fclose(file) != 0 && ok) {
    ok = 0;
    saved = errno;
  }
  if (!ok) return fail(err, err_size, "cannot write '%s': %s", path, saved != 0 ? strerror(saved) : "write error");
  return 0;
}
