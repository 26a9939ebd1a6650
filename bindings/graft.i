/*
 * bindings/graft.i: the one SWIG interface of every binding (Python, Java, Go, Ruby).
 *
 * It wraps the C++ layer of bindings/graft.hpp (RAII handles over the public C API). Each
 * language adds its own typemaps and exception mapping in bindings/<language>/graft_<language>.i,
 * included below; callbacks into the host language are the directors TraceBody, HostFunction
 * DeviceFunction and GradientFunction, called from one C trampoline each (graft.hpp).
 *
 * Module name: given per language on the SWIG command line (-module).
 */
%module(directors="1") graft_swig

%{
#include "graft.hpp"
%}

%include <stdint.i>
%include <std_string.i>
%include <std_vector.i>

/* Binary data in: (pointer, length); a language's own typemaps, included next, may replace it. */
%apply (char *STRING, size_t LENGTH) { (const char *data, size_t len) };

/* Failures are graft::Error; every language maps them in its %exception (below). */
#if defined(SWIGPYTHON)
%include "python/graft_python.i"
#elif defined(SWIGJAVA)
%include "java/graft_java.i"
#elif defined(SWIGGO)
%include "go/graft_go.i"
#elif defined(SWIGRUBY)
%include "ruby/graft_ruby.i"
#endif

%feature("director") graft::TraceBody;
%feature("director") graft::HostFunction;
%feature("director") graft::DeviceFunction;
%feature("director") graft::GradientFunction;
%nodefaultctor graft::GradientContext;

%ignore graft::detail;
%ignore graft::GraphRef;
%ignore graft::Error;

%template(Int64Vector) std::vector<int64_t>;
%template(IntVector) std::vector<int>;
%template(FloatVector) std::vector<float>;
%template(DoubleVector) std::vector<double>;
%template(BoolVector) std::vector<bool>;
%template(StringVector) std::vector<std::string>;

%include "graft_c.i"

/* Vectors of the layer's classes, declared before the classes so that functions taking them
 * accept native lists. */
namespace graft {
class Tensor; class Output; class Operation; class Shape; class Value; class TensorSpec;
class CollectionItem; class Signature; class SignatureTensor; class DeviceInfo;
}
%template(TensorVector) std::vector<graft::Tensor>;
%template(OutputVector) std::vector<graft::Output>;
%template(OperationVector) std::vector<graft::Operation>;
%template(ShapeVector) std::vector<graft::Shape>;
%template(ValueVector) std::vector<graft::Value>;
%template(TensorSpecVector) std::vector<graft::TensorSpec>;
%template(CollectionItemVector) std::vector<graft::CollectionItem>;
%template(SignatureVector) std::vector<graft::Signature>;
%template(SignatureTensorVector) std::vector<graft::SignatureTensor>;
%template(DeviceInfoVector) std::vector<graft::DeviceInfo>;
%template(StringVectorVector) std::vector<std::vector<std::string> >;
%template(OutputVectorVector) std::vector<std::vector<graft::Output> >;
%template(ValueVectorVector) std::vector<std::vector<graft::Value> >;

%include "graft.hpp"
%include "graft_eager.hpp"
%include "graft_saved_model.hpp"

#if defined(SWIGPYTHON)
%include "python/graft_python_extra.i"
#elif defined(SWIGGO)
%include "go/graft_go_extra.i"
#endif
