# Code that runs once per graph, model or process rather than once per kernel call (op
# definitions with their shape and gradient functions, GraphDef/SavedModel/checkpoint parsing
# and writing, the string and text kernels) is compiled for size in Release builds: about 40%
# less machine code, at no measurable cost to a run (docs/benchmarks.md, "Footprint").
function(graft_compile_for_size)
  set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "$<$<CONFIG:Release>:-Os>")
endfunction()
