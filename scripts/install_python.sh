#!/usr/bin/env bash
# The Python package ktune, importable by Debian's /usr/bin/python3 from any directory without
# PYTHONPATH (docs/python.md): installs what is missing (install_deps.sh: pybind11-dev,
# python3-dev, python3-numpy, ...), builds only the package (target ktune_python: the module
# `_ktune`, and `_ktune_cuda` where CUDA is found) and what it links in build/
# with the options of test.sh (scripts/build.sh; demo.sh builds in build-demo/),
# installs the package with `cmake --install build --component python` into
# /usr/local/lib/python3.X/dist-packages (on Debian's sys.path; sudo where not root), and
# imports it from / as the check.
#   ./scripts/install_python.sh            PREFIX=DIR ./scripts/install_python.sh
# PREFIX installs under DIR instead (DIR/lib/python3.X/dist-packages: then on PYTHONPATH).
# JOBS=N as in build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
TARGETS=ktune_python ./scripts/build.sh build
sudo_cmd=()
if [ -z "${PREFIX:-}" ] && [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" cmake --install build --component python ${PREFIX:+--prefix "$PREFIX"}
site=$(sed -n 's/^KTUNE_PYTHON_INSTALL_DIR:PATH=//p' build/CMakeCache.txt)
[ -z "${PREFIX:-}" ] || export PYTHONPATH="$PREFIX/$site${PYTHONPATH:+:$PYTHONPATH}"
python=$(sed -n 's/^_Python3_EXECUTABLE:INTERNAL=//p' build/CMakeCache.txt)  # the module's
(cd / && "$python" -c 'import ktune; print("install_python: import ktune ->", ktune.__file__)')
