# cmake -DFILE=<shared library> -DRPATH=<run path> -P set_rpath.cmake: gives the jar's copy of a
# library the run path it needs where it is extracted, in place of the build's (which points
# into the build tree and, padded by CMake with an empty entry, at the current directory).
file(RPATH_SET FILE "${FILE}" NEW_RPATH "${RPATH}")
