// example_test.go: runnable documentation (go test checks the printed output).

package graft_test

import (
	"errors"
	"fmt"
	"strings"

	"graft.dev/graft"
)

// A graph multiplying two matrices, run in a session.
func ExampleSession_Run() {
	g, _ := graft.NewGraph()
	defer g.Close()
	a, _ := graft.NewTensorWithShape([]float32{1, 2, 3, 4}, []int64{2, 2})
	x, _ := g.Placeholder("x", graft.Float32, graft.MakeShape(2, 2))
	w, _ := g.Const("w", a)
	mm, err := g.AddOp("MatMul", "mm").AddInput(x).AddInput(w).Finish()
	if err != nil {
		fmt.Println(err)
		return
	}
	sess, _ := graft.NewSession(g)
	defer sess.Close()
	eye, _ := graft.NewTensorWithShape([]float32{1, 0, 0, 1}, []int64{2, 2})
	out, err := sess.Run(map[graft.Output]*graft.Tensor{x: eye}, []graft.Output{mm.Output(0)}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	values, _ := out[0].Float32s()
	fmt.Println(out[0].Shape(), values)
	// Output: [2 2] [1 2 3 4]
}

// A Go closure traced into a function: once per input shape.
func ExampleNewFunction() {
	square := func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		x := args[0].Value
		return ctx.Op("Mul").AddInput(x).AddInput(x).Execute()
	}
	f, _ := graft.NewFunction("square", square)
	defer f.Close()
	ctx, _ := graft.NewContext()
	defer ctx.Close()
	for _, data := range [][]float64{{1, 2}, {3}, {4, 5}} {
		x, _ := ctx.FromFloat64s(data, []int64{int64(len(data))}, graft.Float64)
		out, err := f.Call(ctx, x)
		if err != nil {
			fmt.Println(err)
			return
		}
		t, _ := out[0].Tensor()
		values, _ := t.Float64s()
		fmt.Println(values, "traces:", f.TracingCount())
	}
	// Output:
	// [1 4] traces: 1
	// [9] traces: 2
	// [16 25] traces: 2
}

// A host function's error comes back as a *graft.Error carrying the closure's message.
func ExampleRegisterHostFunction() {
	hf, _ := graft.RegisterHostFunction("example-check", func(in []*graft.Tensor) ([]*graft.Tensor, error) {
		return nil, fmt.Errorf("input rejected")
	})
	defer hf.Close()
	ctx, _ := graft.NewContext()
	x, _ := ctx.FromFloat64s([]float64{1}, []int64{1}, graft.Float32)
	_, err := ctx.CallHostFunction(hf.Token(), []*graft.Value{x}, graft.Float32)
	var ge *graft.Error
	if errors.As(err, &ge) {
		fmt.Println(ge.CodeName, strings.Contains(ge.Message, "input rejected"))
	}
	// Output: GRAFT_EINVAL true
}

// A tensor of nested slices: the shape comes from the nesting, and Value gives the slices back.
func ExampleNewTensor() {
	t, _ := graft.NewTensor([][]int64{{1, 2, 3}, {4, 5, 6}})
	v, _ := t.Value()
	fmt.Println(t.DType(), t.Shape(), v)
	_, err := graft.NewTensor([][]float32{{1, 2}, {3}})
	fmt.Println(err)
	// Output:
	// int64 [2 3] [[1 2 3] [4 5 6]]
	// GRAFT_EINVAL: graft: NewTensor of a ragged slice: dimension 1 has length 2 at value[0] but 1 at value[1]
}

// Ops added through scopes: names made unique under the scope's, control dependencies.
func ExampleScope() {
	g, _ := graft.NewGraph()
	root := graft.NewScope(g)
	start, _ := root.AddOp("NoOp", "start").Finish()
	layer := root.SubScope("layer").WithControlDependencies(start)
	a, _ := layer.Const("", float32(2))
	b, _ := layer.Const("", float32(3))
	sum, _ := layer.AddOp("AddV2", "sum").AddInput(a).AddInput(b).Finish()
	fmt.Println(a.Op.Name(), b.Op.Name(), sum.Name(), root.SubScope("layer").Name())
	fmt.Println(sum.ControlInputs()[0].Name(), root.Err())
	// Output:
	// layer/Const layer/Const_1 layer/sum layer_1
	// start <nil>
}
