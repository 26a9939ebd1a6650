/*
 * bindings/graft.hpp: a thin, header-only C++ layer over Graft's public C API, for SWIG.
 *
 * Every binding (Python, Java, Go, Ruby) is generated from bindings/graft.i over this header;
 * the idiomatic code of each language sits on the generated classes. It uses only
 * <graft/graft.h>. What it adds to the C API:
 *   - RAII handles (std::shared_ptr with the C free function), so that objects may be
 *     collected in any order: a child keeps its parent alive (an Operation its Graph, a Value
 *     its Context, a ConcreteFunction its Function);
 *   - failures as graft::Error exceptions carrying the status code and the C message, which
 *     graft.i turns into each language's exceptions;
 *   - callbacks into the host language as SWIG directors with one C trampoline each
 *     (TraceBody for traced functions, cond and while_loop; HostFunction for the host-function
 *     op; DeviceFunction for device functions). A director method reports failure by
 *     returning a non-empty message rather than throwing, since that crosses every language.
 *
 * Thread safety: as the C API's (each class says which of its C objects it wraps).
 */
#ifndef GRAFT_BINDINGS_GRAFT_HPP
#define GRAFT_BINDINGS_GRAFT_HPP

#include <graft/graft.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace graft {

/* Bytes (any content, NUL included): the bindings map it to their byte-string type. */
typedef std::string Bytes;

/* A failed C call: code is a graft_status, what() the one-line message. */
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }
  /* "GRAFT_EINVAL", ... */
  const char *code_name() const { return graft_status_name(code_); }

 private:
  int code_;
};

namespace detail {
inline void check(int rc) {
  if (rc != GRAFT_OK) throw Error(rc, graft_error_last());
}
inline std::string take_string(char *s) {
  std::string out = s ? s : "";
  graft_string_free(s);
  return out;
}
/* A partial shape from a C shape handle (freed): rank -1 is an unknown rank. */
inline std::vector<int64_t> shape_dims(graft_shape *shape, int *rank) {
  std::unique_ptr<graft_shape, void (*)(graft_shape *)> owned(shape, graft_shape_free);
  *rank = graft_shape_rank(shape);
  std::vector<int64_t> dims(*rank > 0 ? *rank : 0);
  if (*rank > 0) check(graft_shape_dims(dims.data(), *rank, shape));
  return dims;
}
inline graft_shape *new_shape(const std::vector<int64_t> &dims, int rank) {
  graft_shape *s = nullptr;
  check(graft_shape_new(&s, rank < 0 ? nullptr : dims.data(), rank < 0 ? -1 : static_cast<int>(dims.size())));
  return s;
}
}  // namespace detail

/* The dtype table from the C API (graft_dtype_list): every dtype that is no reference, in code
 * order. Bindings build their dtype tables from it and graft_dtype_name/_size/_is_*. */
inline std::vector<int> dtype_codes() {
  std::vector<graft_dtype> all(static_cast<size_t>(graft_dtype_list(nullptr, 0)));
  graft_dtype_list(all.data(), static_cast<int>(all.size()));
  return std::vector<int>(all.begin(), all.end());
}

/* One device of the machine (graft_device_list): its full name
 * ("/job:localhost/replica:0/task:0/device:OPENCL:0"), type ("CPU", "GPU", "OPENCL") and
 * description; a copy. */
class DeviceInfo {
 public:
  std::string name;
  std::string device_type;
  std::string model;
  std::string vendor;
  std::string driver;
  int64_t memory_bytes = 0;
  int64_t compute_units = 0;
};

/* The devices of this machine, the CPU first, then each registered device type's devices
 * (graft_device_list_new). */
inline std::vector<DeviceInfo> list_devices() {
  graft_device_list *raw = nullptr;
  detail::check(graft_device_list_new(&raw));
  std::unique_ptr<graft_device_list, void (*)(graft_device_list *)> list(raw, graft_device_list_free);
  std::vector<DeviceInfo> out;
  for (int64_t i = 0; i < graft_device_list_count(raw); ++i) {
    DeviceInfo d;
    const char *s = nullptr;
    detail::check(graft_device_list_name(&s, raw, i));
    d.name = s;
    detail::check(graft_device_list_type(&s, raw, i));
    d.device_type = s;
    detail::check(graft_device_list_model(&s, raw, i));
    d.model = s;
    detail::check(graft_device_list_vendor(&s, raw, i));
    d.vendor = s;
    detail::check(graft_device_list_driver(&s, raw, i));
    d.driver = s;
    detail::check(graft_device_list_memory_bytes(&d.memory_bytes, raw, i));
    detail::check(graft_device_list_compute_units(&d.compute_units, raw, i));
    out.push_back(std::move(d));
  }
  return out;
}

/* ---- The MPI job of the collective ops (graft/distributed.h) --------------------------------- */

/* Joins the job (idempotent); Error GRAFT_EUNIMPLEMENTED when Graft has no MPI module. */
inline void distributed_init() { detail::check(graft_distributed_init()); }
/* This process's rank and the job's size (joining the job first). */
inline int distributed_rank() {
  int rank = 0;
  detail::check(graft_distributed_rank(&rank));
  return rank;
}
inline int distributed_size() {
  int size = 0;
  detail::check(graft_distributed_size(&size));
  return size;
}
inline void distributed_barrier() { detail::check(graft_distributed_barrier()); }
inline void distributed_finalize() { detail::check(graft_distributed_finalize()); }

/* ---- Op libraries ------------------------------------------------------------------------- */

/* The name of the function of an op type in the bindings that make one per op (Python's
 * load_op_library), TensorFlow's rule (python_op_gen's GenerateLowerCaseOpName): an '_' before
 * an upper-case letter that follows a lower-case one or precedes one, then all lower case:
 * ZeroOut -> zero_out, SwishGrad -> swish_grad, MatMul -> mat_mul, LRNGrad -> lrn_grad. */
