/* GraphDef export and import: round trips, prefix, input_map, return elements, defaults,
 * TensorFlow 1 loops, the conformance graphs, and every kind of bad input. Bad GraphDefs are
 * built with the same protobuf-c messages the library reads. */
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"
#include "proto/graph.pb-c.h"
#include "proto/saved_model.pb-c.h"

static int setup(void **state) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  *state = g;
  return 0;
}

static int teardown(void **state) {
  graft_graph_free(*state);
  return 0;
}

/* ---- Building GraphDefs by hand ---------------------------------------------------------- */

#define MAX_NODES 16
#define MAX_ATTRS 8

struct gd_builder {
  Graftpb__GraphDef gd;
  Graftpb__NodeDef nodes[MAX_NODES];
  Graftpb__NodeDef *node_ptrs[MAX_NODES];
  Graftpb__NodeDef__AttrEntry attrs[MAX_NODES][MAX_ATTRS];
  Graftpb__NodeDef__AttrEntry *attr_ptrs[MAX_NODES][MAX_ATTRS];
  Graftpb__AttrValue values[MAX_NODES][MAX_ATTRS];
  Graftpb__TensorProto tensors[MAX_NODES];
  Graftpb__TensorShapeProto shapes[MAX_NODES];
  Graftpb__TensorShapeProto__Dim dims[MAX_NODES][4];
  Graftpb__TensorShapeProto__Dim *dim_ptrs[MAX_NODES][4];
  float floats[MAX_NODES];
};

static void gd_init(struct gd_builder *b) {
  memset(b, 0, sizeof *b);
  graftpb__graph_def__init(&b->gd);
  b->gd.node = b->node_ptrs;
}

static Graftpb__NodeDef *gd_node(struct gd_builder *b, const char *name, const char *op, const char **inputs, int n_inputs) {
  size_t i = b->gd.n_node++;
  Graftpb__NodeDef *n = &b->nodes[i];
  graftpb__node_def__init(n);
  n->name = (char *)name;
  n->op = (char *)op;
  n->input = (char **)inputs;
  n->n_input = (size_t)n_inputs;
  n->attr = b->attr_ptrs[i];
  b->node_ptrs[i] = n;
  return n;
}

static Graftpb__AttrValue *gd_attr(struct gd_builder *b, Graftpb__NodeDef *n, const char *key) {
  size_t i = (size_t)(n - b->nodes);
  size_t k = n->n_attr++;
  Graftpb__NodeDef__AttrEntry *e = &b->attrs[i][k];
  graftpb__node_def__attr_entry__init(e);
  e->key = (char *)key;
  e->value = &b->values[i][k];
  graftpb__attr_value__init(e->value);
  b->attr_ptrs[i][k] = e;
  return e->value;
}

static void gd_type(struct gd_builder *b, Graftpb__NodeDef *n, const char *key, int dtype) {
  Graftpb__AttrValue *v = gd_attr(b, n, key);
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_TYPE;
  v->type = (Graftpb__DataType)dtype;
}

/* A float32 Const with the given shape (ndims <= 4) and one value repeated. */
static Graftpb__NodeDef *gd_const(struct gd_builder *b, const char *name, float value, const int64_t *dims, int ndims) {
  Graftpb__NodeDef *n = gd_node(b, name, "Const", NULL, 0);
  size_t i = (size_t)(n - b->nodes);
  gd_type(b, n, "dtype", GRAFT_FLOAT32);
  Graftpb__AttrValue *v = gd_attr(b, n, "value");
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_TENSOR;
  Graftpb__TensorProto *t = &b->tensors[i];
  graftpb__tensor_proto__init(t);
  t->dtype = GRAFTPB__DATA_TYPE__DT_FLOAT;
  Graftpb__TensorShapeProto *s = &b->shapes[i];
  graftpb__tensor_shape_proto__init(s);
  for (int d = 0; d < ndims; ++d) {
    graftpb__tensor_shape_proto__dim__init(&b->dims[i][d]);
    b->dims[i][d].size = dims[d];
    b->dim_ptrs[i][d] = &b->dims[i][d];
  }
  s->n_dim = (size_t)ndims;
  s->dim = b->dim_ptrs[i];
  t->tensor_shape = s;
  b->floats[i] = value;
  t->n_float_val = 1;
  t->float_val = &b->floats[i];
  v->tensor = t;
  return n;
}

/* Packs the GraphDef into a malloc'd buffer. */
static uint8_t *gd_pack(struct gd_builder *b, size_t *len) {
  *len = graftpb__graph_def__get_packed_size(&b->gd);
  uint8_t *buf = malloc(*len ? *len : 1);
  graftpb__graph_def__pack(&b->gd, buf);
  return buf;
}

/* Imports the builder's GraphDef, expecting failure with code and needles; the graph must be
 * unchanged afterwards. */
