// tensor_value_test.go: tensors of nested Go slices (NewTensor, the shape inferred) and back
// (Tensor.Value), for every element type; ragged slices and types without a dtype refused.

package graft_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"graft.dev/graft"
)

type celsius float64 // a type defined over an element type is one too

func TestNestedSlicesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		value any
		dtype graft.DType
		shape []int64
	}{
		{float32(1.5), graft.Float32, []int64{}},
		{int64(-7), graft.Int64, []int64{}},
		{true, graft.Bool, []int64{}},
		{"scalar", graft.String, []int64{}},
		{complex(1, -2), graft.Complex128, []int64{}},
		{[]int64{1, -2, 3}, graft.Int64, []int64{3}},
		{[][]float32{{1, 2, 3}, {4, 5, 6}}, graft.Float32, []int64{2, 3}},
		{[][][]float64{{{1}, {2}}, {{3}, {4}}, {{5}, {6}}}, graft.Float64, []int64{3, 2, 1}},
		{[][]bool{{true, false}, {false, true}}, graft.Bool, []int64{2, 2}},
		{[]string{"a", "", "x\x00y"}, graft.String, []int64{3}},
		{[][]string{{"a", "b"}, {"c", "d"}, {"e", "f"}}, graft.String, []int64{3, 2}},
		{[][]int8{{-128, 127}}, graft.Int8, []int64{1, 2}},
		{[][]int16{{-3}, {4}}, graft.Int16, []int64{2, 1}},
		{[][]int32{{1, 2}, {3, 4}}, graft.Int32, []int64{2, 2}},
		{[][]uint8{{0, 255}, {1, 2}}, graft.Uint8, []int64{2, 2}},
		{[][]uint16{{65535}}, graft.Uint16, []int64{1, 1}},
		{[][]uint32{{1 << 31, 2}}, graft.Uint32, []int64{1, 2}},
		{[][]uint64{{1 << 63}, {3}}, graft.Uint64, []int64{2, 1}},
		{[][]complex64{{complex(1, 2), complex(3, 4)}}, graft.Complex64, []int64{1, 2}},
		{[][]complex128{{complex(-1, 0.5)}}, graft.Complex128, []int64{1, 1}},
		{[][][][]int64{{{{1, 2}}}, {{{3, 4}}}}, graft.Int64, []int64{2, 1, 1, 2}},
		// Empty dimensions, at the end and at the start.
		{[][]float32{{}, {}}, graft.Float32, []int64{2, 0}},
		{[][]float32{}, graft.Float32, []int64{0, 0}},
		{[]string{}, graft.String, []int64{0}},
	} {
		tensor, err := graft.NewTensor(c.value)
		if err != nil {
			t.Fatalf("NewTensor(%#v): %v", c.value, err)
		}
		if tensor.DType() != c.dtype || !reflect.DeepEqual(tensor.Shape(), c.shape) {
			t.Errorf("NewTensor(%#v) is %v, want %v %v", c.value, tensor, c.dtype, c.shape)
		}
		got := must(tensor.Value())
		if !reflect.DeepEqual(got, c.value) {
			t.Errorf("Value of NewTensor(%#v) is %#v", c.value, got)
		}
		// The flat form reads the same elements.
		if c.dtype == graft.Float32 && len(c.shape) == 2 && c.shape[1] > 0 {
			var flat []float32
			for _, row := range c.value.([][]float32) {
				flat = append(flat, row...)
			}
			assertFloats(t, must(tensor.Float32s()), flat)
		}
	}
}

