// tensor_test.go: tensors of Go slices, shapes, dtypes, errors' fields, GraphDef round
// trips and eager variables.

package graft_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"graft.dev/graft"
	raw "graft.dev/graft/internal/graft_swig"
)

func TestTensorsOfEachElementType(t *testing.T) {
	i8 := must(graft.NewTensorWithShape([]int8{-1, 0, 1}, []int64{3}))
	if i8.DType() != graft.Int8 || i8.ByteSize() != 3 {
		t.Fatalf("%v, %d bytes", i8, i8.ByteSize())
	}
	if got := must(graft.TensorData[int8](i8)); !reflect.DeepEqual(got, []int8{-1, 0, 1}) {
		t.Fatalf("int8 data %v", got)
	}
	f64 := must(graft.NewTensorWithShape([]float64{0.5, -2}, []int64{2, 1}))
	if got := must(f64.Float64s()); !reflect.DeepEqual(got, []float64{0.5, -2}) || f64.String() != "Tensor<float64 [2 1]>" {
		t.Fatalf("%v holds %v", f64, got)
	}
	b := must(graft.NewTensorWithShape([]bool{true, false}, []int64{2}))
	if got := must(graft.TensorData[bool](b)); !reflect.DeepEqual(got, []bool{true, false}) || b.DType() != graft.Bool {
		t.Fatalf("bool data %v", got)
	}
	c := must(graft.NewTensorWithShape([]complex128{complex(1, 2)}, []int64{1}))
	if got := must(graft.TensorData[complex128](c)); got[0] != complex(1, 2) {
		t.Fatalf("complex data %v", got)
	}
	s := must(graft.Scalar(int64(42)))
	if len(s.Shape()) != 0 || s.NumElements() != 1 || must(s.Int64s())[0] != 42 {
		t.Fatalf("scalar %v", s)
	}
	z := must(graft.Zeros(graft.Int32, 2, 3))
	if got := must(z.Int32s()); !reflect.DeepEqual(got, make([]int32, 6)) {
		t.Fatalf("zeros %v", got)
	}
	raw := must(graft.NewTensorFromBytes(graft.Uint8, []byte{1, 2, 3, 255}, []int64{4}))
	if got := must(raw.Bytes()); !bytes.Equal(got, []byte{1, 2, 3, 255}) {
		t.Fatalf("bytes %v", got)
	}
	// Strings may hold any bytes, NUL included.
	strs := must(graft.NewStringTensor([]string{"a", "", "x\x00y"}, []int64{3}))
	if got := must(strs.Strings()); !reflect.DeepEqual(got, []string{"a", "", "x\x00y"}) || strs.DType() != graft.String {
		t.Fatalf("strings %q", got)
	}
}

func TestTensorErrors(t *testing.T) {
	f := must(graft.NewTensorWithShape([]float32{1, 2}, []int64{2}))
	if _, err := f.Int32s(); !errors.Is(err, graft.ErrDType) {
		t.Fatalf("reading float32 as int32: %v", err)
	}
	if _, err := f.Strings(); !errors.Is(err, graft.ErrDType) {
		t.Fatalf("reading float32 as strings: %v", err)
	}
	if _, err := graft.NewTensorWithShape([]float32{1, 2}, []int64{3}); err == nil {
		t.Fatal("3 elements from 2 values")
	}
	if _, err := graft.NewTensorWithShape([]float32{}, []int64{2}); !errors.Is(err, graft.ErrInvalid) {
		t.Fatalf("no data: %v", err)
	}
	if _, err := graft.Zeros(graft.DType(999), 1); err == nil {
		t.Fatal("a tensor of an unknown dtype")
	}
}

func TestShapesAndDTypes(t *testing.T) {
	for _, c := range []struct {
		shape graft.Shape
		str   string
		rank  int
		full  bool
	}{
		{graft.UnknownShape(), "<unknown>", -1, false},
		{graft.Shape{}, "<unknown>", -1, false},
		{graft.MakeShape(), "()", 0, true},
		{graft.MakeShape(3), "(3,)", 1, true},
		{graft.MakeShape(-1, 4), "(None, 4)", 2, false},
	} {
		if c.shape.String() != c.str || c.shape.Rank() != c.rank || c.shape.IsFullyDefined() != c.full {
			t.Errorf("%v: rank %d, fully defined %v", c.shape, c.shape.Rank(), c.shape.IsFullyDefined())
		}
	}
	if graft.Float32.String() != "float32" || graft.Float64.Size() != 8 || !graft.Int64.IsInteger() || !graft.Float16.IsFloating() {
		t.Fatal("dtype properties")
	}
	if graft.DTypeOf[uint16]() != graft.Uint16 || graft.DType(999).IsValid() {
		t.Fatal("dtype of Go types")
	}
	if graft.Version() == "" {
		t.Fatal("no version")
	}
}

