// arena_internal_test.go: the arenas that hold call results (handle.go), from inside the
// package: results of successive calls are neighbours in one block (no allocation and no
// finalizer of their own), and every object an arena handed out is closed once unreachable.

package graft

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

func TestCallResultsShareBlocks(t *testing.T) {
	ctx, _ := NewContext()
	defer ctx.Close()
	f, err := NewFunction("twice", func(c *Context, args []Arg) ([]*Value, error) {
		return c.Op("AddV2").AddInput(args[0].Value).AddInput(args[0].Value).Execute()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, _ := ctx.FromFloat64s([]float64{1}, nil, Float32)
	var results []*Value
	for i := 0; i < 3*blockSize; i++ {
		out, err := f.Call(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, out[0])
	}
	// Neighbours in an array, but where a block ends: at most 4 breaks in 3 blocks' worth.
	breaks := 0
	for i := 1; i < len(results); i++ {
		if uintptr(unsafe.Pointer(results[i]))-uintptr(unsafe.Pointer(results[i-1])) != unsafe.Sizeof(Value{}) {
			breaks++
		}
	}
	if breaks > 4 {
		t.Fatalf("%d results in %d runs of neighbours", len(results), breaks+1)
	}
	ctx.values.mu.Lock()
	used := ctx.values.cur.used
	ctx.values.mu.Unlock()
	if used < 1 || used > blockSize {
		t.Fatalf("the current block has %d results", used)
	}
}

var arenaClosed int32

// counted is an arena object that counts its closes (the zero counted is not live).
type counted struct{ live bool }

func (c *counted) Close() error {
	if c.live {
		c.live = false
		atomic.AddInt32(&arenaClosed, 1)
	}
	return nil
}

func TestArenaClosesWhatIsUnreachable(t *testing.T) {
	atomic.StoreInt32(&arenaClosed, 0)
	var a arena[counted, *counted]
	total := 0
	keep := make([]*counted, 0)
	for _, n := range []int{1, 5, blockSize - 1, 2, blockSize, 7, blockSize + 8, 3} { // above blockSize: an object each
		out := make([]*counted, n)
		a.take(out)
		for _, o := range out {
			o.live = true
		}
		total += n
		keep = append(keep, out...)
	}
	keep[3].Close() // closed early: not closed again
	keep = nil
	a.drop()
	for i := 0; i < 100 && atomic.LoadInt32(&arenaClosed) < int32(total); i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if got := atomic.LoadInt32(&arenaClosed); got != int32(total) {
		t.Fatalf("%d of %d objects closed", got, total)
	}
}