#define EXPECT_IMPORT_FAILS(g, b, code, ...)                                                  \
  do {                                                                                        \
    size_t len_;                                                                              \
    uint8_t *buf_ = gd_pack((b), &len_);                                                      \
    int64_t before_ = graft_graph_num_ops(g);                                                 \
    GT_ERR(code, graft_graph_import_graph_def(NULL, (g), buf_, len_, NULL), __VA_ARGS__);     \
    assert_int_equal(graft_graph_num_ops(g), before_);                                       \
    free(buf_);                                                                               \
  } while (0)

/* ---- Tests ------------------------------------------------------------------------------ */

static void export_bytes(graft_graph *g, void **data, size_t *len) {
  GT_OK(graft_graph_export_graph_def(data, len, g, -1, 0));
}

/* graph -> bytes -> graph -> bytes gives identical bytes. */
static void test_round_trip(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_matrix(g, "a", 2, 3);
  graft_op *b = make_matrix(g, "b", 3, 2);
  graft_op *mm = make_binary(g, "MatMul", "mm", a, b);
  GT_OK(graft_graph_push_control_dependencies(g, &a, 1));
  graft_op *c = make_const(g, "c", 7.5f);
  GT_OK(graft_graph_pop_control_dependencies(g));
  GT_OK(graft_graph_push_device(g, "/job:w/cpu:0"));
  make_binary(g, "AddV2", "sum", mm, mm);
  GT_OK(graft_graph_pop_device(g));
  (void)c;
  const char *strs[2] = {"hello", "world"};
  graft_tensor *st = NULL;
  GT_OK(graft_tensor_new_strings(&st, (const int64_t[]){2}, 1, strs, NULL, 2));
  graft_op_desc *d = NULL;
  graft_op *sc = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", "strings"));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", st));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_STRING));
  GT_OK(graft_op_desc_finish(&sc, d));
  graft_tensor_free(st);

  void *bytes1 = NULL, *bytes2 = NULL, *bytes3 = NULL;
  size_t len1 = 0, len2 = 0, len3 = 0;
  export_bytes(g, &bytes1, &len1);
  export_bytes(g, &bytes3, &len3);
  /* Deterministic. */
  assert_int_equal(len1, len3);
  assert_memory_equal(bytes1, bytes3, len1);

  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, h, bytes1, len1, opts));
  export_bytes(h, &bytes2, &len2);
  assert_int_equal(len1, len2);
  assert_memory_equal(bytes1, bytes2, len1);
  /* The re-imported graph has the same structure. */
  graft_op *mm2 = NULL, *c2 = NULL, *sum2 = NULL;
  GT_OK(graft_graph_op_by_name(&mm2, h, "mm"));
  assert_output_shape(mm2, 0, "(2, 2)");
  GT_OK(graft_graph_op_by_name(&c2, h, "c"));
  assert_int_equal(graft_op_num_control_inputs(c2), 1);
  assert_string_equal(graft_op_name(graft_op_control_input(c2, 0)), "a");
  GT_OK(graft_graph_op_by_name(&sum2, h, "sum"));
  assert_string_equal(graft_op_device(sum2), "/job:w/device:CPU:0");
  graft_tensor *value = NULL;
  GT_OK(graft_op_get_attr_tensor(&value, c2, "value"));
  assert_true(*(const float *)graft_tensor_data(value) == 7.5f);
  graft_tensor_free(value);
  graft_op *s2 = NULL;
  GT_OK(graft_graph_op_by_name(&s2, h, "strings"));
  GT_OK(graft_op_get_attr_tensor(&value, s2, "value"));
  const char *p;
  size_t n;
  GT_OK(graft_tensor_string(&p, &n, value, 1));
  assert_int_equal(n, 5);
  assert_memory_equal(p, "world", 5);
  graft_tensor_free(value);
  graft_import_options_free(opts);
  graft_graph_free(h);
  graft_buffer_free(bytes1);
  graft_buffer_free(bytes2);
  graft_buffer_free(bytes3);
}

static void test_from_version_and_add_shapes(void **state) {
  graft_graph *g = *state;
  make_const(g, "a", 1.0f);
  int64_t v = graft_graph_version(g);
  make_const(g, "b", 2.0f);
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, g, v, 1));
  Graftpb__GraphDef *gd = graftpb__graph_def__unpack(NULL, len, bytes);
  assert_non_null(gd);
  assert_int_equal(gd->n_node, 1);
  assert_string_equal(gd->node[0]->name, "b");
  int found = 0;
  for (size_t i = 0; i < gd->node[0]->n_attr; ++i) {
    if (strcmp(gd->node[0]->attr[i]->key, "_output_shapes") == 0) {
      found = 1;
      assert_int_equal(gd->node[0]->attr[i]->value->value_case, GRAFTPB__ATTR_VALUE__VALUE_LIST);
      assert_int_equal(gd->node[0]->attr[i]->value->list->n_shape, 1);
    }
  }
  assert_true(found);
  assert_non_null(gd->versions);
  assert_true(gd->versions->producer > 0);
  graftpb__graph_def__free_unpacked(gd, NULL);
  graft_buffer_free(bytes);
}

