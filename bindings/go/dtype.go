// dtype.go: element types (graft_dtype) and the library version.

package graft

import raw "graft.dev/graft/internal/graft_swig"

// DType is a tensor's element type (graft_dtype).
type DType int32

// The element types of the C API.
const (
	Invalid    DType = 0
	Float32    DType = 1
	Float64    DType = 2
	Int32      DType = 3
	Uint8      DType = 4
	Int16      DType = 5
	Int8       DType = 6
	String     DType = 7
	Complex64  DType = 8
	Int64      DType = 9
	Bool       DType = 10
	QInt8      DType = 11
	QUint8     DType = 12
	QInt32     DType = 13
	BFloat16   DType = 14
	QInt16     DType = 15
	QUint16    DType = 16
	Uint16     DType = 17
	Complex128 DType = 18
	Float16    DType = 19
	Resource   DType = 20
	Variant    DType = 21
	Uint32     DType = 22
	Uint64     DType = 23
)

// String returns the dtype's name ("float32", ...).
func (d DType) String() string { return raw.Graft_dtype_name(int(d)) }

// Size is the byte size of one element (0 for variable-size types such as String).
func (d DType) Size() int { return int(raw.Graft_dtype_size(int(d))) }

// IsValid reports whether d is a dtype the library knows.
func (d DType) IsValid() bool { return raw.Graft_dtype_is_valid(int(d)) != 0 }

// IsFloating reports whether d is a real floating-point type.
func (d DType) IsFloating() bool { return raw.Graft_dtype_is_floating(int(d)) != 0 }

// IsInteger reports whether d is an integer type (not quantized, not bool).
func (d DType) IsInteger() bool { return raw.Graft_dtype_is_integer(int(d)) != 0 }

// Version is the library's version string, e.g. "0.1.0".
func Version() string { return raw.Graft_version() }
