// tape_test.go: gradient tapes (GradientTape): watched tensors, variables read under a tape,
// persistent and one-shot tapes, unconnected sources, upstream gradients, nested tapes (second
// derivatives), pausing, and the goroutine rules.

package graft_test

import (
	"errors"
	"strings"
	"testing"

	"graft.dev/graft"
)

func scalar(t testing.TB, ctx *graft.Context, x float64) *graft.Value {
	t.Helper()
	return must(ctx.FromFloat64s([]float64{x}, []int64{}, graft.Float32))
}

func runOp(t testing.TB, ctx *graft.Context, opType string, inputs ...*graft.Value) *graft.Value {
	t.Helper()
	op := ctx.Op(opType)
	for _, in := range inputs {
		op.AddInput(in)
	}
	return must(op.Execute())[0]
}

func TestTapeSquare(t *testing.T) {
	ctx := must(graft.NewContext())
	x := scalar(t, ctx, 3)
	tape := must(ctx.NewGradientTape())
	defer tape.Close()
	if !tape.IsRecording() {
		t.Fatal("a new tape does not record")
	}
	must(0, tape.Watch(x))
	y := runOp(t, ctx, "Mul", x, x)
	must(0, tape.Stop())
	if tape.IsRecording() {
		t.Fatal("a stopped tape records")
	}
	grads := must(tape.Gradient([]*graft.Value{y}, []*graft.Value{x}))
	assertFloats(t, floatsOf(t, grads[0]), []float32{6})
	// Not persistent: a second gradient is the C API's error.
	_, err := tape.Gradient([]*graft.Value{y}, []*graft.Value{x})
	var gerr *graft.Error
	if !errors.As(err, &gerr) || gerr.Code != graft.CodePrecondition || !strings.Contains(gerr.Message, "persistent") {
		t.Fatalf("second gradient of a one-shot tape: %v", err)
	}
	// A gradient outlives its tape.
	must(0, tape.Close())
	assertFloats(t, floatsOf(t, grads[0]), []float32{6})
	if _, err := tape.Gradient([]*graft.Value{y}, []*graft.Value{x}); !errors.Is(err, graft.ErrPrecondition) ||
		!strings.Contains(err.Error(), "closed GradientTape") {
		t.Fatalf("gradient after Close: %v", err)
	}
}

func TestTapeMatMulAndVariables(t *testing.T) {
	ctx := must(graft.NewContext())
	x := must(ctx.FromFloat64s([]float64{1, 2}, []int64{1, 2}, graft.Float32))
	w := must(ctx.NewVariable(must(ctx.FromFloat64s([]float64{3, 4}, []int64{2, 1}, graft.Float32)), "w"))
	frozen := must(ctx.NewVariable(scalar(t, ctx, 2), "frozen"))
	must(0, ctx.SetVariableTrainable(frozen, false))
	tape := must(ctx.NewGradientTape())
	defer tape.Close()
	must(0, tape.Watch(x))
	y := runOp(t, ctx, "MatMul", x, must(ctx.ReadVariable(w)))   // [[11]]
	z := runOp(t, ctx, "Mul", y, must(ctx.ReadVariable(frozen))) // 2 y
	must(0, tape.Stop())
	// w was read while the tape recorded (and is trainable): watched; frozen was not.
	watched := must(tape.WatchedVariables())
	if len(watched) != 1 {
		t.Fatalf("watched variables %v", watched)
	}
	assertFloats(t, floatsOf(t, must(ctx.ReadVariable(watched[0]))), []float32{3, 4})
	grads := must(tape.Gradient([]*graft.Value{z}, []*graft.Value{x, w, frozen}))
	assertFloats(t, floatsOf(t, grads[0]), []float32{6, 8}) // 2 w^T
	assertFloats(t, floatsOf(t, grads[1]), []float32{2, 4}) // 2 x^T
	if shape := must(grads[1].Shape()); shape.String() != "(2, 1)" {
		t.Fatalf("gradient of w has shape %v", shape)
	}
	if grads[2] != nil {
		t.Fatalf("a variable that is not trainable got %v", grads[2])
	}

	// Not watching accessed variables: only explicit watches count.
	manual := must(ctx.NewGradientTape(graft.WithWatchAccessedVariables(false)))
	defer manual.Close()
	must(0, manual.Watch(frozen))
	y2 := runOp(t, ctx, "Mul", must(ctx.ReadVariable(w)), must(ctx.ReadVariable(frozen)))
	must(0, manual.Stop())
	grads = must(manual.Gradient([]*graft.Value{y2}, []*graft.Value{w, frozen}))
	if grads[0] != nil {
		t.Fatalf("an unwatched variable got %v", grads[0])
	}
	assertFloats(t, floatsOf(t, grads[1]), []float32{7}) // 3 + 4
}