inline std::string op_function_name(const std::string &op_type) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  std::string out;
  const size_t n = op_type.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = op_type[i];
    if (upper(c) && i > 0 && (lower(op_type[i - 1]) || (i + 1 < n && lower(op_type[i + 1]))) &&
        op_type[i - 1] != '_')
      out.push_back('_');
    out.push_back(upper(c) ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

/*
 * An op library loaded with graft_library_load (graft/library.h; TensorFlow's
 * tf.load_op_library): the file it was loaded from and the op types it registered. A copy:
 * the library stays loaded, its ops registered, for the rest of the process.
 */
class Library {
 public:
  Library() = default;
  /* Loads the op library at path (dlopen's rules: a path with a '/' is a file, else searched)
   * and registers its ops, kernels, shape and gradient functions, all or nothing; loading the
   * same file again registers nothing again. Errors (graft::Error): GRAFT_ENOTFOUND (no such
   * file, or not an op library; the message names the path), GRAFT_EUNIMPLEMENTED (built
   * against a newer kernel ABI), GRAFT_EEXISTS (an op it defines is registered already), or
   * what its init function returned. */
  static Library load(const std::string &path) {
    graft_library *raw = nullptr;
    detail::check(graft_library_load(&raw, path.c_str()));
    std::unique_ptr<graft_library, void (*)(graft_library *)> lib(raw, graft_library_free);
    Library out;
    out.path_ = graft_library_path(raw);
    const int n = graft_library_op_count(raw);
    for (int i = 0; i < n; ++i) out.op_names_.push_back(graft_library_op_name(raw, i));
    return out;
  }
  /* The file it was loaded from (absolute). */
  std::string path() const { return path_; }
  /* The op types it registered, in registration order ("ZeroOut", ...). */
  std::vector<std::string> op_names() const { return op_names_; }
  /* op_function_name of each op type, in the same order ("zero_out", ...). */
  std::vector<std::string> function_names() const {
    std::vector<std::string> out;
    for (const std::string &op : op_names_) out.push_back(op_function_name(op));
    return out;
  }

 private:
  std::string path_;
  std::vector<std::string> op_names_;
};

/* A partial shape: rank -1 for an unknown rank, dims -1 for unknown dimensions. */
class Shape {
 public:
  Shape() : rank_(-1) {}
  explicit Shape(const std::vector<int64_t> &dims) : rank_(static_cast<int>(dims.size())), dims_(dims) {}
  static Shape unknown() { return Shape(); }
  int rank() const { return rank_; }
  std::vector<int64_t> dims() const { return dims_; }
  /* The shape algebra of graft/shape.h (TensorFlow's TensorShape); the C API decides. Errors:
   * graft::Error GRAFT_ESHAPE when shapes or dimensions are incompatible. */
  bool is_fully_defined() const { return call(graft_shape_is_fully_defined); }
  /* The number of elements; -1 when not fully defined. */
  int64_t num_elements() const {
    int64_t n = -1;
    detail::check(graft_shape_num_elements(&n, c().get()));
    return n;
  }
  bool is_compatible_with(const Shape &o) const { return call2(graft_shape_is_compatible_with, o); }
  Shape merge_with(const Shape &o) const { return make2(graft_shape_merge, o); }
  Shape concatenate(const Shape &o) const { return make2(graft_shape_concatenate, o); }
  Shape most_specific_compatible(const Shape &o) const { return make2(graft_shape_most_specific_compatible, o); }
  Shape with_rank(int rank) const { return make_r(graft_shape_with_rank, rank); }
  Shape with_rank_at_least(int rank) const { return make_r(graft_shape_with_rank_at_least, rank); }
  Shape with_rank_at_most(int rank) const { return make_r(graft_shape_with_rank_at_most, rank); }
  /* Dimensions (-1 unknown): compatible when equal or either is unknown; merge gives the known one. */
  static bool dims_compatible(int64_t a, int64_t b) { return graft_dim_is_compatible_with(a, b) != 0; }
  static int64_t merge_dims(int64_t a, int64_t b) {
    int64_t out = -1;
    detail::check(graft_dim_merge(&out, a, b));
    return out;
  }
  std::string to_string() const {
    if (rank_ < 0) return "<unknown>";
    std::string s = "(";
    for (size_t i = 0; i < dims_.size(); ++i) {
      if (i) s += ", ";
      s += dims_[i] < 0 ? std::string("None") : std::to_string(dims_[i]);
    }
    if (dims_.size() == 1) s += ",";
    return s + ")";
  }
#ifndef SWIG
  static Shape from_c(graft_shape *owned) {
    Shape s;
    s.dims_ = detail::shape_dims(owned, &s.rank_);
    return s;
  }
  graft_shape *to_c() const { return detail::new_shape(dims_, rank_); }
  const int64_t *data() const { return rank_ < 0 ? nullptr : dims_.data(); }
#endif

 private:
#ifndef SWIG
  using C = std::unique_ptr<graft_shape, void (*)(graft_shape *)>;
  static C own(graft_shape *s) { return C(s, graft_shape_free); }
  C c() const { return own(to_c()); }
  bool call(graft_bool (*f)(const graft_shape *)) const { return f(c().get()) != 0; }
  bool call2(graft_bool (*f)(const graft_shape *, const graft_shape *), const Shape &o) const {
    return f(c().get(), o.c().get()) != 0;
  }
  Shape make2(int (*f)(graft_shape **, const graft_shape *, const graft_shape *), const Shape &o) const {
    graft_shape *out = nullptr;
    detail::check(f(&out, c().get(), o.c().get()));
    return from_c(out);
  }
  Shape make_r(int (*f)(graft_shape **, const graft_shape *, int), int rank) const {
    graft_shape *out = nullptr;
    detail::check(f(&out, c().get(), rank));
    return from_c(out);
  }
#endif
  int rank_;
  std::vector<int64_t> dims_;
};

/* ---- Tensors ------------------------------------------------------------------------------ */

/* A dense tensor (graft_tensor). Reading from many threads is safe. */
class Tensor {
 public:
  Tensor() = default;
  /* A tensor of dtype and dims with a copy of len bytes of data (zeros with no data). */
  static Tensor from_bytes(int dtype, const std::vector<int64_t> &dims, const char *data, size_t len) {
    graft_tensor *t = nullptr;
    detail::check(graft_tensor_new(&t, dtype, dims.data(), static_cast<int>(dims.size()), data, len));
    return Tensor(t);
  }
  static Tensor zeros(int dtype, const std::vector<int64_t> &dims) { return from_bytes(dtype, dims, nullptr, 0); }
  /* convert_to_tensor of host elements (flat, row-major, with dims) by the C API's one rule
   * (graft_tensor_from_host): dtype GRAFT_DTYPE_INVALID infers int32/int64, float32, bool or
   * string; a given dtype must fit every element. Bindings turn host data into tensors only
   * through these. */
  static Tensor from_host_ints(const std::vector<int64_t> &v, const std::vector<int64_t> &dims, int dtype) {
    return from_host(GRAFT_HOST_INT64, v.data(), dims, dtype);
  }
  static Tensor from_host_doubles(const std::vector<double> &v, const std::vector<int64_t> &dims, int dtype) {
    return from_host(GRAFT_HOST_DOUBLE, v.data(), dims, dtype);
  }
  static Tensor from_host_bools(const std::vector<bool> &v, const std::vector<int64_t> &dims, int dtype) {
    std::vector<graft_bool> b(v.begin(), v.end());
    return from_host(GRAFT_HOST_BOOL, b.data(), dims, dtype);
  }
  static Tensor from_host_strings(const std::vector<std::string> &v, const std::vector<int64_t> &dims, int dtype) {
    std::vector<const char *> p;
    for (const auto &s : v) p.push_back(s.c_str());
    return from_host(GRAFT_HOST_STRING, p.data(), dims, dtype);
  }
  static Tensor from_floats(const std::vector<int64_t> &dims, const std::vector<float> &v) {
    return from_bytes(GRAFT_FLOAT32, dims, reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
  }
  static Tensor from_doubles(const std::vector<int64_t> &dims, const std::vector<double> &v) {
    return from_bytes(GRAFT_FLOAT64, dims, reinterpret_cast<const char *>(v.data()), v.size() * sizeof(double));
  }
  static Tensor from_int32s(const std::vector<int64_t> &dims, const std::vector<int32_t> &v) {
    return from_bytes(GRAFT_INT32, dims, reinterpret_cast<const char *>(v.data()), v.size() * sizeof(int32_t));
  }
  static Tensor from_int64s(const std::vector<int64_t> &dims, const std::vector<int64_t> &v) {
    return from_bytes(GRAFT_INT64, dims, reinterpret_cast<const char *>(v.data()), v.size() * sizeof(int64_t));
  }
  static Tensor from_strings(const std::vector<int64_t> &dims, const std::vector<std::string> &v) {
    std::vector<const char *> ptrs;
    std::vector<size_t> lens;
    for (const std::string &s : v) {
      ptrs.push_back(s.data());
      lens.push_back(s.size());
    }
    graft_tensor *t = nullptr;
    detail::check(graft_tensor_new_strings(&t, dims.data(), static_cast<int>(dims.size()), ptrs.data(), lens.data(),
                                           v.size()));
    return Tensor(t);
  }

  bool valid() const { return h_ != nullptr; }
  int dtype() const { return graft_tensor_dtype(get()); }
  std::vector<int64_t> shape() const {
    std::vector<int64_t> dims(graft_tensor_rank(get()));
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = graft_tensor_dim(get(), static_cast<int>(i));
    return dims;
  }
  int64_t num_elements() const { return graft_tensor_num_elements(get()); }
  size_t byte_size() const { return graft_tensor_byte_size(get()); }
  /* The address of the elements (0 for strings or no elements): for zero-copy views. */
  uintptr_t data_address() const { return reinterpret_cast<uintptr_t>(graft_tensor_data(get())); }
  /* Whether this tensor alone holds its elements, in Graft's own memory (graft_tensor_is_exclusive):
   * a host array may then take them over without a copy. */
  bool is_exclusive() const { return graft_tensor_is_exclusive(get()) != 0; }
  /* A copy of the elements' bytes. */
  Bytes bytes() const {
    const char *p = static_cast<const char *>(graft_tensor_data(get()));
    return p ? std::string(p, byte_size()) : std::string();
  }
  std::vector<float> to_floats() const { return elements<float>(GRAFT_FLOAT32); }
  std::vector<double> to_doubles() const { return elements<double>(GRAFT_FLOAT64); }
  std::vector<int32_t> to_int32s() const { return elements<int32_t>(GRAFT_INT32); }
  std::vector<int64_t> to_int64s() const { return elements<int64_t>(GRAFT_INT64); }
  Bytes string_at(int64_t index) const {
    const char *s = nullptr;
    size_t n = 0;
    detail::check(graft_tensor_string(&s, &n, get(), index));
    return std::string(s, n);
  }
  std::vector<std::string> to_strings() const {
    std::vector<std::string> out;
    for (int64_t i = 0; i < num_elements(); ++i) out.push_back(string_at(i));
    return out;
  }

#ifndef SWIG
  explicit Tensor(graft_tensor *owned) : h_(owned, graft_tensor_free) {}
  graft_tensor *get() const {
    if (!h_) throw Error(GRAFT_EINVAL, "graft: use of an empty Tensor");
    return h_.get();
  }
  /* Gives Graft a new handle to the same tensor (for outputs that Graft frees). */
  graft_tensor *share() const {
    graft_tensor *t = nullptr;
    detail::check(graft_tensor_share(&t, get()));
    return t;
  }
#endif

#ifndef SWIG
  static Tensor from_host(graft_host_kind kind, const void *elements, const std::vector<int64_t> &dims, int dtype) {
    graft_tensor *t = nullptr;
    detail::check(graft_tensor_from_host(&t, kind, elements, dims.data(), static_cast<int>(dims.size()), dtype));
    return Tensor(t);
  }
#endif
 private:
  template <typename T>
  std::vector<T> elements(int want) const {
    if (dtype() != want)
      throw Error(GRAFT_EDTYPE, std::string("graft: tensor is ") + graft_dtype_name(dtype()) + ", not " +
                                    graft_dtype_name(want));
    const T *p = static_cast<const T *>(graft_tensor_data(get()));
    return p ? std::vector<T>(p, p + num_elements()) : std::vector<T>();
  }
  std::shared_ptr<graft_tensor> h_;
};

/* ---- Graphs ------------------------------------------------------------------------------- */

class Graph;
class Operation;

/*
 * One reference to a graph (graft/graph.h's counted references), shared by a Graph and
 * everything that points into it (operations, outputs, sessions, builders): the graph lives
 * while any of them does, whoever else let it go.
 */
struct GraphRef {
  graft_graph *graph = nullptr;
  GraphRef() = default;
  GraphRef(const GraphRef &) = delete;
  GraphRef &operator=(const GraphRef &) = delete;
  ~GraphRef() { graft_graph_free(graph); }
  /* Takes over a reference the caller holds. */
  static std::shared_ptr<GraphRef> adopt(graft_graph *owned) {
    auto ref = std::make_shared<GraphRef>();
    ref->graph = owned;
    return ref;
  }
  /* Takes a new reference to a borrowed handle. */
  static std::shared_ptr<GraphRef> share(graft_graph *borrowed) {
    graft_graph *g = nullptr;
    detail::check(graft_graph_share(&g, borrowed));
    return adopt(g);
  }
};

/* A tensor of a graph: an op's output. */
class Output {
 public:
  Output() = default;
  Operation op() const;
  int index() const { return c_.index; }
  bool valid() const { return c_.op != nullptr; }
  int dtype() const { return graft_output_dtype(c_); }
  Shape shape() const {
    graft_shape *s = nullptr;
    detail::check(graft_output_shape(&s, c_));
    return Shape::from_c(s);
  }
  void set_shape(const Shape &shape) {
    graft_shape *s = shape.to_c();
    int rc = graft_output_set_shape(c_, s);
    graft_shape_free(s);
    detail::check(rc);
  }
  std::string name() const {
    char *s = nullptr;
    detail::check(graft_output_name(&s, c_));
    return detail::take_string(s);
  }
  std::vector<Operation> consumers() const;
  bool same_as(const Output &other) const { return c_.op == other.c_.op && c_.index == other.c_.index; }
  /* A stable identity (for hashing): the op's address and the index. */
  int64_t id() const { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(c_.op) * 64 + c_.index); }

#ifndef SWIG
  Output(std::shared_ptr<GraphRef> g, graft_output c) : g_(std::move(g)), c_(c) {}
  graft_output c() const { return c_; }
  const std::shared_ptr<GraphRef> &graph_ref() const { return g_; }
#endif

 private:
  std::shared_ptr<GraphRef> g_;
  graft_output c_{nullptr, -1};
};

/* An op of a graph. */
class Operation {
 public:
  Operation() = default;
  bool valid() const { return op_ != nullptr; }
  std::string name() const { return graft_op_name(op_); }
  std::string type() const { return graft_op_type(op_); }
  std::string device() const { return graft_op_device(op_); }
  int64_t id() const { return graft_op_id(op_); }
  bool is_stateful() const { return graft_op_is_stateful(op_) != 0; }
  Graph graph() const;
  int num_inputs() const { return graft_op_num_inputs(op_); }
  Output input(int i) const {
    graft_output o = graft_op_input(op_, i);
    if (!o.op) throw Error(GRAFT_ERANGE, "graft: op '" + name() + "' has no input " + std::to_string(i));
    return Output(g_, o);
  }
  int input_dtype(int i) const { return graft_op_input_dtype(op_, i); }
  int num_outputs() const { return graft_op_num_outputs(op_); }
  Output output(int i) const {
    if (i < 0 || i >= num_outputs())
      throw Error(GRAFT_ERANGE, "graft: op '" + name() + "' has no output " + std::to_string(i));
    return Output(g_, graft_output{op_, i});
  }
  std::vector<Operation> control_inputs() const {
    std::vector<Operation> out;
    for (int i = 0; i < graft_op_num_control_inputs(op_); ++i) out.emplace_back(g_, graft_op_control_input(op_, i));
    return out;
  }
  std::vector<Operation> control_outputs() const {
    std::vector<Operation> out;
    for (int i = 0; i < graft_op_num_control_outputs(op_); ++i) out.emplace_back(g_, graft_op_control_output(op_, i));
    return out;
  }
  std::vector<std::string> colocation_groups() const {
    std::vector<std::string> out;
    for (int i = 0; i < graft_op_num_colocation_groups(op_); ++i) {
      char *s = nullptr;
      detail::check(graft_op_colocation_group(&s, op_, i));
      out.push_back(detail::take_string(s));
    }
    return out;
  }
  std::vector<std::string> attr_names() const {
    std::vector<std::string> out;
    for (int i = 0; i < graft_op_num_attrs(op_); ++i) out.push_back(graft_op_attr_name(op_, i));
    return out;
  }
  /* The attr's type (a graft_attr_type). */
  int attr_type(const std::string &name) const {
    graft_attr_type t;
    int n = 0;
    detail::check(graft_op_attr_type(&t, &n, op_, name.c_str()));
    return static_cast<int>(t);
  }
  /* A list attr's length (-1 for an attr that is no list). */
  int attr_list_size(const std::string &name) const {
    graft_attr_type t;
    int n = 0;
    detail::check(graft_op_attr_type(&t, &n, op_, name.c_str()));
    return n;
  }
  int64_t attr_int(const std::string &name) const {
    int64_t v = 0;
    detail::check(graft_op_get_attr_int(&v, op_, name.c_str()));
    return v;
  }
  double attr_float(const std::string &name) const {
    float v = 0;
    detail::check(graft_op_get_attr_float(&v, op_, name.c_str()));
    return v;
  }
  bool attr_bool(const std::string &name) const {
    graft_bool v = 0;
    detail::check(graft_op_get_attr_bool(&v, op_, name.c_str()));
    return v != 0;
  }
  int attr_dtype(const std::string &name) const {
    graft_dtype v = 0;
    detail::check(graft_op_get_attr_type(&v, op_, name.c_str()));
    return v;
  }
  Bytes attr_string(const std::string &name) const {
    const char *s = nullptr;
    size_t n = 0;
    detail::check(graft_op_get_attr_string(&s, &n, op_, name.c_str()));
    return std::string(s, n);
  }
  Shape attr_shape(const std::string &name) const {
    graft_shape *s = nullptr;
    detail::check(graft_op_get_attr_shape(&s, op_, name.c_str()));
    return Shape::from_c(s);
  }
  Tensor attr_tensor(const std::string &name) const {
    graft_tensor *t = nullptr;
    detail::check(graft_op_get_attr_tensor(&t, op_, name.c_str()));
    return Tensor(t);
  }
  std::string attr_func(const std::string &name) const {
    const char *s = nullptr;
    detail::check(graft_op_get_attr_func(&s, op_, name.c_str()));
    return s;
  }
  std::vector<int64_t> attr_int_list(const std::string &name) const {
    std::vector<int64_t> v(list_size(name));
    detail::check(graft_op_get_attr_int_list(v.data(), static_cast<int>(v.size()), op_, name.c_str()));
    return v;
  }
  std::vector<double> attr_float_list(const std::string &name) const {
    std::vector<float> v(list_size(name));
    detail::check(graft_op_get_attr_float_list(v.data(), static_cast<int>(v.size()), op_, name.c_str()));
    return std::vector<double>(v.begin(), v.end());
  }
  std::vector<bool> attr_bool_list(const std::string &name) const {
    std::vector<graft_bool> v(list_size(name));
    detail::check(graft_op_get_attr_bool_list(v.data(), static_cast<int>(v.size()), op_, name.c_str()));
    return std::vector<bool>(v.begin(), v.end());
  }
  std::vector<int> attr_dtype_list(const std::string &name) const {
    std::vector<graft_dtype> v(list_size(name));
    detail::check(graft_op_get_attr_type_list(v.data(), static_cast<int>(v.size()), op_, name.c_str()));
    return std::vector<int>(v.begin(), v.end());
  }
  std::vector<std::string> attr_string_list(const std::string &name) const {
    std::vector<std::string> out;
    for (int i = 0, n = list_size(name); i < n; ++i) {
      const char *s = nullptr;
      size_t len = 0;
      detail::check(graft_op_get_attr_string_list_item(&s, &len, op_, name.c_str(), i));
      out.emplace_back(s, len);
    }
    return out;
  }
  std::vector<Shape> attr_shape_list(const std::string &name) const {
    std::vector<Shape> out;
    for (int i = 0, n = list_size(name); i < n; ++i) {
      graft_shape *s = nullptr;
      detail::check(graft_op_get_attr_shape_list_item(&s, op_, name.c_str(), i));
      out.push_back(Shape::from_c(s));
    }
    return out;
  }
  bool same_as(const Operation &other) const { return op_ == other.op_; }

#ifndef SWIG
  Operation(std::shared_ptr<GraphRef> g, graft_op *op) : g_(std::move(g)), op_(op) {}
  graft_op *c() const { return op_; }
#endif

 private:
  int list_size(const std::string &name) const {
    int n = attr_list_size(name);
    return n < 0 ? 0 : n;
  }
  std::shared_ptr<GraphRef> g_;
  graft_op *op_ = nullptr;
};

inline Operation Output::op() const { return Operation(g_, c_.op); }
inline std::vector<Operation> Output::consumers() const {
  std::vector<Operation> out;
  for (int i = 0; i < graft_output_num_consumers(c_); ++i) {
    graft_op *op = nullptr;
    int index = 0;
    detail::check(graft_output_consumer(&op, &index, c_, i));
    out.emplace_back(g_, op);
  }
  return out;
}

/* A collection item as the bindings see it: an op, a tensor, a string or a host value id. */
class CollectionItem {
 public:
  static CollectionItem of_op(const Operation &op) {
    CollectionItem item;
    item.kind = GRAFT_ITEM_OP;
    item.op_ = op;
    return item;
  }
  static CollectionItem of_tensor(const Output &tensor) {
    CollectionItem item;
    item.kind = GRAFT_ITEM_TENSOR;
    item.tensor_ = tensor;
    return item;
  }
  static CollectionItem of_string(const std::string &s) {
    CollectionItem item;
    item.kind = GRAFT_ITEM_STRING;
    item.string = s;
    return item;
  }
  /* A host value: an id of the binding's choosing and an optional name (for scope filters). */
  static CollectionItem of_value(uint64_t id, const std::string &name) {
    CollectionItem item;
    item.kind = GRAFT_ITEM_VALUE;
    item.value = id;
    item.string = name;
    return item;
  }
  int kind = 0; /* GRAFT_ITEM_* */
  Operation op() const { return op_; }
  Output tensor() const { return tensor_; }
  std::string string;  /* a string item, or a host value's name */
  uint64_t value = 0;  /* a host value's id */
#ifndef SWIG
  Operation op_;
  Output tensor_;
#endif
};

/* What import_graph_def returns: one op or tensor per return element. */
class ImportResult {
 public:
  std::vector<Operation> ops() const { return ops_; }
  std::vector<Output> tensors() const { return tensors_; }
#ifndef SWIG
  std::vector<Operation> ops_;
  std::vector<Output> tensors_;
#endif
};

/*
 * A device function (director): returns the device for an op being created ("" for none).
 */
class DeviceFunction {
 public:
  virtual ~DeviceFunction() = default;
  virtual std::string device_for(const Operation &op) = 0;
};

/* A graph (graft_graph): building it is for one thread at a time. */
class Graph {
 public:
  Graph() {
    graft_graph *g = nullptr;
    detail::check(graft_graph_new(&g));
    g_ = GraphRef::adopt(g);
  }
  int64_t num_ops() const { return graft_graph_num_ops(c()); }
  Operation op_at(int64_t i) const {
    graft_op *op = graft_graph_op(c(), i);
    if (!op) throw Error(GRAFT_ERANGE, "graft: graph has no op " + std::to_string(i));
    return Operation(g_, op);
  }
  std::vector<Operation> operations() const {
    std::vector<Operation> out;
    for (int64_t i = 0, n = num_ops(); i < n; ++i) out.emplace_back(g_, graft_graph_op(c(), i));
    return out;
  }
  Operation op_by_name(const std::string &name) const {
    graft_op *op = nullptr;
    detail::check(graft_graph_op_by_name(&op, c(), name.c_str()));
    return Operation(g_, op);
  }
  Output tensor_by_name(const std::string &name) const {
    graft_output o;
    detail::check(graft_graph_tensor_by_name(&o, c(), name.c_str()));
    return Output(g_, o);
  }
  void finalize() { graft_graph_finalize(c()); }
  bool finalized() const { return graft_graph_finalized(c()) != 0; }
  int64_t version() const { return graft_graph_version(c()); }
  std::string unique_name(const std::string &name, bool mark_as_used) {
    char *s = nullptr;
    detail::check(graft_graph_unique_name(&s, c(), name.c_str(), mark_as_used));
    return detail::take_string(s);
  }
  /* Returns the scope as `with name_scope(...) as scope` gives it. */
  std::string push_name_scope(const std::string &name) {
    char *s = nullptr;
    detail::check(graft_graph_push_name_scope(&s, c(), name.c_str()));
    return detail::take_string(s);
  }
  void pop_name_scope() { detail::check(graft_graph_pop_name_scope(c())); }
  std::string name_scope() const { return graft_graph_name_scope(c()); }
  void push_control_dependencies(const std::vector<Operation> &ops) {
    std::vector<graft_op *> c_ops;
    for (const Operation &op : ops) c_ops.push_back(op.c());
    detail::check(graft_graph_push_control_dependencies(c(), c_ops.data(), static_cast<int>(c_ops.size())));
  }
  void push_no_control_dependencies() { detail::check(graft_graph_push_no_control_dependencies(c())); }
  void pop_control_dependencies() { detail::check(graft_graph_pop_control_dependencies(c())); }
  void push_device(const std::string &device) { detail::check(graft_graph_push_device(c(), device.c_str())); }
  /* fn must stay alive until the matching pop_device. */
  void push_device_function(DeviceFunction *fn) {
    detail::check(graft_graph_push_device_function(c(), &Graph::device_trampoline, fn));
  }
  void pop_device() { detail::check(graft_graph_pop_device(c())); }
  void push_colocation(const Operation &op, bool ignore_existing) {
    detail::check(graft_graph_push_colocation(c(), op.c(), ignore_existing));
  }
  void pop_colocation() { detail::check(graft_graph_pop_colocation(c())); }
  void push_container(const std::string &container) {
    detail::check(graft_graph_push_container(c(), container.c_str()));
  }
  void pop_container() { detail::check(graft_graph_pop_container(c())); }
  void push_gradient_override_map(const std::vector<std::string> &op_types,
                                  const std::vector<std::string> &gradient_names) {
    std::vector<const char *> a, b;
    for (const auto &s : op_types) a.push_back(s.c_str());
    for (const auto &s : gradient_names) b.push_back(s.c_str());
    if (a.size() != b.size()) throw Error(GRAFT_EINVAL, "graft: gradient_override_map needs pairs");
    detail::check(graft_graph_push_gradient_override_map(c(), a.data(), b.data(), static_cast<int>(a.size())));
  }
  void pop_gradient_override_map() { detail::check(graft_graph_pop_gradient_override_map(c())); }
  void set_seed(bool has_seed, int64_t seed) { graft_graph_set_seed(c(), has_seed, seed); }
  /* The graph-level seed, or -1 when none is set. */
  int64_t seed() const {
    int64_t s = 0;
    return graft_graph_seed(&s, c()) ? s : -1;
  }
  /* A serialized GraphDef (bytes): the ops added since version from_version (-1: all). */
  Bytes export_graph_def(bool add_shapes, int64_t from_version = -1) const {
    void *data = nullptr;
    size_t len = 0;
    detail::check(graft_graph_export_graph_def(&data, &len, c(), from_version, add_shapes));
    std::string out(static_cast<const char *>(data), len);
    graft_buffer_free(data);
    return out;
  }
  /*
   * Imports a serialized GraphDef under prefix ("" for none, as TensorFlow's
   * import_graph_def(name='')); input_map maps "name:i" of the GraphDef to
   * tensors of this graph ("^name" to the op of the tensor given); returns the ops and tensors
   * named in return_elements (for an op name the tensor is invalid, and the other way round).
   */
  ImportResult import_graph_def(const char *data, size_t len, const std::string &prefix,
                        const std::vector<std::string> &input_map_names, const std::vector<Output> &input_map_tensors,
                        const std::vector<std::string> &return_elements) {
    ImportResult result;
    graft_import_options *opts = nullptr;
    detail::check(graft_import_options_new(&opts));
    std::unique_ptr<graft_import_options, void (*)(graft_import_options *)> owned(opts, graft_import_options_free);
    detail::check(graft_import_options_set_prefix(opts, prefix.c_str()));
    if (input_map_names.size() != input_map_tensors.size())
      throw Error(GRAFT_EINVAL, "graft: import_graph_def input_map needs as many names as tensors");
    for (size_t i = 0; i < input_map_names.size(); ++i) {
      const std::string &n = input_map_names[i];
      if (!n.empty() && n[0] == '^')
        detail::check(graft_import_options_add_control_input_map(opts, n.c_str() + 1, input_map_tensors[i].c().op));
      else
        detail::check(graft_import_options_add_input_map(opts, n.c_str(), input_map_tensors[i].c()));
    }
    for (const std::string &r : return_elements)
      detail::check(graft_import_options_add_return_element(opts, r.c_str()));
    graft_import_results *results = nullptr;
    detail::check(graft_graph_import_graph_def(&results, c(), data, len, opts));
    std::unique_ptr<graft_import_results, void (*)(graft_import_results *)> owned_results(results,
                                                                                         graft_import_results_free);
    for (int i = 0; i < graft_import_results_num_elements(results); ++i) {
      graft_op *op = nullptr;
      graft_output t{nullptr, -1};
      detail::check(graft_import_results_element(&op, &t, results, i));
      result.ops_.push_back(op ? Operation(g_, op) : Operation());
      result.tensors_.push_back(t.op ? Output(g_, t) : Output());
    }
    return result;
  }
  /*
   * Symbolic gradients (graft_graph_add_gradients_ex): one output per x, invalid (valid() is
   * false) where no gradient flows unless unconnected_zero. grad_ys: empty for ones, else one
   * per y. scope: "" for "gradients".
   */
  std::vector<Output> add_gradients(const std::vector<Output> &ys, const std::vector<Output> &xs,
                                    const std::vector<Output> &grad_ys, const std::vector<Output> &stop_gradients,
                                    bool unconnected_zero, const std::string &scope) {
    std::vector<graft_output> c_ys = to_c(ys), c_xs = to_c(xs), c_dys = to_c(grad_ys), c_stop = to_c(stop_gradients);
    if (!grad_ys.empty() && grad_ys.size() != ys.size())
      throw Error(GRAFT_EINVAL, "graft: add_gradients needs one grad_y per y (" + std::to_string(ys.size()) +
                                    "), got " + std::to_string(grad_ys.size()));
    std::vector<graft_output> out(xs.size(), graft_output{nullptr, 0});
    detail::check(graft_graph_add_gradients_ex(
        out.data(), c(), c_ys.data(), static_cast<int>(c_ys.size()), c_xs.data(), static_cast<int>(c_xs.size()),
        grad_ys.empty() ? nullptr : c_dys.data(), c_stop.empty() ? nullptr : c_stop.data(),
        static_cast<int>(c_stop.size()), unconnected_zero ? GRAFT_UNCONNECTED_ZERO : GRAFT_UNCONNECTED_NONE,
        scope.empty() ? nullptr : scope.c_str()));
    std::vector<Output> result;
    for (const graft_output &o : out) result.push_back(o.op ? Output(g_, o) : Output());
    return result;
  }
  /*
   * The same, keeping gradients that come as rows (graft_graph_add_gradients_sparse): three
   * lists of one output per x, {values, indices, dense_shapes}; indices[i] and dense_shapes[i]
   * are invalid where x's gradient is dense (values[i] is then the gradient).
   */
  std::vector<std::vector<Output>> add_gradients_sparse(const std::vector<Output> &ys, const std::vector<Output> &xs,
                                                        const std::vector<Output> &grad_ys,
                                                        const std::vector<Output> &stop_gradients,
                                                        bool unconnected_zero, const std::string &scope) {
    std::vector<graft_output> c_ys = to_c(ys), c_xs = to_c(xs), c_dys = to_c(grad_ys), c_stop = to_c(stop_gradients);
    if (!grad_ys.empty() && grad_ys.size() != ys.size())
      throw Error(GRAFT_EINVAL, "graft: add_gradients needs one grad_y per y (" + std::to_string(ys.size()) +
                                    "), got " + std::to_string(grad_ys.size()));
    const graft_output none{nullptr, 0};
    std::vector<graft_output> values(xs.size(), none), indices(xs.size(), none), shapes(xs.size(), none);
    detail::check(graft_graph_add_gradients_sparse(
        values.data(), indices.data(), shapes.data(), c(), c_ys.data(), static_cast<int>(c_ys.size()), c_xs.data(),
        static_cast<int>(c_xs.size()), grad_ys.empty() ? nullptr : c_dys.data(),
        c_stop.empty() ? nullptr : c_stop.data(), static_cast<int>(c_stop.size()),
        unconnected_zero ? GRAFT_UNCONNECTED_ZERO : GRAFT_UNCONNECTED_NONE, scope.empty() ? nullptr : scope.c_str()));
    std::vector<std::vector<Output>> result(3);
    for (size_t i = 0; i < xs.size(); ++i) {
      result[0].push_back(values[i].op ? Output(g_, values[i]) : Output());
      result[1].push_back(indices[i].op ? Output(g_, indices[i]) : Output());
      result[2].push_back(shapes[i].op ? Output(g_, shapes[i]) : Output());
    }
    return result;
  }
  int num_functions() const { return graft_graph_num_functions(c()); }
  std::vector<std::string> function_names() const {
    std::vector<std::string> out;
    for (int i = 0; i < num_functions(); ++i) out.push_back(graft_graph_function_name(c(), i));
    return out;
  }

  /* Collections (string items, ops, tensors and host values by id). */
  void add_to_collection(const std::string &key, const CollectionItem &item) {
    graft_collection_item c_item = to_c(item);
    detail::check(graft_graph_add_to_collection(c(), key.c_str(), &c_item));
  }
  /* A copy of the collection; scope "" for all items. */
  std::vector<CollectionItem> get_collection(const std::string &key, const std::string &scope) const {
    graft_collection *col = nullptr;
    detail::check(graft_graph_get_collection(&col, c(), key.c_str(), scope.empty() ? nullptr : scope.c_str()));
    return items(col, true);
  }
  /* Replaces the collection's items (get_collection_ref's list, written back). */
  void set_collection(const std::string &key, const std::vector<CollectionItem> &new_items) {
    graft_collection *col = nullptr;
    detail::check(graft_graph_get_collection_ref(&col, c(), key.c_str()));
    graft_collection_clear(col);
    for (const CollectionItem &item : new_items) {
      graft_collection_item c_item = to_c(item);
      detail::check(graft_collection_append(col, &c_item));
    }
  }
  std::vector<std::string> collection_keys() const {
    graft_collection *col = nullptr;
    detail::check(graft_graph_collection_keys(&col, c()));
    std::vector<std::string> out;
    for (const CollectionItem &item : items(col, true)) out.push_back(item.string);
    return out;
  }
  bool same_as(const Graph &other) const { return c() == other.c(); }
  int64_t id() const { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(c())); }

#ifndef SWIG
  explicit Graph(std::shared_ptr<GraphRef> g) : g_(std::move(g)) {}
  graft_graph *c() const { return g_->graph; }
  const std::shared_ptr<GraphRef> &ref() const { return g_; }
#endif

 private:
  static const char *device_trampoline(const graft_op *op, void *payload) {
    // Graft copies the string at once; a thread-local keeps it alive until then.
    thread_local std::string device;
    auto *fn = static_cast<DeviceFunction *>(payload);
    try {
      device = fn->device_for(Operation(GraphRef::share(graft_op_graph(op)), const_cast<graft_op *>(op)));
    } catch (...) {
      device.clear();
    }
    return device.empty() ? nullptr : device.c_str();
  }
  static std::vector<graft_output> to_c(const std::vector<Output> &outputs) {
    std::vector<graft_output> out;
    for (const Output &o : outputs) out.push_back(o.c());
    return out;
  }
  static graft_collection_item to_c(const CollectionItem &item) {
    graft_collection_item c_item{};
    c_item.kind = item.kind;
    c_item.op = item.op_.c();
    c_item.tensor = item.tensor_.c();
    c_item.string = item.kind == GRAFT_ITEM_STRING || !item.string.empty() ? item.string.c_str() : nullptr;
    c_item.value = item.value;
    return c_item;
  }
  std::vector<CollectionItem> items(graft_collection *col, bool owned) const {
    std::unique_ptr<graft_collection, void (*)(graft_collection *)> guard(owned ? col : nullptr,
                                                                        graft_collection_free);
    std::vector<CollectionItem> out;
    for (int64_t i = 0, n = graft_collection_size(col); i < n; ++i) {
      graft_collection_item c_item{};
      detail::check(graft_collection_item_at(&c_item, col, i));
      CollectionItem item;
      item.kind = c_item.kind;
      if (c_item.op) item.op_ = Operation(g_, c_item.op);
      if (c_item.tensor.op) item.tensor_ = Output(g_, c_item.tensor);
      if (c_item.string) item.string = c_item.string;
      item.value = c_item.value;
      out.push_back(item);
    }
    return out;
  }
  std::shared_ptr<GraphRef> g_;
};