func TestErrorValues(t *testing.T) {
	g := must(graft.NewGraph())
	_, err := g.Tensor("nowhere:0")
	var ge *graft.Error
	if !errors.As(err, &ge) {
		t.Fatalf("%T %v", err, err)
	}
	if ge.Code != graft.CodeNotFound || ge.CodeName != "GRAFT_ENOTFOUND" || ge.Error() != "GRAFT_ENOTFOUND: "+ge.Message {
		t.Fatalf("%+v", ge)
	}
	if !errors.Is(err, graft.ErrNotFound) || errors.Is(err, graft.ErrInvalid) {
		t.Fatal("errors.Is compares codes")
	}
	if graft.CodeInvalid.String() != "GRAFT_EINVAL" {
		t.Fatal(graft.CodeInvalid.String())
	}
}

func TestGraphDefRoundTrip(t *testing.T) {
	g := must(graft.NewGraph())
	scope := must(g.PushNameScope("layer"))
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(2, 2)))
	w := must(g.Const("w", newMatrix(t, 2, 2, 0, 1, 1, 0)))
	must(g.AddOp("MatMul", "mm").AddInput(x).AddInput(w).Finish())
	if err := g.PopNameScope(); err != nil {
		t.Fatal(err)
	}
	if scope != "layer/" || must(x.Name()) != "layer/x:0" {
		t.Fatalf("scope %q, x named %q", scope, must(x.Name()))
	}
	def := must(g.ExportGraphDef(false))

	g2 := must(graft.NewGraph())
	if err := g2.ImportGraphDef(def, "copy"); err != nil {
		t.Fatal(err)
	}
	if g2.NumOps() != g.NumOps() {
		t.Fatalf("%d ops imported, %d exported", g2.NumOps(), g.NumOps())
	}
	mm := must(g2.Operation("copy/layer/mm"))
	x2 := must(g2.Tensor("copy/layer/x:0"))
	sess := must(graft.NewSession(g2))
	out := must(sess.Run(map[graft.Output]*graft.Tensor{x2: newMatrix(t, 2, 2, 1, 2, 3, 4)}, []graft.Output{mm.Output(0)}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{2, 1, 4, 3})

	if err := g2.ImportGraphDef([]byte("not a graph"), ""); err == nil {
		t.Fatal("imported garbage")
	}
	ops := must(g2.Operations())
	if len(ops) != g2.NumOps() || ops[0].Name() != "copy/layer/x" {
		t.Fatalf("ops %v", ops)
	}
}

func TestEagerVariables(t *testing.T) {
	ctx := must(graft.NewContext())
	v := must(ctx.NewVariable(vector(t, ctx, 1, 2), "v"))
	if err := ctx.AssignAddVariable(v, vector(t, ctx, 10, 20)); err != nil {
		t.Fatal(err)
	}
	assertFloats(t, floatsOf(t, must(ctx.ReadVariable(v))), []float32{11, 22})
	// A traced function reads the variable by handle: later assignments are seen.
	read := must(graft.NewFunction("read", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		r, err := ctx.ReadVariable(v)
		if err != nil {
			return nil, err
		}
		return []*graft.Value{r}, nil
	}))
	assertFloats(t, floatsOf(t, must(read.Call(ctx))[0]), []float32{11, 22})
	if err := ctx.AssignVariable(v, vector(t, ctx, 5, 5)); err != nil {
		t.Fatal(err)
	}
	assertFloats(t, floatsOf(t, must(read.Call(ctx))[0]), []float32{5, 5})
	if err := ctx.AssignVariable(v, vector(t, ctx, 1, 2, 3)); err == nil {
		t.Fatal("assigned a value of another shape")
	}
}

// The Go constants are the C API's values.
func TestConstantsMatchC(t *testing.T) {
	codes := map[graft.Code]raw.Graft_status_value{
		graft.CodeUnknown: raw.GRAFT_EUNKNOWN, graft.CodeInvalid: raw.GRAFT_EINVAL,
		graft.CodeNotFound: raw.GRAFT_ENOTFOUND, graft.CodeExists: raw.GRAFT_EEXISTS,
		graft.CodeDType: raw.GRAFT_EDTYPE, graft.CodeShape: raw.GRAFT_ESHAPE,
		graft.CodeRange: raw.GRAFT_ERANGE, graft.CodeNoMemory: raw.GRAFT_ENOMEM,
		graft.CodePrecondition: raw.GRAFT_EPRECONDITION, graft.CodeUnimplemented: raw.GRAFT_EUNIMPLEMENTED,
		graft.CodeInternal: raw.GRAFT_EINTERNAL, graft.CodeDataLoss: raw.GRAFT_EDATALOSS,
		graft.CodeDevice: raw.GRAFT_EDEVICE, graft.CodeCancelled: raw.GRAFT_ECANCELLED,
		graft.CodeDeadline: raw.GRAFT_EDEADLINE,
	}
	for code, c := range codes {
		if int(code) != int(c) {
			t.Errorf("%v is %d in Go, %d in C", code, int(code), int(c))
		}
	}
	kinds := map[graft.ArgKind]int{graft.ArgValue: raw.GRAFT_ARG_VALUE, graft.ArgInt: raw.GRAFT_ARG_INT,
		graft.ArgFloat: raw.GRAFT_ARG_FLOAT, graft.ArgString: raw.GRAFT_ARG_STRING, graft.ArgBool: raw.GRAFT_ARG_BOOL}
	for k, c := range kinds {
		if int(k) != c {
			t.Errorf("arg kind %d is %d in C", k, c)
		}
	}
}
