// function_test.go: Go closures traced into functions: retracing by signature, cache hits,
// host arguments, input signatures, concrete functions, cond and while_loop, failures.

package graft_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"graft.dev/graft"
)

func vector(t testing.TB, ctx *graft.Context, data ...float64) *graft.Value {
	t.Helper()
	return must(ctx.FromFloat64s(data, []int64{int64(len(data))}, graft.Float32))
}

func floatsOf(t testing.TB, v *graft.Value) []float32 {
	t.Helper()
	return must(must(v.Tensor()).Float32s())
}

// double traces x + x, counting its traces.
func double(traces *int32) graft.TraceFunc {
	return func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		atomic.AddInt32(traces, 1)
		if !ctx.IsTracing() || !args[0].Value.IsSymbolic() {
			return nil, errors.New("double: not called in a trace")
		}
		x := args[0].Value
		// A symbolic argument is a Placeholder of the traced graph.
		if in, err := x.Output(); err != nil || in.Op.Type() != "Placeholder" {
			return nil, fmt.Errorf("double: argument is %v (%v)", in, err)
		}
		return ctx.Op("AddV2").AddInput(x).AddInput(x).Execute()
	}
}

func TestFunctionTracesOncePerShape(t *testing.T) {
	var traces int32
	f := must(graft.NewFunction("double", double(&traces)))
	defer f.Close()
	ctx := must(graft.NewContext())
	defer ctx.Close()

	out := must(f.Call(ctx, vector(t, ctx, 1.5, 2)))
	assertFloats(t, floatsOf(t, out[0]), []float32{3, 4})
	if f.TracingCount() != 1 || traces != 1 {
		t.Fatalf("after shape (2,): %d traces (closure ran %d times)", f.TracingCount(), traces)
	}

	out = must(f.Call(ctx, vector(t, ctx, 1, 2, 3)))
	assertFloats(t, floatsOf(t, out[0]), []float32{2, 4, 6})
	if f.TracingCount() != 2 || traces != 2 {
		t.Fatalf("after shape (3,): %d traces", f.TracingCount())
	}

	// Same signature as the first call: the traced graph runs, the closure does not.
	out = must(f.Call(ctx, vector(t, ctx, -1, 10)))
	assertFloats(t, floatsOf(t, out[0]), []float32{-2, 20})
	if f.TracingCount() != 2 || traces != 2 {
		t.Fatalf("cache hit traced again: %d traces", f.TracingCount())
	}
	if out[0].IsSymbolic() || ctx.IsTracing() {
		t.Fatal("an eager call returned a symbolic value")
	}
}

func TestHostArgumentsAreTraceConstants(t *testing.T) {
	scale := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		if args[1].Kind != graft.ArgInt || args[2].Kind != graft.ArgString {
			return nil, errors.New("unexpected argument kinds")
		}
		k, err := ctx.FromFloat64s([]float64{float64(args[1].Int)}, []int64{}, graft.Float32)
		if err != nil {
			return nil, err
		}
		return ctx.Execute("Mul", []*graft.Value{args[0].Value, k}, map[string]any{"T": graft.Float32})
	}
	f := must(graft.NewFunction("scale", scale))
	ctx := must(graft.NewContext())
	x := vector(t, ctx, 1, 2)

	assertFloats(t, floatsOf(t, must(f.Call(ctx, x, 3, "a"))[0]), []float32{3, 6})
	assertFloats(t, floatsOf(t, must(f.Call(ctx, x, 3, "a"))[0]), []float32{3, 6})
	if f.TracingCount() != 1 {
		t.Fatalf("same host arguments traced %d times", f.TracingCount())
	}
	assertFloats(t, floatsOf(t, must(f.Call(ctx, x, 4, "a"))[0]), []float32{4, 8})
	assertFloats(t, floatsOf(t, must(f.Call(ctx, x, graft.Arg{Kind: graft.ArgInt, Int: 3}, "b"))[0]), []float32{3, 6})
	if f.TracingCount() != 3 {
		t.Fatalf("new host arguments: %d traces, want 3", f.TracingCount())
	}
	if _, err := f.Call(ctx, x, struct{}{}, "a"); !errors.Is(err, graft.ErrInvalid) {
		t.Fatalf("unsupported argument type: %v", err)
	}
}

