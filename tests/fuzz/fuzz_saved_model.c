/*
 * libFuzzer target for SavedModel loading (graft_saved_model_load): each input holds the files
 * of a SavedModel directory (fuzz_common.h's records; names below), written to a temporary
 * directory. The target lists its tag sets (graft_saved_model_list_tags), loads the MetaGraph
 * of the first (or "serve" when none can be listed), which parses the MetaGraphDef, imports
 * its graph, restores the variables from the checkpoint and runs the init op, then runs every
 * signature with small inputs of its declared dtypes and shapes (unknown dimensions 1), under
 * fuzz_common.h's memory cap and run deadline, in its temporary directory (a mutated signature
 * may reach a save op: it writes there).
 *
 * Errors are expected. Bugs: a failure without a message, a load that succeeds with a
 * signature whose input count does not match what it reports, tensor memory still counted in
 * use after the model is freed.
 */
#include "fuzz_common.h"

static const char *const kNames[] = {
    "saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001", "assets/vocab.txt",
    "fingerprint.pb",
};
enum { kNumNames = sizeof kNames / sizeof kNames[0] };

static void expect_message(int rc, const char *what) {
  if (rc == GRAFT_OK) return;
  const char *m = graft_error_last();
  if (m == NULL || m[0] == '\0') fuzz_bug("%s failed with %s and no message", what, graft_status_name(rc));
}

/* A small input for signature input i: its dtype, its shape with unknown dimensions 1. */
static graft_tensor *input_for(const graft_signature *sig, int i) {
  graft_shape *shape = NULL;
  if (graft_signature_shape(&shape, sig, GRAFT_SIGNATURE_INPUT, i) != GRAFT_OK) shape = NULL;
  graft_tensor *t = fuzz_small_tensor(graft_signature_dtype(sig, GRAFT_SIGNATURE_INPUT, i), shape, 1);
  graft_shape_free(shape);
  return t;
}

static void run_signature(graft_saved_model *model, const graft_signature *sig) {
  int nin = graft_signature_count(sig, GRAFT_SIGNATURE_INPUT);
  int nout = graft_signature_count(sig, GRAFT_SIGNATURE_OUTPUT);
  if (nin < 0 || nout < 0) fuzz_bug("a loaded signature has %d inputs and %d outputs", nin, nout);
  if (nin > 64 || nout == 0 || nout > 64) return;
  const char *keys[64];
  graft_tensor *inputs[64];
  graft_tensor *outputs[64] = {NULL};
  int made = 0;
  for (; made < nin; ++made) {
    keys[made] = graft_signature_key(sig, GRAFT_SIGNATURE_INPUT, made);
    if (keys[made] == NULL) fuzz_bug("signature input %d of %d has no key", made, nin);
    inputs[made] = input_for(sig, made);
    if (inputs[made] == NULL) break;
  }
  if (made == nin) {
    graft_run_options ro = fuzz_run_options();
    int rc = graft_saved_model_run_with_options(outputs, model, graft_signature_name(sig), keys, inputs, nin, NULL, 0,
                                                &ro);
    expect_message(rc, "a signature's run");
    for (int k = 0; rc == GRAFT_OK && k < nout; ++k) graft_tensor_free(outputs[k]);
  }
  for (int k = 0; k < made; ++k) graft_tensor_free(inputs[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  fuzz_enter_dir();
  int64_t in_use = graft_memory_in_use();
  fuzz_files files;
  fuzz_files_parse(&files, data, size, kNumNames);
  fuzz_dir_write(&files, kNames, kNumNames);

  /* The first tag set there is, else "serve". */
  char *listed = NULL;
  char tag_text[256] = "serve";
  int rc = graft_saved_model_list_tags(&listed, fuzz_dir());
  expect_message(rc, "graft_saved_model_list_tags");
  if (rc == GRAFT_OK && listed != NULL && listed[0] != '\0' && listed[0] != '\n') {
    size_t n = strcspn(listed, "\n");
    if (n >= sizeof tag_text) n = sizeof tag_text - 1;
    memcpy(tag_text, listed, n);
    tag_text[n] = '\0';
  }
  graft_string_free(listed);
  const char *tags[16];
  int ntags = 0;
  for (char *p = tag_text; p != NULL && ntags < 16;) {
    tags[ntags++] = p;
    p = strchr(p, ',');
    if (p != NULL) *p++ = '\0';
  }

  graft_session_options so = GRAFT_SESSION_OPTIONS_INIT;
  so.num_threads = 1;
  graft_saved_model *model = NULL;
  rc = graft_saved_model_load(&model, fuzz_dir(), tags, ntags, &so);
  expect_message(rc, "graft_saved_model_load");
  if (rc == GRAFT_OK) {
    int n = graft_saved_model_num_signatures(model);
    for (int i = 0; i < n && i < 8; ++i) {
      const graft_signature *sig = graft_saved_model_signature_at(model, i);
      if (sig == NULL) fuzz_bug("signature %d of %d is missing", i, n);
      run_signature(model, sig);
    }
    graft_saved_model_free(model);
  }
  fuzz_dir_clear(kNames, kNumNames);
  graft_error_clear();
  if (graft_memory_in_use() != in_use) {
    fuzz_bug("%lld bytes of tensor memory still in use once the model is freed",
             (long long)(graft_memory_in_use() - in_use));
  }
  return 0;
}
