/* CPU kernel for Einsum (kernels/cpu/einsum_kernels.cc): products, batch dims, contractions,
 * transposes, sums, diagonals, "..." with broadcasting, implicit outputs and three operands,
 * in float32 and float64, checked against a plain loop over every subscript (reference()
 * below, on letters-only equations with size-1 dims broadcast); TensorFlow 2.21's results for
 * output labels given twice (diagonals of the output) and labels that are not letters; equation
 * errors at graph construction and size mismatches at run time, both naming the op. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

static int uniq;

static const char *nm(const char *prefix) {
  static char buf[8][48];
  char *b = buf[++uniq % 8];
  snprintf(b, sizeof buf[0], "%s%d", prefix, uniq);
  return b;
}

#define MAX_OPS 3
#define MAX_RANK 6

typedef struct {
  int n;
  int64_t dims[MAX_OPS][MAX_RANK];
  int rank[MAX_OPS];
} shapes;

/* out[...] = Σ Π operands, over every value of the letters of eq ("ab,bc->ac"): a label's size
 * is its largest dim, and a dim of size 1 is read at 0 (broadcast). */
static void reference(const char *eq, const shapes *s, double *const *in, double *out, int64_t *out_count) {
  char subs[MAX_OPS][MAX_RANK + 1], outs[MAX_RANK + 1];
  const char *arrow = strstr(eq, "->");
  int op = 0, len = 0;
  for (const char *p = eq; p < arrow; ++p) {
    if (*p == ',') {
      subs[op++][len] = 0;
      len = 0;
    } else {
      subs[op][len++] = *p;
    }
  }
  subs[op][len] = 0;
  strcpy(outs, arrow + 2);
  int64_t size[128] = {0};
  char letters[64];
  int nl = 0;
  for (int i = 0; i < s->n; ++i) {
    for (int d = 0; subs[i][d]; ++d) {
      int c = subs[i][d];
      if (size[c] == 0) letters[nl++] = (char)c;
      if (s->dims[i][d] > size[c]) size[c] = s->dims[i][d];
    }
  }
  int64_t total = 1, nout = 1;
  for (int l = 0; l < nl; ++l) total *= size[(int)letters[l]];
  for (int d = 0; outs[d]; ++d) nout *= size[(int)outs[d]];
  for (int64_t i = 0; i < nout; ++i) out[i] = 0;
  *out_count = nout;
  int64_t val[128] = {0};
  for (int64_t e = 0; e < total; ++e) {
    int64_t r = e;
    for (int l = nl - 1; l >= 0; --l) {
      val[(int)letters[l]] = r % size[(int)letters[l]];
      r /= size[(int)letters[l]];
    }
    double prod = 1;
    for (int i = 0; i < s->n; ++i) {
      int64_t off = 0;
      for (int d = 0; subs[i][d]; ++d) off = off * s->dims[i][d] + (s->dims[i][d] == 1 ? 0 : val[(int)subs[i][d]]);
      prod *= in[i][off];
    }
    int64_t o = 0;
    for (int d = 0; outs[d]; ++d) o = o * size[(int)outs[d]] + val[(int)outs[d]];
    out[o] += prod;
  }
}

static graft_op *einsum(graft_graph *g, const char *eq, graft_op **ops, int n) {
  graft_op_desc *d = desc(g, "Einsum", nm("einsum"));
  graft_output in[MAX_OPS];
  for (int i = 0; i < n; ++i) in[i] = (graft_output){ops[i], 0};
  GT_OK(graft_op_desc_add_input_list(d, in, n));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "equation", eq, strlen(eq)));
  return fin(d);
}

/* Runs eq on operands of the given shapes (values i·0.37 mod 1.9 - 0.8, per operand) in dt and
 * compares with reference(ref_eq) and the expected output dims. */
static void check(graft_graph *g, graft_dtype dt, const char *eq, const char *ref_eq, const shapes *s,
                  const int64_t *out_dims, int out_rank) {
  double *vals[MAX_OPS];
  graft_op *ops[MAX_OPS];
  for (int i = 0; i < s->n; ++i) {
    int64_t n = count(s->dims[i], s->rank[i]);
    vals[i] = malloc(sizeof(double) * (size_t)(n ? n : 1));
    float *f = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t j = 0; j < n; ++j) {
      vals[i][j] = fmod((double)(j + 3 * i) * 0.37, 1.9) - 0.8;
      if (dt == GRAFT_FLOAT32) {
        f[j] = (float)vals[i][j];
        vals[i][j] = f[j];
      }
    }
    ops[i] = konst(g, nm("x"), dt, s->dims[i], s->rank[i], dt == GRAFT_FLOAT32 ? (const void *)f : vals[i]);
    free(f);
  }
  double expected[256];
  int64_t nout = 0;
  reference(ref_eq, s, vals, expected, &nout);
  graft_tensor *t = run(g, einsum(g, eq, ops, s->n));
  assert_int_equal(graft_tensor_dtype(t), dt);
  expect_dims(t, out_dims, out_rank);
  for (int64_t i = 0; i < nout; ++i) {
    double got = dt == GRAFT_FLOAT32 ? ((const float *)graft_tensor_data(t))[i] : ((const double *)graft_tensor_data(t))[i];
    if (!(fabs(got - expected[i]) <= (dt == GRAFT_FLOAT32 ? 1e-4 : 1e-12) * (1 + fabs(expected[i])))) {
      print_error("%s element %lld: %.9g, expected %.9g\n", eq, (long long)i, got, expected[i]);
      fail();
    }
  }
  graft_tensor_free(t);
  for (int i = 0; i < s->n; ++i) free(vals[i]);
}

