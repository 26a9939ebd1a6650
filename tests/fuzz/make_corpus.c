/*
 * Writes the seed corpus of a fuzz target into a directory. For import_graph_def:
 *   - every conformance graph, every .pb file of CONFORMANCE_DIR/graphs, as it is;
 *   - the graph_def of every MetaGraphDef of CONFORMANCE_DIR/savedmodels/(name)/saved_model.pb;
 *   - a few graphs made here: an empty GraphDef (0 bytes), a small graph (Placeholder, Const,
 *     AddV2, a control input, a device), the same cut in half, a TensorFlow 1 loop
 *     (Enter/Merge/NextIteration), and Consts of several dtypes and encodings;
 *   - of every graph that parses, variants whose last byte (the fuzz target's selector, see
 *     fuzz_import_graph_def.c) asks for the import with prefix "" and a return element, in
 *     each of its four forms: an entry appended to versions.bad_consumers, the last field
 *     written, makes that byte.
 * Without the conformance folder (CI has ../shared beside the clone) only the graphs made here
 * are written. The file names are fixed, so running it again rewrites the same files.
 *
 * For saved_model: every conformance SavedModel's files in fuzz_common.h's records (the names
 * of fuzz_saved_model.c); checkpoint: their variables' index and data files (fuzz_checkpoint.cc);
 * parse_example: tf.train.Examples made here with the features fuzz_parse_example.c parses, one
 * to four per input; npy: .npy files of several dtypes, shapes and byte orders made here;
 * literal and spec_strings: texts made here, behind the byte that picks what they are.
 *
 * usage: make_corpus TARGET OUT_DIR [CONFORMANCE_DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto/graph.pb-c.h"
#include "proto/saved_model.pb-c.h"

static const char *out_dir;
static int written;

static int write_bytes(const char *name, const void *data, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", out_dir, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len)) {
    fprintf(stderr, "make_corpus: cannot write %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    return -1;
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "make_corpus: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  ++written;
  return 0;
}

/* The whole file, or NULL when it cannot be read. */
static uint8_t *read_all(const char *path, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 65536, len = 0;
  uint8_t *buf = malloc(cap);
  while (buf != NULL) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    uint8_t *bigger = realloc(buf, cap * 2);
    if (bigger == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  int failed = buf == NULL || ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    return NULL;
  }
  *out_len = len;
  return buf;
}

static int write_graph(const char *name, const Graftpb__GraphDef *gd) {
  size_t len = graftpb__graph_def__get_packed_size(gd);
  uint8_t *buf = malloc(len ? len : 1);
  if (buf == NULL) return -1;
  graftpb__graph_def__pack(gd, buf);
  int rc = write_bytes(name, buf, len);
  free(buf);
  return rc;
}

/* Writes name + "_sel<k>.pb" for selectors asking for each return-element form (and another op
 * each time): bit 0 set, form (k >> 1) & 3, op k >> 3. */
static int write_selector_variants(const char *name, Graftpb__GraphDef *gd) {
  static const int32_t selectors[] = {1, 1 | 1 << 1 | 1 << 3, 1 | 2 << 1 | 2 << 3, 1 | 3 << 1 | 3 << 3};
  Graftpb__VersionDef local;
  graftpb__version_def__init(&local);
  Graftpb__VersionDef *saved_versions = gd->versions;
  if (gd->versions == NULL) gd->versions = &local;
  size_t saved_n = gd->versions->n_bad_consumers;
  int32_t *saved = gd->versions->bad_consumers;
  int32_t *with_one = malloc((saved_n + 1) * sizeof *with_one);
  if (with_one == NULL) return -1;
  if (saved_n > 0) memcpy(with_one, saved, saved_n * sizeof *with_one);
  gd->versions->bad_consumers = with_one;
  gd->versions->n_bad_consumers = saved_n + 1;
  int rc = 0;
  for (size_t i = 0; i < sizeof selectors / sizeof selectors[0] && rc == 0; ++i) {
    with_one[saved_n] = selectors[i];
    char variant[1024];
    snprintf(variant, sizeof variant, "%s_sel%d.pb", name, (int)selectors[i]);
    rc = write_graph(variant, gd);
  }
  gd->versions->bad_consumers = saved;
  gd->versions->n_bad_consumers = saved_n;
  gd->versions = saved_versions;
  free(with_one);
  return rc;
}

