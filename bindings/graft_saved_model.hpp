/*
 * bindings/graft_saved_model.hpp: SavedModels for the bindings (graft/saved_model.h).
 * Included by graft.hpp.
 */
#ifndef GRAFT_BINDINGS_GRAFT_SAVED_MODEL_HPP
#define GRAFT_BINDINGS_GRAFT_SAVED_MODEL_HPP

namespace graft {

/* One input or output of a signature. */
class SignatureTensor {
 public:
  std::string key;
  std::string tensor_name;
  int dtype = 0;
  Shape shape() const { return shape_; }
#ifndef SWIG
  Shape shape_;
#endif
};

/* A signature of a loaded SavedModel (a copy of its description). */
class Signature {
 public:
  std::string name;
  std::string method_name;
  /* How inputs and outputs nest, as JSON (graft_signature_structure). */
  std::string input_structure;
  std::string output_structure;
  std::vector<SignatureTensor> inputs() const { return inputs_; }
  std::vector<SignatureTensor> outputs() const { return outputs_; }
#ifndef SWIG
  std::vector<SignatureTensor> inputs_;
  std::vector<SignatureTensor> outputs_;
#endif
};

/* A loaded SavedModel: its graph, its session (variables restored) and its signatures. */
class SavedModel {
 public:
  /* tags empty: {"serve"}. */
  SavedModel(const std::string &dir, const std::vector<std::string> &tags) {
    std::vector<const char *> t;
    for (const auto &s : tags) t.push_back(s.c_str());
    graft_saved_model *m = nullptr;
    detail::check(graft_saved_model_load(&m, dir.c_str(), t.data(), static_cast<int>(t.size()), nullptr));
    m_.reset(m, graft_saved_model_free);
  }
  /* The tag sets in dir, one line each, tags separated by ','. */
  static std::string list_tags(const std::string &dir) {
    char *s = nullptr;
    detail::check(graft_saved_model_list_tags(&s, dir.c_str()));
    return detail::take_string(s);
  }
  std::vector<Signature> signatures() const {
    std::vector<Signature> out;
    for (int i = 0; i < graft_saved_model_num_signatures(m_.get()); ++i)
      out.push_back(describe(graft_saved_model_signature_at(m_.get(), i)));
    return out;
  }
  Signature signature(const std::string &name) const {
    const graft_signature *s = nullptr;
    detail::check(graft_saved_model_signature(&s, m_.get(), name.c_str()));
    return describe(s);
  }
  /* timeout_ms and cancellation as Session::run's. */
  std::vector<Tensor> run(const std::string &signature, const std::vector<std::string> &input_keys,
                          const std::vector<Tensor> &inputs, const std::vector<std::string> &output_keys,
                          int64_t timeout_ms = 0, const Cancellation *cancellation = nullptr) {
    if (input_keys.size() != inputs.size()) throw Error(GRAFT_EINVAL, "graft: run needs one tensor per input key");
    if (output_keys.empty()) throw Error(GRAFT_EINVAL, "graft: run needs the keys of the outputs to fetch");
    std::vector<const char *> ik, ok;
    std::vector<graft_tensor *> in;
    for (const auto &k : input_keys) ik.push_back(k.c_str());
    for (const auto &k : output_keys) ok.push_back(k.c_str());
    for (const Tensor &t : inputs) in.push_back(t.get());
    std::vector<graft_tensor *> out(ok.size(), nullptr);
    detail::RunOptionsArg opts(timeout_ms, cancellation);
    detail::check(graft_saved_model_run_with_options(out.data(), m_.get(), signature.c_str(), ik.data(), in.data(),
                                                     static_cast<int>(in.size()), ok.data(),
                                                     static_cast<int>(ok.size()), opts.get()));
    std::vector<Tensor> result;
    for (graft_tensor *t : out) result.emplace_back(t);
    return result;
  }
  /* The object graph (TensorFlow 2 models): objects by '.'-joined path of child names. */
  int object_kind(const std::string &path) const {
    graft_saved_object_kind k = 0;
    detail::check(graft_saved_model_object_kind(&k, m_.get(), path.c_str()));
    return k;
  }
  int object_id(const std::string &path) const {
    int id = 0;
    detail::check(graft_saved_model_object_id(&id, m_.get(), path.c_str()));
    return id;
  }
  std::vector<std::string> object_children(const std::string &path) const {
    char *s = nullptr;
    detail::check(graft_saved_model_object_children(&s, m_.get(), path.c_str()));
    std::string text = detail::take_string(s);
    std::vector<std::string> names;
    for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
      names.push_back(text.substr(start, end - start));
    return names;
  }
  /* The concrete functions of the function object at path (run each by name with run()). */
  std::vector<Signature> functions(const std::string &path) const {
    int n = 0;
    detail::check(graft_saved_model_function_count(&n, m_.get(), path.c_str()));
    std::vector<Signature> out;
    for (int i = 0; i < n; ++i) {
      const graft_signature *f = nullptr;
      detail::check(graft_saved_model_function_at(&f, m_.get(), path.c_str(), i));
      out.push_back(describe(f));
    }
    return out;
  }
  Tensor read_variable(const std::string &path) {
    graft_tensor *t = nullptr;
    detail::check(graft_saved_model_variable_read(&t, m_.get(), path.c_str()));
    return Tensor(t);
  }
  std::string asset_path(const std::string &path) const {
    char *s = nullptr;
    detail::check(graft_saved_model_asset_path(&s, m_.get(), path.c_str()));
    return detail::take_string(s);
  }

