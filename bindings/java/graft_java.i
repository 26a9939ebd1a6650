/*
 * bindings/java/graft_java.i: the Java side of graft.i (SWIG -java -package dev.graft).
 *
 * What it does to the generated classes:
 *   - errors: graft::Error becomes dev.graft.GraftException (code, code name, C message);
 *   - memory: every proxy is AutoCloseable; close() frees the C++ object at once, and a
 *     java.lang.ref.Cleaner frees it when the proxy is collected (no finalize()); a closed
 *     object throws IllegalStateException when used;
 *   - types: int64_t is Java long (SWIG is run with -DSWIGWORDSIZE64, where C long would be a
 *     Java int); vectors of numbers are Java arrays (long[], float[], ...), vectors of strings
 *     and of the layer's classes are java.util.List; graft::Bytes is byte[];
 *   - references returned by the layer (const T &, including member variables) come back as
 *     owned copies, so that no proxy points into another object's memory;
 *   - names: methods and fields are lowerCamelCase (to_floats -> toFloats);
 *   - the idiomatic additions of bindings/java/src/dev/graft/ (Function.trace with lambdas,
 *     HostFunctions, fluent OpBuilder/OpCall, Session.Options, equals/hashCode/toString) are spliced into the
 *     proxies below; the classes they use are hand-written in that directory;
 *   - the public surface: only the proxies listed under "The public surface" are public classes,
 *     with the hand-written ones; SWIG's JNI class, module class, constants interface, vector
 *     classes, directors and pointer wrappers are package-private, as are every proxy's pointer
 *     constructor, getCPtr and delete (close() is the public way to free).
 */

/* ---- The public surface -------------------------------------------------------------------- */

/* Every class SWIG makes is package-private unless listed here: a new class of graft.hpp stays
 * out of the public API until it is designed in. */
%typemap(javaclassmodifiers) SWIGTYPE, SWIGTYPE *, SWIGTYPE &, SWIGTYPE &&, SWIGTYPE [], SWIGTYPE (CLASS::*) "class"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) moduleclassmodifiers="final class"
/* The constants interface (graft_swigConstants) has no such pragma: SWIG writes it "public
 * interface" always, so CMakeLists.txt's jar rule rewrites that line (hide_constants.cmake). */

%define GRAFT_JAVA_PUBLIC(CLASS)
%typemap(javaclassmodifiers) CLASS "public class"
%enddef
GRAFT_JAVA_PUBLIC(graft::Tensor)
GRAFT_JAVA_PUBLIC(graft::Shape)
GRAFT_JAVA_PUBLIC(graft::Output)
GRAFT_JAVA_PUBLIC(graft::Operation)
GRAFT_JAVA_PUBLIC(graft::Graph)
GRAFT_JAVA_PUBLIC(graft::OpBuilder)
GRAFT_JAVA_PUBLIC(graft::Session)
GRAFT_JAVA_PUBLIC(graft::Callable)
GRAFT_JAVA_PUBLIC(graft::Cancellation)
GRAFT_JAVA_PUBLIC(graft::CollectionItem)
GRAFT_JAVA_PUBLIC(graft::ImportResult)
GRAFT_JAVA_PUBLIC(graft::Library)
GRAFT_JAVA_PUBLIC(graft::DeviceInfo)
GRAFT_JAVA_PUBLIC(graft::SavedModel)
GRAFT_JAVA_PUBLIC(graft::Signature)
GRAFT_JAVA_PUBLIC(graft::SignatureTensor)
GRAFT_JAVA_PUBLIC(graft::Context)
GRAFT_JAVA_PUBLIC(graft::Value)
GRAFT_JAVA_PUBLIC(graft::ArgList)
GRAFT_JAVA_PUBLIC(graft::OpCall)
GRAFT_JAVA_PUBLIC(graft::TensorSpec)
GRAFT_JAVA_PUBLIC(graft::Function)
GRAFT_JAVA_PUBLIC(graft::ConcreteFunction)
GRAFT_JAVA_PUBLIC(graft::GradientTape)

/* Public methods of public classes that take or give a hidden class are hidden with them. */
%javamethodmodifiers graft::ArgList::get "";                 /* an Arg: value(i) and object(i) read it */
%javamethodmodifiers graft::Function::call_values "";        /* a FunctionCall */
%javamethodmodifiers graft::Context::cond "";                /* TraceBody directors: the TraceFn overloads */
%javamethodmodifiers graft::Context::while_loop "";

/* ---- Errors ------------------------------------------------------------------------------- */

%{
/* Throws dev.graft.GraftException(code, codeName, message) into the JVM. */
static void graft_java_throw(JNIEnv *jenv, int code, const char *message) {
  if (jenv->ExceptionCheck()) return; /* a Java exception is already on its way */
  jclass cls = jenv->FindClass("dev/graft/GraftException");
  if (!cls) return; /* NoClassDefFoundError is pending */
  jmethodID ctor = jenv->GetMethodID(cls, "<init>", "(ILjava/lang/String;Ljava/lang/String;)V");
  if (ctor) {
    const char *name = graft_status_name(code);
    jstring jname = jenv->NewStringUTF(name ? name : "GRAFT_EUNKNOWN");
    jstring jmessage = jenv->NewStringUTF(message ? message : "");
    jobject exc = jenv->NewObject(cls, ctor, (jint)code, jname, jmessage);
    if (exc) jenv->Throw(static_cast<jthrowable>(exc));
    jenv->DeleteLocalRef(jname);
    jenv->DeleteLocalRef(jmessage);
    jenv->DeleteLocalRef(exc);
  }
  jenv->DeleteLocalRef(cls);
}
%}

%exception {
  try {
    $action
  } catch (const graft::Error &e) {
    graft_java_throw(jenv, e.code(), e.what());
    return $null;
  } catch (const std::exception &e) {
    SWIG_JavaThrowException(jenv, SWIG_JavaRuntimeException, e.what());
    return $null;
  }
}

/* A method called on a closed proxy (its pointer is 0) throws instead of crashing. */
%typemap(check) SWIGTYPE *self %{
  if (!$1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalStateException, "graft: use of a closed $1_basetype");
    return $null;
  }
%}

/* ---- int64_t is Java long ----------------------------------------------------------------- */

/* With -DSWIGWORDSIZE64, stdint.i makes int64_t a C long (as it is on LP64 Linux), which SWIG's
 * Java typemaps would pass as a 32-bit int: pass C long as a Java long instead. */
%apply long long { long, long int, signed long };
%apply const long long & { const long &, const long int & };

/* ---- Memory: AutoCloseable proxies freed by close() or by a Cleaner ------------------------ */

%typemap(javainterfaces) SWIGTYPE "AutoCloseable"
%typemap(javafinalize) SWIGTYPE ""

%typemap(javabody) SWIGTYPE %{
  private transient long swigCPtr;
  transient boolean swigCMemOwn;
  private transient NativeHandle swigHandle;

  $javaclassname(long cPtr, boolean cMemoryOwn) {
    swigCMemOwn = cMemoryOwn;
    swigCPtr = cPtr;
    if (cMemoryOwn && cPtr != 0)
      swigHandle = NativeHandle.register(this, cPtr, $imclassname::delete_$javaclassname);
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }

  static long swigRelease($javaclassname obj) {
    long ptr = 0;
    if (obj != null) {
      if (!obj.swigCMemOwn)
        throw new RuntimeException("Cannot release ownership as memory is not owned");
      ptr = obj.swigCPtr;
      obj.swigCMemOwn = false;
      obj.delete();
    }
    return ptr;
  }

  /** Frees the C++ object now (idempotent); the object cannot be used afterwards. */
  public void close() {
    delete();
  }

  /** Whether close() was called (or the object was never valid). */
  public boolean isClosed() {
    return swigCPtr == 0;
  }
%}

%typemap(javadestruct, methodname="delete", methodmodifiers="synchronized", parameters="") SWIGTYPE {
    if (swigCPtr != 0) {
      if (swigHandle != null) {
        if (swigCMemOwn)
          swigHandle.free();
        else
          swigHandle.disown();
      }
      swigCMemOwn = false;
      swigCPtr = 0;
    }
  }

/* Directors: releasing ownership to C++ must also disarm the Cleaner. */
%typemap(directorowner_release, methodname="swigReleaseOwnership") SWIGTYPE %{
  public void $methodname() {
    swigCMemOwn = false;
    if (swigHandle != null) swigHandle.disown();
    $jnicall;
  }
%}
%typemap(directorowner_take, methodname="swigTakeOwnership") SWIGTYPE %{
  public void $methodname() {
    swigCMemOwn = true;
    if (swigHandle == null && swigCPtr != 0)
      swigHandle = NativeHandle.register(this, swigCPtr, $imclassname::delete_$javaclassname);
    $jnicall;
  }
%}