/* ---- Graphs made here ------------------------------------------------------------------- */

/* Room for the small graphs below: nodes with a few attrs each, and the values they point to. */
#define MAX_NODES 12
#define MAX_ATTRS 4

struct builder {
  Graftpb__GraphDef gd;
  Graftpb__VersionDef versions;
  Graftpb__NodeDef nodes[MAX_NODES];
  Graftpb__NodeDef *node_ptrs[MAX_NODES];
  Graftpb__NodeDef__AttrEntry attrs[MAX_NODES][MAX_ATTRS];
  Graftpb__NodeDef__AttrEntry *attr_ptrs[MAX_NODES][MAX_ATTRS];
  Graftpb__AttrValue values[MAX_NODES][MAX_ATTRS];
  Graftpb__TensorProto tensors[MAX_NODES];
  Graftpb__TensorShapeProto shapes[MAX_NODES];
  Graftpb__TensorShapeProto__Dim dims[MAX_NODES][2];
  Graftpb__TensorShapeProto__Dim *dim_ptrs[MAX_NODES][2];
};

static void builder_init(struct builder *b, int32_t producer) {
  memset(b, 0, sizeof *b);
  graftpb__graph_def__init(&b->gd);
  graftpb__version_def__init(&b->versions);
  b->versions.producer = producer;
  b->gd.versions = &b->versions;
  b->gd.node = b->node_ptrs;
}

static Graftpb__NodeDef *node(struct builder *b, const char *name, const char *op, const char **inputs, size_t n) {
  size_t i = b->gd.n_node++;
  if (i >= MAX_NODES) abort();
  Graftpb__NodeDef *d = &b->nodes[i];
  graftpb__node_def__init(d);
  d->name = (char *)name;
  d->op = (char *)op;
  d->input = (char **)inputs;
  d->n_input = n;
  d->attr = b->attr_ptrs[i];
  b->node_ptrs[i] = d;
  return d;
}

static Graftpb__AttrValue *attr(struct builder *b, Graftpb__NodeDef *d, const char *key) {
  size_t i = (size_t)(d - b->nodes), k = d->n_attr++;
  if (k >= MAX_ATTRS) abort();
  Graftpb__NodeDef__AttrEntry *e = &b->attrs[i][k];
  graftpb__node_def__attr_entry__init(e);
  e->key = (char *)key;
  e->value = &b->values[i][k];
  graftpb__attr_value__init(e->value);
  b->attr_ptrs[i][k] = e;
  return e->value;
}

static void attr_type(struct builder *b, Graftpb__NodeDef *d, const char *key, Graftpb__DataType t) {
  Graftpb__AttrValue *v = attr(b, d, key);
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_TYPE;
  v->type = t;
}

static void attr_int(struct builder *b, Graftpb__NodeDef *d, const char *key, int64_t i) {
  Graftpb__AttrValue *v = attr(b, d, key);
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_I;
  v->i = i;
}

static void attr_string(struct builder *b, Graftpb__NodeDef *d, const char *key, const char *s) {
  Graftpb__AttrValue *v = attr(b, d, key);
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)s;
  v->s.len = strlen(s);
}

/* The node's shape message with ndims dims (ndims < 0: unknown rank). */
static Graftpb__TensorShapeProto *shape(struct builder *b, Graftpb__NodeDef *d, const int64_t *dims, int ndims) {
  size_t i = (size_t)(d - b->nodes);
  Graftpb__TensorShapeProto *s = &b->shapes[i];
  graftpb__tensor_shape_proto__init(s);
  if (ndims < 0) {
    s->unknown_rank = 1;
    return s;
  }
  for (int k = 0; k < ndims; ++k) {
    graftpb__tensor_shape_proto__dim__init(&b->dims[i][k]);
    b->dims[i][k].size = dims[k];
    b->dim_ptrs[i][k] = &b->dims[i][k];
  }
  s->n_dim = (size_t)ndims;
  s->dim = b->dim_ptrs[i];
  return s;
}