static void test_prefix_input_map_return_elements(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  gd_const(b, "x", 1.0f, NULL, 0);
  gd_const(b, "y", 2.0f, NULL, 0);
  const char *in[2] = {"x", "y:0"};
  Graftpb__NodeDef *add = gd_node(b, "add", "AddV2", in, 2);
  gd_type(b, add, "T", GRAFT_FLOAT32);
  size_t len;
  uint8_t *buf = gd_pack(b, &len);

  /* Default prefix "import", then "import_1" for a second import. */
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  graft_op *op = NULL;
  GT_OK(graft_graph_op_by_name(&op, g, "import/add"));
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  GT_OK(graft_graph_op_by_name(&op, g, "import_1/add"));

  /* input_map replaces y with a tensor of the graph; return elements come back in order. */
  graft_op *z = make_const(g, "z", 40.0f);
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, "mapped"));
  GT_OK(graft_import_options_add_input_map(opts, "y", (graft_output){z, 0}));
  GT_OK(graft_import_options_add_return_element(opts, "add:0"));
  GT_OK(graft_import_options_add_return_element(opts, "x"));
  graft_import_results *res = NULL;
  GT_OK(graft_graph_import_graph_def(&res, g, buf, len, opts));
  assert_int_equal(graft_import_results_num_elements(res), 2);
  graft_op *rop = NULL;
  graft_output rt;
  GT_OK(graft_import_results_element(&rop, &rt, res, 0));
  assert_null(rop);
  assert_string_equal(graft_op_name(rt.op), "mapped/add");
  assert_ptr_equal(graft_op_input(rt.op, 1).op, z);
  GT_OK(graft_import_results_element(&rop, &rt, res, 1));
  assert_string_equal(graft_op_name(rop), "mapped/x");
  assert_null(rt.op);
  GT_ERR(GRAFT_ERANGE, graft_import_results_element(&rop, &rt, res, 2), "element 2");
  graft_import_results_free(res);
  /* y was not needed, but is still imported (TensorFlow keeps it too). */
  GT_OK(graft_graph_op_by_name(&op, g, "mapped/y"));

  /* A return element that does not exist fails and leaves the graph as it was. */
  GT_OK(graft_import_options_add_return_element(opts, "nope"));
  int64_t before = graft_graph_num_ops(g);
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_import_graph_def(&res, g, buf, len, opts), "return element 'nope'");
  assert_int_equal(graft_graph_num_ops(g), before);
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_op_by_name(&op, g, "mapped_1/add"), "mapped_1/add");
  graft_import_options_free(opts);
  free(buf);
  free(b);
}

/* Nested func attrs: a's value is a func whose NameAttrList has attr a, depth times. */
enum { NEST_MAX = 200 };
struct nest {
  Graftpb__NameAttrList lists[NEST_MAX];
  Graftpb__NameAttrList__AttrEntry entries[NEST_MAX];
  Graftpb__NameAttrList__AttrEntry *entry_ptrs[NEST_MAX];
  Graftpb__AttrValue values[NEST_MAX];
};

static void nest_attrs(struct nest *m, Graftpb__AttrValue *av, int depth) {
  for (int i = 0; i < depth; ++i) {
    av->value_case = GRAFTPB__ATTR_VALUE__VALUE_FUNC;
    graftpb__name_attr_list__init(&m->lists[i]);
    av->func = &m->lists[i];
    m->lists[i].name = (char *)"f";
    graftpb__name_attr_list__attr_entry__init(&m->entries[i]);
    m->entries[i].key = (char *)"a";
    graftpb__attr_value__init(&m->values[i]);
    m->entries[i].value = &m->values[i];
    m->entry_ptrs[i] = &m->entries[i];
    m->lists[i].n_attr = 1;
    m->lists[i].attr = &m->entry_ptrs[i];
    av = &m->values[i];
  }
  av->value_case = GRAFTPB__ATTR_VALUE__VALUE_I;
  av->i = 1;
}

/* Messages nested more than 100 deep (TensorFlow's limit) are refused before protobuf-c unpacks
 * them: its unpack recurses once per level with no limit, and 3,000 levels of nested func
 * attrs (a 49 KB file) overflowed the stack. Each level is three messages (AttrValue,
 * NameAttrList, its map entry): 30 levels are parsed (the import then fails on the unknown
 * attr, not on the nesting), 40 are not. */
