// session.go: running graphs (graft_session).

package graft

import (
	"context"
	"errors"
	"runtime"
	"time"

	raw "graft.dev/graft/internal/graft_swig"
)

// Session runs a graph. Run may be called from many goroutines at once.
type Session struct {
	h       handle[raw.Session]
	results arena[Tensor, *Tensor] // the tensors its runs return
}

type sessionOptions struct {
	numThreads       int
	trackMemory      bool
	disabledRewrites uint
	defaultDevice    string
	strictPlacement  bool
	maxMemory        int64
}

// SessionOption configures NewSession.
type SessionOption func(*sessionOptions)

// WithNumThreads sets the threads running independent ops (0: one per core, 1: the calling thread only).
func WithNumThreads(n int) SessionOption { return func(o *sessionOptions) { o.numThreads = n } }

// WithMemoryTracking makes runs record their peak memory (RunStats.PeakBytes).
func WithMemoryTracking() SessionOption { return func(o *sessionOptions) { o.trackMemory = true } }

// WithDisabledRewrites turns off graph rewrites (Rewrite* bits).
func WithDisabledRewrites(bits uint) SessionOption {
	return func(o *sessionOptions) { o.disabledRewrites |= bits }
}

// WithDefaultDevice places ops that name no device on device ("/device:GPU:0") when it has a
// kernel for them.
func WithDefaultDevice(device string) SessionOption {
	return func(o *sessionOptions) { o.defaultDevice = device }
}

// WithStrictPlacement makes an op that names a device it cannot run on an error instead of
// running on the CPU.
func WithStrictPlacement() SessionOption { return func(o *sessionOptions) { o.strictPlacement = true } }

// WithMaxMemory caps the tensor memory the session's runs hold at once at bytes: an allocation
// past it fails its op with an error naming the op, the bytes and the cap (ErrNoMemory).
func WithMaxMemory(bytes int64) SessionOption { return func(o *sessionOptions) { o.maxMemory = bytes } }

// Graph rewrites a session may be told not to make.
var (
	RewriteConstantFolding      = raw.GRAFT_REWRITE_CONSTANT_FOLDING
	RewriteCommonSubexpressions = raw.GRAFT_REWRITE_COMMON_SUBEXPRESSIONS
	RewriteIdentityRemoval      = raw.GRAFT_REWRITE_IDENTITY_REMOVAL
	RewriteFusion               = raw.GRAFT_REWRITE_FUSION
)

// NewSession returns a session over g.
func NewSession(g *Graph, opts ...SessionOption) (*Session, error) {
	var o sessionOptions
	for _, opt := range opts {
		opt(&o)
	}
	rg, err := g.h.acquire()
	if err != nil {
		return nil, err
	}
	defer g.h.release()
	r, err := get(func() raw.Session {
		return raw.NewSession__SWIG_0(rg, o.numThreads, o.trackMemory, o.disabledRewrites, o.defaultDevice,
			o.strictPlacement, o.maxMemory, "")
	})
	if err != nil {
		return nil, err
	}
	s := &Session{}
	s.h.init("Session", r)
	setFinalizer(s)
	return s, nil
}

// Close frees the session.
func (s *Session) Close() error {
	s.h.close()
	s.results.drop()
	return nil
}

// RunStats describes one run.
type RunStats struct {
	PeakBytes int64 // peak bytes of live tensors (with WithMemoryTracking)
	OpsRun    int64 // ops that ran
}

// Run feeds the tensors of feeds, runs the ops needed for fetches and targets, and returns
// one tensor per fetch.
func (s *Session) Run(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
	out, _, err := s.RunWithStats(feeds, fetches, targets)
	return out, err
}

// RunContext is Run under ctx: the run stops before its next kernel once ctx's deadline
// passes or ctx is cancelled, with an error that errors.Is both ErrDeadline or ErrCancelled
// and ctx.Err() (context.DeadlineExceeded, context.Canceled), as database/sql's QueryContext
// stops; the session stays usable. A ctx that is already done fails at once.
func (s *Session) RunContext(ctx context.Context, feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
	out, _, err := s.run(ctx, feeds, fetches, targets)
	return out, err
}

