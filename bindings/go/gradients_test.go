// gradients_test.go: symbolic gradients (Graph.AddGradients) run in a session.

package graft_test

import (
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
	bad := must(g.Const("bad", must(graft.NewTensor([]int64{}, []int32{1}))))
	if _, err := g.AddGradients("", []graft.Output{y}, []graft.Output{a}, []graft.Output{bad}); err == nil {
		t.Fatal("a dy of the wrong dtype was accepted")
	}
	if g.NumOps() != n+1 {
		t.Fatalf("the failed call left ops: %d, want %d", g.NumOps(), n+1)
	}
}
