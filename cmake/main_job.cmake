# The main job's build (scripts/demo.sh: scripts/build.sh build-demo -C cmake/main_job.cmake):
# the `ktune` CLI with only what `ktune demo` runs, on the CPU. The GEMM family alone (the
# family list still generated, so registration stays automatic), no families from files, no CUDA,
# and none of the test suite, benchmarks, examples, tuned libraries or Python package, which
# cover every family (scripts/test.sh builds them in build/). tests/build checks what it builds.
set(KTUNE_FAMILIES gemm CACHE STRING "")
set(KTUNE_FAMILY_FILES OFF CACHE BOOL "")
# FORCE: scripts/build.sh passes -DKTUNE_CUDA=AUTO before this file's -C.
set(KTUNE_CUDA OFF CACHE STRING "" FORCE)
set(KTUNE_TESTS OFF CACHE BOOL "")
set(KTUNE_BENCH OFF CACHE BOOL "")
set(KTUNE_EXAMPLES OFF CACHE BOOL "")
set(KTUNE_LIBRARIES OFF CACHE BOOL "")
