/*
 * literal.c: parsing command-line literals into tensors (see literal.h).
 *
 * The text is parsed into a flat list of elements (each a bool, an integer kept as sign and
 * magnitude, a double, a complex or a byte string) while the nesting is checked to be
 * rectangular; then the elements are sorted into one kind of host value (integers, doubles,
 * bools or strings) and graft_tensor_from_host, the C API's one rule for host data, makes the
 * tensor: it infers the dtype (or takes the one given) and checks that every element fits.
 */
#include "literal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of a piece of the literal a message shows. */
#define SHOWN_CHARS 40

typedef enum { ELEM_BOOL, ELEM_INT, ELEM_FLOAT, ELEM_COMPLEX, ELEM_STRING } elem_kind;

typedef struct {
  elem_kind kind;
  int negative;       /* ELEM_INT: 1 for a value < 0 */
  uint64_t magnitude; /* ELEM_INT: the absolute value; ELEM_BOOL: 0 or 1 */
  double re, im;      /* ELEM_FLOAT: re; ELEM_COMPLEX: both */
  char *bytes;        /* ELEM_STRING: the bytes (malloc'ed, NUL-terminated after len) */
  size_t len;         /* ELEM_STRING: their number */
  size_t start, end;  /* where the element is in the text, for messages */
} elem;

typedef struct {
  const char *text;
  size_t pos, end; /* parsing text[pos .. end): the value without its ":DTYPE" suffix */
  elem *elems;
  size_t count, cap;
  int rank; /* -1 until the first element or empty list tells it */
  int64_t dims[LITERAL_MAX_RANK];
  int dim_known[LITERAL_MAX_RANK];
  char *err;
  size_t err_size;
} parser;

#if defined(__GNUC__) || defined(__clang__)
static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static int fail(parser *p, const char *fmt, ...) {
  if (p->err_size > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(p->err, p->err_size, fmt, args);
    va_end(args);
  }
  return -1;
}

/* The length to show of text[start .. end) in a message (at most SHOWN_CHARS). */
static int shown_len(size_t start, size_t end) {
  size_t n = end - start;
  return (int)(n > SHOWN_CHARS ? SHOWN_CHARS : n);
}

/* "'3.5'": how messages quote an element. */
#define ELEM_FMT "'%.*s%s'"
#define ELEM_ARGS(p, e)                                                                         \
  shown_len((e)->start, (e)->end), (p)->text + (e)->start,                                      \
      ((e)->end - (e)->start > SHOWN_CHARS ? "..." : "")

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static void skip_space(parser *p) {
  while (p->pos < p->end && is_space(p->text[p->pos])) ++p->pos;
}

static elem *new_elem(parser *p) {
  if (p->count == p->cap) {
    size_t cap = p->cap == 0 ? 16 : p->cap * 2;
    elem *bigger = realloc(p->elems, cap * sizeof *bigger);
    if (bigger == NULL) return NULL;
    p->elems = bigger;
    p->cap = cap;
  }
  elem *e = &p->elems[p->count++];
  memset(e, 0, sizeof *e);
  return e;
}

/* ---- Scalars ----------------------------------------------------------------------------- */

