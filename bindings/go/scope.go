// scope.go: Scope, tensorflow/go's op.Scope over the graph's own name scopes (graft_graph's
// push_name_scope makes a scope's name unique and re-enters it for each op), with control
// dependencies and a device for the ops added through it.

package graft

import (
	"strings"
	"sync"
)

// Scope adds ops to a graph under a name scope, with control dependencies and a device, as
// tensorflow/go's op.Scope does. A Scope is a value that does not change: SubScope,
// WithControlDependencies and WithDevice return new scopes, and ops added through a scope
// (AddOp, Const, Placeholder) get its name prefix ("outer/inner/"), depend on its ops and are
// placed on its device (which their builder's SetDevice overrides).
//
// Errors accumulate as in tensorflow/go: the first failure of a scope or of any scope made from
// it (or of the scope it was made from) is Err's, and later ops added through any of them
// fail with it without being added. Each call also returns its own error, as the rest of the
// package does. A scope is used from one goroutine at a time, as its graph is while it grows.
type Scope struct {
	graph     *Graph
	namespace string // the name scope without its trailing '/' ("" at the top)
	deps      []*Operation
	device    string
	err       *scopeError // shared with the scopes made from it and the one it was made from
}

type scopeError struct {
	mu  sync.Mutex
	err error
}

// NewScope returns the root scope of g: ops added through it are named at the top of g's
// names (whatever name scope g.PushNameScope entered), with no control dependency or device.
func NewScope(g *Graph) *Scope {
	s := &Scope{graph: g, err: &scopeError{}}
	if g == nil {
		s.setErr(newError(CodeInvalid, "graft: NewScope needs a graph"))
	}
	return s
}

// Graph is the scope's graph.
func (s *Scope) Graph() *Graph { return s.graph }

// Name is the scope's name as op names begin with it, without the '/' ("" for a root scope,
// "outer/inner" for a scope of a scope).
func (s *Scope) Name() string { return s.namespace }

// Err returns the first failure of this scope or of a scope it was made from or made.
func (s *Scope) Err() error {
	s.err.mu.Lock()
	defer s.err.mu.Unlock()
	return s.err.err
}

// setErr records err unless a failure is recorded already.
func (s *Scope) setErr(err error) {
	s.err.mu.Lock()
	defer s.err.mu.Unlock()
	if s.err.err == nil {
		s.err.err = err
	}
}

func (s *Scope) derive() *Scope {
	c := *s
	return &c
}

// SubScope returns a scope named name under s, made unique among the names of s's ops and
// scopes as TensorFlow makes them: "layer", then "layer_1", "layer_2" (so s.SubScope("a")
// twice gives "a" and "a_1", and ops in them "a/MatMul" and "a_1/MatMul"). It keeps s's
// control dependencies and device. name must not be empty nor end in '/'; a failure (also
// an invalid name) is the new scope's Err, and the scope is s's.
func (s *Scope) SubScope(name string) *Scope {
	child := s.derive()
	if s.Err() != nil {
		return child
	}
	if name == "" || strings.HasSuffix(name, "/") {
		s.setErr(newError(CodeInvalid, "graft: SubScope needs a name that does not end in '/', got \""+name+"\""))
		return child
	}
	full, err := s.graph.subScopeName(s.namespace, name)
	if err != nil {
		s.setErr(err)
		return child
	}
	child.namespace = strings.TrimSuffix(full, "/")
	return child
}

// WithControlDependencies returns a scope whose ops run after ops as well as after s's own
// control dependencies (the same name scope and device).
func (s *Scope) WithControlDependencies(ops ...*Operation) *Scope {
	child := s.derive()
	child.deps = append(append(make([]*Operation, 0, len(s.deps)+len(ops)), s.deps...), ops...)
	return child
}

// WithDevice returns a scope whose ops are placed on device ("/device:CPU:0"; "" for none).
func (s *Scope) WithDevice(device string) *Scope {
	child := s.derive()
	child.device = device
	return child
}

// AddOp starts an op of type opType named name under the scope ("" for a name made from the
// type): "outer/name", made unique in the scope. Finish adds it with the scope's control
// dependencies and device; it fails without adding the op when the scope already failed, and
// a failure of its own becomes the scope's Err.
func (s *Scope) AddOp(opType, name string) *OpBuilder {
	b := &OpBuilder{graph: s.graph, opType: opType, name: name, scope: s}
	for _, op := range s.deps {
		b.AddControlInput(op)
	}
	if s.device != "" {
		b.SetDevice(s.device)
	}
	return b
}

// Const adds a Const op under the scope holding value: a *Tensor, or a Go value NewTensor takes
// ([][]float32{...}, int64(3), "text", ...).
func (s *Scope) Const(name string, value any) (Output, error) {
	t, ok := value.(*Tensor)
	if !ok {
		var err error
		if t, err = NewTensor(value); err != nil {
			s.setErr(err)
			return Output{}, err
		}
		defer t.Close() // the op keeps its own copy
	}
	if t == nil || t.h.isClosed() {
		err := newError(CodeInvalid, "graft: Const needs an open tensor")
		s.setErr(err)
		return Output{}, err
	}
	return finishConst(s.AddOp("Const", name), t)
}

// Placeholder adds a Placeholder of dtype and shape (UnknownShape() for any) under the scope.
func (s *Scope) Placeholder(name string, dtype DType, shape Shape) (Output, error) {
	return finishPlaceholder(s.AddOp("Placeholder", name), dtype, shape)
}

// absoluteScope is the argument of push_name_scope that enters the scope named namespace
// wherever the graph's own name scope is: "outer/inner/" (a name ending in '/' is re-entered as
// is), or "" for the top.
func absoluteScope(namespace string) string {
	if namespace == "" {
		return ""
	}
	return namespace + "/"
}