/* A Const of dtype with shape dims; the caller fills the tensor's values. */
static Graftpb__TensorProto *constant(struct builder *b, const char *name, Graftpb__DataType dtype, const int64_t *dims,
                                      int ndims) {
  Graftpb__NodeDef *d = node(b, name, "Const", NULL, 0);
  attr_type(b, d, "dtype", dtype);
  Graftpb__AttrValue *v = attr(b, d, "value");
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_TENSOR;
  Graftpb__TensorProto *t = &b->tensors[d - b->nodes];
  graftpb__tensor_proto__init(t);
  t->dtype = dtype;
  t->tensor_shape = shape(b, d, dims, ndims);
  v->tensor = t;
  return t;
}

static int write_hand_made(void) {
  if (write_bytes("hand_empty", "", 0) != 0) return -1;
  struct builder *b = malloc(sizeof *b);
  if (b == NULL) return -1;
  int rc = 0;

  /* x: Placeholder [-1, 3]; c: Const [3] (tensor_content); y = x + c on a device; z: Identity(y)
   * with a control input on x. */
  builder_init(b, 1882);
  Graftpb__NodeDef *x = node(b, "x", "Placeholder", NULL, 0);
  attr_type(b, x, "dtype", GRAFTPB__DATA_TYPE__DT_FLOAT);
  Graftpb__AttrValue *xs = attr(b, x, "shape");
  xs->value_case = GRAFTPB__ATTR_VALUE__VALUE_SHAPE;
  xs->shape = shape(b, x, (const int64_t[]){-1, 3}, 2);
  static const float c_values[3] = {1.0f, 2.0f, 3.0f};
  Graftpb__TensorProto *c = constant(b, "c", GRAFTPB__DATA_TYPE__DT_FLOAT, (const int64_t[]){3}, 1);
  c->tensor_content.data = (uint8_t *)c_values;
  c->tensor_content.len = sizeof c_values;
  static const char *y_in[] = {"x", "c:0"};
  Graftpb__NodeDef *y = node(b, "y", "AddV2", y_in, 2);
  attr_type(b, y, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  y->device = (char *)"/device:CPU:0";
  static const char *z_in[] = {"y", "^x"};
  Graftpb__NodeDef *z = node(b, "z", "Identity", z_in, 2);
  attr_type(b, z, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  rc = rc ? rc : write_graph("hand_small.pb", &b->gd);
  rc = rc ? rc : write_selector_variants("hand_small", &b->gd);
  size_t len = graftpb__graph_def__get_packed_size(&b->gd);
  uint8_t *buf = malloc(len);
  if (buf == NULL) abort();
  graftpb__graph_def__pack(&b->gd, buf);
  rc = rc ? rc : write_bytes("hand_small_truncated.pb", buf, len / 2);
  free(buf);

  /* A TensorFlow 1 loop: the NextIteration -> Merge back edge. */
  builder_init(b, 27);
  static const int64_t scalar[1] = {0};
  static const float zero = 0.0f;
  Graftpb__TensorProto *init = constant(b, "init", GRAFTPB__DATA_TYPE__DT_FLOAT, scalar, 0);
  init->float_val = (float *)&zero;
  init->n_float_val = 1;
  static const char *enter_in[] = {"init"};
  Graftpb__NodeDef *enter = node(b, "enter", "Enter", enter_in, 1);
  attr_type(b, enter, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  attr_string(b, enter, "frame_name", "loop");
  static const char *merge_in[] = {"enter", "next"};
  Graftpb__NodeDef *merge = node(b, "merge", "Merge", merge_in, 2);
  attr_type(b, merge, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  attr_int(b, merge, "N", 2);
  static const char *body_in[] = {"merge"};
  Graftpb__NodeDef *body = node(b, "body", "Identity", body_in, 1);
  attr_type(b, body, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  static const char *next_in[] = {"body"};
  Graftpb__NodeDef *next = node(b, "next", "NextIteration", next_in, 1);
  attr_type(b, next, "T", GRAFTPB__DATA_TYPE__DT_FLOAT);
  rc = rc ? rc : write_graph("hand_loop.pb", &b->gd);
  rc = rc ? rc : write_selector_variants("hand_loop", &b->gd);

  /* Consts of several dtypes, each in another encoding of TensorProto. */
  builder_init(b, 1882);
  static ProtobufCBinaryData strings[1] = {{5, (uint8_t *)"graft"}};
  Graftpb__TensorProto *s = constant(b, "strings", GRAFTPB__DATA_TYPE__DT_STRING, (const int64_t[]){2}, 1);
  s->string_val = strings;  /* one value for two elements: repeated */
  s->n_string_val = 1;
  static int64_t i64[1] = {-7};
  Graftpb__TensorProto *l = constant(b, "int64", GRAFTPB__DATA_TYPE__DT_INT64, scalar, 0);
  l->int64_val = i64;
  l->n_int64_val = 1;
  static const uint8_t bools[4] = {1, 0, 2, 1};
  Graftpb__TensorProto *bo = constant(b, "bools", GRAFTPB__DATA_TYPE__DT_BOOL, (const int64_t[]){2, 2}, 2);
  bo->tensor_content.data = (uint8_t *)bools;
  bo->tensor_content.len = sizeof bools;
  static int32_t half[1] = {0x3c00};
  Graftpb__TensorProto *h = constant(b, "half", GRAFTPB__DATA_TYPE__DT_HALF, (const int64_t[]){3}, 1);
  h->half_val = half;
  h->n_half_val = 1;
  static float complex64[2] = {1.5f, -2.0f};
  Graftpb__TensorProto *cx = constant(b, "complex", GRAFTPB__DATA_TYPE__DT_COMPLEX64, scalar, 0);
  cx->scomplex_val = complex64;
  cx->n_scomplex_val = 2;
  constant(b, "empty_uint8", GRAFTPB__DATA_TYPE__DT_UINT8, (const int64_t[]){0, 4}, 2);  /* no values */
  static int32_t i8[2] = {-3, 7};
  Graftpb__TensorProto *q = constant(b, "int8", GRAFTPB__DATA_TYPE__DT_INT8, (const int64_t[]){2}, 1);
  q->int_val = i8;
  q->n_int_val = 2;
  Graftpb__NodeDef *p = node(b, "unknown_rank", "Placeholder", NULL, 0);
  attr_type(b, p, "dtype", GRAFTPB__DATA_TYPE__DT_DOUBLE);
  Graftpb__AttrValue *ps = attr(b, p, "shape");
  ps->value_case = GRAFTPB__ATTR_VALUE__VALUE_SHAPE;
  ps->shape = shape(b, p, NULL, -1);
  static const char *pack_in[] = {"int64", "int64", "^unknown_rank"};
  Graftpb__NodeDef *pk = node(b, "pack", "Pack", pack_in, 3);
  attr_type(b, pk, "T", GRAFTPB__DATA_TYPE__DT_INT64);
  attr_int(b, pk, "N", 2);
  attr_int(b, pk, "axis", 0);
  rc = rc ? rc : write_graph("hand_consts.pb", &b->gd);
  rc = rc ? rc : write_selector_variants("hand_consts", &b->gd);
  free(b);
  return rc;
}

/* ---- Conformance graphs ------------------------------------------------------------------ */

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (without "." entries), sorted; NULL when dir cannot be opened. */
static char **list_dir(const char *dir, size_t *out_n) {
  DIR *d = opendir(dir);
  if (d == NULL) return NULL;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **bigger = realloc(names, cap * sizeof *names);
      if (bigger == NULL) abort();
      names = bigger;
    }
    names[n] = strdup(e->d_name);
    if (names[n++] == NULL) abort();
  }
  closedir(d);
  if (n > 0) qsort(names, n, sizeof *names, compare_names);
  *out_n = n;
  return names ? names : calloc(1, sizeof *names);
}

static void free_list(char **names, size_t n) {
  for (size_t i = 0; i < n; ++i) free(names[i]);
  free(names);
}

static int write_conformance_graphs(const char *conformance) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/graphs", conformance);
  size_t n = 0;
  char **names = list_dir(dir, &n);
  if (names == NULL) return 1;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    size_t len = strlen(names[i]);
    if (len < 4 || strcmp(names[i] + len - 3, ".pb") != 0) continue;
    char path[8192], base[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(base, sizeof base, "graph_%.*s", (int)(len - 3), names[i]);
    size_t size = 0;
    uint8_t *data = read_all(path, &size);
    if (data == NULL) {
      fprintf(stderr, "make_corpus: cannot read %s\n", path);
      rc = -1;
      break;
    }
    char name[1100];
    snprintf(name, sizeof name, "%s.pb", base);
    rc = write_bytes(name, data, size);
    Graftpb__GraphDef *gd = graftpb__graph_def__unpack(NULL, size, data);
    if (gd != NULL) {
      rc = rc ? rc : write_selector_variants(base, gd);
      graftpb__graph_def__free_unpacked(gd, NULL);
    }
    free(data);
  }
  free_list(names, n);
  return rc;
}

static int write_savedmodel_graphs(const char *conformance) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/savedmodels", conformance);
  size_t n = 0;
  char **names = list_dir(dir, &n);
  if (names == NULL) return 1;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/saved_model.pb", dir, names[i]);
    size_t size = 0;
    uint8_t *data = read_all(path, &size);
    if (data == NULL) continue;  /* not a SavedModel folder */
    Graftpb__SavedModel *sm = graftpb__saved_model__unpack(NULL, size, data);
    if (sm == NULL) {
      fprintf(stderr, "make_corpus: %s does not parse as a SavedModel\n", path);
      rc = -1;
    }
    for (size_t k = 0; sm != NULL && k < sm->n_meta_graphs && rc == 0; ++k) {
      Graftpb__GraphDef *gd = sm->meta_graphs[k]->graph_def;
      if (gd == NULL) continue;
      char base[1024], name[1100];
      snprintf(base, sizeof base, "savedmodel_%s_%zu", names[i], k);
      snprintf(name, sizeof name, "%s.pb", base);
      rc = write_graph(name, gd);
      rc = rc ? rc : write_selector_variants(base, gd);
    }
    if (sm != NULL) graftpb__saved_model__free_unpacked(sm, NULL);
    free(data);
  }
  free_list(names, n);
  return rc;
}

