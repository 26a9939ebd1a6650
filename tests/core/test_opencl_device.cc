// The OpenCL device (kernels/opencl) on whatever OpenCL device the machine has — PoCL's CPU
// device where there is no GPU (CI installs pocl-opencl-icd): the devices are found and
// described; every op with an OpenCL kernel runs there (checked through the executor's
// placement) for several shapes and dtypes and agrees with the CPU kernels within the bound
// stated per op; broadcasting, empty tensors, batched and transposed matrix products; a graph
// with ops on both devices gives the CPU's result; device errors name the op; eager ops run
// on the device they ask for.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "c_api/src/composition_root.h"
#include "core/eager/context.h"
#include "core/graph.h"
#include "core/runtime/device_set.h"
#include "core/runtime/executor.h"
#include "core/runtime/resource_mgr.h"

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

Node* Op(Graph& g, const std::string& type, const std::string& name, std::vector<Output> inputs,
         const std::string& device, AttrMap attrs) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  for (const Output& o : inputs) spec.inputs.push_back(NodeSpec::InputArg{{o}, false});
  spec.attrs = std::move(attrs);
  spec.device = device;
  Node* n = nullptr;
  Status s = g.AddNode(std::move(spec), &n);
  if (!s.ok()) print_error("%s\n", s.message().c_str());
  assert_true(s.ok());
  return n;
}

Tensor Random(DType dt, std::vector<int64_t> dims, std::mt19937& rng, double lo, double hi) {
  Tensor t;
  assert_true(Tensor::Allocate(dt, dims, &t).ok());
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (dt == DType::kFloat32) t.data<float>()[i] = static_cast<float>(u(rng));
    else t.data<double>()[i] = u(rng);
  }
  return t;
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
    const double g = got.dtype() == DType::kFloat32 ? got.data<float>()[i] : got.data<double>()[i];
    const double w = want.dtype() == DType::kFloat32 ? want.data<float>()[i] : want.data<double>()[i];
    const bool ok = (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= rtol * (1 + std::fabs(w));
    if (!ok) {
      print_error("%s element %lld: OpenCL %.9g, CPU %.9g\n", what.c_str(), static_cast<long long>(i), g, w);
      fail();
    }
  }
}

// Runs the op on the OpenCL device and on the CPU and compares.
void Compare(const std::string& type, const std::vector<Tensor>& inputs, AttrMap attrs, double rtol) {
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
    Node* n = Op(g, type, "op", ins, on_device ? device : "", attrs);
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

}  // namespace
}  // namespace graft

int main() {
  graft::capi::RegisterBuiltins();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(graft::test_devices_found),
      cmocka_unit_test(graft::test_elementwise_agree_with_cpu),
      cmocka_unit_test(graft::test_matmul_agrees_with_cpu),
      cmocka_unit_test(graft::test_mixed_graph),
      cmocka_unit_test(graft::test_errors_name_the_op),
      cmocka_unit_test(graft::test_eager_ops_on_the_device),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
