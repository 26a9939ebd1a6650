// handle.go: ownership of the C++ objects behind the Go types. Each Go object owns one SWIG
// object (a heap copy of a C++ RAII handle) through a handle: Close frees it, a finalizer does
// when Close was not called, and a use in progress on another goroutine delays the free until
// it ends. The C++ layer's shared_ptrs keep parents alive, so objects may go in any order.
//
// The results of calls (function calls, eager ops, session runs) are made too often for a
// finalizer each (runtime.SetFinalizer costs as much as the rest of a cached function call):
// they live in blocks of an arena of their context or session, one finalizer per block.

package graft

import (
	"runtime"
	"sync"
	"sync/atomic"

	raw "graft.dev/graft/internal/graft_swig"
)

// handle owns a SWIG object of type T. Its state is one atomic word (uses, closed, freed), so
// that the acquire and release around each use cost no lock.
type handle[T any] struct {
	state atomic.Int64 // useUnit * uses in progress | closedBit | freedBit
	raw   T
	kind  string // the Go type's name, for errors
	after func() // run once the object is freed (may be nil)
}

const (
	closedBit = 1 // Close was called: no new use; the object is freed once no use is left
	freedBit  = 2 // the object was freed (by exactly one of close and the last release)
	useUnit   = 4
)

func (h *handle[T]) init(kind string, r T) {
	h.kind = kind
	h.raw = r
}

// acquire returns the SWIG object for one use; release must follow.
func (h *handle[T]) acquire() (T, error) {
	if h.state.Add(useUnit)&closedBit != 0 {
		h.release()
		var zero T
		return zero, errClosed(h.kind)
	}
	return h.raw, nil
}

// mustAcquire is acquire for accessors without an error result: a closed object panics
// (using an object after Close is a programming error).
func (h *handle[T]) mustAcquire() T {
	r, err := h.acquire()
	if err != nil {
		panic(err)
	}
	return r
}

func (h *handle[T]) release() {
	// The last use of a closed object frees it, unless close did (one CAS wins).
	if h.state.Add(-useUnit) == closedBit && h.state.CompareAndSwap(closedBit, closedBit|freedBit) {
		h.free()
	}
}

func (h *handle[T]) free() {
	deleteRaw(h.raw)
	if h.after != nil {
		h.after()
	}
}

// close marks the handle closed and frees the object unless a use is in progress.
func (h *handle[T]) close() {
	for {
		s := h.state.Load()
		if s&closedBit != 0 {
			return
		}
		if h.state.CompareAndSwap(s, s|closedBit) {
			break
		}
	}
	if h.state.CompareAndSwap(closedBit, closedBit|freedBit) {
		h.free()
	}
}

func (h *handle[T]) isClosed() bool { return h.state.Load()&closedBit != 0 }

// pins collects what one call needs released afterwards: acquired handles and temporary
// SWIG objects, undone in reverse order by done.
type pins struct {
	undo []func()
}

func (p *pins) done() {
	for i := len(p.undo) - 1; i >= 0; i-- {
		p.undo[i]()
	}
	p.undo = nil
}

// temp frees the SWIG object r when the call is done.
func (p *pins) temp(r any) {
	p.undo = append(p.undo, func() { deleteRaw(r) })
}

// use acquires h for the call.
func use[T any](p *pins, h *handle[T]) (T, error) {
	r, err := h.acquire()
	if err != nil {
		return r, err
	}
	p.undo = append(p.undo, h.release)
	return r, nil
}

// setFinalizer makes the collector close obj when it is unreachable.
func setFinalizer[O interface{ Close() error }](obj O) {
	runtime.SetFinalizer(obj, func(o O) { o.Close() })
}

// blockSize is the number of results that share one block, and its finalizer.
const blockSize = 16

// closer is *O for the types an arena holds (Value, Tensor).
type closer[O any] interface {
	*O
	Close() error
}

// block holds up to blockSize results of one arena. A result is an element of the array, so
// that it keeps the whole block reachable through its own address; the block's finalizer runs
// once none of them is reachable (nor the arena's current block), and closes those that were
// not closed. Until then an unclosed result stays allocated in C++ as long as another result
// of its block is reachable: at most blockSize-1 more than a finalizer each would keep.
type block[O any, P closer[O]] struct {
	objs [blockSize]O
	used int // objs handed out (written under the arena's lock; read by the finalizer alone)
}

