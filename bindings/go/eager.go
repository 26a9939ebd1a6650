// eager.go: eager execution: contexts (graft_context), their values and op calls.

package graft

import (
	"fmt"
	"runtime"

	raw "graft.dev/graft/internal/graft_swig"
)

// Context runs ops eagerly, or records them while one of its functions is traced. It may be
// used from many goroutines at once; one op call, and one trace, belong to one goroutine.
type Context struct {
	h      handle[raw.Context]
	values arena[Value, *Value] // the Values its calls return
}

func newContext(r raw.Context) *Context {
	c := &Context{}
	c.h.init("Context", r)
	setFinalizer(c)
	return c
}

// NewContext returns a new eager context.
func NewContext() (*Context, error) {
	r, err := get(raw.NewContext__SWIG_0)
	if err != nil {
		return nil, err
	}
	return newContext(r), nil
}

// Close releases the context (values made on it keep it alive as long as they live).
func (c *Context) Close() error {
	c.h.close()
	c.values.drop()
	return nil
}

// IsTracing reports whether the calling goroutine is inside a trace of this context's
// functions (ops are recorded, not run).
func (c *Context) IsTracing() bool {
	r := c.h.mustAcquire()
	defer c.h.release()
	return r.Is_tracing()
}

// valueCall runs one fallible context method returning a value.
func (c *Context) valueCall(f func(raw.Context) raw.Value) (*Value, error) {
	r, err := c.h.acquire()
	if err != nil {
		return nil, err
	}
	defer c.h.release()
	v, err := get(func() raw.Value { return f(r) })
	if err != nil {
		return nil, err
	}
	return c.newValue(v), nil
}

// FromTensor returns a value holding t (sharing its buffer).
func (c *Context) FromTensor(t *Tensor) (*Value, error) {
	rt, err := t.h.acquire()
	if err != nil {
		return nil, err
	}
	defer t.h.release()
	return c.valueCall(func(r raw.Context) raw.Value { return r.From_tensor(rt) })
}

// FromFloat64s converts numbers to a value of shape dims and dtype (Invalid infers float32).
func (c *Context) FromFloat64s(data []float64, dims []int64, dtype DType) (*Value, error) {
	return c.valueCall(func(r raw.Context) raw.Value { return r.From_doubles(data, dims, int(dtype)) })
}

// FromInt64s converts integers to a value of shape dims and dtype (Invalid infers int32).
func (c *Context) FromInt64s(data []int64, dims []int64, dtype DType) (*Value, error) {
	return c.valueCall(func(r raw.Context) raw.Value { return r.From_ints(data, dims, int(dtype)) })
}

// FromBools converts booleans to a bool value of shape dims.
func (c *Context) FromBools(data []bool, dims []int64) (*Value, error) {
	return c.valueCall(func(r raw.Context) raw.Value { return r.From_bools(data, dims, int(Bool)) })
}

// FromStrings converts strings to a string value of shape dims.
func (c *Context) FromStrings(data []string, dims []int64) (*Value, error) {
	v := newStringVector(data)
	defer raw.DeleteStringVector(v)
	return c.valueCall(func(r raw.Context) raw.Value { return r.From_strings(v, dims) })
}

// NewVariable creates a resource variable holding initial and returns its handle.
func (c *Context) NewVariable(initial *Value, name string) (*Value, error) {
	ri, err := initial.h.acquire()
	if err != nil {
		return nil, err
	}
	defer initial.h.release()
	return c.valueCall(func(r raw.Context) raw.Value { return r.Variable_new(ri, name) })
}

// SetVariableTrainable marks the variable trainable or not (new variables are): a gradient tape
// watching accessed variables watches only trainable ones; a variable that is not gets a
// gradient only when watched explicitly (GradientTape.Watch).
func (c *Context) SetVariableTrainable(variable *Value, trainable bool) error {
	var p pins
	defer p.done()
	r, err := use(&p, &c.h)
	if err != nil {
		return err
	}
	rv, err := use(&p, &variable.h)
	if err != nil {
		return err
	}
	return call(func() { r.Variable_set_trainable(rv, trainable) })
}