/* References returned by the layer come back as owned copies (every class of the layer is a
 * cheap handle), so no proxy points into an object that may be freed first. */
%naturalvar;
%typemap(out) const SWIGTYPE & %{ *($1_ltype *)&$result = new $*1_ltype(*$1); %}
%typemap(javaout) const SWIGTYPE & {
    return new $javaclassname($jnicall, true);
  }

/* The SWIG vector classes are built from arrays and lists by their own constructors. */
%ignore std::vector::vector(const vector &);

/* Every Java proxy's close() frees its C++ object (AutoCloseable): a Session's close() is that. */
%ignore graft::Session::close;
%ignore graft::Session::closed;

/* ---- Vectors of numbers: Java arrays ------------------------------------------------------- */

%define GRAFT_JAVA_ARRAY(CTYPE, JNIELEM, JNIARRAY, JAVAELEM, GET, SET, NEW)
%typemap(jni) std::vector<CTYPE>, const std::vector<CTYPE> & "JNIARRAY"
%typemap(jtype) std::vector<CTYPE>, const std::vector<CTYPE> & "JAVAELEM[]"
%typemap(jstype) std::vector<CTYPE>, const std::vector<CTYPE> & "JAVAELEM[]"
%typemap(javain) std::vector<CTYPE>, const std::vector<CTYPE> & "$javainput"
%typemap(javaout) std::vector<CTYPE>, const std::vector<CTYPE> & {
    return $jnicall;
  }
%typemap(in) const std::vector<CTYPE> & (std::vector<CTYPE> temp) {
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null JAVAELEM[]");
    return $null;
  }
  temp.resize(jenv->GetArrayLength($input));
  if (!temp.empty()) jenv->GET($input, 0, (jsize)temp.size(), reinterpret_cast<JNIELEM *>(temp.data()));
  $1 = &temp;
}
%typemap(in) std::vector<CTYPE> {
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null JAVAELEM[]");
    return $null;
  }
  $1.resize(jenv->GetArrayLength($input));
  if (!$1.empty()) jenv->GET($input, 0, (jsize)$1.size(), reinterpret_cast<JNIELEM *>($1.data()));
}
%typemap(out) std::vector<CTYPE> {
  const std::vector<CTYPE> &graft_v = $1;
  $result = jenv->NEW((jsize)graft_v.size());
  if ($result && !graft_v.empty())
    jenv->SET($result, 0, (jsize)graft_v.size(), reinterpret_cast<const JNIELEM *>(graft_v.data()));
}
%typemap(out) const std::vector<CTYPE> & {
  $result = jenv->NEW((jsize)$1->size());
  if ($result && !$1->empty())
    jenv->SET($result, 0, (jsize)$1->size(), reinterpret_cast<const JNIELEM *>($1->data()));
}
%enddef

%{
static_assert(sizeof(jlong) == sizeof(int64_t), "jlong is int64_t");
static_assert(sizeof(jint) == sizeof(int), "jint is int");
static_assert(sizeof(jfloat) == sizeof(float) && sizeof(jdouble) == sizeof(double), "IEEE floats");
%}

GRAFT_JAVA_ARRAY(int64_t, jlong, jlongArray, long, GetLongArrayRegion, SetLongArrayRegion, NewLongArray)
GRAFT_JAVA_ARRAY(long, jlong, jlongArray, long, GetLongArrayRegion, SetLongArrayRegion, NewLongArray)
GRAFT_JAVA_ARRAY(int32_t, jint, jintArray, int, GetIntArrayRegion, SetIntArrayRegion, NewIntArray)
GRAFT_JAVA_ARRAY(int, jint, jintArray, int, GetIntArrayRegion, SetIntArrayRegion, NewIntArray)
GRAFT_JAVA_ARRAY(float, jfloat, jfloatArray, float, GetFloatArrayRegion, SetFloatArrayRegion, NewFloatArray)
GRAFT_JAVA_ARRAY(double, jdouble, jdoubleArray, double, GetDoubleArrayRegion, SetDoubleArrayRegion, NewDoubleArray)

/* std::vector<bool> has no data(): element by element. */
%typemap(jni) std::vector<bool>, const std::vector<bool> & "jbooleanArray"
%typemap(jtype) std::vector<bool>, const std::vector<bool> & "boolean[]"
%typemap(jstype) std::vector<bool>, const std::vector<bool> & "boolean[]"
%typemap(javain) std::vector<bool>, const std::vector<bool> & "$javainput"
%typemap(javaout) std::vector<bool>, const std::vector<bool> & {
    return $jnicall;
  }
%typemap(in) const std::vector<bool> & (std::vector<bool> temp) {
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null boolean[]");
    return $null;
  }
  jsize n = jenv->GetArrayLength($input);
  jboolean *elems = jenv->GetBooleanArrayElements($input, 0);
  if (!elems) return $null;
  for (jsize i = 0; i < n; ++i) temp.push_back(elems[i] != 0);
  jenv->ReleaseBooleanArrayElements($input, elems, JNI_ABORT);
  $1 = &temp;
}
%typemap(out) std::vector<bool> {
  const std::vector<bool> &graft_v = $1;
  $result = jenv->NewBooleanArray((jsize)graft_v.size());
  for (jsize i = 0; $result && i < (jsize)graft_v.size(); ++i) {
    jboolean b = graft_v[i] ? JNI_TRUE : JNI_FALSE;
    jenv->SetBooleanArrayRegion($result, i, 1, &b);
  }
}

/* ---- Vectors of strings and of the layer's classes: java.util.List ------------------------- */

%typemap(jni) std::vector<std::string>, const std::vector<std::string> & "jobjectArray"
%typemap(jtype) std::vector<std::string>, const std::vector<std::string> & "String[]"
%typemap(jstype) std::vector<std::string>, const std::vector<std::string> & "java.util.List<String>"
%typemap(javain) std::vector<std::string>, const std::vector<std::string> & "$javainput.toArray(new String[0])"
%typemap(javaout) std::vector<std::string>, const std::vector<std::string> & {
    return java.util.List.of($jnicall);
  }
%typemap(in) const std::vector<std::string> & (std::vector<std::string> temp) {
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null list of strings");
    return $null;
  }
  jsize n = jenv->GetArrayLength($input);
  for (jsize i = 0; i < n; ++i) {
    jstring s = (jstring)jenv->GetObjectArrayElement($input, i);
    if (!s) {
      SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null string in a list");
      return $null;
    }
    const char *chars = jenv->GetStringUTFChars(s, 0);
    if (!chars) return $null;
    temp.push_back(chars);
    jenv->ReleaseStringUTFChars(s, chars);
    jenv->DeleteLocalRef(s);
  }
  $1 = &temp;
}
%{
static jobjectArray graft_java_strings(JNIEnv *jenv, const std::vector<std::string> &v) {
  jclass string_class = jenv->FindClass("java/lang/String");
  if (!string_class) return 0;
  jobjectArray out = jenv->NewObjectArray((jsize)v.size(), string_class, 0);
  for (jsize i = 0; out && i < (jsize)v.size(); ++i) {
    jstring s = jenv->NewStringUTF(v[i].c_str());
    if (!s) return 0;
    jenv->SetObjectArrayElement(out, i, s);
    jenv->DeleteLocalRef(s);
  }
  jenv->DeleteLocalRef(string_class);
  return out;
}
%}
%typemap(out) std::vector<std::string> %{ $result = graft_java_strings(jenv, $1); %}
%typemap(out) const std::vector<std::string> & %{ $result = graft_java_strings(jenv, *$1); %}

/* A vector of a class is passed through its SWIG vector class (built from the list, freed after
 * the call) and comes back as a java.util.ArrayList of owned copies. */
%define GRAFT_JAVA_LIST(CTYPE, JTYPE, VECTOR)
%typemap(jstype) std::vector<CTYPE>, const std::vector<CTYPE> & "java.util.List<JTYPE>"
%typemap(jtype, nopgcpp="1") const std::vector<CTYPE> & "long"
%typemap(javain, pre="    VECTOR temp$javainput = new VECTOR($javainput);",
         post="      temp$javainput.delete();") const std::vector<CTYPE> & "VECTOR.getCPtr(temp$javainput)"
