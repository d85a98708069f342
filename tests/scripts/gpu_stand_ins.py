"""What the tests of the device scripts (test_gpu_header_ab.py, test_gpu_config_ab.py) share: a
copy of a script's tree in which scripts/gpu_build_remote.sh is the stand-in
fake_gpu_build_remote.py, a PATH folder with a stand-in nvidia-smi, and the calls the stand-ins
logged."""
import json
import os
import shutil

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_gpu_build_remote.py")


def stand_in_tree(root, script):
    """Copies SCRIPT (with its scripts/device_common.sh) into ROOT/repo/scripts beside the stand-in
    build, and writes ROOT/path/nvidia-smi. Returns (repo, path folder)."""
    repo = os.path.join(root, "repo")
    scripts = os.path.join(repo, "scripts")
    os.makedirs(scripts)
    shutil.copy(script, os.path.join(scripts, os.path.basename(script)))
    shutil.copy(os.path.join(os.path.dirname(script), "device_common.sh"), scripts)
    shutil.copy(FAKE, os.path.join(scripts, "gpu_build_remote.sh"))
    path = os.path.join(root, "path")
    os.makedirs(path)
    smi = os.path.join(path, "nvidia-smi")
    with open(smi, "w") as f:
        f.write("#!/bin/sh\necho 'name, driver_version'\necho 'Fake GPU, 1.0'\n")
    os.chmod(smi, 0o755)
    return repo, path


def logged_calls(log, program=None):
    """The stand-ins' calls from LOG (JSON lines), those of PROGRAM only if given."""
    if not os.path.exists(log):
        return []
    with open(log) as f:
        calls = [json.loads(line) for line in f]
    return [c for c in calls if program in (None, c["program"])]
