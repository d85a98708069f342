# Installs the ktune build into a fresh prefix, configures and builds tests/install/outside
# against it with find_package(ktune), and runs its programs (GEMM and conv2d). Any failure fails the test.
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} --install "${KTUNE_BUILD_DIR}" --prefix "${prefix}")
run(${CMAKE_COMMAND} -S "${OUTSIDE_SOURCE_DIR}" -B "${WORK_DIR}/build" -G Ninja
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}" "-DSELECTOR=${SELECTOR}" "-DCONV_SELECTOR=${CONV_SELECTOR}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j2)
run("${WORK_DIR}/build/uses_installed_library")
run("${WORK_DIR}/build/uses_own_tuned_library")
run("${WORK_DIR}/build/uses_installed_conv2d")
run("${WORK_DIR}/build/uses_own_conv2d")
