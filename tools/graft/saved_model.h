/*
 * saved_model.h: the graft tool's SavedModel side: `graft inspect DIR` (tag sets and
 * signatures) and `graft run DIR --signature NAME --input KEY=VALUE ... --output KEY[=OUT.npy]`.
 */
#ifndef GRAFT_TOOL_SAVED_MODEL_H
#define GRAFT_TOOL_SAVED_MODEL_H

#include <stdint.h>

/* 1 if path names a directory (a SavedModel is one). */
int tool_is_directory(const char *path);

/* Prints the tag sets of the SavedModel in dir and the signatures of the MetaGraph with tags. */
int tool_inspect_saved_model(const char *dir, const char *const *tags, int ntags, int json);

typedef struct tool_key_value {
  const char *key;
  const char *value; /* --input: VALUE; --output: OUT.npy or NULL */
} tool_key_value;

/* One run of a signature: its inputs, and the outputs to print or write (all of them, in key
 * order, when noutputs is 0). */
typedef struct tool_run_step {
  const char *signature;
  const tool_key_value *inputs, *outputs;
  int ninputs, noutputs;
  int64_t timeout_ms; /* 0: none */
} tool_run_step;

/* Loads the SavedModel in dir once and runs the steps in order (state such as variables
 * carries from one step to the next). */
int tool_run_saved_model(const char *dir, const char *const *tags, int ntags, const tool_run_step *steps, int nsteps);

#endif /* GRAFT_TOOL_SAVED_MODEL_H */
