/*
 * run.c: `graft run GRAPH.pb --feed NAME=VALUE ... --fetch TENSOR[=OUT.npy] ... [--target OP ...]`:
 * runs a GraphDef in a session and prints the fetched tensors as NumPy prints them, or writes
 * them to .npy files. With --grad-y/--grad-x it also adds the gradients of the ys with respect
 * to the xs (graft_graph_add_gradients) and fetches them.
 *
 * The command line is checked first (exit status 2), then the graph is loaded (with the
 * prefix "", so that names are those of the file), names are looked up, the feed values are
 * made (from .npy files, or from literals in the fed tensor's dtype: see literal.h), and the
 * session runs once. Literal values that do not parse or do not fit are command-line errors
 * (status 2); a name the graph lacks, a file that cannot be read and a failing run are
 * status 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "literal.h"
#include "npy.h"
#include "repr.h"
#include "saved_model.h"

const char tool_run_synopsis[] =
    "GRAPH.pb --feed NAME=VALUE ... --fetch TENSOR[=OUT.npy] ... [--target OP ...] [--grad-y Y[=VALUE] ... --grad-x "
    "X[=OUT.npy] ...]";
const char tool_run_summary[] = "run a GraphDef (feed tensors, fetch results) or a SavedModel signature";
const char tool_run_details[] =
    "Loads the GraphDef GRAPH.pb ('-' for standard input), feeds the given tensors, runs what\n"
    "the fetches and targets need, and prints each fetched tensor as NumPy prints it\n"
    "(\"TENSOR = array(...)\") or writes it to a .npy file. Op names are those of the file.\n"
    "\n"
    "Options:\n"
    "  --feed NAME=VALUE         feed tensor NAME (\"op:index\", or \"op\" for \"op:0\") with VALUE\n"
    "  --fetch TENSOR[=OUT.npy]  fetch TENSOR: print it, or write it to OUT.npy\n"
    "  --target OP               also run op OP (for its effects; nothing is fetched)\n"
    "  --grad-y Y[=VALUE]        differentiate tensor Y (the sum of all the ys); VALUE is the\n"
    "                            gradient flowing into Y (default: ones; give all or none)\n"
    "  --grad-x X[=OUT.npy]      fetch the gradient of the ys with respect to tensor X: print\n"
    "                            it, or write it to OUT.npy; with no gradient (X does not reach\n"
    "                            a y, or only through integer tensors) print \"d/dX = None\"\n"
    "                            and write no file\n"
    "  --timeout MS              stop the run if it has not finished after MS milliseconds\n"
    "                            (a graph that loops forever, say): an error naming the op\n"
    "  --max-memory SIZE         cap the tensor memory the run may hold at once: SIZE bytes,\n"
    "                            or with a K, M or G suffix (powers of 1024); 0 for no cap.\n"
    "                            Default: half of the machine's memory, so that a graph asking\n"
    "                            for more fails with an error naming the op instead of\n"
    "                            swapping or being killed\n"
    "  -h, --help                show this help\n"
    "\n"
    "At least one --fetch, --target or --grad-x is needed; each option may be given any number of times.\n"
    "\n"
    "graft run SAVED_MODEL_DIR [--signature NAME] [--tag TAG ...] --input KEY=VALUE ...\n"
    "          [--output KEY[=OUT.npy] ...] [--then ...]\n"
    "loads a SavedModel (variables restored, init op run) and runs a signature by its keys:\n"
    "  --signature NAME          the signature (default serving_default)\n"
    "  --tag TAG                 a MetaGraph tag (repeat for a set; default serve)\n"
    "  --input KEY=VALUE         the signature's input KEY\n"
    "  --output KEY[=OUT.npy]    print output KEY, or write it to OUT.npy (default: print all)\n"
    "  --then                    start another run of the same loaded model (variables keep\n"
    "                            their values): --signature, --input and --output again\n"
    "  --timeout MS              as above, for the run it is given with (each --then\n"
    "                            step takes its own)\n"
    "\n"
    "VALUE is @FILE.npy (a NumPy .npy file: versions 1.0 to 3.0, C order, numeric, bool or\n"
    "string dtypes) or a literal: a number, true or false, a quoted string, or nested lists of\n"
    "them, e.g. 3  -2.5  1e-3  inf  2+1j  true  \"text\"  [1.5, 2]  [[1, 2], [3, 4]]. A literal\n"
    "has the dtype of the tensor it feeds; a :DTYPE suffix chooses another ([1, 2]:int64,\n"
    "3:float32), and where neither is known it is TensorFlow's choice (int32, or int64 for\n"
    "larger integers; float32, bool, complex128 or string). A value that does not fit its dtype\n"
    "(1.5 for int32, 300 for uint8) is an error.\n"
    "\n"
    "Examples:\n"
    "  graft run model.pb --feed x=3 --feed y=4 --fetch z\n"
    "  graft run model.pb --feed 'x=[[1, 2], [3, 4]]' --feed y=@y.npy --fetch out:0=out.npy\n"
    "  graft run model.pb --feed 'name=\"text\"' --fetch greeting\n"
    "  graft run model.pb --target init\n"
    "  graft run saved_model_dir --signature serving_default --input 'x=[[1], [2]]' --output y\n";

#define ERR_SIZE 1024

typedef struct {
  const char *name;  /* the tensor or op name as given */
  const char *value; /* --feed: the VALUE; --fetch: OUT.npy or NULL */
} run_arg;

