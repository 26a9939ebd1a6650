/*
 * saved_model.c: SavedModel directories in the graft tool (see saved_model.h).
 */
#include "saved_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "json.h"
#include "literal.h"
#include "npy.h"
#include "repr.h"

#define ERR_SIZE 1024

int tool_is_directory(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int load(graft_saved_model **out, const char *dir, const char *const *tags, int ntags) {
  if (graft_saved_model_load(out, dir, tags, ntags, NULL) != GRAFT_OK) {
    tool_error_graft("cannot load the SavedModel '%s'", dir);
    return TOOL_EXIT_FAILURE;
  }
  return TOOL_EXIT_OK;
}

static const char *io_name(int io) { return io == GRAFT_SIGNATURE_INPUT ? "inputs" : "outputs"; }

static int print_signature_text(const graft_signature *s) {
  printf("  %s (%s)\n", graft_signature_name(s), graft_signature_method_name(s));
  for (int io = GRAFT_SIGNATURE_INPUT; io <= GRAFT_SIGNATURE_OUTPUT; ++io) {
    printf("    %s:\n", io_name(io));
    for (int i = 0; i < graft_signature_count(s, io); ++i) {
      graft_shape *shape = NULL;
      if (graft_signature_shape(&shape, s, io, i) != GRAFT_OK) {
        tool_error_graft("signature %s", graft_signature_name(s));
        return TOOL_EXIT_FAILURE;
      }
      printf("      %s: %s %s <- %s\n", graft_signature_key(s, io, i), tool_dtype_name(graft_signature_dtype(s, io, i)),
             graft_shape_string(shape), graft_signature_tensor_name(s, io, i));
      graft_shape_free(shape);
    }
  }
  return TOOL_EXIT_OK;
}

static int print_signature_json(const graft_signature *s) {
  fputs("{\"name\": ", stdout);
  json_write_string(stdout, graft_signature_name(s));
  fputs(", \"method_name\": ", stdout);
  json_write_string(stdout, graft_signature_method_name(s));
  for (int io = GRAFT_SIGNATURE_INPUT; io <= GRAFT_SIGNATURE_OUTPUT; ++io) {
    printf(", \"%s\": [", io_name(io));
    for (int i = 0; i < graft_signature_count(s, io); ++i) {
      graft_shape *shape = NULL;
      if (graft_signature_shape(&shape, s, io, i) != GRAFT_OK) {
        tool_error_graft("signature %s", graft_signature_name(s));
        return TOOL_EXIT_FAILURE;
      }
      fputs(i ? ", {\"key\": " : "{\"key\": ", stdout);
      json_write_string(stdout, graft_signature_key(s, io, i));
      fputs(", \"tensor\": ", stdout);
      json_write_string(stdout, graft_signature_tensor_name(s, io, i));
      printf(", \"dtype\": \"%s\", \"shape\": ", tool_dtype_name(graft_signature_dtype(s, io, i)));
      int rank = graft_shape_rank(shape);
      if (rank < 0) {
        fputs("null", stdout);
      } else {
        putchar('[');
        for (int d = 0; d < rank; ++d) {
          int64_t dim = -1;
          if (graft_shape_dim(&dim, shape, d) != GRAFT_OK) dim = -1;
          if (d) fputs(", ", stdout);
          if (dim < 0) fputs("null", stdout);
          else printf("%lld", (long long)dim);
        }
        putchar(']');
      }
      putchar('}');
      graft_shape_free(shape);
    }
    putchar(']');
  }
  putchar('}');
  return TOOL_EXIT_OK;
}

int tool_inspect_saved_model(const char *dir, const char *const *tags, int ntags, int json) {
  char *tag_text = NULL;
  if (graft_saved_model_list_tags(&tag_text, dir) != GRAFT_OK) {
    tool_error_graft("cannot read the SavedModel '%s'", dir);
    return TOOL_EXIT_FAILURE;
  }
  graft_saved_model *model = NULL;
  int status = load(&model, dir, tags, ntags);
  if (status != TOOL_EXIT_OK) {
    graft_string_free(tag_text);
    return status;
  }
  int n = graft_saved_model_num_signatures(model);
  if (json) {
    fputs("{\n  \"tag_sets\": [", stdout);
    const char *line = tag_text;
    int first = 1;
    while (*line != '\0') {
      const char *end = strchr(line, '\n');
      size_t len = end ? (size_t)(end - line) : strlen(line);
      fputs(first ? "[" : ", [", stdout);
      first = 0;
      const char *p = line;
      int first_tag = 1;
      while (p < line + len) {
        const char *comma = memchr(p, ',', (size_t)(line + len - p));
        size_t tl = comma ? (size_t)(comma - p) : (size_t)(line + len - p);
        char *tag = malloc(tl + 1);
        if (tag == NULL) break;
        memcpy(tag, p, tl);
        tag[tl] = '\0';
        if (!first_tag) fputs(", ", stdout);
        json_write_string(stdout, tag);
        free(tag);
        first_tag = 0;
        p += tl + (comma ? 1 : 0);
      }
      putchar(']');
      line += len + (end ? 1 : 0);
    }
    fputs("],\n  \"signatures\": [", stdout);
    for (int i = 0; i < n && status == TOOL_EXIT_OK; ++i) {
      fputs(i ? ",\n    " : "\n    ", stdout);
      status = print_signature_json(graft_saved_model_signature_at(model, i));
    }
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", stdout);
  } else {
    printf("SavedModel %s\n", dir);
    printf("MetaGraph tag sets:\n");
    const char *line = tag_text;
    while (*line != '\0') {
      const char *end = strchr(line, '\n');
      size_t len = end ? (size_t)(end - line) : strlen(line);
      printf("  %.*s\n", (int)len, line);
      line += len + (end ? 1 : 0);
    }
    printf("%d signature%s:\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < n && status == TOOL_EXIT_OK; ++i) status = print_signature_text(graft_saved_model_signature_at(model, i));
  }
  graft_saved_model_free(model);
  graft_string_free(tag_text);
  return status == TOOL_EXIT_OK ? tool_finish_stdout() : status;
}

static int run_step(graft_saved_model *model, const char *dir, const tool_run_step *step) {
  const char *signature = step->signature;
  const tool_key_value *inputs = step->inputs, *outputs = step->outputs;
  const int ninputs = step->ninputs, noutputs = step->noutputs;
  int status = TOOL_EXIT_OK;
  const graft_signature *sig = NULL;
  if (graft_saved_model_signature(&sig, model, signature) != GRAFT_OK) {
    tool_error_graft("--signature %s", signature);
    return TOOL_EXIT_FAILURE;
  }
  int nresults = noutputs > 0 ? noutputs : graft_signature_count(sig, GRAFT_SIGNATURE_OUTPUT);
  const char **in_keys = calloc((size_t)ninputs + 1, sizeof *in_keys);
  graft_tensor **values = calloc((size_t)ninputs + 1, sizeof *values);
  const char **out_keys = calloc((size_t)noutputs + 1, sizeof *out_keys);
  graft_tensor **results = calloc((size_t)nresults + 1, sizeof *results);
  char err[ERR_SIZE];
  if (in_keys == NULL || values == NULL || out_keys == NULL || results == NULL) {
    tool_error("out of memory");
    status = TOOL_EXIT_FAILURE;
    goto done;
  }
  for (int i = 0; i < ninputs && status == TOOL_EXIT_OK; ++i) {
    in_keys[i] = inputs[i].key;
    /* A literal takes the dtype the signature declares for its key. */
    graft_dtype dtype = GRAFT_DTYPE_INVALID;
    for (int k = 0; k < graft_signature_count(sig, GRAFT_SIGNATURE_INPUT); ++k) {
      if (strcmp(graft_signature_key(sig, GRAFT_SIGNATURE_INPUT, k), inputs[i].key) == 0)
        dtype = graft_signature_dtype(sig, GRAFT_SIGNATURE_INPUT, k);
    }
    const char *value = inputs[i].value;
    if (value[0] == '@') {
      if (npy_read(&values[i], value + 1, err, sizeof err) != 0) {
        tool_error("--input %s: %s", inputs[i].key, err);
        status = TOOL_EXIT_FAILURE;
      }
    } else if (literal_parse(&values[i], value, dtype, err, sizeof err) != 0) {
      status = tool_usage_error("run", "bad value for --input %s: %s", inputs[i].key, err);
    }
  }
  for (int i = 0; i < noutputs; ++i) out_keys[i] = outputs[i].key;
  if (status != TOOL_EXIT_OK) goto done;
  graft_run_options run_options = GRAFT_RUN_OPTIONS_INIT;
  run_options.timeout_ms = step->timeout_ms;
  int run_rc = step->timeout_ms > 0 ? graft_saved_model_run_with_options(results, model, signature, in_keys, values,
                                                                         ninputs, out_keys, noutputs, &run_options)
                                    : graft_saved_model_run(results, model, signature, in_keys, values, ninputs,
                                                            out_keys, noutputs);
  if (run_rc != GRAFT_OK) {
    tool_error_graft("cannot run '%s'", dir);
    status = TOOL_EXIT_FAILURE;
    goto done;
  }
  for (int i = 0; i < nresults && status == TOOL_EXIT_OK; ++i) {
    const char *key = noutputs > 0 ? outputs[i].key : graft_signature_key(sig, GRAFT_SIGNATURE_OUTPUT, i);
    const char *file = noutputs > 0 ? outputs[i].value : NULL;
    if (file == NULL) {
      status = tool_print_tensor(key, results[i]);
    } else if (npy_write(file, results[i], err, sizeof err) != 0) {
      tool_error("--output %s: %s", key, err);
      status = TOOL_EXIT_FAILURE;
    }
  }

done:
  if (results != NULL)
    for (int i = 0; i < nresults; ++i) graft_tensor_free(results[i]);
  if (values != NULL)
    for (int i = 0; i < ninputs; ++i) graft_tensor_free(values[i]);
  free(in_keys);
  free(values);
  free(out_keys);
  free(results);
  return status;
}

int tool_run_saved_model(const char *dir, const char *const *tags, int ntags, const tool_run_step *steps, int nsteps) {
  graft_saved_model *model = NULL;
  int status = load(&model, dir, tags, ntags);
  for (int i = 0; i < nsteps && status == TOOL_EXIT_OK; ++i) status = run_step(model, dir, &steps[i]);
  graft_saved_model_free(model);
  return status == TOOL_EXIT_OK ? tool_finish_stdout() : status;
}