%typemap(javaout) std::vector<CTYPE> {
    VECTOR v = new VECTOR($jnicall, true);
    try {
      return new java.util.ArrayList<JTYPE>(v);
    } finally {
      v.delete();
    }
  }
%typemap(javaout) const std::vector<CTYPE> & {
    VECTOR v = new VECTOR($jnicall, true);
    try {
      return new java.util.ArrayList<JTYPE>(v);
    } finally {
      v.delete();
    }
  }
%enddef

namespace graft {
class Tensor; class Output; class Operation; class Shape; class Value; class TensorSpec;
class CollectionItem; class Signature; class SignatureTensor; class DeviceInfo;
}

GRAFT_JAVA_LIST(graft::Tensor, Tensor, TensorVector)
GRAFT_JAVA_LIST(graft::Output, Output, OutputVector)
GRAFT_JAVA_LIST(graft::Operation, Operation, OperationVector)
GRAFT_JAVA_LIST(graft::Shape, Shape, ShapeVector)
GRAFT_JAVA_LIST(graft::Value, Value, ValueVector)
GRAFT_JAVA_LIST(graft::TensorSpec, TensorSpec, TensorSpecVector)
GRAFT_JAVA_LIST(graft::CollectionItem, CollectionItem, CollectionItemVector)
GRAFT_JAVA_LIST(graft::Signature, Signature, SignatureVector)
GRAFT_JAVA_LIST(graft::SignatureTensor, SignatureTensor, SignatureTensorVector)
GRAFT_JAVA_LIST(graft::DeviceInfo, DeviceInfo, DeviceInfoVector)
GRAFT_JAVA_LIST(std::vector<std::string>, java.util.List<String>, StringVectorVector)
GRAFT_JAVA_LIST(std::vector<graft::Output>, java.util.List<Output>, OutputVectorVector)
GRAFT_JAVA_LIST(std::vector<graft::Value>, java.util.List<Value>, ValueVectorVector)

/* ---- Bytes: byte[] ------------------------------------------------------------------------- */

%typemap(jni) graft::Bytes "jbyteArray"
%typemap(jtype) graft::Bytes "byte[]"
%typemap(jstype) graft::Bytes "byte[]"
%typemap(javaout) graft::Bytes {
    return $jnicall;
  }
%typemap(out) graft::Bytes {
  const std::string &graft_b = $1;
  $result = jenv->NewByteArray((jsize)graft_b.size());
  if ($result && !graft_b.empty())
    jenv->SetByteArrayRegion($result, 0, (jsize)graft_b.size(), reinterpret_cast<const jbyte *>(graft_b.data()));
}

/* ---- Names --------------------------------------------------------------------------------- */

%rename("%(lowercamelcase)s", %$isfunction, %$ismember) "";
%rename("%(lowercamelcase)s", %$isvariable, %$ismember) "";

/* Enums are plain int constants (graft_swig.GRAFT_FLOAT32, ...; see dev.graft.DType). */
%include <enumsimple.swg>

/* Names that would clash with java.lang.Object's methods, or read better in Java. */
%rename(finalizeGraph) graft::Graph::finalize;
%rename(isFinalized) graft::Graph::finalized;
%rename(isValid) valid;

/* Callbacks must stay referenced while C++ may call them: these are reached through the
 * idiomatic methods (Function.trace, HostFunctions, Graph.pushDeviceFunction) that keep them. */
%javamethodmodifiers graft::Function::Function "";
%javamethodmodifiers graft::HostFunction::register_function "protected";
%javamethodmodifiers graft::HostFunction::unregister_function "protected";
%rename(pushDeviceFunctionRaw) graft::Graph::push_device_function;
%rename(pushDeviceRaw) graft::Graph::push_device;
%rename(popDeviceRaw) graft::Graph::pop_device;
%javamethodmodifiers graft::Graph::push_device_function "private";
%javamethodmodifiers graft::Graph::push_device "private";
%javamethodmodifiers graft::Graph::pop_device "private";

/* The machine's devices (Graft.listDevices()): DeviceInfo is a copy, read through its getters
 * (getName(), getDeviceType(), ..., getComputeUnits()). */
%immutable graft::DeviceInfo::name;
%immutable graft::DeviceInfo::device_type;
%immutable graft::DeviceInfo::model;
%immutable graft::DeviceInfo::vendor;
%immutable graft::DeviceInfo::driver;
%immutable graft::DeviceInfo::memory_bytes;
%immutable graft::DeviceInfo::compute_units;
%javamethodmodifiers graft::list_devices "";

/* Op libraries (Graft.loadOpLibrary, Library.load): a Library is a copy of what was loaded,
 * read with path(), opNames() and functionNames(). */
%javamethodmodifiers graft::op_function_name "";

/* Context.hostFunctionCall(token, inputs, DType.FLOAT32, ...): output dtypes as varargs. */
%typemap(jstype) const std::vector<int> &tout "int..."

/* ---- Fluent builders: OpBuilder, OpCall and ArgList setters return this -------------------- */

/* The attr setters are graft.hpp's AttrSetter, which OpBuilder and OpCall inherit; SWIG sees them
 * declared in each of the two classes (graft.hpp's GRAFT_ATTR_SETTERS), so each proxy has every
 * setter as its own method and GRAFT_JAVA_FLUENT_ATTRS makes it return that proxy. */

%define GRAFT_JAVA_FLUENT(CLASS, JCLASS, METHOD)
%typemap(jstype) void CLASS::METHOD "JCLASS"
%typemap(javaout) void CLASS::METHOD {
    $jnicall;
    return this;
  }
%enddef
%define GRAFT_JAVA_FLUENT_ATTRS(CLASS, JCLASS)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, add_input)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, add_input_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_int)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_float)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_bool)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_dtype)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_string)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_shape)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_tensor)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_func)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_int_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_dtype_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_float_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_bool_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_string_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_shape_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_tensor_list)
GRAFT_JAVA_FLUENT(CLASS, JCLASS, set_attr_func_list)
%enddef
GRAFT_JAVA_FLUENT_ATTRS(graft::OpBuilder, OpBuilder)
GRAFT_JAVA_FLUENT(graft::OpBuilder, OpBuilder, add_control_input)
GRAFT_JAVA_FLUENT(graft::OpBuilder, OpBuilder, set_device)
GRAFT_JAVA_FLUENT_ATTRS(graft::OpCall, OpCall)
GRAFT_JAVA_FLUENT(graft::OpCall, OpCall, set_name)
GRAFT_JAVA_FLUENT(graft::ArgList, ArgList, add_value)
GRAFT_JAVA_FLUENT(graft::ArgList, ArgList, add_int)
GRAFT_JAVA_FLUENT(graft::ArgList, ArgList, add_float)
GRAFT_JAVA_FLUENT(graft::ArgList, ArgList, add_string)
GRAFT_JAVA_FLUENT(graft::ArgList, ArgList, add_bool)
GRAFT_JAVA_FLUENT(graft::ValueList, ValueList, append)
GRAFT_JAVA_FLUENT(graft::TensorList, TensorList, append)

/* finish() consumes the builder: free it at once. */
%typemap(javaout) graft::Operation graft::OpBuilder::finish {
    try {
      return new Operation($jnicall, true);
    } finally {
      delete();
    }
  }

/* ---- Idiomatic additions to the proxies ---------------------------------------------------- */

/*
 * Tensors: every public factory takes (data, shape[, dtype]), as Context's do; the layer's
 * (dims, data) ones are renamed *Raw and kept private. n-d Java arrays go in through
 * fromArray and come out through toArray / copyTo (NdArrays.java).
 */
%rename(fromFloatsRaw) graft::Tensor::from_floats;
%rename(fromDoublesRaw) graft::Tensor::from_doubles;
%rename(fromInt32sRaw) graft::Tensor::from_int32s;
%rename(fromInt64sRaw) graft::Tensor::from_int64s;
%rename(fromStringsRaw) graft::Tensor::from_strings;
%rename(fromBytesRaw) graft::Tensor::from_bytes;
%rename(zerosRaw) graft::Tensor::zeros;
%javamethodmodifiers graft::Tensor::from_floats "private";
%javamethodmodifiers graft::Tensor::from_doubles "private";
%javamethodmodifiers graft::Tensor::from_int32s "private";
%javamethodmodifiers graft::Tensor::from_int64s "private";
%javamethodmodifiers graft::Tensor::from_strings "private";
%javamethodmodifiers graft::Tensor::from_bytes "private";
%javamethodmodifiers graft::Tensor::zeros "private";