typedef struct {
  const char *path;
  run_arg *feeds, *fetches, *targets, *grad_ys, *grad_xs;
  int nfeeds, nfetches, ntargets, ngrad_ys, ngrad_xs;
  /* SavedModels */
  const char *signature;
  const char **tags;
  run_arg *inputs, *outputs;
  int ntags, ninputs, noutputs;
  int64_t timeout_ms; /* --timeout: 0 none */
  int64_t max_memory; /* --max-memory: 0 none, -1 the default */
} run_args;

/* Parses SIZE: digits with an optional K, M or G suffix (powers of 1024); -1 when malformed. */
static int64_t parse_size(const char *text) {
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (end == text || v < 0) return -1;
  int64_t scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1024;
  else if (*end == 'M' || *end == 'm') scale = 1024 * 1024;
  else if (*end == 'G' || *end == 'g') scale = 1024 * 1024 * 1024;
  if (scale != 1) ++end;
  if (*end != '\0' || v > INT64_MAX / scale) return -1;
  return (int64_t)v * scale;
}

/* The tool's default memory cap: half of the machine's memory (0, none, where unknown). */
static int64_t default_max_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return (int64_t)pages / 2 * (int64_t)page;
}

/* The value of option opt at argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL if arg is not opt. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, int *missing) {
  const char *arg = argv[*i];
  size_t n = strlen(opt);
  *missing = 0;
  if (strncmp(arg, opt, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

/* Splits "NAME=VALUE" (at the first '='); value NULL when there is no '='. */
static run_arg split_arg(const char *text) {
  run_arg a = {text, NULL};
  const char *eq = strchr(text, '=');
  if (eq != NULL) {
    size_t n = (size_t)(eq - text);
    char *name = malloc(n + 1);
    if (name != NULL) {
      memcpy(name, text, n);
      name[n] = '\0';
      a.name = name;
      a.value = eq + 1;
    }
  }
  return a;
}

static void free_args(run_args *args) {
  for (int i = 0; i < args->nfeeds; ++i)
    if (args->feeds[i].value != NULL) free((char *)args->feeds[i].name);
  for (int i = 0; i < args->nfetches; ++i)
    if (args->fetches[i].value != NULL) free((char *)args->fetches[i].name);
  for (int i = 0; i < args->ninputs; ++i)
    if (args->inputs[i].value != NULL) free((char *)args->inputs[i].name);
  for (int i = 0; i < args->noutputs; ++i)
    if (args->outputs[i].value != NULL) free((char *)args->outputs[i].name);
  for (int i = 0; i < args->ngrad_ys; ++i)
    if (args->grad_ys[i].value != NULL) free((char *)args->grad_ys[i].name);
  for (int i = 0; i < args->ngrad_xs; ++i)
    if (args->grad_xs[i].value != NULL) free((char *)args->grad_xs[i].name);
  free(args->grad_ys);
  free(args->grad_xs);
  free(args->feeds);
  free(args->fetches);
  free(args->targets);
  free(args->tags);
  free(args->inputs);
  free(args->outputs);
}

