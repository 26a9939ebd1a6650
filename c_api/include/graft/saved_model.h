/*
 * graft/saved_model.h: loading TensorFlow SavedModels and running their signatures.
 *
 * A SavedModel directory (saved_model.pb, variables/variables.index + data shards, assets/) is
 * loaded by tags (default "serve"): its graph and function library are imported, its variables
 * restored from the checkpoint, its init op run with the asset paths. Its signatures name
 * inputs and outputs by key; graft_saved_model_run runs one by keys. Models written by
 * TensorFlow 1 (VariableV2 + saver) and TensorFlow 2 (resource variables, functions) load the
 * same way.
 *
 * Ownership: the model owns its graph, session and signatures; the pointers the accessors
 * return are borrowed and live as long as the model. Tensors given to graft_saved_model_run
 * stay the caller's; results are new handles the caller frees with graft_tensor_free.
 *
 * Threading: graft_saved_model_run may be called from many threads at once on one model
 * (variables are locked while read or written). Loading and freeing are not concurrent with
 * anything else on the same model.
 */
#ifndef GRAFT_SAVED_MODEL_H
#define GRAFT_SAVED_MODEL_H

#include "graft/common.h"
#include "graft/graph.h"
#include "graft/session.h"
#include "graft/shape.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_saved_model graft_saved_model;
typedef struct graft_signature graft_signature;

/* Which side of a signature an accessor reads. */
typedef int32_t graft_signature_io;
enum graft_signature_io_value { GRAFT_SIGNATURE_INPUT = 0, GRAFT_SIGNATURE_OUTPUT = 1 };

/*
 * Loads the SavedModel in directory dir: the MetaGraph whose tag set is exactly tags[0..ntags)
 * (ntags 0: {"serve"}). options may be NULL. Errors: no such directory or file
 * (GRAFT_ENOTFOUND), corrupt files (GRAFT_EDATALOSS, naming the file), no MetaGraph with those
 * tags (GRAFT_ENOTFOUND, listing the tag sets there are), an op without a kernel, a failing
 * restore or init op (naming the op). Free *out with graft_saved_model_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_load(graft_saved_model **out, const char *dir,
                                                           const char *const *tags, int ntags,
                                                           const graft_session_options *options);
/* Frees the model, its graph, session and signatures. NULL is a harmless no-op. */
GRAFT_API void graft_saved_model_free(graft_saved_model *model);

/*
 * The tag sets of the MetaGraphs in dir without loading them, as text: one line per
 * MetaGraph, tags separated by ','. The caller frees *out with graft_string_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_list_tags(char **out, const char *dir);

/*
 * The model's graph and the session its variables live in (borrowed: valid while the model
 * lives; graft_graph_share keeps the graph longer). Do not free them: graft_saved_model_free does.
 */
GRAFT_API graft_graph *graft_saved_model_graph(graft_saved_model *model);
GRAFT_API graft_session *graft_saved_model_session(graft_saved_model *model);

/* Signatures, in name order (the init-op signature is not one of them). */
GRAFT_API int graft_saved_model_num_signatures(const graft_saved_model *model);
/* The i-th signature (borrowed: valid while the model lives), or NULL when i is out of range. */
GRAFT_API const graft_signature *graft_saved_model_signature_at(const graft_saved_model *model, int i);
/* The signature named name (borrowed, valid while the model lives); GRAFT_ENOTFOUND otherwise. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_signature(const graft_signature **out,
                                                                const graft_saved_model *model, const char *name);

/*
 * Strings read from a signature (its name, method name, keys and tensor names) are borrowed
 * from the model: valid until graft_saved_model_free; do not free them.
 */
