// builder.go: OpBuilder (adding an op to a graph) and the attr values shared with eager
// OpCall. Builders are plain Go values: they record inputs and attrs and make the C++ call
// only in Finish / Execute, so that one op is built on one OS thread and a failure surfaces
// once, there.

package graft

import (
	"fmt"

	raw "graft.dev/graft/internal/graft_swig"
)

// FuncAttr is a function-name attr value. A plain string sets a func attr too where the op
// declares one; FuncAttr also makes an attr the op does not declare a func attr.
type FuncAttr string

// attrSetter is graft.hpp's AttrSetter: the setters of graph ops (raw.OpBuilder) and eager
// op calls (raw.OpCall) alike, one per kind of host value.
type attrSetter interface {
	Set_attr_int(string, int64)
	Set_attr_float(string, float64)
	Set_attr_bool(string, bool)
	Set_attr_dtype(string, int)
	Set_attr_string(string, string)
	Set_attr_shape(string, raw.Shape)
	Set_attr_tensor(string, raw.Tensor)
	Set_attr_func(string, string)
	Set_attr_int_list(string, []int64)
	Set_attr_float_list(string, []float64)
	Set_attr_bool_list(string, []bool)
	Set_attr_dtype_list(string, []int32)
	Set_attr_string_list(string, raw.StringVector)
	Set_attr_shape_list(string, raw.ShapeVector)
	Set_attr_func_list(string, raw.StringVector)
}

// setAttr sets attr name of t (a graph op's builder or an eager op call) from a Go value (see
// OpBuilder.SetAttr for the types). The Go value picks the setter by its own kind only; the
// op's definition decides the attr type in C++ (an int for a float attr, an empty slice for
// any list attr, a string naming a dtype for a type attr), and a value that cannot be the
// declared type fails there (GRAFT_EINVAL naming op type and attr).
func setAttr(p *pins, t attrSetter, name string, value any) error {
	var f func()
	switch v := value.(type) {
	case int:
		f = func() { t.Set_attr_int(name, int64(v)) }
	case int32:
		f = func() { t.Set_attr_int(name, int64(v)) }
	case int64:
		f = func() { t.Set_attr_int(name, v) }
	case float32:
		f = func() { t.Set_attr_float(name, float64(v)) }
	case float64:
		f = func() { t.Set_attr_float(name, v) }
	case bool:
		f = func() { t.Set_attr_bool(name, v) }
	case DType:
		f = func() { t.Set_attr_dtype(name, int(v)) }
	case string:
		f = func() { t.Set_attr_string(name, v) }
	case []byte:
		f = func() { t.Set_attr_string(name, string(v)) }
	case FuncAttr:
		f = func() { t.Set_attr_func(name, string(v)) }
	case Shape:
		s := v.toRaw()
		p.temp(s)
		f = func() { t.Set_attr_shape(name, s) }
	case *Tensor:
		r, err := use(p, &v.h)
		if err != nil {
			return err
		}
		f = func() { t.Set_attr_tensor(name, r) }
	case []int64:
		f = func() { t.Set_attr_int_list(name, v) }
	case []int:
		l := make([]int64, len(v))
		for i, x := range v {
			l[i] = int64(x)
		}
		f = func() { t.Set_attr_int_list(name, l) }
	case []DType:
		l := make([]int32, len(v))
		for i, x := range v {
			l[i] = int32(x)
		}
		f = func() { t.Set_attr_dtype_list(name, l) }
	case []float64:
		f = func() { t.Set_attr_float_list(name, v) }
	case []float32:
		l := make([]float64, len(v))
		for i, x := range v {
			l[i] = float64(x)
		}
		f = func() { t.Set_attr_float_list(name, l) }
	case []bool:
		f = func() { t.Set_attr_bool_list(name, v) }
	case []string:
		s := newStringVector(v)
		p.temp(s)
		f = func() { t.Set_attr_string_list(name, s) }
	case []FuncAttr:
		l := make([]string, len(v))
		for i, x := range v {
			l[i] = string(x)
		}
		s := newStringVector(l)
		p.temp(s)
		f = func() { t.Set_attr_func_list(name, s) }
	case []Shape:
		s := raw.NewShapeVector__SWIG_0()
		p.temp(s)
		for _, x := range v {
			rs := x.toRaw()
			s.Add(rs)
			raw.DeleteShape(rs)
		}
		f = func() { t.Set_attr_shape_list(name, s) }
	default:
		return newError(CodeInvalid, fmt.Sprintf("graft: attr '%s': a %T cannot be an attr value", name, value))
	}
	return call(f)
}

