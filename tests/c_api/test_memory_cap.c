/* Memory caps: a session's (graft_session_options.max_memory_bytes) and the process's
 * (graft_memory_set_limit). A graph of a few bytes that asks for gigabytes fails its op with
 * GRAFT_ENOMEM naming the op, the bytes and the cap, before anything is allocated; the session
 * stays usable; what is counted is given back when the tensors go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"

/* Fill(dims, 1.0f) named name, the dims fed through a placeholder "dims_<name>". */
static graft_op *fill(graft_graph *g, const char *name, graft_op **dims_out) {
  char dn[64];
  snprintf(dn, sizeof dn, "dims_%s", name);
  graft_op *dims = make_placeholder(g, dn, GRAFT_INT64, (const int64_t[]){-1}, 1);
  float one = 1.0f;
  graft_op *value = make_const_f32(g, NULL, NULL, 0, &one);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Fill", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){dims, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){value, 0}));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  *dims_out = dims;
  return op;
}

static int run_fill(graft_session *s, graft_op *op, graft_op *dims, const int64_t *shape, int rank,
                    graft_tensor **out) {
  graft_tensor *dv = NULL;
  GT_OK(graft_tensor_new(&dv, GRAFT_INT64, (const int64_t[]){rank}, 1, shape, sizeof(int64_t) * (size_t)rank));
  graft_output feed = {dims, 0}, fetch = {op, 0};
  int rc = graft_session_run(out, s, &feed, &dv, 1, &fetch, 1, NULL, 0);
  graft_tensor_free(dv);
  return rc;
}

static void test_session_cap(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *dims = NULL;
  graft_op *big = fill(g, "big", &dims);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.max_memory_bytes = 1 << 20; /* 1 MiB */
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  assert_int_equal(graft_session_memory_in_use(s), 0);
  graft_tensor *out = NULL;
  /* 4 MiB: over the cap. */
  GT_ERR(GRAFT_ENOMEM, run_fill(s, big, dims, (const int64_t[]){1024, 1024}, 2, &out), "Fill op 'big'",
         "allocating 4194304 bytes", "the session's memory cap of 1048576 bytes");
  assert_null(out);
  /* 16 GB asked for by a 40-byte graph: refused before any allocation. */
  GT_ERR(GRAFT_ENOMEM, run_fill(s, big, dims, (const int64_t[]){1 << 16, 1 << 16}, 2, &out), "Fill op 'big'",
         "allocating 17179869184 bytes");
  assert_int_equal(graft_session_memory_in_use(s), 0);
  /* Under the cap: it runs, and the fetched tensor counts until it is freed. */
  GT_OK(run_fill(s, big, dims, (const int64_t[]){256, 256}, 2, &out));
  assert_int_equal(graft_tensor_dim(out, 0), 256);
  assert_true(((const float *)graft_tensor_data(out))[65535] == 1.0f);
  assert_int_equal(graft_session_memory_in_use(s), 256 * 256 * 4);
  /* A second 256 KiB result fits too (512 KiB in all); a 600 KiB one now does not. */
  graft_tensor *out2 = NULL;
  GT_OK(run_fill(s, big, dims, (const int64_t[]){256, 256}, 2, &out2));
  assert_int_equal(graft_session_memory_in_use(s), 2 * 256 * 256 * 4);
  graft_tensor *out3 = NULL;
  GT_ERR(GRAFT_ENOMEM, run_fill(s, big, dims, (const int64_t[]){600, 256}, 2, &out3), "Fill op 'big'",
         "(524288 in use)");
  graft_tensor_free(out2);
  GT_OK(run_fill(s, big, dims, (const int64_t[]){600, 256}, 2, &out3));
  graft_tensor_free(out3);
  /* A fetched tensor outlives its session; freeing it later is fine. */
  graft_session_free(s);
  assert_int_equal(graft_tensor_dim(out, 1), 256);
  graft_tensor_free(out);
  /* A session without a cap reports -1; a negative cap is refused. */
  GT_OK(graft_session_new(&s, g, NULL));
  assert_int_equal(graft_session_memory_in_use(s), -1);
  GT_OK(run_fill(s, big, dims, (const int64_t[]){1024, 1024}, 2, &out));
  graft_tensor_free(out);
  graft_session_free(s);
  opts.max_memory_bytes = -5;
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &opts), "max_memory_bytes", "-5");
  assert_int_equal(graft_session_memory_in_use(NULL), -1);
  graft_graph_free(g);
}

