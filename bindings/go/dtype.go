// dtype.go: element types (graft_dtype) and the library version.

package graft

import raw "graft.dev/graft/internal/graft_swig"

// DType is a tensor's element type (graft_dtype).
type DType int32

// The DType constants (Invalid, Float32, Float64, Int32, ... Uint64) are generated from the C
// API's dtype enum (dtype_table.go, by internal/dtypegen: generate.go).

// DTypes returns every dtype of the C API that is no reference, in code order (the C API's
// table, graft_dtype_list).
func DTypes() []DType {
	codes := raw.Dtype_codes()
	d := make([]DType, len(codes))
	for i, c := range codes {
		d[i] = DType(c)
	}
	return d
}

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
