// The OpenCL device (kernels/opencl) on whatever OpenCL device the machine has — PoCL's CPU
// device where there is no GPU (CI installs pocl-opencl-icd): the devices are found and
// described; every op with an OpenCL kernel runs there (checked through the executor's
// placement) for several shapes and dtypes and agrees with the CPU kernels within the bound
// stated per op; broadcasting, empty tensors, batched and transposed matrix products; a graph
// with ops on both devices gives the CPU's result; device errors name the op; eager ops run
// on the device they ask for.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "c_api/src/composition_root.h"
#include "core/eager/context.h"
#include "core/float16.h"
#include "core/gradients/gradient_builder.h"
#include "core/graph.h"
#include "core/runtime/device_set.h"
#include "core/runtime/executor.h"
#include "core/runtime/resource_mgr.h"
#include "core/runtime/session.h"
#include "core/saved_model.h"
#include "kernels/opencl/opencl_device.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

namespace graft {
namespace {

std::string OpenClDeviceName() {
  std::unique_ptr<DeviceSet> set = DeviceSet::FromRegistry();
  if (set->Find("GPU", 0) != nullptr) return "/device:GPU:0";
  if (set->Find("OPENCL", 0) != nullptr) return "/device:OPENCL:0";
  return "";
}

// The first list_n inputs (when above 0) form one list argument (ConcatV2's values).
Node* Op(Graph& g, const std::string& type, const std::string& name, std::vector<Output> inputs,
         const std::string& device, AttrMap attrs, size_t list_n = 0) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  if (list_n > 0) spec.inputs.push_back(NodeSpec::InputArg{{inputs.begin(), inputs.begin() + list_n}, true});
  for (size_t i = list_n; i < inputs.size(); ++i) spec.inputs.push_back(NodeSpec::InputArg{{inputs[i]}, false});
  spec.attrs = std::move(attrs);
  spec.device = device;
  Node* n = nullptr;
  Status s = g.AddNode(std::move(spec), &n);
  if (!s.ok()) print_error("%s\n", s.message().c_str());
  assert_true(s.ok());
  return n;
}

// The process's OpenCL device the tests use (OpenClDeviceName's), for its counters.
opencl::OpenClDevice* TheOpenClDevice() {
  const std::string device = OpenClDeviceName();
  auto* ocl = dynamic_cast<opencl::OpenClDevice*>(
      DeviceSet::Process().Find(device.find("GPU") != std::string::npos ? "GPU" : "OPENCL", 0));
  assert_non_null(ocl);
  return ocl;
}

Tensor Random(DType dt, std::vector<int64_t> dims, std::mt19937& rng, double lo, double hi) {
  Tensor t;
  assert_true(Tensor::Allocate(dt, dims, &t).ok());
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = u(rng);
    switch (dt) {
      case DType::kFloat32: t.data<float>()[i] = static_cast<float>(v); break;
      case DType::kFloat64: t.data<double>()[i] = v; break;
      case DType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(std::floor(v)); break;
      case DType::kInt64: t.data<int64_t>()[i] = static_cast<int64_t>(std::floor(v)); break;
      case DType::kBool: t.data<bool>()[i] = v > (lo + hi) / 2; break;
      case DType::kFloat16: t.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(v)); break;
      case DType::kBFloat16: t.data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(v)); break;
      case DType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(std::floor(v)); break;
      case DType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(std::floor(v - lo)); break;
      case DType::kInt16: t.data<int16_t>()[i] = static_cast<int16_t>(std::floor(v)); break;
      case DType::kUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(std::floor(v - lo)); break;
      case DType::kUInt32: t.data<uint32_t>()[i] = static_cast<uint32_t>(std::floor(v - lo)); break;
      case DType::kUInt64: t.data<uint64_t>()[i] = static_cast<uint64_t>(std::floor(v - lo)); break;
      default: fail();
    }
  }
  return t;
}

// A vector (or, with scalar, a scalar) of int32 or int64 values: axes, perms, shapes.
Tensor Ints(std::vector<int64_t> v, DType dt = DType::kInt32, bool scalar = false) {
  Tensor t;
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  assert_true(Tensor::Allocate(dt, dims, &t).ok());
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::kInt32) t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    else t.data<int64_t>()[i] = v[i];
  }
  return t;
}

double At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32: return t.data<float>()[i];
    case DType::kFloat64: return t.data<double>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kBool: return t.data<bool>()[i] ? 1 : 0;
    case DType::kFloat16: return HalfToFloat(t.data<uint16_t>()[i]);
    case DType::kBFloat16: return BFloat16ToFloat(t.data<uint16_t>()[i]);
    case DType::kInt8: return t.data<int8_t>()[i];
    case DType::kUInt8: return t.data<uint8_t>()[i];
    case DType::kInt16: return t.data<int16_t>()[i];
    case DType::kUInt16: return t.data<uint16_t>()[i];
    case DType::kUInt32: return t.data<uint32_t>()[i];
    case DType::kUInt64: return static_cast<double>(t.data<uint64_t>()[i]);
    default: fail();
  }
  return 0;
}

Node* Placeholder(Graph& g, const std::string& name, DType dt) {
  return Op(g, "Placeholder", name, {}, "", {{"dtype", AttrValue::Type(dt)}});
}

// Runs op `name` of g fed with values, returning its output and where it ran.
Tensor RunOp(Graph& g, Node* node, const std::vector<Node*>& feeds, const std::vector<Tensor>& values,
             std::string* placed) {
  std::unique_ptr<DeviceSet> devices = DeviceSet::FromRegistry();
  std::vector<Output> feed_outputs;
  for (Node* f : feeds) feed_outputs.push_back({f, 0});
  RewriteOptions rewrites;
  rewrites.constant_folding = false;
  std::unique_ptr<Executor> exe;
  Status s = Executor::Create(g, feed_outputs, {{node, 0}}, {}, *devices, rewrites, &exe);
  if (!s.ok()) print_error("%s\n", s.message().c_str());
  assert_true(s.ok());
  const Device* d = exe->PlacementOf(node->name());
  *placed = d ? d->type() : "?";
  ResourceMgr resources;
  std::vector<Tensor> out;
  s = exe->Run(values, &resources, nullptr, &out, nullptr);
  if (!s.ok()) print_error("%s: %s\n", node->name().c_str(), s.message().c_str());
  assert_true(s.ok());
  return out[0];
}

void ExpectClose(const Tensor& got, const Tensor& want, double rtol, const std::string& what) {
  assert_int_equal(got.dtype(), want.dtype());
  assert_true(got.dims() == want.dims());
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    const double g = At(got, i), w = At(want, i);
    const bool ok = g == w || (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= rtol * (1 + std::fabs(w));
    if (!ok) {
      print_error("%s element %lld: OpenCL %.9g, CPU %.9g\n", what.c_str(), static_cast<long long>(i), g, w);
      fail();
    }
  }
}