/* Case-insensitive comparison of s[0 .. n) with the NUL-terminated word. */
static int word_is(const char *s, size_t n, const char *word) {
  if (strlen(word) != n) return 0;
  for (size_t i = 0; i < n; ++i) {
    char a = s[i], b = word[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

/* [+-]?[0-9]+ */
static int is_int_syntax(const char *s, size_t n) {
  size_t i = (n > 0 && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == n) return 0;
  for (; i < n; ++i)
    if (!is_digit(s[i])) return 0;
  return 1;
}

/* [+-]?(digits[.digits?]|.digits)([eE][+-]?digits)?, or [+-]?(inf|infinity|nan). */
static int is_float_syntax(const char *s, size_t n) {
  size_t i = (n > 0 && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (word_is(s + i, n - i, "inf") || word_is(s + i, n - i, "infinity") || word_is(s + i, n - i, "nan")) return 1;
  size_t digits = 0;
  while (i < n && is_digit(s[i])) ++i, ++digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < n && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return 0;
  }
  return i == n;
}

/* Parses s[0 .. n) (float syntax checked) as a double. Returns 0, or -1 if it overflows. */
static int parse_double(double *out, const char *s, size_t n) {
  char buf[128];
  char *copy = n < sizeof buf ? buf : malloc(n + 1);
  if (copy == NULL) return -1;
  memcpy(copy, s, n);
  copy[n] = '\0';
  errno = 0;
  double d = strtod(copy, NULL);
  int overflow = errno == ERANGE && isinf(d);
  if (copy != buf) free(copy);
  *out = d;
  return overflow ? -1 : 0;
}

/* Parses a number written without quotes: a bool, an integer, a float or a complex. */
static int parse_word(parser *p, elem *e) {
  const char *s = p->text + e->start;
  size_t n = e->end - e->start;
  if (word_is(s, n, "true")) {
    e->kind = ELEM_BOOL;
    e->magnitude = 1;
    return 0;
  }
  if (word_is(s, n, "false")) {
    e->kind = ELEM_BOOL;
    e->magnitude = 0;
    return 0;
  }
  if (is_int_syntax(s, n)) {
    size_t i = 0;
    e->kind = ELEM_INT;
    if (s[0] == '+' || s[0] == '-') e->negative = s[i++] == '-';
    uint64_t m = 0;
    for (; i < n; ++i) {
      unsigned digit = (unsigned)(s[i] - '0');
      if (m > (UINT64_MAX - digit) / 10) return fail(p, ELEM_FMT " is too large an integer", ELEM_ARGS(p, e));
      m = m * 10 + digit;
    }
    e->magnitude = m;
    if (m == 0) e->negative = 0;
    return 0;
  }
  if (n > 1 && (s[n - 1] == 'j' || s[n - 1] == 'J')) {
    /* A complex: "IMAGj" or "REAL+IMAGj" / "REAL-IMAGj". */
    size_t body = n - 1, split = 0;
    for (size_t i = body; i-- > 1;) {
      if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E') {
        split = i;
        break;
      }
    }
    double re = 0.0, im = 0.0;
    int ok = is_float_syntax(s + split, body - split) && (split == 0 || is_float_syntax(s, split));
    if (ok && split > 0 && parse_double(&re, s, split) != 0) ok = -1;
    if (ok == 1 && parse_double(&im, s + split, body - split) != 0) ok = -1;
    if (ok == -1) return fail(p, ELEM_FMT " is out of range", ELEM_ARGS(p, e));
    if (ok) {
      e->kind = ELEM_COMPLEX;
      e->re = re;
      e->im = im;
      return 0;
    }
  }
  if (is_float_syntax(s, n)) {
    e->kind = ELEM_FLOAT;
    if (parse_double(&e->re, s, n) != 0) return fail(p, ELEM_FMT " is out of range for float64", ELEM_ARGS(p, e));
    return 0;
  }
  return fail(p, ELEM_FMT " is not a number, true, false or a quoted string", ELEM_ARGS(p, e));
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Parses a quoted string (p->pos at the opening quote). */
static int parse_string(parser *p, elem *e) {
  const char quote = p->text[p->pos++];
  char *bytes = malloc(p->end - p->pos + 1); /* the unescaped string is no longer than the rest */
  if (bytes == NULL) return fail(p, "out of memory");
  size_t len = 0;
  for (;;) {
    if (p->pos >= p->end) {
      free(bytes);
      return fail(p, "a string is not closed: missing %c", quote);
    }
    char c = p->text[p->pos++];
    if (c == quote) break;
    if (c != '\\') {
      bytes[len++] = c;
      continue;
    }
    if (p->pos >= p->end) {
      free(bytes);
      return fail(p, "a string ends with a lone '\\'");
    }
    char x = p->text[p->pos++];
    switch (x) {
      case '\\': case '"': case '\'': bytes[len++] = x; break;
      case 'n': bytes[len++] = '\n'; break;
      case 't': bytes[len++] = '\t'; break;
      case 'r': bytes[len++] = '\r'; break;
      case '0': bytes[len++] = '\0'; break;
      case 'x': {
        int hi = p->pos < p->end ? hex_value(p->text[p->pos]) : -1;
        int lo = p->pos + 1 < p->end ? hex_value(p->text[p->pos + 1]) : -1;
        if (hi < 0 || lo < 0) {
          free(bytes);
          return fail(p, "'\\x' in a string must be followed by two hex digits");
        }
        bytes[len++] = (char)(hi * 16 + lo);
        p->pos += 2;
        break;
      }
      default:
        free(bytes);
        return fail(p, "unknown escape '\\%c' in a string", x);
    }
  }
  bytes[len] = '\0'; /* graft_tensor_from_host takes NUL-terminated strings */
  e->kind = ELEM_STRING;
  e->bytes = bytes;
  e->len = len;
  return 0;
}

/* ---- Nesting ----------------------------------------------------------------------------- */

static int not_rectangular(parser *p, size_t at) {
  return fail(p, "the nested lists are not rectangular (at character %zu)", at + 1);
}

static int parse_value(parser *p, int depth) {
  skip_space(p);
  if (p->pos >= p->end) {
    if (depth == 0 && p->count == 0) return fail(p, "the value is empty");
    return fail(p, "the value ends too soon: missing ']'");
  }
  const size_t start = p->pos;
  const char c = p->text[p->pos];

  if (c == '[') {
    if (depth >= LITERAL_MAX_RANK) return fail(p, "lists are nested more than %d deep", LITERAL_MAX_RANK);
    if (p->rank >= 0 && p->rank <= depth) return not_rectangular(p, start);
    ++p->pos;
    int64_t count = 0;
    skip_space(p);
    if (p->pos < p->end && p->text[p->pos] == ']') {
      ++p->pos;
    } else {
      for (;;) {
        if (parse_value(p, depth + 1) != 0) return -1;
        ++count;
        skip_space(p);
        if (p->pos < p->end && p->text[p->pos] == ',') {
          ++p->pos;
          skip_space(p);
          if (p->pos < p->end && p->text[p->pos] == ']') { /* a trailing comma */
            ++p->pos;
            break;
          }
          continue;
        }
        if (p->pos < p->end && p->text[p->pos] == ']') {
          ++p->pos;
          break;
        }
        if (p->pos >= p->end) return fail(p, "the value ends too soon: missing ']'");
        return fail(p, "expected ',' or ']' at character %zu, found '%c'", p->pos + 1, p->text[p->pos]);
      }
    }
    if (count == 0) {
      if (p->rank < 0) p->rank = depth + 1;
      if (p->rank != depth + 1) return not_rectangular(p, start);
    }
    if (p->dim_known[depth] && p->dims[depth] != count) return not_rectangular(p, start);
    p->dims[depth] = count;
    p->dim_known[depth] = 1;
    return 0;
  }

  if (c == ']' || c == ',') return fail(p, "unexpected '%c' at character %zu", c, start + 1);
  if (p->rank < 0) p->rank = depth;
  if (p->rank != depth) return not_rectangular(p, start);
  elem *e = new_elem(p);
  if (e == NULL) return fail(p, "out of memory");
  e->start = start;
  int status;
  if (c == '"' || c == '\'') {
    status = parse_string(p, e);
    e->end = p->pos;
  } else {
    while (p->pos < p->end && !is_space(p->text[p->pos]) && strchr(",[]\"'", p->text[p->pos]) == NULL) ++p->pos;
    e->end = p->pos;
    status = parse_word(p, e);
  }
  return status;
}

/* ---- The tensor ------------------------------------------------------------------------- */

static int does_not_fit(parser *p, const elem *e, graft_dtype dtype) {
  if (dtype == GRAFT_STRING)
    return fail(p, ELEM_FMT " does not fit string (write strings in quotes: \"...\")", ELEM_ARGS(p, e));
  return fail(p, ELEM_FMT " does not fit %s", ELEM_ARGS(p, e), graft_dtype_name(dtype));
}

static int is_complex_dtype(graft_dtype dtype) { return dtype == GRAFT_COMPLEX64 || dtype == GRAFT_COMPLEX128; }

/* The elements in one kind of host value for graft_tensor_from_host (the C API's one rule for
 * the dtype and for what fits it); the host values are filled in by host_values. */
typedef struct {
  graft_host_kind kind;
  int64_t *ints;
  double *doubles;
  graft_bool *bools;
  const char **strings;
} host_values;

static void host_values_free(host_values *h) {
  free(h->ints);
  free(h->doubles);
  free(h->bools);
  free(h->strings);
}

/* A pointer to element i of the host values. */
static const void *host_element(const host_values *h, size_t i) {
  switch (h->kind) {
    case GRAFT_HOST_INT64: return h->ints + i;
    case GRAFT_HOST_DOUBLE: return h->doubles + i;
    case GRAFT_HOST_BOOL: return h->bools + i;
    default: return h->strings + i;
  }
}

/*
 * Sorts the elements into one host kind: strings -> GRAFT_HOST_STRING, bools ->
 * GRAFT_HOST_BOOL, integers -> GRAFT_HOST_INT64, integers and floats -> GRAFT_HOST_DOUBLE ("[]"
 * counts as floats). Strings do not mix with numbers, nor bools with numbers.
 */
static int to_host(parser *p, host_values *h) {
  const elem *first_string = NULL, *first_bool = NULL, *first_number = NULL;
  int has_float = 0;
  for (size_t i = 0; i < p->count; ++i) {
    const elem *e = &p->elems[i];
    if (e->kind == ELEM_STRING) {
      if (first_string == NULL) first_string = e;
    } else if (e->kind == ELEM_BOOL) {
      if (first_bool == NULL) first_bool = e;
    } else {
      if (first_number == NULL) first_number = e;
      if (e->kind == ELEM_FLOAT) has_float = 1;
    }
  }
  if (first_string != NULL && (first_number != NULL || first_bool != NULL)) {
    const elem *other = first_number != NULL ? first_number : first_bool;
    return fail(p, "strings and %s are mixed (" ELEM_FMT " and " ELEM_FMT ")", first_number != NULL ? "numbers" : "bools",
                ELEM_ARGS(p, first_string), ELEM_ARGS(p, other));
  }
  if (first_bool != NULL && first_number != NULL)
    return fail(p, "bools and numbers are mixed (" ELEM_FMT " and " ELEM_FMT ")", ELEM_ARGS(p, first_bool),
                ELEM_ARGS(p, first_number));
  size_t n = p->count + 1; /* never 0 bytes */
  if (first_string != NULL) {
    h->kind = GRAFT_HOST_STRING;
    h->strings = malloc(n * sizeof *h->strings);
  } else if (first_bool != NULL) {
    h->kind = GRAFT_HOST_BOOL;
    h->bools = malloc(n * sizeof *h->bools);
  } else if (has_float || p->count == 0) {
    h->kind = GRAFT_HOST_DOUBLE;
    h->doubles = malloc(n * sizeof *h->doubles);
  } else {
    h->kind = GRAFT_HOST_INT64;
    h->ints = malloc(n * sizeof *h->ints);
  }
  if (h->strings == NULL && h->bools == NULL && h->doubles == NULL && h->ints == NULL) return fail(p, "out of memory");
  for (size_t i = 0; i < p->count; ++i) {
    const elem *e = &p->elems[i];
    switch (h->kind) {
      case GRAFT_HOST_STRING: h->strings[i] = e->bytes; break;
      case GRAFT_HOST_BOOL: h->bools[i] = (graft_bool)e->magnitude; break;
      case GRAFT_HOST_INT64:
        /* -2^63 .. 2^63-1; larger magnitudes are made by make_uint64 (uint64) or refused */
        h->ints[i] = e->negative ? (int64_t)(0 - e->magnitude) : (int64_t)e->magnitude;
        break;
      default:
        h->doubles[i] = e->kind == ELEM_FLOAT ? e->re : e->negative ? -(double)e->magnitude : (double)e->magnitude;
        break;
    }
  }
  return 0;
}

/* Whether an integer element is beyond int64, which GRAFT_HOST_INT64 cannot carry. */
static int beyond_int64(const elem *e) {
  return e->kind == ELEM_INT && e->magnitude > (e->negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX);
}

/* A uint64 tensor of integers some of which are beyond int64 (so not host int64 values). */
static int make_uint64(parser *p, graft_tensor **out) {
  uint64_t *data = malloc((p->count + 1) * sizeof *data);
  if (data == NULL) return fail(p, "out of memory");
  for (size_t i = 0; i < p->count; ++i) {
    const elem *e = &p->elems[i];
    if (e->kind != ELEM_INT || (e->negative && e->magnitude != 0)) {
      free(data);
      return does_not_fit(p, e, GRAFT_UINT64);
    }
    data[i] = e->magnitude;
  }
  int status = graft_tensor_new(out, GRAFT_UINT64, p->dims, p->rank, data, p->count * sizeof *data);
  free(data);
  return status == GRAFT_OK ? 0 : fail(p, "%s", graft_error_last());
}

/* Stores d as a float of dtype (float32 or float64) at dst, failing when a finite d overflows. */
static int store_part(parser *p, const elem *e, graft_dtype complex_dtype, double d, unsigned char *dst) {
  if (complex_dtype == GRAFT_COMPLEX128) {
    memcpy(dst, &d, sizeof d);
    return 0;
  }
  float f = (float)d;
  if (isinf(f) && !isinf(d)) return does_not_fit(p, e, complex_dtype);
  memcpy(dst, &f, sizeof f);
  return 0;
}

/* A complex tensor (complex64 or complex128): the host kinds have no complex numbers. */
static int make_complex(parser *p, graft_tensor **out, graft_dtype dtype) {
  size_t half = dtype == GRAFT_COMPLEX64 ? sizeof(float) : sizeof(double);
  unsigned char *data = malloc((p->count + 1) * 2 * half);
  if (data == NULL) return fail(p, "out of memory");
  for (size_t i = 0; i < p->count; ++i) {
    const elem *e = &p->elems[i];
    double re = 0.0, im = 0.0;
    switch (e->kind) {
      case ELEM_COMPLEX: re = e->re; im = e->im; break;
      case ELEM_FLOAT: re = e->re; break;
      case ELEM_INT: re = e->negative ? -(double)e->magnitude : (double)e->magnitude; break;
      default: free(data); return does_not_fit(p, e, dtype);
    }
    unsigned char *dst = data + i * 2 * half;
    if (store_part(p, e, dtype, re, dst) != 0 || store_part(p, e, dtype, im, dst + half) != 0) {
      free(data);
      return -1;
    }
  }
  int status = graft_tensor_new(out, dtype, p->dims, p->rank, data, p->count * 2 * half);
  free(data);
  return status == GRAFT_OK ? 0 : fail(p, "%s", graft_error_last());
}

/* A string tensor of byte strings some of which hold a NUL byte (GRAFT_HOST_STRING's strings
 * are NUL-terminated). */
static int make_byte_strings(parser *p, graft_tensor **out) {
  const char **strings = malloc((p->count + 1) * sizeof *strings);
  size_t *lengths = malloc((p->count + 1) * sizeof *lengths);
  int status = -1;
  if (strings == NULL || lengths == NULL) {
    status = fail(p, "out of memory");
  } else {
    for (size_t i = 0; i < p->count; ++i) {
      strings[i] = p->elems[i].bytes;
      lengths[i] = p->elems[i].len;
    }
    if (graft_tensor_new_strings(out, p->dims, p->rank, strings, lengths, p->count) == GRAFT_OK)
      status = 0;
    else
      status = fail(p, "%s", graft_error_last());
  }
  free(strings);
  free(lengths);
  return status;
}

/*
 * The tensor of the elements, of dtype (GRAFT_DTYPE_INVALID: inferred). graft_tensor_from_host
 * decides the dtype and what fits it; when an element does not, the message names it (found by
 * converting the elements one by one, by the same rule). What the host kinds cannot carry is
 * made here: complex numbers, integers beyond int64 (as uint64) and strings holding NUL bytes.
 */
static int make_tensor(parser *p, graft_tensor **out, graft_dtype dtype) {
  int has_complex = 0, has_nul = 0;
  const elem *big = NULL;
  for (size_t i = 0; i < p->count; ++i) {
    const elem *e = &p->elems[i];
    if (e->kind == ELEM_COMPLEX) has_complex = 1;
    if (e->kind == ELEM_STRING && memchr(e->bytes, '\0', e->len) != NULL) has_nul = 1;
    if (big == NULL && beyond_int64(e)) big = e;
  }
  host_values h;
  memset(&h, 0, sizeof h);
  if (to_host(p, &h) != 0) {
    host_values_free(&h);
    return -1;
  }
  int status = 0;
  if (is_complex_dtype(dtype) || (has_complex && dtype == GRAFT_DTYPE_INVALID)) {
    status = make_complex(p, out, dtype == GRAFT_DTYPE_INVALID ? GRAFT_COMPLEX128 : dtype);
  } else if (has_complex) {
    for (size_t i = 0; i < p->count && status == 0; ++i)
      if (p->elems[i].kind == ELEM_COMPLEX) status = does_not_fit(p, &p->elems[i], dtype);
  } else if (big != NULL && h.kind == GRAFT_HOST_INT64) {
    if (dtype == GRAFT_UINT64)
      status = make_uint64(p, out);
    else if (dtype == GRAFT_DTYPE_INVALID)
      status = fail(p, ELEM_FMT " does not fit int64 (give ':uint64' for integers up to 2^64-1)", ELEM_ARGS(p, big));
    else
      status = does_not_fit(p, big, dtype);
  } else if (has_nul && (dtype == GRAFT_STRING || dtype == GRAFT_DTYPE_INVALID)) {
    status = make_byte_strings(p, out);
  } else if (graft_tensor_from_host(out, h.kind, host_element(&h, 0), p->dims, p->rank, dtype) != GRAFT_OK) {
    char why[256];
    snprintf(why, sizeof why, "%s", graft_error_last());
    status = fail(p, "%s", why);
    for (size_t i = 0; i < p->count; ++i) {
      graft_tensor *one = NULL;
      if (graft_tensor_from_host(&one, h.kind, host_element(&h, i), NULL, 0, dtype) != GRAFT_OK) {
        const elem *e = &p->elems[i];
        if (dtype == GRAFT_DTYPE_INVALID && h.kind == GRAFT_HOST_DOUBLE)
          status = fail(p, ELEM_FMT " does not fit float32, the dtype of floats (give ':float64')", ELEM_ARGS(p, e));
        else if (dtype == GRAFT_DTYPE_INVALID)
          status = fail(p, ELEM_FMT ": %s", ELEM_ARGS(p, e), why);
        else
          status = does_not_fit(p, e, dtype);
        break;
      }
      graft_tensor_free(one);
    }
  }
  host_values_free(&h);
  return status;
}

static int literal_dtype_ok(graft_dtype dtype) {
  switch (dtype) {
    case GRAFT_BOOL: case GRAFT_STRING:
    case GRAFT_INT8: case GRAFT_INT16: case GRAFT_INT32: case GRAFT_INT64:
    case GRAFT_UINT8: case GRAFT_UINT16: case GRAFT_UINT32: case GRAFT_UINT64:
    case GRAFT_FLOAT16: case GRAFT_BFLOAT16: case GRAFT_FLOAT32: case GRAFT_FLOAT64:
    case GRAFT_COMPLEX64: case GRAFT_COMPLEX128:
      return 1;
    default:
      return 0;
  }
}

/*
 * Splits off a ":DTYPE" suffix: the first ':' outside quotes. Returns 0 with *value_end set to
 * where the value ends and *dtype to the suffix's dtype (GRAFT_DTYPE_INVALID without one).
 */
static int split_suffix(parser *p, size_t *value_end, graft_dtype *dtype) {
  const char *text = p->text;
  size_t n = strlen(text), i = 0;
  char quote = 0;
  for (; i < n; ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < n)
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ':') {
      break;
    }
  }
  *value_end = i;
  *dtype = GRAFT_DTYPE_INVALID;
  if (i == n) return 0;

  size_t start = i + 1, end = n;
  while (start < end && is_space(text[start])) ++start;
  while (end > start && is_space(text[end - 1])) --end;
  char name[64];
  if (end == start) return fail(p, "a dtype is missing after ':'");
  if (end - start >= sizeof name) return fail(p, "unknown dtype '%.*s...'", SHOWN_CHARS, text + start);
  memcpy(name, text + start, end - start);
  name[end - start] = '\0';
  graft_dtype d = GRAFT_DTYPE_INVALID;
  if (graft_dtype_from_name(&d, name) != GRAFT_OK) return fail(p, "unknown dtype '%s'", name);
  d = graft_dtype_base(d);
  if (!literal_dtype_ok(d)) return fail(p, "cannot make a %s tensor from a literal", graft_dtype_name(d));
  *dtype = d;
  return 0;
}

int literal_parse(graft_tensor **out, const char *text, graft_dtype default_dtype, char *err, size_t err_size) {
  parser p;
  memset(&p, 0, sizeof p);
  p.text = text;
  p.rank = -1;
  p.err = err;
  p.err_size = err_size;
  if (err_size > 0) err[0] = '\0';

  graft_dtype dtype = GRAFT_DTYPE_INVALID;
  int status = split_suffix(&p, &p.end, &dtype);
  if (status == 0) status = parse_value(&p, 0);
  if (status == 0) {
    skip_space(&p);
    if (p.pos < p.end) status = fail(&p, "unexpected '%c' at character %zu", text[p.pos], p.pos + 1);
  }
  if (status == 0 && dtype == GRAFT_DTYPE_INVALID && graft_dtype_is_valid(default_dtype)) {
    dtype = graft_dtype_base(default_dtype);
    if (!literal_dtype_ok(dtype))
      status = fail(&p, "cannot make a %s tensor from a literal", graft_dtype_name(dtype));
  }
  if (status == 0) status = make_tensor(&p, out, dtype);

  for (size_t i = 0; i < p.count; ++i) free(p.elems[i].bytes);
  free(p.elems);
  return status;
}