static int parse_args(run_args *args, int argc, char **argv) {
  const char *cmd = argv[0];
  args->feeds = calloc((size_t)argc, sizeof *args->feeds);
  args->fetches = calloc((size_t)argc, sizeof *args->fetches);
  args->targets = calloc((size_t)argc, sizeof *args->targets);
  args->tags = calloc((size_t)argc, sizeof *args->tags);
  args->inputs = calloc((size_t)argc, sizeof *args->inputs);
  args->outputs = calloc((size_t)argc, sizeof *args->outputs);
  args->grad_ys = calloc((size_t)argc, sizeof *args->grad_ys);
  args->grad_xs = calloc((size_t)argc, sizeof *args->grad_xs);
  if (args->grad_ys == NULL || args->grad_xs == NULL || args->feeds == NULL || args->fetches == NULL || args->targets == NULL || args->tags == NULL ||
      args->inputs == NULL || args->outputs == NULL) {
    tool_error("out of memory");
    return TOOL_EXIT_FAILURE;
  }
  int options_done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value;
    int missing = 0;
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = 1;
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--feed", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--feed' needs NAME=VALUE");
      run_arg a = split_arg(value);
      args->feeds[args->nfeeds++] = a;
      if (a.value == NULL || a.name[0] == '\0')
        return tool_usage_error(cmd, "--feed '%s' is not NAME=VALUE", value);
      if (a.value[0] == '\0') return tool_usage_error(cmd, "--feed '%s' has an empty VALUE", value);
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--fetch", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--fetch' needs TENSOR[=OUT.npy]");
      run_arg a = split_arg(value);
      args->fetches[args->nfetches++] = a;
      if (a.name[0] == '\0') return tool_usage_error(cmd, "--fetch '%s' has no tensor name", value);
      if (a.value != NULL && a.value[0] == '\0') return tool_usage_error(cmd, "--fetch '%s' has an empty OUT.npy", value);
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--grad-y", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--grad-y' needs Y[=VALUE]");
      run_arg a = split_arg(value);
      args->grad_ys[args->ngrad_ys++] = a;
      if (a.name[0] == '\0') return tool_usage_error(cmd, "--grad-y '%s' has no tensor name", value);
      if (a.value != NULL && a.value[0] == '\0') return tool_usage_error(cmd, "--grad-y '%s' has an empty VALUE", value);
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--grad-x", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--grad-x' needs X[=OUT.npy]");
      run_arg a = split_arg(value);
      args->grad_xs[args->ngrad_xs++] = a;
      if (a.name[0] == '\0') return tool_usage_error(cmd, "--grad-x '%s' has no tensor name", value);
      if (a.value != NULL && a.value[0] == '\0') return tool_usage_error(cmd, "--grad-x '%s' has an empty OUT.npy", value);
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--target", &missing)) != NULL || missing)) {
      if (missing || value[0] == '\0') return tool_usage_error(cmd, "option '--target' needs an op name");
      args->targets[args->ntargets].name = value;
      args->targets[args->ntargets++].value = NULL;
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--timeout", &missing)) != NULL || missing)) {
      char *end = NULL;
      long long ms = missing ? 0 : strtoll(value, &end, 10);
      if (missing || end == value || *end != '\0' || ms <= 0)
        return tool_usage_error(cmd, "option '--timeout' needs a number of milliseconds > 0");
      args->timeout_ms = (int64_t)ms;
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--max-memory", &missing)) != NULL || missing)) {
      args->max_memory = missing ? -1 : parse_size(value);
      if (args->max_memory < 0)
        return tool_usage_error(cmd, "option '--max-memory' needs a size: bytes, or a number with K, M or G");
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--signature", &missing)) != NULL || missing)) {
      if (missing || value[0] == '\0') return tool_usage_error(cmd, "option '--signature' needs a name");
      args->signature = value;
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--tag", &missing)) != NULL || missing)) {
      if (missing || value[0] == '\0') return tool_usage_error(cmd, "option '--tag' needs a tag");
      args->tags[args->ntags++] = value;
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--input", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--input' needs KEY=VALUE");
      run_arg a = split_arg(value);
      args->inputs[args->ninputs++] = a;
      if (a.value == NULL || a.name[0] == '\0') return tool_usage_error(cmd, "--input '%s' is not KEY=VALUE", value);
      if (a.value[0] == '\0') return tool_usage_error(cmd, "--input '%s' has an empty VALUE", value);
    } else if (!options_done && ((value = option_value(argc, argv, &i, "--output", &missing)) != NULL || missing)) {
      if (missing) return tool_usage_error(cmd, "option '--output' needs KEY[=OUT.npy]");
      run_arg a = split_arg(value);
      args->outputs[args->noutputs++] = a;
      if (a.name[0] == '\0') return tool_usage_error(cmd, "--output '%s' has no key", value);
      if (a.value != NULL && a.value[0] == '\0') return tool_usage_error(cmd, "--output '%s' has an empty OUT.npy", value);
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      return tool_usage_error(cmd, "unknown option '%s'", arg);
    } else if (args->path == NULL) {
      args->path = arg;
    } else {
      return tool_usage_error(cmd, "unexpected argument '%s'", arg);
    }
  }
  if (args->path == NULL) return tool_usage_error(cmd, "missing the GRAPH.pb argument");
  int saved_model_options = args->signature != NULL || args->ntags > 0 || args->ninputs > 0 || args->noutputs > 0;
  if (tool_is_directory(args->path)) {
    if (args->nfeeds > 0 || args->nfetches > 0 || args->ntargets > 0 || args->ngrad_ys > 0 || args->ngrad_xs > 0)
      return tool_usage_error(cmd, "a SavedModel runs by signature: use --input and --output, not --feed/--fetch/--target");
    return TOOL_EXIT_OK;
  }
  if (saved_model_options)
    return tool_usage_error(cmd, "--signature, --tag, --input and --output are for SavedModel directories");
  if (args->nfetches == 0 && args->ntargets == 0 && args->ngrad_xs == 0)
    return tool_usage_error(cmd, "nothing to run: give --fetch TENSOR, --target OP or --grad-x TENSOR");
  if ((args->ngrad_ys > 0) != (args->ngrad_xs > 0))
    return tool_usage_error(cmd, "gradients need both --grad-y and --grad-x");
  for (int i = 1; i < args->ngrad_ys; ++i)
    if ((args->grad_ys[i].value == NULL) != (args->grad_ys[0].value == NULL))
      return tool_usage_error(cmd, "give a VALUE to every --grad-y or to none");
  return TOOL_EXIT_OK;
}

