// Placement on a second device and the copies between devices, with a test device ("TEST")
// registered the way a plug-in or the OpenCL device registers: its memory holds each float
// negated, so a value that crossed devices without its copy would come out wrong. Checks that
// ops go where their device string asks when that device has a kernel, fall back to the CPU
// when it has none or does not exist, that each crossing edge is copied once per consumer
// (host -> device, device -> host) and fetches come back to the host, sequentially and from
// the parallel engine, that state (reference variables) stays on the host, and that device
// types register once.
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c_api/src/composition_root.h"
#include "core/graph.h"
#include "core/runtime/device_set.h"
#include "core/runtime/session.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

namespace graft {
namespace {

std::atomic<int> to_device{0}, to_host{0}, device_kernel_runs{0};

// Device memory: the host's floats negated.
Status Negated(const Tensor& in, Tensor* out) {
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(in.dtype(), in.dims(), out));
  for (int64_t i = 0; i < in.num_elements(); ++i) out->data<float>()[i] = -in.data<float>()[i];
  return Status::Ok();
}

class TestDevice final : public Device {
 public:
  const std::string& name() const override { return name_; }
  const std::string& type() const override { return type_; }
  Status CopyFromHost(const Tensor& host, Tensor* out) override {
    to_device++;
    return Negated(host, out);
  }
  Status CopyToHost(const Tensor& device, Tensor* out) override {
    to_host++;
    return Negated(device, out);
  }

 private:
  std::string name_ = "/job:localhost/replica:0/task:0/device:TEST:0";
  std::string type_ = "TEST";
};

// AddV2 and Mul on TEST: decode, compute, encode; they fail on anything but TEST.
template <bool kMul>
class TestBinaryKernel final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    if (ctx.device()->type() != "TEST") return errors::Internal("a TEST kernel ran on ", ctx.device()->name());
    device_kernel_runs++;
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kFloat32, a.dims(), &out));
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      float x = -a.data<float>()[i], y = -b.data<float>()[i];
      out->data<float>()[i] = -(kMul ? x * y : x + y);
    }
    return Status::Ok();
  }
};

void RegisterTestDevice() {
  static bool done = [] {
    assert_true(DeviceRegistry::Global()
                    .Register("TEST",
                              [] {
                                std::vector<std::unique_ptr<Device>> v;
                                v.push_back(std::make_unique<TestDevice>());
                                return v;
                              })
                    .ok());
    KernelRegistry& k = KernelRegistry::Global();
    assert_true(k.Register("AddV2", "TEST", "T", {DType::kFloat32}, MakeFactory<TestBinaryKernel<false>>()).ok());
    assert_true(k.Register("Mul", "TEST", "T", {DType::kFloat32}, MakeFactory<TestBinaryKernel<true>>()).ok());
    return true;
  }();
  (void)done;
}

void ResetCounts() {
  to_device = 0;
  to_host = 0;
  device_kernel_runs = 0;
}