// Runs the op on the OpenCL device and on the CPU and compares.
void Compare(const std::string& type, const std::vector<Tensor>& inputs, AttrMap attrs, double rtol,
             size_t list_n = 0) {
  const std::string device = OpenClDeviceName();
  std::string label = type + " " + DTypeName(inputs[0].dtype());
  for (const Tensor& t : inputs) label += " " + t.shape().ToString();
  Tensor results[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    Graph g;
    std::vector<Node*> feeds;
    std::vector<Output> ins;
    for (size_t i = 0; i < inputs.size(); ++i) {
      feeds.push_back(Placeholder(g, "in" + std::to_string(i), inputs[i].dtype()));
      ins.push_back({feeds.back(), 0});
    }
    Node* n = Op(g, type, "op", ins, on_device ? device : "", attrs, list_n);
    std::string placed;
    results[on_device] = RunOp(g, n, feeds, inputs, &placed);
    if (on_device && placed == "CPU") {
      print_error("%s ran on the CPU, not %s\n", label.c_str(), device.c_str());
      fail();
    }
  }
  ExpectClose(results[1], results[0], rtol, label);
}

void test_devices_found(void** state) {
  (void)state;
  const std::string name = OpenClDeviceName();
  if (name.empty()) {
    print_error("no OpenCL device: install an OpenCL driver, or PoCL (pocl-opencl-icd) for a CPU device\n");
    fail();
  }
  std::unique_ptr<DeviceSet> set = DeviceSet::FromRegistry();
  const Device* d = set->Find(name.find("GPU") != std::string::npos ? "GPU" : "OPENCL", 0);
  const DeviceDescription desc = d->Describe();
  print_message("%s: %s (%s), %lld MiB, %lld compute units\n", d->name().c_str(), desc.model.c_str(),
                desc.vendor.c_str(), static_cast<long long>(desc.memory_bytes >> 20),
                static_cast<long long>(desc.compute_units));
  assert_false(desc.model.empty());
  assert_true(desc.memory_bytes > 0);
  assert_true(desc.compute_units > 0);
}

void test_elementwise_agree_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(7);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{1000}, {1000}}, {{3, 4}, {}}, {{}, {5}}, {{3, 4}, {4}}, {{2, 1, 3}, {1, 4, 1}}, {{0, 3}, {3}}, {{7}, {1}}};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
    AttrMap t = {{"T", AttrValue::Type(dt)}};
    for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"}) {
      for (const auto& [sa, sb] : shapes) {
        Compare(op, {Random(dt, sa, rng, -2, 2), Random(dt, sb, rng, 0.5, 2)}, t, tol);
      }
    }
    Compare("Pow", {Random(dt, {64}, rng, 0.1, 3), Random(dt, {64}, rng, -2, 2)}, t, dt == DType::kFloat32 ? 1e-5 : 1e-12);
    // Transcendentals: OpenCL's float precision is a few ulps (the CPU's too).
    const double ftol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
    for (const char* op : {"Neg", "Abs", "Square", "Relu", "Relu6", "Tanh", "Sigmoid", "Exp", "Sin", "Cos"}) {
      Compare(op, {Random(dt, {257}, rng, -8, 8)}, t, ftol);
      Compare(op, {Random(dt, {0}, rng, -8, 8)}, t, ftol);
    }
    for (const char* op : {"Log", "Sqrt", "Rsqrt"}) Compare(op, {Random(dt, {100}, rng, 0.01, 10)}, t, ftol);
  }
}

void test_matmul_agrees_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(11);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat32 ? 1e-4 : 1e-11;
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        AttrMap a = {{"T", AttrValue::Type(dt)}, {"transpose_a", AttrValue::Bool(ta)},
                     {"transpose_b", AttrValue::Bool(tb)}};
        const int64_t m = 33, k = 17, n = 65;
        Compare("MatMul", {Random(dt, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, rng, -1, 1),
                           Random(dt, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, rng, -1, 1)},
                a, tol);
      }
    }
    AttrMap b = {{"T", AttrValue::Type(dt)}, {"adj_x", AttrValue::Bool(false)}, {"adj_y", AttrValue::Bool(true)}};
    Compare("BatchMatMulV2", {Random(dt, {2, 3, 5, 4}, rng, -1, 1), Random(dt, {3, 6, 4}, rng, -1, 1)}, b, tol);
    AttrMap plain = {{"T", AttrValue::Type(dt)}, {"transpose_a", AttrValue::Bool(false)},
                     {"transpose_b", AttrValue::Bool(false)}};
    Compare("MatMul", {Random(dt, {4, 0}, rng, -1, 1), Random(dt, {0, 3}, rng, -1, 1)}, plain, tol);  // zeros
  }
}

// Integer arithmetic (shape arithmetic): exact, wrapping as the CPU's.
void test_integer_elementwise_agree_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(5);
  for (DType dt : {DType::kInt32, DType::kInt64}) {
    AttrMap t = {{"T", AttrValue::Type(dt)}};
    for (const char* op : {"AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"}) {
      Compare(op, {Random(dt, {3, 4}, rng, -100, 100), Random(dt, {4}, rng, -100, 100)}, t, 0);
      Compare(op, {Random(dt, {50}, rng, -1000, 1000), Random(dt, {50}, rng, -1000, 1000)}, t, 0);
    }
    for (const char* op : {"Neg", "Abs", "Square"}) Compare(op, {Random(dt, {33}, rng, -100, 100)}, t, 0);
  }
}

// Softmax/LogSoftmax (1e-5 float32, 1e-12 float64), BiasAdd (exact but for rounding: same
// tolerances), the activations' gradients, BiasAddGrad (a sum: 1e-4 float32, 1e-11 float64).
void test_nn_agree_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(13);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const bool f32 = dt == DType::kFloat32;
    const double tol = f32 ? 1e-5 : 1e-12, sum_tol = f32 ? 1e-4 : 1e-11;
    AttrMap t = {{"T", AttrValue::Type(dt)}};
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 5}, {2, 3, 100}, {1, 1000}, {7}, {4, 0}, {0, 3}}) {
        Compare(op, {Random(dt, shape, rng, -10, 10)}, t, tol);
      }
    }
    for (const char* format : {"NHWC", "NCHW"}) {
      AttrMap b = {{"T", AttrValue::Type(dt)}, {"data_format", AttrValue::String(format)}};
      const bool nchw = std::string(format) == "NCHW";
      Compare("BiasAdd", {Random(dt, nchw ? std::vector<int64_t>{2, 5, 3, 4} : std::vector<int64_t>{2, 3, 4, 5}, rng, -1, 1),
                          Random(dt, {5}, rng, -1, 1)},
              b, tol);
      Compare("BiasAdd", {Random(dt, {7, 3}, rng, -1, 1), Random(dt, {3}, rng, -1, 1)}, b, tol);
      Compare("BiasAddGrad", {Random(dt, nchw ? std::vector<int64_t>{2, 5, 3, 4} : std::vector<int64_t>{2, 3, 4, 5}, rng, -1, 1)},
              b, sum_tol);
      Compare("BiasAddGrad", {Random(dt, {3000, 16}, rng, -1, 1)}, b, sum_tol);  // chunked
      Compare("BiasAddGrad", {Random(dt, {0, 4}, rng, -1, 1)}, b, sum_tol);
    }
    for (const char* op : {"ReluGrad", "Relu6Grad"}) {
      Compare(op, {Random(dt, {100}, rng, -2, 2), Random(dt, {100}, rng, -8, 8)}, t, tol);
    }
    for (const char* op : {"SigmoidGrad", "TanhGrad"}) {
      Compare(op, {Random(dt, {100}, rng, -1, 1), Random(dt, {100}, rng, -2, 2)}, t, tol);
    }
  }
}

