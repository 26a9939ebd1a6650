// gradients.go: symbolic gradients (TensorFlow's tf.gradients / the Go binding's
// Graph.AddGradients) over graft_graph_add_gradients_ex, and gradient functions written in Go
// (RegisterGradient: a GradientFunction director the C gradient registry keeps for good).

package graft

import (
	"fmt"
	"sort"

	raw "graft.dev/graft/internal/graft_swig"
)

// GradientOptions are AddGradientsWithOptions' settings; the zero value is AddGradients'.
type GradientOptions struct {
	// Prefix is the name scope of the gradient ops ("" for "gradients", made unique).
	Prefix string
	// GradYs are the upstream gradients, one per y (nil for ones).
	GradYs []Output
	// StopGradients are treated as constants.
	StopGradients []Output
	// UnconnectedZero gives an x that no y depends on zeros of its shape instead of no gradient.
	UnconnectedZero bool
}

// AddGradients adds to the graph the ops computing the gradient of the sum of ys with respect
// to each x, under the name scope prefix ("" for "gradients"), and returns one Output per x:
// the zero Output (Op == nil) where no gradient flows. dys are the upstream gradients, one per
// y, or nil for ones. On failure (an op on the path without a gradient, a bad dy) the graph is
// left as it was.
func (g *Graph) AddGradients(prefix string, ys, xs, dys []Output) ([]Output, error) {
	return g.AddGradientsWithOptions(ys, xs, GradientOptions{Prefix: prefix, GradYs: dys})
}

// AddGradientsWithOptions is AddGradients with stop gradients and the unconnected setting.
func (g *Graph) AddGradientsWithOptions(ys, xs []Output, opts GradientOptions) ([]Output, error) {
	var p pins
	defer p.done()
	rg, vectors, err := g.gradientArgs(&p, ys, xs, opts)
	if err != nil {
		return nil, err
	}
	out, err := get(func() raw.OutputVector {
		return rg.Add_gradients(vectors[0], vectors[1], vectors[2], vectors[3], opts.UnconnectedZero, opts.Prefix)
	})
	if err != nil {
		return nil, err
	}
	defer raw.DeleteOutputVector(out)
	return gradientOutputs(out), nil
}

// IndexedSlices is a gradient given as rows (TensorFlow's tf.IndexedSlices): zero except at
// rows Indices (1-D int32 or int64) of a tensor of shape DenseShape (1-D int32), which get the
// matching rows of Values; a row named twice gets both. ResourceScatterAdd or a
// ResourceSparseApply* op applies it to those rows only.
type IndexedSlices struct {
	Values, Indices, DenseShape Output
}

// AddGradientsSparse is AddGradientsWithOptions keeping the gradient of an x that only gathers
// read (GatherV2 on axis 0, ResourceGather: an embedding table) as rows: for each x, rows[i]
// is set and dense[i] is the zero Output, or dense[i] is the gradient and rows[i] is nil (both
// unset where no gradient flows).
func (g *Graph) AddGradientsSparse(ys, xs []Output, opts GradientOptions) (dense []Output, rows []*IndexedSlices, err error) {
	var p pins
	defer p.done()
	rg, vectors, err := g.gradientArgs(&p, ys, xs, opts)
	if err != nil {
		return nil, nil, err
	}
	out, err := get(func() raw.OutputVectorVector {
		return rg.Add_gradients_sparse(vectors[0], vectors[1], vectors[2], vectors[3], opts.UnconnectedZero, opts.Prefix)
	})
	if err != nil {
		return nil, nil, err
	}
	defer raw.DeleteOutputVectorVector(out)
	values, indices, shapes := gradientOutputs(out.Get(0)), gradientOutputs(out.Get(1)), gradientOutputs(out.Get(2))
	dense = make([]Output, len(values))
	rows = make([]*IndexedSlices, len(values))
	for i := range values {
		if indices[i].Op != nil {
			rows[i] = &IndexedSlices{Values: values[i], Indices: indices[i], DenseShape: shapes[i]}
		} else {
			dense[i] = values[i]
		}
	}
	return dense, rows, nil
}

