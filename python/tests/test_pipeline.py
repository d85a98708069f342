"""The pipeline from Python on tiny workloads: bench -> open_store / load_dataset -> prune ->
train -> eval -> codegen -> deploy, the own-kernel path (family_file=), and the errors."""
import pathlib

import numpy as np
import pytest

import ktune

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
QUICK = dict(warmups=1, min_reps=3, max_reps=3)  # a few reps: the tests check plumbing, not speed


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "conv1d.sqlite"
    ktune.bench(family="conv1d", device="cpu", workload="tiny", store=path, **QUICK)
    return path


def test_store_as_arrays(store):
    rows = ktune.open_store(store)
    n = len(rows["problem"])
    assert n > 0
    for name, col in rows.items():
        assert isinstance(col, np.ndarray) and len(col) == n, name
    assert set(rows["family"]) == {"conv1d"}
    assert rows["perf"].dtype == np.float64 and rows["config_id"].dtype == np.int64
    ok = rows["status"] == "ok"
    assert ok.any()
    assert np.all(rows["perf"][ok] > 0) and np.all(rows["median_ms"][ok] > 0)
    assert np.all(rows["config_id"][rows["vendor"]] == -1)
    # The same rows as the CLI's export (the one loader both use).
    assert len(ktune.open_store(store, family="conv1d")["problem"]) == n


def test_dataset_as_arrays(store):
    ds = ktune.load_dataset(store)
    rows, cols = ds["perf"].shape
    assert ds["family"] == "conv1d" and rows == len(ds["problems"]) and cols == len(ds["configs"])
    assert ds["valid"].dtype == np.bool_ and ds["valid"].shape == (rows, cols)
    assert ds["features"].shape == (rows, len(ds["feature_names"]))
    assert np.all(ds["perf"][ds["valid"]] > 0) and np.all(ds["perf"][~ds["valid"]] == 0)
    assert ds["measured"].all()  # a full sweep


def test_learn_and_deploy(store, tmp_path):
    configs, model = tmp_path / "configs.txt", tmp_path / "model.json"
    ktune.prune(data=store, method="pca-kmeans", norm="cutoff", k=2, output=configs)
    shipped = configs.read_text().split()
    assert len(shipped) == 2
    ktune.train(data=store, selector="tree-b", norm="cutoff", configs=configs, output=model)
    assert model.stat().st_size > 0
    ktune.eval(data=store, pruners="topn", selectors="tree-b", ks=2, split="random",
               csv=tmp_path / "eval.csv")
    assert "oracle" in (tmp_path / "eval.csv").read_text()
    ktune.codegen(model=model, output=tmp_path / "selector.hpp")
    assert "ktune" in (tmp_path / "selector.hpp").read_text()
    ktune.deploy(family="conv1d", data=store, k=2, name="py_demo", output=tmp_path / "pkg")
    assert (tmp_path / "pkg" / "CMakeLists.txt").exists()


def test_own_kernel_from_files(tmp_path):
    dot = SOURCE_DIR / "examples" / "own-kernels" / "dot" / "dot.json"
    sizes = tmp_path / "sizes.csv"
    sizes.write_text("n\n1000\n4096\n")
    store = tmp_path / "dot.sqlite"
    ktune.bench(family_file=dot, workload=sizes, store=store, **QUICK)
    rows = ktune.open_store(store)
    assert set(rows["problem"]) and (rows["status"] == "ok").any()
    # A second call with the same file: the family is already registered, not an error.
    ktune.run("export", family_file=dot, store=store, format="csv", output=tmp_path / "dot.csv")
    assert (tmp_path / "dot.csv").read_text().count("\n") == len(rows["problem"]) + 1


def test_unknown_option_is_value_error():
    with pytest.raises(ValueError, match=r"bench: unknown option 'no_such' \(--no-such\)"):
        ktune.bench(family="gemm", no_such=1)
    with pytest.raises(ValueError, match="unknown verb 'nope'"):
        ktune.run("nope")


def test_refused_value_is_value_error():
    # CLI11's one line names the option (numeric_options.hpp: every numeric option is checked).
    with pytest.raises(ValueError, match="--k"):
        ktune.prune(data="x.csv", k="many")


def test_pipeline_failure_is_ktune_error(tmp_path):
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(ktune.Error, match="missing.sqlite") as info:
        ktune.load_dataset(missing)
    assert "\n" not in str(info.value)
    with pytest.raises(ktune.Error, match="missing.csv"):
        ktune.prune(data=tmp_path / "missing.csv", method="topn", k=2)
    with pytest.raises(ktune.Error, match="missing.sqlite"):
        ktune.open_store(missing)
    assert issubclass(ktune.Error, RuntimeError)


def test_flag_needs_bool():
    with pytest.raises(ValueError, match="is a flag"):
        ktune.bench(family="gemm", no_vendors="yes")


def test_flag_and_help(capsys):
    ktune.run("prune", help=True)  # a flag: `ktune prune --help` prints the verb's help
    assert "--method" in capsys.readouterr().out