// Sum/Mean/Prod: 1e-4 float32 (the CPU accumulates float32 in float64), 1e-11 float64;
// Max/Min exact. Axes as int32 and int64, negative, empty, all; keep_dims; few outputs of many
// elements (the two-launch path); an empty reduction (identities, NaN for Mean).
void test_reductions_agree_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(17);
  struct Case {
    std::vector<int64_t> shape, axes;
  };
  const std::vector<Case> cases = {{{2, 3, 4}, {1}},       {{2, 3, 4}, {0, 2}},  {{2, 3, 4}, {}},
                                   {{2, 3, 4}, {-1}},      {{2, 3, 4}, {0, 1, 2}}, {{10000}, {0}},
                                   {{4, 3000}, {1}},       {{3000, 4}, {0}},     {{5, 7, 300}, {0, 2}},
                                   {{0, 3}, {0}},          {{3, 0}, {1}},        {{}, {}}};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat32 ? 1e-4 : 1e-11;
    for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
      const bool prod = std::string(op) == "Prod";
      const bool exact = std::string(op) == "Max" || std::string(op) == "Min";
      for (bool keep : {false, true}) {
        for (size_t c = 0; c < cases.size(); ++c) {
          const DType it = c % 2 ? DType::kInt64 : DType::kInt32;
          AttrMap a = {{"T", AttrValue::Type(dt)}, {"Tidx", AttrValue::Type(it)}, {"keep_dims", AttrValue::Bool(keep)}};
          Tensor x = prod ? Random(dt, cases[c].shape, rng, 0.999, 1.001) : Random(dt, cases[c].shape, rng, -1, 1);
          Compare(op, {x, Ints(cases[c].axes, it)}, a, exact ? 0 : tol);
        }
      }
    }
  }
}

// Data movement is exact, Cast too (floats to integers truncate; float16 rounds to nearest).
void test_data_movement_agrees_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(19);
  // On the device: any two of the first five, float16 and any of them but float64; the rest
  // (float64 <-> float16, 8/16-bit integers, bfloat16, uint32/64) through the CPU's Cast.
  const DType types[] = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64,  DType::kBool,
                         DType::kFloat16, DType::kInt8,    DType::kUInt8, DType::kUInt32, DType::kBFloat16};
  for (DType src : types) {
    for (DType dst : types) {
      AttrMap a = {{"SrcT", AttrValue::Type(src)}, {"DstT", AttrValue::Type(dst)}, {"Truncate", AttrValue::Bool(false)}};
      Compare("Cast", {Random(src, {101}, rng, -100, 100)}, a, 0);
      Compare("Cast", {Random(src, {0}, rng, -100, 100)}, a, 0);
    }
  }
  // Moved by element size: every size, the 16-bit floats too.
  const DType moved[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,    DType::kInt64,
                         DType::kBool,    DType::kFloat16, DType::kBFloat16, DType::kInt8,
                         DType::kUInt8,   DType::kInt16,   DType::kUInt16};
  for (DType dt : moved) {
    AttrMap t = {{"T", AttrValue::Type(dt)}};
    for (DType it : {DType::kInt32, DType::kInt64}) {
      AttrMap tp = {{"T", AttrValue::Type(dt)}, {"Tperm", AttrValue::Type(it)}};
      Compare("Transpose", {Random(dt, {3, 4}, rng, -9, 9), Ints({1, 0}, it)}, tp, 0);
      Compare("Transpose", {Random(dt, {2, 3, 4, 5}, rng, -9, 9), Ints({3, 1, 0, 2}, it)}, tp, 0);
      Compare("Transpose", {Random(dt, {2, 1, 3, 2, 2, 1, 2, 3}, rng, -9, 9), Ints({7, 6, 5, 4, 3, 2, 1, 0}, it)}, tp, 0);
      Compare("Transpose", {Random(dt, {5}, rng, -9, 9), Ints({0}, it)}, tp, 0);
      Compare("Transpose", {Random(dt, {0, 3}, rng, -9, 9), Ints({1, 0}, it)}, tp, 0);
      AttrMap sl = {{"T", AttrValue::Type(dt)}, {"Index", AttrValue::Type(it)}};
      Compare("Slice", {Random(dt, {4, 5, 6}, rng, -9, 9), Ints({1, 0, 2}, it), Ints({2, -1, 3}, it)}, sl, 0);
      Compare("Slice", {Random(dt, {4, 5}, rng, -9, 9), Ints({0, 5}, it), Ints({4, 0}, it)}, sl, 0);
      AttrMap ga = {{"Tparams", AttrValue::Type(dt)}, {"Tindices", AttrValue::Type(it)},
                    {"Taxis", AttrValue::Type(DType::kInt32)}, {"batch_dims", AttrValue::Int(0)}};
      Compare("GatherV2", {Random(dt, {10, 3}, rng, -9, 9), Random(it, {4, 2}, rng, 0, 10), Ints({0}, DType::kInt32, true)},
              ga, 0);
      Compare("GatherV2", {Random(dt, {2, 6, 3}, rng, -9, 9), Random(it, {5}, rng, 0, 6), Ints({-2}, DType::kInt32, true)},
              ga, 0);
      AttrMap gb = ga;
      gb["batch_dims"] = AttrValue::Int(1);
      Compare("GatherV2", {Random(dt, {2, 6, 3}, rng, -9, 9), Random(it, {2, 4}, rng, 0, 6), Ints({1}, DType::kInt32, true)},
              gb, 0);
      AttrMap fa = {{"T", AttrValue::Type(dt)}, {"index_type", AttrValue::Type(it)}};
      Compare("Fill", {Ints({2, 3, 4}, it), Random(dt, {}, rng, -9, 9)}, fa, 0);
      Compare("Fill", {Ints({0, 3}, it), Random(dt, {}, rng, -9, 9)}, fa, 0);
    }
    for (int n : {2, 3}) {
      for (int64_t axis : {0, 1, -1}) {
        AttrMap ca = {{"T", AttrValue::Type(dt)}, {"N", AttrValue::Int(n)}, {"Tidx", AttrValue::Type(DType::kInt32)}};
        std::vector<Tensor> ins;
        for (int i = 0; i < n; ++i) {
          std::vector<int64_t> dims = {3, 4, 2};
          dims[static_cast<size_t>(axis < 0 ? axis + 3 : axis)] = i + 1;
          ins.push_back(Random(dt, dims, rng, -9, 9));
        }
        ins.push_back(Ints({axis}, DType::kInt32, true));
        Compare("ConcatV2", ins, ca, 0, static_cast<size_t>(n));
      }
    }
    struct SS {
      std::vector<int64_t> shape, begin, end, strides;
      int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
    };
    const SS ss[] = {
        {{5, 6}, {1, 0}, {4, 6}, {1, 2}, 0, 0, 0, 0, 0},
        {{5, 6}, {-1, 5}, {0, 0}, {-1, -2}, 0, 0, 0, 0, 0},
        {{5, 6, 7}, {0, 2}, {0, 5}, {1, 1}, 1, 1, 0, 0, 0},
        {{5, 6, 7}, {2}, {3}, {1}, 0, 0, 0, 0, 1},
        {{5, 6, 7}, {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2},
        {{5, 6}, {0, 0, 1}, {0, 0, 4}, {1, 1, 1}, 0, 0, 0, 2, 0},
        {{4, 4}, {5}, {9}, {1}, 0, 0, 0, 0, 0},
    };
    for (const SS& c : ss) {
      AttrMap a = {{"T", AttrValue::Type(dt)},
                   {"Index", AttrValue::Type(DType::kInt32)},
                   {"begin_mask", AttrValue::Int(c.begin_mask)},
                   {"end_mask", AttrValue::Int(c.end_mask)},
                   {"ellipsis_mask", AttrValue::Int(c.ellipsis_mask)},
                   {"new_axis_mask", AttrValue::Int(c.new_axis_mask)},
                   {"shrink_axis_mask", AttrValue::Int(c.shrink_axis_mask)}};
      Compare("StridedSlice", {Random(dt, c.shape, rng, -9, 9), Ints(c.begin), Ints(c.end), Ints(c.strides)}, a, 0);
    }
    // Views of the input's device buffer under other dims (the CPU's kernels).
    AttrMap rs = {{"T", AttrValue::Type(dt)}, {"Tshape", AttrValue::Type(DType::kInt32)}};
    Compare("Reshape", {Random(dt, {3, 4, 2}, rng, -9, 9), Ints({4, -1})}, rs, 0);
    Compare("Reshape", {Random(dt, {0, 4}, rng, -9, 9), Ints({2, 0, 3})}, rs, 0);
    AttrMap ed = {{"T", AttrValue::Type(dt)}, {"Tdim", AttrValue::Type(DType::kInt64)}};
    Compare("ExpandDims", {Random(dt, {3, 4}, rng, -9, 9), Ints({-1}, DType::kInt64, true)}, ed, 0);
    AttrMap sq = {{"T", AttrValue::Type(dt)}, {"squeeze_dims", AttrValue::IntList({0, 2})}};
    Compare("Squeeze", {Random(dt, {1, 4, 1, 3}, rng, -9, 9)}, sq, 0);
    Compare("Identity", {Random(dt, {5, 2}, rng, -9, 9)}, t, 0);
    Compare("ZerosLike", {Random(dt, {3, 7}, rng, -9, 9)}, t, 0);
    Compare("OnesLike", {Random(dt, {3, 7}, rng, -9, 9)}, t, 0);
    Compare("OnesLike", {Random(dt, {0}, rng, -9, 9)}, t, 0);
  }
}

