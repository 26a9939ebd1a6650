// library.go: loading op libraries (TensorFlow's tf.load_op_library; graft/library.h).

package graft

import (
	raw "graft.dev/graft/internal/graft_swig"
)

// OpLibrary describes an op library loaded with LoadOpLibrary: the file it was loaded from
// (absolute) and the op types it registered, in registration order.
type OpLibrary struct {
	Path    string
	OpNames []string
}

// LoadOpLibrary loads the op library at path (a shared library made with
// GRAFT_DEFINE_OP_LIBRARY, graft/kernel.h; a path with a '/' is a file, else dlopen searches)
// and registers its ops, kernels, shape functions and gradients, all or nothing, for the rest
// of the process. Its ops are then made as built-in ops are, by type name (Graph.AddOp,
// Context.Op). Loading the same file again registers nothing again. Errors: ErrNotFound (no
// such file, or not an op library; the message names the path), ErrUnimplemented (built
// against a newer kernel ABI), ErrExists (one of its ops is registered already).
func LoadOpLibrary(path string) (*OpLibrary, error) {
	lib, err := get(func() raw.Library { return raw.LibraryLoad(path) })
	if err != nil {
		return nil, err
	}
	defer raw.DeleteLibrary(lib)
	return &OpLibrary{Path: lib.Path(), OpNames: stringsFromRaw(lib.Op_names())}, nil
}
