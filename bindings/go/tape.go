// tape.go: gradient tapes (TensorFlow's tf.GradientTape) over graft/tape.h: eager automatic
// differentiation of the ops a goroutine runs on a context.

package graft

import (
	"runtime"
	"sync"

	raw "graft.dev/graft/internal/graft_swig"
)

// GradientTape records the eager ops that the goroutine which made it runs on its context,
// from Context.NewGradientTape until Stop (or Close), and computes gradients of their results
// (Gradient). Ops of other goroutines are not recorded, as TensorFlow's tapes are per thread.
//
// A C tape records on one OS thread: while it records, the goroutine that started it is locked
// to its thread (runtime.LockOSThread) and the tape cannot be collected; Stop, or Close, on
// that goroutine ends both. Stop or Close on another goroutine fails (CodePrecondition) and
// leaves the tape recording. A stopped tape may be used (Gradient, WatchedVariables, Close)
// from any goroutine, one at a time.
//
// Tapes nest: a tape recording around another's Gradient call records the gradient ops, so its
// own Gradient of that result is a second derivative.
type GradientTape struct {
	h handle[raw.GradientTape]
}

// The tapes that record now: kept reachable, so that no finalizer frees a tape its thread
// still records into.
var recordingTapes sync.Map // *GradientTape -> struct{}

type tapeOptions struct {
	persistent             bool
	watchAccessedVariables bool
}

// TapeOption configures Context.NewGradientTape.
type TapeOption func(*tapeOptions)

// WithPersistent makes a tape whose Gradient may be called more than once (by default a
// second call fails with CodePrecondition and the recorded tensors go after the first).
func WithPersistent() TapeOption {
	return func(o *tapeOptions) { o.persistent = true }
}

// WithWatchAccessedVariables sets whether trainable variables read while the tape records are
// watched without a Watch call (true by default; see Context.SetVariableTrainable).
func WithWatchAccessedVariables(watch bool) TapeOption {
	return func(o *tapeOptions) { o.watchAccessedVariables = watch }
}

// NewGradientTape returns a tape of the context that records from now on (TensorFlow's
// `with tf.GradientTape() as tape`). The calling goroutine stays locked to its OS thread until
// the tape is stopped: call Stop or Close on this goroutine, typically with defer.
func (c *Context) NewGradientTape(opts ...TapeOption) (*GradientTape, error) {
	o := tapeOptions{watchAccessedVariables: true}
	for _, opt := range opts {
		opt(&o)
	}
	rc, err := c.h.acquire()
	if err != nil {
		return nil, err
	}
	defer c.h.release()
	runtime.LockOSThread()
	r, err := get(func() raw.GradientTape { return raw.NewGradientTape(rc, o.persistent, o.watchAccessedVariables) })
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	t := &GradientTape{}
	t.h.init("GradientTape", r)
	setFinalizer(t)
	recordingTapes.Store(t, struct{}{})
	return t, nil
}

// Close stops the tape if it records (on its own goroutine only: elsewhere Close returns the
// C API's error and leaves the tape as it is) and frees it. Gradients already computed stay valid.
func (t *GradientTape) Close() error {
	if t.h.isClosed() {
		return nil
	}
	if t.IsRecording() {
		if err := t.Stop(); err != nil {
			return err
		}
	}
	t.h.close()
	return nil
}

// IsRecording reports whether the tape records (between NewGradientTape or Start and Stop).
func (t *GradientTape) IsRecording() bool {
	if t.h.isClosed() {
		return false
	}
	r := t.h.mustAcquire()
	defer t.h.release()
	return r.Is_recording()
}

// Stop pauses recording (TensorFlow's stop_recording) and unlocks the goroutine from its
// thread. It fails with CodePrecondition when the tape does not record, or records on another
// goroutine.
func (t *GradientTape) Stop() error {
	r, err := t.h.acquire()
	if err != nil {
		return err
	}
	defer t.h.release()
	if err := call(func() { r.Stop() }); err != nil {
		return err
	}
	// The C tape only stops on the thread it records on, which is locked to this goroutine.
	recordingTapes.Delete(t)
	runtime.UnlockOSThread()
	return nil
}

// Start resumes recording, on the calling goroutine (locked to its thread until Stop). It
// fails with CodePrecondition when the tape records already.
func (t *GradientTape) Start() error {
	r, err := t.h.acquire()
	if err != nil {
		return err
	}
	defer t.h.release()
	runtime.LockOSThread()
	if err := call(func() { r.Start() }); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	recordingTapes.Store(t, struct{}{})
	return nil
}

// StopRecording runs f with recording paused (TensorFlow's `with tape.stop_recording()`): the
// ops f runs are not recorded. Recording resumes when f returns (or panics); the error is f's,
// else the failure to pause or resume.
func (t *GradientTape) StopRecording(f func() error) (err error) {
	if err := t.Stop(); err != nil {
		return err
	}
	defer func() {
		if serr := t.Start(); serr != nil && err == nil {
			err = serr
		}
	}()
	return f()
}

