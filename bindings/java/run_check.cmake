# bindings/java/run_check.cmake: runs a command and fails unless it exits with 0 AND its
# output matches a regular expression (ctest's PASS_REGULAR_EXPRESSION alone ignores the exit
# code, which would miss a crash at JVM exit).
#   cmake -DEXPECT=<regex> -P run_check.cmake -- <command> <args>...
set(command)
set(after_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_dashes)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run_check.cmake: exit status ${rc}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "run_check.cmake: the output does not match ${EXPECT}")
endif()