Node* Op(Graph& g, const std::string& type, const std::string& name, std::vector<Output> inputs,
         const std::string& device, AttrMap attrs = {}) {
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

Node* Vector(Graph& g, const std::string& name, std::vector<float> v) {
  Tensor t;
  const std::vector<int64_t> dims = {static_cast<int64_t>(v.size())};
  assert_true(Tensor::Allocate(DType::kFloat32, dims, &t).ok());
  std::copy(v.begin(), v.end(), t.data<float>());
  return Op(g, "Const", name, {}, "", {{"dtype", AttrValue::Type(DType::kFloat32)}, {"value", AttrValue::TensorValue(t)}});
}

void ExpectFloats(const Tensor& t, std::vector<float> want) {
  assert_int_equal(t.num_elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) assert_float_equal(t.data<float>()[i], want[i], 0);
}

void test_registering_device_types(void** state) {
  (void)state;
  RegisterTestDevice();
  auto none = [] { return std::vector<std::unique_ptr<Device>>(); };
  assert_true(DeviceRegistry::Global().Register("TEST", none).code() == Code::kAlreadyExists);
  assert_true(DeviceRegistry::Global().Register("CPU", none).code() == Code::kAlreadyExists);
  assert_true(DeviceRegistry::Global().Register("", none).code() == Code::kInvalidArgument);
  std::unique_ptr<DeviceSet> set = DeviceSet::FromRegistry();
  assert_string_equal(set->cpu()->type().c_str(), "CPU");
  assert_non_null(set->Find("TEST", 0));
  assert_null(set->Find("TEST", 1));
  assert_null(set->Find("GPU", 0));
  assert_null(DeviceSet::CpuOnly().Find("TEST", 0));
}

void test_placement_and_copies(void** state) {
  (void)state;
  RegisterTestDevice();
  Graph g;
  Node* x = Vector(g, "x", {1, 2, 3});
  AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
  Node* a = Op(g, "AddV2", "a", {{x, 0}, {x, 0}}, "/device:TEST:0", t);  // TEST: x (a constant) copied in once
  Node* r = Op(g, "Relu", "r", {{a, 0}}, "/device:TEST:0", t);           // no TEST kernel: CPU, a copied out
  Node* m = Op(g, "Mul", "m", {{a, 0}, {r, 0}}, "/device:TEST:0", t);    // TEST: r copied in
  Node* gpu = Op(g, "AddV2", "gpu", {{x, 0}, {x, 0}}, "/device:GPU:0", t);  // no such device: CPU
  Node* other = Op(g, "AddV2", "other", {{x, 0}, {x, 0}}, "/device:TEST:3", t);  // no TEST:3: CPU
  SessionOptions options;
  options.num_threads = 1;
  options.rewrites.constant_folding = false;  // the ops must run where they are placed
  Session s(&g, options);
  ResetCounts();
  std::vector<Tensor> out;
  Status st = s.Run({}, {{m, 0}}, {}, &out);
  if (!st.ok()) print_error("%s\n", st.message().c_str());
  assert_true(st.ok());
  ExpectFloats(out[0], {4, 16, 36});  // (x + x) * relu(x + x)
  assert_int_equal(device_kernel_runs.load(), 2);
  assert_int_equal(to_device.load(), 2);  // x, kept by the executor for its second read; r
  assert_int_equal(to_host.load(), 2);  // a for the CPU's Relu, and the fetch of m

  // Fetching a TEST value and a CPU value together; the fallbacks ran on the CPU (no copies).
  ResetCounts();
  assert_true(s.Run({}, {{a, 0}, {gpu, 0}, {other, 0}}, {}, &out).ok());
  ExpectFloats(out[0], {2, 4, 6});
  ExpectFloats(out[1], {2, 4, 6});
  ExpectFloats(out[2], {2, 4, 6});
  assert_int_equal(device_kernel_runs.load(), 1);
  assert_int_equal(to_device.load(), 1);  // x, once for both reads
  assert_int_equal(to_host.load(), 1);

  // A fed value reaches a TEST op through a copy (one per read: fed values change per run).
  ResetCounts();
  Tensor fed;
  const std::vector<int64_t> three = {3};
  assert_true(Tensor::Allocate(DType::kFloat32, three, &fed).ok());
  std::fill_n(fed.data<float>(), 3, 5.0f);
  assert_true(s.Run({{{x, 0}, fed}}, {{a, 0}}, {}, &out).ok());
  ExpectFloats(out[0], {10, 10, 10});
  assert_int_equal(to_device.load(), 2);
}

void test_state_stays_on_the_host(void** state) {
  (void)state;
  RegisterTestDevice();
  // A TensorFlow 1 variable and its Assign asked for TEST run on the CPU (references live on
  // the host); an AddV2 on TEST reads the variable's value through a copy.
  Graph g;
  Node* x = Vector(g, "x", {1, 2, 3});
  AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
  Node* var = Op(g, "VariableV2", "var", {}, "/device:TEST:0",
                 {{"dtype", AttrValue::Type(DType::kFloat32)}, {"shape", AttrValue::Shape(PartialShape({3}))}});
  Node* assign = Op(g, "Assign", "assign", {{var, 0}, {x, 0}}, "/device:TEST:0", t);
  Node* sum = Op(g, "AddV2", "sum", {{var, 0}, {x, 0}}, "/device:TEST:0", t);
  SessionOptions options;
  options.num_threads = 1;
  options.rewrites.constant_folding = false;
  Session s(&g, options);
  std::vector<Tensor> out;
  assert_true(s.Run({}, {}, {assign}, &out).ok());
  ResetCounts();
  Status st = s.Run({}, {{sum, 0}}, {}, &out);
  if (!st.ok()) print_error("%s\n", st.message().c_str());
  assert_true(st.ok());
  ExpectFloats(out[0], {2, 4, 6});
  assert_int_equal(device_kernel_runs.load(), 1);
  assert_int_equal(to_device.load(), 2);  // the variable's value and x
  assert_int_equal(to_host.load(), 1);    // the fetch
}

// Session options: a default device for ops that name none (those without a kernel there stay
// on the CPU), and strict placement (an op naming a device it cannot run on fails the run,
// naming the op, instead of falling back).
void test_default_device_and_strict_placement(void** state) {
  (void)state;
  RegisterTestDevice();
  Graph g;
  Node* x = Vector(g, "x", {1, 2, 3});
  AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
  Node* a = Op(g, "AddV2", "a", {{x, 0}, {x, 0}}, "", t);  // no device: the default, TEST
  Node* r = Op(g, "Relu", "r", {{a, 0}}, "", t);            // no TEST kernel: the CPU
  SessionOptions options;
  options.num_threads = 1;
  options.rewrites.constant_folding = false;
  options.placement.default_device = "/device:TEST:0";
  {
    Session s(&g, options);
    ResetCounts();
    std::vector<Tensor> out;
    assert_true(s.Run({}, {{r, 0}}, {}, &out).ok());
    ExpectFloats(out[0], {2, 4, 6});
    assert_int_equal(device_kernel_runs.load(), 1);
  }
  // Strict: Relu asks for TEST, which has no kernel for it; a missing device is an error too.
  Node* strict_relu = Op(g, "Relu", "strict_relu", {{x, 0}}, "/device:TEST:0", t);
  Node* missing = Op(g, "AddV2", "missing", {{x, 0}, {x, 0}}, "/device:GPU:3", t);
  options.placement = PlacementPolicy{"", true};
  Session strict(&g, options);
  std::vector<Tensor> out;
  Status st = strict.Run({}, {{strict_relu, 0}}, {}, &out);
  assert_int_equal(static_cast<int>(st.code()), static_cast<int>(Code::kInvalidArgument));
  assert_non_null(std::strstr(st.message().c_str(), "strict_relu"));
  assert_non_null(std::strstr(st.message().c_str(), "no kernel"));
  st = strict.Run({}, {{missing, 0}}, {}, &out);
  assert_non_null(std::strstr(st.message().c_str(), "does not have"));
  // An op that can run where it asks still does.
  ResetCounts();
  assert_true(strict.Run({}, {{a, 0}}, {}, &out).ok());
  Node* on_test = Op(g, "AddV2", "on_test", {{x, 0}, {x, 0}}, "/device:TEST:0", t);
  assert_true(strict.Run({}, {{on_test, 0}}, {}, &out).ok());
  assert_int_equal(device_kernel_runs.load(), 1);
}

void test_parallel_engine_copies(void** state) {
  (void)state;
  RegisterTestDevice();
  // Two independent chains of 24 additions alternating between TEST and the CPU, so the run
  // takes the parallel engine (a single chain runs sequentially): every hop crosses devices.
  Graph g;
  // Different constants, so that common-subexpression elimination keeps both chains.
  Node* constants[2] = {Vector(g, "one", {1, 1}), Vector(g, "two", {2, 2})};
  AttrMap t = {{"T", AttrValue::Type(DType::kFloat32)}};
  std::vector<Output> ends;
  for (int chain = 0; chain < 2; ++chain) {
    Node* c = constants[chain];
    Output cur{c, 0};
    for (int i = 0; i < 24; ++i) {
      Node* n = Op(g, "AddV2", "chain" + std::to_string(chain) + "_step" + std::to_string(i), {cur, {c, 0}},
                   i % 2 == 0 ? "/device:TEST:0" : "", t);
      cur = Output{n, 0};
    }
    ends.push_back(cur);
  }
  SessionOptions options;
  options.num_threads = 2;
  options.rewrites.constant_folding = false;
  Session s(&g, options);
  ResetCounts();
  std::vector<Tensor> out;
  Status st = s.Run({}, ends, {}, &out);
  if (!st.ok()) print_error("%s\n", st.message().c_str());
  assert_true(st.ok());
  ExpectFloats(out[0], {25, 25});
  ExpectFloats(out[1], {50, 50});
  assert_int_equal(device_kernel_runs.load(), 24);
  // Each TEST step copies in the chain value from the CPU, but each chain's first, whose chain
  // value is its constant, copied once for the executor; each CPU step after a TEST step copies
  // the chain value out. The last steps are on the CPU.
  assert_int_equal(to_device.load(), 24);
  assert_int_equal(to_host.load(), 24);
}

}  // namespace
}  // namespace graft

int main(void) {
  graft::capi::RegisterBuiltins();  // core's registries start empty: the library's kernels
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(graft::test_registering_device_types),
      cmocka_unit_test(graft::test_placement_and_copies),
      cmocka_unit_test(graft::test_state_stays_on_the_host),
      cmocka_unit_test(graft::test_parallel_engine_copies),
      cmocka_unit_test(graft::test_default_device_and_strict_placement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
