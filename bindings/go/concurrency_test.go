// concurrency_test.go: one function, session, context and host function used by many
// goroutines at once, and objects closed while other goroutines use them (run with -race).

package graft_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"graft.dev/graft"
)

const workers = 8

// parallel runs body(worker, iteration) on workers goroutines and fails on the first error.
func parallel(t *testing.T, iterations int, body func(w, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < iterations; i++ {
				if err := body(w, i); err != nil {
					errs <- fmt.Errorf("worker %d, iteration %d: %w", w, i, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func sameFloats(got []float32, want []float32) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("got %v, want %v", got, want)
		}
	}
	return nil
}

func TestConcurrentFunctionCalls(t *testing.T) {
	var traces int32
	f := must(graft.NewFunction("shared", double(&traces)))
	ctx := must(graft.NewContext())
	parallel(t, 40, func(w, i int) error {
		n := 2 + (w+i)%2 // two shapes between all goroutines
		data := make([]float64, n)
		want := make([]float32, n)
		for k := range data {
			data[k] = float64(w*1000 + i*10 + k)
			want[k] = float32(2 * data[k])
		}
		x, err := ctx.FromFloat64s(data, []int64{int64(n)}, graft.Float32)
		if err != nil {
			return err
		}
		out, err := f.Call(ctx, x)
		if err != nil {
			return err
		}
		t, err := out[0].Tensor()
		if err != nil {
			return err
		}
		got, err := t.Float32s()
		if err != nil {
			return err
		}
		return sameFloats(got, want)
	})
	if f.TracingCount() != 2 {
		t.Fatalf("two shapes traced %d times", f.TracingCount())
	}
}

func TestConcurrentSessionRuns(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(1, 2)))
	w := must(g.Const("w", newMatrix(t, 2, 2, 1, 2, 3, 4)))
	mm := must(g.AddOp("MatMul", "mm").AddInput(x).AddInput(w).Finish())
	sess := must(graft.NewSession(g, graft.WithMemoryTracking()))
	parallel(t, 50, func(wk, i int) error {
		a, b := float32(wk), float32(i)
		in, err := graft.NewTensorWithShape([]float32{a, b}, []int64{1, 2})
		if err != nil {
			return err
		}
		out, stats, err := sess.RunWithStats(map[graft.Output]*graft.Tensor{x: in}, []graft.Output{mm.Output(0)}, nil)
		if err != nil {
			return err
		}
		if stats.OpsRun < 1 {
			return fmt.Errorf("stats %+v", stats)
		}
		got, err := out[0].Float32s()
		if err != nil {
			return err
		}
		return sameFloats(got, []float32{a + 3*b, 2*a + 4*b})
	})
}

func TestConcurrentHostFunctionCalls(t *testing.T) {
	var calls int64
	hf := must(graft.RegisterHostFunction(uniqueToken("parallel"), func(in []*graft.Tensor) ([]*graft.Tensor, error) {
		atomic.AddInt64(&calls, 1)
		return squarePlusOne(in)
	}))
	defer hf.Close()
	ctx := must(graft.NewContext())
	parallel(t, 25, func(w, i int) error {
		v, err := ctx.FromFloat64s([]float64{float64(w), float64(i)}, []int64{2}, graft.Float32)
		if err != nil {
			return err
		}
		out, err := ctx.CallHostFunction(hf.Token(), []*graft.Value{v}, graft.Float32)
		if err != nil {
			return err
		}
		tensor, err := out[0].Tensor()
		if err != nil {
			return err
		}
		got, err := tensor.Float32s()
		if err != nil {
			return err
		}
		return sameFloats(got, []float32{float32(w*w + 1), float32(i*i + 1)})
	})
	if calls != workers*25 {
		t.Fatalf("closure ran %d times, want %d", calls, workers*25)
	}
}

func TestCloseWhileInUse(t *testing.T) {
	for round := 0; round < 20; round++ {
		tensor := newMatrix(t, 2, 2, 1, 2, 3, 4)
		ctx := must(graft.NewContext())
		var traces int32
		f := must(graft.NewFunction("closing", double(&traces)))
		var closedSeen int32
		parallel(t, 30, func(w, i int) error {
			if w == 0 && i == 10 {
				tensor.Close()
				f.Close()
				ctx.Close()
			}
			// Either the call sees a closed object or it completes normally (a Close during
			// the call waits for its end to free the object).
			v, err := ctx.FromTensor(tensor)
			if err == nil {
				var out []*graft.Value
				if out, err = f.Call(ctx, v, w%3); err == nil {
					got, err := must(out[0].Tensor()).Float32s()
					if err != nil {
						return err
					}
					return sameFloats(got, []float32{2, 4, 6, 8})
				}
			}
			if errors.Is(err, graft.ErrPrecondition) {
				atomic.AddInt32(&closedSeen, 1)
				return nil
			}
			return err
		})
		if closedSeen == 0 {
			t.Fatal("no use saw the closed objects")
		}
	}
}
