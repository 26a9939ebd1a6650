// scope_test.go: Scope (tensorflow/go's op.Scope): name scopes made unique as TensorFlow makes
// them, control dependencies and devices of the ops added through a scope, accumulated errors.

package graft_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"graft.dev/graft"
)

func opNames(ops []*graft.Operation) []string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name()
	}
	return names
}

func TestScopeNames(t *testing.T) {
	g := must(graft.NewGraph())
	root := graft.NewScope(g)
	a := root.SubScope("a")
	a1 := root.SubScope("a")
	b := a.SubScope("b")
	if a.Name() != "a" || a1.Name() != "a_1" || b.Name() != "a/b" || root.Name() != "" {
		t.Fatalf("scopes %q %q %q %q", root.Name(), a.Name(), a1.Name(), b.Name())
	}
	c1 := must(a.Const("", float32(1)))
	c2 := must(a.Const("", float32(2)))
	x := must(a1.Const("x", []int64{1, 2}))
	y := must(b.Const("y", "text"))
	top := must(root.Const("", int32(0)))
	got := []string{c1.Op.Name(), c2.Op.Name(), x.Op.Name(), y.Op.Name(), top.Op.Name()}
	want := []string{"a/Const", "a/Const_1", "a_1/x", "a/b/y", "Const"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("op names %v, want %v", got, want)
	}
	// The scope's names and the graph's are one namespace: an op "a" is not a scope "a".
	must(root.AddOp("NoOp", "n").Finish())
	if n := root.SubScope("n"); n.Name() != "n_1" {
		t.Fatalf("a scope named as an op: %q", n.Name())
	}
	// A scope's ops are named under it whatever name scope the graph has entered.
	must(g.PushNameScope("outer"))
	z := must(b.Const("z", float32(3)))
	inner := must(root.Const("", float32(4)))
	must(0, g.PopNameScope())
	if z.Op.Name() != "a/b/z" || inner.Op.Name() != "Const_1" || g.NameScope() != "" {
		t.Fatalf("under the graph's scope: %q, %q (graph scope %q)", z.Op.Name(), inner.Op.Name(), g.NameScope())
	}
	// The graph's own name scopes see the scopes' names as taken.
	if s := must(g.PushNameScope("a")); s != "a_2/" {
		t.Fatalf("graph scope after the Scope's: %q", s)
	}
	must(0, g.PopNameScope())
	if err := root.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestScopeControlDependenciesAndDevice(t *testing.T) {
	g := must(graft.NewGraph())
	root := graft.NewScope(g)
	init1 := must(root.AddOp("NoOp", "init1").Finish())
	init2 := must(root.AddOp("NoOp", "init2").Finish())
	deps := root.WithControlDependencies(init1)
	both := deps.SubScope("layer").WithControlDependencies(init2)
	cpu := both.WithDevice("/device:CPU:0")

	one := must(deps.Const("one", float32(1)))
	two := must(both.Const("two", float32(2)))
	sum := must(cpu.AddOp("AddV2", "sum").AddInput(one).AddInput(two).Finish())
	plain := must(root.Const("plain", float32(0)))

	if got := opNames(one.Op.ControlInputs()); !reflect.DeepEqual(got, []string{"init1"}) {
		t.Errorf("one's control inputs %v", got)
	}
	if got := opNames(two.Op.ControlInputs()); !reflect.DeepEqual(got, []string{"init1", "init2"}) {
		t.Errorf("two's control inputs %v", got)
	}
	if got := opNames(sum.ControlInputs()); !reflect.DeepEqual(got, []string{"init1", "init2"}) || sum.Name() != "layer/sum" {
		t.Errorf("%s's control inputs %v", sum.Name(), got)
	}
	if len(plain.Op.ControlInputs()) != 0 || plain.Op.Device() != "" || two.Op.Device() != "" {
		t.Errorf("the root scope's op: deps %v, device %q; two's device %q",
			opNames(plain.Op.ControlInputs()), plain.Op.Device(), two.Op.Device())
	}
	if !strings.Contains(sum.Device(), "CPU:0") {
		t.Errorf("sum placed on %q", sum.Device())
	}
	if got := opNames(init2.ControlOutputs()); !reflect.DeepEqual(got, []string{"layer/two", "layer/sum"}) {
		t.Errorf("init2's control outputs %v", got)
	}
	// The dependencies are in the GraphDef: an imported copy has them.
	g2 := must(graft.NewGraph())
	if err := g2.ImportGraphDef(must(g.ExportGraphDef(false)), "copy"); err != nil {
		t.Fatal(err)
	}
	if got := opNames(must(g2.Operation("copy/layer/sum")).ControlInputs()); !reflect.DeepEqual(got, []string{"copy/init1", "copy/init2"}) {
		t.Errorf("imported sum's control inputs %v", got)
	}
	// The scope's graph runs: the dependencies and the sum.
	sess := must(graft.NewSession(g))
	out := must(sess.Run(nil, []graft.Output{sum.Output(0)}, nil))
	if got := must(out[0].Value()); got != float32(3) {
		t.Fatalf("sum %v", got)
	}
}

func TestScopeErrorsAccumulate(t *testing.T) {
	g := must(graft.NewGraph())
	root := graft.NewScope(g)
	a := root.SubScope("a")
	x := must(a.Placeholder("x", graft.Float32, graft.MakeShape(2)))
	if _, err := root.SubScope("bad name!").Const("c", float32(1)); err == nil {
		t.Fatal("a scope of an invalid name")
	}
	first := root.Err()
	if first == nil {
		t.Fatal("no error recorded")
	}
	// Every scope of the tree reports it, and adds no op any more.
	n := g.NumOps()
	_, err := a.AddOp("Neg", "neg").AddInput(x).Finish()
	if err != first || a.Err() != first || a.SubScope("b").Err() != first || g.NumOps() != n {
		t.Fatalf("after a failure: %v, %v (first %v), %d ops for %d", err, a.Err(), first, g.NumOps(), n)
	}

	// A failing op is the scope's error too.
	s := graft.NewScope(must(graft.NewGraph()))
	_, err = s.AddOp("NoSuchOp", "").Finish()
	if err == nil || s.Err() != err || s.WithDevice("/device:CPU:0").Err() != err {
		t.Fatalf("unknown op type: %v, scope's %v", err, s.Err())
	}
	if _, err := s.Const("ok", float32(1)); err != s.Err() {
		t.Fatalf("an op after the failure: %v", err)
	}
	for _, bad := range []string{"", "trailing/"} {
		s := graft.NewScope(must(graft.NewGraph()))
		if err := s.SubScope(bad).Err(); !errors.Is(err, graft.ErrInvalid) {
			t.Errorf("SubScope(%q): %v", bad, err)
		}
	}
	if err := graft.NewScope(nil).Err(); !errors.Is(err, graft.ErrInvalid) {
		t.Errorf("a scope of no graph: %v", err)
	}
	// Bad Const values fail the scope too.
	s = graft.NewScope(must(graft.NewGraph()))
	if _, err := s.Const("r", [][]float32{{1}, {2, 3}}); !errors.Is(err, graft.ErrInvalid) || s.Err() != err {
		t.Errorf("ragged Const: %v, scope's %v", err, s.Err())
	}
}