  /* The model's graph (a reference of its own: it outlives the model if kept). */
  Graph graph() const { return Graph(GraphRef::share(graft_saved_model_graph(m_.get()))); }
  Session session() const {
    Graph g = graph();
    std::shared_ptr<graft_session> s(m_, graft_saved_model_session(m_.get()));  // aliases the model
    return Session(s, g.ref());
  }

  /*
   * Saves session's graph and variables to dir under tags; signatures[i] maps keys to tensors:
   * input_keys/input_tensors and output_keys/output_tensors of signature names[i].
   */
  static void save(Session &session, const std::string &dir, const std::vector<std::string> &tags,
                   const std::vector<std::string> &names, const std::vector<std::vector<std::string>> &input_keys,
                   const std::vector<std::vector<Output>> &input_tensors,
                   const std::vector<std::vector<std::string>> &output_keys,
                   const std::vector<std::vector<Output>> &output_tensors) {
    std::vector<std::unique_ptr<graft_signature_def, void (*)(graft_signature_def *)>> defs;
    std::vector<const graft_signature_def *> raw;
    for (size_t i = 0; i < names.size(); ++i) {
      graft_signature_def *d = nullptr;
      detail::check(graft_signature_def_new(&d, names[i].c_str(), nullptr));
      defs.emplace_back(d, graft_signature_def_free);
      raw.push_back(d);
      for (size_t k = 0; i < input_keys.size() && k < input_keys[i].size(); ++k)
        detail::check(graft_signature_def_add(d, GRAFT_SIGNATURE_INPUT, input_keys[i][k].c_str(),
                                              input_tensors.at(i).at(k).c()));
      for (size_t k = 0; i < output_keys.size() && k < output_keys[i].size(); ++k)
        detail::check(graft_signature_def_add(d, GRAFT_SIGNATURE_OUTPUT, output_keys[i][k].c_str(),
                                              output_tensors.at(i).at(k).c()));
    }
    std::vector<const char *> t;
    for (const auto &s : tags) t.push_back(s.c_str());
    detail::check(graft_saved_model_save(session.c(), dir.c_str(), t.data(), static_cast<int>(t.size()), raw.data(),
                                         static_cast<int>(raw.size())));
  }

 private:
  Signature describe(const graft_signature *s) const {
    Signature sig;
    sig.name = graft_signature_name(s);
    sig.method_name = graft_signature_method_name(s);
    char *js = nullptr;
    detail::check(graft_signature_structure(&js, s, GRAFT_SIGNATURE_INPUT));
    sig.input_structure = detail::take_string(js);
    detail::check(graft_signature_structure(&js, s, GRAFT_SIGNATURE_OUTPUT));
    sig.output_structure = detail::take_string(js);
    for (int io = 0; io < 2; ++io) {
      for (int i = 0; i < graft_signature_count(s, io); ++i) {
        SignatureTensor t;
        t.key = graft_signature_key(s, io, i);
        t.tensor_name = graft_signature_tensor_name(s, io, i);
        t.dtype = graft_signature_dtype(s, io, i);
        graft_shape *shape = nullptr;
        detail::check(graft_signature_shape(&shape, s, io, i));
        t.shape_ = Shape::from_c(shape);
        (io == GRAFT_SIGNATURE_INPUT ? sig.inputs_ : sig.outputs_).push_back(t);
      }
    }
    return sig;
  }
  std::shared_ptr<graft_saved_model> m_;
};

}  // namespace graft

#endif /* GRAFT_BINDINGS_GRAFT_SAVED_MODEL_HPP */
