#!/usr/bin/env python3
"""scripts/readme_figures.py --check on a copy of README.md and results/: the copy passes as
committed, and fails after a figure of the README or a row of a data file is changed.
Usage: test_readme_figures.py SCRIPT REPO_ROOT"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SCRIPT, ROOT = sys.argv[1], sys.argv[2]
failures = []


def check(root, *args):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root, *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(name, root, code, needle, *args):
    got, out = check(root, *args)
    if got != code or needle not in out:
        failures.append(f"{name}: expected exit {code} and '{needle}', got {got}: {out.strip()}")


def replace_once(path, old, new):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.count(old) < 1:
        failures.append(f"{path}: '{old}' not found; the test's plant no longer applies")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def copy(tmp, name):
    """README.md and results/ without the large datasets and images, which no figure reads."""
    dst = os.path.join(tmp, name)
    shutil.copytree(os.path.join(ROOT, "results"), os.path.join(dst, "results"),
                    ignore=shutil.ignore_patterns("*.gz", "*.png"))
    shutil.copy(os.path.join(ROOT, "README.md"), dst)
    return dst


with tempfile.TemporaryDirectory() as tmp:
    expect("committed README agrees", copy(tmp, "same"), 0, "agrees", "--check")

    # A README figure that the data does not give: the first bold geomean of the block.
    repo = copy(tmp, "readme")
    readme = os.path.join(repo, "README.md")
    with open(readme, encoding="utf-8") as f:
        block = f.read().split("<!-- figures:begin -->")[1]
    figure = re.search(r"\*\*(\d+\.\d+)\*\*", block).group(1)
    replace_once(readme, f"**{figure}**", f"**{float(figure) + 0.1:.3f}**")
    expect("planted README figure", repo, 1, "figures block differs from results/", "--check")

    # A data row that moves a figure: one shape of the H100 library twice as fast.
    repo = copy(tmp, "data")
    csv_path = os.path.join(repo, "results/h100-80gb-hbm3/gemm-vs-vendor.csv")
    with open(csv_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    cols = lines[0].split(",")
    row = lines[1].split(",")
    i = cols.index("deployed_gflops")
    row[i] = str(float(row[i]) * 2)
    lines[1] = ",".join(row)
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    expect("planted data change", repo, 1, "figures block differs from results/", "--check")
    expect("rewriting fixes it", repo, 0, "rewritten")
    expect("then it agrees", repo, 0, "agrees", "--check")

    repo = copy(tmp, "nomarkers")
    replace_once(os.path.join(repo, "README.md"), "<!-- figures:begin -->", "")
    expect("no block", repo, 2, "no <!-- figures:begin --> ... <!-- figures:end --> block", "--check")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("readme_figures: planted disagreements caught")
