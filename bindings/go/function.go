// function.go: traced functions (tf.function) over Go closures, their concrete functions,
// and cond / while_loop. A closure reaches C++ through a SWIG director (TraceBody): SWIG keeps
// the Go side in a table keyed by an integer id, so no Go pointer is held by C.

package graft

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	raw "graft.dev/graft/internal/graft_swig"
)

// ArgKind says which field of an Arg is set.
type ArgKind int

// The kinds of function arguments.
const (
	ArgValue  ArgKind = 0 // a tensor value (symbolic while tracing)
	ArgInt    ArgKind = 1 // a host int, a trace-time constant
	ArgFloat  ArgKind = 2
	ArgString ArgKind = 3
	ArgBool   ArgKind = 4
)

// Arg is an argument of a traced function: a value, or a host int, float, string or bool
// (which is part of the trace's signature: another host value traces again).
type Arg struct {
	Kind   ArgKind
	Value  *Value
	Int    int64
	Float  float64
	String string
	Bool   bool
}

// TraceFunc builds a function's ops on ctx from args and returns its outputs. ctx is valid
// during the call only, and the closure must build its ops on the calling goroutine.
type TraceFunc func(ctx *Context, args []Arg) ([]*Value, error)

// TensorSpec is a tensor argument's dtype and partial shape (an input signature entry).
type TensorSpec struct {
	DType DType
	Shape Shape
	Name  string
}

func specsToRaw(p *pins, specs []TensorSpec) raw.TensorSpecVector {
	v := raw.NewTensorSpecVector__SWIG_0()
	p.temp(v)
	for _, s := range specs {
		rs := s.Shape.toRaw()
		spec := raw.NewTensorSpec__SWIG_1(int(s.DType), rs, s.Name)
		v.Add(spec)
		raw.DeleteTensorSpec(spec)
		raw.DeleteShape(rs)
	}
	return v
}

// traceAdapter is the Go side of a TraceBody director.
type traceAdapter struct {
	fn TraceFunc
}

// Trace is called by C++ (on the goroutine that called into it) to trace the closure; it
// returns "" or the message the call fails with. A panic in the closure becomes that message.
func (a *traceAdapter) Trace(ctx raw.Context, args raw.ArgList, outputs raw.ValueList) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("graft: traced function panicked: %v", r)
		}
	}()
	c := newContext(raw.NewContext__SWIG_1(ctx))
	defer c.Close()
	in := make([]Arg, args.Size())
	for i := range in {
		ra := args.Get(i) // a copy, ours to delete
		in[i] = Arg{Kind: ArgKind(ra.GetKind()), Int: ra.GetI(), Float: ra.GetF(), String: ra.GetS(), Bool: ra.GetB()}
		if in[i].Kind == ArgValue {
			in[i].Value = newValue(ra.Value())
		}
		raw.DeleteArg(ra)
	}
	out, err := a.fn(c, in)
	if err != nil {
		return errorMessage(err, "graft: traced function failed")
	}
	for _, v := range out {
		if v == nil {
			return "graft: traced function returned a nil *Value"
		}
		rv, err := v.h.acquire()
		if err != nil {
			return err.Error()
		}
		err = call(func() { outputs.Append(rv) })
		v.h.release()
		if err != nil {
			return errorMessage(err, "")
		}
	}
	return ""
}

// errorMessage is the text a director returns for err: a *Error's own message (C++ adds the
// code again), else err.Error(); never empty.
func errorMessage(err error, fallback string) string {
	var ge *Error
	msg := err.Error()
	if errors.As(err, &ge) && ge.Message != "" {
		msg = ge.Message
	}
	if msg == "" {
		msg = fallback
	}
	if msg == "" {
		msg = "graft: callback failed"
	}
	rememberCallbackError(msg, err)
	return msg
}

// traceBody is a director shared by a Function and its ConcreteFunctions: deleted when the
// last of them is closed, since C++ may call it as long as one of them lives.
type traceBody struct {
	mu   sync.Mutex
	refs int
	d    raw.TraceBody
}

func newTraceBody(fn TraceFunc) *traceBody {
	return &traceBody{refs: 1, d: raw.NewDirectorTraceBody(&traceAdapter{fn: fn})}
}

func (b *traceBody) retain() {
	b.mu.Lock()
	b.refs++
	b.mu.Unlock()
}

func (b *traceBody) unref() {
	b.mu.Lock()
	b.refs--
	last := b.refs == 0
	b.mu.Unlock()
	if last {
		raw.DeleteDirectorTraceBody(b.d)
	}
}

// Function is a traced function (tf.function) over a Go closure. Calls trace the closure
// once per new signature (tensor dtypes and shapes, host argument values) and run the traced
// graph afterwards. It may be called from many goroutines at once.
type Function struct {
	h    handle[raw.Function]
	body *traceBody
}