static void test_nesting_limited(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  struct nest *m = malloc(sizeof *m);
  gd_init(b);
  nest_attrs(m, gd_attr(b, gd_node(b, "deep", "NoOp", NULL, 0), "a"), 40);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "the GraphDef nests messages more than 100 deep", "(field '");
  gd_init(b);
  nest_attrs(m, gd_attr(b, gd_node(b, "deep", "NoOp", NULL, 0), "a"), 30);
  size_t len = 0;
  uint8_t *buf = gd_pack(b, &len);
  graft_error_clear();
  int rc = graft_graph_import_graph_def(NULL, g, buf, len, NULL);
  if (rc != GRAFT_OK) assert_null(strstr(graft_error_last(), "nests messages"));
  free(buf);
  free(m);
  free(b);
}

/* VersionDef: a GraphDef for a newer reader (min_consumer above TensorFlow 2.21's 2474), one
 * that bans 2474 (bad_consumers) or with a negative producer is refused, as TensorFlow
 * refuses it; the graph is left as it was. */
static void test_versions_checked(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  gd_node(b, "c", "NoOp", NULL, 0);
  Graftpb__VersionDef v;
  graftpb__version_def__init(&v);
  b->gd.versions = &v;
  v.producer = 2474;
  v.min_consumer = 2475;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "min consumer version 2475 above current version 2474");
  int32_t bad[2] = {17, 2474};
  v.min_consumer = 12;
  v.bad_consumers = bad;
  v.n_bad_consumers = 2;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "disallows consumer version 2474");
  v.n_bad_consumers = 1; /* only 17: fine */
  v.producer = -1;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "producer version -1 below the minimum producer 0");
  v.producer = 2474;
  size_t len = 0;
  uint8_t *buf = gd_pack(b, &len);
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  free(buf);
  graft_op *c = NULL;
  GT_OK(graft_graph_op_by_name(&c, g, "import/c")); /* (the default prefix) */
  assert_non_null(c);
  free(b);
}

/* A string Const whose one value is repeated a billion times (32 GB of strings from a few
 * bytes) is refused at once, naming the node; the graph is left as it was. */
static void test_string_splat_refused(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  Graftpb__NodeDef *n = gd_const(b, "splat", 0.0f, (const int64_t[]){1000000000}, 1);
  n->attr[0]->value->type = GRAFTPB__DATA_TYPE__DT_STRING;
  Graftpb__TensorProto *t = n->attr[1]->value->tensor;
  t->dtype = GRAFTPB__DATA_TYPE__DT_STRING;
  t->n_float_val = 0;
  ProtobufCBinaryData empty = {0, NULL};
  t->n_string_val = 1;
  t->string_val = &empty;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "'splat'", "would need more than 1073741824 bytes",
                      "1000000000 strings from 1 values");
  free(b);
}

/* A Const of an empty shape that carries a (splat) value is an empty tensor, as TensorFlow 2.21
 * reads it; more values than a non-empty shape's elements stays an error. */
static void test_empty_const_with_values(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  gd_const(b, "empty", 1.0f, (const int64_t[]){0, 1000000000000}, 2);
  size_t len;
  uint8_t *buf = gd_pack(b, &len);
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  free(buf);
  graft_op *c = NULL;
  GT_OK(graft_graph_op_by_name(&c, g, "import/empty"));
  assert_output_shape(c, 0, "(0, 1000000000000)");
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fetch = {c, 0};
  graft_tensor *t = NULL;
  GT_OK(graft_session_run(&t, s, NULL, NULL, 0, &fetch, 1, NULL, 0));
  assert_int_equal(graft_tensor_rank(t), 2);
  assert_int_equal(graft_tensor_dim(t, 0), 0);
  assert_int_equal(graft_tensor_dim(t, 1), 1000000000000);
  assert_int_equal(graft_tensor_num_elements(t), 0);
  graft_tensor_free(t);
  graft_session_free(s);

  gd_init(b);
  Graftpb__NodeDef *n = gd_const(b, "three", 1.0f, (const int64_t[]){2}, 1);
  float three[3] = {1, 2, 3};
  n->attr[1]->value->tensor->n_float_val = 3;
  n->attr[1]->value->tensor->float_val = three;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "'three'", "has 3 values, more than its 2 elements");
  free(b);
}

/* Attributes missing from a node are filled from the op's defaults; node order is free. */
static void test_defaults_and_order(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  const char *in[2] = {"a", "a"};
  Graftpb__NodeDef *mm = gd_node(b, "mm", "MatMul", in, 2); /* before its input */
  gd_type(b, mm, "T", GRAFT_FLOAT32);
  gd_const(b, "a", 1.0f, (const int64_t[]){2, 2}, 2);
  size_t len;
  uint8_t *buf = gd_pack(b, &len);
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, opts));
  graft_op *op = NULL;
  GT_OK(graft_graph_op_by_name(&op, g, "mm"));
  graft_bool ta = 1;
  GT_OK(graft_op_get_attr_bool(&ta, op, "transpose_a"));
  assert_false(ta);
  assert_output_shape(op, 0, "(2, 2)");
  /* The repeated-last-value rule: a 2x2 constant from one value. */
  graft_op *a = NULL;
  GT_OK(graft_graph_op_by_name(&a, g, "a"));
  graft_tensor *t = NULL;
  GT_OK(graft_op_get_attr_tensor(&t, a, "value"));
  assert_int_equal(graft_tensor_num_elements(t), 4);
  assert_true(((const float *)graft_tensor_data(t))[3] == 1.0f);
  graft_tensor_free(t);
  /* Importing the same names again without a prefix: duplicates. */
  GT_ERR(GRAFT_EEXISTS, graft_graph_import_graph_def(NULL, g, buf, len, opts), "already exists");
  graft_import_options_free(opts);
  free(buf);
  free(b);
}

