// attr_test.go: attrs set by the Go value's kind, converted by the op's declared attr type
// (graft.hpp's AttrSetter), in graphs and eager op calls; host data as tensors by the C API's
// one rule (graft_tensor_from_host / graft_value_from_host).

package graft_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"graft.dev/graft"
)

// An int for a float attr, an empty slice of any kind for a list attr, a dtype name for a type
// attr: the op's definition decides.
func TestAttrsByDeclaredType(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(2)))
	lr := must(g.AddOp("LeakyRelu", "lr").AddInput(x).SetAttr("alpha", 1).Finish())
	if a := must(lr.Attr("alpha")); !reflect.DeepEqual(a, float64(1)) {
		t.Errorf("LeakyRelu alpha 1 is %#v", a)
	}
	for _, empty := range []any{[]int64{}, []float64{}, []string{}, []bool{}, []graft.DType{}, []graft.Shape{}} {
		sq := must(g.AddOp("Squeeze", "").AddInput(x).SetAttr("squeeze_dims", empty).Finish())
		if d := must(sq.Attr("squeeze_dims")); !reflect.DeepEqual(d, []int64{}) && !reflect.DeepEqual(d, []int64(nil)) {
			t.Errorf("Squeeze squeeze_dims %T{} is %#v", empty, d)
		}
	}
	ph := must(g.AddOp("Placeholder", "by_name").SetAttr("dtype", "int64").Finish())
	if d := must(ph.Attr("dtype")); d != graft.Int64 {
		t.Errorf("Placeholder dtype \"int64\" is %v", d)
	}

	ctx := must(graft.NewContext())
	v := vector(t, ctx, -2, 3)
	out := must(ctx.Execute("LeakyRelu", []*graft.Value{v}, map[string]any{"alpha": 2}))
	assertFloats(t, floatsOf(t, out[0]), []float32{-4, 3})
	out = must(ctx.Op("Squeeze").AddInput(v).SetAttr("squeeze_dims", []string{}).Execute())
	assertFloats(t, floatsOf(t, out[0]), []float32{-2, 3})
}

// A value that cannot be the declared attr type is ErrInvalid naming the op type and the attr.
func TestAttrTypeMismatch(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(2, 2)))
	_, err := g.AddOp("MatMul", "mm").AddInput(x).AddInput(x).SetAttr("transpose_a", "yes").Finish()
	if !errors.Is(err, graft.ErrInvalid) || !strings.Contains(err.Error(), "MatMul") ||
		!strings.Contains(err.Error(), "transpose_a") {
		t.Errorf("MatMul transpose_a \"yes\": %v", err)
	}
	_, err = g.AddOp("LeakyRelu", "lr").AddInput(x).SetAttr("alpha", []int64{1, 2}).Finish()
	if !errors.Is(err, graft.ErrInvalid) || !strings.Contains(err.Error(), "LeakyRelu") ||
		!strings.Contains(err.Error(), "alpha") {
		t.Errorf("LeakyRelu alpha [1 2]: %v", err)
	}

	ctx := must(graft.NewContext())
	v := vector(t, ctx, -2, 3)
	_, err = ctx.Execute("LeakyRelu", []*graft.Value{v}, map[string]any{"alpha": true})
	if !errors.Is(err, graft.ErrInvalid) || !strings.Contains(err.Error(), "LeakyRelu") ||
		!strings.Contains(err.Error(), "alpha") {
		t.Errorf("eager LeakyRelu alpha true: %v", err)
	}
}

// Host numbers become values by the C API's rule: int32 when every integer fits, else int64;
// a requested dtype must hold every element.
func TestHostConversion(t *testing.T) {
	ctx := must(graft.NewContext())
	small := must(ctx.FromInt64s([]int64{1, -2}, []int64{2}, graft.Invalid))
	if small.DType() != graft.Int32 {
		t.Errorf("[1 -2] is %v, want int32", small.DType())
	}
	big := must(ctx.FromInt64s([]int64{1, 1 << 40}, []int64{2}, graft.Invalid))
	if big.DType() != graft.Int64 {
		t.Errorf("[1 2**40] is %v, want int64", big.DType())
	}
	if got := must(must(big.Tensor()).Int64s()); !reflect.DeepEqual(got, []int64{1, 1 << 40}) {
		t.Errorf("[1 2**40] reads %v", got)
	}
	if _, err := ctx.FromFloat64s([]float64{1.5}, []int64{}, graft.Int32); err == nil {
		t.Error("1.5 as int32 succeeded")
	} else if !strings.Contains(err.Error(), "1.5") {
		t.Errorf("1.5 as int32: %v (no element named)", err)
	}
	if _, err := ctx.FromInt64s([]int64{1 << 40}, []int64{}, graft.Int32); err == nil {
		t.Error("2**40 as int32 succeeded")
	}
	f := must(ctx.FromFloat64s([]float64{2}, []int64{}, graft.Invalid))
	if f.DType() != graft.Float32 {
		t.Errorf("2.0 is %v, want float32", f.DType())
	}
}
