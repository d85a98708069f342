# The conv1d example family from measurement to a program calling its deployed library, through
# the CLI and CMake only: ktune bench (this CPU, the tiny workload) -> export -> ktune deploy (the
# default recipe but K = 2) -> cmake --install of ktune and of the deployed package -> a separate
# project (consumer/) that find_package()s the package, links it and runs checked convolutions.
# Then the step-by-step path: ktune prune + train -> a project (from_model/) building its own
# library from the model with ktune_add_tuned_library(... MODELS). Any failing step fails the test.
include(${CMAKE_CURRENT_LIST_DIR}/../install/run_step.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ktune_prefix "${WORK_DIR}/ktune-prefix")
set(tuned_prefix "${WORK_DIR}/tuned-prefix")
run("${KTUNE}" bench --family conv1d --device cpu --workload tiny --store "${WORK_DIR}/conv1d.sqlite"
    --warmups 1 --min-reps 3 --max-reps 3)
run("${KTUNE}" export --store "${WORK_DIR}/conv1d.sqlite" --format csv -o "${WORK_DIR}/conv1d.csv.gz")
run("${KTUNE}" deploy --family conv1d --data "${WORK_DIR}/conv1d.csv.gz" --k 2 --name conv1d_demo
    -o "${WORK_DIR}/package")

# What deploying needs: the CLI, headers, kernel sources and CMake files, not the example libraries.
run(${CMAKE_COMMAND} --install "${KTUNE_BUILD_DIR}" --prefix "${ktune_prefix}" --component Unspecified)
run(${CMAKE_COMMAND} -S "${WORK_DIR}/package" -B "${WORK_DIR}/package-build" -G Ninja
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${ktune_prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/package-build")
run(${CMAKE_COMMAND} --install "${WORK_DIR}/package-build" --prefix "${tuned_prefix}")

run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer-build" -G Ninja
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${tuned_prefix}" -DTUNED_NAME=conv1d_demo)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
run("${WORK_DIR}/consumer-build/calls_tuned_conv1d")

run("${KTUNE}" prune --data "${WORK_DIR}/conv1d.csv.gz" --method pca-kmeans --norm cutoff --k 2
    -o "${WORK_DIR}/configs.txt")
run("${KTUNE}" train --data "${WORK_DIR}/conv1d.csv.gz" --selector tree-b --norm cutoff
    --configs "${WORK_DIR}/configs.txt" -o "${WORK_DIR}/model.json")
run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}/../from_model" -B "${WORK_DIR}/from-model-build" -G Ninja
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${ktune_prefix}" "-DMODEL=${WORK_DIR}/model.json")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/from-model-build")
run("${WORK_DIR}/from-model-build/calls_tuned_conv1d")
