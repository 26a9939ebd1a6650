# bindings/java/javac.cmake: compiles every .java file under some directories (found when it
# runs, since SWIG's output is only known then) into a fresh classes directory.
#   cmake -DJAVAC=<javac> -DOUT=<classes dir> -DSOURCE_DIRS=<dir>|<dir>... [-DCLASSPATH=<path>]
#         [-DFLAGS=<flag>|<flag>...] -P javac.cmake
foreach(var JAVAC OUT SOURCE_DIRS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "javac.cmake: ${var} is not set")
  endif()
endforeach()
string(REPLACE "|" ";" dirs "${SOURCE_DIRS}")
string(REPLACE "|" ";" flags "${FLAGS}")

set(sources)
foreach(dir IN LISTS dirs)
  file(GLOB_RECURSE found ${dir}/*.java)
  list(APPEND sources ${found})
endforeach()
if(NOT sources)
  message(FATAL_ERROR "javac.cmake: no Java sources under ${SOURCE_DIRS}")
endif()
list(SORT sources)

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
# An argument file keeps the command line short whatever the number of sources.
string(REPLACE ";" "\n" lines "${sources}")
file(WRITE ${OUT}.sources "${lines}\n")
set(cp)
if(CLASSPATH)
  set(cp -classpath ${CLASSPATH})
endif()
execute_process(COMMAND ${JAVAC} ${flags} -encoding UTF-8 -d ${OUT} ${cp} @${OUT}.sources
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "javac.cmake: javac failed (${rc})")
endif()