// OpBuilder describes an op to add to a graph (Graph.AddOp). Its methods return the builder
// for chaining; the first failure is returned by Finish.
type OpBuilder struct {
	graph  *Graph
	opType string
	name   string
	steps  []func(p *pins, b raw.OpBuilder) error
	scope  *Scope // the Scope that started it (Scope.AddOp), or nil
}

func (b *OpBuilder) step(f func(p *pins, r raw.OpBuilder) error) *OpBuilder {
	b.steps = append(b.steps, f)
	return b
}

// AddInput adds the tensor o as the next input.
func (b *OpBuilder) AddInput(o Output) *OpBuilder {
	return b.step(func(p *pins, r raw.OpBuilder) error {
		ro, err := o.toRaw(p)
		if err != nil {
			return err
		}
		return call(func() { r.Add_input(ro) })
	})
}

// AddInputList adds a list input (for ops such as AddN or ConcatV2).
func (b *OpBuilder) AddInputList(outs ...Output) *OpBuilder {
	return b.step(func(p *pins, r raw.OpBuilder) error {
		v := raw.NewOutputVector__SWIG_0()
		p.temp(v)
		for _, o := range outs {
			ro, err := o.toRaw(p)
			if err != nil {
				return err
			}
			v.Add(ro)
		}
		return call(func() { r.Add_input_list(v) })
	})
}

// AddControlInput makes the op run after op.
func (b *OpBuilder) AddControlInput(op *Operation) *OpBuilder {
	return b.step(func(p *pins, r raw.OpBuilder) error {
		ro, err := use(p, &op.h)
		if err != nil {
			return err
		}
		return call(func() { r.Add_control_input(ro) })
	})
}

// SetDevice places the op on device.
func (b *OpBuilder) SetDevice(device string) *OpBuilder {
	return b.step(func(p *pins, r raw.OpBuilder) error { return call(func() { r.Set_device(device) }) })
}

// SetAttr sets attr name from a Go value: int/int32/int64, float32/float64, bool, DType,
// string or []byte, FuncAttr, Shape, *Tensor, []int64/[]int, []float64/[]float32, []bool,
// []DType, []string, []FuncAttr or []Shape. The op's definition decides the attr
// type: an int sets a float attr, an empty slice of any kind sets any list attr, a string
// names the dtype of a type attr; a value that cannot be the declared type is an error
// (CodeInvalid) naming op type and attr.
func (b *OpBuilder) SetAttr(name string, value any) *OpBuilder {
	return b.step(func(p *pins, r raw.OpBuilder) error { return setAttr(p, r, name, value) })
}

// Finish adds the op to the graph, or returns the first failure of the description. An op of
// a Scope fails without being added when the scope failed before, and its failure is the
// scope's Err.
func (b *OpBuilder) Finish() (*Operation, error) {
	if b.scope == nil {
		return b.finish()
	}
	if err := b.scope.Err(); err != nil {
		return nil, err
	}
	op, err := b.finish()
	if err != nil {
		b.scope.setErr(err)
	}
	return op, err
}

func (b *OpBuilder) finish() (*Operation, error) {
	if b.graph == nil {
		return nil, newError(CodeInvalid, "graft: an op of no graph")
	}
	g, err := b.graph.h.acquire()
	if err != nil {
		return nil, err
	}
	defer b.graph.h.release()
	var p pins
	defer p.done()
	if b.scope != nil {
		// The graph names the op under the scope's name scope, entered for this op alone.
		ns := absoluteScope(b.scope.namespace)
		if err := call(func() { g.Push_name_scope(ns) }); err != nil {
			return nil, err
		}
		p.undo = append(p.undo, func() { g.Pop_name_scope() })
	}
	r, err := get(func() raw.OpBuilder { return raw.NewOpBuilder(g, b.opType, b.name) })
	if err != nil {
		return nil, err
	}
	p.temp(r)
	for _, s := range b.steps {
		if err := s(&p, r); err != nil {
			return nil, err
		}
	}
	op, err := get(r.Finish)
	if err != nil {
		return nil, err
	}
	return newOperation(op), nil
}
