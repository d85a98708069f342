"""ctest python_install_layout: the installed package (not the build tree's) imports and runs.

Installs the component `python` of BUILD under a fresh prefix (what scripts/install_python.sh
does under /usr/local), then imports ktune from / with only that prefix's package folder on
PYTHONPATH and calls the deployed GEMM: the module, its .py files and the run-time paths of
its shared libraries must all be in place.
  install_layout.py CMAKE BUILD SITE   (SITE: KTUNE_PYTHON_INSTALL_DIR, relative to the prefix)
"""
import os
import subprocess
import sys
import tempfile

CHECK = """
import numpy as np, ktune, sys
assert ktune.__file__.startswith(sys.argv[1]), ktune.__file__
a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.ones((3, 2), dtype=np.float32)
c = np.full((2, 2), np.nan, dtype=np.float32)
ktune.gemm(a, b, c)
assert (c == a.astype(np.float64) @ b).all(), c
print("python_install_layout:", ktune.__file__, ktune.tuned_gemm_info()["backend"])
"""


def main():
    cmake, build, site = sys.argv[1:4]
    # cmake --install rewrites the build's manifest: keep the one of a real install (uninstall).
    manifest = os.path.join(build, "install_manifest_python.txt")
    kept = None
    if os.path.exists(manifest):
        with open(manifest) as f:
            kept = f.read()
    with tempfile.TemporaryDirectory() as prefix:
        try:
            subprocess.run([cmake, "--install", build, "--component", "python", "--prefix",
                            prefix], check=True, stdout=subprocess.DEVNULL)
        finally:
            if kept is not None:
                with open(manifest, "w") as f:
                    f.write(kept)
            elif os.path.exists(manifest):
                os.remove(manifest)
        package_dir = os.path.join(prefix, site)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = package_dir
        subprocess.run([sys.executable, "-c", CHECK, os.path.join(package_dir, "ktune")],
                       check=True, cwd="/", env=env)


if __name__ == "__main__":
    main()
