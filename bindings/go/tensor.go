// tensor.go: dense tensors (graft_tensor), made from and read into Go slices (flat ones with
// a shape here; nested ones, tensorflow/go's NewTensor and Value, in tensor_value.go).

package graft

import (
	"fmt"
	"unsafe"

	raw "graft.dev/graft/internal/graft_swig"
)

// Element is a Go type that is the element type of a tensor: each maps to one DType.
type Element interface {
	float32 | float64 | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | bool |
		complex64 | complex128
}

// DTypeOf returns the DType of the element type T.
func DTypeOf[T Element]() DType {
	var zero T
	switch any(zero).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case bool:
		return Bool
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	}
	return Invalid
}

// Tensor is a dense tensor. Reading it from many goroutines at once is safe.
type Tensor struct {
	h handle[raw.Tensor]
}

func newTensor(r raw.Tensor) *Tensor {
	t := &Tensor{}
	t.h.init("Tensor", r)
	setFinalizer(t)
	return t
}

// NewTensorWithShape returns a tensor holding a copy of data (row-major) with shape dims:
// (data, shape) as in every binding (Python's constant(value, shape=...), Ruby's tensor(data,
// shape:)). NewTensor infers the shape of nested slices instead.
func NewTensorWithShape[T Element](data []T, dims []int64) (*Tensor, error) {
	var b []byte
	if len(data) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*int(unsafe.Sizeof(data[0])))
	}
	return NewTensorFromBytes(DTypeOf[T](), b, dims)
}

// Scalar returns a rank-0 tensor holding v.
func Scalar[T Element](v T) (*Tensor, error) { return NewTensorWithShape([]T{v}, []int64{}) }

// NewTensorFromBytes returns a tensor of dtype holding a copy of data, the elements' bytes in
// row-major order, with shape dims.
func NewTensorFromBytes(dtype DType, data []byte, dims []int64) (*Tensor, error) {
	if len(data) == 0 && numElements(dims) != 0 {
		return nil, newError(CodeInvalid, fmt.Sprintf("graft: no data for a tensor of shape %v", dims))
	}
	r, err := get(func() raw.Tensor { return raw.TensorFrom_bytes(int(dtype), dims, bytesView(data)) })
	if err != nil {
		return nil, err
	}
	return newTensor(r), nil
}

// NewStringTensor returns a tensor of shape dims holding data, strings of any bytes (data then
// shape, as every constructor).
func NewStringTensor(data []string, dims []int64) (*Tensor, error) {
	v := newStringVector(data)
	defer raw.DeleteStringVector(v)
	r, err := get(func() raw.Tensor { return raw.TensorFrom_strings(dims, v) })
	if err != nil {
		return nil, err
	}
	return newTensor(r), nil
}

// Zeros returns a tensor of dtype and shape dims filled with zeros.
func Zeros(dtype DType, dims ...int64) (*Tensor, error) {
	r, err := get(func() raw.Tensor { return raw.TensorZeros(int(dtype), dims) })
	if err != nil {
		return nil, err
	}
	return newTensor(r), nil
}

// Close frees the tensor (a finalizer does when it is not called). Values and graphs made
// from it keep their own reference to the data.
func (t *Tensor) Close() error {
	t.h.close()
	return nil
}

// DType is the element type.
func (t *Tensor) DType() DType {
	r := t.h.mustAcquire()
	defer t.h.release()
	return DType(r.Dtype())
}

// Shape returns the dims.
func (t *Tensor) Shape() []int64 {
	r := t.h.mustAcquire()
	defer t.h.release()
	return r.Shape()
}

// NumElements is the number of elements (the product of the dims).
func (t *Tensor) NumElements() int64 {
	r := t.h.mustAcquire()
	defer t.h.release()
	return r.Num_elements()
}

// ByteSize is the size of the elements in bytes (0 for strings).
func (t *Tensor) ByteSize() int {
	r := t.h.mustAcquire()
	defer t.h.release()
	return int(r.Byte_size())
}

// String describes the tensor, e.g. "Tensor<float32 [2 2]>".
func (t *Tensor) String() string {
	if t.h.isClosed() {
		return "Tensor<closed>"
	}
	return fmt.Sprintf("Tensor<%v %v>", t.DType(), t.Shape())
}

// Bytes returns a copy of the elements' bytes (not for string tensors).
func (t *Tensor) Bytes() ([]byte, error) {
	r, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	if DType(r.Dtype()) == String {
		return nil, newError(CodeDType, "graft: Bytes of a string tensor (use Strings)")
	}
	buf := make([]byte, r.Byte_size())
	return buf, call(func() { r.Read_into(buf) })
}

// Strings returns the elements of a string tensor.
func (t *Tensor) Strings() ([]string, error) {
	r, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	if DType(r.Dtype()) != String {
		return nil, newError(CodeDType, fmt.Sprintf("graft: tensor is %v, not string", DType(r.Dtype())))
	}
	n := r.Num_elements()
	out := make([]string, n)
	for i := int64(0); i < n; i++ {
		s, err := get(func() string { return r.String_at(i) })
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// TensorData returns a copy of the elements of t, whose dtype must be T's.
func TensorData[T Element](t *Tensor) ([]T, error) {
	r, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	if want := DTypeOf[T](); DType(r.Dtype()) != want {
		return nil, newError(CodeDType, fmt.Sprintf("graft: tensor is %v, not %v", DType(r.Dtype()), want))
	}
	out := make([]T, r.Num_elements())
	if len(out) == 0 {
		return out, nil
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0])))
	return out, call(func() { r.Read_into(b) })
}

// Float32s returns the elements of a float32 tensor.
func (t *Tensor) Float32s() ([]float32, error) { return TensorData[float32](t) }

// Float64s returns the elements of a float64 tensor.
func (t *Tensor) Float64s() ([]float64, error) { return TensorData[float64](t) }

// Int32s returns the elements of an int32 tensor.
func (t *Tensor) Int32s() ([]int32, error) { return TensorData[int32](t) }

// Int64s returns the elements of an int64 tensor.
func (t *Tensor) Int64s() ([]int64, error) { return TensorData[int64](t) }

// raw helpers shared by the package.

func numElements(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// bytesView is b as a string without a copy, for passing to C only (which copies it).
func bytesView(b []byte) string {
	return *(*string)(unsafe.Pointer(&b))
}

func newStringVector(items []string) raw.StringVector {
	v := raw.NewStringVector__SWIG_0()
	for _, s := range items {
		v.Add(s)
	}
	return v
}

func stringsFromRaw(v raw.StringVector) []string {
	defer raw.DeleteStringVector(v)
	out := make([]string, v.Size())
	for i := range out {
		out[i] = v.Get(i)
	}
	return out
}
