// examples/go/main.go: the Go binding in a short program: a graph with a MatMul built through
// a scope from nested slices and run in a session, then a Go closure traced into a function and
// called with two shapes.
//
// Built inside the binding's module in the build tree (bindings/go/CMakeLists.txt):
//
//	go run ./examples/go
package main

import (
	"fmt"
	"log"

	"graft.dev/graft"
)

func matmul() error {
	g, err := graft.NewGraph()
	if err != nil {
		return err
	}
	defer g.Close()
	// The ops go in through a scope: named "layer/x", "layer/w", "layer/mm".
	layer := graft.NewScope(g).SubScope("layer")
	a, err := graft.NewTensor([][]float32{{1, 2, 3}, {4, 5, 6}}) // shape [2 3], from the nesting
	if err != nil {
		return err
	}
	x, err := layer.Placeholder("x", graft.Float32, graft.MakeShape(-1, 2))
	if err != nil {
		return err
	}
	w, err := layer.Const("w", a)
	if err != nil {
		return err
	}
	mm, err := layer.AddOp("MatMul", "mm").AddInput(x).AddInput(w).Finish()
	if err != nil {
		return err
	}
	sess, err := graft.NewSession(g)
	if err != nil {
		return err
	}
	defer sess.Close()
	in, err := graft.NewTensorWithShape([]float32{1, 10}, []int64{1, 2}) // flat data and a shape
	if err != nil {
		return err
	}
	out, err := sess.Run(map[graft.Output]*graft.Tensor{x: in}, []graft.Output{mm.Output(0)}, nil)
	if err != nil {
		return err
	}
	values, err := out[0].Float32s()
	if err != nil {
		return err
	}
	fmt.Printf("matmul %v x %v = %v %v\n", in.Shape(), a.Shape(), out[0].Shape(), values)
	nested, err := out[0].Value()
	if err != nil {
		return err
	}
	fmt.Printf("%s as a Go value: %v\n", mm.Name(), nested)
	return nil
}

func traced() error {
	// f(x) = x * x + x, traced once per input shape.
	f, err := graft.NewFunction("poly", func(ctx *graft.Context, args []graft.Arg) ([]*graft.Value, error) {
		x := args[0].Value
		sq, err := ctx.Op("Mul").AddInput(x).AddInput(x).Execute()
		if err != nil {
			return nil, err
		}
		return ctx.Op("AddV2").AddInput(sq[0]).AddInput(x).Execute()
	})
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, err := graft.NewContext()
	if err != nil {
		return err
	}
	defer ctx.Close()
	for _, data := range [][]float64{{1, 2}, {1, 2, 3}, {4, 5}} {
		x, err := ctx.FromFloat64s(data, []int64{int64(len(data))}, graft.Float32)
		if err != nil {
			return err
		}
		out, err := f.Call(ctx, x)
		if err != nil {
			return err
		}
		t, err := out[0].Tensor()
		if err != nil {
			return err
		}
		values, err := t.Float32s()
		if err != nil {
			return err
		}
		fmt.Printf("poly(%v) = %v (traces: %d)\n", data, values, f.TracingCount())
	}
	return nil
}

func main() {
	log.SetFlags(0)
	fmt.Println("graft", graft.Version())
	if err := matmul(); err != nil {
		log.Fatalf("matmul: %v", err)
	}
	if err := traced(); err != nil {
		log.Fatalf("traced function: %v", err)
	}
}
