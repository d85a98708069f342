# run(<command> <args>...): one step of a cmake -P test script; prints its output, and fails the
# script (naming the command, with its output) when it exits non-zero.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