GRAFT_API const char *graft_signature_name(const graft_signature *signature);
/* "tensorflow/serving/predict", "tensorflow/serving/regress", ...; borrowed from the model. */
GRAFT_API const char *graft_signature_method_name(const graft_signature *signature);
/* Inputs or outputs (io: GRAFT_SIGNATURE_INPUT or _OUTPUT), in key order; -1 for a bad io. */
GRAFT_API int graft_signature_count(const graft_signature *signature, graft_signature_io io);
/* The key of input/output i ("x"), or NULL when out of range; borrowed from the model. */
GRAFT_API const char *graft_signature_key(const graft_signature *signature, graft_signature_io io, int i);
/* The graph tensor it stands for ("serving_default_x:0"), or NULL when out of range; borrowed. */
GRAFT_API const char *graft_signature_tensor_name(const graft_signature *signature, graft_signature_io io, int i);
/* Its dtype, or GRAFT_DTYPE_INVALID when out of range. */
GRAFT_API graft_dtype graft_signature_dtype(const graft_signature *signature, graft_signature_io io, int i);
/* Its (partial) shape as the signature declares it; a new handle freed with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_signature_shape(graft_shape **out, const graft_signature *signature, graft_signature_io io,
                                                          int i);
/*
 * The graph tensor itself (for graft_session_run on graft_saved_model_session); its op is
 * borrowed from the model's graph.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_signature_tensor(graft_output *out, const graft_signature *signature, graft_signature_io io,
                                                           int i);

/*
 * Runs signature `signature` (or a restored concrete function by its name, see below): inputs[i] is the value of input key input_keys[i]; out_values[i]
 * receives output output_keys[i] (noutputs 0 with out_values sized for every output: all of
 * them, in key order). Errors name the signature and the key: an unknown key
 * (GRAFT_ENOTFOUND, listing the keys there are), a value of the wrong dtype (GRAFT_EDTYPE) or
 * shape (GRAFT_ESHAPE), a missing input the outputs need, a failing op. On error no out_values
 * are set and the model stays usable. The out_values are new handles: free each with
 * graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_run(graft_tensor **out_values, graft_saved_model *model,
                                                          const char *signature, const char *const *input_keys,
                                                          graft_tensor *const *inputs, int ninputs,
                                                          const char *const *output_keys, int noutputs);
/*
 * graft_saved_model_run with a deadline and/or a cancellation token (run_options.h; options
 * NULL: neither). The out_values are new handles: free each with graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_run_with_options(
    graft_tensor **out_values, graft_saved_model *model, const char *signature, const char *const *input_keys,
    graft_tensor *const *inputs, int ninputs, const char *const *output_keys, int noutputs,
    const graft_run_options *options);

/* ---- Objects (TensorFlow 2 SavedModels) ----------------------------------------------------
 *
 * A model saved from TensorFlow 2 objects (tf.Module, Keras) keeps its object graph: the saved
 * root object, its tracked children (nested modules, lists and dicts of them, variables,
 * tf.functions, assets), as tf.saved_model.load restores them. An object is named by a path of
 * child names from the root joined by '.': "" is the root, "layers.0.kernel" the child
 * "kernel" of the child "0" (a list's elements are named by index) of the child "layers". A
 * child name that itself contains '.' (a dict key) is matched whole. Models written by
 * TensorFlow 1 have no object graph: every path is GRAFT_ENOTFOUND.
 *
 * A tf.function is one or more concrete functions (one per input signature it was traced
 * with); each is a graft_signature whose inputs are its tensor arguments in argument order
 * (nested arguments flattened as TensorFlow flattens them) and whose outputs are its flattened
 * results. Run one with graft_saved_model_run under its name (graft_signature_name).
 * Functions, signatures and variables of one model share its variables: an update made by one
 * is seen by the others. Everything here is read-only after loading and thread-safe.
 */
typedef int32_t graft_saved_object_kind;
enum graft_saved_object_kind_value {
  GRAFT_SAVED_OBJECT_USER = 0,              /* a module or other tracked object; has children */
  GRAFT_SAVED_OBJECT_VARIABLE = 1,          /* a tf.Variable */
  GRAFT_SAVED_OBJECT_FUNCTION = 2,          /* a tf.function: one or more concrete functions */
  GRAFT_SAVED_OBJECT_CONCRETE_FUNCTION = 3, /* a single concrete function (a signature's) */
  GRAFT_SAVED_OBJECT_ASSET = 4,             /* a file under assets/ */
  GRAFT_SAVED_OBJECT_CONSTANT = 5,          /* a captured constant */
  GRAFT_SAVED_OBJECT_RESOURCE = 6,          /* a resource such as a lookup table */
  GRAFT_SAVED_OBJECT_OTHER = 7,
  GRAFT_SAVED_OBJECT_LIST = 8,              /* a list of tracked objects; children "0", "1", ... */
  GRAFT_SAVED_OBJECT_DICT = 9,              /* a dict of them; children named by key */
  GRAFT_SAVED_OBJECT_TUPLE = 10             /* a tuple of them */
};