%extend graft::Tensor {
%proxycode %{
  /** A float32 tensor of shape with data's elements (row-major). */
  public static Tensor fromFloats(float[] data, long[] shape) {
    return fromFloatsRaw(shape, data);
  }

  /** A float64 tensor of shape with data's elements (row-major). */
  public static Tensor fromDoubles(double[] data, long[] shape) {
    return fromDoublesRaw(shape, data);
  }

  /** An int32 tensor of shape with data's elements (row-major). */
  public static Tensor fromInt32s(int[] data, long[] shape) {
    return fromInt32sRaw(shape, data);
  }

  /** An int64 tensor of shape with data's elements (row-major). */
  public static Tensor fromInt64s(long[] data, long[] shape) {
    return fromInt64sRaw(shape, data);
  }

  /** A string tensor of shape with data's elements (row-major; UTF-8). */
  public static Tensor fromStrings(java.util.List<String> data, long[] shape) {
    return fromStringsRaw(shape, data);
  }

  /**
   * A tensor of dtype and shape whose elements are data's bytes, as the C API lays them out
   * (little-endian, row-major); e.g. uint8 data: {@code fromBytes(bytes, shape, DType.UINT8)}.
   */
  public static Tensor fromBytes(byte[] data, long[] shape, int dtype) {
    return fromBytesRaw(dtype, shape, data);
  }

  /** A tensor of shape and dtype filled with zeros. */
  public static Tensor zeros(long[] shape, int dtype) {
    return zerosRaw(dtype, shape);
  }

  /** A float32 scalar. */
  public static Tensor scalar(float v) {
    return fromFloatsRaw(new long[0], new float[] {v});
  }

  /** A float64 scalar. */
  public static Tensor scalar(double v) {
    return fromDoublesRaw(new long[0], new double[] {v});
  }

  /** An int32 scalar. */
  public static Tensor scalar(int v) {
    return fromInt32sRaw(new long[0], new int[] {v});
  }

  /** An int64 scalar. */
  public static Tensor scalar(long v) {
    return fromInt64sRaw(new long[0], new long[] {v});
  }

  /**
   * A tensor of an n-d Java array, its shape the array's nesting and its dtype the elements':
   * float[]... FLOAT32, double FLOAT64, int INT32, long INT64, boolean BOOL, byte UINT8 (bit
   * for bit), String STRING; a boxed scalar (Float, ..., or a String) is a tensor of rank 0.
   * {@code Tensor.fromArray(new float[][] {{1, 2, 3}, {4, 5, 6}})} is float32 of shape [2, 3].
   * Throws IllegalArgumentException naming the dimension and where for a ragged array (or a
   * null sub-array), and for other element types.
   */
  public static Tensor fromArray(Object array) {
    return fromFlat(NdArrays.flatten(array), DType.INVALID);
  }

  /**
   * fromArray converting the elements to dtype by the C API's rule (convert_to_tensor: each
   * element must fit dtype, else GraftException): {@code fromArray(new double[][] {...},
   * DType.FLOAT32)}, {@code fromArray(new int[] {1, 2}, DType.INT64)}. byte elements are
   * unsigned (uint8) but for dtype INT8.
   */
  public static Tensor fromArray(Object array, int dtype) {
    return fromFlat(NdArrays.flatten(array), dtype);
  }

  /* dtype INVALID: the elements' own dtype. */
  private static Tensor fromFlat(NdArrays.Flat f, int dtype) {
    Object d = f.data;
    long[] shape = f.shape;
    if (dtype == DType.INVALID || dtype == f.dtype()) {
      if (d instanceof float[]) return fromFloatsRaw(shape, (float[]) d);
      if (d instanceof double[]) return fromDoublesRaw(shape, (double[]) d);
      if (d instanceof int[]) return fromInt32sRaw(shape, (int[]) d);
      if (d instanceof long[]) return fromInt64sRaw(shape, (long[]) d);
      if (d instanceof byte[]) return fromBytesRaw(DType.UINT8, shape, (byte[]) d);
      if (d instanceof boolean[]) return fromHostBools((boolean[]) d, shape, DType.BOOL);
      return fromStringsRaw(shape, java.util.Arrays.asList((String[]) d));
    }
    if (d instanceof float[]) return fromHostDoubles(NdArrays.widen((float[]) d), shape, dtype);
    if (d instanceof double[]) return fromHostDoubles((double[]) d, shape, dtype);
    if (d instanceof int[]) return fromHostInts(NdArrays.widen((int[]) d), shape, dtype);
    if (d instanceof long[]) return fromHostInts((long[]) d, shape, dtype);
    if (d instanceof byte[]) return fromHostInts(NdArrays.widen((byte[]) d, dtype == DType.INT8), shape, dtype);
    if (d instanceof boolean[]) return fromHostBools((boolean[]) d, shape, dtype);
    return fromHostStrings(java.util.Arrays.asList((String[]) d), shape, dtype);
  }

  /* The elements flat, as an array of the dtype's Java element type (NdArrays.elementType). */
  Object flatElements() {
    int dt = dtype();
    NdArrays.elementType(dt); // GRAFT_EDTYPE for a dtype with none
    if (dt == DType.FLOAT32) return toFloats();
    if (dt == DType.FLOAT64) return toDoubles();
    if (dt == DType.INT32) return toInt32s();
    if (dt == DType.INT64) return toInt64s();
    if (dt == DType.BOOL) return NdArrays.bools(bytes()); // a bool is one byte (DType.size(BOOL) == 1)
    if (dt == DType.STRING) return toStrings().toArray(new String[0]);
    return bytes(); // uint8, int8
  }

  /**
   * The elements as an n-d Java array of the tensor's shape: {@code float[][] m = (float[][])
   * t.toArray()} for a float32 matrix (element types as fromArray's; int8 gives byte too). A
   * scalar (rank 0) gives its value boxed (a Float, ..., a String). Throws GraftException
   * (GRAFT_EDTYPE) for a dtype with no Java element type (float16, complex64, ...).
   */
  public Object toArray() {
    int dt = dtype();
    return NdArrays.unflatten(flatElements(), NdArrays.elementType(dt), shape());
  }

  /**
   * Copies the elements into dst, an n-d array of the tensor's shape and element type (as
   * TensorFlow Java's copyTo), and returns it: {@code float[][] m = t.copyTo(new float[2][3])}.
   * Throws IllegalArgumentException, leaving dst as it was, when its element type, rank or a
   * dimension differ (naming which), GraftException (GRAFT_EDTYPE) as toArray.
   */
  public <T> T copyTo(T dst) {
    long[] shape = shape();
    NdArrays.checkDestination(dtype(), shape, dst);
    NdArrays.fill(flatElements(), shape, dst);
    return dst;
  }

  @Override
  public String toString() {
    if (isClosed() || !isValid()) return "Tensor(closed)";
    return "Tensor(" + DType.name(dtype()) + ", " + java.util.Arrays.toString(shape()) + ")";
  }
%}
}

%extend graft::Shape {
%proxycode %{
  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof Shape)) return false;
    Shape s = (Shape) other;
    return rank() == s.rank() && java.util.Arrays.equals(dims(), s.dims());
  }

  @Override
  public int hashCode() {
    return 31 * rank() + java.util.Arrays.hashCode(dims());
  }
%}
}

%extend graft::Output {
%proxycode %{
  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof Output) || isClosed() || ((Output) other).isClosed()) return false;
    return sameAs((Output) other);
  }

  @Override
  public int hashCode() {
    return isClosed() ? 0 : Long.hashCode(id());
  }

  @Override
  public String toString() {
    return isClosed() || !isValid() ? "Output(invalid)" : "Output(" + name() + ")";
  }
%}
}

%extend graft::Operation {
%proxycode %{
  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof Operation) || isClosed() || ((Operation) other).isClosed()) return false;
    return sameAs((Operation) other);
  }

  @Override
  public int hashCode() {
    return isClosed() || !isValid() ? 0 : name().hashCode();
  }

  @Override
  public String toString() {
    return isClosed() || !isValid() ? "Operation(invalid)" : "Operation(" + name() + ": " + type() + ")";
  }
%}
}