// RunWithStats is Run, also returning the run's statistics.
func (s *Session) RunWithStats(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, RunStats, error) {
	return s.run(context.Background(), feeds, fetches, targets)
}

// contextError is the Graft error for a context that is done (err: its Err()), with detail.
func contextError(err error, detail string) error {
	e := newError(CodeCancelled, "graft: the run's context was cancelled"+detail)
	if errors.Is(err, context.DeadlineExceeded) {
		e = newError(CodeDeadline, "graft: the run's context passed its deadline"+detail)
	}
	e.cause = err
	return e
}

func (s *Session) run(ctx context.Context, feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, RunStats, error) {
	var stats RunStats
	if err := ctx.Err(); err != nil {
		return nil, stats, contextError(err, "")
	}
	rs, err := s.h.acquire()
	if err != nil {
		return nil, stats, err
	}
	defer s.h.release()
	var p pins
	defer p.done()
	fetchV, feedV := raw.NewOutputVector__SWIG_0(), raw.NewOutputVector__SWIG_0()
	valueV, targetV := raw.NewTensorVector__SWIG_0(), raw.NewOperationVector__SWIG_0()
	p.temp(fetchV)
	p.temp(feedV)
	p.temp(valueV)
	p.temp(targetV)
	for _, o := range fetches {
		r, err := o.toRaw(&p)
		if err != nil {
			return nil, stats, err
		}
		fetchV.Add(r)
	}
	for o, t := range feeds {
		r, err := o.toRaw(&p)
		if err != nil {
			return nil, stats, err
		}
		if t == nil {
			return nil, stats, newError(CodeInvalid, "graft: a nil tensor fed to "+o.String())
		}
		rt, err := use(&p, &t.h)
		if err != nil {
			return nil, stats, err
		}
		feedV.Add(r)
		valueV.Add(rt)
	}
	for _, op := range targets {
		r, err := use(&p, &op.h)
		if err != nil {
			return nil, stats, err
		}
		targetV.Add(r)
	}
	// ctx's deadline becomes the run's timeout; its cancellation, a token a goroutine cancels.
	var timeoutMs int64
	if deadline, ok := ctx.Deadline(); ok {
		timeoutMs = time.Until(deadline).Milliseconds()
		if timeoutMs <= 0 {
			return nil, stats, contextError(context.DeadlineExceeded, "")
		}
	}
	var token raw.Cancellation
	if ctx.Done() != nil {
		token = raw.NewCancellation()
		defer raw.DeleteCancellation(token)
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			select {
			case <-ctx.Done():
				token.Cancel()
			case <-stop:
			}
		}()
		defer func() {
			close(stop)
			<-stopped
		}()
	}
	// The statistics are the calling thread's: read them on the thread that ran.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	result, err := get(func() raw.TensorVector {
		if token != nil {
			return rs.Run(fetchV, feedV, valueV, targetV, timeoutMs, token)
		}
		return rs.Run(fetchV, feedV, valueV, targetV, timeoutMs)
	})
	if err != nil {
		// A run stopped because ctx is done (ctx's timer and the run's own deadline race: a
		// run cancelled because ctx passed its deadline passed its deadline) carries ctx.Err().
		if (errors.Is(err, ErrCancelled) || errors.Is(err, ErrDeadline)) && ctx.Err() != nil {
			err = contextError(ctx.Err(), " ("+err.Error()+")")
		}
		return nil, stats, err
	}
	stats = RunStats{PeakBytes: rs.Last_peak_bytes(), OpsRun: rs.Last_ops_run()}
	return tensorsFromRaw(&s.results, result), stats, nil
}

// tensorsFromRaw wraps a run's results (freeing the vector) in Tensors of the arena a.
func tensorsFromRaw(a *arena[Tensor, *Tensor], v raw.TensorVector) []*Tensor {
	defer raw.DeleteTensorVector(v)
	out := make([]*Tensor, v.Size())
	a.take(out)
	for i, t := range out {
		t.h.init("Tensor", raw.NewTensor__SWIG_1(v.Get(i)))
	}
	return out
}
