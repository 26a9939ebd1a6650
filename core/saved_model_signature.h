// A callable entry point of a loaded SavedModel: a SignatureDef (named inputs and outputs of the
// graph) or a restored concrete function (core/saved_object_graph.h), both run by feeding the
// input tensors and fetching the outputs.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace graft {

struct SignatureTensor {
  std::string key;          // the signature's name for it ("x")
  std::string tensor_name;  // the graph's tensor ("serving_default_x:0")
  DType dtype = DType::kInvalid;
  PartialShape shape;
  Output tensor;
};

struct Signature {
  std::string name;         // "serving_default"; a concrete function's library name
  std::string method_name;  // "tensorflow/serving/predict"; empty for a concrete function
  // Signatures: sorted by key. Concrete functions: inputs in argument order, outputs in the
  // flattened order of the output structure.
  std::vector<SignatureTensor> inputs;
  std::vector<SignatureTensor> outputs;
  // How the flat inputs and outputs nest, as JSON ([0] inputs, [1] outputs):
  //   {"structure": S, "arg_names": ["x", ...]}   (arg_names: inputs of concrete functions)
  // where S is one of {"tensor": i, "name": N, "dtype": D, "shape": [dims, -1 unknown] | null}
  // (i: the index of the flat input/output), {"none": null}, {"bool": b}, {"int": n},
  // {"float": "repr"}, {"string": s}, {"tuple": [S...]}, {"list": [S...]},
  // {"dict": {key: S}} (keys in sorted order, as TensorFlow flattens them),
  // {"namedtuple": name, "fields": [[key, S]...]}, {"unsupported": kind}.
  std::string structure[2];
  // Non-empty: why this concrete function cannot be called (running it fails with this).
  std::string unavailable;
};

}  // namespace graft
