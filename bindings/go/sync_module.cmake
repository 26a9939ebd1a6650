# bindings/go/sync_module.cmake: assembles the Go module graft.dev/graft in the build tree
# (cmake -P, with -DSRC=bindings/go -DEXAMPLES=examples/go -DMODULE=<module dir>): the
# package's hand-written files, its tests, the extra file of the generated package and the
# example program. The SWIG output is written there by graft_swig_generate. Files removed
# from the sources are removed from the module too.
file(GLOB stale ${MODULE}/*.go ${MODULE}/examples/go/*.go)
if(stale)
  file(REMOVE ${stale})
endif()
file(GLOB package_files ${SRC}/*.go)
file(COPY ${package_files} ${SRC}/go.mod DESTINATION ${MODULE})
file(GLOB swig_extra ${SRC}/internal/graft_swig/*.go)
file(COPY ${swig_extra} DESTINATION ${MODULE}/internal/graft_swig)
file(GLOB example_files ${EXAMPLES}/*.go)
file(COPY ${example_files} DESTINATION ${MODULE}/examples/go)
