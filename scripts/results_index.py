#!/usr/bin/env python3
"""results/ index: checks the run manifests and writes results/INDEX.md from them.

A run is described by a manifest: `run.json` in a run directory (results/<device>/<run>/), or
`<run>.run.json` beside files of the older flat layout. Each manifest is one JSON object:
  {"command": str, "commit": sha, "date": "YYYY-MM-DD", "device": str, "measures": str,
   "files": [paths relative to the manifest's folder], "in_sample": true | false | null,
   "note": str (optional; any other key is kept and shown in the index)}

  scripts/results_index.py            # check, then write results/INDEX.md
  scripts/results_index.py --check    # check, and that INDEX.md is what would be written
  --root DIR                          # the repository (default: this script's parent's parent)

Checks: every manifest parses and has the keys above; every listed file exists; every file
under results/ is listed by exactly one manifest (besides README.md, INDEX.md, LOG.md at the top
and a notes.md beside a run.json); every commit is in HEAD's history, not merely somewhere in this
clone (`git cat-file --batch-check`, `git rev-list HEAD`; skipped in a shallow clone, which may
lack old commits). Exit 1 with one line per violation.
"""
import argparse
import json
import os
import re
import subprocess
import sys

KEYS = {"command", "commit", "date", "device", "measures", "files", "in_sample"}
TOP_PAGES = {"README.md", "INDEX.md", "LOG.md"}


def is_manifest(name):
    return name == "run.json" or name.endswith(".run.json")


def run_name(rel_manifest):
    """results-relative run name: the folder of a run.json, or the folder + stem of X.run.json."""
    folder, name = os.path.split(rel_manifest)
    if name == "run.json":
        return folder or "."
    return os.path.join(folder, name[: -len(".run.json")])


def walk(results):
    """(manifests, other files), both as paths relative to results/, sorted."""
    manifests, files = [], []
    for folder, dirs, names in os.walk(results):
        dirs.sort()
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(folder, n), results)
            (manifests if is_manifest(n) else files).append(rel)
    return manifests, files


def exempt(rel, run_dirs):
    if rel in TOP_PAGES:
        return True
    folder, name = os.path.split(rel)
    return name == "notes.md" and folder in run_dirs


def check_manifest(rel, m, errors):
    where = "results/" + rel
    if not isinstance(m, dict):
        errors.append(f"{where}: not a JSON object")
        return False
    missing = sorted(KEYS - m.keys())
    if missing:  # other keys are allowed (a run may record more), and listed in the index
        errors.append(f"{where}: missing keys {', '.join(missing)}")
        return False
    for key in ("command", "commit", "device", "measures"):
        if not isinstance(m[key], str) or not m[key].strip():
            errors.append(f"{where}: '{key}' must be a non-empty string")
    if not isinstance(m["date"], str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", m["date"]):
        errors.append(f"{where}: 'date' must be YYYY-MM-DD, got {m['date']!r}")
    if not isinstance(m["commit"], str) or not re.fullmatch(r"[0-9a-f]{7,40}", m["commit"]):
        errors.append(f"{where}: 'commit' must be a hex sha, got {m['commit']!r}")
    if m["in_sample"] not in (True, False, None):
        errors.append(f"{where}: 'in_sample' must be true, false or null")
    files = m["files"]
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        errors.append(f"{where}: 'files' must be a non-empty list of paths")
        return False
    for f in files:
        if os.path.isabs(f) or ".." in f.split("/"):
            errors.append(f"{where}: file '{f}' must be a path inside the manifest's folder")
            return False
    return True


def shallow(root):
    """True where commits cannot all be checked: no git, not a checkout, or a shallow clone."""
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True)
    except OSError:
        return True
    return out.returncode != 0 or out.stdout.strip() == "true"


def missing_commits(root, shas):
    """The shas that name no commit in HEAD's history. A commit only on a side branch or left
    behind by a temporary merge exists here but not in a clean clone of main, so it counts as
    missing (one `git cat-file --batch-check` to expand the shas, one `git rev-list HEAD`)."""
    shas = sorted(set(shas))
    out = subprocess.run(["git", "-C", root, "cat-file", "--batch-check"], capture_output=True,
                         text=True, input="".join(s + "^{commit}\n" for s in shas)).stdout
    history = set(subprocess.run(["git", "-C", root, "rev-list", "HEAD"], capture_output=True,
                                 text=True).stdout.split())
    return {s for s, line in zip(shas, out.splitlines()) if line.split()[0] not in history}