// Conv2D: 1e-4 float32 (a GEMM), 1e-11 float64.
void test_conv2d_agrees_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(23);
  struct Case {
    std::vector<int64_t> x, f, strides, dilations;
    std::string padding;
  };
  const Case cases[] = {
      {{2, 9, 9, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
      {{2, 9, 9, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"},
      {{1, 10, 8, 2}, {3, 2, 2, 5}, {1, 2, 3, 1}, {1, 1, 1, 1}, "SAME"},
      {{1, 10, 8, 2}, {3, 2, 2, 5}, {1, 2, 3, 1}, {1, 1, 1, 1}, "VALID"},
      {{2, 11, 11, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME"},
      {{2, 11, 11, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, {1, 2, 3, 1}, "VALID"},
      {{3, 5, 6, 4}, {1, 1, 4, 7}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"},
      {{1, 6, 6, 2}, {7, 7, 2, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
      {{2, 5, 5, 4}, {3, 3, 2, 6}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},  // grouped: the CPU's kernel
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat32 ? 1e-4 : 1e-11;
    for (const Case& c : cases) {
      AttrMap a = {{"T", AttrValue::Type(dt)},
                   {"strides", AttrValue::IntList(c.strides)},
                   {"dilations", AttrValue::IntList(c.dilations)},
                   {"padding", AttrValue::String(c.padding)},
                   {"data_format", AttrValue::String("NHWC")},
                   {"use_cudnn_on_gpu", AttrValue::Bool(true)},
                   {"explicit_paddings", AttrValue::IntList({})}};
      Compare("Conv2D", {Random(dt, c.x, rng, -1, 1), Random(dt, c.f, rng, -1, 1)}, a, tol);
      // The gradients: out_backprop has Conv2D's output dims.
      std::vector<int64_t> dy = {c.x[0], 0, 0, c.f[3]};
      for (int d = 1; d <= 2; ++d) {
        const int64_t eff = (c.f[static_cast<size_t>(d - 1)] - 1) * c.dilations[static_cast<size_t>(d)] + 1;
        const int64_t in = c.x[static_cast<size_t>(d)], stride = c.strides[static_cast<size_t>(d)];
        dy[static_cast<size_t>(d)] = c.padding == "SAME" ? (in + stride - 1) / stride : (in - eff + stride) / stride;
      }
      Compare("Conv2DBackpropInput", {Ints(c.x), Random(dt, c.f, rng, -1, 1), Random(dt, dy, rng, -1, 1)}, a, tol);
      Compare("Conv2DBackpropFilter", {Random(dt, c.x, rng, -1, 1), Ints(c.f), Random(dt, dy, rng, -1, 1)}, a, tol);
    }
    // NCHW, and EXPLICIT padding.
    AttrMap nchw = {{"T", AttrValue::Type(dt)},
                    {"strides", AttrValue::IntList({1, 1, 2, 1})},
                    {"dilations", AttrValue::IntList({1, 1, 1, 2})},
                    {"padding", AttrValue::String("SAME")},
                    {"data_format", AttrValue::String("NCHW")},
                    {"use_cudnn_on_gpu", AttrValue::Bool(true)},
                    {"explicit_paddings", AttrValue::IntList({})}};
    Compare("Conv2D", {Random(dt, {2, 3, 9, 8}, rng, -1, 1), Random(dt, {3, 3, 3, 4}, rng, -1, 1)}, nchw, tol);
    AttrMap ex = {{"T", AttrValue::Type(dt)},
                  {"strides", AttrValue::IntList({1, 2, 1, 1})},
                  {"dilations", AttrValue::IntList({1, 1, 1, 1})},
                  {"padding", AttrValue::String("EXPLICIT")},
                  {"data_format", AttrValue::String("NHWC")},
                  {"use_cudnn_on_gpu", AttrValue::Bool(true)},
                  {"explicit_paddings", AttrValue::IntList({0, 0, 1, 2, 0, 3, 0, 0})}};
    Compare("Conv2D", {Random(dt, {1, 7, 6, 2}, rng, -1, 1), Random(dt, {3, 2, 2, 3}, rng, -1, 1)}, ex, tol);
    // out [1, 5, 9, 3]: rows (7 + 1 + 2 - 3) / 2 + 1, cols 6 + 3 - 2 + 1.
    Compare("Conv2DBackpropInput",
            {Ints({1, 7, 6, 2}), Random(dt, {3, 2, 2, 3}, rng, -1, 1), Random(dt, {1, 4, 8, 3}, rng, -1, 1)}, ex, tol);
    Compare("Conv2DBackpropFilter",
            {Random(dt, {1, 7, 6, 2}, rng, -1, 1), Ints({3, 2, 2, 3}), Random(dt, {1, 4, 8, 3}, rng, -1, 1)}, ex, tol);
    // A batch of images larger than one patch-matrix batch (64 Mi elements): not here; empty
    // batches and filters give zeros.
    AttrMap same = ex;
    same["padding"] = AttrValue::String("SAME");
    same["explicit_paddings"] = AttrValue::IntList({});
    Compare("Conv2DBackpropFilter",
            {Random(dt, {0, 7, 6, 2}, rng, -1, 1), Ints({3, 2, 2, 3}), Random(dt, {0, 4, 6, 3}, rng, -1, 1)}, same, tol);
    Compare("Conv2DBackpropInput",
            {Ints({1, 7, 6, 2}), Random(dt, {3, 2, 2, 0}, rng, -1, 1), Random(dt, {1, 4, 6, 0}, rng, -1, 1)}, same, tol);
  }
}

// Pooling and its gradients: exact (the same sums in the same order as the CPU's kernels);
// MaxPoolGrad with ties (the first maximum takes the gradient).
void test_pooling_agrees_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(31);
  struct Case {
    std::vector<int64_t> x, ksize, strides;
    std::string padding;
  };
  const Case cases[] = {
      {{2, 8, 8, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {{2, 9, 7, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {{1, 10, 9, 2}, {1, 3, 2, 1}, {1, 1, 3, 1}, "VALID"},
      {{1, 5, 5, 4}, {1, 4, 4, 1}, {1, 1, 1, 1}, "SAME"},
      {{1, 6, 6, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME"},
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (const Case& c : cases) {
      AttrMap a = {{"T", AttrValue::Type(dt)},
                   {"ksize", AttrValue::IntList(c.ksize)},
                   {"strides", AttrValue::IntList(c.strides)},
                   {"padding", AttrValue::String(c.padding)},
                   {"data_format", AttrValue::String("NHWC")}};
      std::vector<int64_t> out = {c.x[0], 0, 0, c.x[3]};
      for (size_t d = 1; d <= 2; ++d) {
        out[d] = c.padding == "SAME" ? (c.x[d] + c.strides[d] - 1) / c.strides[d]
                                     : (c.x[d] - c.ksize[d] + c.strides[d]) / c.strides[d];
      }
      Tensor x = Random(dt, c.x, rng, -1, 1);
      Compare("MaxPool", {x}, a, 0);
      Compare("AvgPool", {x}, a, 0);
      // Few distinct values: windows with several maxima.
      Tensor ties = Random(dt, c.x, rng, 0, 3);
      for (int64_t i = 0; i < ties.num_elements(); ++i) {
        if (dt == DType::kFloat32) ties.data<float>()[i] = std::floor(ties.data<float>()[i]);
        else ties.data<double>()[i] = std::floor(ties.data<double>()[i]);
      }
      Compare("MaxPoolGrad", {ties, Random(dt, out, rng, -1, 1), Random(dt, out, rng, -1, 1)}, a, 0);
      Compare("MaxPoolGrad", {x, Random(dt, out, rng, -1, 1), Random(dt, out, rng, -1, 1)}, a, 0);
      Compare("AvgPoolGrad", {Ints(c.x), Random(dt, out, rng, -1, 1)}, a, 0);
    }
    // NCHW: the CPU's kernel on host copies, the same result.
    AttrMap nchw = {{"T", AttrValue::Type(dt)},
                    {"ksize", AttrValue::IntList({1, 1, 2, 2})},
                    {"strides", AttrValue::IntList({1, 1, 2, 2})},
                    {"padding", AttrValue::String("VALID")},
                    {"data_format", AttrValue::String("NCHW")}};
    Compare("MaxPool", {Random(dt, {1, 3, 6, 6}, rng, -1, 1)}, nchw, 0);
  }
}

// float16 and bfloat16 compute in float32 on both devices (widened, rounded back to nearest
// even): equal but where float32 transcendentals differ by an ulp across the rounding point
// (1e-3 float16, 1e-2 bfloat16: about two of their ulps).
void test_16bit_floats_agree_with_cpu(void** state) {
  (void)state;
  std::mt19937 rng(29);
  for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
    const double tol = dt == DType::kFloat16 ? 1e-3 : 1e-2;
    AttrMap t = {{"T", AttrValue::Type(dt)}};
    for (const char* op : {"AddV2", "Mul", "RealDiv", "Maximum", "SquaredDifference"}) {
      Compare(op, {Random(dt, {3, 4}, rng, -2, 2), Random(dt, {4}, rng, 0.5, 2)}, t, tol);
    }
    for (const char* op : {"Relu", "Tanh", "Exp", "Sigmoid", "Neg"}) Compare(op, {Random(dt, {100}, rng, -4, 4)}, t, tol);
    Compare("ReluGrad", {Random(dt, {50}, rng, -2, 2), Random(dt, {50}, rng, -2, 2)}, t, tol);
    Compare("Softmax", {Random(dt, {4, 30}, rng, -4, 4)}, t, tol);
    Compare("LogSoftmax", {Random(dt, {4, 30}, rng, -4, 4)}, t, tol);
    AttrMap b = {{"T", AttrValue::Type(dt)}, {"data_format", AttrValue::String("NHWC")}};
    Compare("BiasAdd", {Random(dt, {6, 5}, rng, -1, 1), Random(dt, {5}, rng, -1, 1)}, b, tol);
    Compare("BiasAddGrad", {Random(dt, {60, 5}, rng, -1, 1)}, b, tol);
    for (const char* op : {"Sum", "Mean", "Max"}) {
      AttrMap a = {{"T", AttrValue::Type(dt)}, {"Tidx", AttrValue::Type(DType::kInt32)},
                   {"keep_dims", AttrValue::Bool(false)}};
      Compare(op, {Random(dt, {5, 40}, rng, -1, 1), Ints({1})}, a, tol);
    }
    AttrMap mm = {{"T", AttrValue::Type(dt)}, {"transpose_a", AttrValue::Bool(false)},
                  {"transpose_b", AttrValue::Bool(false)}};
    Compare("MatMul", {Random(dt, {8, 16}, rng, -1, 1), Random(dt, {16, 4}, rng, -1, 1)}, mm, tol);
    AttrMap conv = {{"T", AttrValue::Type(dt)},
                    {"strides", AttrValue::IntList({1, 1, 1, 1})},
                    {"dilations", AttrValue::IntList({1, 1, 1, 1})},
                    {"padding", AttrValue::String("SAME")},
                    {"data_format", AttrValue::String("NHWC")},
                    {"use_cudnn_on_gpu", AttrValue::Bool(true)},
                    {"explicit_paddings", AttrValue::IntList({})}};
    Compare("Conv2D", {Random(dt, {1, 6, 6, 2}, rng, -1, 1), Random(dt, {3, 3, 2, 3}, rng, -1, 1)}, conv, tol);
  }
}

// A chain across devices: MatMul on OpenCL, Relu on OpenCL, a CPU-only op between, AddV2 back on
// OpenCL; the result is the CPU's.
void test_mixed_graph(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  std::mt19937 rng(3);
  Tensor x = Random(DType::kFloat32, {8, 16}, rng, -1, 1), w = Random(DType::kFloat32, {16, 4}, rng, -1, 1);
  Tensor results[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    const std::string dev = on_device ? device : "";
    Graph g;
    Node* px = Placeholder(g, "x", DType::kFloat32);
    Node* pw = Placeholder(g, "w", DType::kFloat32);
    AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
    AttrMap mm = {{"T", AttrValue::Type(DType::kFloat32)}, {"transpose_a", AttrValue::Bool(false)},
                  {"transpose_b", AttrValue::Bool(false)}};
    Node* y = Op(g, "MatMul", "y", {{px, 0}, {pw, 0}}, dev, mm);
    Node* r = Op(g, "Relu", "r", {{y, 0}}, dev, t);
    Node* s = Op(g, "Softplus", "s", {{r, 0}}, dev, t);  // no OpenCL kernel: the CPU, with copies
    Node* out = Op(g, "AddV2", "out", {{s, 0}, {y, 0}}, dev, t);
    std::string placed;
    results[on_device] = RunOp(g, out, {px, pw}, {x, w}, &placed);
  }
  ExpectClose(results[1], results[0], 1e-5, "mixed graph");
}

// The small inputs that shape a result (Reshape's sizes, Transpose's perm, Sum's axes, here
// constants on the CPU) stay in host memory: a chain of device ops waits for the device once,
// for its fetch, and a reshape is a view of its input's buffer (no kernel, no copy); a Shape
// there gives its values in host memory (no copy of its input).
void test_shape_inputs_stay_on_the_host(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  opencl::OpenClDevice* ocl = TheOpenClDevice();
  std::mt19937 rng(29);
  Tensor x = Random(DType::kFloat32, {6, 8}, rng, -1, 1), w = Random(DType::kFloat32, {8, 4}, rng, -1, 1);
  Tensor results[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    const std::string dev = on_device ? device : "";
    Graph g;
    Node* px = Placeholder(g, "x", DType::kFloat32);
    Node* pw = Placeholder(g, "w", DType::kFloat32);
    auto constant = [&](const std::string& name, std::vector<int64_t> v) {
      return Op(g, "Const", name, {}, "", {{"dtype", AttrValue::Type(DType::kInt32)}, {"value", AttrValue::TensorValue(Ints(v))}});
    };
    AttrMap f = {{"T", AttrValue::Type(DType::kFloat32)}};
    AttrMap mm = {{"T", AttrValue::Type(DType::kFloat32)}, {"transpose_a", AttrValue::Bool(false)},
                  {"transpose_b", AttrValue::Bool(false)}};
    Node* y = Op(g, "MatMul", "y", {{px, 0}, {pw, 0}}, dev, mm);
    Node* r = Op(g, "Reshape", "r", {{y, 0}, {constant("shape", {3, 2, 4}), 0}}, dev,
                 {{"T", AttrValue::Type(DType::kFloat32)}, {"Tshape", AttrValue::Type(DType::kInt32)}});
    Node* t = Op(g, "Transpose", "t", {{r, 0}, {constant("perm", {2, 0, 1}), 0}}, dev,
                 {{"T", AttrValue::Type(DType::kFloat32)}, {"Tperm", AttrValue::Type(DType::kInt32)}});
    Node* sum = Op(g, "Sum", "sum", {{t, 0}, {constant("axes", {1}), 0}}, dev,
                   {{"T", AttrValue::Type(DType::kFloat32)}, {"Tidx", AttrValue::Type(DType::kInt32)},
                    {"keep_dims", AttrValue::Bool(false)}});
    Node* out = Op(g, "Relu", "out", {{sum, 0}}, dev, f);
    // Shape on the device reads only dims; its output is made in host memory.
    Node* shape = Op(g, "Shape", "shape_of_t", {{t, 0}}, dev,
                     {{"T", AttrValue::Type(DType::kFloat32)}, {"out_type", AttrValue::Type(DType::kInt64)}});
    std::unique_ptr<DeviceSet> devices = DeviceSet::FromRegistry();
    RewriteOptions rewrites;
    rewrites.constant_folding = false;
    std::unique_ptr<Executor> exe;
    assert_true(Executor::Create(g, {{px, 0}, {pw, 0}}, {{out, 0}, {shape, 0}}, {}, *devices, rewrites, &exe).ok());
    if (on_device) {
      for (const char* name : {"y", "r", "t", "sum", "out", "shape_of_t"}) {
        assert_string_equal(exe->PlacementOf(name)->type().c_str(), ocl->type().c_str());
      }
    }
    ResourceMgr resources;
    std::vector<Tensor> fetched;
    const uint64_t reads = ocl->cl().host_reads(), enqueues = ocl->cl().kernel_enqueues();
    Status s = exe->Run({x, w}, &resources, nullptr, &fetched, nullptr);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
    const uint64_t waited = ocl->cl().host_reads() - reads, enqueued = ocl->cl().kernel_enqueues() - enqueues;
    print_message("%s: %llu waits, %llu enqueues\n", on_device ? device.c_str() : "CPU",
                  static_cast<unsigned long long>(waited), static_cast<unsigned long long>(enqueued));
    // MatMul, Transpose, Sum, Relu; the Reshape none; one wait, for the fetch.
    assert_int_equal(waited, on_device ? 1 : 0);
    assert_int_equal(enqueued, on_device ? 4 : 0);
    results[on_device] = fetched[0];
    assert_int_equal(fetched[1].num_elements(), 3);
    assert_int_equal(fetched[1].data<int64_t>()[0], 4);
    assert_int_equal(fetched[1].data<int64_t>()[2], 2);
  }
  ExpectClose(results[1], results[0], 1e-5, "MatMul-Reshape-Transpose-Sum-Relu");
}

// A constant read by a device op crosses to the device once per executor (the first run), not
// at every run; fed values cross at every run.
void test_constants_cross_once(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  opencl::OpenClDevice* ocl = TheOpenClDevice();
  std::mt19937 rng(41);
  Graph g;
  Node* px = Placeholder(g, "x", DType::kFloat32);
  Node* w = Op(g, "Const", "w", {}, "",
               {{"dtype", AttrValue::Type(DType::kFloat32)},
                {"value", AttrValue::TensorValue(Random(DType::kFloat32, {8, 4}, rng, -1, 1))}});
  AttrMap mm = {{"T", AttrValue::Type(DType::kFloat32)}, {"transpose_a", AttrValue::Bool(false)},
                {"transpose_b", AttrValue::Bool(false)}};
  Node* y = Op(g, "MatMul", "y", {{px, 0}, {w, 0}}, device, mm);
  std::unique_ptr<DeviceSet> devices = DeviceSet::FromRegistry();
  RewriteOptions rewrites;
  rewrites.constant_folding = false;
  std::unique_ptr<Executor> exe;
  assert_true(Executor::Create(g, {{px, 0}}, {{y, 0}}, {}, *devices, rewrites, &exe).ok());
  ResourceMgr resources;
  uint64_t writes[3];
  Tensor results[3];
  for (int run = 0; run < 3; ++run) {
    const uint64_t before = ocl->cl().device_writes();
    std::vector<Tensor> out;
    assert_true(exe->Run({Random(DType::kFloat32, {2, 8}, rng, -1, 1)}, &resources, nullptr, &out, nullptr).ok());
    writes[run] = ocl->cl().device_writes() - before;
  }
  print_message("copies to the device per run: %llu, %llu, %llu\n", static_cast<unsigned long long>(writes[0]),
                static_cast<unsigned long long>(writes[1]), static_cast<unsigned long long>(writes[2]));
  assert_int_equal(writes[0], 2);  // x and w
  assert_int_equal(writes[1], 1);  // x
  assert_int_equal(writes[2], 1);
}

// A CNN's gradients with the session's default device the OpenCL device: Conv2D, BiasAdd,
// Relu, MaxPool and their gradient ops (Conv2DBackpropInput/Filter, BiasAddGrad, ReluGrad,
// MaxPoolGrad) run there, and the gradients are the CPU's.
void test_cnn_gradients_on_the_device(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  std::mt19937 rng(37);
  const Tensor x = Random(DType::kFloat32, {2, 8, 8, 3}, rng, -1, 1), w = Random(DType::kFloat32, {3, 3, 3, 4}, rng, -1, 1),
               b = Random(DType::kFloat32, {4}, rng, -0.2, 0.2);
  std::vector<Tensor> results[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    Graph g;
    Node* px = Placeholder(g, "x", DType::kFloat32);
    Node* pw = Placeholder(g, "w", DType::kFloat32);
    Node* pb = Placeholder(g, "b", DType::kFloat32);
    AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
    Node* conv = Op(g, "Conv2D", "conv", {{px, 0}, {pw, 0}}, "",
                    {{"T", AttrValue::Type(DType::kFloat32)}, {"strides", AttrValue::IntList({1, 1, 1, 1})},
                     {"padding", AttrValue::String("SAME")}, {"data_format", AttrValue::String("NHWC")},
                     {"dilations", AttrValue::IntList({1, 1, 1, 1})}, {"use_cudnn_on_gpu", AttrValue::Bool(true)},
                     {"explicit_paddings", AttrValue::IntList({})}});
    Node* biased = Op(g, "BiasAdd", "biased", {{conv, 0}, {pb, 0}}, "",
                      {{"T", AttrValue::Type(DType::kFloat32)}, {"data_format", AttrValue::String("NHWC")}});
    Node* relu = Op(g, "Relu", "relu", {{biased, 0}}, "", t);
    Node* pool = Op(g, "MaxPool", "pool", {{relu, 0}}, "",
                    {{"T", AttrValue::Type(DType::kFloat32)}, {"ksize", AttrValue::IntList({1, 2, 2, 1})},
                     {"strides", AttrValue::IntList({1, 2, 2, 1})}, {"padding", AttrValue::String("VALID")},
                     {"data_format", AttrValue::String("NHWC")}});
    Node* sq = Op(g, "Square", "sq", {{pool, 0}}, "", t);
    Node* axes = Op(g, "Const", "axes", {}, "",
                    {{"dtype", AttrValue::Type(DType::kInt32)}, {"value", AttrValue::TensorValue(Ints({0, 1, 2, 3}))}});
    Node* loss = Op(g, "Sum", "loss", {{sq, 0}, {axes, 0}}, "",
                    {{"T", AttrValue::Type(DType::kFloat32)}, {"Tidx", AttrValue::Type(DType::kInt32)},
                     {"keep_dims", AttrValue::Bool(false)}});
    std::vector<std::optional<Output>> grads;
    Status s = AddGradients(g, {{loss, 0}}, {{px, 0}, {pw, 0}, {pb, 0}}, GradientsOptions{}, &grads);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
    std::vector<Output> fetches = {{loss, 0}};
    for (const auto& gr : grads) fetches.push_back(*gr);
    std::unique_ptr<DeviceSet> devices = DeviceSet::FromRegistry();
    RewriteOptions rewrites;
    PlacementPolicy policy;
    if (on_device) policy.default_device = device;
    std::unique_ptr<Executor> exe;
    s = Executor::Create(g, {{px, 0}, {pw, 0}, {pb, 0}}, fetches, {}, *devices, rewrites, &exe, &policy);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
    if (on_device) {
      int placed = 0;
      for (int64_t i = 0; i < g.num_nodes(); ++i) {
        const Node* n = g.NodeAt(i);
        const std::string& type = n->type();
        if (type == "Conv2DBackpropInput" || type == "Conv2DBackpropFilter" || type == "MaxPoolGrad" ||
            type == "ReluGrad" || type == "BiasAddGrad" || type == "Conv2D" || type == "MaxPool") {
          const Device* d = exe->PlacementOf(n->name());
          if (d == nullptr || d->type() == "CPU") {
            print_error("%s (%s) ran on the CPU\n", n->name().c_str(), type.c_str());
            fail();
          }
          ++placed;
        }
      }
      assert_true(placed >= 7);
    }
    ResourceMgr resources;
    s = exe->Run({x, w, b}, &resources, nullptr, &results[on_device], nullptr);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
  }
  const char* names[] = {"loss", "d loss / dx", "d loss / dw", "d loss / db"};
  for (size_t i = 0; i < 4; ++i) ExpectClose(results[1][i], results[0][i], 1e-4, names[i]);
}

void test_errors_name_the_op(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  Graph g;
  Node* a = Placeholder(g, "a", DType::kFloat32);
  Node* b = Placeholder(g, "b", DType::kFloat32);
  AttrMap mm = {{"T", AttrValue::Type(DType::kFloat32)}, {"transpose_a", AttrValue::Bool(false)},
                {"transpose_b", AttrValue::Bool(false)}};
  Node* n = Op(g, "MatMul", "bad_matmul", {{a, 0}, {b, 0}}, device, mm);
  std::unique_ptr<DeviceSet> devices = DeviceSet::FromRegistry();
  std::unique_ptr<Executor> exe;
  RewriteOptions rewrites;
  assert_true(Executor::Create(g, {{a, 0}, {b, 0}}, {{n, 0}}, {}, *devices, rewrites, &exe).ok());
  std::mt19937 rng(1);
  ResourceMgr resources;
  std::vector<Tensor> out;
  Status s = exe->Run({Random(DType::kFloat32, {2, 3}, rng, 0, 1), Random(DType::kFloat32, {4, 2}, rng, 0, 1)},
                      &resources, nullptr, &out, nullptr);
  assert_false(s.ok());
  print_message("%s\n", s.message().c_str());
  assert_non_null(std::strstr(s.message().c_str(), "bad_matmul"));
  assert_non_null(std::strstr(s.message().c_str(), "size-incompatible"));
}

// Eager ops asking for the device run there (their results back in host memory); ops without
// a kernel there, and ops asking for a device the process lacks, run on the CPU.
void test_eager_ops_on_the_device(void** state) {
  (void)state;
  const std::string device = OpenClDeviceName();
  eager::Context ctx;
  std::mt19937 rng(5);
  Tensor a = Random(DType::kFloat32, {4, 3}, rng, -1, 1), b = Random(DType::kFloat32, {3, 2}, rng, -1, 1);
  AttrMap mm = {{"T", AttrValue::Type(DType::kFloat32)}, {"transpose_a", AttrValue::Bool(false)},
                {"transpose_b", AttrValue::Bool(false)}};
  eager::OpCall call{"MatMul", "", {{{eager::Value::Concrete(a)}, false}, {{eager::Value::Concrete(b)}, false}}, mm,
                     device};
  const Device* placed = nullptr;
  assert_true(ctx.PlacementOf(call, &placed).ok());
  assert_string_equal(placed->type().c_str(), device.find("GPU") != std::string::npos ? "GPU" : "OPENCL");
  std::vector<eager::Value> on_device, on_cpu;
  assert_true(ctx.Execute(call, &on_device).ok());
  assert_non_null(on_device[0].tensor.raw_data());  // back in host memory
  call.device = "";
  assert_true(ctx.Execute(call, &on_cpu).ok());
  ExpectClose(on_device[0].tensor, on_cpu[0].tensor, 1e-5, "eager MatMul");
  // No OpenCL kernel (Softplus), or no such device: the CPU.
  eager::OpCall soft{"Softplus", "", {{{eager::Value::Concrete(a)}, false}}, {{"T", AttrValue::Type(DType::kFloat32)}},
                     device};
  assert_true(ctx.PlacementOf(soft, &placed).ok());
  assert_string_equal(placed->type().c_str(), "CPU");
  call.device = "/device:GPU:7";
  assert_true(ctx.PlacementOf(call, &placed).ok());
  assert_string_equal(placed->type().c_str(), "CPU");
}

// A SavedModel loaded in a session whose default device is the OpenCL device: the signature's
// function call places its body there (kernels are enqueued on the device), and the result is
// the CPU's.
void test_saved_model_on_the_device(void** state) {
  (void)state;
  const std::string dir = std::string(GRAFT_CONFORMANCE_DIR) + "/savedmodels/keras_export_mlp_tf221";
  if (!std::filesystem::exists(dir)) {
    print_message("%s not found: skipped (no ../shared/conformance)\n", dir.c_str());
    skip();
  }
  const std::string device = OpenClDeviceName();
  opencl::OpenClDevice* ocl = TheOpenClDevice();
  Tensor results[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    Graph g;
    SessionOptions options;
    options.num_threads = 1;
    if (on_device) options.placement.default_device = device;
    Session session(&g, options);
    std::unique_ptr<SavedModel> model;
    Status s = SavedModel::Load(dir, {}, &g, &session, &model);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
    const Signature* sig = model->FindSignature("serving_default");
    assert_non_null(sig);
    std::vector<int64_t> dims;
    for (int64_t d : sig->inputs[0].shape.dims()) dims.push_back(d < 0 ? 3 : d);
    std::mt19937 rng(17);
    Tensor x = Random(DType::kFloat32, dims, rng, -1, 1);
    const uint64_t before = ocl->cl().kernel_enqueues();
    std::vector<Tensor> out;
    s = model->Run("serving_default", {{sig->inputs[0].key, x}}, {}, &out);
    if (!s.ok()) print_error("%s\n", s.message().c_str());
    assert_true(s.ok());
    const uint64_t enqueued = ocl->cl().kernel_enqueues() - before;
    print_message("%s: %llu OpenCL enqueues\n", on_device ? device.c_str() : "CPU",
                  static_cast<unsigned long long>(enqueued));
    if (on_device) assert_true(enqueued >= 3);  // MatMuls, BiasAdds, activations at least
    else assert_int_equal(enqueued, 0);
    results[on_device] = out[0];
  }
  ExpectClose(results[1], results[0], 1e-5, "SavedModel MLP");
}

// The programs built above went to the on-disk cache (GRAFT_CACHE_DIR, set by main to a fresh
// directory), so the next process loads them instead of compiling.
void test_programs_cached_on_disk(void** state) {
  (void)state;
  const char* dir = std::getenv("GRAFT_CACHE_DIR");
  assert_non_null(dir);
  int binaries = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(dir) / "opencl")) {
    if (e.path().extension() == ".bin" && e.file_size() > 0) ++binaries;
  }
  print_message("%d program binaries cached in %s/opencl\n", binaries, dir);
  assert_true(binaries >= 2);  // elementwise and at least one more program
}

}  // namespace
}  // namespace graft

int main() {
  // A cache directory of this run's own, so that the test sees what it wrote.
  char cache[] = "/tmp/graft_opencl_cache_XXXXXX";
  if (mkdtemp(cache) == nullptr) return 1;
  setenv("GRAFT_CACHE_DIR", cache, 1);
  graft::capi::RegisterBuiltins();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(graft::test_devices_found),
      cmocka_unit_test(graft::test_elementwise_agree_with_cpu),
      cmocka_unit_test(graft::test_matmul_agrees_with_cpu),
      cmocka_unit_test(graft::test_integer_elementwise_agree_with_cpu),
      cmocka_unit_test(graft::test_nn_agree_with_cpu),
      cmocka_unit_test(graft::test_reductions_agree_with_cpu),
      cmocka_unit_test(graft::test_data_movement_agrees_with_cpu),
      cmocka_unit_test(graft::test_conv2d_agrees_with_cpu),
      cmocka_unit_test(graft::test_pooling_agrees_with_cpu),
      cmocka_unit_test(graft::test_16bit_floats_agree_with_cpu),
      cmocka_unit_test(graft::test_mixed_graph),
      cmocka_unit_test(graft::test_shape_inputs_stay_on_the_host),
      cmocka_unit_test(graft::test_constants_cross_once),
      cmocka_unit_test(graft::test_cnn_gradients_on_the_device),
      cmocka_unit_test(graft::test_errors_name_the_op),
      cmocka_unit_test(graft::test_eager_ops_on_the_device),
      cmocka_unit_test(graft::test_saved_model_on_the_device),
      cmocka_unit_test(graft::test_programs_cached_on_disk),
  };
  const int failed = cmocka_run_group_tests(tests, nullptr, nullptr);
  std::error_code ec;
  std::filesystem::remove_all(cache, ec);
  return failed;
}