type functionOptions struct {
	signature       []TensorSpec
	hasSignature    bool
	reduceRetracing bool
}

// FunctionOption configures NewFunction.
type FunctionOption func(*functionOptions)

// WithInputSignature fixes the function's tensor arguments: one concrete function for all calls.
func WithInputSignature(specs ...TensorSpec) FunctionOption {
	return func(o *functionOptions) {
		o.signature = specs
		o.hasSignature = true
	}
}

// WithReduceRetracing relaxes shapes after a second shape for the same arguments.
func WithReduceRetracing() FunctionOption {
	return func(o *functionOptions) { o.reduceRetracing = true }
}

// NewFunction returns a function named name that traces fn.
func NewFunction(name string, fn TraceFunc, opts ...FunctionOption) (*Function, error) {
	if fn == nil {
		return nil, newError(CodeInvalid, "graft: NewFunction needs a closure")
	}
	var o functionOptions
	for _, opt := range opts {
		opt(&o)
	}
	var p pins
	defer p.done()
	specs := specsToRaw(&p, o.signature)
	body := newTraceBody(fn)
	r, err := get(func() raw.Function {
		return raw.NewFunction(name, body.d, specs, o.hasSignature, o.reduceRetracing)
	})
	if err != nil {
		body.unref()
		return nil, err
	}
	f := &Function{body: body}
	f.h.init("Function", r)
	f.h.after = body.unref // C++ may call the closure until the function is freed
	setFinalizer(f)
	return f, nil
}

// Close frees the function (its closure goes once its concrete functions are closed too).
func (f *Function) Close() error {
	f.h.close()
	return nil
}

// TracingCount is the number of times the closure was traced.
func (f *Function) TracingCount() int64 {
	r := f.h.mustAcquire()
	defer f.h.release()
	return r.Tracing_count()
}

// argList converts call arguments: *Value, *Tensor (made a value of ctx), Arg, or host
// ints, floats, strings and bools.
func argList(p *pins, ctx *Context, args []any) (raw.ArgList, error) {
	l := raw.NewArgList()
	p.temp(l)
	for i, a := range args {
		switch v := a.(type) {
		case *Value:
			r, err := use(p, &v.h)
			if err != nil {
				return nil, err
			}
			l.Add_value(r)
		case *Tensor:
			val, err := ctx.FromTensor(v)
			if err != nil {
				return nil, err
			}
			p.undo = append(p.undo, func() { val.Close() })
			r, err := use(p, &val.h)
			if err != nil {
				return nil, err
			}
			l.Add_value(r)
		case Arg:
			switch v.Kind {
			case ArgValue:
				if v.Value == nil {
					return nil, newError(CodeInvalid, fmt.Sprintf("graft: argument %d has no value", i))
				}
				r, err := use(p, &v.Value.h)
				if err != nil {
					return nil, err
				}
				l.Add_value(r)
			case ArgInt:
				l.Add_int(v.Int)
			case ArgFloat:
				l.Add_float(v.Float)
			case ArgString:
				l.Add_string(v.String)
			case ArgBool:
				l.Add_bool(v.Bool)
			default:
				return nil, newError(CodeInvalid, fmt.Sprintf("graft: argument %d has kind %d", i, v.Kind))
			}
		case int:
			l.Add_int(int64(v))
		case int32:
			l.Add_int(int64(v))
		case int64:
			l.Add_int(v)
		case float32:
			l.Add_float(float64(v))
		case float64:
			l.Add_float(v)
		case string:
			l.Add_string(v)
		case bool:
			l.Add_bool(v)
		default:
			return nil, newError(CodeInvalid, fmt.Sprintf("graft: argument %d: a %T cannot be passed to a function", i, a))
		}
	}
	return l, nil
}

// Call calls the function on ctx (tracing it first for a new signature). Arguments may be
// *Value, *Tensor, Arg, or Go ints, floats, strings and bools (trace-time constants).
func (f *Function) Call(ctx *Context, args ...any) ([]*Value, error) {
	if values, ok, err := f.callValues(ctx, args); ok {
		return values, err
	}
	var p pins
	defer p.done()
	rf, err := use(&p, &f.h)
	if err != nil {
		return nil, err
	}
	rc, err := use(&p, &ctx.h)
	if err != nil {
		return nil, err
	}
	l, err := argList(&p, ctx, args)
	if err != nil {
		return nil, err
	}
	out, err := get(func() raw.ValueVector { return rf.Call(rc, l) })
	if err != nil {
		return nil, err
	}
	return ctx.valuesFromRaw(out), nil
}