/* ---- Targets with inputs made of files ---------------------------------------------------- */

/* A growing byte buffer; aborts when memory runs out. */
struct bytes {
  uint8_t *p;
  size_t n, cap;
};

static void put(struct bytes *b, const void *data, size_t len) {
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + len) cap *= 2;
    uint8_t *bigger = realloc(b->p, cap);
    if (bigger == NULL) abort();
    b->p = bigger;
    b->cap = cap;
  }
  if (len > 0) memcpy(b->p + b->n, data, len);
  b->n += len;
}

/* One fuzz_common.h record: name index, little-endian length, bytes. */
static void put_record(struct bytes *b, int which, const void *data, size_t len) {
  uint8_t head[5] = {(uint8_t)which, (uint8_t)(len & 0xFF), (uint8_t)((len >> 8) & 0xFF), (uint8_t)((len >> 16) & 0xFF),
                     (uint8_t)((len >> 24) & 0xFF)};
  put(b, head, sizeof head);
  put(b, data, len);
}

/* Adds file dir/rel as record `which` when it exists; returns whether it did. */
static int put_file_record(struct bytes *b, int which, const char *dir, const char *rel) {
  char path[8192];
  if (snprintf(path, sizeof path, "%s/%s", dir, rel) >= (int)sizeof path) return 0;
  size_t size = 0;
  uint8_t *data = read_all(path, &size);
  if (data == NULL) return 0;
  put_record(b, which, data, size);
  free(data);
  return 1;
}