/* Looks a tensor name up: a malformed name is a usage error, a missing tensor a failure. */
static int find_tensor(graft_output *out, const graft_graph *graph, const char *name, const char *option) {
  int status = graft_graph_tensor_by_name(out, graph, name);
  if (status == GRAFT_OK) return TOOL_EXIT_OK;
  if (status == GRAFT_EINVAL) return tool_usage_error("run", "bad tensor name for %s: %s", option, graft_error_last());
  tool_error_graft("%s %s", option, name);
  return TOOL_EXIT_FAILURE;
}

/* Parses a --feed or --grad-y VALUE for a tensor of dtype (when the value is a literal). */
static int parse_value(graft_tensor **out, const char *option, const char *name, const char *value, graft_dtype dtype) {
  char err[ERR_SIZE];
  if (value[0] == '@') {
    if (npy_read(out, value + 1, err, sizeof err) != 0) {
      tool_error("%s %s: %s", option, name, err);
      return TOOL_EXIT_FAILURE;
    }
  } else if (literal_parse(out, value, dtype, err, sizeof err) != 0) {
    return tool_usage_error("run", "bad value for %s %s: %s", option, name, err);
  }
  return TOOL_EXIT_OK;
}

/* Adds the gradients of --grad-y with respect to --grad-x: each given gradient value becomes a
 * Placeholder fed with it (appended to feeds/values), each gradient that exists a fetch
 * (appended to fetches, its --grad-x index in which_x). */