inline Graph Operation::graph() const { return Graph(g_); }

/*
 * What a gradient function sees while graft_graph_add_gradients calls it (valid during the
 * call only): the forward op, the incoming gradient of each of its outputs (invalid where none
 * flows) and the gradient to set for each input.
 */
class GradientContext {
 public:
  Operation op() const { return Operation(ref(), graft_gradient_context_op(c_)); }
  Graph graph() const { return Graph(ref()); }
  Output output_grad(int index) const {
    graft_output o{nullptr, 0};
    detail::check(graft_gradient_context_output_grad(&o, c_, index));
    return o.op ? Output(ref(), o) : Output();
  }
  /* An invalid output sets no gradient. */
  void set_input_grad(int index, const Output &grad) {
    detail::check(graft_gradient_context_set_input_grad(c_, index, grad.valid() ? grad.c() : graft_output{nullptr, 0}));
  }

#ifndef SWIG
  explicit GradientContext(graft_gradient_context *c) : c_(c) {}
#endif

 private:
  std::shared_ptr<GraphRef> ref() const {
    if (!g_) g_ = GraphRef::share(graft_gradient_context_graph(c_));
    return g_;
  }
  graft_gradient_context *c_ = nullptr;
  mutable std::shared_ptr<GraphRef> g_;
};