func (b *block[O, P]) finalize() {
	for i := 0; i < b.used; i++ {
		P(&b.objs[i]).Close()
	}
}

// arena hands out result objects from blocks (the zero arena is ready to use).
type arena[O any, P closer[O]] struct {
	mu  sync.Mutex
	cur *block[O, P]
}

// take fills out with zero objects for the caller to initialize at once (a zero object's
// Close does nothing). More than blockSize at a time get a finalizer each.
func (a *arena[O, P]) take(out []P) {
	if len(out) > blockSize {
		for i := range out {
			out[i] = P(new(O))
			setFinalizer(out[i])
		}
		return
	}
	a.mu.Lock()
	b := a.cur
	if b == nil || b.used+len(out) > blockSize {
		b = new(block[O, P])
		runtime.SetFinalizer(b, (*block[O, P]).finalize)
		a.cur = b
	}
	for i := range out {
		out[i] = P(&b.objs[b.used+i])
	}
	b.used += len(out)
	a.mu.Unlock()
}

// drop lets the current block go once its objects are unreachable (the owner was closed).
func (a *arena[O, P]) drop() {
	a.mu.Lock()
	a.cur = nil
	a.mu.Unlock()
}

// deleteRaw frees a SWIG object the package owns (anything else is ignored).
func deleteRaw(r any) {
	// The concrete types of the hot paths first: each interface case below costs a lookup.
	switch v := r.(type) {
	case raw.SwigcptrValue:
		raw.Go_value_delete(int64(v)) // DeleteValue would box v in an interface again
		return
	case raw.SwigcptrTensor:
		raw.DeleteTensor(v)
		return
	}
	switch v := r.(type) {
	case nil:
	case raw.Tensor:
		raw.DeleteTensor(v)
	case raw.Shape:
		raw.DeleteShape(v)
	case raw.Output:
		raw.DeleteOutput(v)
	case raw.Operation:
		raw.DeleteOperation(v)
	case raw.Graph:
		raw.DeleteGraph(v)
	case raw.Session:
		raw.DeleteSession(v)
	case raw.Value:
		raw.DeleteValue(v)
	case raw.Context:
		raw.DeleteContext(v)
	case raw.GradientTape:
		raw.DeleteGradientTape(v)
	case raw.ArgList:
		raw.DeleteArgList(v)
	case raw.TensorSpec:
		raw.DeleteTensorSpec(v)
	case raw.OpCall:
		raw.DeleteOpCall(v)
	case raw.OpBuilder:
		raw.DeleteOpBuilder(v)
	case raw.Function:
		raw.DeleteFunction(v)
	case raw.ConcreteFunction:
		raw.DeleteConcreteFunction(v)
	case raw.TensorList:
		raw.DeleteTensorList(v)
	case raw.ImportResult:
		raw.DeleteImportResult(v)
	case raw.SavedModel:
		raw.DeleteSavedModel(v)
	case raw.Signature:
		raw.DeleteSignature(v)
	case raw.TensorVector:
		raw.DeleteTensorVector(v)
	case raw.OutputVector:
		raw.DeleteOutputVector(v)
	case raw.OperationVector:
		raw.DeleteOperationVector(v)
	case raw.ShapeVector:
		raw.DeleteShapeVector(v)
	case raw.ValueVector:
		raw.DeleteValueVector(v)
	case raw.TensorSpecVector:
		raw.DeleteTensorSpecVector(v)
	case raw.StringVector:
		raw.DeleteStringVector(v)
	case raw.BoolVector:
		raw.DeleteBoolVector(v)
	case raw.SignatureVector:
		raw.DeleteSignatureVector(v)
	case raw.StringVectorVector:
		raw.DeleteStringVectorVector(v)
	case raw.OutputVectorVector:
		raw.DeleteOutputVectorVector(v)
	case raw.Library:
		raw.DeleteLibrary(v)
	}
}
