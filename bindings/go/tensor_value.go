// tensor_value.go: tensors of Go values with the shape inferred (tensorflow/go's NewTensor and
// Tensor.Value): scalars, and slices or arrays nested once per dimension.

package graft

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// The dtype of each reflect.Kind a tensor element may have. Int and Uint are left out: their
// size is the platform's (use int64 or int32).
var kindDTypes = map[reflect.Kind]DType{
	reflect.Float32: Float32, reflect.Float64: Float64,
	reflect.Int8: Int8, reflect.Int16: Int16, reflect.Int32: Int32, reflect.Int64: Int64,
	reflect.Uint8: Uint8, reflect.Uint16: Uint16, reflect.Uint32: Uint32, reflect.Uint64: Uint64,
	reflect.Bool: Bool, reflect.Complex64: Complex64, reflect.Complex128: Complex128,
	reflect.String: String,
}

// The Go element type of each dtype that Tensor.Value reads.
var dtypeGoTypes = map[DType]reflect.Type{
	Float32: reflect.TypeOf(float32(0)), Float64: reflect.TypeOf(float64(0)),
	Int8: reflect.TypeOf(int8(0)), Int16: reflect.TypeOf(int16(0)), Int32: reflect.TypeOf(int32(0)),
	Int64: reflect.TypeOf(int64(0)), Uint8: reflect.TypeOf(uint8(0)), Uint16: reflect.TypeOf(uint16(0)),
	Uint32: reflect.TypeOf(uint32(0)), Uint64: reflect.TypeOf(uint64(0)), Bool: reflect.TypeOf(false),
	Complex64: reflect.TypeOf(complex64(0)), Complex128: reflect.TypeOf(complex128(0)),
	String: reflect.TypeOf(""),
}

// NewTensor returns a tensor holding a copy of value, a Go scalar or a slice or array of them
// nested once per dimension, as tensorflow/go's NewTensor: float32(1) is a scalar, []int64 a
// vector, [][]float32 a matrix, [][][]bool a rank-3 tensor; [][3]float64 and [2][2]int32 too.
// The elements may be float32, float64, int8 to int64, uint8 to uint64, bool, complex64,
// complex128 or string (or types defined over them); int and uint are refused, their size
// being the platform's. The shape is the nesting's: every slice of one level must have the
// same length, and a ragged one is an error (ErrInvalid) naming the dimension and the indices.
// An empty slice gives a dimension of 0 (and 0 for the slices nested in it). NewTensorWithShape
// takes flat data and a shape instead.
func NewTensor(value any) (*Tensor, error) {
	v := reflect.ValueOf(value)
	if !v.IsValid() {
		return nil, newError(CodeInvalid, "graft: NewTensor of nil")
	}
	dims, elem := shapeOf(v)
	dtype, ok := kindDTypes[elem.Kind()]
	if !ok {
		return nil, newError(CodeInvalid, fmt.Sprintf("graft: NewTensor of a %v: %v is not a tensor element type%s",
			v.Type(), elem, elementHint(elem)))
	}
	n := numElements(dims)
	if dtype == String {
		strs := make([]string, 0, n)
		if len(dims) == 0 {
			strs = append(strs, v.String())
		} else if err := walkValue(v, dims, nil, func(inner reflect.Value) {
			for i := 0; i < inner.Len(); i++ {
				strs = append(strs, inner.Index(i).String())
			}
		}); err != nil {
			return nil, err
		}
		return NewStringTensor(strs, dims)
	}
	var flat reflect.Value
	switch {
	case len(dims) == 0:
		flat = reflect.New(elem).Elem()
		flat.Set(v)
		flat = flat.Addr()
	case len(dims) == 1 && v.Kind() == reflect.Slice:
		flat = v // a flat slice's own memory: C++ copies it
	default:
		buf := reflect.MakeSlice(reflect.SliceOf(elem), int(n), int(n))
		off := 0
		if err := walkValue(v, dims, nil, func(inner reflect.Value) {
			off += reflect.Copy(buf.Slice(off, buf.Len()), inner)
		}); err != nil {
			return nil, err
		}
		flat = buf
	}
	var b []byte
	if size := int(n) * int(elem.Size()); size > 0 {
		b = unsafe.Slice((*byte)(flat.UnsafePointer()), size)
	}
	return NewTensorFromBytes(dtype, b, dims)
}