// gradientArgs pins the graph and converts ys, xs, the upstream gradients and the stop
// gradients to SWIG vectors (freed with p).
func (g *Graph) gradientArgs(p *pins, ys, xs []Output, opts GradientOptions) (raw.Graph, []raw.OutputVector, error) {
	rg, err := use(p, &g.h)
	if err != nil {
		return nil, nil, err
	}
	vectors := make([]raw.OutputVector, 4)
	for i, list := range [][]Output{ys, xs, opts.GradYs, opts.StopGradients} {
		v := raw.NewOutputVector__SWIG_0()
		p.temp(v)
		for _, o := range list {
			ro, err := o.toRaw(p)
			if err != nil {
				return nil, nil, err
			}
			v.Add(ro)
		}
		vectors[i] = v
	}
	return rg, vectors, nil
}

// outputsFromRaw converts a SWIG output vector: the zero Output for an invalid entry.
func gradientOutputs(out raw.OutputVector) []Output {
	grads := make([]Output, out.Size())
	for i := range grads {
		o := out.Get(i)
		if o.Valid() {
			grads[i] = Output{Op: newOperation(o.Op()), Index: o.Index()}
		}
	}
	return grads
}

// GradientFunc computes the gradient of op's inputs from grads, the incoming gradient of each
// of op's outputs (the zero Output where none flows), adding ops to op's graph. It returns one
// Output per input of op (the zero Output for none); an error fails AddGradients with its
// message. It runs on the goroutine that called AddGradients.
type GradientFunc func(op *Operation, grads []Output) ([]Output, error)

// gradientAdapter is the Go side of a GradientFunction director.
type gradientAdapter struct {
	fn GradientFunc
}

// Gradient is called by C++ while a gradient is built; it returns "" or the failure's message.
func (a *gradientAdapter) Gradient(ctx raw.GradientContext) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("graft: gradient function panicked: %v", r)
		}
	}()
	rop, err := get(ctx.Op)
	if err != nil {
		return errorMessage(err, "")
	}
	op := newOperation(rop)
	grads := make([]Output, op.NumOutputs())
	for i := range grads {
		o, err := get(func() raw.Output { return ctx.Output_grad(i) })
		if err != nil {
			return errorMessage(err, "")
		}
		if o.Valid() {
			grads[i] = Output{Op: newOperation(o.Op()), Index: o.Index()}
		}
		raw.DeleteOutput(o)
	}
	result, err := a.fn(op, grads)
	if err != nil {
		return errorMessage(err, "graft: gradient function failed")
	}
	if len(result) != op.NumInputs() {
		return fmt.Sprintf("graft: the gradient function of %s op '%s' returned %d gradients for %d inputs",
			op.Type(), op.Name(), len(result), op.NumInputs())
	}
	for i, g := range result {
		if g.Op == nil {
			continue
		}
		var p pins
		ro, err := g.toRaw(&p)
		if err == nil {
			err = call(func() { ctx.Set_input_grad(i, ro) })
		}
		p.done()
		if err != nil {
			return errorMessage(err, "")
		}
	}
	return ""
}

// RegisterGradient registers fn (process-wide, for good) as the gradient of ops of type
// opType, or of ops built under a gradient override map naming opType (an error wrapping
// ErrExists when opType has one, built-in or registered).
func RegisterGradient(opType string, fn GradientFunc) error {
	if fn == nil {
		return newError(CodeInvalid, "graft: RegisterGradient needs a function")
	}
	d := raw.NewDirectorGradientFunction(&gradientAdapter{fn: fn})
	if err := call(func() { raw.GradientFunctionRegister_function(opType, d) }); err != nil {
		raw.DeleteDirectorGradientFunction(d)
		return err
	}
	return nil // Graft's registry points to d for the rest of the process
}

// RegisterNoGradient declares ops of type opType not differentiable (TensorFlow's NoGradient).
func RegisterNoGradient(opType string) error {
	return call(func() { raw.GradientFunctionRegister_none(opType) })
}

// PushGradientOverrideMap makes the ops added next, until PopGradientOverrideMap, use the
// gradient registered under overrides[op type] instead of their type's.
func (g *Graph) PushGradientOverrideMap(overrides map[string]string) error {
	types := make([]string, 0, len(overrides))
	for t := range overrides {
		types = append(types, t)
	}
	sort.Strings(types)
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = overrides[t]
	}
	rt, rn := newStringVector(types), newStringVector(names)
	defer raw.DeleteStringVector(rt)
	defer raw.DeleteStringVector(rn)
	return g.graphCall(func(r raw.Graph) { r.Push_gradient_override_map(rt, rn) })
}

// PopGradientOverrideMap ends the innermost PushGradientOverrideMap.
func (g *Graph) PopGradientOverrideMap() error {
	return g.graphCall(func(r raw.Graph) { r.Pop_gradient_override_map() })
}
