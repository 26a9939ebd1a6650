// gradients.go: symbolic gradients (TensorFlow's tf.gradients / the Go binding's
// Graph.AddGradients) over graft_graph_add_gradients_ex.

package graft

import (
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
	rg, err := use(&p, &g.h)
	if err != nil {
		return nil, err
	}
	vectors := make([]raw.OutputVector, 4)
	for i, list := range [][]Output{ys, xs, opts.GradYs, opts.StopGradients} {
		v := raw.NewOutputVector__SWIG_0()
		p.temp(v)
		for _, o := range list {
			ro, err := o.toRaw(&p)
			if err != nil {
				return nil, err
			}
			v.Add(ro)
		}
		vectors[i] = v
	}
	out, err := get(func() raw.OutputVector {
		return rg.Add_gradients(vectors[0], vectors[1], vectors[2], vectors[3], opts.UnconnectedZero, opts.Prefix)
	})
	if err != nil {
		return nil, err
	}
	defer raw.DeleteOutputVector(out)
	grads := make([]Output, out.Size())
	for i := range grads {
		o := out.Get(i)
		if o.Valid() {
			grads[i] = Output{Op: newOperation(o.Op()), Index: o.Index()}
		}
	}
	return grads, nil
}