/* A TensorFlow 1 while loop: Enter -> Merge <- NextIteration closes a cycle that is allowed. */
static void test_v1_loop_imports(void **state) {
  graft_graph *g = *state;
  struct gd_builder *b = malloc(sizeof *b);
  gd_init(b);
  gd_const(b, "init", 0.0f, NULL, 0);
  const char *enter_in[1] = {"init"};
  Graftpb__NodeDef *enter = gd_node(b, "enter", "Enter", enter_in, 1);
  gd_type(b, enter, "T", GRAFT_FLOAT32);
  Graftpb__AttrValue *frame = gd_attr(b, enter, "frame_name");
  frame->value_case = GRAFTPB__ATTR_VALUE__VALUE_S;
  frame->s.data = (uint8_t *)"loop";
  frame->s.len = 4;
  const char *merge_in[2] = {"enter", "next"};
  Graftpb__NodeDef *merge = gd_node(b, "merge", "Merge", merge_in, 2);
  gd_type(b, merge, "T", GRAFT_FLOAT32);
  Graftpb__AttrValue *nattr = gd_attr(b, merge, "N");
  nattr->value_case = GRAFTPB__ATTR_VALUE__VALUE_I;
  nattr->i = 2;
  const char *id_in[1] = {"merge"};
  Graftpb__NodeDef *body = gd_node(b, "body", "Identity", id_in, 1);
  gd_type(b, body, "T", GRAFT_FLOAT32);
  const char *next_in[1] = {"body"};
  Graftpb__NodeDef *next = gd_node(b, "next", "NextIteration", next_in, 1);
  gd_type(b, next, "T", GRAFT_FLOAT32);
  size_t len;
  uint8_t *buf = gd_pack(b, &len);
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  graft_op *m = NULL, *nx = NULL;
  GT_OK(graft_graph_op_by_name(&m, g, "import/merge"));
  GT_OK(graft_graph_op_by_name(&nx, g, "import/next"));
  assert_ptr_equal(graft_op_input(m, 1).op, nx);
  assert_int_equal(graft_output_num_consumers((graft_output){nx, 0}), 1);
  /* It exports again, with the back edge. */
  void *bytes = NULL;
  size_t blen = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &blen, g, -1, 0));
  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  GT_OK(graft_graph_import_graph_def(NULL, h, bytes, blen, NULL));
  assert_int_equal(graft_graph_num_ops(h), 5);
  graft_graph_free(h);
  graft_buffer_free(bytes);

  /* A loop followed by a node that fails: the rollback must undo the back edge too. */
  {
    Graftpb__NodeDef *bad_node;
    const char *bad_in[2] = {"init", "init"};
    bad_node = gd_node(b, "bad", "MatMul", bad_in, 2);
    (void)bad_node;
    EXPECT_IMPORT_FAILS(g, b, GRAFT_ESHAPE, "node 'bad' (MatMul)");
  }

  /* A cycle that does not go through NextIteration -> Merge is an error. */
  gd_init(b);
  const char *ca[1] = {"b"}, *cb[1] = {"a"};
  Graftpb__NodeDef *na = gd_node(b, "a", "Identity", ca, 1);
  gd_type(b, na, "T", GRAFT_FLOAT32);
  Graftpb__NodeDef *nb = gd_node(b, "b", "Identity", cb, 1);
  gd_type(b, nb, "T", GRAFT_FLOAT32);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "cycle", "not a loop");
  free(buf);
  free(b);
}