/*
 * A gradient function (director) registered for an op type or an override name
 * (graft_gradient_register): sets the inputs' gradients on ctx; returns "" on success, else the
 * message the gradient computation fails with. Registrations last as long as the process, so
 * fn must too (the bindings keep a reference in a process-wide registry).
 */
class GradientFunction {
 public:
  virtual ~GradientFunction() = default;
  virtual std::string gradient(GradientContext &ctx) = 0;

  static void register_function(const std::string &op_type, GradientFunction *fn) {
    detail::check(graft_gradient_register(op_type.c_str(), &GradientFunction::trampoline, fn));
  }
  /* Declares op_type not differentiable (NoGradient). */
  static void register_none(const std::string &op_type) { detail::check(graft_gradient_register_none(op_type.c_str())); }
  /* GRAFT_GRADIENT_UNREGISTERED (0), _FUNCTION (1) or _NONE (2). */
  static int lookup(const std::string &op_type) { return graft_gradient_lookup(op_type.c_str()); }

#ifndef SWIG
  static int trampoline(graft_gradient_context *ctx, void *user_data) {
    auto *fn = static_cast<GradientFunction *>(user_data);
    try {
      GradientContext context(ctx);
      std::string error = fn->gradient(context);
      if (!error.empty()) return graft_error_set(GRAFT_EINVAL, error.c_str());
      return GRAFT_OK;
    } catch (const Error &e) {
      return graft_error_set(e.code(), e.what());
    } catch (const std::exception &e) {
      return graft_error_set(GRAFT_EUNKNOWN, e.what());
    } catch (...) {
      return graft_error_set(GRAFT_EUNKNOWN, "graft: a gradient function failed");
    }
  }
#endif
};