func TestTapePersistentAndUnconnected(t *testing.T) {
	ctx := must(graft.NewContext())
	x := scalar(t, ctx, 3)
	u := must(ctx.FromFloat64s([]float64{1, 2}, []int64{2}, graft.Float32))
	tape := must(ctx.NewGradientTape(graft.WithPersistent()))
	defer tape.Close()
	must(0, tape.Watch(x, u))
	y := runOp(t, ctx, "Square", x)
	z := runOp(t, ctx, "Square", y) // x^4
	must(0, tape.Stop())
	assertFloats(t, floatsOf(t, must(tape.Gradient([]*graft.Value{z}, []*graft.Value{x}))[0]), []float32{108})
	assertFloats(t, floatsOf(t, must(tape.Gradient([]*graft.Value{y}, []*graft.Value{x}))[0]), []float32{6})
	// Upstream gradients.
	scaled := must(tape.GradientWithOptions([]*graft.Value{y}, []*graft.Value{x},
		graft.TapeGradientOptions{OutputGradients: []*graft.Value{scalar(t, ctx, 10)}}))
	assertFloats(t, floatsOf(t, scaled[0]), []float32{60})
	// Unconnected: nil, or zeros of the source's shape.
	none := must(tape.Gradient([]*graft.Value{z}, []*graft.Value{u, x}))
	if none[0] != nil || none[1] == nil {
		t.Fatalf("unconnected gradients %v", none)
	}
	zero := must(tape.GradientWithOptions([]*graft.Value{z}, []*graft.Value{u},
		graft.TapeGradientOptions{UnconnectedZero: true}))
	assertFloats(t, floatsOf(t, zero[0]), []float32{0, 0})
	// Errors carry the C API's message.
	if _, err := tape.Gradient(nil, []*graft.Value{x}); !errors.Is(err, graft.ErrInvalid) ||
		!strings.Contains(err.Error(), "target") {
		t.Fatalf("no targets: %v", err)
	}
}

func TestTapeSecondDerivative(t *testing.T) {
	ctx := must(graft.NewContext())
	x := scalar(t, ctx, 3)
	outer := must(ctx.NewGradientTape())
	defer outer.Close()
	must(0, outer.Watch(x))
	inner := must(ctx.NewGradientTape())
	must(0, inner.Watch(x))
	y := runOp(t, ctx, "Mul", runOp(t, ctx, "Mul", x, x), x) // x^3
	must(0, inner.Stop())
	dy := must(inner.Gradient([]*graft.Value{y}, []*graft.Value{x}))[0] // 3x^2, recorded by outer
	must(0, inner.Close())
	must(0, outer.Stop())
	assertFloats(t, floatsOf(t, dy), []float32{27})
	d2y := must(outer.Gradient([]*graft.Value{dy}, []*graft.Value{x}))[0] // 6x
	assertFloats(t, floatsOf(t, d2y), []float32{18})
}