/* The first file in dir/sub, as "sub/name" in rel; 0 when there is none. */
static int first_file(char *rel, size_t cap, const char *dir, const char *sub) {
  char path[8192];
  if (snprintf(path, sizeof path, "%s/%s", dir, sub) >= (int)sizeof path) return 0;
  size_t n = 0;
  char **names = list_dir(path, &n);
  if (names == NULL) return 0;
  int found = n > 0;
  if (found) snprintf(rel, cap, "%s/%s", sub, names[0]);
  free_list(names, n);
  return found;
}

/* saved_model (checkpoint = 0) or checkpoint (1): one input per conformance SavedModel. */
static int write_savedmodel_files(const char *conformance, int checkpoint) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/savedmodels", conformance);
  size_t n = 0;
  char **names = list_dir(dir, &n);
  if (names == NULL) return 1;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    char model[4096], asset[1024], name[1100];
    if (snprintf(model, sizeof model, "%s/%s", dir, names[i]) >= (int)sizeof model) continue;
    struct bytes b = {0};
    if (checkpoint) {
      int index = put_file_record(&b, 0, model, "variables/variables.index");
      int data = put_file_record(&b, 1, model, "variables/variables.data-00000-of-00001");
      if (index && data) {
        snprintf(name, sizeof name, "checkpoint_%s", names[i]);
        rc = write_bytes(name, b.p, b.n);
      }
    } else if (put_file_record(&b, 0, model, "saved_model.pb")) {
      put_file_record(&b, 1, model, "variables/variables.index");
      put_file_record(&b, 2, model, "variables/variables.data-00000-of-00001");
      if (first_file(asset, sizeof asset, model, "assets")) put_file_record(&b, 3, model, asset);
      put_file_record(&b, 4, model, "fingerprint.pb");
      snprintf(name, sizeof name, "savedmodel_%s", names[i]);
      rc = write_bytes(name, b.p, b.n);
    }
    free(b.p);
  }
  free_list(names, n);
  return rc;
}