func TestInputSignatureAndConcreteFunctions(t *testing.T) {
	var traces int32
	spec := graft.TensorSpec{DType: graft.Float32, Shape: graft.MakeShape(-1), Name: "x"}
	f := must(graft.NewFunction("double_sig", double(&traces), graft.WithInputSignature(spec)))
	ctx := must(graft.NewContext())

	assertFloats(t, floatsOf(t, must(f.Call(ctx, vector(t, ctx, 1, 2)))[0]), []float32{2, 4})
	assertFloats(t, floatsOf(t, must(f.Call(ctx, vector(t, ctx, 1, 2, 3, 4)))[0]), []float32{2, 4, 6, 8})
	if f.TracingCount() != 1 {
		t.Fatalf("an input signature traced %d times", f.TracingCount())
	}
	ints := must(ctx.FromInt64s([]int64{1, 2}, []int64{2}, graft.Int32))
	if _, err := f.Call(ctx, ints); err == nil {
		t.Fatal("an int32 argument matched a float32 signature")
	}

	cf := must(f.ConcreteFunctionForSpecs(ctx, spec))
	if cf.Name() == "" || cf.NumOutputs() != 1 || len(cf.Inputs()) != 1 || len(cf.Outputs()) != 1 {
		t.Fatalf("concrete function %q: %d outputs, %d inputs", cf.Name(), cf.NumOutputs(), len(cf.Inputs()))
	}
	if g := cf.Graph(); g.NumOps() < 2 {
		t.Fatalf("traced graph has %d ops", g.NumOps())
	}
	if def := must(cf.FunctionDef()); len(def) == 0 {
		t.Fatal("empty FunctionDef")
	}
	// The concrete function keeps the function (and its closure) alive after Close.
	f.Close()
	if _, err := f.Call(ctx, vector(t, ctx, 1)); !errors.Is(err, graft.ErrPrecondition) {
		t.Fatalf("call after Close: %v", err)
	}
	assertFloats(t, floatsOf(t, must(cf.Call(ctx, vector(t, ctx, 5, 6, 7)))[0]), []float32{10, 12, 14})
	cf.Close()

	// A concrete function can be added to a graph's library.
	g := must(graft.NewGraph())
	f2 := must(graft.NewFunction("double2", double(&traces)))
	cf2 := must(f2.ConcreteFunction(ctx, vector(t, ctx, 1)))
	if err := cf2.AddToGraph(g); err != nil {
		t.Fatal(err)
	}
	if names := g.FunctionNames(); len(names) == 0 || names[0] != cf2.Name() {
		t.Fatalf("library %v, want %s", names, cf2.Name())
	}
}

func TestTracedFunctionFailures(t *testing.T) {
	ctx := must(graft.NewContext())
	x := vector(t, ctx, 1)

	fail := must(graft.NewFunction("fail", func(*graft.Context, []graft.Arg) ([]*graft.Value, error) {
		return nil, errors.New("closure refused")
	}))
	_, err := fail.Call(ctx, x)
	var ge *graft.Error
	if !errors.As(err, &ge) || !strings.Contains(ge.Message, "closure refused") {
		t.Fatalf("closure error: %v", err)
	}

	boom := must(graft.NewFunction("boom", func(*graft.Context, []graft.Arg) ([]*graft.Value, error) {
		panic("kaboom")
	}))
	if _, err := boom.Call(ctx, x); err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("panicking closure: %v", err)
	}

	// An op failing inside the trace fails the call with the op's error.
	badOp := must(graft.NewFunction("bad_op", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return ctx.Op("NoSuchOp").AddInput(args[0].Value).Execute()
	}))
	if _, err := badOp.Call(ctx, x); err == nil || !strings.Contains(err.Error(), "NoSuchOp") {
		t.Fatalf("unknown op in a trace: %v", err)
	}
	// The function still works after failures (nothing was cached).
	if _, err := fail.Call(ctx, x); err == nil {
		t.Fatal("a failed trace was cached")
	}
}

