#!/usr/bin/env bash
# The Python package's tests (python/tests, test_cuda.py's GPU cases included) on the lent GPU
# machine, from modules built on the CPU machine for its Python (docs/python.md, "For another
# machine's Python") and carried:
#   CARRY=.carry/pygpu bash /tmp/kt-src/scripts/python_gpu_tests.sh
# $CARRY/py.tar.gz: bin/_ktune*.so (the modules) and lib/ (the shared libraries the device image
# lacks), packed by scripts/networks/pack_device_bin.sh; sources in /tmp/kt-src (the caller
# unpacks src.tar.gz there). Writes $OUT/pytest.log.
set -uo pipefail
C=${CARRY:-.carry/pygpu} S=/tmp/kt-src W=/tmp/pygpu
mkdir -p $W/ktune "$OUT"
tar xzf $C/py.tar.gz -C $W || exit 1
cp $S/python/ktune/*.py $S/python/ktune/*.pyi $W/ktune/ && mv $W/bin/_ktune*.so $W/ktune/ || exit 1
export LD_LIBRARY_PATH="$W/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import sys, numpy, torch, cupy; print("python", sys.version.split()[0], "numpy",
  numpy.__version__, "torch", torch.__version__, "cupy", cupy.__version__)'
cd $W && PYTHONPATH=$W PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -s -rs -p no:cacheprovider \
  $S/python/tests 2>&1 | tee $OUT/pytest.log