// callValues is Call's fast path when every argument is a *Value: one cgo call given the
// addresses of the function, the context and up to four arguments (go_function_call in
// graft_go_extra.i: no Go memory crosses, so cgo checks no pointers), which returns the address
// of a single result; more arguments go in a slice, other numbers of results are taken by a
// second call. The results live in ctx's arena. ok is false when some argument is anything
// else (Call then takes its general path).
func (f *Function) callValues(ctx *Context, args []any) (values []*Value, ok bool, err error) {
	for _, a := range args {
		if v, isValue := a.(*Value); !isValue || v == nil {
			return nil, false, nil
		}
	}
	rf, err := f.h.acquire()
	if err != nil {
		return nil, true, err
	}
	defer f.h.release()
	rc, err := ctx.h.acquire()
	if err != nil {
		return nil, true, err
	}
	defer ctx.h.release()
	var small [4]int64
	addrs := small[:]
	if len(args) > len(small) {
		addrs = make([]int64, len(args))
	}
	for i, a := range args {
		r, err := a.(*Value).h.acquire()
		if err != nil {
			releaseArgs(args[:i])
			return nil, true, err
		}
		addrs[i] = int64(r.Swigcptr())
	}
	fAddr, ctxAddr := int64(rf.Swigcptr()), int64(rc.Swigcptr())
	// On one OS thread: a failure's record, and results left to take, are the thread's.
	runtime.LockOSThread()
	var res int64
	if len(args) <= len(small) {
		res = raw.Go_function_call(fAddr, ctxAddr, int64(len(args)), small[0], small[1], small[2], small[3])
	} else {
		res = raw.Go_function_call_n(fAddr, ctxAddr, addrs)
	}
	var many []int64
	switch {
	case res == 0: // failed: the one case that reads the error slot
		if err = takeError(); err == nil {
			err = newError(CodeUnknown, "graft: a function call failed without an error")
		}
	case res&1 == 1 && res > 1: // not one result: take them
		many = make([]int64, res>>1)
		raw.Go_function_take_results(many)
		err = takeError()
	}
	runtime.UnlockOSThread()
	releaseArgs(args)
	if err != nil {
		return nil, true, err
	}
	if res&1 == 0 {
		values = make([]*Value, 1)
		ctx.values.take(values)
		values[0].h.init("Value", raw.SwigcptrValue(uintptr(res)))
		return values, true, nil
	}
	values = make([]*Value, len(many))
	ctx.values.take(values)
	for i, v := range values {
		v.h.init("Value", raw.SwigcptrValue(uintptr(many[i])))
	}
	return values, true, nil
}

// releaseArgs releases the handles of args, *Values that callValues acquired.
func releaseArgs(args []any) {
	for _, a := range args {
		a.(*Value).h.release()
	}
}

// ConcreteFunction returns the concrete function for these arguments, tracing if needed.
func (f *Function) ConcreteFunction(ctx *Context, args ...any) (*ConcreteFunction, error) {
	var p pins
	defer p.done()
	rf, err := use(&p, &f.h)
	if err != nil {
		return nil, err
	}
	rc, err := use(&p, &ctx.h)
	if err != nil {
		return nil, err
	}
	l, err := argList(&p, ctx, args)
	if err != nil {
		return nil, err
	}
	cf, err := get(func() raw.ConcreteFunction { return rf.Get_concrete(rc, l) })
	if err != nil {
		return nil, err
	}
	return f.newConcrete(cf), nil
}

// ConcreteFunctionForSpecs returns the concrete function for tensor arguments of these specs.
func (f *Function) ConcreteFunctionForSpecs(ctx *Context, specs ...TensorSpec) (*ConcreteFunction, error) {
	var p pins
	defer p.done()
	rf, err := use(&p, &f.h)
	if err != nil {
		return nil, err
	}
	rc, err := use(&p, &ctx.h)
	if err != nil {
		return nil, err
	}
	rs := specsToRaw(&p, specs)
	cf, err := get(func() raw.ConcreteFunction { return rf.Get_concrete_for_specs(rc, rs) })
	if err != nil {
		return nil, err
	}
	return f.newConcrete(cf), nil
}

func (f *Function) newConcrete(r raw.ConcreteFunction) *ConcreteFunction {
	f.body.retain()
	cf := &ConcreteFunction{}
	cf.h.init("ConcreteFunction", r)
	cf.h.after = f.body.unref
	setFinalizer(cf)
	return cf
}

// ConcreteFunction is one traced graph of a Function; it keeps the function alive.
type ConcreteFunction struct {
	h handle[raw.ConcreteFunction]
}

// Close releases the concrete function.
func (cf *ConcreteFunction) Close() error {
	cf.h.close()
	return nil
}

