package graft_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"graft.dev/graft"
	raw "graft.dev/graft/internal/graft_swig"
)

// The Go dtype table is the C API's: every dtype of graft_dtype_list has a Go constant of
// the same name (case aside) and value, and there are no others.
func TestDTypeTableMatchesC(t *testing.T) {
	// The constants as declared in the generated dtype_table.go (the test runs in the module).
	f, err := parser.ParseFile(token.NewFileSet(), "dtype_table.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	goConsts := map[string]int{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("dtype constant %s is not a literal", vs.Names[0].Name)
			}
			v, err := strconv.Atoi(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			goConsts[strings.ToLower(vs.Names[0].Name)] = v
		}
	}
	if v, ok := goConsts["invalid"]; !ok || v != int(raw.GRAFT_DTYPE_INVALID) || graft.Invalid != 0 {
		t.Errorf("Invalid is %d (declared: %v), GRAFT_DTYPE_INVALID %d", v, ok, int(raw.GRAFT_DTYPE_INVALID))
	}
	delete(goConsts, "invalid")

	n := raw.Graft_dtype_list(nil, 0)
	codes := raw.Dtype_codes()
	if len(codes) != n || len(codes) == 0 {
		t.Fatalf("graft_dtype_list counts %d dtypes, dtype_codes gives %d", n, len(codes))
	}
	all := graft.DTypes()
	if len(all) != len(codes) {
		t.Fatalf("DTypes() has %d dtypes, graft_dtype_list %d", len(all), len(codes))
	}
	for i, c := range codes {
		name := raw.Graft_dtype_name(int(c))
		v, ok := goConsts[name]
		switch {
		case !ok:
			t.Errorf("C dtype %s (%d) has no Go constant", name, c)
		case v != int(c):
			t.Errorf("Go constant for %s is %d, C %d", name, v, c)
		}
		if all[i] != graft.DType(c) || all[i].String() != name {
			t.Errorf("DTypes()[%d] is %d %q, C %d %q", i, all[i], all[i].String(), c, name)
		}
		delete(goConsts, name)
	}
	for name, v := range goConsts {
		t.Errorf("Go constant %s (%d) is no dtype of graft_dtype_list", name, v)
	}
	// A few of the constants by their Go names, as the API uses them.
	for d, name := range map[graft.DType]string{graft.Float32: "float32", graft.QUint8: "quint8",
		graft.BFloat16: "bfloat16", graft.Complex128: "complex128", graft.Uint64: "uint64"} {
		if d.String() != name {
			t.Errorf("%d is %q in C, %q in Go", int(d), d.String(), name)
		}
	}
}
