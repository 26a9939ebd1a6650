// gradients_test.go: symbolic gradients (Graph.AddGradients) run in a session.

package graft_test

import (
	"errors"
	"strings"
	"testing"

	"graft.dev/graft"
)

func TestAddGradientsOfMatMul(t *testing.T) {
	g := must(graft.NewGraph())
	defer g.Close()
	x := must(g.Const("x", newMatrix(t, 1, 2, 1, 2)))
	w := must(g.Const("w", newMatrix(t, 2, 1, 3, 4)))
	y := must(g.AddOp("MatMul", "y").AddInput(x).AddInput(w).Finish()).Output(0)
	grads := must(g.AddGradients("", []graft.Output{y}, []graft.Output{x, w}, nil))
	if len(grads) != 2 || grads[0].Op == nil || grads[1].Op == nil {
		t.Fatalf("grads %v", grads)
	}
	if name := must(grads[0].Name()); !strings.HasPrefix(name, "gradients/") {
		t.Fatalf("gradient name %q", name)
	}
	dy := must(g.Const("dy", newMatrix(t, 1, 1, 10)))
	scaled := must(g.AddGradients("scaled", []graft.Output{y}, []graft.Output{w}, []graft.Output{dy}))
	sess := must(graft.NewSession(g))
	defer sess.Close()
	out := must(sess.Run(nil, []graft.Output{grads[0], grads[1], scaled[0]}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{3, 4})
	assertFloats(t, must(out[1].Float32s()), []float32{1, 2})
	assertFloats(t, must(out[2].Float32s()), []float32{10, 20})
}

func TestAddGradientsUnconnectedAndErrors(t *testing.T) {
	g := must(graft.NewGraph())
	defer g.Close()
	a := must(g.Const("a", newMatrix(t, 1, 1, 2)))
	b := must(g.Const("b", newMatrix(t, 1, 1, 5)))
	y := must(g.AddOp("Square", "y").AddInput(a).Finish()).Output(0)
	grads := must(g.AddGradients("", []graft.Output{y}, []graft.Output{b}, nil))
	if grads[0].Op != nil {
		t.Fatalf("unconnected gradient %v", grads[0])
	}
	zero := must(g.AddGradientsWithOptions([]graft.Output{y}, []graft.Output{b},
		graft.GradientOptions{UnconnectedZero: true}))
	sess := must(graft.NewSession(g))
	defer sess.Close()
	out := must(sess.Run(nil, []graft.Output{zero[0]}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{0})
	n := g.NumOps()
	bad := must(g.Const("bad", must(graft.NewTensorWithShape([]int32{1}, []int64{}))))
	if _, err := g.AddGradients("", []graft.Output{y}, []graft.Output{a}, []graft.Output{bad}); err == nil {
		t.Fatal("a dy of the wrong dtype was accepted")
	}
	if g.NumOps() != n+1 {
		t.Fatalf("the failed call left ops: %d, want %d", g.NumOps(), n+1)
	}
}

func TestGoGradientFunction(t *testing.T) {
	must(0, graft.RegisterGradient("GoTimesTen", func(op *graft.Operation, grads []graft.Output) ([]graft.Output, error) {
		g := op.Graph()
		ten := must(g.Const("", must(graft.NewTensorWithShape([]float32{10}, []int64{}))))
		mul := must(g.AddOp("Mul", "").AddInput(grads[0]).AddInput(ten).Finish())
		return []graft.Output{mul.Output(0)}, nil
	}))
	must(0, graft.RegisterGradient("GoFails", func(op *graft.Operation, grads []graft.Output) ([]graft.Output, error) {
		return nil, errors.New("no gradient today")
	}))
	if err := graft.RegisterGradient("GoTimesTen", nil); err == nil {
		t.Fatal("a nil function was accepted")
	}
	err := graft.RegisterGradient("GoTimesTen", func(*graft.Operation, []graft.Output) ([]graft.Output, error) { return nil, nil })
	if !errors.Is(err, graft.ErrExists) {
		t.Fatalf("second registration: %v", err)
	}
	must(0, graft.RegisterNoGradient("GoStops"))

	g := must(graft.NewGraph())
	defer g.Close()
	x := must(g.Const("x", must(graft.NewTensorWithShape([]float32{3, 4}, []int64{2}))))
	must(0, g.PushGradientOverrideMap(map[string]string{"Identity": "GoTimesTen", "Neg": "GoFails", "Square": "GoStops"}))
	y := must(g.AddOp("Identity", "y").AddInput(x).Finish()).Output(0)
	z := must(g.AddOp("Neg", "z").AddInput(x).Finish()).Output(0)
	s := must(g.AddOp("Square", "s").AddInput(x).Finish()).Output(0)
	must(0, g.PopGradientOverrideMap())
	dx := must(g.AddGradients("", []graft.Output{y}, []graft.Output{x}, nil))
	n := g.NumOps()
	if _, err := g.AddGradients("", []graft.Output{z}, []graft.Output{x}, nil); err == nil ||
		!strings.Contains(err.Error(), "no gradient today") {
		t.Fatalf("failing gradient function: %v", err)
	}
	if g.NumOps() != n {
		t.Fatalf("the failed call left ops: %d, want %d", g.NumOps(), n)
	}
	if ds := must(g.AddGradients("", []graft.Output{s}, []graft.Output{x}, nil)); ds[0].Op != nil {
		t.Fatalf("a gradient flowed through a NoGradient op: %v", ds[0])
	}
	sess := must(graft.NewSession(g))
	defer sess.Close()
	out := must(sess.Run(nil, []graft.Output{dx[0]}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{10, 10})
}

// An embedding table read only by ResourceGather gets its gradient as rows; applied with
// ResourceScatterSub they change only those rows. Read whole too, it gets a dense gradient.
func TestAddGradientsSparseRows(t *testing.T) {
	g := must(graft.NewGraph())
	defer g.Close()
	h := must(g.AddOp("VarHandleOp", "emb").SetAttr("dtype", graft.Float32).SetAttr("shape", graft.MakeShape(3, 2)).Finish()).Output(0)
	init := must(g.AddOp("AssignVariableOp", "init").AddInput(h).AddInput(must(g.Const("v0", newMatrix(t, 3, 2, 1, 2, 3, 4, 5, 6)))).SetAttr("dtype", graft.Float32).Finish())
	ids := must(g.Const("ids", must(graft.NewTensorWithShape([]int32{2, 0, 2}, []int64{3}))))
	rows := must(g.AddOp("ResourceGather", "rows").AddInput(h).AddInput(ids).SetAttr("dtype", graft.Float32).Finish()).Output(0)
	dense, sparse, err := g.AddGradientsSparse([]graft.Output{rows}, []graft.Output{h}, graft.GradientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dense[0].Op != nil || sparse[0] == nil {
		t.Fatalf("want rows, got dense %v rows %v", dense[0], sparse[0])
	}
	apply := must(g.AddOp("ResourceScatterSub", "apply").AddInput(h).AddInput(sparse[0].Indices).AddInput(sparse[0].Values).SetAttr("dtype", graft.Float32).Finish())
	read := must(g.AddOp("ReadVariableOp", "read").AddInput(h).SetAttr("dtype", graft.Float32).Finish()).Output(0)
	sess := must(graft.NewSession(g))
	defer sess.Close()
	must(sess.Run(nil, nil, []*graft.Operation{init}))
	out := must(sess.Run(nil, []graft.Output{sparse[0].Values, sparse[0].Indices, sparse[0].DenseShape}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{1, 1, 1, 1, 1, 1})
	if got := must(out[1].Int32s()); len(got) != 3 || got[0] != 2 || got[1] != 0 || got[2] != 2 {
		t.Fatalf("indices %v", got)
	}
	if got := must(out[2].Int32s()); len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Fatalf("dense shape %v", got)
	}
	must(sess.Run(nil, nil, []*graft.Operation{apply}))
	after := must(sess.Run(nil, []graft.Output{read}, nil))
	assertFloats(t, must(after[0].Float32s()), []float32{0, 1, 3, 4, 3, 4})

	dense, sparse, err = g.AddGradientsSparse([]graft.Output{rows, read}, []graft.Output{h}, graft.GradientOptions{Prefix: "mixed"})
	if err != nil {
		t.Fatal(err)
	}
	if dense[0].Op == nil || sparse[0] != nil {
		t.Fatalf("want a dense gradient, got dense %v rows %v", dense[0], sparse[0])
	}
	sum := must(sess.Run(nil, []graft.Output{dense[0]}, nil))
	assertFloats(t, must(sum[0].Float32s()), []float32{2, 2, 1, 1, 3, 3})
}