// ReadVariable returns the variable's value.
func (c *Context) ReadVariable(variable *Value) (*Value, error) {
	rv, err := variable.h.acquire()
	if err != nil {
		return nil, err
	}
	defer variable.h.release()
	return c.valueCall(func(r raw.Context) raw.Value { return r.Variable_read(rv) })
}

// AssignVariable stores value in the variable.
func (c *Context) AssignVariable(variable, value *Value) error {
	return c.variableUpdate(variable, value, raw.Context.Variable_assign)
}

// AssignAddVariable adds value to the variable.
func (c *Context) AssignAddVariable(variable, value *Value) error {
	return c.variableUpdate(variable, value, raw.Context.Variable_assign_add)
}

// AssignSubVariable subtracts value from the variable.
func (c *Context) AssignSubVariable(variable, value *Value) error {
	return c.variableUpdate(variable, value, raw.Context.Variable_assign_sub)
}

func (c *Context) variableUpdate(variable, value *Value, f func(raw.Context, raw.Value, raw.Value)) error {
	var p pins
	defer p.done()
	r, err := use(&p, &c.h)
	if err != nil {
		return err
	}
	rv, err := use(&p, &variable.h)
	if err != nil {
		return err
	}
	rx, err := use(&p, &value.h)
	if err != nil {
		return err
	}
	return call(func() { f(r, rv, rx) })
}

// Op starts an op call of type opType on the context; set its inputs and attrs and Execute it.
func (c *Context) Op(opType string) *OpCall { return &OpCall{ctx: c, opType: opType} }

// Execute runs (or, while tracing, records) one op with inputs and attrs (see OpCall.SetAttr).
func (c *Context) Execute(opType string, inputs []*Value, attrs map[string]any) ([]*Value, error) {
	op := c.Op(opType)
	for _, v := range inputs {
		op.AddInput(v)
	}
	for name, v := range attrs {
		op.SetAttr(name, v)
	}
	return op.Execute()
}

// Value is a value of a context: concrete (holding a tensor) or symbolic (a tensor of the
// graph being traced).
type Value struct {
	h handle[raw.Value]
}

// newValue wraps r in a Value of its own, with a finalizer (for values made outside a call
// on a Context; see Context.newValue).
func newValue(r raw.Value) *Value {
	v := &Value{}
	v.h.init("Value", r)
	setFinalizer(v)
	return v
}

// newValue wraps r, a result of a call on c, in a Value of c's arena.
func (c *Context) newValue(r raw.Value) *Value {
	var out [1]*Value
	c.values.take(out[:])
	out[0].h.init("Value", r)
	return out[0]
}

// valuesFromRaw wraps values (freeing the vector) in Values of their own, with a finalizer each.
func valuesFromRaw(v raw.ValueVector) []*Value {
	defer raw.DeleteValueVector(v)
	out := make([]*Value, v.Size())
	for i := range out {
		out[i] = newValue(raw.NewValue__SWIG_1(v.Get(i)))
	}
	return out
}

// valuesFromRaw wraps the results of a call on c (freeing the vector) in Values of c's arena.
func (c *Context) valuesFromRaw(v raw.ValueVector) []*Value {
	defer raw.DeleteValueVector(v)
	out := make([]*Value, v.Size())
	c.values.take(out)
	for i, x := range out {
		x.h.init("Value", raw.NewValue__SWIG_1(v.Get(i)))
	}
	return out
}

// newValueVector pins values and returns a C++ vector of them (freed with p).
func newValueVector(p *pins, values []*Value) (raw.ValueVector, error) {
	vec := raw.NewValueVector__SWIG_0()
	p.temp(vec)
	for _, v := range values {
		if v == nil {
			return nil, newError(CodeInvalid, "graft: a nil *Value")
		}
		r, err := use(p, &v.h)
		if err != nil {
			return nil, err
		}
		vec.Add(r)
	}
	return vec, nil
}

// Close releases the value.
func (v *Value) Close() error {
	v.h.close()
	return nil
}

