#!/usr/bin/env python3
"""scripts/results_index.py on a scratch repository: a valid results/ passes, and each planted
violation (unlisted file, missing file, file in two manifests, unknown commit, bad field, stale
INDEX.md) fails --check with a line naming it. Usage: test_results_index.py SCRIPT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]


def git(repo, *args):
    config = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", "-C", repo, *config, *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def index(repo, *args):
    r = subprocess.run([sys.executable, SCRIPT, "--root", repo, *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def manifest(path, commit, files, **extra):
    m = {"command": "ktune bench ...", "commit": commit, "date": "2026-11-26",
         "device": "Test CPU, 2 cores", "measures": "a test run", "files": files, "in_sample": None}
    m.update(extra)
    write(path, json.dumps(m))


failures = []


def expect(name, repo, code, needle, *args):
    got, out = index(repo, *args)
    if got != code or needle not in out:
        failures.append(f"{name}: expected exit {code} and '{needle}', got {got}: {out.strip()}")


if shutil.which("git") is None:
    print("git not found: skipped")
    sys.exit(77)
with tempfile.TemporaryDirectory() as tmp:
    base = os.path.join(tmp, "base")
    write(os.path.join(base, "results/dev/run1/a.csv"), "x\n1\n")
    write(os.path.join(base, "results/dev/flat.csv"), "y\n2\n")
    git(base, "init", "-q")
    git(base, "add", ".")
    git(base, "commit", "-q", "-m", "data")
    sha = git(base, "rev-parse", "--short", "HEAD")
    manifest(os.path.join(base, "results/dev/run1/run.json"), sha, ["a.csv"])
    manifest(os.path.join(base, "results/dev/flat.run.json"), sha, ["flat.csv"], note="older layout")
    write(os.path.join(base, "results/dev/run1/notes.md"), "the run's log\n")
    expect("valid tree is indexed", base, 0, "2 runs")
    expect("index is current", base, 0, "up to date", "--check")
    with open(os.path.join(base, "results/INDEX.md")) as f:
        text = f.read()
    if "[dev/run1/a.csv](dev/run1/a.csv)" not in text or "commit: `%s`" % sha not in text:
        failures.append("INDEX.md lacks the file row or the commit:\n" + text)

    def planted(name, change, needle):
        repo = os.path.join(tmp, name)
        shutil.copytree(base, repo, symlinks=True)
        change(repo)
        expect(name, repo, 1, needle, "--check")

    planted("unlisted", lambda r: write(os.path.join(r, "results/dev/run1/b.csv"), "z\n"),
            "results/dev/run1/b.csv: listed by no manifest")
    planted("missing", lambda r: os.remove(os.path.join(r, "results/dev/flat.csv")),
            "lists results/dev/flat.csv, which does not exist")
    planted("twice", lambda r: manifest(os.path.join(r, "results/dev/other.run.json"), sha,
                                        ["run1/a.csv"]),
            "results/dev/run1/a.csv: listed by")
    planted("unknown-commit", lambda r: manifest(os.path.join(r, "results/dev/run1/run.json"),
                                                 "99264c3", ["a.csv"]),
            "commit 99264c3 is not in this repository")

    def side_branch_commit(r):
        # A commit that exists in the clone but only on another branch: a clean clone of the
        # main branch would not have it.
        git(r, "checkout", "-q", "-b", "side")
        write(os.path.join(r, "side.txt"), "s\n")
        git(r, "add", "side.txt")
        git(r, "commit", "-q", "-m", "side")
        side = git(r, "rev-parse", "--short", "HEAD")
        git(r, "checkout", "-q", "-")
        manifest(os.path.join(r, "results/dev/run1/run.json"), side, ["a.csv"])
    planted("side-branch-commit", side_branch_commit, "is not in this repository's history")
    planted("bad-date", lambda r: manifest(os.path.join(r, "results/dev/run1/run.json"), sha,
                                           ["a.csv"], date="26/11/2026"),
            "'date' must be YYYY-MM-DD")
    planted("missing-key", lambda r: write(os.path.join(r, "results/dev/run1/run.json"),
                                           json.dumps({"command": "x", "files": ["a.csv"]})),
            "missing keys commit, date, device, in_sample, measures")
    planted("escapes", lambda r: manifest(os.path.join(r, "results/dev/run1/run.json"), sha,
                                          ["../flat.csv"]),
            "must be a path inside the manifest's folder")

    def new_run(r):
        write(os.path.join(r, "results/dev/run2/c.csv"), "c\n")
        manifest(os.path.join(r, "results/dev/run2/run.json"), sha, ["c.csv"])
    planted("stale-index", new_run, "results/INDEX.md: stale")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("results_index: every planted violation caught")