// Name is the concrete function's unique name (as in a function library).
func (cf *ConcreteFunction) Name() string {
	r := cf.h.mustAcquire()
	defer cf.h.release()
	return r.Name()
}

// NumOutputs is the number of outputs.
func (cf *ConcreteFunction) NumOutputs() int {
	r := cf.h.mustAcquire()
	defer cf.h.release()
	return r.Num_outputs()
}

// Graph returns the traced graph (read it; do not add ops).
func (cf *ConcreteFunction) Graph() *Graph {
	r := cf.h.mustAcquire()
	defer cf.h.release()
	return newGraph(r.Graph())
}

// Inputs returns the argument placeholders of the traced graph.
func (cf *ConcreteFunction) Inputs() []Output {
	r := cf.h.mustAcquire()
	defer cf.h.release()
	return outputsFromRaw(r.Inputs())
}

// Outputs returns the output tensors of the traced graph.
func (cf *ConcreteFunction) Outputs() []Output {
	r := cf.h.mustAcquire()
	defer cf.h.release()
	return outputsFromRaw(r.Outputs())
}

// Call runs the traced graph with one value per input.
func (cf *ConcreteFunction) Call(ctx *Context, inputs ...*Value) ([]*Value, error) {
	var p pins
	defer p.done()
	rf, err := use(&p, &cf.h)
	if err != nil {
		return nil, err
	}
	rc, err := use(&p, &ctx.h)
	if err != nil {
		return nil, err
	}
	in, err := newValueVector(&p, inputs)
	if err != nil {
		return nil, err
	}
	out, err := get(func() raw.ValueVector { return rf.Call(rc, in) })
	if err != nil {
		return nil, err
	}
	return ctx.valuesFromRaw(out), nil
}

// FunctionDef returns the serialized FunctionDef.
func (cf *ConcreteFunction) FunctionDef() ([]byte, error) {
	r, err := cf.h.acquire()
	if err != nil {
		return nil, err
	}
	defer cf.h.release()
	s, err := get(r.Function_def)
	return []byte(s), err
}

// AddToGraph adds the function (and those it calls) to g's function library.
func (cf *ConcreteFunction) AddToGraph(g *Graph) error {
	var p pins
	defer p.done()
	rf, err := use(&p, &cf.h)
	if err != nil {
		return err
	}
	rg, err := use(&p, &g.h)
	if err != nil {
		return err
	}
	return call(func() { rf.Add_to_graph(rg) })
}

func outputsFromRaw(v raw.OutputVector) []Output {
	defer raw.DeleteOutputVector(v)
	out := make([]Output, v.Size())
	for i := range out {
		o := v.Get(i)
		out[i] = Output{Op: newOperation(o.Op()), Index: o.Index()}
	}
	return out
}

// Cond runs then (pred true, or non-zero) or els with inputs as their arguments; while
// tracing, both are traced and recorded as an If op. Both return the same number and dtypes.
func (c *Context) Cond(pred *Value, inputs []*Value, then, els TraceFunc) ([]*Value, error) {
	if then == nil || els == nil {
		return nil, newError(CodeInvalid, "graft: Cond needs two branches")
	}
	var p pins
	defer p.done()
	rc, err := use(&p, &c.h)
	if err != nil {
		return nil, err
	}
	rp, err := use(&p, &pred.h)
	if err != nil {
		return nil, err
	}
	in, err := newValueVector(&p, inputs)
	if err != nil {
		return nil, err
	}
	t, e := newTraceBody(then), newTraceBody(els)
	defer t.unref()
	defer e.unref()
	out, err := get(func() raw.ValueVector { return rc.Cond(rp, in, t.d, e.d) })
	if err != nil {
		return nil, err
	}
	return c.valuesFromRaw(out), nil
}

// WhileLoop runs body while cond (returning one scalar) holds, from loopVars; body returns one
// value per loop variable. While tracing both are recorded as a While op. It returns the final
// loop variables.
func (c *Context) WhileLoop(cond, body TraceFunc, loopVars []*Value) ([]*Value, error) {
	if cond == nil || body == nil {
		return nil, newError(CodeInvalid, "graft: WhileLoop needs a condition and a body")
	}
	var p pins
	defer p.done()
	rc, err := use(&p, &c.h)
	if err != nil {
		return nil, err
	}
	in, err := newValueVector(&p, loopVars)
	if err != nil {
		return nil, err
	}
	cb, bb := newTraceBody(cond), newTraceBody(body)
	defer cb.unref()
	defer bb.unref()
	out, err := get(func() raw.ValueVector { return rc.While_loop(cb.d, bb.d, in) })
	if err != nil {
		return nil, err
	}
	return c.valuesFromRaw(out), nil
}