static void test_bad_input(void **state) {
  graft_graph *g = *state;
  make_const(g, "existing", 1.0f);
  struct gd_builder *b = malloc(sizeof *b);

  /* Truncated and corrupt bytes. */
  gd_init(b);
  gd_const(b, "x", 1.0f, (const int64_t[]){3}, 1);
  size_t len;
  uint8_t *buf = gd_pack(b, &len);
  for (size_t cut = 1; cut < len; cut += 3) {
    int rc = graft_graph_import_graph_def(NULL, g, buf, len - cut, NULL);
    assert_int_not_equal(rc, GRAFT_OK);
    assert_int_equal(graft_graph_num_ops(g), 1);
  }
  GT_ERR(GRAFT_EDATALOSS, graft_graph_import_graph_def(NULL, g, buf, len - 1, NULL), "do not parse");
  uint8_t junk[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  GT_ERR(GRAFT_EDATALOSS, graft_graph_import_graph_def(NULL, g, junk, sizeof junk, NULL), "truncated or corrupt");
  GT_ERR(GRAFT_EINVAL, graft_graph_import_graph_def(NULL, g, NULL, 5, NULL), "NULL");
  free(buf);
  /* An empty GraphDef is fine. */
  GT_OK(graft_graph_import_graph_def(NULL, g, junk, 0, NULL));

  /* Unknown op type. */
  gd_init(b);
  gd_node(b, "weird", "NoSuchOp", NULL, 0);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_ENOTFOUND, "node 'weird' (NoSuchOp)", "not registered");

  /* A reference to a missing node, and to a missing output. */
  gd_init(b);
  const char *missing[1] = {"ghost:0"};
  Graftpb__NodeDef *n = gd_node(b, "id", "Identity", missing, 1);
  gd_type(b, n, "T", GRAFT_FLOAT32);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_ENOTFOUND, "node 'id'", "'ghost:0'", "not in the GraphDef");
  gd_init(b);
  gd_const(b, "c", 1.0f, NULL, 0);
  const char *bad_out[1] = {"c:3"};
  n = gd_node(b, "id", "Identity", bad_out, 1);
  gd_type(b, n, "T", GRAFT_FLOAT32);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_ENOTFOUND, "node 'id' (Identity)", "output 3 of 'c'");
  gd_init(b);
  const char *bad_syntax[1] = {"c:x"};
  n = gd_node(b, "id", "Identity", bad_syntax, 1);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'id'", "'c:x'");

  /* A wrong dtype for an input. */
  gd_init(b);
  gd_const(b, "c", 1.0f, NULL, 0);
  const char *cc[2] = {"c", "c"};
  n = gd_node(b, "mm", "LogicalAnd", cc, 2);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EDTYPE, "node 'mm' (LogicalAnd)", "must be bool");

  /* An attribute of the wrong type. */
  gd_init(b);
  gd_const(b, "c", 1.0f, NULL, 0);
  const char *c1[1] = {"c"};
  n = gd_node(b, "id", "Identity", c1, 1);
  Graftpb__AttrValue *v = gd_attr(b, n, "T");
  v->value_case = GRAFTPB__ATTR_VALUE__VALUE_I;
  v->i = 3;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'id' (Identity)", "'T'");
  /* An attribute value with no value set, and an invalid dtype. */
  gd_init(b);
  n = gd_node(b, "p", "Placeholder", NULL, 0);
  gd_attr(b, n, "dtype");
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'p' (Placeholder)", "attr 'dtype'", "no value");
  gd_init(b);
  n = gd_node(b, "p", "Placeholder", NULL, 0);
  gd_type(b, n, "dtype", 77);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EDTYPE, "node 'p'", "invalid dtype 77");

  /* Duplicate node names, a node without a name, an invalid name. */
  gd_init(b);
  gd_const(b, "c", 1.0f, NULL, 0);
  gd_const(b, "c", 2.0f, NULL, 0);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EEXISTS, "node 'c' appears more than once");
  gd_init(b);
  gd_node(b, "", "NoOp", NULL, 0);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 0", "no name");
  gd_init(b);
  gd_node(b, "bad name", "NoOp", NULL, 0);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "'bad name'", "not valid");

  /* Absurd shapes and sizes: overflow, and a tiny message that would expand to 2^40 floats. */
  gd_init(b);
  gd_const(b, "huge", 1.0f, (const int64_t[]){1LL << 40, 1LL << 40}, 2);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_ERANGE, "node 'huge' (Const)", "attr 'value'", "overflows");
  gd_init(b);
  gd_const(b, "big", 1.0f, (const int64_t[]){1LL << 20, 1LL << 20}, 2);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'big' (Const)", "would expand", "limit");
  gd_init(b);
  gd_const(b, "neg", 1.0f, (const int64_t[]){-5}, 1);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'neg'", "dimension 0");
  /* tensor_content of the wrong length. */
  gd_init(b);
  n = gd_const(b, "short", 0.0f, (const int64_t[]){4}, 1);
  b->tensors[0].n_float_val = 0;
  b->tensors[0].tensor_content.data = (uint8_t *)"abcd";
  b->tensors[0].tensor_content.len = 4;
  (void)n;
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EINVAL, "node 'short'", "tensor_content has 4 bytes", "16");

  /* A failure late in the GraphDef leaves nothing behind (all or nothing). */
  gd_init(b);
  gd_const(b, "ok1", 1.0f, NULL, 0);
  gd_const(b, "ok2", 1.0f, NULL, 0);
  const char *late_in[2] = {"ok1", "ok2"};
  n = gd_node(b, "late", "MatMul", late_in, 2); /* scalars: MatMul needs matrices */
  EXPECT_IMPORT_FAILS(g, b, GRAFT_ESHAPE, "node 'late' (MatMul)");
  graft_op *op = NULL;
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_op_by_name(&op, g, "import/ok1"), "import/ok1");
  /* ... and the prefix it would have used is free again ("import" itself was taken by the
   * empty GraphDef imported above, as in TensorFlow). */
  gd_init(b);
  gd_const(b, "fine", 1.0f, NULL, 0);
  len = 0;
  buf = gd_pack(b, &len);
  GT_OK(graft_graph_import_graph_def(NULL, g, buf, len, NULL));
  GT_OK(graft_graph_op_by_name(&op, g, "import_1/fine"));
  free(buf);

  /* A finalized graph. */
  graft_graph_finalize(g);
  gd_init(b);
  gd_const(b, "x", 1.0f, NULL, 0);
  EXPECT_IMPORT_FAILS(g, b, GRAFT_EPRECONDITION, "finalized");
  free(b);
}