static void test_values(void **state) {
  graft_graph *g = *state;
  for (int k = 0; k < 2; ++k) {
    graft_dtype dt = k ? GRAFT_FLOAT64 : GRAFT_FLOAT32;
    check(g, dt, "ij,jk->ik", "ij,jk->ik", &(shapes){2, {{2, 3}, {3, 4}}, {2, 2}}, D(2, 4));
    check(g, dt, "bij,bjk->bik", "bij,bjk->bik", &(shapes){2, {{2, 2, 3}, {2, 3, 2}}, {3, 3}}, D(2, 2, 2));
    check(g, dt, "bij,kj->bki", "bij,kj->bki", &(shapes){2, {{2, 2, 3}, {4, 3}}, {3, 2}}, D(2, 4, 2));
    check(g, dt, "i,j->ij", "i,j->ij", &(shapes){2, {{2}, {3}}, {1, 1}}, D(2, 3));
    check(g, dt, "i,i->", "i,i->", &(shapes){2, {{5}, {5}}, {1, 1}}, NULL, 0);
    check(g, dt, "ijk->kji", "ijk->kji", &(shapes){1, {{2, 3, 4}}, {3}}, D(4, 3, 2));
    check(g, dt, "ij->j", "ij->j", &(shapes){1, {{3, 4}}, {2}}, D(4));
    check(g, dt, "ii->i", "ii->i", &(shapes){1, {{3, 3}}, {2}}, D(3));
    check(g, dt, "ii", "ii->", &(shapes){1, {{3, 3}}, {2}}, NULL, 0);
    check(g, dt, "ij,jk", "ij,jk->ik", &(shapes){2, {{2, 3}, {3, 2}}, {2, 2}}, D(2, 2));
    check(g, dt, "ba,ca", "ba,ca->bc", &(shapes){2, {{2, 3}, {4, 3}}, {2, 2}}, D(2, 4));
    check(g, dt, "abc,cd->ad", "abc,cd->ad", &(shapes){2, {{2, 2, 3}, {3, 2}}, {3, 2}}, D(2, 2));
    check(g, dt, "...ij,...jk->...ik", "xyij,yjk->xyik", &(shapes){2, {{2, 1, 2, 3}, {3, 3, 2}}, {4, 3}},
          D(2, 3, 2, 2));
    check(g, dt, "...i->i...", "xyi->ixy", &(shapes){1, {{2, 3, 2}}, {3}}, D(2, 2, 3));
    check(g, dt, "i...->i", "ixy->i", &(shapes){1, {{2, 3, 2}}, {3}}, D(2));
    check(g, dt, "ij,jk,kl->il", "ij,jk,kl->il", &(shapes){3, {{2, 3}, {3, 4}, {4, 2}}, {2, 2, 2}}, D(2, 2));
    check(g, dt, "ij,ij->ij", "ij,ij->ij", &(shapes){2, {{0, 3}, {0, 3}}, {2, 2}}, D(0, 3));
    check(g, dt, "ij,jk->ik", "ij,jk->ik", &(shapes){2, {{2, 0}, {0, 3}}, {2, 2}}, D(2, 3));
  }
}

/* Runs eq on float32 operands and compares with want (values TensorFlow 2.21 gives for the
 * same raw Einsum op). */
static void expect_einsum(graft_graph *g, const char *eq, int n, const int64_t *const *dims, const int *ranks,
                          const float *const *vals, const int64_t *want_dims, int want_rank, const float *want) {
  graft_op *ops[MAX_OPS];
  for (int i = 0; i < n; ++i) ops[i] = konst(g, nm("x"), GRAFT_FLOAT32, dims[i], ranks[i], vals[i]);
  expect(run(g, einsum(g, eq, ops, n)), GRAFT_FLOAT32, want_dims, want_rank, want);
}