static int add_gradients(const run_args *args, graft_graph *graph, graft_output *feeds, graft_tensor **values,
                         int *nfeeds, graft_output *fetches, int *which_x, int *nfetches) {
  const int ny = args->ngrad_ys, nx = args->ngrad_xs;
  graft_output *ys = calloc((size_t)ny + 1, sizeof *ys);
  graft_output *grad_ys = calloc((size_t)ny + 1, sizeof *grad_ys);
  graft_output *xs = calloc((size_t)nx + 1, sizeof *xs);
  graft_output *grads = calloc((size_t)nx + 1, sizeof *grads);
  int status = TOOL_EXIT_OK;
  int have_values = ny > 0 && args->grad_ys[0].value != NULL;
  if (ys == NULL || grad_ys == NULL || xs == NULL || grads == NULL) {
    tool_error("out of memory");
    status = TOOL_EXIT_FAILURE;
  }
  for (int i = 0; i < ny && status == TOOL_EXIT_OK; ++i)
    status = find_tensor(&ys[i], graph, args->grad_ys[i].name, "--grad-y");
  for (int i = 0; i < nx && status == TOOL_EXIT_OK; ++i)
    status = find_tensor(&xs[i], graph, args->grad_xs[i].name, "--grad-x");
  for (int i = 0; i < ny && status == TOOL_EXIT_OK && have_values; ++i) {
    graft_tensor *v = NULL;
    status = parse_value(&v, "--grad-y", args->grad_ys[i].name, args->grad_ys[i].value, graft_output_dtype(ys[i]));
    if (status != TOOL_EXIT_OK) break;
    values[*nfeeds] = v;
    graft_op_desc *desc = NULL;
    graft_op *op = NULL;
    if (graft_op_desc_new(&desc, graph, "Placeholder", "grad_y") != GRAFT_OK ||
        graft_attrs_set_type(graft_op_desc_attrs(desc), "dtype", graft_tensor_dtype(v)) != GRAFT_OK ||
        graft_op_desc_finish(&op, desc) != GRAFT_OK) {
      if (op == NULL && desc != NULL) graft_op_desc_free(desc);
      graft_tensor_free(v);
      values[*nfeeds] = NULL;
      tool_error_graft("--grad-y %s", args->grad_ys[i].name);
      status = TOOL_EXIT_FAILURE;
      break;
    }
    grad_ys[i] = (graft_output){op, 0};
    feeds[(*nfeeds)++] = grad_ys[i];
  }
  if (status == TOOL_EXIT_OK &&
      graft_graph_add_gradients(grads, graph, ys, ny, xs, nx, have_values ? grad_ys : NULL, NULL) != GRAFT_OK) {
    tool_error_graft("cannot build the gradients");
    status = TOOL_EXIT_FAILURE;
  }
  for (int i = 0; i < nx && status == TOOL_EXIT_OK; ++i) {
    if (grads[i].op == NULL) continue;
    which_x[*nfetches] = i;
    fetches[(*nfetches)++] = grads[i];
  }
  free(ys);
  free(grad_ys);
  free(xs);
  free(grads);
  return status;
}