// IsSymbolic reports whether the value is a tensor of a graph being traced.
func (v *Value) IsSymbolic() bool {
	r := v.h.mustAcquire()
	defer v.h.release()
	return r.Is_symbolic()
}

// DType is the value's element type.
func (v *Value) DType() DType {
	r := v.h.mustAcquire()
	defer v.h.release()
	return DType(r.Dtype())
}

// Shape is the value's shape (partial for a symbolic value).
func (v *Value) Shape() (Shape, error) {
	r, err := v.h.acquire()
	if err != nil {
		return Shape{}, err
	}
	defer v.h.release()
	s, err := get(r.Shape)
	if err != nil {
		return Shape{}, err
	}
	return shapeFromRaw(s), nil
}

// Tensor returns a concrete value's tensor (sharing its buffer).
func (v *Value) Tensor() (*Tensor, error) {
	r, err := v.h.acquire()
	if err != nil {
		return nil, err
	}
	defer v.h.release()
	t, err := get(r.To_tensor)
	if err != nil {
		return nil, err
	}
	return newTensor(t), nil
}

// Output returns a symbolic value's tensor in the traced graph (usable while that graph lives).
func (v *Value) Output() (Output, error) {
	r, err := v.h.acquire()
	if err != nil {
		return Output{}, err
	}
	defer v.h.release()
	o, err := get(r.Output)
	if err != nil {
		return Output{}, err
	}
	return outputFromRaw(o), nil
}

// String describes the value.
func (v *Value) String() string {
	if v.h.isClosed() {
		return "Value<closed>"
	}
	s, _ := v.Shape()
	kind := "concrete"
	if v.IsSymbolic() {
		kind = "symbolic"
	}
	return fmt.Sprintf("Value<%s %v %v>", kind, v.DType(), s)
}

// OpCall describes one op to run on a context (Context.Op). Its methods return the call for
// chaining; the first failure is returned by Execute.
type OpCall struct {
	ctx    *Context
	opType string
	steps  []func(p *pins, r raw.OpCall) error
}

func (o *OpCall) step(f func(p *pins, r raw.OpCall) error) *OpCall {
	o.steps = append(o.steps, f)
	return o
}

// AddInput adds v as the next input.
func (o *OpCall) AddInput(v *Value) *OpCall {
	return o.step(func(p *pins, r raw.OpCall) error {
		if v == nil {
			return newError(CodeInvalid, "graft: a nil *Value input")
		}
		rv, err := use(p, &v.h)
		if err != nil {
			return err
		}
		return call(func() { r.Add_input(rv) })
	})
}

// AddInputList adds a list input.
func (o *OpCall) AddInputList(values ...*Value) *OpCall {
	return o.step(func(p *pins, r raw.OpCall) error {
		vec, err := newValueVector(p, values)
		if err != nil {
			return err
		}
		return call(func() { r.Add_input_list(vec) })
	})
}

// SetAttr sets attr name from a Go value, as OpBuilder.SetAttr does (the same values, the
// same conversion by the op's declared attr type).
func (o *OpCall) SetAttr(name string, value any) *OpCall {
	return o.step(func(p *pins, r raw.OpCall) error { return setAttr(p, r, name, value) })
}

// SetName names the op (recorded while tracing).
func (o *OpCall) SetName(name string) *OpCall {
	return o.step(func(p *pins, r raw.OpCall) error { return call(func() { r.Set_name(name) }) })
}

// Execute runs the op (or records it while tracing) and returns its outputs.
func (o *OpCall) Execute() ([]*Value, error) {
	// An op call belongs to one thread, from creation to execution.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var p pins
	defer p.done()
	rc, err := use(&p, &o.ctx.h)
	if err != nil {
		return nil, err
	}
	r, err := get(func() raw.OpCall { return raw.NewOpCall(rc, o.opType) })
	if err != nil {
		return nil, err
	}
	p.temp(r)
	for _, s := range o.steps {
		if err := s(&p, r); err != nil {
			return nil, err
		}
	}
	out, err := get(r.Execute)
	if err != nil {
		return nil, err
	}
	return o.ctx.valuesFromRaw(out), nil
}