def load(root):
    """(runs, errors): runs = [(run name, manifest path, manifest)] of the valid manifests."""
    results = os.path.join(root, "results")
    manifests, files = walk(results)
    errors, runs, owner = [], [], {}
    for rel in manifests:
        try:
            with open(os.path.join(results, rel), encoding="utf-8") as f:
                m = json.load(f)
        except (OSError, ValueError) as e:
            errors.append(f"results/{rel}: cannot read: {e}")
            continue
        if not check_manifest(rel, m, errors):
            continue
        folder = os.path.dirname(rel)
        for f in m["files"]:
            path = os.path.normpath(os.path.join(folder, f))
            if not os.path.isfile(os.path.join(results, path)):
                errors.append(f"results/{rel}: lists results/{path}, which does not exist")
            elif path in owner:
                errors.append(f"results/{path}: listed by results/{owner[path]} and results/{rel}")
            else:
                owner[path] = rel
        runs.append((run_name(rel), rel, m))
    run_dirs = {os.path.dirname(rel) for rel in manifests if os.path.basename(rel) == "run.json"}
    for rel in files:
        if rel not in owner and not exempt(rel, run_dirs):
            errors.append(f"results/{rel}: listed by no manifest (add it to a run.json)")
    if shallow(root):
        print("results_index: not a full git checkout, commits not checked", file=sys.stderr)
    else:
        missing = missing_commits(root, [m["commit"] for _, _, m in runs])
        for _, rel, m in runs:
            if m["commit"] in missing:
                errors.append(f"results/{rel}: commit {m['commit']} is not in this "
                              "repository's history (HEAD)")
    return runs, errors


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def in_sample_label(v):
    return {True: "in-sample", False: "held out"}.get(v, "mixed / n.a.")


def render(runs):
    out = ["# Index of results/", "",
           "Generated by `scripts/results_index.py` from the run manifests (`run.json`, "
           "`<run>.run.json`); do not edit. Layout and how to add a run: [README.md](README.md); "
           "the dated run logs: [LOG.md](LOG.md).", "",
           "## Files", "",
           "| file | run | device | date | in-sample | measures |",
           "| --- | --- | --- | --- | --- | --- |"]
    rows = []
    for name, rel, m in runs:
        folder = os.path.dirname(rel)
        for f in m["files"]:
            path = os.path.normpath(os.path.join(folder, f))
            rows.append((path, f"| [{path}]({path}) | [{name}](#{anchor(name)}) | "
                               f"{cell(m['device'])} | {m['date']} | "
                               f"{in_sample_label(m['in_sample'])} | {cell(m['measures'])} |"))
    out += [r for _, r in sorted(rows)]
    out += ["", "## Runs", ""]
    for name, rel, m in sorted(runs):
        out += [f"### {name}", "",
                f"- manifest: [{rel}]({rel})",
                f"- measures: {m['measures']}",
                f"- device: {m['device']}",
                f"- date: {m['date']}; commit: `{m['commit']}`; {in_sample_label(m['in_sample'])}",
                f"- command: `{m['command'].replace('`', chr(39))}`"]
        for key in sorted(m.keys() - KEYS):
            out.append(f"- {key}: {cell(json.dumps(m[key], ensure_ascii=False)).strip(chr(34))}")
        out.append("")
    return "\n".join(out)


def anchor(name):
    """GitHub's heading anchor for a run name."""
    return re.sub(r"[^a-z0-9 _-]", "", name.lower()).replace(" ", "-")


def arguments(doc, check_help):
    """--root (default: the repository holding this script) and --check."""
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--check", action="store_true", help=check_help)
    return ap.parse_args()


def main():
    a = arguments(__doc__, "write nothing; fail if INDEX.md is stale")
    if not os.path.isdir(os.path.join(a.root, "results")):
        print(f"error: {a.root}: no results/ folder", file=sys.stderr)
        return 2
    runs, errors = load(a.root)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    text = render(runs)
    index = os.path.join(a.root, "results", "INDEX.md")
    if a.check:
        try:
            with open(index, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print("results/INDEX.md: stale; run scripts/results_index.py", file=sys.stderr)
            return 1
        print(f"results_index: {len(runs)} runs, index up to date")
        return 0
    with open(index, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"results_index: {len(runs)} runs -> results/INDEX.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