%extend graft::Graph {
%proxycode %{
  /** A builder for an op named name ("" for its type) of type opType in this graph. */
  public OpBuilder opBuilder(String opType, String name) {
    return new OpBuilder(this, opType, name);
  }

  /** Places the ops created until popDevice() on device. */
  public void pushDevice(String device) {
    synchronized (GraphDevices.lock(this)) {
      pushDeviceRaw(device);
      GraphDevices.push(this, null);
    }
  }

  /** Places the ops created until popDevice() where fn says ("" or null for no device). */
  public void pushDeviceFunction(java.util.function.Function<Operation, String> fn) {
    DeviceFunction director = new ClosureDeviceFunction(fn);
    synchronized (GraphDevices.lock(this)) {
      pushDeviceFunctionRaw(director);
      GraphDevices.push(this, director);
    }
  }

  /**
   * Symbolic gradients (TensorFlow's Graph.addGradients / tf.gradients): adds to this graph the
   * ops computing d(sum of ys)/dx for each x, under the name scope "gradients", and returns one
   * output per x, null where no gradient flows. dys: the upstream gradients (one per y), or null
   * for ones.
   */
  public Output[] addGradients(Output[] ys, Output[] xs, Output[] dys) {
    return addGradients("", ys, xs, dys);
  }

  /** addGradients under the name scope prefix ("" for "gradients"). */
  public Output[] addGradients(String prefix, Output[] ys, Output[] xs, Output[] dys) {
    java.util.List<Output> out = addGradients(java.util.Arrays.asList(ys), java.util.Arrays.asList(xs),
        dys == null ? java.util.List.of() : java.util.Arrays.asList(dys), java.util.List.of(), false,
        prefix == null ? "" : prefix);
    Output[] result = new Output[out.size()];
    for (int i = 0; i < result.length; ++i) result[i] = out.get(i).isValid() ? out.get(i) : null;
    return result;
  }

  /** The gradient of y with respect to x (null when none flows). */
  public Output addGradients(Output y, Output x) {
    return addGradients(new Output[] {y}, new Output[] {x}, null)[0];
  }

  /**
   * addGradients keeping the gradient of an x that only gathers read (GatherV2 on axis 0,
   * ResourceGather: an embedding table) as rows, as TensorFlow's tf.gradients does: one entry
   * per x, an {@link IndexedSlices} there, else the gradient Output, null where none flows.
   */
  public Object[] addGradientsSparse(Output[] ys, Output[] xs, Output[] dys) {
    java.util.List<java.util.List<Output>> out = addGradientsSparse(java.util.Arrays.asList(ys), java.util.Arrays.asList(xs),
        dys == null ? java.util.List.of() : java.util.Arrays.asList(dys), java.util.List.of(), false, "");
    java.util.List<Output> values = out.get(0), indices = out.get(1), shapes = out.get(2);
    Object[] result = new Object[values.size()];
    for (int i = 0; i < result.length; ++i) {
      if (indices.get(i).isValid()) {
        result[i] = new IndexedSlices(values.get(i), indices.get(i), shapes.get(i));
      } else if (values.get(i).isValid()) {
        result[i] = values.get(i);
      }
    }
    return result;
  }

  /** Ends the innermost pushDevice or pushDeviceFunction. */
  public void popDevice() {
    synchronized (GraphDevices.lock(this)) {
      popDeviceRaw();
      GraphDevices.pop(this);
    }
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof Graph) || isClosed() || ((Graph) other).isClosed()) return false;
    return sameAs((Graph) other);
  }

  @Override
  public int hashCode() {
    return isClosed() ? 0 : Long.hashCode(id());
  }
%}
}

/* Session.run gives a Result (Result.java); the layer's positional run is runRaw. */
%rename(runRaw) graft::Session::run;
%javamethodmodifiers graft::Session::run "private";

%extend graft::Session {
%proxycode %{
  /**
   * A session of graph with options: {@code new Session(g, new Session.Options()
   * .defaultDevice("/device:OPENCL:0").strictPlacement(true))}. Throws GraftException
   * (GRAFT_EINVAL) for a default device that does not parse.
   */
  public Session(Graph graph, Options options) {
    this(graph, options.numThreads, options.trackMemory, options.disabledRewrites, options.defaultDevice,
         options.strictPlacement, options.maxMemoryBytes);
  }

  /**
   * How a Session runs (graft_session_options); each setter returns the options. The defaults:
   * a thread per core, no memory tracking, every rewrite on, no default device, soft placement.
   */
  public static final class Options {
    private int numThreads;
    private boolean trackMemory;
    private long disabledRewrites;
    private String defaultDevice = "";
    private boolean strictPlacement;
    private long maxMemoryBytes;

    /** Threads running ops; 0 (the default) for one per core. */
    public Options numThreads(int numThreads) {
      this.numThreads = numThreads;
      return this;
    }

    /** Whether runs measure their peak memory (Session.lastPeakBytes). */
    public Options trackMemory(boolean trackMemory) {
      this.trackMemory = trackMemory;
      return this;
    }

    /** Constant folding, a bit of disabledRewrites. */
    public static final long REWRITE_CONSTANT_FOLDING = graft_swig.GRAFT_REWRITE_CONSTANT_FOLDING;
    /** Common subexpression elimination, a bit of disabledRewrites. */
    public static final long REWRITE_COMMON_SUBEXPRESSIONS = graft_swig.GRAFT_REWRITE_COMMON_SUBEXPRESSIONS;
    /** Identity removal, a bit of disabledRewrites. */
    public static final long REWRITE_IDENTITY_REMOVAL = graft_swig.GRAFT_REWRITE_IDENTITY_REMOVAL;
    /** Op fusion, a bit of disabledRewrites. */
    public static final long REWRITE_FUSION = graft_swig.GRAFT_REWRITE_FUSION;

    /** The graph rewrites turned off: REWRITE_* bits, or'ed. */
    public Options disabledRewrites(long disabledRewrites) {
      this.disabledRewrites = disabledRewrites;
      return this;
    }

    /**
     * The device of the ops that name none ("/device:OPENCL:0", "/GPU:0"; "" or null for the
     * CPU): ops with no kernel there, or with state or strings, stay on the CPU.
     */
    public Options defaultDevice(String defaultDevice) {
      this.defaultDevice = defaultDevice == null ? "" : defaultDevice;
      return this;
    }

    /**
     * Strict placement: an op whose own device is one this process lacks, or has no kernel for
     * it, fails the run (GraftException GRAFT_EINVAL naming the op and the device) instead of
     * running on the CPU (soft placement, the default, as TensorFlow's).
     */
    public Options strictPlacement(boolean strictPlacement) {
      this.strictPlacement = strictPlacement;
      return this;
    }

    /**
     * A cap on the tensor memory the session's runs hold at once (0, the default: none). An op
     * whose output would pass it fails the run with GraftException GRAFT_ENOMEM naming the op,
     * the bytes and the cap; the session stays usable.
     */
    public Options maxMemoryBytes(long maxMemoryBytes) {
      this.maxMemoryBytes = maxMemoryBytes;
      return this;
    }

    public int numThreads() {
      return numThreads;
    }

    public long maxMemoryBytes() {
      return maxMemoryBytes;
    }

    public boolean trackMemory() {
      return trackMemory;
    }

    public long disabledRewrites() {
      return disabledRewrites;
    }

    public String defaultDevice() {
      return defaultDevice;
    }

    public boolean strictPlacement() {
      return strictPlacement;
    }

    @Override
    public String toString() {
      return "Session.Options(numThreads=" + numThreads + ", trackMemory=" + trackMemory + ", disabledRewrites="
          + disabledRewrites + ", defaultDevice=\"" + defaultDevice + "\", strictPlacement=" + strictPlacement
          + ", maxMemoryBytes=" + maxMemoryBytes + ")";
    }
  }

  /** Runs the graph for fetches, with no feeds: {@code float[] y = s.run(List.of(y)).get(0).toFloats()}. */
  public Result run(java.util.List<Output> fetches) {
    return run(fetches, java.util.Map.of(), java.util.List.of(), 0, null);
  }

  /** Runs the graph for fetches, feeding each key of feeds with its tensor. */
  public Result run(java.util.List<Output> fetches, java.util.Map<Output, Tensor> feeds) {
    return run(fetches, feeds, java.util.List.of(), 0, null);
  }

  /** Runs the graph for fetches with feeds, also running targets (ops whose outputs are not fetched). */
  public Result run(java.util.List<Output> fetches, java.util.Map<Output, Tensor> feeds,
                    java.util.List<Operation> targets) {
    return run(fetches, feeds, targets, 0, null);
  }

  /**
   * Runs the graph for fetches with feeds, stopping with GraftException GRAFT_EDEADLINE once
   * timeoutMs milliseconds have passed (0: no deadline) or GRAFT_ECANCELLED once cancellation
   * (null: none) is cancelled, from any thread; the session stays usable either way.
   */
  public Result run(java.util.List<Output> fetches, java.util.Map<Output, Tensor> feeds, long timeoutMs,
                    Cancellation cancellation) {
    return run(fetches, feeds, java.util.List.of(), timeoutMs, cancellation);
  }

  /**
   * The general run: the tensors of fetches (a Result, in their order and named by them:
   * {@code get("y:0")}), feeding each key of feeds with its tensor and running targets too;
   * timeoutMs and cancellation as above.
   */
  public Result run(java.util.List<Output> fetches, java.util.Map<Output, Tensor> feeds,
                    java.util.List<Operation> targets, long timeoutMs, Cancellation cancellation) {
    java.util.List<Output> keys = new java.util.ArrayList<>(feeds.size());
    java.util.List<Tensor> values = new java.util.ArrayList<>(feeds.size());
    for (java.util.Map.Entry<Output, Tensor> e : feeds.entrySet()) {
      keys.add(e.getKey());
      values.add(e.getValue());
    }
    java.util.List<Tensor> out = runRaw(fetches, keys, values, targets, timeoutMs, cancellation);
    try {
      return new Result(out, Result.outputNames(fetches));
    } catch (RuntimeException e) {
      Result.closeAll(out, e);
      throw e;
    }
  }
%}
}

