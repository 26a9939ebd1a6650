// graph_test.go: building graphs with MatMul and running them in sessions.

package graft_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"graft.dev/graft"
)

// must returns v, panicking (which fails the test) on an unexpected error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func newMatrix(t testing.TB, rows, cols int64, data ...float32) *graft.Tensor {
	t.Helper()
	return must(graft.NewTensorWithShape(data, []int64{rows, cols}))
}

func assertFloats(t testing.TB, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestMatMulOfConstants(t *testing.T) {
	g := must(graft.NewGraph())
	defer g.Close()
	a := must(g.Const("a", newMatrix(t, 2, 2, 1, 2, 3, 4)))
	b := must(g.Const("b", newMatrix(t, 2, 2, 5, 6, 7, 8)))
	mm := must(g.AddOp("MatMul", "mm").AddInput(a).AddInput(b).Finish())

	if mm.Type() != "MatMul" || mm.Name() != "mm" || mm.NumInputs() != 2 || mm.NumOutputs() != 1 {
		t.Fatalf("op is %v with %d inputs, %d outputs", mm, mm.NumInputs(), mm.NumOutputs())
	}
	if ta := must(mm.Attr("transpose_a")); ta != false {
		t.Fatalf("transpose_a = %v", ta)
	}
	if d := must(mm.Attr("T")); d != graft.Float32 {
		t.Fatalf("T = %v", d)
	}
	if s := must(mm.Output(0).Shape()); s.String() != "(2, 2)" {
		t.Fatalf("inferred shape %v", s)
	}

	sess := must(graft.NewSession(g))
	defer sess.Close()
	out := must(sess.Run(nil, []graft.Output{mm.Output(0)}, nil))
	if len(out) != 1 {
		t.Fatalf("%d results", len(out))
	}
	if got := out[0].Shape(); len(got) != 2 || got[0] != 2 || got[1] != 2 {
		t.Fatalf("shape %v", got)
	}
	assertFloats(t, must(out[0].Float32s()), []float32{19, 22, 43, 50})
}

func TestMatMulWithPlaceholdersAndFeeds(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(-1, 3)))
	w := must(g.Const("w", newMatrix(t, 3, 1, 1, 10, 100)))
	y := must(g.AddOp("MatMul", "y").AddInput(x).AddInput(w).SetAttr("transpose_a", false).Finish())
	sess := must(graft.NewSession(g, graft.WithNumThreads(1)))

	for rows := int64(1); rows <= 3; rows++ {
		data := make([]float32, 3*rows)
		for i := range data {
			data[i] = float32(i + 1)
		}
		out := must(sess.Run(map[graft.Output]*graft.Tensor{x: newMatrix(t, rows, 3, data...)},
			[]graft.Output{y.Output(0)}, nil))
		got := must(out[0].Float32s())
		if int64(len(got)) != rows {
			t.Fatalf("%d rows fed, %d results", rows, len(got))
		}
		for r := int64(0); r < rows; r++ {
			want := data[3*r] + 10*data[3*r+1] + 100*data[3*r+2]
			if got[r] != want {
				t.Fatalf("row %d: %v, want %v", r, got[r], want)
			}
		}
	}
	// Inputs and consumers describe the same edges.
	in := must(y.Input(0))
	if in.Op.Name() != "x" || in.Index != 0 {
		t.Fatalf("input 0 is %v", in)
	}
	consumers := must(x.Consumers())
	if len(consumers) != 1 || !consumers[0].SameAs(y) {
		t.Fatalf("consumers of x: %v", consumers)
	}
}

