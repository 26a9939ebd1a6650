// lifetime_test.go: objects freed by Close in any order or by the collector, use after Close,
// and no growth of memory or of live closures over many iterations.

package graft_test

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"graft.dev/graft"
	raw "graft.dev/graft/internal/graft_swig"
)

func TestCloseInAnyOrder(t *testing.T) {
	g := must(graft.NewGraph())
	a := must(g.Const("a", newMatrix(t, 1, 2, 1, 2)))
	b := must(g.Const("b", newMatrix(t, 2, 1, 3, 4)))
	mm := must(g.AddOp("MatMul", "mm").AddInput(a).AddInput(b).Finish())
	sess := must(graft.NewSession(g))

	// The graph goes first: the session and the ops keep it alive.
	g.Close()
	g.Close() // twice is fine
	out := must(sess.Run(nil, []graft.Output{mm.Output(0)}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{11})
	if mm.Graph().NumOps() != 3 {
		t.Fatal("the graph lost its ops")
	}
	sess.Close()
	if mm.Name() != "mm" {
		t.Fatal("op unusable after its session closed")
	}
	mm.Close()
	a.Op.Close()

	// A context goes before its values, a value before its tensor.
	ctx := must(graft.NewContext())
	v := vector(t, ctx, 7, 8)
	ctx.Close()
	tensor := must(v.Tensor())
	v.Close()
	assertFloats(t, must(tensor.Float32s()), []float32{7, 8})
	tensor.Close()
	if err := tensor.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestUseAfterClose(t *testing.T) {
	tensor := newMatrix(t, 1, 1, 5)
	tensor.Close()
	if _, err := tensor.Float32s(); !errors.Is(err, graft.ErrPrecondition) || !strings.Contains(err.Error(), "closed Tensor") {
		t.Fatalf("read after Close: %v", err)
	}
	if tensor.String() != "Tensor<closed>" {
		t.Fatalf("String after Close: %s", tensor)
	}
	// Accessors without an error result panic with the same error.
	func() {
		defer func() {
			r := recover()
			if err, ok := r.(error); !ok || !errors.Is(err, graft.ErrPrecondition) {
				t.Fatalf("DType after Close recovered %v", r)
			}
		}()
		tensor.DType()
	}()

	g := must(graft.NewGraph())
	g.Close()
	if _, err := g.AddOp("NoOp", "n").Finish(); !errors.Is(err, graft.ErrPrecondition) {
		t.Fatalf("adding to a closed graph: %v", err)
	}
	ctx := must(graft.NewContext())
	ctx.Close()
	if _, err := ctx.FromFloat64s([]float64{1}, []int64{1}, graft.Float32); !errors.Is(err, graft.ErrPrecondition) {
		t.Fatalf("closed context: %v", err)
	}
}

// waitFor runs the collector until cond holds (finalizers run on their own goroutine).
func waitFor(cond func() bool) bool {
	for i := 0; i < 100; i++ {
		runtime.GC()
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// settledDirectors collects what earlier tests left unreachable and counts the live directors.
func settledDirectors() int {
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	return raw.LiveDirectors()
}

func TestCollectorFreesClosures(t *testing.T) {
	base := settledDirectors()
	func() {
		ctx := must(graft.NewContext())
		for i := 0; i < 50; i++ {
			var traces int32
			f := must(graft.NewFunction("collected", double(&traces)))
			cf := must(f.ConcreteFunction(ctx, vector(t, ctx, float64(i))))
			_ = cf.Name()
		}
		if raw.LiveDirectors() < base+50 {
			t.Fatalf("%d live directors, want at least %d", raw.LiveDirectors(), base+50)
		}
	}()
	if !waitFor(func() bool { return raw.LiveDirectors() <= base }) {
		t.Fatalf("%d directors alive after collection, %d before", raw.LiveDirectors(), base)
	}

	// Host functions are freed when unregistered; cond/while closures after the call.
	hf := must(graft.RegisterHostFunction(uniqueToken("count"), squarePlusOne))
	if raw.LiveDirectors() != base+1 {
		t.Fatalf("registered: %d directors, want %d", raw.LiveDirectors(), base+1)
	}
	if _, err := graft.RegisterHostFunction(hf.Token(), squarePlusOne); err == nil {
		t.Fatal("duplicate token accepted")
	}
	if raw.LiveDirectors() != base+1 {
		t.Fatalf("a refused registration left its closure: %d directors", raw.LiveDirectors())
	}
	hf.Close()
	if raw.LiveDirectors() != base {
		t.Fatalf("unregistered: %d directors, want %d", raw.LiveDirectors(), base)
	}
	ctx := must(graft.NewContext())
	x := vector(t, ctx, 1)
	same := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		return []*graft.Value{args[0].Value}, nil
	}
	must(ctx.Cond(must(ctx.FromBools([]bool{true}, nil)), []*graft.Value{x}, same, same))
	if raw.LiveDirectors() != base {
		t.Fatalf("after Cond: %d directors, want %d", raw.LiveDirectors(), base)
	}
}

// rssBytes is the process's resident memory.
func rssBytes(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	pages, err := strconv.ParseInt(strings.Fields(string(data))[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// churn builds, runs and drops a graph, a traced function and a host-function call, with
// 256 KiB of tensor data; every other round closes explicitly, the others leave it to the
// collector.
func churn(t *testing.T, round int, token string) {
	explicit := round%2 == 0
	data := make([]float32, 256*256)
	var want float32
	for i := range data {
		data[i] = float32(i % 7)
		want += data[i]
	}
	big := must(graft.NewTensorWithShape(data, []int64{256, 256}))
	g := must(graft.NewGraph())
	c := must(g.Const("c", big))
	sum := must(g.AddOp("Sum", "s").AddInput(c).AddInput(must(g.Const("axes", must(graft.NewTensorWithShape([]int32{0, 1}, []int64{2}))))).Finish())
	sess := must(graft.NewSession(g))
	out := must(sess.Run(nil, []graft.Output{sum.Output(0)}, nil))
	if got := must(out[0].Float32s())[0]; got != want {
		t.Fatalf("sum %v, want %v", got, want)
	}

	ctx := must(graft.NewContext())
	var traces int32
	f := must(graft.NewFunction("churn", double(&traces)))
	v := must(ctx.FromTensor(big))
	y := must(f.Call(ctx, v))
	h := must(ctx.CallHostFunction(token, y, graft.Float32))
	if n := must(h[0].Tensor()).NumElements(); n != 256*256 {
		t.Fatalf("%d elements", n)
	}
	if explicit {
		for _, x := range []interface{ Close() error }{h[0], y[0], v, f, ctx, out[0], sess, sum, c.Op, g, big} {
			x.Close()
		}
	}
}

// settle runs the collector until finalizers are done and gives cached memory back.
func settle() {
	for i := 0; i < 10; i++ { // finalizers free more objects, whose finalizers run next
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	debug.FreeOSMemory()
	graft.ReleaseCachedMemory() // reused tensor buffers are not leaks
}

func TestNoLeaksOverManyRounds(t *testing.T) {
	hf := must(graft.RegisterHostFunction(uniqueToken("churn"), squarePlusOne))
	defer hf.Close()
	rounds := 2000
	if n, err := strconv.Atoi(os.Getenv("GRAFT_GO_LEAK_ROUNDS")); err == nil {
		rounds = n
	}
	for i := 0; i < 300; i++ { // warm up: allocator pools, per-thread caches
		churn(t, i, hf.Token())
	}
	settle()
	rssBefore, heapBefore, base := rssBytes(t), raw.MallocInUse(), raw.LiveDirectors()
	for i := 0; i < rounds; i++ {
		churn(t, i, hf.Token())
		if i%100 == 99 {
			runtime.GC()
		}
	}
	settle()
	rssAfter, heapAfter := rssBytes(t), raw.MallocInUse()
	t.Logf("%d rounds: C heap in use %d -> %d KiB, resident memory %d -> %d MiB",
		rounds, heapBefore>>10, heapAfter>>10, rssBefore>>20, rssAfter>>20)
	// Each round allocates over 1 MiB of C++ memory (tensors, graphs, sessions, functions,
	// handles); what stays is per-thread caches (well under 512 KiB). Leaking as little as an
	// empty graph (~800 bytes) a round would exceed the bound.
	if growth := heapAfter - heapBefore; growth > 1<<20 {
		t.Errorf("C heap in use grew by %d KiB over %d rounds", growth>>10, rounds)
	}
	if growth := rssAfter - rssBefore; growth > 64<<20 {
		t.Errorf("resident memory grew by %d MiB over %d rounds", growth>>20, rounds)
	}
	if raw.LiveDirectors() != base {
		t.Errorf("%d directors alive, %d before", raw.LiveDirectors(), base)
	}
}

// The results of calls (function calls, eager ops, session runs) have no finalizer each: they
// live in blocks of their context's or session's arena, with one finalizer a block. Dropped
// without Close they are freed all the same, once their block is unreachable: C memory stays
// within the arenas' current blocks (a block's worth of results each), and a result kept
// stays usable however many of its block's neighbours went.
func TestDroppedResultsAreFreed(t *testing.T) {
	const n = 64 * 1024 // float32s: 256 KiB a result
	const calls = 640   // 40 blocks of each arena
	ctx := must(graft.NewContext())
	var traces int32
	f := must(graft.NewFunction("dropped", double(&traces)))
	data := make([]float32, n)
	for i := range data {
		data[i] = 1
	}
	x := must(ctx.FromTensor(must(graft.NewTensorWithShape(data, []int64{n}))))
	g := must(graft.NewGraph())
	c := must(g.Const("c", must(graft.NewTensorWithShape(data, []int64{n}))))
	neg := must(g.AddOp("Neg", "neg").AddInput(c).Finish())
	sess := must(graft.NewSession(g))
	must(f.Call(ctx, x))
	settle()
	before := raw.MallocInUse()

	var kept []*graft.Value
	var keptRuns []*graft.Tensor
	for i := 0; i < calls; i++ {
		y := must(f.Call(ctx, x))                                     // x + x: 2
		z := must(ctx.Op("Mul").AddInput(x).AddInput(y[0]).Execute()) // x * y: 2
		r := must(sess.Run(nil, []graft.Output{neg.Output(0)}, nil))  // -c: -1
		if i%97 == 50 {
			kept = append(kept, y[0], z[0])
			keptRuns = append(keptRuns, r[0])
		}
		if i%64 == 63 {
			runtime.GC()
		}
	}
	settle()
	during := raw.MallocInUse()
	// Without freeing: 3 * 640 results of 256 KiB (480 MiB). What may stay: the current block of
	// the context's arena and the session's, and the blocks of the kept results (16 results each).
	bound := int64(2+len(kept)+len(keptRuns)) * 16 * (n * 4)
	t.Logf("%d calls of each kind, results dropped: C heap in use %d -> %d KiB (bound %d KiB)",
		calls, before>>10, during>>10, bound>>10)
	if growth := during - before; growth > bound {
		t.Errorf("C heap in use grew by %d KiB with the results dropped", growth>>10)
	}
	for _, v := range kept {
		got := floatsOf(t, v)
		if len(got) != n || got[0] != 2 || got[n-1] != 2 {
			t.Fatalf("a kept result reads %v ... %v", got[0], got[n-1])
		}
	}
	for _, r := range keptRuns {
		if got := must(r.Float32s()); got[0] != -1 || got[n-1] != -1 {
			t.Fatalf("a kept run result reads %v", got[0])
		}
	}
	// With the owners and the kept results gone, so is everything.
	kept, keptRuns = nil, nil
	for _, o := range []interface{ Close() error }{x, f, ctx, sess, neg, c.Op, g} {
		o.Close()
	}
	settle()
	after := raw.MallocInUse()
	t.Logf("all closed: C heap in use %d KiB", after>>10)
	if growth := after - before; growth > 1<<20 {
		t.Errorf("C heap in use grew by %d KiB after everything was dropped", growth>>10)
	}
}
