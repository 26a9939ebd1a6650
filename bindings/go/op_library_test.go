// op_library_test.go: LoadOpLibrary (tf.load_op_library) with examples/plugin's library, whose
// ZeroOut is then built with AddOp and run in a Session, and executed eagerly. The library is
// the file GRAFT_EXAMPLE_OPS names (ctest's go.test sets it); without it the tests are skipped.

package graft_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"graft.dev/graft"
)

func exampleOps(t *testing.T) string {
	t.Helper()
	path := os.Getenv("GRAFT_EXAMPLE_OPS")
	if path == "" {
		t.Skip("GRAFT_EXAMPLE_OPS is not set: set it to the built examples/plugin/libgraft_example_ops.so (ctest's go.test sets it)")
	}
	return path
}

func TestLoadOpLibrary(t *testing.T) {
	path := exampleOps(t)
	lib := must(graft.LoadOpLibrary(path))
	if want := []string{"ZeroOut", "Swish", "SwishGrad"}; !reflect.DeepEqual(lib.OpNames, want) {
		t.Fatalf("ops %v, want %v", lib.OpNames, want)
	}
	if !filepath.IsAbs(lib.Path) || !strings.Contains(lib.Path, "graft_example_ops") {
		t.Fatalf("path %q", lib.Path)
	}
	// Loading it again registers nothing again.
	again := must(graft.LoadOpLibrary(path))
	if again.Path != lib.Path || !reflect.DeepEqual(again.OpNames, lib.OpNames) {
		t.Fatalf("loaded again: %+v, first %+v", again, lib)
	}
}

func TestOpLibraryZeroOutInAGraph(t *testing.T) {
	must(graft.LoadOpLibrary(exampleOps(t)))
	g := must(graft.NewGraph())
	defer g.Close()
	x := must(g.Const("x", must(graft.NewTensorWithShape([]int32{5, 3, 1, 9}, []int64{2, 2}))))
	z := must(g.AddOp("ZeroOut", "zeroed").AddInput(x).Finish())
	if z.Type() != "ZeroOut" {
		t.Fatalf("op type %q", z.Type())
	}
	if s := must(z.Output(0).Shape()); s.String() != "(2, 2)" { // the library's shape function
		t.Fatalf("inferred shape %v", s)
	}
	sess := must(graft.NewSession(g))
	defer sess.Close()
	out := must(sess.Run(nil, []graft.Output{z.Output(0)}, nil))
	if got := must(out[0].Int32s()); !reflect.DeepEqual(got, []int32{5, 0, 0, 0}) {
		t.Fatalf("ZeroOut gave %v", got)
	}
}

func TestOpLibraryZeroOutEagerly(t *testing.T) {
	must(graft.LoadOpLibrary(exampleOps(t)))
	ctx := must(graft.NewContext())
	defer ctx.Close()
	x := must(ctx.FromInt64s([]int64{7, 8, 9}, []int64{3}, graft.Int32))
	out := must(ctx.Execute("ZeroOut", []*graft.Value{x}, nil))
	if got := must(must(out[0].Tensor()).Int32s()); !reflect.DeepEqual(got, []int32{7, 0, 0}) {
		t.Fatalf("ZeroOut gave %v", got)
	}
}

func TestLoadOpLibraryBadPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no_such_ops.so")
	_, err := graft.LoadOpLibrary(missing)
	if !errors.Is(err, graft.ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v", err)
	}
}