static void test_process_cap(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *dims = NULL;
  graft_op *big = fill(g, "f", &dims);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  assert_int_equal(graft_memory_limit(), 0);
  GT_ERR(GRAFT_EINVAL, graft_memory_set_limit(-1), "0 means no cap");
  GT_OK(graft_memory_set_limit(2 << 20)); /* 2 MiB */
  assert_int_equal(graft_memory_limit(), 2 << 20);
  assert_int_equal(graft_memory_in_use(), 0);
  /* Tensors made from host data count too. */
  size_t n = 1 << 18; /* 1 MiB of floats */
  float *data = calloc(n, sizeof(float));
  graft_tensor *a = NULL, *b = NULL, *c = NULL;
  GT_OK(graft_tensor_new(&a, GRAFT_FLOAT32, (const int64_t[]){(int64_t)n}, 1, data, n * sizeof(float)));
  assert_int_equal(graft_memory_in_use(), (int64_t)(n * sizeof(float)));
  GT_OK(graft_tensor_new(&b, GRAFT_FLOAT32, (const int64_t[]){(int64_t)n}, 1, data, n * sizeof(float)));
  GT_ERR(GRAFT_ENOMEM, graft_tensor_new(&c, GRAFT_FLOAT32, (const int64_t[]){(int64_t)n}, 1, data, n * sizeof(float)),
         "the process's memory cap of 2097152 bytes");
  assert_null(c);
  /* A session's run counts against the process's cap: with a held (1 MiB), 256 KiB fits and
   * 1.2 MiB does not. */
  graft_tensor_free(b);
  graft_tensor *out = NULL;
  GT_OK(run_fill(s, big, dims, (const int64_t[]){256, 256}, 2, &out));
  graft_tensor_free(out);
  GT_ERR(GRAFT_ENOMEM, run_fill(s, big, dims, (const int64_t[]){1024, 300}, 2, &out), "Fill op 'f'",
         "allocating 1228800 bytes", "the process's memory cap");
  graft_tensor_free(a);
  GT_OK(run_fill(s, big, dims, (const int64_t[]){1024, 300}, 2, &out));
  graft_tensor_free(out);
  assert_int_equal(graft_memory_in_use(), 0);
  /* No cap: everything as before; tensors made then are not counted later. */
  GT_OK(graft_memory_set_limit(0));
  GT_OK(graft_tensor_new(&a, GRAFT_FLOAT32, (const int64_t[]){(int64_t)n}, 1, data, n * sizeof(float)));
  GT_OK(graft_memory_set_limit(1 << 20));
  graft_tensor_free(a); /* made without a cap: gives nothing back */
  assert_int_equal(graft_memory_in_use(), 0);
  GT_OK(graft_memory_set_limit(0));
  graft_session_free(s);
  graft_graph_free(g);
  free(data);
}

/* String tensors count too: their string objects and the heap bytes of long strings. A Fill of
 * a billion strings (32 GB of std::string objects) fails before the vector is made. */
static void test_strings_counted(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *dims = make_placeholder(g, "dims", GRAFT_INT64, (const int64_t[]){-1}, 1);
  const char *text = "a string longer than the inline buffer of std::string";
  size_t len = strlen(text);
  graft_tensor *value = NULL;
  GT_OK(graft_tensor_new_strings(&value, NULL, 0, &text, &len, 1));
  graft_op_desc *d = NULL;
  graft_op *c = NULL, *op = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", "text"));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", value));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_STRING));
  GT_OK(graft_op_desc_finish(&c, d));
  graft_tensor_free(value);
  GT_OK(graft_op_desc_new(&d, g, "Fill", "strings"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){dims, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){c, 0}));
  GT_OK(graft_op_desc_finish(&op, d));
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.max_memory_bytes = 1 << 20;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_ENOMEM, run_fill(s, op, dims, (const int64_t[]){1000000000}, 1, &out), "Fill op 'strings'",
         "the session's memory cap of 1048576 bytes");
  assert_null(out);
  assert_int_equal(graft_session_memory_in_use(s), 0);
  /* 1000 strings fit, and count (objects and heap bytes) until the result is freed. */
  GT_OK(run_fill(s, op, dims, (const int64_t[]){1000}, 1, &out));
  int64_t held = graft_session_memory_in_use(s);
  assert_true(held >= (int64_t)(1000 * (len + 1)));
  assert_true(held < 1 << 20);
  /* 20000 of them (over 1 MiB of heap bytes) do not: counted when the tensor is made. */
  graft_tensor *big = NULL;
  GT_ERR(GRAFT_ENOMEM, run_fill(s, op, dims, (const int64_t[]){20000}, 1, &big), "Fill op 'strings'",
         "memory cap");
  assert_int_equal(graft_session_memory_in_use(s), held);
  graft_tensor_free(out);
  assert_int_equal(graft_session_memory_in_use(s), 0);
  graft_session_free(s);
  graft_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_session_cap),
      cmocka_unit_test(test_process_cap),
      cmocka_unit_test(test_strings_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
