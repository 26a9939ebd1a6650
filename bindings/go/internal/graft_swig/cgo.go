// cgo.go: the build flags of SWIG's wrapper (graft_wrap.cxx, generated next to this file).
// libgraft and its headers come from pkg-config: an installed Graft (PKG_CONFIG_PATH to its
// graft.pc for a prefix of your own), or in the project's CMake build a graft.pc for the build
// tree. The binding headers (graft.hpp) are in bindings/, three directories up in a source
// checkout (the CMake build adds their directory through CGO_CXXFLAGS).

package graft_swig

// #cgo pkg-config: graft
// #cgo CXXFLAGS: -I${SRCDIR}/../../.. -std=c++17 -w
import "C"
