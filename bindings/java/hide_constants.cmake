# bindings/java/hide_constants.cmake: makes SWIG's constants interface (graft_swigConstants,
# which the module class implements) package-private. SWIG has pragmas for the modifiers of
# the JNI and module classes (graft_java.i sets them) but writes this interface "public
# interface" always; the public constants are DType, Status, AttrType and the like.
#   cmake -DFILE=<dir>/graft_swigConstants.java -P hide_constants.cmake
if(NOT DEFINED FILE)
  message(FATAL_ERROR "hide_constants.cmake: FILE is not set")
endif()
if(NOT EXISTS ${FILE})
  return()  # no constants, no interface
endif()
file(READ ${FILE} text)
string(REGEX REPLACE "\npublic interface " "\ninterface " hidden "${text}")
if(NOT hidden STREQUAL text)
  file(WRITE ${FILE} "${hidden}")
endif()
