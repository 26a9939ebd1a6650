# Finds every dependency of the design card from Debian's packages. A missing one stops the
# configure step with the name of the package that provides it
# (scripts/install-deps.sh installs them all).
find_package(PkgConfig QUIET)

function(graft_missing what package)
  message(FATAL_ERROR "Graft needs ${what}, which was not found. "
    "On Debian install it with: apt-get install ${package} "
    "(or run scripts/install-deps.sh, which installs every dependency).")
endfunction()

if(NOT PkgConfig_FOUND)
  graft_missing("pkg-config" "pkg-config")
endif()

# OpenBLAS through its CBLAS interface: matrix products on the CPU.
pkg_check_modules(OPENBLAS QUIET IMPORTED_TARGET openblas)
find_path(GRAFT_CBLAS_INCLUDE_DIR cblas.h PATHS ${OPENBLAS_INCLUDE_DIRS} PATH_SUFFIXES openblas)
if(NOT OPENBLAS_FOUND OR NOT GRAFT_CBLAS_INCLUDE_DIR)
  graft_missing("OpenBLAS (libopenblas with cblas.h)" "libopenblas-dev")
endif()

# protobuf-c: library and the protoc-c compiler, for GraphDef and SavedModel.
pkg_check_modules(PROTOBUF_C QUIET IMPORTED_TARGET libprotobuf-c)
if(NOT PROTOBUF_C_FOUND)
  graft_missing("the protobuf-c library" "libprotobuf-c-dev")
endif()
find_program(GRAFT_PROTOC_C NAMES protoc-c protoc-gen-c)
if(NOT GRAFT_PROTOC_C)
  graft_missing("the protoc-c compiler" "protobuf-c-compiler")
endif()

# RE2: the regular expressions of the regex ops and of collection scopes (TensorFlow's
# engine: linear-time matching, no backtracking, no recursion on the input).
pkg_check_modules(RE2 QUIET IMPORTED_TARGET re2)
if(NOT RE2_FOUND)
  graft_missing("RE2" "libre2-dev")
endif()

# OpenCL: the ICD loader and headers; CLBlast for matrix products on OpenCL devices.
find_package(OpenCL QUIET)
if(NOT OpenCL_FOUND)
  graft_missing("the OpenCL ICD loader and headers" "ocl-icd-opencl-dev opencl-headers")
endif()
find_package(CLBlast CONFIG QUIET)
if(NOT CLBlast_FOUND)
  graft_missing("CLBlast" "libclblast-dev")
endif()

# Test and binding tools.
if(GRAFT_BUILD_TESTS)
  pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET cmocka)
  if(NOT CMOCKA_FOUND)
    graft_missing("cmocka (for the tests)" "libcmocka-dev")
  endif()
endif()
find_package(SWIG 4.0 QUIET)
if(NOT SWIG_FOUND)
  graft_missing("SWIG 4 (for the language bindings)" "swig")
endif()

find_package(Threads REQUIRED)