/* ---- The conformance graphs written by TensorFlow ---------------------------------------- */

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

static void check_conformance_graph(const char *name, int64_t expect_ops) {
  char path[512];
  snprintf(path, sizeof path, "%s/graphs/%s", GRAFT_CONFORMANCE_DIR, name);
  size_t len = 0;
  uint8_t *data = read_file(path, &len);
  if (data == NULL) {
    print_message("conformance graph %s not found: skipped (no ../shared/conformance)\n", path);
    skip();
  }
  graft_graph *g = NULL, *h = NULL;
  GT_OK(graft_graph_new(&g));
  GT_OK(graft_graph_new(&h));
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, g, data, len, opts));
  Graftpb__GraphDef *counted = graftpb__graph_def__unpack(NULL, len, data);
  assert_non_null(counted);
  assert_int_equal(graft_graph_num_ops(g), (int64_t)counted->n_node);
  /* The imported versions are kept, and exported again. */
  int32_t producer = -1, min_consumer = -1;
  graft_graph_def_versions(&producer, &min_consumer, g);
  assert_int_equal(producer, counted->versions ? counted->versions->producer : counted->version);
  assert_int_equal(min_consumer, counted->versions ? counted->versions->min_consumer : 0);
  if (expect_ops >= 0) assert_int_equal(graft_graph_num_ops(g), expect_ops);
  graftpb__graph_def__free_unpacked(counted, NULL);
  void *b1 = NULL, *b2 = NULL;
  size_t l1 = 0, l2 = 0;
  GT_OK(graft_graph_export_graph_def(&b1, &l1, g, -1, 0));
  GT_OK(graft_graph_import_graph_def(NULL, h, b1, l1, opts));
  GT_OK(graft_graph_export_graph_def(&b2, &l2, h, -1, 0));
  /* Re-import gives an equal graph: the same bytes again. */
  assert_int_equal(l1, l2);
  assert_memory_equal(b1, b2, l1);
  /* Every node and attribute of the original is kept. */
  Graftpb__GraphDef *orig = graftpb__graph_def__unpack(NULL, len, data);
  Graftpb__GraphDef *back = graftpb__graph_def__unpack(NULL, l1, b1);
  assert_non_null(orig);
  assert_non_null(back);
  assert_int_equal(orig->n_node, back->n_node);
  for (size_t i = 0; i < orig->n_node; ++i) {
    const Graftpb__NodeDef *o = orig->node[i];
    const Graftpb__NodeDef *r = NULL;
    for (size_t k = 0; k < back->n_node; ++k) {
      if (strcmp(back->node[k]->name, o->name) == 0) r = back->node[k];
    }
    assert_non_null(r);
    assert_string_equal(r->op, o->op);
    assert_int_equal(r->n_input, o->n_input);
    for (size_t a = 0; a < o->n_attr; ++a) {
      int found = 0;
      for (size_t c = 0; c < r->n_attr; ++c) {
        if (strcmp(r->attr[c]->key, o->attr[a]->key) != 0) continue;
        found = 1;
        size_t lo = graftpb__attr_value__get_packed_size(o->attr[a]->value);
        size_t lr = graftpb__attr_value__get_packed_size(r->attr[c]->value);
        uint8_t *po = malloc(lo + 1), *pr = malloc(lr + 1);
        graftpb__attr_value__pack(o->attr[a]->value, po);
        graftpb__attr_value__pack(r->attr[c]->value, pr);
        /* Values are equal; TensorFlow may write a tensor's bytes in another field. */
        if (o->attr[a]->value->value_case != GRAFTPB__ATTR_VALUE__VALUE_TENSOR) {
          assert_int_equal(lo, lr);
          assert_memory_equal(po, pr, lo);
        }
        free(po);
        free(pr);
      }
      if (!found) {
        print_error("node %s lost attr %s\n", o->name, o->attr[a]->key);
        fail();
      }
    }
  }
  graftpb__graph_def__free_unpacked(orig, NULL);
  graftpb__graph_def__free_unpacked(back, NULL);
  graft_buffer_free(b1);
  graft_buffer_free(b2);
  graft_import_options_free(opts);
  graft_graph_free(h);
  graft_graph_free(g);
  free(data);
}