/* ---- tf.train.Example protos --------------------------------------------------------------- */

static void put_varint(struct bytes *b, uint64_t v) {
  uint8_t out[10];
  size_t n = 0;
  do {
    out[n++] = (uint8_t)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  put(b, out, n);
}

/* Field `field` of wire type 2 (length-delimited) holding data. */
static void put_len_field(struct bytes *b, int field, const void *data, size_t len) {
  put_varint(b, (uint64_t)field << 3 | 2);
  put_varint(b, len);
  put(b, data, len);
}

/* Appends the map entry features[key] = feature (kind 1 bytes, 2 floats, 3 int64s) to features. */
static void put_feature(struct bytes *features, const char *key, int kind, const struct bytes *list) {
  struct bytes kind_list = {0}, feature = {0}, entry = {0};
  if (kind == 1) {
    put(&kind_list, list->p, list->n); /* already repeated bytes fields */
  } else {
    put_len_field(&kind_list, 1, list->p, list->n); /* packed */
  }
  put_len_field(&feature, kind, kind_list.p, kind_list.n);
  put_len_field(&entry, 1, key, strlen(key));
  put_len_field(&entry, 2, feature.p, feature.n);
  put_len_field(features, 1, entry.p, entry.n);
  free(kind_list.p);
  free(feature.p);
  free(entry.p);
}

static void floats_feature(struct bytes *features, const char *key, const float *v, size_t n) {
  struct bytes list = {0};
  put(&list, v, n * sizeof *v); /* little-endian hosts, as protobuf's fixed32 */
  put_feature(features, key, 2, &list);
  free(list.p);
}

static void ints_feature(struct bytes *features, const char *key, const int64_t *v, size_t n) {
  struct bytes list = {0};
  for (size_t i = 0; i < n; ++i) put_varint(&list, (uint64_t)v[i]);
  put_feature(features, key, 3, &list);
  free(list.p);
}

static void strings_feature(struct bytes *features, const char *key, const char *const *v, size_t n) {
  struct bytes list = {0};
  for (size_t i = 0; i < n; ++i) put_len_field(&list, 1, v[i], strlen(v[i]));
  put_feature(features, key, 1, &list);
  free(list.p);
}

/* Example number k: every feature fuzz_parse_example.c asks for (k = 0), some of them (k = 1),
 * none (k = 2), or features of the wrong kind or size (k = 3). */
static struct bytes make_example(int k) {
  struct bytes features = {0}, example = {0};
  const float f2[2] = {1.5f, -2.0f}, f3[3] = {0.25f, 4.0f, 8.0f};
  const int64_t i1[1] = {7}, i3[3] = {-1, 300, 1ll << 40};
  const char *const s1[1] = {"text"}, *const s2[2] = {"a", ""};
  if (k == 0) {
    floats_feature(&features, "f", f2, 2);
    ints_feature(&features, "i", i1, 1);
    strings_feature(&features, "s", s1, 1);
    floats_feature(&features, "vf", f3, 3);
    floats_feature(&features, "sf", f3, 3);
    ints_feature(&features, "si", i3, 3);
    strings_feature(&features, "ss", s2, 2);
    floats_feature(&features, "rf", f2, 2);
    ints_feature(&features, "ri", i3, 3);
  } else if (k == 1) {
    floats_feature(&features, "f", f2, 2);
    floats_feature(&features, "vf", f2, 1);
    strings_feature(&features, "ss", s1, 1);
  } else if (k == 3) {
    floats_feature(&features, "f", f3, 3);
    strings_feature(&features, "i", s2, 2);
    ints_feature(&features, "sf", i1, 1);
  }
  put_len_field(&example, 1, features.p, features.n);
  free(features.p);
  return example;
}

static int write_examples(void) {
  static const int batches[][4] = {{0, -1, -1, -1}, {1, -1, -1, -1}, {2, -1, -1, -1}, {3, -1, -1, -1},
                                   {0, 1, -1, -1},  {0, 1, 2, -1},   {2, 1, 0, 1},    {0, 3, -1, -1}};
  int rc = 0;
  for (size_t b = 0; b < sizeof batches / sizeof batches[0] && rc == 0; ++b) {
    struct bytes input = {0};
    for (int slot = 0; slot < 4 && batches[b][slot] >= 0; ++slot) {
      struct bytes e = make_example(batches[b][slot]);
      put_record(&input, slot, e.p, e.n);
      free(e.p);
    }
    char name[64];
    snprintf(name, sizeof name, "examples_%zu", b);
    rc = write_bytes(name, input.p, input.n);
    free(input.p);
  }
  return rc;
}

/* ---- .npy files, literals, spec strings ------------------------------------------------------ */

/* A version 1.0 .npy file with header dict `dict` and `data_len` bytes of data (a pattern). */
static int write_npy(const char *name, const char *dict, size_t data_len) {
  struct bytes b = {0};
  size_t header = strlen(dict) + 1;
  size_t pad = (64 - (10 + header) % 64) % 64;
  header += pad;
  uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(header & 0xFF), (uint8_t)(header >> 8)};
  put(&b, pre, sizeof pre);
  put(&b, dict, strlen(dict));
  for (size_t i = 0; i < pad; ++i) put(&b, " ", 1);
  put(&b, "\n", 1);
  for (size_t i = 0; i < data_len; ++i) {
    uint8_t v = (uint8_t)(i % 3 == 0 ? 0 : 0x3F + i % 5);
    put(&b, &v, 1);
  }
  int rc = write_bytes(name, b.p, b.n);
  free(b.p);
  return rc;
}

