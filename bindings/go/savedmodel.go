// savedmodel.go: SavedModels (graft/saved_model.h): loading, signatures, running, saving.

package graft

import (
	"strings"

	raw "graft.dev/graft/internal/graft_swig"
)

// SignatureTensor is one input or output of a signature.
type SignatureTensor struct {
	Key        string
	TensorName string
	DType      DType
	Shape      Shape
}

// Signature describes a SavedModel's signature (a named function of its graph).
type Signature struct {
	Name       string
	MethodName string
	Inputs     []SignatureTensor
	Outputs    []SignatureTensor
}

// describeSignature reads a C++ Signature (which the caller frees).
func describeSignature(s raw.Signature) Signature {
	tensors := func(v raw.SignatureTensorVector) []SignatureTensor {
		defer raw.DeleteSignatureTensorVector(v)
		out := make([]SignatureTensor, v.Size())
		for i := range out {
			t := v.Get(i)
			out[i] = SignatureTensor{Key: t.GetKey(), TensorName: t.GetTensor_name(), DType: DType(t.GetDtype()),
				Shape: shapeFromRaw(t.Shape())}
		}
		return out
	}
	return Signature{Name: s.GetName(), MethodName: s.GetMethod_name(), Inputs: tensors(s.Inputs()),
		Outputs: tensors(s.Outputs())}
}

// SavedModel is a loaded SavedModel: its graph, a session with its variables restored, and
// its signatures. Run may be called from many goroutines at once.
type SavedModel struct {
	h       handle[raw.SavedModel]
	results arena[Tensor, *Tensor] // the tensors its runs return
}

// LoadSavedModel loads the SavedModel in dir with the meta graph of tags (none: "serve").
func LoadSavedModel(dir string, tags ...string) (*SavedModel, error) {
	t := newStringVector(tags)
	defer raw.DeleteStringVector(t)
	r, err := get(func() raw.SavedModel { return raw.NewSavedModel(dir, t) })
	if err != nil {
		return nil, err
	}
	m := &SavedModel{}
	m.h.init("SavedModel", r)
	setFinalizer(m)
	return m, nil
}

// SavedModelTags lists the tag sets of the meta graphs in dir.
func SavedModelTags(dir string) ([][]string, error) {
	s, err := get(func() string { return raw.SavedModelList_tags(dir) })
	if err != nil {
		return nil, err
	}
	var sets [][]string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line != "" {
			sets = append(sets, strings.Split(line, ","))
		}
	}
	return sets, nil
}

// Close frees the model (its graph and session stay usable while they are referenced).
func (m *SavedModel) Close() error {
	m.h.close()
	m.results.drop()
	return nil
}

// Signatures describes the model's signatures.
func (m *SavedModel) Signatures() []Signature {
	r := m.h.mustAcquire()
	defer m.h.release()
	v := r.Signatures()
	defer raw.DeleteSignatureVector(v)
	out := make([]Signature, v.Size())
	for i := range out {
		out[i] = describeSignature(v.Get(i)) // the element in place, freed with v
	}
	return out
}

// Signature describes the signature named name.
func (m *SavedModel) Signature(name string) (Signature, error) {
	r, err := m.h.acquire()
	if err != nil {
		return Signature{}, err
	}
	defer m.h.release()
	s, err := get(func() raw.Signature { return r.Signature(name) })
	if err != nil {
		return Signature{}, err
	}
	defer raw.DeleteSignature(s)
	return describeSignature(s), nil
}

// Run runs signature with inputs by key and returns the outputs of outputKeys, in order.
func (m *SavedModel) Run(signature string, inputs map[string]*Tensor, outputKeys ...string) ([]*Tensor, error) {
	var p pins
	defer p.done()
	r, err := use(&p, &m.h)
	if err != nil {
		return nil, err
	}
	keys, values := raw.NewStringVector__SWIG_0(), raw.NewTensorVector__SWIG_0()
	p.temp(keys)
	p.temp(values)
	for k, t := range inputs {
		rt, err := use(&p, &t.h)
		if err != nil {
			return nil, err
		}
		keys.Add(k)
		values.Add(rt)
	}
	outKeys := newStringVector(outputKeys)
	p.temp(outKeys)
	out, err := get(func() raw.TensorVector { return r.Run(signature, keys, values, outKeys) })
	if err != nil {
		return nil, err
	}
	return tensorsFromRaw(&m.results, out), nil
}

// Graph returns the model's graph.
func (m *SavedModel) Graph() *Graph {
	r := m.h.mustAcquire()
	defer m.h.release()
	return newGraph(r.Graph())
}

// Session returns the model's session (its variables restored).
func (m *SavedModel) Session() *Session {
	r := m.h.mustAcquire()
	defer m.h.release()
	s := &Session{}
	s.h.init("Session", r.Session())
	setFinalizer(s)
	return s
}

// SignatureDef is a signature to save: tensors of the saved graph by key.
type SignatureDef struct {
	Name    string
	Inputs  map[string]Output
	Outputs map[string]Output
}

// SaveSavedModel saves the graph of session and its variables to dir, under tags, with signatures.
func SaveSavedModel(session *Session, dir string, tags []string, signatures ...SignatureDef) error {
	var p pins
	defer p.done()
	rs, err := use(&p, &session.h)
	if err != nil {
		return err
	}
	names := raw.NewStringVector__SWIG_0()
	inKeys, outKeys := raw.NewStringVectorVector__SWIG_0(), raw.NewStringVectorVector__SWIG_0()
	inTensors, outTensors := raw.NewOutputVectorVector__SWIG_0(), raw.NewOutputVectorVector__SWIG_0()
	for _, v := range []any{names, inKeys, outKeys, inTensors, outTensors} {
		p.temp(v)
	}
	add := func(m map[string]Output, keys raw.StringVectorVector, tensors raw.OutputVectorVector) error {
		k, o := raw.NewStringVector__SWIG_0(), raw.NewOutputVector__SWIG_0()
		defer raw.DeleteStringVector(k)
		defer raw.DeleteOutputVector(o)
		for key, out := range m {
			ro, err := out.toRaw(&p)
			if err != nil {
				return err
			}
			k.Add(key)
			o.Add(ro)
		}
		keys.Add(k)
		tensors.Add(o)
		return nil
	}
	for _, s := range signatures {
		names.Add(s.Name)
		if err := add(s.Inputs, inKeys, inTensors); err != nil {
			return err
		}
		if err := add(s.Outputs, outKeys, outTensors); err != nil {
			return err
		}
	}
	t := newStringVector(tags)
	p.temp(t)
	return call(func() { raw.SavedModelSave(rs, dir, t, names, inKeys, inTensors, outKeys, outTensors) })
}