/* Callable.run gives a Result too, named by the callable's fetches (kept when it is made). */
%rename(runRaw) graft::Callable::run;
%javamethodmodifiers graft::Callable::run "private";
/* "fetches" is the constructor's parameter (graft.hpp's name for it). */
%typemap(javaconstruct) graft::Callable {
    this($imcall, true);
    swigOutputNames = Result.outputNames(fetches);
  }

%extend graft::Callable {
%proxycode %{
  private java.util.List<String> swigOutputNames = java.util.List.of();

  /** Runs with feedValues, one per feed of the callable, in their order. */
  public Result run(java.util.List<Tensor> feedValues) {
    return run(feedValues, 0, null);
  }

  /** run with a timeout (0: none) and a cancellation token (null: none), as Session.run's. */
  public Result run(java.util.List<Tensor> feedValues, long timeoutMs, Cancellation cancellation) {
    java.util.List<Tensor> out = runRaw(feedValues, timeoutMs, cancellation);
    return new Result(out, swigOutputNames);
  }
%}
}

/* SavedModel.run by signature input names (as Python's and Ruby's), giving a Result named by
 * the signature's output keys. */
%rename(runRaw) graft::SavedModel::run;
%javamethodmodifiers graft::SavedModel::run "private";

%extend graft::SavedModel {
%proxycode %{
  /** The model in dir tagged tags, "serve" when none are given (TensorFlow Java's SavedModelBundle.load). */
  public static SavedModel load(String dir, String... tags) {
    return new SavedModel(dir, java.util.Arrays.asList(tags));
  }

  /**
   * Runs the signature "serving_default" with inputs (input key => tensor), fetching all its
   * outputs: {@code try (Result r = model.run(Map.of("x", x))) { r.get("y") ... }}.
   */
  public Result run(java.util.Map<String, Tensor> inputs) {
    return run("serving_default", inputs, null, 0, null);
  }

  /** Runs signature with inputs (input key => tensor), fetching all its outputs. */
  public Result run(String signature, java.util.Map<String, Tensor> inputs) {
    return run(signature, inputs, null, 0, null);
  }

  /** Runs signature with inputs, fetching the outputs of outputKeys (null: all), in that order. */
  public Result run(String signature, java.util.Map<String, Tensor> inputs, java.util.List<String> outputKeys) {
    return run(signature, inputs, outputKeys, 0, null);
  }

  /**
   * Runs signature with inputs (input key => tensor), fetching the outputs of outputKeys (null:
   * all the signature's, in its order); timeoutMs (0: none) and cancellation (null: none) as
   * Session.run's. The Result is named by the output keys. Throws GraftException
   * (GRAFT_ENOTFOUND) for a signature the model lacks, IllegalArgumentException naming an input
   * or output key the signature lacks (and the keys it has).
   */
  public Result run(String signature, java.util.Map<String, Tensor> inputs, java.util.List<String> outputKeys,
                    long timeoutMs, Cancellation cancellation) {
    java.util.List<String> inputKeys = new java.util.ArrayList<>(inputs.size());
    java.util.List<Tensor> values = new java.util.ArrayList<>(inputs.size());
    java.util.List<String> known = new java.util.ArrayList<>();
    java.util.List<String> outputs = new java.util.ArrayList<>();
    try (Signature sig = signature(signature)) {
      for (SignatureTensor t : sig.inputs()) {
        known.add(t.getKey());
        t.close();
      }
      for (SignatureTensor t : sig.outputs()) {
        outputs.add(t.getKey());
        t.close();
      }
    }
    for (java.util.Map.Entry<String, Tensor> e : inputs.entrySet()) {
      if (!known.contains(e.getKey())) {
        throw new IllegalArgumentException("graft: signature '" + signature + "' has no input '" + e.getKey()
            + "' (it has " + known + ")");
      }
      inputKeys.add(e.getKey());
      values.add(e.getValue());
    }
    if (outputKeys != null) {
      for (String key : outputKeys) {
        if (!outputs.contains(key)) {
          throw new IllegalArgumentException("graft: signature '" + signature + "' has no output '" + key
              + "' (it has " + outputs + ")");
        }
      }
      outputs = new java.util.ArrayList<>(outputKeys);
    }
    return new Result(runRaw(signature, inputKeys, values, outputs, timeoutMs, cancellation), outputs);
  }

  /** The names of the model's signatures, in its order. */
  public java.util.List<String> signatureNames() {
    java.util.List<String> names = new java.util.ArrayList<>();
    for (Signature s : signatures()) {
      names.add(s.getName());
      s.close();
    }
    return names;
  }
%}
}

/* TensorSpec(shape, dtype[, name]): shape before dtype, as every factory here and TensorFlow's
 * tf.TensorSpec(shape, dtype, name). */
%javamethodmodifiers graft::TensorSpec::TensorSpec(int, const Shape &, const std::string &) "";

%extend graft::TensorSpec {
%proxycode %{
  /** A spec of shape and dtype for an input named name ("" for none). */
  public TensorSpec(Shape shape, int dtype, String name) {
    this(dtype, shape, name);
  }

  /** A spec of shape and dtype. */
  public TensorSpec(Shape shape, int dtype) {
    this(dtype, shape, "");
  }

  @Override
  public String toString() {
    if (isClosed()) return "TensorSpec(closed)";
    return "TensorSpec(" + shape() + ", " + DType.name(getDtype()) + (getName().isEmpty() ? "" : ", " + getName()) + ")";
  }
%}
}

%extend graft::CollectionItem {
%proxycode %{
  /** getKind() of an op. */
  public static final int OP = graft_swig.GRAFT_ITEM_OP;
  /** getKind() of a tensor (an Output). */
  public static final int TENSOR = graft_swig.GRAFT_ITEM_TENSOR;
  /** getKind() of a string. */
  public static final int STRING = graft_swig.GRAFT_ITEM_STRING;
  /** getKind() of a host value (an id and a name). */
  public static final int VALUE = graft_swig.GRAFT_ITEM_VALUE;
%}
}

%extend graft::Library {
%proxycode %{
  @Override
  public String toString() {
    if (isClosed()) return "Library(closed)";
    return "Library(" + path() + ", ops=" + opNames() + ")";
  }
%}
}

%extend graft::DeviceInfo {
%proxycode %{
  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof DeviceInfo) || isClosed() || ((DeviceInfo) other).isClosed()) return false;
    DeviceInfo d = (DeviceInfo) other;
    return getName().equals(d.getName()) && getDeviceType().equals(d.getDeviceType()) && getModel().equals(d.getModel())
        && getVendor().equals(d.getVendor()) && getDriver().equals(d.getDriver())
        && getMemoryBytes() == d.getMemoryBytes() && getComputeUnits() == d.getComputeUnits();
  }

  @Override
  public int hashCode() {
    return isClosed() ? 0 : getName().hashCode();
  }

  @Override
  public String toString() {
    if (isClosed()) return "DeviceInfo(closed)";
    return "DeviceInfo(" + getName() + ", " + getDeviceType() + ", model=\"" + getModel() + "\", vendor=\"" + getVendor()
        + "\", driver=\"" + getDriver() + "\", memoryBytes=" + getMemoryBytes() + ", computeUnits=" + getComputeUnits() + ")";
  }
%}
}

