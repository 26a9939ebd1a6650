// graph.go: graphs (graft_graph), their operations and the tensors they produce (Output).

package graft

import (
	"fmt"

	raw "graft.dev/graft/internal/graft_swig"
)

// Graph is a dataflow graph. Build it from one goroutine at a time; looking ops up and
// running sessions over it may be done from many.
type Graph struct {
	h handle[raw.Graph]
}

func newGraph(r raw.Graph) *Graph {
	g := &Graph{}
	g.h.init("Graph", r)
	setFinalizer(g)
	return g
}

// NewGraph returns an empty graph.
func NewGraph() (*Graph, error) {
	r, err := get(raw.NewGraph__SWIG_0)
	if err != nil {
		return nil, err
	}
	return newGraph(r), nil
}

// Close releases the graph; its ops, sessions and outputs keep it alive as long as they live.
func (g *Graph) Close() error {
	g.h.close()
	return nil
}

// NumOps is the number of ops in the graph.
func (g *Graph) NumOps() int {
	r := g.h.mustAcquire()
	defer g.h.release()
	return int(r.Num_ops())
}

// Operation returns the op named name (an error wrapping ErrNotFound when there is none).
func (g *Graph) Operation(name string) (*Operation, error) {
	r, err := g.h.acquire()
	if err != nil {
		return nil, err
	}
	defer g.h.release()
	op, err := get(func() raw.Operation { return r.Op_by_name(name) })
	if err != nil {
		return nil, err
	}
	return newOperation(op), nil
}

// Tensor returns the tensor named "op:index" (or "op" for output 0).
func (g *Graph) Tensor(name string) (Output, error) {
	r, err := g.h.acquire()
	if err != nil {
		return Output{}, err
	}
	defer g.h.release()
	o, err := get(func() raw.Output { return r.Tensor_by_name(name) })
	if err != nil {
		return Output{}, err
	}
	return outputFromRaw(o), nil
}

// Operations returns the graph's ops in the order they were added.
func (g *Graph) Operations() ([]*Operation, error) {
	r, err := g.h.acquire()
	if err != nil {
		return nil, err
	}
	defer g.h.release()
	v, err := get(r.Operations)
	if err != nil {
		return nil, err
	}
	return operationsFromRaw(v), nil
}

// AddOp starts an op of type opType named name ("" for a name made from the type); set its
// inputs and attrs on the builder and call Finish.
func (g *Graph) AddOp(opType, name string) *OpBuilder {
	return &OpBuilder{graph: g, opType: opType, name: name}
}

// Const adds a Const op holding value and returns its output.
func (g *Graph) Const(name string, value *Tensor) (Output, error) {
	if value == nil || value.h.isClosed() {
		return Output{}, newError(CodeInvalid, "graft: Const needs an open tensor")
	}
	return finishConst(g.AddOp("Const", name), value)
}

// Placeholder adds a Placeholder of dtype and shape (UnknownShape() for any) and returns its output.
func (g *Graph) Placeholder(name string, dtype DType, shape Shape) (Output, error) {
	return finishPlaceholder(g.AddOp("Placeholder", name), dtype, shape)
}

// finishConst sets a Const builder's value and dtype from value and adds the op (Graph.Const,
// Scope.Const).
func finishConst(b *OpBuilder, value *Tensor) (Output, error) {
	op, err := b.SetAttr("value", value).SetAttr("dtype", value.DType()).Finish()
	if err != nil {
		return Output{}, err
	}
	return op.Output(0), nil
}

// finishPlaceholder sets a Placeholder builder's dtype and, when known, shape, and adds the op.
func finishPlaceholder(b *OpBuilder, dtype DType, shape Shape) (Output, error) {
	b.SetAttr("dtype", dtype)
	if shape.Rank() >= 0 {
		b.SetAttr("shape", shape)
	}
	op, err := b.Finish()
	if err != nil {
		return Output{}, err
	}
	return op.Output(0), nil
}

// graphCall runs one fallible method of the graph.
func (g *Graph) graphCall(f func(raw.Graph)) error {
	r, err := g.h.acquire()
	if err != nil {
		return err
	}
	defer g.h.release()
	return call(func() { f(r) })
}

// PushNameScope enters a name scope for the ops added next; it returns the scope's full name.
func (g *Graph) PushNameScope(name string) (string, error) {
	var scope string
	err := g.graphCall(func(r raw.Graph) { scope = r.Push_name_scope(name) })
	return scope, err
}

