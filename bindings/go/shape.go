// shape.go: partial shapes, a plain Go value converted to the C++ Shape at each call.

package graft

import (
	"strconv"
	"strings"

	raw "graft.dev/graft/internal/graft_swig"
)

// Shape is a partial shape: an unknown rank, or dims of which -1 are unknown.
// The zero Shape has an unknown rank; MakeShape() with no dims is a scalar.
type Shape struct {
	dims  []int64
	known bool
}

// MakeShape returns the shape with these dims (-1 for an unknown dimension).
func MakeShape(dims ...int64) Shape {
	return Shape{dims: append([]int64{}, dims...), known: true}
}

// UnknownShape returns the shape of unknown rank.
func UnknownShape() Shape { return Shape{} }

// Rank is the number of dims, or -1 for an unknown rank.
func (s Shape) Rank() int {
	if !s.known {
		return -1
	}
	return len(s.dims)
}

// Dims returns a copy of the dims (nil for an unknown rank).
func (s Shape) Dims() []int64 {
	if !s.known {
		return nil
	}
	return append([]int64{}, s.dims...)
}

// IsFullyDefined reports whether the rank and every dim are known.
func (s Shape) IsFullyDefined() bool {
	if !s.known {
		return false
	}
	for _, d := range s.dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// String formats the shape as Python does: "(2, None)", "(3,)", "<unknown>".
func (s Shape) String() string {
	if !s.known {
		return "<unknown>"
	}
	parts := make([]string, len(s.dims))
	for i, d := range s.dims {
		if d < 0 {
			parts[i] = "None"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// toRaw makes the C++ Shape (freed by the caller, usually through pins.temp).
func (s Shape) toRaw() raw.Shape {
	if !s.known {
		return raw.NewShape__SWIG_0()
	}
	return raw.NewShape__SWIG_1(s.dims)
}

// shapeFromRaw converts a C++ Shape and frees it.
func shapeFromRaw(r raw.Shape) Shape {
	defer raw.DeleteShape(r)
	return shapeFromBorrowed(r)
}

// shapeFromBorrowed converts a C++ Shape the caller keeps.
func shapeFromBorrowed(r raw.Shape) Shape {
	if r.Rank() < 0 {
		return Shape{}
	}
	return Shape{dims: r.Dims(), known: true}
}