// Watch makes the tape track values: concrete tensors or variable handles (Context.NewVariable).
// Integer, bool and string values are ignored (no gradient flows through them).
func (t *GradientTape) Watch(values ...*Value) error {
	var p pins
	defer p.done()
	r, err := use(&p, &t.h)
	if err != nil {
		return err
	}
	for _, v := range values {
		if v == nil {
			return newError(CodeInvalid, "graft: a nil *Value")
		}
		rv, err := use(&p, &v.h)
		if err != nil {
			return err
		}
		if err := call(func() { r.Watch(rv) }); err != nil {
			return err
		}
	}
	return nil
}

// WatchedVariables returns the handles of the variables watched so far (by Watch, or read
// while the tape recorded), in the order first watched.
func (t *GradientTape) WatchedVariables() ([]*Value, error) {
	r, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	out, err := get(r.Watched_variables)
	if err != nil {
		return nil, err
	}
	return valuesFromRaw(out), nil
}

// TapeGradientOptions are GradientTape.GradientWithOptions' settings; the zero value is
// Gradient's.
type TapeGradientOptions struct {
	// OutputGradients are the upstream gradients, one per target of its dtype (nil for ones).
	OutputGradients []*Value
	// UnconnectedZero gives a source that no target depends on zeros of its shape instead of nil.
	UnconnectedZero bool
}

// Gradient returns the gradient of the sum of targets with respect to each source (a tensor,
// or a variable's handle for the gradient of its value): one Value per source, nil where no
// gradient flows. A tape that is not persistent computes gradients once: a second call fails
// with CodePrecondition. An op on the path without a gradient function fails with
// CodeNotFound.
func (t *GradientTape) Gradient(targets, sources []*Value) ([]*Value, error) {
	return t.GradientWithOptions(targets, sources, TapeGradientOptions{})
}

// GradientWithOptions is Gradient with upstream gradients and the unconnected setting.
func (t *GradientTape) GradientWithOptions(targets, sources []*Value, opts TapeGradientOptions) ([]*Value, error) {
	var p pins
	defer p.done()
	r, err := use(&p, &t.h)
	if err != nil {
		return nil, err
	}
	vectors := make([]raw.ValueVector, 3)
	for i, list := range [][]*Value{targets, sources, opts.OutputGradients} {
		if vectors[i], err = newValueVector(&p, list); err != nil {
			return nil, err
		}
	}
	out, err := get(func() raw.ValueVector {
		return r.Gradient(vectors[0], vectors[1], vectors[2], opts.UnconnectedZero)
	})
	if err != nil {
		return nil, err
	}
	defer raw.DeleteValueVector(out)
	return tapeValues(out), nil
}

// ValueRows is a gradient given as rows (TensorFlow's tf.IndexedSlices) by GradientRows:
// Values holds one row per index of Indices (1-D int32 or int64), of a tensor of shape
// DenseShape; a row named twice gets both.
type ValueRows struct {
	Values, Indices, DenseShape *Value
}

// GradientRows is GradientWithOptions keeping the gradient of a source that only gathers read
// (ResourceGather of a variable, GatherV2 on axis 0: an embedding table) as rows: for each
// source, rows[i] is set and dense[i] is nil, or dense[i] is the gradient and rows[i] nil
// (both nil where no gradient flows). Close the values when done, as any Value.
func (t *GradientTape) GradientRows(targets, sources []*Value, opts TapeGradientOptions) (dense []*Value, rows []*ValueRows, err error) {
	var p pins
	defer p.done()
	r, err := use(&p, &t.h)
	if err != nil {
		return nil, nil, err
	}
	vectors := make([]raw.ValueVector, 3)
	for i, list := range [][]*Value{targets, sources, opts.OutputGradients} {
		if vectors[i], err = newValueVector(&p, list); err != nil {
			return nil, nil, err
		}
	}
	out, err := get(func() raw.ValueVectorVector {
		return r.Gradient_sparse(vectors[0], vectors[1], vectors[2], opts.UnconnectedZero)
	})
	if err != nil {
		return nil, nil, err
	}
	defer raw.DeleteValueVectorVector(out)
	values, indices, shapes := tapeValues(out.Get(0)), tapeValues(out.Get(1)), tapeValues(out.Get(2))
	rows = make([]*ValueRows, len(values))
	for i := range values {
		if indices[i] != nil {
			rows[i] = &ValueRows{Values: values[i], Indices: indices[i], DenseShape: shapes[i]}
			values[i] = nil
		}
	}
	return values, rows, nil
}

// tapeValues wraps a tape's results (not freeing the vector): nil for an invalid entry.
func tapeValues(out raw.ValueVector) []*Value {
	grads := make([]*Value, out.Size())
	for i := range grads {
		if g := out.Get(i); g.Valid() {
			grads[i] = newValue(raw.NewValue__SWIG_1(g))
		}
	}
	return grads
}