static void test_conformance_addition(void **state) {
  (void)state;
  check_conformance_graph("addition_int32.pb", 3);
}

static void test_conformance_multiplication(void **state) {
  (void)state;
  check_conformance_graph("multiplication_float.pb", 3);
}

static void test_conformance_regression(void **state) {
  (void)state;
  check_conformance_graph("regression_tf1_train.pb", -1);
}

/* The graphs inside the SavedModels (with function libraries, resource variables, savers). */
static void test_conformance_savedmodel_graphs(void **state) {
  (void)state;
  const char *models[] = {"half_plus_two_tf1", "half_plus_two_tf2", "counter_tf1", "matrix_half_plus_two_tf1",
                          "regression_tf2", "keras_single_input_tf2", "keras_multiple_inputs_tf2"};
  for (size_t m = 0; m < sizeof models / sizeof models[0]; ++m) {
    char path[512];
    snprintf(path, sizeof path, "%s/savedmodels/%s/saved_model.pb", GRAFT_CONFORMANCE_DIR, models[m]);
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    if (data == NULL) {
      print_message("conformance model %s not found: skipped (no ../shared/conformance)\n", path);
      skip();
    }
    Graftpb__SavedModel *sm = graftpb__saved_model__unpack(NULL, len, data);
    assert_non_null(sm);
    for (size_t k = 0; k < sm->n_meta_graphs; ++k) {
      Graftpb__GraphDef *gd = sm->meta_graphs[k]->graph_def;
      assert_non_null(gd);
      size_t glen = graftpb__graph_def__get_packed_size(gd);
      uint8_t *gbytes = malloc(glen + 1);
      graftpb__graph_def__pack(gd, gbytes);
      graft_graph *g = NULL, *h = NULL;
      GT_OK(graft_graph_new(&g));
      GT_OK(graft_graph_new(&h));
      int rc = graft_graph_import_graph_def(NULL, g, gbytes, glen, NULL);
      if (rc != GRAFT_OK) print_error("%s: %s\n", models[m], graft_error_last());
      assert_int_equal(rc, GRAFT_OK);
      assert_int_equal(graft_graph_num_ops(g), (int64_t)gd->n_node);
      size_t nfunc = gd->library ? gd->library->n_function : 0;
      assert_int_equal(graft_graph_num_functions(g), (int)nfunc);
      void *b1 = NULL, *b2 = NULL;
      size_t l1 = 0, l2 = 0;
      GT_OK(graft_graph_export_graph_def(&b1, &l1, g, -1, 0));
      graft_import_options *opts = NULL;
      GT_OK(graft_import_options_new(&opts));
      GT_OK(graft_import_options_set_prefix(opts, ""));
      GT_OK(graft_graph_import_graph_def(NULL, h, b1, l1, opts));
      GT_OK(graft_graph_export_graph_def(&b2, &l2, h, -1, 0));
      /* g was imported under "import/": compare h with a third import of h's own export. */
      graft_graph *k2 = NULL;
      void *b3 = NULL;
      size_t l3 = 0;
      GT_OK(graft_graph_new(&k2));
      GT_OK(graft_graph_import_graph_def(NULL, k2, b2, l2, opts));
      GT_OK(graft_graph_export_graph_def(&b3, &l3, k2, -1, 0));
      assert_int_equal(l2, l3);
      assert_memory_equal(b2, b3, l2);
      graft_graph_free(k2);
      graft_buffer_free(b1);
      graft_buffer_free(b2);
      graft_buffer_free(b3);
      graft_import_options_free(opts);
      graft_graph_free(h);
      graft_graph_free(g);
      free(gbytes);
    }
    graftpb__saved_model__free_unpacked(sm, NULL);
    free(data);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_versions_checked, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nesting_limited, setup, teardown),
      cmocka_unit_test_setup_teardown(test_string_splat_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_const_with_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_from_version_and_add_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prefix_input_map_return_elements, setup, teardown),
      cmocka_unit_test_setup_teardown(test_defaults_and_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_loop_imports, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
      cmocka_unit_test(test_conformance_addition),
      cmocka_unit_test(test_conformance_multiplication),
      cmocka_unit_test(test_conformance_regression),
      cmocka_unit_test(test_conformance_savedmodel_graphs),
  };
  return cmocka_run_group_tests_name("graph_def", tests, NULL, NULL);
}