static int run_graph(const run_args *args, graft_graph *graph) {
  int nfeeds = args->nfeeds, nfetches = args->nfetches;
  const int ntargets = args->ntargets;
  const size_t max_feeds = (size_t)nfeeds + (size_t)args->ngrad_ys + 1;
  const size_t max_fetches = (size_t)nfetches + (size_t)args->ngrad_xs + 1;
  graft_output *feeds = calloc(max_feeds, sizeof *feeds);
  graft_tensor **values = calloc(max_feeds, sizeof *values);
  graft_output *fetches = calloc(max_fetches, sizeof *fetches);
  int *which_x = calloc(max_fetches, sizeof *which_x);
  graft_tensor **results = calloc(max_fetches, sizeof *results);
  graft_op **targets = calloc((size_t)ntargets + 1, sizeof *targets);
  graft_session *session = NULL;
  char err[ERR_SIZE];
  int status = TOOL_EXIT_OK;
  if (feeds == NULL || values == NULL || fetches == NULL || which_x == NULL || results == NULL || targets == NULL) {
    tool_error("out of memory");
    status = TOOL_EXIT_FAILURE;
    goto done;
  }

  /* Names first (all of them), then values. */
  for (int i = 0; i < nfeeds && status == TOOL_EXIT_OK; ++i)
    status = find_tensor(&feeds[i], graph, args->feeds[i].name, "--feed");
  for (int i = 0; i < nfetches && status == TOOL_EXIT_OK; ++i)
    status = find_tensor(&fetches[i], graph, args->fetches[i].name, "--fetch");
  for (int i = 0; i < ntargets && status == TOOL_EXIT_OK; ++i) {
    if (graft_graph_op_by_name(&targets[i], graph, args->targets[i].name) != GRAFT_OK) {
      tool_error_graft("--target %s", args->targets[i].name);
      status = TOOL_EXIT_FAILURE;
    }
  }
  for (int i = 0; i < nfeeds && status == TOOL_EXIT_OK; ++i)
    status = parse_value(&values[i], "--feed", args->feeds[i].name, args->feeds[i].value, graft_output_dtype(feeds[i]));
  if (status == TOOL_EXIT_OK && args->ngrad_xs > 0)
    status = add_gradients(args, graph, feeds, values, &nfeeds, fetches, which_x, &nfetches);
  if (status != TOOL_EXIT_OK) goto done;

  if (nfetches == 0 && ntargets == 0) {
    /* Only gradients were asked for, and none exists: nothing to run. */
  } else if (graft_session_new(&session, graph, NULL) != GRAFT_OK) {
    tool_error_graft("cannot make a session");
    status = TOOL_EXIT_FAILURE;
    goto done;
  }
  graft_run_options run_options = GRAFT_RUN_OPTIONS_INIT;
  run_options.timeout_ms = args->timeout_ms;
  int run_rc = GRAFT_OK;
  if (session != NULL) {
    run_rc = args->timeout_ms > 0 ? graft_session_run_with_options(results, session, feeds, values, nfeeds, fetches,
                                                                   nfetches, targets, ntargets, &run_options)
                                   : graft_session_run(results, session, feeds, values, nfeeds, fetches, nfetches,
                                                       targets, ntargets);
  }
  if (run_rc != GRAFT_OK) {
    tool_error_graft("cannot run '%s'", args->path);
    status = TOOL_EXIT_FAILURE;
    goto done;
  }
  for (int i = 0, k = 0; i < args->ngrad_xs && status == TOOL_EXIT_OK; ++i) {
    /* The gradients that exist follow the --fetch results, in --grad-x order. */
    const run_arg *x = &args->grad_xs[i];
    int at = args->nfetches + k;
    if (at < nfetches && which_x[at] == i) {
      ++k;
      if (x->value == NULL) {
        char label[ERR_SIZE];
        snprintf(label, sizeof label, "d/d%s", x->name);
        status = tool_print_tensor(label, results[at]);
      } else if (npy_write(x->value, results[at], err, sizeof err) != 0) {
        tool_error("--grad-x %s: %s", x->name, err);
        status = TOOL_EXIT_FAILURE;
      }
    } else {
      printf("d/d%s = None\n", x->name);
    }
  }
  for (int i = 0; i < args->nfetches && status == TOOL_EXIT_OK; ++i) {
    const run_arg *f = &args->fetches[i];
    if (f->value == NULL) {
      status = tool_print_tensor(f->name, results[i]);
    } else if (npy_write(f->value, results[i], err, sizeof err) != 0) {
      tool_error("--fetch %s: %s", f->name, err);
      status = TOOL_EXIT_FAILURE;
    }
  }

done:
  if (results != NULL)
    for (int i = 0; i < nfetches; ++i) graft_tensor_free(results[i]);
  if (values != NULL)
    for (int i = 0; i < nfeeds; ++i) graft_tensor_free(values[i]);
  graft_session_free(session);
  free(feeds);
  free(values);
  free(fetches);
  free(which_x);
  free(results);
  free(targets);
  return status;
}

/* Runs a SavedModel: argv split at each "--then" into steps, each parsed like a command line
 * of its own (the directory and tags from the first). */
