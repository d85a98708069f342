# An own kernel from files to a program calling its installed library, through the CLI and
# CMake only, with no ktune rebuild: examples/own-kernels/dot (a C++ kernel and its problem file,
# not compiled into ktune) -> ktune bench --family-file (this CPU, three sizes) -> ktune deploy
# (K = 3) -> cmake build + install of the package -> a separate project (file_family_consumer/)
# that find_package()s it, links it and runs checked dot products.
# Then the CUDA path, when nvcc is found: the package of the test kernel saxpy.cu is built with
# nvcc. Its selector is trained on a synthetic dataset written below (no GPU here: what is under
# test is that the generated CUDA sources build, not its times). With a GPU, the kernel is then
# measured there, deployed from that store and called on the GPU by cuda_file_family_consumer/.
include(${CMAKE_CURRENT_LIST_DIR}/../install/run_step.cmake)

# Builds and installs the package WORK_DIR/<package> (ARGN: its extra configure options), then
# builds the consumer project tests/deploy_package/<consumer> against it and runs <program>.
function(install_and_call package consumer program)
  run(${CMAKE_COMMAND} -S "${WORK_DIR}/${package}" -B "${WORK_DIR}/${package}-build" -G Ninja
      -DCMAKE_BUILD_TYPE=Release ${ARGN})
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/${package}-build")
  run(${CMAKE_COMMAND} --install "${WORK_DIR}/${package}-build"
      --prefix "${WORK_DIR}/${package}-prefix")
  run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/deploy_package/${consumer}"
      -B "${WORK_DIR}/${consumer}-build" -G Ninja -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_PREFIX_PATH=${WORK_DIR}/${package}-prefix")
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/${consumer}-build")
  run("${WORK_DIR}/${consumer}-build/${program}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ENV{KTUNE_CACHE_DIR} "${WORK_DIR}/cache")
if(NOT GPU_ONLY)  # -DGPU_ONLY=ON: only the GPU part below (a device run short of time)
  set(dot "${SOURCE_DIR}/examples/own-kernels/dot/dot.json")
  file(WRITE "${WORK_DIR}/sizes.csv" "n\n1000\n4096\n65536\n")
  run("${KTUNE}" bench --family-file "${dot}" --workload "${WORK_DIR}/sizes.csv"
      --store "${WORK_DIR}/dot.sqlite" --warmups 1 --min-reps 3 --max-reps 3)
  run("${KTUNE}" --family-file "${dot}" deploy --data "${WORK_DIR}/dot.sqlite" --label dot.sqlite
      --k 3 --name dot_demo -o "${WORK_DIR}/package")
  install_and_call(package file_family_consumer calls_tuned_dot)
endif()

find_program(NVCC nvcc PATHS /usr/local/cuda/bin)
if(NOT NVCC)
  message("no nvcc: the CUDA package's build is not checked")
  return()
endif()
set(saxpy "${SOURCE_DIR}/tests/filefamily/data/saxpy.json")
if(NOT GPU_ONLY)
  set(rows "device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,perf,rel_error,message,created_at,tags\n")
  foreach(n 1000 100003)
    set(id 0)
    foreach(block 64 256 2048)
      foreach(items 1 2 3 4)
        set(status ok)
        math(EXPR ms "${n} / 1000 * (${items} + ${block} / 64)")  # synthetic, see above
        if(items EQUAL 3)
          set(status failed)
        endif()
        string(APPEND rows "fixture,saxpy_test,n=${n},BLOCK=${block}SEMICOLON ITEMS=${items},${id},${status},${ms},${ms},${ms},0,3,1,0,,2026-01-01T00:00:00Z,\n")
        math(EXPR id "${id} + 1")
      endforeach()
    endforeach()
  endforeach()
  string(REPLACE "SEMICOLON " ";" rows "${rows}")  # a list separator elsewhere
  file(WRITE "${WORK_DIR}/saxpy.csv" "${rows}")
  run("${KTUNE}" --family-file "${saxpy}" deploy --data "${WORK_DIR}/saxpy.csv" --k 2
      --name saxpy_demo -o "${WORK_DIR}/cuda-package")
  run(${CMAKE_COMMAND} -S "${WORK_DIR}/cuda-package" -B "${WORK_DIR}/cuda-package-build" -G Ninja
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_COMPILER=${NVCC}")
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/cuda-package-build")
endif()

# On a machine with a GPU: the same kernel measured there for real (ktune bench on cuda:0), its
# package deployed from that store, installed, and called by a separate project on the GPU.
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
if(no_gpu)
  message("no GPU: the CUDA package is not run")
  return()
endif()
run("${KTUNE}" bench --family-file "${saxpy}" --device cuda:0 --store "${WORK_DIR}/saxpy.sqlite"
    --warmups 1 --min-reps 3 --max-reps 3)
run("${KTUNE}" --family-file "${saxpy}" deploy --data "${WORK_DIR}/saxpy.sqlite" --k 2
    --name saxpy_gpu -o "${WORK_DIR}/gpu-package")
install_and_call(gpu-package cuda_file_family_consumer calls_tuned_saxpy
                 "-DCMAKE_CUDA_COMPILER=${NVCC}")
