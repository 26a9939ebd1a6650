// handle.go: ownership of the C++ objects behind the Go types. Each Go object owns one SWIG
// object (a heap copy of a C++ RAII handle) through a handle: Close frees it, a finalizer does
// when Close was not called, and a use in progress on another goroutine delays the free until
// it ends. The C++ layer's shared_ptrs keep parents alive, so objects may go in any order.

package graft

import (
	"runtime"
	"sync"

	raw "graft.dev/graft/internal/graft_swig"
)

// handle owns a SWIG object of type T.
type handle[T any] struct {
	mu     sync.Mutex
	raw    T
	uses   int  // acquisitions not yet released
	closed bool // Close was called (the object is freed once uses is 0)
	freed  bool
	kind   string // the Go type's name, for errors
	after  func() // run once the object is freed (may be nil)
}

func (h *handle[T]) init(kind string, r T) {
	h.kind = kind
	h.raw = r
}

// acquire returns the SWIG object for one use; release must follow.
func (h *handle[T]) acquire() (T, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		var zero T
		return zero, errClosed(h.kind)
	}
	h.uses++
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
	h.mu.Lock()
	h.uses--
	free := h.closed && h.uses == 0 && !h.freed
	if free {
		h.freed = true
	}
	h.mu.Unlock()
	if free {
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
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	free := h.uses == 0
	if free {
		h.freed = true
	}
	h.mu.Unlock()
	if free {
		h.free()
	}
}

func (h *handle[T]) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

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

// deleteRaw frees a SWIG object the package owns (anything else is ignored).
func deleteRaw(r any) {
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