static int run_saved_model_steps(int argc, char **argv, const run_args *first) {
  int nsteps = 1;
  for (int i = 1; i < argc; ++i) nsteps += strcmp(argv[i], "--then") == 0;
  run_args *all = calloc((size_t)nsteps, sizeof *all);
  tool_run_step *steps = calloc((size_t)nsteps, sizeof *steps);
  char **sub = calloc((size_t)argc + 2, sizeof *sub);
  int status = TOOL_EXIT_OK;
  if (all == NULL || steps == NULL || sub == NULL) {
    tool_error("out of memory");
    status = TOOL_EXIT_FAILURE;
  }
  int start = 1;
  for (int k = 0; k < nsteps && status == TOOL_EXIT_OK; ++k) {
    int end = start;
    while (end < argc && strcmp(argv[end], "--then") != 0) ++end;
    int n = 0;
    sub[n++] = argv[0];
    if (k > 0) sub[n++] = (char *)first->path;
    for (int i = start; i < end; ++i) sub[n++] = argv[i];
    status = parse_args(&all[k], n, sub);
    if (status == TOOL_EXIT_OK && k > 0 && all[k].ntags > 0)
      status = tool_usage_error(argv[0], "--tag goes before the first --then");
    start = end + 1;
  }
  tool_key_value *kv = NULL;
  if (status == TOOL_EXIT_OK) {
    size_t total = 1;
    for (int k = 0; k < nsteps; ++k) total += (size_t)all[k].ninputs + (size_t)all[k].noutputs;
    kv = calloc(total, sizeof *kv);
    if (kv == NULL) {
      tool_error("out of memory");
      status = TOOL_EXIT_FAILURE;
    }
  }
  if (status == TOOL_EXIT_OK) {
    size_t used = 0;
    for (int k = 0; k < nsteps; ++k) {
      steps[k].signature = all[k].signature ? all[k].signature : "serving_default";
      steps[k].timeout_ms = all[k].timeout_ms;
      steps[k].inputs = kv + used;
      steps[k].ninputs = all[k].ninputs;
      for (int i = 0; i < all[k].ninputs; ++i) kv[used++] = (tool_key_value){all[k].inputs[i].name, all[k].inputs[i].value};
      steps[k].outputs = kv + used;
      steps[k].noutputs = all[k].noutputs;
      for (int i = 0; i < all[k].noutputs; ++i)
        kv[used++] = (tool_key_value){all[k].outputs[i].name, all[k].outputs[i].value};
    }
    status = tool_run_saved_model(first->path, all[0].tags, all[0].ntags, steps, nsteps);
  }
  if (all != NULL)
    for (int k = 0; k < nsteps; ++k) free_args(&all[k]);
  free(all);
  free(steps);
  free(sub);
  free(kv);
  return status;
}

int tool_run_main(int argc, char **argv) {
  run_args args;
  memset(&args, 0, sizeof args);
  args.max_memory = -1;
  /* The first step's arguments (up to any --then) say what the path is. */
  int first_end = 1;
  while (first_end < argc && strcmp(argv[first_end], "--then") != 0) ++first_end;
  int status = parse_args(&args, first_end, argv);
  if (status == TOOL_EXIT_OK) {
    /* The process's cap: every run and the model's loading (variables restored) count. */
    if (graft_memory_set_limit(args.max_memory >= 0 ? args.max_memory : default_max_memory()) != GRAFT_OK) {
      tool_error_graft("cannot set the memory cap");
      status = TOOL_EXIT_FAILURE;
    }
  }
  if (status == TOOL_EXIT_OK && tool_is_directory(args.path)) {
    status = run_saved_model_steps(argc, argv, &args);
  } else if (status == TOOL_EXIT_OK && first_end < argc) {
    status = tool_usage_error(argv[0], "--then is for SavedModel directories");
  } else if (status == TOOL_EXIT_OK) {
    graft_graph *graph = NULL;
    status = tool_load_graph(&graph, args.path);
    if (status == TOOL_EXIT_OK) {
      status = run_graph(&args, graph);
      graft_graph_free(graph);
    }
  }
  free_args(&args);
  return status;
}
