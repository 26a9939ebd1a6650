# bindings/go/sync_module.cmake: assembles the Go module graft.dev/graft in the build tree
# (cmake -P, with -DSRC=bindings/go -DEXAMPLES=examples/go -DMODULE=<module dir>): the
# package's hand-written files, its tests, the hand-written files of the generated package
# (internal/graft_swig), the dtype table's generator (internal/dtypegen, run next by the build)
# and the example program. The SWIG output is written there by graft_swig_generate. Files
# removed from the sources are removed from the module too; files that `go generate` made in
# the source tree (graft_swig.go, dtype_table.go) are not copied.
file(GLOB stale ${MODULE}/*.go ${MODULE}/examples/go/*.go ${MODULE}/internal/dtypegen/*.go)
if(stale)
  file(REMOVE ${stale})
endif()
file(GLOB package_files ${SRC}/*.go)
list(FILTER package_files EXCLUDE REGEX "/dtype_table\\.go$")
file(COPY ${package_files} ${SRC}/go.mod DESTINATION ${MODULE})
file(COPY ${SRC}/internal/graft_swig/directors.go ${SRC}/internal/graft_swig/cgo.go
     DESTINATION ${MODULE}/internal/graft_swig)
file(GLOB dtypegen ${SRC}/internal/dtypegen/*.go)
file(COPY ${dtypegen} DESTINATION ${MODULE}/internal/dtypegen)
file(GLOB example_files ${EXAMPLES}/*.go)
file(COPY ${example_files} DESTINATION ${MODULE}/examples/go)