#ifdef SWIG
/* SWIG sees the setters declared in each class that inherits them (OpBuilder, OpCall), so that
 * every language gets them as that class's own methods (Java's fluent setters return it). */
#define GRAFT_ATTR_SETTERS                                                       \
  void set_attr_int(const std::string &n, int64_t v);                            \
  void set_attr_float(const std::string &n, double v);                           \
  void set_attr_bool(const std::string &n, bool v);                              \
  void set_attr_dtype(const std::string &n, int v);                              \
  void set_attr_string(const std::string &n, const std::string &v);              \
  void set_attr_shape(const std::string &n, const Shape &v);                     \
  void set_attr_tensor(const std::string &n, const Tensor &v);                   \
  void set_attr_func(const std::string &n, const std::string &v);                \
  void set_attr_int_list(const std::string &n, const std::vector<int64_t> &v);   \
  void set_attr_float_list(const std::string &n, const std::vector<double> &v);  \
  void set_attr_bool_list(const std::string &n, const std::vector<bool> &v);     \
  void set_attr_dtype_list(const std::string &n, const std::vector<int> &v);     \
  void set_attr_string_list(const std::string &n, const std::vector<std::string> &v); \
  void set_attr_shape_list(const std::string &n, const std::vector<Shape> &v);   \
  void set_attr_tensor_list(const std::string &n, const std::vector<Tensor> &v); \
  void set_attr_func_list(const std::string &n, const std::vector<std::string> &v); \
  int attr_declared_type(const std::string &n);