// subScopeName makes the name of a scope name under the scope parent (Scope.SubScope): the
// graph's unique name for it, taken, with its '/' ("parent/name_1/").
func (g *Graph) subScopeName(parent, name string) (string, error) {
	r, err := g.h.acquire()
	if err != nil {
		return "", err
	}
	defer g.h.release()
	if err := call(func() { r.Push_name_scope(absoluteScope(parent)) }); err != nil {
		return "", err
	}
	defer call(func() { r.Pop_name_scope() })
	var full string
	if err := call(func() { full = r.Push_name_scope(name) }); err != nil {
		return "", err
	}
	return full, call(func() { r.Pop_name_scope() })
}

// PopNameScope leaves the innermost name scope.
func (g *Graph) PopNameScope() error { return g.graphCall(func(r raw.Graph) { r.Pop_name_scope() }) }

// NameScope is the current name scope ("" at the top).
func (g *Graph) NameScope() string {
	r := g.h.mustAcquire()
	defer g.h.release()
	return r.Name_scope()
}

// PushDevice sets the device of the ops added next, until PopDevice.
func (g *Graph) PushDevice(device string) error {
	return g.graphCall(func(r raw.Graph) { r.Push_device(device) })
}

// PopDevice undoes the last PushDevice.
func (g *Graph) PopDevice() error { return g.graphCall(func(r raw.Graph) { r.Pop_device() }) }

// PushControlDependencies makes the ops added next depend on ops, until PopControlDependencies.
func (g *Graph) PushControlDependencies(ops ...*Operation) error {
	var p pins
	defer p.done()
	v := raw.NewOperationVector__SWIG_0()
	p.temp(v)
	for _, op := range ops {
		r, err := use(&p, &op.h)
		if err != nil {
			return err
		}
		v.Add(r)
	}
	return g.graphCall(func(r raw.Graph) { r.Push_control_dependencies(v) })
}

// PopControlDependencies undoes the last PushControlDependencies.
func (g *Graph) PopControlDependencies() error {
	return g.graphCall(func(r raw.Graph) { r.Pop_control_dependencies() })
}

// Finalize makes the graph read-only.
func (g *Graph) Finalize() error { return g.graphCall(func(r raw.Graph) { r.Finalize() }) }

// Finalized reports whether Finalize was called.
func (g *Graph) Finalized() bool {
	r := g.h.mustAcquire()
	defer g.h.release()
	return r.Finalized()
}