%extend graft::Value {
%proxycode %{
  /** A concrete value's elements (float32). */
  public float[] toFloats() {
    try (Tensor t = toTensor()) {
      return t.toFloats();
    }
  }

  /** A concrete value's elements (float64). */
  public double[] toDoubles() {
    try (Tensor t = toTensor()) {
      return t.toDoubles();
    }
  }

  /** A concrete value's elements (int32). */
  public int[] toInt32s() {
    try (Tensor t = toTensor()) {
      return t.toInt32s();
    }
  }

  /** A concrete value's elements (int64). */
  public long[] toInt64s() {
    try (Tensor t = toTensor()) {
      return t.toInt64s();
    }
  }

  /** A concrete value's elements as an n-d Java array of its shape (Tensor.toArray). */
  public Object toArray() {
    try (Tensor t = toTensor()) {
      return t.toArray();
    }
  }

  /** Copies a concrete value's elements into dst and returns it (Tensor.copyTo). */
  public <T> T copyTo(T dst) {
    try (Tensor t = toTensor()) {
      return t.copyTo(dst);
    }
  }

  @Override
  public String toString() {
    if (isClosed() || !isValid()) return "Value(invalid)";
    return "Value(" + (isSymbolic() ? "symbolic, " : "") + DType.name(dtype()) + ", " + shape() + ")";
  }
%}
}

%extend graft::ArgList {
%proxycode %{
  /** The arguments args: Value, Boolean, Float/Double, Byte/Short/Integer/Long or String. */
  public static ArgList of(Object... args) {
    ArgList list = new ArgList();
    for (Object a : args) list.add(a);
    return list;
  }

  /** Appends a Value, Boolean, Float/Double, Byte/Short/Integer/Long or CharSequence. */
  public ArgList add(Object arg) {
    if (arg instanceof Value) return addValue((Value) arg);
    if (arg instanceof Boolean) return addBool((Boolean) arg);
    if (arg instanceof Double || arg instanceof Float) return addFloat(((Number) arg).doubleValue());
    if (arg instanceof Long || arg instanceof Integer || arg instanceof Short || arg instanceof Byte)
      return addInt(((Number) arg).longValue());
    if (arg instanceof CharSequence) return addString(arg.toString());
    throw new IllegalArgumentException(
        "graft: a function argument must be a Value, boolean, number or string, not " +
        (arg == null ? "null" : arg.getClass().getName()));
  }

  /** Argument i, which must be a Value. */
  public Value value(int i) {
    try (Arg a = get(i)) {
      if (a.getKind() != graft_swig.GRAFT_ARG_VALUE)
        throw new IllegalArgumentException("graft: argument " + i + " is not a Value");
      return a.value();
    }
  }

  /** Argument i as Java sees it: a Value, Long, Double, String or Boolean. */
  public Object object(int i) {
    try (Arg a = get(i)) {
      int kind = a.getKind();
      if (kind == graft_swig.GRAFT_ARG_VALUE) return a.value();
      if (kind == graft_swig.GRAFT_ARG_INT) return a.getI();
      if (kind == graft_swig.GRAFT_ARG_FLOAT) return a.getF();
      if (kind == graft_swig.GRAFT_ARG_STRING) return a.getS();
      return a.getB();
    }
  }
%}
}

%extend graft::Context {
%proxycode %{
  /** An op of type opType to run on this context (eagerly, or recorded while tracing). */
  public OpCall op(String opType) {
    return new OpCall(this, opType);
  }

  /** cond with lambdas for the branches (each gets the inputs as arguments). */
  public java.util.List<Value> cond(Value pred, java.util.List<Value> inputs, TraceFn thenFn, TraceFn elseFn) {
    try (ClosureTraceBody t = new ClosureTraceBody(thenFn); ClosureTraceBody e = new ClosureTraceBody(elseFn)) {
      return cond(pred, inputs, t, e);
    }
  }

  /** while_loop with lambdas: condFn returns one bool value, bodyFn the next loop variables. */
  public java.util.List<Value> whileLoop(TraceFn condFn, TraceFn bodyFn, java.util.List<Value> loopVars) {
    try (ClosureTraceBody c = new ClosureTraceBody(condFn); ClosureTraceBody b = new ClosureTraceBody(bodyFn)) {
      return whileLoop(c, b, loopVars);
    }
  }

  /** whileLoop with a shape invariant per loop variable. */
  public java.util.List<Value> whileLoop(TraceFn condFn, TraceFn bodyFn, java.util.List<Value> loopVars,
                                         java.util.List<Shape> shapeInvariants) {
    try (ClosureTraceBody c = new ClosureTraceBody(condFn); ClosureTraceBody b = new ClosureTraceBody(bodyFn)) {
      return whileLoop(c, b, loopVars, shapeInvariants);
    }
  }

  /**
   * A value of an n-d Java array, its shape the nesting's and its dtype the elements' (as
   * Tensor.fromArray): {@code ctx.fromArray(new float[][] {{1, 2}, {3, 4}})}.
   */
  public Value fromArray(Object array) {
    NdArrays.Flat f = NdArrays.flatten(array);
    return fromFlat(f, f.dtype());
  }

  /** fromArray converting the elements to dtype (each must fit it), as fromDoubles(..., dtype). */
  public Value fromArray(Object array, int dtype) {
    return fromFlat(NdArrays.flatten(array), dtype);
  }

  /* Through the host conversions (convert_to_tensor), as fromDoubles and the others. */
  private Value fromFlat(NdArrays.Flat f, int dtype) {
    Object d = f.data;
    if (d instanceof float[]) return fromDoubles(NdArrays.widen((float[]) d), f.shape, dtype);
    if (d instanceof double[]) return fromDoubles((double[]) d, f.shape, dtype);
    if (d instanceof int[]) return fromInts(NdArrays.widen((int[]) d), f.shape, dtype);
    if (d instanceof long[]) return fromInts((long[]) d, f.shape, dtype);
    if (d instanceof byte[]) return fromInts(NdArrays.widen((byte[]) d, dtype == DType.INT8), f.shape, dtype);
    if (d instanceof boolean[]) return fromBools((boolean[]) d, f.shape, dtype);
    java.util.List<String> strings = java.util.Arrays.asList((String[]) d);
    if (dtype == DType.STRING) return fromStrings(strings, f.shape);
    try (Tensor t = Tensor.fromHostStrings(strings, f.shape, dtype)) {
      return fromTensor(t); // Context has no string conversion of its own: the C API's rule says
    }
  }
%}
}

%extend graft::Function {
%proxycode %{
  /* The traced closure: C++ calls it while this function (or a concrete function) lives. */
  private TraceBody swigBody;

  /** A function that traces fn once per new input signature (tf.function). */
  public static Function trace(String name, TraceFn fn) {
    return trace(name, null, false, fn);
  }

  /** A function of a fixed input signature. */
  public static Function trace(String name, java.util.List<TensorSpec> inputSignature, TraceFn fn) {
    return trace(name, inputSignature, false, fn);
  }

  /** inputSignature null for none; reduceRetracing relaxes shapes after a retrace. */
  public static Function trace(String name, java.util.List<TensorSpec> inputSignature, boolean reduceRetracing,
                               TraceFn fn) {
    ClosureTraceBody body = new ClosureTraceBody(fn);
    try {
      Function f = new Function(name, body, inputSignature == null ? java.util.List.of() : inputSignature,
                                inputSignature != null, reduceRetracing);
      f.swigBody = body;
      return f;
    } catch (RuntimeException e) {
      body.close();
      throw e;
    }
  }

  /** Calls the function with args: Values, booleans, numbers or strings. */
  public java.util.List<Value> call(Context ctx, Object... args) {
    try (ArgList list = ArgList.of(args)) {
      return call(ctx, list);
    }
  }

  /** The concrete function (traced graph) for args. */
  public ConcreteFunction getConcrete(Context ctx, Object... args) {
    try (ArgList list = ArgList.of(args)) {
      return getConcrete(ctx, list);
    }
  }
%}
}

%extend graft::ConcreteFunction {
%proxycode %{
  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof ConcreteFunction) || isClosed() || ((ConcreteFunction) other).isClosed()) return false;
    return sameAs((ConcreteFunction) other);
  }

  @Override
  public int hashCode() {
    return isClosed() ? 0 : Long.hashCode(id());
  }

  @Override
  public String toString() {
    return isClosed() ? "ConcreteFunction(closed)" : "ConcreteFunction(" + name() + ")";
  }
%}
}

/* ---- Gradient tapes ------------------------------------------------------------------------ */