func TestGraphErrors(t *testing.T) {
	g := must(graft.NewGraph())
	_, err := g.AddOp("NoSuchOp", "n").Finish()
	var ge *graft.Error
	if !errors.As(err, &ge) {
		t.Fatalf("unknown op type: %v", err)
	}
	if ge.Message == "" || !strings.HasPrefix(ge.CodeName, "GRAFT_E") || ge.Code.String() != ge.CodeName {
		t.Fatalf("error fields: %+v", ge)
	}

	_, err = g.Operation("missing")
	if !errors.Is(err, graft.ErrNotFound) {
		t.Fatalf("missing op: %v", err)
	}

	// A MatMul of mismatched shapes fails when it is added (shape inference).
	a := must(g.Const("a", newMatrix(t, 2, 3, 1, 2, 3, 4, 5, 6)))
	_, err = g.AddOp("MatMul", "bad").AddInput(a).AddInput(a).Finish()
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("mismatched MatMul: %v", err)
	}

	// Feeding a tensor of the wrong dtype fails the run.
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(2)))
	neg := must(g.AddOp("Neg", "neg").AddInput(x).Finish())
	sess := must(graft.NewSession(g))
	ints := must(graft.NewTensorWithShape([]int32{1, 2}, []int64{2}))
	_, err = sess.Run(map[graft.Output]*graft.Tensor{x: ints}, []graft.Output{neg.Output(0)}, nil)
	if err == nil {
		t.Fatal("feeding int32 to a float32 placeholder succeeded")
	}
	// An attr of a type Go cannot set is reported by Finish.
	_, err = g.AddOp("Neg", "neg2").AddInput(x).SetAttr("T", struct{}{}).Finish()
	if !errors.Is(err, graft.ErrInvalid) {
		t.Fatalf("bad attr value: %v", err)
	}
}

// RunContext: a context's deadline or cancellation stops the run (100 products of 512 x 512
// matrices: hundreds of ms on 2 cores, far above a coarse-clock tick on a fast machine) with
// an error that is both Graft's and the context's; the session stays usable.
func TestSessionRunContext(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(512, 512)))
	slow := x
	for i := 0; i < 100; i++ {
		op := must(g.AddOp("MatMul", fmt.Sprintf("m%d", i)).AddInput(slow).AddInput(x).Finish())
		slow = op.Output(0)
	}
	sess := must(graft.NewSession(g))
	feeds := map[graft.Output]*graft.Tensor{x: newMatrix(t, 512, 512, make([]float32, 512*512)...)}
	fetches := []graft.Output{slow}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	_, err := sess.RunContext(ctx, feeds, fetches, nil)
	if !errors.Is(err, graft.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "deadline") {
		t.Fatalf("a 2 ms deadline: got %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		time.Sleep(3 * time.Millisecond)
		cancel2()
	}()
	_, err = sess.RunContext(ctx2, feeds, fetches, nil)
	if !errors.Is(err, graft.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled after 3 ms: got %v", err)
	}
	_, err = sess.RunContext(ctx2, feeds, fetches, nil) // already done
	if !errors.Is(err, graft.ErrCancelled) {
		t.Fatalf("an already cancelled context: got %v", err)
	}
	// The session stays usable, with and without a context.
	out := must(sess.RunContext(context.Background(), feeds, fetches, nil))
	if got := out[0].Shape(); len(got) != 2 || got[0] != 512 || got[1] != 512 {
		t.Fatalf("shape %v", got)
	}
}

// WithMaxMemory: a run whose tensors would pass the cap fails with ErrNoMemory naming the op;
// the session stays usable.
func TestSessionMaxMemory(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(-1, 3)))
	w := must(g.Const("w", newMatrix(t, 3, 1, 1, 10, 100)))
	y := must(g.AddOp("MatMul", "y").AddInput(x).AddInput(w).Finish())
	sess := must(graft.NewSession(g, graft.WithMaxMemory(1024)))
	big := make([]float32, 3*1000)
	_, err := sess.Run(map[graft.Output]*graft.Tensor{x: newMatrix(t, 1000, 3, big...)}, []graft.Output{y.Output(0)}, nil)
	if !errors.Is(err, graft.ErrNoMemory) || !strings.Contains(err.Error(), "MatMul op 'y'") ||
		!strings.Contains(err.Error(), "memory cap of 1024 bytes") {
		t.Fatalf("got %v", err)
	}
	out := must(sess.Run(map[graft.Output]*graft.Tensor{x: newMatrix(t, 1, 3, 1, 2, 3)}, []graft.Output{y.Output(0)}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{321})
}