func TestTapeStopRecordingAndGoroutines(t *testing.T) {
	ctx := must(graft.NewContext())
	x := scalar(t, ctx, 2)
	tape := must(ctx.NewGradientTape(graft.WithPersistent()))
	defer tape.Close()
	must(0, tape.Watch(x))
	var hidden *graft.Value
	must(0, tape.StopRecording(func() error {
		if tape.IsRecording() {
			return errors.New("recording inside StopRecording")
		}
		hidden = runOp(t, ctx, "Square", x)
		return nil
	}))
	if !tape.IsRecording() {
		t.Fatal("StopRecording did not resume recording")
	}
	if err := tape.Start(); !errors.Is(err, graft.ErrPrecondition) || !strings.Contains(err.Error(), "already recording") {
		t.Fatalf("Start while recording: %v", err)
	}
	seen := runOp(t, ctx, "Square", x)
	// A tape records on its own goroutine: stopping or closing it elsewhere fails.
	done := make(chan error)
	go func() { done <- tape.Close() }()
	if err := <-done; !errors.Is(err, graft.ErrPrecondition) || !strings.Contains(err.Error(), "another thread") {
		t.Fatalf("Close on another goroutine: %v", err)
	}
	must(0, tape.Stop())
	if err := tape.Stop(); !errors.Is(err, graft.ErrPrecondition) || !strings.Contains(err.Error(), "not recording") {
		t.Fatalf("Stop twice: %v", err)
	}
	grads := must(tape.Gradient([]*graft.Value{hidden, seen}, []*graft.Value{x}))
	assertFloats(t, floatsOf(t, grads[0]), []float32{4}) // only seen's 2x
	// A stopped tape may be used and closed from any goroutine.
	go func() {
		g, err := tape.Gradient([]*graft.Value{seen}, []*graft.Value{x})
		if err == nil && g[0] == nil {
			err = errors.New("no gradient")
		}
		if err == nil {
			err = tape.Close()
		}
		done <- err
	}()
	must(0, <-done)
}

// GradientRows: a variable read only by ResourceGather gets its gradient as rows.
func TestTapeGradientRows(t *testing.T) {
	ctx := must(graft.NewContext())
	emb := must(ctx.NewVariable(must(ctx.FromFloat64s([]float64{1, 2, 3, 4, 5, 6}, []int64{3, 2}, graft.Float32)), "emb"))
	ids := must(ctx.FromInt64s([]int64{2, 0, 2}, []int64{3}, graft.Int32))
	tape := must(ctx.NewGradientTape(graft.WithPersistent()))
	defer tape.Close()
	rows := must(ctx.Op("ResourceGather").AddInput(emb).AddInput(ids).SetAttr("dtype", graft.Float32).Execute())[0]
	sq := runOp(t, ctx, "Square", rows)
	axes := must(ctx.FromInt64s([]int64{0, 1}, []int64{2}, graft.Int32))
	y := runOp(t, ctx, "Sum", sq, axes)
	must(0, tape.Stop())
	dense, sparse, err := tape.GradientRows([]*graft.Value{y}, []*graft.Value{emb}, graft.TapeGradientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dense[0] != nil || sparse[0] == nil {
		t.Fatalf("want rows, got dense %v rows %v", dense[0], sparse[0])
	}
	assertFloats(t, floatsOf(t, sparse[0].Values), []float32{10, 12, 2, 4, 10, 12})
	if got := must(must(sparse[0].Indices.Tensor()).Int32s()); len(got) != 3 || got[0] != 2 || got[1] != 0 || got[2] != 2 {
		t.Fatalf("indices %v", got)
	}
	if got := must(must(sparse[0].DenseShape.Tensor()).Int32s()); len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Fatalf("dense shape %v", got)
	}
	// The dense call gives the rows summed into the variable's shape.
	grads := must(tape.Gradient([]*graft.Value{y}, []*graft.Value{emb}))
	assertFloats(t, floatsOf(t, grads[0]), []float32{2, 4, 0, 0, 20, 24})
}
