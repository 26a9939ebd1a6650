// savedmodel_test.go: saving a graph with a MatMul as a SavedModel, loading and running it.

package graft_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"graft.dev/graft"
)

func TestSavedModelRoundTrip(t *testing.T) {
	g := must(graft.NewGraph())
	x := must(g.Placeholder("x", graft.Float32, graft.MakeShape(-1, 2)))
	w := must(g.Const("w", newMatrix(t, 2, 1, 3, 4)))
	y := must(g.AddOp("MatMul", "y").AddInput(x).AddInput(w).Finish()).Output(0)
	sess := must(graft.NewSession(g))
	dir := filepath.Join(t.TempDir(), "model")
	sig := graft.SignatureDef{Name: "serving_default", Inputs: map[string]graft.Output{"x": x},
		Outputs: map[string]graft.Output{"y": y}}
	if err := graft.SaveSavedModel(sess, dir, []string{"serve"}, sig); err != nil {
		t.Fatal(err)
	}
	if tags := must(graft.SavedModelTags(dir)); !reflect.DeepEqual(tags, [][]string{{"serve"}}) {
		t.Fatalf("tags %v", tags)
	}

	m := must(graft.LoadSavedModel(dir))
	defer m.Close()
	sigs := m.Signatures()
	if len(sigs) != 1 || sigs[0].Name != "serving_default" || len(sigs[0].Inputs) != 1 || len(sigs[0].Outputs) != 1 {
		t.Fatalf("signatures %+v", sigs)
	}
	in := must(m.Signature("serving_default")).Inputs[0]
	if in.Key != "x" || in.DType != graft.Float32 || in.Shape.String() != "(None, 2)" || in.TensorName != "x:0" {
		t.Fatalf("input %+v", in)
	}
	out := must(m.Run("serving_default", map[string]*graft.Tensor{"x": newMatrix(t, 2, 2, 1, 1, 2, 0)}, "y"))
	assertFloats(t, must(out[0].Float32s()), []float32{7, 6})
	// The model's own graph and session run the same computation.
	mm := must(m.Graph().Operation("y"))
	x2 := must(m.Graph().Tensor("x:0"))
	out = must(m.Session().Run(map[graft.Output]*graft.Tensor{x2: newMatrix(t, 1, 2, 0, 1)}, []graft.Output{mm.Output(0)}, nil))
	assertFloats(t, must(out[0].Float32s()), []float32{4})

	if _, err := m.Signature("nope"); err == nil {
		t.Fatal("found a missing signature")
	}
	if _, err := m.Run("serving_default", nil, "y"); err == nil {
		t.Fatal("ran without the input")
	}
	_, err := graft.LoadSavedModel(filepath.Join(t.TempDir(), "missing"))
	var ge *graft.Error
	if !errors.As(err, &ge) || ge.Message == "" {
		t.Fatalf("loading a missing directory: %v", err)
	}
}
