// hostfunc_test.go: host-function ops running Go closures: results, a closure's error,
// tracing a host function into a function, registration errors and unregistering.

package graft_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"graft.dev/graft"
)

var tokenSeq int64

// uniqueToken returns a token no other test uses (tokens are process-wide).
func uniqueToken(name string) string {
	return fmt.Sprintf("go-test-%s-%d", name, atomic.AddInt64(&tokenSeq, 1))
}

// squarePlusOne is a host function returning x*x+1 for a float32 tensor.
func squarePlusOne(in []*graft.Tensor) ([]*graft.Tensor, error) {
	xs, err := in[0].Float32s()
	if err != nil {
		return nil, err
	}
	for i, x := range xs {
		xs[i] = x*x + 1
	}
	t, err := graft.NewTensorWithShape(xs, in[0].Shape())
	if err != nil {
		return nil, err
	}
	return []*graft.Tensor{t}, nil
}

func TestHostFunctionEager(t *testing.T) {
	var calls int32
	hf := must(graft.RegisterHostFunction(uniqueToken("square"), func(in []*graft.Tensor) ([]*graft.Tensor, error) {
		atomic.AddInt32(&calls, 1)
		return squarePlusOne(in)
	}))
	defer hf.Close()
	ctx := must(graft.NewContext())
	out := must(ctx.CallHostFunction(hf.Token(), []*graft.Value{vector(t, ctx, 1, 2, 3)}, graft.Float32))
	if len(out) != 1 {
		t.Fatalf("%d outputs", len(out))
	}
	assertFloats(t, floatsOf(t, out[0]), []float32{2, 5, 10})
	if calls != 1 {
		t.Fatalf("closure ran %d times", calls)
	}
}

func TestHostFunctionErrorIsReturned(t *testing.T) {
	hf := must(graft.RegisterHostFunction(uniqueToken("fail"), func(in []*graft.Tensor) ([]*graft.Tensor, error) {
		return nil, fmt.Errorf("host closure rejected %d inputs", len(in))
	}))
	defer hf.Close()
	ctx := must(graft.NewContext())
	_, err := ctx.CallHostFunction(hf.Token(), []*graft.Value{vector(t, ctx, 1)}, graft.Float32)
	var ge *graft.Error
	if !errors.As(err, &ge) {
		t.Fatalf("want a *graft.Error, got %v", err)
	}
	if !strings.Contains(ge.Message, "host closure rejected 1 inputs") {
		t.Fatalf("message %q lacks the closure's error", ge.Message)
	}
	if ge.Code == graft.CodeOK || ge.CodeName != ge.Code.String() || !strings.HasPrefix(ge.CodeName, "GRAFT_E") {
		t.Fatalf("code %d / %q", ge.Code, ge.CodeName)
	}
	t.Logf("host function error: %v", err)

	// A panicking closure fails the op the same way, without crashing the process.
	hp := must(graft.RegisterHostFunction(uniqueToken("panic"), func([]*graft.Tensor) ([]*graft.Tensor, error) {
		var m map[string]int
		m["x"] = 1 // panics: assignment to a nil map
		return nil, nil
	}))
	defer hp.Close()
	_, err = ctx.CallHostFunction(hp.Token(), []*graft.Value{vector(t, ctx, 1)}, graft.Float32)
	if err == nil || !strings.Contains(err.Error(), "nil map") {
		t.Fatalf("panicking host function: %v", err)
	}
}

func TestHostFunctionInsideTracedFunction(t *testing.T) {
	var calls int32
	hf := must(graft.RegisterHostFunction(uniqueToken("traced"), func(in []*graft.Tensor) ([]*graft.Tensor, error) {
		atomic.AddInt32(&calls, 1)
		return squarePlusOne(in)
	}))
	defer hf.Close()
	f := must(graft.NewFunction("with_host", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		y, err := ctx.CallHostFunction(hf.Token(), []*graft.Value{args[0].Value}, graft.Float32)
		if err != nil {
			return nil, err
		}
		return ctx.Op("Neg").AddInput(y[0]).Execute()
	}))
	ctx := must(graft.NewContext())
	assertFloats(t, floatsOf(t, must(f.Call(ctx, vector(t, ctx, 2)))[0]), []float32{-5})
	assertFloats(t, floatsOf(t, must(f.Call(ctx, vector(t, ctx, 3)))[0]), []float32{-10})
	if f.TracingCount() != 1 || calls != 2 {
		t.Fatalf("%d traces, closure ran %d times", f.TracingCount(), calls)
	}
}