#else
/*
 * The attr setters of an op being made (OpBuilder and OpCall), shared by every language. A
 * binding passes a host value by its kind (an integer, a float, a string, a list of integers
 * ...); the op's definition says what the attr is, and the value is set as that: an integer
 * for a float attr sets 1.0, a list of integers for a shape attr sets that shape, a string for a
 * type attr names a dtype, an empty list takes the declared list type. A value that cannot be
 * the declared type is GRAFT_EINVAL naming op type and attr. Attrs the definition does not
 * declare (such as "_class", or those of a function called as an op) take the value's own kind.
 */
class AttrSetter {
 public:
  virtual ~AttrSetter() = default;
  void set_attr_int(const std::string &n, int64_t v) {
    switch (declared(n)) {
      case GRAFT_ATTR_FLOAT: return detail::check(graft_attrs_set_float(a(), n.c_str(), static_cast<float>(v)));
      case GRAFT_ATTR_INT:
      case GRAFT_ATTR_NONE: return detail::check(graft_attrs_set_int(a(), n.c_str(), v));
      default: mismatch(n, "an integer");
    }
  }
  void set_attr_float(const std::string &n, double v) {
    expect(n, GRAFT_ATTR_FLOAT, "a float");
    detail::check(graft_attrs_set_float(a(), n.c_str(), static_cast<float>(v)));
  }
  void set_attr_bool(const std::string &n, bool v) {
    expect(n, GRAFT_ATTR_BOOL, "a bool");
    detail::check(graft_attrs_set_bool(a(), n.c_str(), v));
  }
  void set_attr_dtype(const std::string &n, int v) {
    expect(n, GRAFT_ATTR_TYPE, "a dtype");
    detail::check(graft_attrs_set_type(a(), n.c_str(), v));
  }
  void set_attr_string(const std::string &n, const std::string &v) {
    switch (declared(n)) {
      case GRAFT_ATTR_FUNC: return detail::check(graft_attrs_set_func(a(), n.c_str(), v.c_str()));
      case GRAFT_ATTR_TYPE: return detail::check(graft_attrs_set_type(a(), n.c_str(), dtype_named(v)));
      case GRAFT_ATTR_STRING:
      case GRAFT_ATTR_NONE: return detail::check(graft_attrs_set_string(a(), n.c_str(), v.data(), v.size()));
      default: mismatch(n, "a string");
    }
  }
  void set_attr_shape(const std::string &n, const Shape &v) {
    expect(n, GRAFT_ATTR_SHAPE, "a shape");
    detail::check(graft_attrs_set_shape(a(), n.c_str(), v.data(), v.rank()));
  }
  void set_attr_tensor(const std::string &n, const Tensor &v) {
    expect(n, GRAFT_ATTR_TENSOR, "a tensor");
    detail::check(graft_attrs_set_tensor(a(), n.c_str(), v.get()));
  }
  void set_attr_func(const std::string &n, const std::string &v) {
    expect(n, GRAFT_ATTR_FUNC, "a function");
    detail::check(graft_attrs_set_func(a(), n.c_str(), v.c_str()));
  }
  void set_attr_int_list(const std::string &n, const std::vector<int64_t> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    switch (t) {
      case GRAFT_ATTR_FLOAT_LIST: return set_float_list(n, std::vector<double>(v.begin(), v.end()));
      case GRAFT_ATTR_SHAPE: return set_attr_shape(n, Shape(v));
      case GRAFT_ATTR_INT_LIST:
      case GRAFT_ATTR_NONE:
        return detail::check(graft_attrs_set_int_list(a(), n.c_str(), v.data(), static_cast<int>(v.size())));
      default: mismatch(n, "a list of integers");
    }
  }
  void set_attr_float_list(const std::string &n, const std::vector<double> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_FLOAT_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of floats");
    set_float_list(n, v);
  }
  void set_attr_bool_list(const std::string &n, const std::vector<bool> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_BOOL_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of bools");
    std::vector<graft_bool> b(v.begin(), v.end());
    detail::check(graft_attrs_set_bool_list(a(), n.c_str(), b.data(), static_cast<int>(b.size())));
  }
  void set_attr_dtype_list(const std::string &n, const std::vector<int> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_TYPE_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of dtypes");
    std::vector<graft_dtype> d(v.begin(), v.end());
    detail::check(graft_attrs_set_type_list(a(), n.c_str(), d.data(), static_cast<int>(d.size())));
  }
  void set_attr_string_list(const std::string &n, const std::vector<std::string> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    switch (t) {
      case GRAFT_ATTR_TYPE_LIST: {
        std::vector<int> d;
        for (const std::string &s : v) d.push_back(dtype_named(s));
        return set_attr_dtype_list(n, d);
      }
      case GRAFT_ATTR_FUNC_LIST: return set_attr_func_list(n, v);
      case GRAFT_ATTR_STRING_LIST:
      case GRAFT_ATTR_NONE: {
        std::vector<const void *> p;
        std::vector<size_t> l;
        for (const auto &s : v) {
          p.push_back(s.data());
          l.push_back(s.size());
        }
        return detail::check(
            graft_attrs_set_string_list(a(), n.c_str(), p.data(), l.data(), static_cast<int>(p.size())));
      }
      default: mismatch(n, "a list of strings");
    }
  }
  void set_attr_shape_list(const std::string &n, const std::vector<Shape> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_SHAPE_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of shapes");
    std::vector<const int64_t *> dims;
    std::vector<int> ranks;
    for (const Shape &s : v) {
      dims.push_back(s.data());
      ranks.push_back(s.rank());
    }
    detail::check(graft_attrs_set_shape_list(a(), n.c_str(), dims.data(), ranks.data(), static_cast<int>(v.size())));
  }
  void set_attr_tensor_list(const std::string &n, const std::vector<Tensor> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_TENSOR_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of tensors");
    std::vector<const graft_tensor *> p;
    for (const Tensor &x : v) p.push_back(x.get());
    detail::check(graft_attrs_set_tensor_list(a(), n.c_str(), p.data(), static_cast<int>(p.size())));
  }
  void set_attr_func_list(const std::string &n, const std::vector<std::string> &v) {
    graft_attr_type t = declared(n);
    if (v.empty() && set_empty(n, t)) return;
    if (t != GRAFT_ATTR_FUNC_LIST && t != GRAFT_ATTR_NONE) mismatch(n, "a list of functions");
    std::vector<const char *> p;
    for (const std::string &s : v) p.push_back(s.c_str());
    detail::check(graft_attrs_set_func_list(a(), n.c_str(), p.data(), static_cast<int>(p.size())));
  }
  /* The type the op's definition declares for attr n (a graft_attr_type), GRAFT_ATTR_NONE when
   * it declares none. */
  int attr_declared_type(const std::string &n) { return declared(n); }