func TestCondAndWhileLoop(t *testing.T) {
	ctx := must(graft.NewContext())
	x := vector(t, ctx, 3)
	negate := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return ctx.Op("Neg").AddInput(args[0].Value).Execute()
	}
	same := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return []*graft.Value{args[0].Value}, nil
	}
	yes := must(ctx.FromBools([]bool{true}, []int64{}))
	no := must(ctx.FromBools([]bool{false}, []int64{}))
	assertFloats(t, floatsOf(t, must(ctx.Cond(yes, []*graft.Value{x}, negate, same))[0]), []float32{-3})
	assertFloats(t, floatsOf(t, must(ctx.Cond(no, []*graft.Value{x}, negate, same))[0]), []float32{3})

	// while i < 10: i = i * 2, from 1, eagerly and inside a traced function.
	limit := must(ctx.FromFloat64s([]float64{10}, []int64{}, graft.Float32))
	two := must(ctx.FromFloat64s([]float64{2}, []int64{}, graft.Float32))
	cond := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return ctx.Op("Less").AddInput(args[0].Value).AddInput(limit).Execute()
	}
	body := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return ctx.Op("Mul").AddInput(args[0].Value).AddInput(two).Execute()
	}
	one := must(ctx.FromFloat64s([]float64{1}, []int64{}, graft.Float32))
	assertFloats(t, floatsOf(t, must(ctx.WhileLoop(cond, body, []*graft.Value{one}))[0]), []float32{16})

	loop := must(graft.NewFunction("loop", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return ctx.WhileLoop(cond, body, []*graft.Value{args[0].Value})
	}))
	assertFloats(t, floatsOf(t, must(loop.Call(ctx, one))[0]), []float32{16})
	three := must(ctx.FromFloat64s([]float64{3}, []int64{}, graft.Float32))
	assertFloats(t, floatsOf(t, must(loop.Call(ctx, three))[0]), []float32{12})
	if loop.TracingCount() != 1 {
		t.Fatalf("loop traced %d times", loop.TracingCount())
	}
}

// Call's fast path (every argument a *Value) for each number of arguments and of results: up
// to four arguments in the cgo call's own parameters, more in a slice; a single result is the
// call's result, none or several are taken by a second call.
func TestFunctionCallArgumentAndResultCounts(t *testing.T) {
	ctx := must(graft.NewContext())
	doubles := must(graft.NewFunction("doubles", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		var out []*graft.Value
		for _, a := range args {
			y, err := ctx.Op("AddV2").AddInput(a.Value).AddInput(a.Value).Execute()
			if err != nil {
				return nil, err
			}
			out = append(out, y[0])
		}
		return out, nil
	}))
	sum := must(graft.NewFunction("sum", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		in := make([]*graft.Value, len(args))
		for i, a := range args {
			in[i] = a.Value
		}
		return ctx.Op("AddN").AddInputList(in...).Execute()
	}))
	for n := 0; n <= 10; n++ {
		args := make([]any, n)
		var total float32
		for i := range args {
			args[i] = vector(t, ctx, float64(i+1))
			total += float32(i + 1)
		}
		out := must(doubles.Call(ctx, args...))
		if len(out) != n {
			t.Fatalf("%d arguments: %d results", n, len(out))
		}
		for i, v := range out {
			assertFloats(t, floatsOf(t, v), []float32{float32(2 * (i + 1))})
		}
		if n > 0 {
			s := must(sum.Call(ctx, args...))
			if len(s) != 1 {
				t.Fatalf("sum of %d: %d results", n, len(s))
			}
			assertFloats(t, floatsOf(t, s[0]), []float32{total})
		}
	}
	// A closed argument fails the call and releases the others (they close normally after).
	a, b := vector(t, ctx, 1), vector(t, ctx, 2)
	b.Close()
	if _, err := sum.Call(ctx, a, b); !errors.Is(err, graft.ErrPrecondition) {
		t.Fatalf("a closed argument: %v", err)
	}
	a.Close()
	if _, err := sum.Call(ctx, a); !errors.Is(err, graft.ErrPrecondition) {
		t.Fatalf("a closed argument: %v", err)
	}
}