// ExportGraphDef returns the graph as a serialized GraphDef.
func (g *Graph) ExportGraphDef(addShapes bool) ([]byte, error) {
	var s string
	err := g.graphCall(func(r raw.Graph) { s = r.Export_graph_def(addShapes) })
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// ImportGraphDef adds the ops of a serialized GraphDef, their names prefixed by prefix ("" for none).
func (g *Graph) ImportGraphDef(graphDef []byte, prefix string) error {
	names, returns := newStringVector(nil), newStringVector(nil)
	defer raw.DeleteStringVector(names)
	defer raw.DeleteStringVector(returns)
	tensors := raw.NewOutputVector__SWIG_0()
	defer raw.DeleteOutputVector(tensors)
	var res raw.ImportResult
	err := g.graphCall(func(r raw.Graph) { res = r.Import_graph_def(bytesView(graphDef), prefix, names, tensors, returns) })
	deleteRaw(res)
	return err
}

// FunctionNames lists the functions in the graph's function library.
func (g *Graph) FunctionNames() []string {
	r := g.h.mustAcquire()
	defer g.h.release()
	return stringsFromRaw(r.Function_names())
}

// Operation is an op of a graph; it keeps its graph alive.
type Operation struct {
	h handle[raw.Operation]
}

func newOperation(r raw.Operation) *Operation {
	op := &Operation{}
	op.h.init("Operation", r)
	setFinalizer(op)
	return op
}

func operationsFromRaw(v raw.OperationVector) []*Operation {
	defer raw.DeleteOperationVector(v)
	out := make([]*Operation, v.Size())
	for i := range out {
		out[i] = newOperation(raw.NewOperation__SWIG_1(v.Get(i)))
	}
	return out
}

// Close releases the op's handle (not the op, which belongs to its graph).
func (op *Operation) Close() error {
	op.h.close()
	return nil
}

// Name is the op's unique name in its graph.
func (op *Operation) Name() string {
	r := op.h.mustAcquire()
	defer op.h.release()
	return r.Name()
}

// Type is the op's type, e.g. "MatMul".
func (op *Operation) Type() string {
	r := op.h.mustAcquire()
	defer op.h.release()
	return r.Op_type()
}

// Device is the device the op was placed on ("" for none).
func (op *Operation) Device() string {
	r := op.h.mustAcquire()
	defer op.h.release()
	return r.Device()
}

// NumInputs is the number of (data) inputs.
func (op *Operation) NumInputs() int {
	r := op.h.mustAcquire()
	defer op.h.release()
	return r.Num_inputs()
}

// NumOutputs is the number of outputs.
func (op *Operation) NumOutputs() int {
	r := op.h.mustAcquire()
	defer op.h.release()
	return r.Num_outputs()
}

// Output returns the op's output i (checked when it is used).
func (op *Operation) Output(i int) Output { return Output{Op: op, Index: i} }

// Input returns the tensor feeding input i.
func (op *Operation) Input(i int) (Output, error) {
	r, err := op.h.acquire()
	if err != nil {
		return Output{}, err
	}
	defer op.h.release()
	o, err := get(func() raw.Output { return r.Input(i) })
	if err != nil {
		return Output{}, err
	}
	return outputFromRaw(o), nil
}

// ControlInputs returns the ops that op runs after (its control dependencies).
func (op *Operation) ControlInputs() []*Operation {
	r := op.h.mustAcquire()
	defer op.h.release()
	return operationsFromRaw(r.Control_inputs())
}

// ControlOutputs returns the ops that run after op because of a control dependency on it.
func (op *Operation) ControlOutputs() []*Operation {
	r := op.h.mustAcquire()
	defer op.h.release()
	return operationsFromRaw(r.Control_outputs())
}

// Graph returns the op's graph.
func (op *Operation) Graph() *Graph {
	r := op.h.mustAcquire()
	defer op.h.release()
	return newGraph(r.Graph())
}

// SameAs reports whether op and other are the same op.
func (op *Operation) SameAs(other *Operation) bool {
	a := op.h.mustAcquire()
	defer op.h.release()
	b := other.h.mustAcquire()
	defer other.h.release()
	return a.Same_as(b)
}

// String is the op's name and type, e.g. "mm (MatMul)".
func (op *Operation) String() string {
	if op.h.isClosed() {
		return "Operation<closed>"
	}
	return fmt.Sprintf("%s (%s)", op.Name(), op.Type())
}

// AttrNames lists the op's attrs.
func (op *Operation) AttrNames() []string {
	r := op.h.mustAcquire()
	defer op.h.release()
	return stringsFromRaw(r.Attr_names())
}

// Attr returns the value of attr name as a Go value: int64, float64, bool, DType, string,
// Shape, *Tensor, []int64, []float64, []bool, []DType, []string or []Shape; a func attr is
// returned as its function's name.
func (op *Operation) Attr(name string) (any, error) {
	r, err := op.h.acquire()
	if err != nil {
		return nil, err
	}
	defer op.h.release()
	kind, err := get(func() int { return r.Attr_type(name) })
	if err != nil {
		return nil, err
	}
	var v any
	switch kind {
	case raw.GRAFT_ATTR_INT:
		err = call(func() { v = r.Attr_int(name) })
	case raw.GRAFT_ATTR_FLOAT:
		err = call(func() { v = r.Attr_float(name) })
	case raw.GRAFT_ATTR_BOOL:
		err = call(func() { v = r.Attr_bool(name) })
	case raw.GRAFT_ATTR_TYPE:
		err = call(func() { v = DType(r.Attr_dtype(name)) })
	case raw.GRAFT_ATTR_STRING:
		err = call(func() { v = r.Attr_string(name) })
	case raw.GRAFT_ATTR_FUNC:
		err = call(func() { v = r.Attr_func(name) })
	case raw.GRAFT_ATTR_SHAPE:
		var s raw.Shape
		if s, err = get(func() raw.Shape { return r.Attr_shape(name) }); err == nil {
			v = shapeFromRaw(s)
		}
	case raw.GRAFT_ATTR_TENSOR:
		var t raw.Tensor
		if t, err = get(func() raw.Tensor { return r.Attr_tensor(name) }); err == nil {
			v = newTensor(t)
		}
	case raw.GRAFT_ATTR_INT_LIST:
		err = call(func() { v = r.Attr_int_list(name) })
	case raw.GRAFT_ATTR_FLOAT_LIST:
		err = call(func() { v = r.Attr_float_list(name) })
	case raw.GRAFT_ATTR_TYPE_LIST:
		var l []int32
		if err = call(func() { l = r.Attr_dtype_list(name) }); err == nil {
			d := make([]DType, len(l))
			for i, x := range l {
				d[i] = DType(x)
			}
			v = d
		}
	case raw.GRAFT_ATTR_BOOL_LIST:
		var l raw.BoolVector
		if l, err = get(func() raw.BoolVector { return r.Attr_bool_list(name) }); err == nil {
			b := make([]bool, l.Size())
			for i := range b {
				b[i] = l.Get(i)
			}
			raw.DeleteBoolVector(l)
			v = b
		}
	case raw.GRAFT_ATTR_STRING_LIST:
		var l raw.StringVector
		if l, err = get(func() raw.StringVector { return r.Attr_string_list(name) }); err == nil {
			v = stringsFromRaw(l)
		}
	case raw.GRAFT_ATTR_SHAPE_LIST:
		var l raw.ShapeVector
		if l, err = get(func() raw.ShapeVector { return r.Attr_shape_list(name) }); err == nil {
			s := make([]Shape, l.Size())
			for i := range s {
				s[i] = shapeFromBorrowed(l.Get(i))
			}
			raw.DeleteShapeVector(l)
			v = s
		}
	default:
		return nil, newError(CodeUnimplemented, fmt.Sprintf("graft: attr '%s' of op '%s' has a kind (%d) the Go binding does not read", name, r.Name(), kind))
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Output is one tensor of a graph: output Index of Op.
type Output struct {
	Op    *Operation
	Index int
}

func outputFromRaw(o raw.Output) Output {
	defer raw.DeleteOutput(o)
	return Output{Op: newOperation(o.Op()), Index: o.Index()}
}

// toRaw makes the C++ Output for a call (freed with p).
func (o Output) toRaw(p *pins) (raw.Output, error) {
	if o.Op == nil {
		return nil, newError(CodeInvalid, "graft: an Output without an op")
	}
	r, err := use(p, &o.Op.h)
	if err != nil {
		return nil, err
	}
	out, err := get(func() raw.Output { return r.Output(o.Index) })
	if err != nil {
		return nil, err
	}
	p.temp(out)
	return out, nil
}

// outputCall runs one fallible method of the output.
func (o Output) outputCall(f func(raw.Output)) error {
	var p pins
	defer p.done()
	r, err := o.toRaw(&p)
	if err != nil {
		return err
	}
	return call(func() { f(r) })
}

// DType is the tensor's element type.
func (o Output) DType() (DType, error) {
	var d DType
	err := o.outputCall(func(r raw.Output) { d = DType(r.Dtype()) })
	return d, err
}

// Shape is the tensor's (partial) shape as inferred in the graph.
func (o Output) Shape() (Shape, error) {
	var s raw.Shape
	err := o.outputCall(func(r raw.Output) { s = r.Shape() })
	if err != nil {
		deleteRaw(s)
		return Shape{}, err
	}
	return shapeFromRaw(s), nil
}

// SetShape refines the tensor's inferred shape.
func (o Output) SetShape(s Shape) error {
	rs := s.toRaw()
	defer raw.DeleteShape(rs)
	return o.outputCall(func(r raw.Output) { r.Set_shape(rs) })
}

// Name is the tensor's name, "op:index".
func (o Output) Name() (string, error) {
	var n string
	err := o.outputCall(func(r raw.Output) { n = r.Name() })
	return n, err
}

// Consumers returns the ops that take the tensor as an input.
func (o Output) Consumers() ([]*Operation, error) {
	var v raw.OperationVector
	err := o.outputCall(func(r raw.Output) { v = r.Consumers() })
	if err != nil {
		deleteRaw(v)
		return nil, err
	}
	return operationsFromRaw(v), nil
}

// String is the tensor's name, or a description of a bad Output.
func (o Output) String() string {
	n, err := o.Name()
	if err != nil {
		return fmt.Sprintf("Output<%v>", err)
	}
	return n
}