func TestHostFunctionRegistration(t *testing.T) {
	token := uniqueToken("dup")
	hf := must(graft.RegisterHostFunction(token, squarePlusOne))
	if _, err := graft.RegisterHostFunction(token, squarePlusOne); !errors.Is(err, graft.ErrExists) {
		t.Fatalf("second registration: %v", err)
	}
	if err := hf.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := must(graft.NewContext())
	_, err := ctx.CallHostFunction(token, []*graft.Value{vector(t, ctx, 1)}, graft.Float32)
	if !errors.Is(err, graft.ErrNotFound) || !strings.Contains(err.Error(), token) {
		t.Fatalf("calling an unregistered token: %v", err)
	}
	// The token is free again.
	hf = must(graft.RegisterHostFunction(token, squarePlusOne))
	assertFloats(t, floatsOf(t, must(ctx.CallHostFunction(token, []*graft.Value{vector(t, ctx, 4)}, graft.Float32))[0]), []float32{17})
	hf.Close()
}

// errVocabulary is a callback's own error value, found again by errors.Is through the call's
// *graft.Error.
var errVocabulary = errors.New("no vocabulary loaded")

type shapeProblem struct{ rank int }

func (p *shapeProblem) Error() string { return fmt.Sprintf("rank %d is not supported", p.rank) }

func TestCallbackErrorsKeepTheirIdentity(t *testing.T) {
	ctx := must(graft.NewContext())
	defer ctx.Close()
	// A host function's error: errors.Is finds the sentinel, errors.As the typed error.
	hf := must(graft.RegisterHostFunction(uniqueToken("vocab"), func([]*graft.Tensor) ([]*graft.Tensor, error) {
		return nil, fmt.Errorf("lookup: %w", errVocabulary)
	}))
	defer hf.Close()
	_, err := ctx.CallHostFunction(hf.Token(), []*graft.Value{vector(t, ctx, 1)}, graft.Float32)
	if !errors.Is(err, errVocabulary) {
		t.Fatalf("errors.Is(err, errVocabulary) false for %v", err)
	}
	var ge *graft.Error
	if !errors.As(err, &ge) || !strings.Contains(ge.Message, "no vocabulary loaded") {
		t.Fatalf("want a *graft.Error naming the failure, got %v", err)
	}
	// A traced closure's typed error, and a *graft.Error's status code kept as it was returned.
	f := must(graft.NewFunction(uniqueToken("typed"), func(*graft.Context, []graft.Arg) ([]*graft.Value, error) {
		return nil, &shapeProblem{rank: 5}
	}))
	defer f.Close()
	_, err = f.Call(ctx, vector(t, ctx, 1))
	var sp *shapeProblem
	if !errors.As(err, &sp) || sp.rank != 5 {
		t.Fatalf("errors.As(err, *shapeProblem) failed for %v", err)
	}
	g := must(graft.NewFunction(uniqueToken("notfound"), func(*graft.Context, []graft.Arg) ([]*graft.Value, error) {
		return nil, graft.ErrNotFound
	}))
	defer g.Close()
	_, err = g.Call(ctx, vector(t, ctx, 2))
	if !errors.Is(err, graft.ErrNotFound) {
		t.Fatalf("the closure's ErrNotFound became %v", err)
	}
	// A later failure that no callback caused has no cause.
	_, err = ctx.CallHostFunction("no-such-token", []*graft.Value{vector(t, ctx, 1)}, graft.Float32)
	if err == nil || errors.Unwrap(err) != nil {
		t.Fatalf("an unrelated failure: %v (cause %v)", err, errors.Unwrap(err))
	}
}