 protected:
  explicit AttrSetter(std::string op_type) : op_type_(std::move(op_type)) {}
  /* Borrowed from the description or call; NULL once it is gone (the C call then fails). */
  virtual graft_attrs *attrs() const = 0;

 private:
  graft_attrs *a() const { return attrs(); }
  graft_attr_type declared(const std::string &n) const {
    graft_attr_type t = GRAFT_ATTR_NONE;
    return graft_attrs_declared_type(&t, a(), n.c_str()) == GRAFT_OK ? t : GRAFT_ATTR_NONE;
  }
  void expect(const std::string &n, graft_attr_type want, const char *what) const {
    graft_attr_type t = declared(n);
    if (t != want && t != GRAFT_ATTR_NONE) mismatch(n, what);
  }
  [[noreturn]] void mismatch(const std::string &n, const char *what) const {
    static const char *const names[] = {"none",         "string",     "int",         "float",       "bool",
                                        "type",         "shape",      "tensor",      "func",        "placeholder",
                                        "list(string)", "list(int)",  "list(float)", "list(bool)",  "list(type)",
                                        "list(shape)",  "list(tensor)", "list(func)"};
    graft_attr_type t = declared(n);
    const char *declared_name = t >= 0 && t < 18 ? names[t] : "unknown";
    throw Error(GRAFT_EINVAL, "op type '" + op_type_ + "': attr '" + n + "' is declared " + declared_name + "; " +
                                  what + " cannot be one");
  }
  /* An empty list for a declared list type (any list kind of host value is empty the same way). */
  bool set_empty(const std::string &n, graft_attr_type t) {
    const char *name = n.c_str();
    switch (t) {
      case GRAFT_ATTR_STRING_LIST: detail::check(graft_attrs_set_string_list(a(), name, nullptr, nullptr, 0)); return true;
      case GRAFT_ATTR_INT_LIST: detail::check(graft_attrs_set_int_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_FLOAT_LIST: detail::check(graft_attrs_set_float_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_BOOL_LIST: detail::check(graft_attrs_set_bool_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_TYPE_LIST: detail::check(graft_attrs_set_type_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_SHAPE_LIST: detail::check(graft_attrs_set_shape_list(a(), name, nullptr, nullptr, 0)); return true;
      case GRAFT_ATTR_TENSOR_LIST: detail::check(graft_attrs_set_tensor_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_FUNC_LIST: detail::check(graft_attrs_set_func_list(a(), name, nullptr, 0)); return true;
      case GRAFT_ATTR_SHAPE: detail::check(graft_attrs_set_shape(a(), name, nullptr, 0)); return true;  // []: a scalar
      default: return false;
    }
  }
  void set_float_list(const std::string &n, const std::vector<double> &v) {
    std::vector<float> f(v.begin(), v.end());
    detail::check(graft_attrs_set_float_list(a(), n.c_str(), f.data(), static_cast<int>(f.size())));
  }
  static int dtype_named(const std::string &s) {
    graft_dtype d = 0;
    detail::check(graft_dtype_from_name(&d, s.c_str()));
    return d;
  }
  std::string op_type_;
};

#endif  // SWIG

/* Builds one op of a graph (graft_op_desc). */
class OpBuilder
#ifndef SWIG
    : public AttrSetter
#endif
{
 public:
#ifdef SWIG
  GRAFT_ATTR_SETTERS
#endif
  /* name "" for the op type. */
  OpBuilder(Graph &graph, const std::string &op_type, const std::string &name)
#ifndef SWIG
      : AttrSetter(op_type), g_(graph.ref())
#endif
  {
    detail::check(graft_op_desc_new(&desc_, graph.c(), op_type.c_str(), name.empty() ? nullptr : name.c_str()));
  }
  ~OpBuilder() { graft_op_desc_free(desc_); }
  OpBuilder(const OpBuilder &) = delete;
  OpBuilder &operator=(const OpBuilder &) = delete;
  void add_input(const Output &input) { detail::check(graft_op_desc_add_input(d(), input.c())); }
  void add_input_list(const std::vector<Output> &inputs) {
    std::vector<graft_output> c;
    for (const Output &o : inputs) c.push_back(o.c());
    detail::check(graft_op_desc_add_input_list(d(), c.data(), static_cast<int>(c.size())));
  }
  void add_control_input(const Operation &op) { detail::check(graft_op_desc_add_control_input(d(), op.c())); }
  void set_device(const std::string &device) { detail::check(graft_op_desc_set_device(d(), device.c_str())); }
  /* Adds the op to the graph; the builder cannot be used again. */
  Operation finish() {
    graft_op *op = nullptr;
    graft_op_desc *desc = d();
    desc_ = nullptr;  // finish consumes the description, on success and on failure
    detail::check(graft_op_desc_finish(&op, desc));
    return Operation(g_, op);
  }

 protected:
#ifndef SWIG
  graft_attrs *attrs() const override { return graft_op_desc_attrs(d()); }
#endif

 private:
  graft_op_desc *d() const {
    if (!desc_) throw Error(GRAFT_EPRECONDITION, "graft: OpBuilder.finish was called already");
    return desc_;
  }
  std::shared_ptr<GraphRef> g_;
  graft_op_desc *desc_ = nullptr;
};

/* A cancellation token (graft_cancellation): cancel() from any thread stops every run given it
 * before its next kernel (GRAFT_ECANCELLED); reset() makes it usable again. Copies share the
 * token. */
class Cancellation {
 public:
  Cancellation() {
    graft_cancellation *c = nullptr;
    detail::check(graft_cancellation_new(&c));
    c_.reset(c, graft_cancellation_free);
  }
  void cancel() { graft_cancellation_cancel(c_.get()); }
  bool cancelled() const { return graft_cancellation_is_cancelled(c_.get()) != 0; }
  void reset() { graft_cancellation_reset(c_.get()); }
#ifndef SWIG
  graft_cancellation *c() const { return c_.get(); }
#endif

 private:
  std::shared_ptr<graft_cancellation> c_;
};

namespace detail {
/* graft_run_options for a timeout (0: none) and a token (nullptr: none); NULL when neither. */
struct RunOptionsArg {
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  bool any = false;
  RunOptionsArg(int64_t timeout_ms, const Cancellation *cancellation) {
    opts.timeout_ms = timeout_ms;
    opts.cancellation = cancellation != nullptr ? cancellation->c() : nullptr;
    any = timeout_ms != 0 || cancellation != nullptr;
  }
  const graft_run_options *get() const { return any ? &opts : nullptr; }
};
}  // namespace detail

/* Runs a graph (graft_session): run may be called from many threads at once. */
class Session {
 public:
  /* num_threads 0: one per core; disabled_rewrites: GRAFT_REWRITE_* bits; default_device: the
   * device of ops that name none; strict_placement: ops must run on the device they name. */
  Session(Graph &graph, int num_threads = 0, bool track_memory = false, unsigned disabled_rewrites = 0,
          const std::string &default_device = "", bool strict_placement = false, int64_t max_memory_bytes = 0,
          const std::string &cluster = "")
      : g_(graph.ref()) {
    graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
    opts.cluster = cluster.c_str();
    opts.num_threads = num_threads;
    opts.track_memory = track_memory;
    opts.disabled_rewrites = disabled_rewrites;
    opts.default_device = default_device.c_str();
    opts.strict_placement = strict_placement;
    opts.max_memory_bytes = max_memory_bytes;
    graft_session *s = nullptr;
    detail::check(graft_session_new(&s, graph.c(), &opts));
    s_.reset(s, graft_session_free);
  }
  /* A cluster session's processes other than the client: serve its runs until it is freed
   * (graft_session_serve). */
  void serve() {
    if (!s_) throw Error(GRAFT_EPRECONDITION, "graft: use of a closed Session");
    detail::check(graft_session_serve(s_.get()));
  }
  /* timeout_ms > 0: the run stops with GRAFT_EDEADLINE after that long; cancellation: a token
   * that stops it (graft/run_options.h). */
  std::vector<Tensor> run(const std::vector<Output> &fetches, const std::vector<Output> &feeds,
                          const std::vector<Tensor> &feed_values, const std::vector<Operation> &targets,
                          int64_t timeout_ms = 0, const Cancellation *cancellation = nullptr) {
    if (!s_) throw Error(GRAFT_EPRECONDITION, "graft: use of a closed Session");
    if (feeds.size() != feed_values.size()) throw Error(GRAFT_EINVAL, "graft: run needs one value per feed");
    std::vector<graft_output> f, in;
    std::vector<graft_tensor *> vals;
    std::vector<graft_op *> t;
    for (const Output &o : fetches) f.push_back(o.c());
    for (const Output &o : feeds) in.push_back(o.c());
    for (const Tensor &v : feed_values) vals.push_back(v.get());
    for (const Operation &op : targets) t.push_back(op.c());
    std::vector<graft_tensor *> out(f.size(), nullptr);
    detail::RunOptionsArg opts(timeout_ms, cancellation);
    detail::check(graft_session_run_with_options(out.data(), s_.get(), in.data(), vals.data(),
                                                 static_cast<int>(in.size()), f.data(), static_cast<int>(f.size()),
                                                 t.data(), static_cast<int>(t.size()), opts.get()));
    std::vector<Tensor> result;
    for (graft_tensor *v : out) result.emplace_back(v);
    return result;
  }
  /* Frees the session (its variables) now; the graph lives on while others use it. Closing
   * again does nothing; running a closed session is an error. */
  void close() { s_.reset(); }
  bool closed() const { return !s_; }
  int64_t last_peak_bytes() const { return graft_session_last_peak_bytes(s_.get()); }
  int64_t last_ops_run() const { return graft_session_last_ops_run(s_.get()); }
  /* The bytes the session's tensors hold against max_memory_bytes; -1 without a cap. */
  int64_t memory_in_use() const { return graft_session_memory_in_use(s_.get()); }
  Graph graph() const { return Graph(g_); }
#ifndef SWIG
  Session(std::shared_ptr<graft_session> s, std::shared_ptr<GraphRef> g) : g_(std::move(g)), s_(std::move(s)) {}
  graft_session *c() const { return s_.get(); }
  const std::shared_ptr<graft_session> &shared() const { return s_; }
#endif

 private:
  std::shared_ptr<GraphRef> g_;
  std::shared_ptr<graft_session> s_;
};

/* A run of a session prepared once for fixed fetches, feeds and targets (graft_callable, as
 * TensorFlow's Session.make_callable): run takes only the feeds' values. It keeps its session
 * (which keeps its graph) alive, even past Session.close. run may be called from many threads
 * at once. */
class Callable {
 public:
  Callable(Session &session, const std::vector<Output> &fetches, const std::vector<Output> &feeds,
           const std::vector<Operation> &targets) {
    if (session.closed()) throw Error(GRAFT_EPRECONDITION, "graft: use of a closed Session");
    std::vector<graft_output> f, in;
    std::vector<graft_op *> t;
    for (const Output &o : fetches) f.push_back(o.c());
    for (const Output &o : feeds) in.push_back(o.c());
    for (const Operation &op : targets) t.push_back(op.c());
    graft_callable *c = nullptr;
    detail::check(graft_session_make_callable(&c, session.c(), in.data(), static_cast<int>(in.size()), f.data(),
                                              static_cast<int>(f.size()), t.data(), static_cast<int>(t.size())));
    // Declared after s_, so freed before the session it borrows.
    s_ = session.shared();
    c_.reset(c, graft_callable_free);
    nfeeds_ = in.size();
    nfetches_ = f.size();
  }
  /* timeout_ms and cancellation as Session::run's. */
  std::vector<Tensor> run(const std::vector<Tensor> &feed_values, int64_t timeout_ms = 0,
                          const Cancellation *cancellation = nullptr) {
    if (feed_values.size() != nfeeds_) {
      throw Error(GRAFT_EINVAL, "graft: the callable takes " + std::to_string(nfeeds_) + " feed values, got " +
                                    std::to_string(feed_values.size()));
    }
    std::vector<graft_tensor *> vals;
    vals.reserve(feed_values.size());
    for (const Tensor &v : feed_values) vals.push_back(v.get());
    std::vector<graft_tensor *> out(nfetches_, nullptr);
    detail::RunOptionsArg opts(timeout_ms, cancellation);
    detail::check(graft_callable_run_with_options(out.data(), c_.get(), vals.data(), static_cast<int>(vals.size()),
                                                  opts.get()));
    std::vector<Tensor> result;
    result.reserve(out.size());
    for (graft_tensor *v : out) result.emplace_back(v);
    return result;
  }

 private:
  std::shared_ptr<graft_session> s_;  // the session keeps its graph alive
  std::shared_ptr<graft_callable> c_;
  size_t nfeeds_ = 0, nfetches_ = 0;
};

}  // namespace graft

#include "graft_eager.hpp"
#include "graft_saved_model.hpp"

#endif /* GRAFT_BINDINGS_GRAFT_HPP */
