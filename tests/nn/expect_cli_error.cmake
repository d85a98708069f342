cmake_minimum_required(VERSION 3.25)
# Runs a command line program INFER (ktune_infer, tuned_conv_bench) with ARGS (a ;-list) and fails
# unless it exits non-zero with exactly one line on stderr matching EXPECT:
#   cmake -DINFER=<ktune_infer> "-DARGS=--network;x" "-DEXPECT=regex" -P expect_cli_error.cmake
execute_process(COMMAND ${INFER} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${err}" err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${INFER} ${ARGS} exited 0 (stdout: ${out})")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr '${err}' does not match '${EXPECT}'")
endif()
if(err MATCHES "\n")
  message(FATAL_ERROR "stderr has more than one line: '${err}'")
endif()
message(STATUS "exit ${rc}: ${err}")
