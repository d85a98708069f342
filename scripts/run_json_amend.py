#!/usr/bin/env python3
"""Amends the run.json a benchmark script wrote into OUT_DIR (results/ conventions: command, files,
measures, vendors): the command as the caller ran it, the files as OUT_DIR now holds them, and
measures / vendors given here.
  scripts/run_json_amend.py OUT_DIR --command CMD [--measures T | --append-measures T] [--vendors T]
Prints the measures."""
import argparse
import json
import os
import sys


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--command", required=True)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--measures", help="replaces run.json's measures")
    group.add_argument("--append-measures", help="appended to run.json's measures after '; '")
    parser.add_argument("--vendors")
    args = parser.parse_args(argv)
    path = os.path.join(args.out_dir, "run.json")
    try:
        run = json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit(f"run_json_amend: {path}: {e}")
    run["command"] = args.command
    run["files"] = sorted(f for f in os.listdir(args.out_dir) if f != "run.json")
    if args.measures is not None:
        run["measures"] = args.measures
    if args.append_measures is not None:
        run["measures"] = run.get("measures", "") + "; " + args.append_measures
    if args.vendors is not None:
        run["vendors"] = args.vendors
    json.dump(run, open(path, "w"), indent=2)
    print(run.get("measures", ""))


if __name__ == "__main__":
    main(sys.argv[1:])