/* The kind of the object at path. GRAFT_ENOTFOUND names the first missing child and lists
 * the children there are. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_object_kind(graft_saved_object_kind *out,
                                                                  const graft_saved_model *model, const char *path);
/* A number identifying the object at path: paths that reach one object (a variable tracked by
 * two modules) give the same number; 0 is the root. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_object_id(int *out, const graft_saved_model *model,
                                                                const char *path);
/* The names of the children of the object at path, in saved order, each followed by '\n'.
 * Free *out with graft_string_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_object_children(char **out, const graft_saved_model *model,
                                                                      const char *path);
/* How many concrete functions the function object at path has (0 for other objects). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_function_count(int *out, const graft_saved_model *model,
                                                                     const char *path);
/* The i-th concrete function of the function object at path (borrowed: valid while the model
 * lives). GRAFT_EINVAL when the object is not a function, GRAFT_ERANGE past the last. A
 * function Graft cannot run (it captures a resource it does not restore) is listed; running it
 * fails with GRAFT_EUNIMPLEMENTED saying why. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_function_at(const graft_signature **out,
                                                                  const graft_saved_model *model, const char *path,
                                                                  int i);
/* The current value of the variable object at path; free *out with graft_tensor_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_variable_read(graft_tensor **out, graft_saved_model *model,
                                                                    const char *path);
/* The full path of the asset file object at path; free *out with graft_string_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_asset_path(char **out, const graft_saved_model *model,
                                                                 const char *path);
/*
 * How the inputs or outputs of signature nest, as JSON, for bindings that rebuild nested
 * arguments and results: {"structure": S} (inputs of a concrete function also carry
 * "arg_names": [...], the Python parameter names), where S is {"tensor": i, "name": ..,
 * "dtype": graft_dtype, "shape": [dims, -1 unknown] or null} for the i-th input/output,
 * {"tuple": [S...]}, {"list": [S...]}, {"dict": {key: S}} (keys sorted, TensorFlow's flattening
 * order), {"namedtuple": name, "fields": [[key, S]...]}, a Python value {"none": null},
 * {"bool": b}, {"int": n}, {"float": "text"}, {"string": s}, or {"unsupported": kind}. A
 * SignatureDef's is one dict by key. Free *out with graft_string_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_signature_structure(char **out, const graft_signature *signature,
                                                              graft_signature_io io);

/* ---- Saving ---------------------------------------------------------------------------- */

/* A signature to save: a name, a method name and tensors of the graph by key. */
typedef struct graft_signature_def graft_signature_def;

/*
 * A new signature definition named name; method_name NULL for "tensorflow/serving/predict".
 * Free *out with graft_signature_def_free (saving does not consume it).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_signature_def_new(graft_signature_def **out, const char *name,
                                                            const char *method_name);
/* Frees a signature definition. NULL is a harmless no-op. */
GRAFT_API void graft_signature_def_free(graft_signature_def *def);
/* Adds input or output (io) key standing for tensor. GRAFT_EEXISTS for a repeated key. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_signature_def_add(graft_signature_def *def, graft_signature_io io, const char *key,
                                                            graft_output tensor);

/*
 * Writes the graph of session, with the current values of its variables (every variable op of
 * the graph must be initialized in session), as a SavedModel in directory dir (created; it must
 * not exist or be empty) with MetaGraph tags tags[0..ntags) (ntags 0: {"serve"}) and the given
 * signatures. graft_saved_model_load loads it back (as does TensorFlow). Errors name the
 * variable, signature or key; on error nothing is left in dir.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_saved_model_save(graft_session *session, const char *dir,
                                                           const char *const *tags, int ntags,
                                                           const graft_signature_def *const *signatures,
                                                           int nsignatures);

GRAFT_END_DECL

#endif /* GRAFT_SAVED_MODEL_H */
