#!/usr/bin/env python3
"""scripts/run_json_amend.py on a hand-made result directory: command and files set from the
call and the directory, measures replaced or appended, vendors set, the other fields kept; a
directory without run.json refused in one line naming the file, and nothing written.
  test_run_json_amend.py SCRIPT"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "run_json_amend.py")


def amend(d, *args):
    return subprocess.run([sys.executable, SCRIPT, d, *args], capture_output=True, text=True)


class RunJsonAmend(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        with open(os.path.join(self.d, "run.json"), "w") as f:
            json.dump({"command": "old", "date": "2026-11-27", "measures": "M", "files": []}, f)
        for name in ("b.csv", "a.md"):
            open(os.path.join(self.d, name), "w").close()

    def tearDown(self):
        self.tmp.cleanup()

    def run_json(self):
        return json.load(open(os.path.join(self.d, "run.json")))

    def test_appends_measures_and_lists_the_files(self):
        r = amend(self.d, "--command", "bench.sh a b", "--append-measures", "more")
        self.assertEqual(r.returncode, 0, r.stderr)
        run = self.run_json()
        self.assertEqual(run["command"], "bench.sh a b")
        self.assertEqual(run["files"], ["a.md", "b.csv"])
        self.assertEqual(run["measures"], "M; more")
        self.assertEqual(run["date"], "2026-11-27")
        self.assertNotIn("vendors", run)

    def test_replaces_measures_and_sets_vendors(self):
        r = amend(self.d, "--command", "c", "--measures", "new", "--vendors", "oneDNN")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((self.run_json()["measures"], self.run_json()["vendors"]), ("new", "oneDNN"))
        self.assertEqual(r.stdout.strip(), "new")

    def test_missing_run_json_is_one_line_naming_it(self):
        os.remove(os.path.join(self.d, "run.json"))
        r = amend(self.d, "--command", "c")
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        self.assertIn(os.path.join(self.d, "run.json"), r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.d, "run.json")))


if __name__ == "__main__":
    unittest.main()