/*
 * A tape records on the thread that started it (graft/tape.h) and must not be freed elsewhere
 * while it records: a recording tape is kept reachable by its thread (RecordingTapes), so the
 * Cleaner never frees it, and close() stops it first (on its own thread only; elsewhere close()
 * throws the C API's GRAFT_EPRECONDITION and leaves the tape open).
 */
%rename(stopRaw) graft::GradientTape::stop;
%rename(startRaw) graft::GradientTape::start;
%rename(gradientRaw) graft::GradientTape::gradient;
%rename(gradientSparseRaw) graft::GradientTape::gradient_sparse;
%javamethodmodifiers graft::GradientTape::stop "private";
%javamethodmodifiers graft::GradientTape::start "private";
%javamethodmodifiers graft::GradientTape::gradient "private";
%javamethodmodifiers graft::GradientTape::gradient_sparse "private";

%typemap(javaconstruct) graft::GradientTape {
    this($imcall, true);
    RecordingTapes.started(this);
  }

%typemap(javadestruct, methodname="delete", methodmodifiers="synchronized", parameters="") graft::GradientTape {
    if (swigCPtr != 0) {
      if (swigCMemOwn && isRecording()) stop();
      if (swigHandle != null) {
        if (swigCMemOwn)
          swigHandle.free();
        else
          swigHandle.disown();
      }
      swigCMemOwn = false;
      swigCPtr = 0;
    }
  }

%extend graft::GradientTape {
%proxycode %{
  /** A tape of ctx that records from now on (not persistent, watching accessed variables). */
  public GradientTape(Context ctx) {
    this(ctx, false, true);
  }

  /** A tape of ctx that records from now on, watching accessed variables. */
  public GradientTape(Context ctx, boolean persistent) {
    this(ctx, persistent, true);
  }

  /**
   * Pauses recording. Throws GraftException (GRAFT_EPRECONDITION) when the tape does not
   * record, or records on another thread.
   */
  public void stop() {
    stopRaw();
    RecordingTapes.stopped(this);
  }

  /** Resumes recording on this thread (GraftException GRAFT_EPRECONDITION if it records). */
  public void start() {
    startRaw();
    RecordingTapes.started(this);
  }

  /**
   * Pauses recording until the returned object is closed (TensorFlow's stop_recording()):
   * {@code try (GradientTape.Paused p = tape.stopRecording()) { ... }}.
   */
  public Paused stopRecording() {
    stop();
    return new Paused();
  }

  /** Resumes recording of its tape when closed (once). */
  public final class Paused implements AutoCloseable {
    private boolean resumed;

    private Paused() {}

    @Override
    public void close() {
      if (!resumed) {
        resumed = true;
        start();
      }
    }
  }

  /** Watches each of values (tensors or variable handles). */
  public void watch(Value... values) {
    for (Value v : values) watch(v);
  }

  /** d(target)/d(source), null where no gradient flows. */
  public Value gradient(Value target, Value source) {
    return gradient(new Value[] {target}, new Value[] {source}, null, UnconnectedGradients.NONE)[0];
  }

  /** d(target)/d(source) for each source, null where no gradient flows. */
  public Value[] gradient(Value target, Value[] sources) {
    return gradient(new Value[] {target}, sources, null, UnconnectedGradients.NONE);
  }

  /**
   * The gradient of the sum of targets with respect to each source (a tensor, or a variable's
   * handle for the gradient of its value): one Value per source, null where no gradient flows
   * and unconnected is NONE (zeros of the source's shape with ZERO). outputGradients: the
   * upstream gradients, one per target, or null for ones. A tape that is not persistent
   * computes gradients once: a second call throws GraftException (GRAFT_EPRECONDITION).
   */
  public Value[] gradient(Value[] targets, Value[] sources, Value[] outputGradients,
                          UnconnectedGradients unconnected) {
    java.util.List<Value> out = gradientRaw(java.util.Arrays.asList(targets), java.util.Arrays.asList(sources),
        outputGradients == null ? java.util.List.of() : java.util.Arrays.asList(outputGradients),
        unconnected == UnconnectedGradients.ZERO);
    Value[] result = new Value[out.size()];
    for (int i = 0; i < result.length; ++i) {
      Value v = out.get(i);
      if (v.isValid())
        result[i] = v;
      else
        v.close();
    }
    return result;
  }

  /**
   * gradient keeping the gradient of a source that only gathers read (ResourceGather of a
   * variable, GatherV2 on axis 0: an embedding table) as rows, as TensorFlow's tape does: one
   * entry per source, a {@link ValueRows} there, else the gradient Value, null where none flows.
   */
  public Object[] gradientSparse(Value[] targets, Value[] sources, Value[] outputGradients,
                                 UnconnectedGradients unconnected) {
    java.util.List<java.util.List<Value>> out = gradientSparseRaw(java.util.Arrays.asList(targets),
        java.util.Arrays.asList(sources), outputGradients == null ? java.util.List.of() : java.util.Arrays.asList(outputGradients),
        unconnected == UnconnectedGradients.ZERO);
    java.util.List<Value> values = out.get(0), indices = out.get(1), shapes = out.get(2);
    Object[] result = new Object[values.size()];
    for (int i = 0; i < result.length; ++i) {
      if (indices.get(i).isValid()) {
        result[i] = new ValueRows(values.get(i), indices.get(i), shapes.get(i));
        continue;
      }
      indices.get(i).close();
      shapes.get(i).close();
      if (values.get(i).isValid())
        result[i] = values.get(i);
      else
        values.get(i).close();
    }
    return result;
  }

  @Override
  public String toString() {
    return isClosed() ? "GradientTape(closed)" : "GradientTape(" + (isRecording() ? "recording" : "stopped") + ")";
  }
%}
}

/* ---- Loading the JNI library --------------------------------------------------------------- */

%pragma(java) jniclasscode=%{
  /* The JNI library, found in this order: the file the system property graft.library names;
   * libgraft_java.so on java.library.path; else the copy inside graft.jar
   * (dev/graft/native/<os>-<arch>/, with the libgraft it loads beside it), extracted into a
   * private temporary directory, loaded, and deleted at once (a loaded library needs no file),
   * so that not even a killed JVM leaves a copy behind. libgraft's own dependencies (OpenBLAS,
   * the OpenCL ICD loader, CLBlast, protobuf-c, RE2) come from the system. */
  static {
    String file = System.getProperty("graft.library");
    if (file != null && !file.isEmpty()) {
      System.load(file);
    } else {
      try {
        System.loadLibrary("graft_java");
      } catch (UnsatisfiedLinkError notOnPath) {
        try {
          loadBundled();
        } catch (java.io.IOException | RuntimeException | UnsatisfiedLinkError e) {
          UnsatisfiedLinkError error = new UnsatisfiedLinkError(
              "graft: libgraft_java.so is not on java.library.path (" + notOnPath.getMessage()
              + ") and graft.jar's copy for this platform did not load: " + e.getMessage()
              + " (set -Dgraft.library=/path/to/libgraft_java.so, or install libgraft's dependencies)");
          error.initCause(e);
          throw error;
        }
      }
    }
  }

  private static void loadBundled() throws java.io.IOException {
    String arch = System.getProperty("os.arch");
    String platform = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).replace(' ', '-') + "-"
        + ("amd64".equals(arch) ? "x86_64" : arch);
    String dir = "/dev/graft/native/" + platform + "/";
    java.util.List<String> names = new java.util.ArrayList<>();
    try (java.io.InputStream list = graft_swigJNI.class.getResourceAsStream(dir + "libraries")) {
      if (list == null) throw new java.io.IOException("no " + dir + " in the jar");
      for (String line : new String(list.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\\n"))
        if (!line.isBlank()) names.add(line.strip());
    }
    java.nio.file.Path tmp = java.nio.file.Files.createTempDirectory("graft-native");
    java.util.List<java.nio.file.Path> written = new java.util.ArrayList<>();
    try {
      java.nio.file.Path jni = null;
      for (String name : names) {
        java.nio.file.Path target = tmp.resolve(name);
        try (java.io.InputStream in = graft_swigJNI.class.getResourceAsStream(dir + name)) {
          if (in == null) throw new java.io.IOException("the jar lists " + dir + name + " but lacks it");
          java.nio.file.Files.copy(in, target);
        }
        written.add(target);
        if (name.startsWith("libgraft_java")) jni = target;
      }
      if (jni == null) throw new java.io.IOException(dir + "libraries names no libgraft_java");
      System.load(jni.toString());
    } finally {
      for (java.nio.file.Path p : written) java.nio.file.Files.deleteIfExists(p);
      java.nio.file.Files.deleteIfExists(tmp);
    }
  }
%}