static void test_tensorflow_labels(void **state) {
  graft_graph *g = *state;
  static const float m[6] = {1, 2, 3, 4, 5, 6}; /* [[1, 2, 3], [4, 5, 6]] */
  const int64_t m_dims[2] = {2, 3};
  const int64_t *md[1] = {m_dims};
  const int mr[1] = {2};
  const float *mv[1] = {m};
  /* An output label given twice: the output is zero off that diagonal. */
  expect_einsum(g, "ij->iij", 1, md, mr, mv, D(2, 2, 3), (const float[]){1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6});
  expect_einsum(g, "ij->jii", 1, md, mr, mv, D(3, 2, 2), (const float[]){1, 0, 0, 4, 2, 0, 0, 5, 3, 0, 0, 6});
  expect_einsum(g, "ij->iji", 1, md, mr, mv, D(2, 3, 2), (const float[]){1, 0, 2, 0, 3, 0, 0, 4, 0, 5, 0, 6});
  expect_einsum(g, "...j->...jj", 1, md, mr, mv, D(2, 3, 3),
                (const float[]){1, 0, 0, 0, 2, 0, 0, 0, 3, 4, 0, 0, 0, 5, 0, 0, 0, 6});
  static const float sq[4] = {1, 2, 3, 4}, id[4] = {1, 0, 0, 1}, ones[6] = {1, 1, 1, 1, 1, 1};
  const int64_t sq_dims[2] = {2, 2}, ones_dims[2] = {3, 2};
  expect_einsum(g, "ii->iii", 1, (const int64_t *[]){sq_dims}, mr, (const float *[]){sq}, D(2, 2, 2),
                (const float[]){1, 0, 0, 0, 0, 0, 0, 4});
  expect_einsum(g, "ab,bc->aac", 2, (const int64_t *[]){sq_dims, sq_dims}, (const int[]){2, 2},
                (const float *[]){sq, id}, D(2, 2, 2), (const float[]){1, 2, 0, 0, 0, 0, 3, 4});
  expect_einsum(g, "ij,jk->iik", 2, (const int64_t *[]){m_dims, ones_dims}, (const int[]){2, 2},
                (const float *[]){m, ones}, D(2, 2, 2), (const float[]){6, 6, 0, 0, 0, 0, 15, 15});
  const int64_t v_dims[1] = {2};
  expect_einsum(g, "i,i->ii", 2, (const int64_t *[]){v_dims, v_dims}, (const int[]){1, 1},
                (const float *[]){(const float[]){1, 2}, (const float[]){3, 4}}, D(2, 2), (const float[]){3, 0, 0, 8});
  /* Any character but '.' is a label. */
  const int64_t one_dims[2] = {1, 1}, row_dims[2] = {1, 2};
  expect_einsum(g, "i$,j#->ij", 2, (const int64_t *[]){one_dims, one_dims}, (const int[]){2, 2},
                (const float *[]){(const float[]){1}, (const float[]){1}}, D(1, 1), (const float[]){1});
  expect_einsum(g, "i$,j$->ij", 2, (const int64_t *[]){row_dims, row_dims}, (const int[]){2, 2},
                (const float *[]){(const float[]){1, 2}, (const float[]){3, 4}}, D(1, 1), (const float[]){11});
  expect_einsum(g, "$#->#$", 1, md, mr, mv, D(3, 2), (const float[]){1, 4, 2, 5, 3, 6});
  expect_einsum(g, "1a->a1", 1, md, mr, mv, D(3, 2), (const float[]){1, 4, 2, 5, 3, 6});
  /* A space too (tf.einsum strips spaces; the op does not): "i j" names three dims. */
  graft_op *a = konst(g, "sp", GRAFT_FLOAT32, D(2, 3), m);
  graft_op_desc *d = desc(g, "Einsum", "space");
  graft_output in[1] = {{a, 0}};
  GT_OK(graft_op_desc_add_input_list(d, in, 1));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "equation", "i j->ji", 7));
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Einsum op 'space'", "input 0 has rank 2");
}

static void test_errors(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_FLOAT32, D(2, 3), ((const float[]){1, 2, 3, 4, 5, 6}));
  graft_op *ops[2] = {a, a};
  graft_op_desc *d = desc(g, "Einsum", "bad_eq");
  graft_output in[2] = {{a, 0}, {a, 0}};
  GT_OK(graft_op_desc_add_input_list(d, in, 2));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "equation", "ij->k", 5));
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Einsum", "ij->k", "operands");
  d = desc(g, "Einsum", "bad_sub");
  GT_OK(graft_op_desc_add_input_list(d, in, 2));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "equation", "ij,jk->ik", 9));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Einsum", "'j' has size 3 in input 0 but 2 in input 1");
  (void)ops;
  /* At run time, through a placeholder of unknown shape. */
  graft_op *px = ph(g, "px", GRAFT_FLOAT32);
  graft_op *pair[2] = {a, px};
  graft_op *mm = einsum(g, "ij,jk->ik", pair, 2);
  expect_error(g, mm, px, tensor(GRAFT_FLOAT32, D(2, 2), ((const float[]){1, 2, 3, 4})), GRAFT_EINVAL, "Einsum op",
               "'j' has size 3 in input 0 but 2 in input 1");
  expect_error(g, mm, px, tensor(GRAFT_FLOAT32, D(3), ((const float[]){1, 2, 3})), GRAFT_EINVAL, "Einsum op",
               "input 1 has rank 1");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensorflow_labels, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