func TestNewTensorOfArraysAndDefinedTypes(t *testing.T) {
	arr := must(graft.NewTensor([2][3]int32{{1, 2, 3}, {4, 5, 6}}))
	if !reflect.DeepEqual(arr.Shape(), []int64{2, 3}) || !reflect.DeepEqual(must(arr.Int32s()), []int32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("[2][3]int32: %v %v", arr, must(arr.Int32s()))
	}
	// Value gives slices, whatever NewTensor was given.
	if got := must(arr.Value()); !reflect.DeepEqual(got, [][]int32{{1, 2, 3}, {4, 5, 6}}) {
		t.Fatalf("Value of [2][3]int32: %#v", got)
	}
	mixed := must(graft.NewTensor([][2]float64{{1, 2}, {3, 4}, {5, 6}}))
	if !reflect.DeepEqual(mixed.Shape(), []int64{3, 2}) || !reflect.DeepEqual(must(mixed.Float64s()), []float64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("[][2]float64: %v", mixed)
	}
	temps := must(graft.NewTensor([]celsius{-40, 100}))
	if temps.DType() != graft.Float64 || !reflect.DeepEqual(must(temps.Value()), []float64{-40, 100}) {
		t.Fatalf("[]celsius: %v", temps)
	}
	// The nested form and the flat form with a shape make the same tensor.
	nested := must(graft.NewTensor([][]float32{{1, 2}, {3, 4}}))
	flat := must(graft.NewTensorWithShape([]float32{1, 2, 3, 4}, []int64{2, 2}))
	if !reflect.DeepEqual(must(nested.Bytes()), must(flat.Bytes())) || !reflect.DeepEqual(nested.Shape(), flat.Shape()) {
		t.Fatal("nested and flat tensors differ")
	}
}

func TestValueRowsDoNotOverlap(t *testing.T) {
	v := must(must(graft.NewTensor([][]float32{{1, 2}, {3, 4}})).Value()).([][]float32)
	_ = append(v[0], 99) // a row's capacity is its length: this copies
	if v[1][0] != 3 {
		t.Fatalf("appending to row 0 wrote into row 1: %v", v)
	}
}

func TestRaggedSlicesAreRefused(t *testing.T) {
	for _, c := range []struct {
		value any
		want  string
	}{
		{[][]float32{{1, 2, 3}, {4, 5}}, "dimension 1 has length 3 at value[0] but 2 at value[1]"},
		{[][]int64{{1}, {}, {2}}, "dimension 1 has length 1 at value[0] but 0 at value[1]"},
		{[][][]int32{{{1, 2}, {3, 4}}, {{5, 6}, {7}}}, "dimension 2 has length 2 at value[0][0] but 1 at value[1][1]"},
		{[][][]bool{{{true}}, {{true}, {false}}}, "dimension 1 has length 1 at value[0] but 2 at value[1]"},
		{[][]string{{"a"}, {"b", "c"}}, "dimension 1 has length 1 at value[0] but 2 at value[1]"},
	} {
		_, err := graft.NewTensor(c.value)
		if !errors.Is(err, graft.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewTensor(%#v): %v, want an error with %q", c.value, err, c.want)
		}
	}
}

func TestNewTensorRefusesOtherTypes(t *testing.T) {
	for _, c := range []struct {
		value any
		want  string
	}{
		{nil, "NewTensor of nil"},
		{[]int{1, 2}, "use int64 or int32"},
		{uint(3), "use int64 or int32"},
		{[]any{1.5}, "interface {} is not a tensor element type"},
		{map[string]int64{}, "is not a tensor element type"},
		{[]*float32{nil}, "is not a tensor element type"},
	} {
		_, err := graft.NewTensor(c.value)
		if !errors.Is(err, graft.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewTensor(%#v): %v, want an error with %q", c.value, err, c.want)
		}
	}
	half := must(graft.Zeros(graft.Float16, 2))
	if _, err := half.Value(); !errors.Is(err, graft.ErrUnimplemented) {
		t.Errorf("Value of float16: %v", err)
	}
	closed := must(graft.NewTensor([]float32{1}))
	closed.Close()
	if _, err := closed.Value(); !errors.Is(err, graft.ErrPrecondition) {
		t.Errorf("Value after Close: %v", err)
	}
}

// A graph over tensors of nested slices, its result read back nested.
func TestNestedTensorsThroughASession(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(-1, 2)))
	w := must(g.Const("w", must(graft.NewTensor([][]float32{{1, 0, 2}, {0, 1, 3}}))))
	mm := must(g.AddOp("MatMul", "mm").AddInput(x).AddInput(w).Finish())
	sess := must(graft.NewSession(g))
	out := must(sess.Run(map[graft.Output]*graft.Tensor{x: must(graft.NewTensor([][]float32{{1, 10}, {2, 20}}))},
		[]graft.Output{mm.Output(0)}, nil))
	if got := must(out[0].Value()); !reflect.DeepEqual(got, [][]float32{{1, 10, 32}, {2, 20, 64}}) {
		t.Fatalf("x w = %#v", got)
	}
}