func elementHint(elem reflect.Type) string {
	switch elem.Kind() {
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return " (its size is the platform's: use int64 or int32)"
	}
	return ""
}

// shapeOf returns the dims of v, one per level of slices and arrays (each the length of the
// first element of its level: walkValue checks the others), and the element type.
func shapeOf(v reflect.Value) ([]int64, reflect.Type) {
	var dims []int64
	t := v.Type()
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		dims = append(dims, int64(v.Len()))
		if v.Len() > 0 {
			v = v.Index(0)
		} else {
			v = reflect.Zero(t.Elem()) // an empty slice nests empty ones (arrays keep their length)
		}
		t = t.Elem()
	}
	if dims == nil {
		dims = []int64{}
	}
	return dims, t
}

// walkValue checks that v, at the level of dims[0], has the lengths dims, and calls inner with
// each innermost slice or array in row-major order. at is the index of v in the whole value.
func walkValue(v reflect.Value, dims []int64, at []int, inner func(reflect.Value)) error {
	if int64(v.Len()) != dims[0] {
		return raggedError(v, len(at), at, dims[0])
	}
	if len(dims) == 1 {
		inner(v)
		return nil
	}
	for i := 0; i < v.Len(); i++ {
		if err := walkValue(v.Index(i), dims[1:], append(at, i), inner); err != nil {
			return err
		}
	}
	return nil
}

func raggedError(v reflect.Value, dim int, at []int, want int64) error {
	index := func(ix []int) string {
		var b strings.Builder
		b.WriteString("value")
		for _, i := range ix {
			fmt.Fprintf(&b, "[%d]", i)
		}
		return b.String()
	}
	first := make([]int, len(at))
	return newError(CodeInvalid, fmt.Sprintf("graft: NewTensor of a ragged slice: dimension %d has length %d at %s but %d at %s",
		dim, want, index(first), v.Len(), index(at)))
}

// Value returns a copy of the tensor's elements as a Go value of its shape, as tensorflow/go's
// Tensor.Value: a scalar for rank 0 (float32, int64, bool, string, ...), a slice for rank 1
// ([]float32), slices of slices for rank 2 ([][]float32), and so on; NewTensor(v) of the result
// is an equal tensor. The slices of one level share one array of the elements, each with its
// own capacity (appending to one does not write into the next). Dtypes without a Go type
// (Float16, BFloat16, quantized, Resource, Variant) are ErrUnimplemented: read their Bytes.
func (t *Tensor) Value() (any, error) {
	r, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	dtype := DType(r.Dtype())
	elem, ok := dtypeGoTypes[dtype]
	if !ok {
		return nil, newError(CodeUnimplemented, fmt.Sprintf("graft: Value of a %v tensor: no Go type holds its elements (use Bytes)", dtype))
	}
	dims := r.Shape()
	var flat reflect.Value
	if dtype == String {
		strs, err := t.Strings()
		if err != nil {
			return nil, err
		}
		flat = reflect.ValueOf(strs)
	} else {
		n := int(r.Num_elements())
		flat = reflect.MakeSlice(reflect.SliceOf(elem), n, n)
		var b []byte
		if size := n * int(elem.Size()); size > 0 {
			b = unsafe.Slice((*byte)(flat.UnsafePointer()), size)
		}
		if err := call(func() { r.Read_into(b) }); err != nil {
			return nil, err
		}
	}
	return nestValue(flat, dims).Interface(), nil
}

// nestValue shapes flat (row-major elements) into slices nested once per dim.
func nestValue(flat reflect.Value, dims []int64) reflect.Value {
	switch len(dims) {
	case 0:
		return flat.Index(0)
	case 1:
		return flat.Slice3(0, flat.Len(), flat.Len())
	}
	typ := flat.Type()
	for range dims[1:] {
		typ = reflect.SliceOf(typ)
	}
	rows := int(dims[0])
	stride := int(numElements(dims[1:]))
	out := reflect.MakeSlice(typ, rows, rows)
	for i := 0; i < rows; i++ {
		out.Index(i).Set(nestValue(flat.Slice3(i*stride, (i+1)*stride, (i+1)*stride), dims[1:]))
	}
	return out
}
