// The cgo package internal/graft_swig (SWIG's wrapper of bindings/graft.i) and dtype_table.go
// are generated, not committed. To use the module from a source checkout, run
// `go generate graft.dev/graft` (or `go generate .` here; it needs SWIG 4), then build
// against an installed Graft: the wrapper finds libgraft with pkg-config (cgo.go there). The
// CMake build generates the same into its copy of the module (bindings/go/CMakeLists.txt).
// The SWIG flags are those of a 64-bit platform (linux-amd64, linux-arm64), as the CMake
// build's there.

//go:generate swig -c++ -go -cgo -intgosize 64 -DSWIGWORDSIZE64 -module graft_swig -I.. -I../../c_api/include -outdir internal/graft_swig -o internal/graft_swig/graft_wrap.cxx ../graft.i
//go:generate go run ./internal/dtypegen ../../c_api/include/graft/dtype.h dtype_table.go

package graft