static int write_npy_files(void) {
  static const struct {
    const char *name, *dict;
    size_t data;
  } files[] = {
      {"f4_2x3", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24},
      {"f8_big_endian", "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 16},
      {"f2_2x2", "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", 8},
      {"i8_scalar", "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 8},
      {"u1_empty", "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4), }", 0},
      {"b1", "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 3},
      {"c8", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8},
      {"bytes", "{'descr': '|S3', 'fortran_order': False, 'shape': (2,), }", 6},
      {"unicode", "{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", 16},
      {"fortran_1d", "{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", 8},
      {"object", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8},
  };
  int rc = 0;
  char name[128];
  for (size_t i = 0; i < sizeof files / sizeof files[0] && rc == 0; ++i) {
    snprintf(name, sizeof name, "npy_%s.npy", files[i].name);
    rc = write_npy(name, files[i].dict, files[i].data);
  }
  return rc;
}

/* Each text behind its selector byte (the first character of the string, as an octal escape). */
static int write_texts(const char *prefix, const char *const *texts, size_t n) {
  int rc = 0;
  char name[128];
  for (size_t i = 0; i < n && rc == 0; ++i) {
    snprintf(name, sizeof name, "%s_%02zu", prefix, i);
    rc = write_bytes(name, texts[i], 1 + strlen(texts[i] + 1));
  }
  return rc;
}

static int write_literals(void) {
  static const char *const texts[] = {
      "\0" "3",          "\0" "-2.5",          "\0" "[1, 2, 3]",      "\1" "[[1.5, 2], [3, 4]]", "\0" "[]",
      "\7" "[[true], [false]]", "\10" "[\"a\", \"bc\\x00\"]", "\0" "2+1j", "\0" "7:int64", "\3" "inf",
      "\1" "nan",        "\6" "18446744073709551615:uint64", "\11" "1e-3", "\0" "[1, 2.5,]", "\0" "'t\\n'",
  };
  return write_texts("literal", texts, sizeof texts / sizeof texts[0]);
}

static int write_spec_strings(void) {
  static const char *const texts[] = {
      "\0" "/job:ps/replica:0/task:1/device:GPU:0", "\0" "/cpu:0", "\0" "/device:CPU:*", "\0" "/job:worker/gpu:1",
      "\0" "/job:w/task:3", "\0" "/device:OPENCL:2", "\0" "", "\1" "a", "\1" "b/c:1", "\1" "b/c_1:2", "\1" "a:0",
      "\1" "^a", "\2" "ij,jk->ik", "\2" "...ij,...jk->...ik", "\2" "ii->i", "\2" "ij->ji", "\2" "i,i->",
      "\2" "bij,bjk,bkl->bil",
  };
  return write_texts("spec", texts, sizeof texts / sizeof texts[0]);
}

/* The conformance folder's contents for the targets that use it. */
static int write_from_conformance(const char *target, const char *conformance) {
  if (strcmp(target, "import_graph_def") == 0) {
    int g = write_conformance_graphs(conformance);
    int s = g < 0 ? g : write_savedmodel_graphs(conformance);
    if (g < 0 || s < 0) return -1;
    if (g > 0) fprintf(stderr, "make_corpus: no %s/graphs: its graphs are left out\n", conformance);
    if (s > 0) fprintf(stderr, "make_corpus: no %s/savedmodels: their graphs are left out\n", conformance);
    return 0;
  }
  int checkpoint = strcmp(target, "checkpoint") == 0;
  if (checkpoint || strcmp(target, "saved_model") == 0) {
    int s = write_savedmodel_files(conformance, checkpoint);
    if (s > 0) fprintf(stderr, "make_corpus: no %s/savedmodels: their files are left out\n", conformance);
    return s < 0 ? -1 : 0;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s TARGET OUT_DIR [CONFORMANCE_DIR]\n", argv[0]);
    return 2;
  }
  const char *target = argv[1];
  out_dir = argv[2];
  if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "make_corpus: cannot create %s: %s\n", out_dir, strerror(errno));
    return 1;
  }
  int rc = 0;
  if (strcmp(target, "import_graph_def") == 0) {
    rc = write_hand_made();
  } else if (strcmp(target, "saved_model") == 0 || strcmp(target, "checkpoint") == 0) {
    rc = 0; /* from the conformance folder only */
  } else if (strcmp(target, "parse_example") == 0) {
    rc = write_examples();
  } else if (strcmp(target, "npy") == 0) {
    rc = write_npy_files();
  } else if (strcmp(target, "literal") == 0) {
    rc = write_literals();
  } else if (strcmp(target, "spec_strings") == 0) {
    rc = write_spec_strings();
  } else {
    fprintf(stderr, "make_corpus: unknown target '%s'\n", target);
    return 2;
  }
  if (rc != 0) return 1;
  if (argc == 4 && write_from_conformance(target, argv[3]) != 0) return 1;
  if (written == 0) {
    /* libFuzzer needs one input to start from; a target without any gets an empty one. */
    if (write_bytes("empty", "", 0) != 0) return 1;
  }
  printf("make_corpus: %d files in %s\n", written, out_dir);
  return 0;
}
