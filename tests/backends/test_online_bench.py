"""``silkvision online-bench`` and the protocol runner on tiny data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from silkvision.backends import bench, create, datasets
from silkvision.cli.main import main


@pytest.fixture
def tiny_csv(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.choice([-1, 1], 60)
    X = y[:, None] * 1.5 + rng.normal(size=(60, 2))
    f = tmp_path / "tiny.csv"
    f.write_text("label,a,b\n" + "".join(f"{int(l)},{a:.6f},{b:.6f}\n" for l, (a, b) in zip(y, X)))
    return f


@pytest.fixture
def tiny_multi(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 60)
    X = np.array([[3.0, 0], [0, 3.0], [-3.0, -3.0]])[y] + rng.normal(size=(60, 2))
    f = tmp_path / "multi.libsvm"
    f.write_text("".join(f"{l + 1} 1:{a:.6f} 2:{b:.6f}\n" for l, (a, b) in zip(y, X)))
    return f


def test_table(tiny_csv, capsys):
    assert main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "duol,duol_appr",
                 "--runs", "3", "--set", "sigma=2"]) == 0
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert "random permutations (seed 0" in lines[0] and "3 runs" in lines[0]
    assert lines[2].split()[0] == "duol" and lines[3].split()[0] == "duol_appr"
    assert "[duol] run 3/3" in err


def test_json_shape_and_protocol(tiny_csv, capsys):
    assert main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "duol", "--runs", "2",
                 "--json", "--set", "duol.C=2", "--seed", "5"]) == 0
    out, _ = capsys.readouterr()
    res = json.loads(out)  # exactly one JSON object
    assert res["dataset"] == "tiny" and res["runs"] == 2
    r = res["results"]["duol"]
    assert set(r) >= {"mistake_rate_mean", "mistake_rate_std", "n_support_mean", "seconds_mean"}
    assert r["params"]["C"] == 2 and r["params"]["sigma"] == 8.0
    # the same numbers from the Python protocol with the same orderings
    ds = datasets.load(tiny_csv)
    orders, how = bench.make_orderings(ds, 2, seed=5)
    runs = bench.run_protocol(create("duol", C=2), ds.X, ds.y, orders)
    assert r["mistake_rate_mean"] == pytest.approx(np.mean([x.mistake_rate for x in runs]))
    assert r["n_support_mean"] == pytest.approx(np.mean([x.n_support for x in runs]))
    manual = create("duol", C=2)
    pred = manual.progressive_predict(ds.X[orders[0]], ds.y[orders[0]])
    assert runs[0].mistakes == int(np.sum(pred != ds.y[orders[0]]))


def test_active_learner_reports_labels_queried(tiny_csv, capsys):
    """OnlineASVM^R (Algorithm 3) uses only some labels: online-bench reports how many, per run on
    average, in the JSON and as a table column; learners that use every label get neither."""
    argv = ["online-bench", "--dataset", str(tiny_csv), "--algorithms", "online_asvm_r,pa1", "--runs", "3",
            "--set", "sigma=1", "--quiet"]
    assert main(argv + ["--json"]) == 0
    res = json.loads(capsys.readouterr().out)["results"]
    assert "n_queried_mean" not in res["pa1"]
    ds = datasets.load(tiny_csv)
    orders, _ = bench.make_orderings(ds, 3)
    queried = []
    for o in orders:
        est = create("online_asvm_r", sigma=1.0)
        est.progressive_predict(ds.X[o], ds.y[o])
        queried.append(est.n_queried_)
    assert 0 < min(queried) and max(queried) < len(ds.y)
    assert res["online_asvm_r"]["n_queried_mean"] == pytest.approx(np.mean(queried))
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].endswith("labels queried")
    assert lines[2].split()[-1] == f"{np.mean(queried):.1f}" and lines[3].split()[-1] == "(all)"


def test_multiclass_defaults(tiny_multi, capsys):
    assert main(["online-bench", "--dataset", str(tiny_multi), "--algorithms", "mduol", "--runs", "1",
                 "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    r = json.loads(out)["results"]["mduol"]
    assert r["params"]["C"] == 10.0 and r["params"]["n_classes"] == 3 and err == ""


def test_stored_orderings_are_used(tmp_path):
    import scipy.io as sio

    X = np.arange(10.0)[:, None]
    y = np.where(np.arange(10) % 2, 1, -1)
    ids = np.array([np.arange(1, 11), np.arange(10, 0, -1)])
    sio.savemat(tmp_path / "s.hoi.mat", {"data": np.column_stack([y, X]), "ID_ALL": ids})
    ds = datasets.load(tmp_path / "s.hoi.mat")
    orders, how = bench.make_orderings(ds, 3, seed=0)
    np.testing.assert_array_equal(orders[:2], ids - 1)
    assert sorted(orders[2]) == list(range(10)) and how.startswith("stored (2) + random")


@pytest.mark.parametrize("argv, msg", [
    (["--dataset", "nope-not-here", "--algorithms", "duol"], "no such data file"),
    (["--dataset", "TINY", "--algorithms", "duol,nosuch"], "algorithm 'nosuch' is unknown"),
    (["--dataset", "TINY", "--algorithms", "duol", "--set", "zz=1"], "no algorithm among duol takes"),
    (["--dataset", "TINY", "--algorithms", "duol", "--set", "C=-1"], "duol: C: -1"),
    (["--dataset", "TINY", "--algorithms", "duol", "--set", "pa1.C=1"], "not among the algorithms"),
    (["--dataset", "TINY", "--algorithms", "duol", "--set", "noequals"], "expected PARAM=VALUE"),
    (["--dataset", "BAD", "--algorithms", "duol"], "bad.csv:2: expected 3 fields"),
    (["--dataset", "MULTI", "--algorithms", "duol"], "binary classifier but multi has 3 classes"),
])
def test_errors_exit_2_one_line(argv, msg, tiny_csv, tiny_multi, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,3\n-1,2\n")
    subst = {"TINY": str(tiny_csv), "BAD": str(bad), "MULTI": str(tiny_multi)}
    argv = [subst.get(a, a) for a in argv]
    assert main(["online-bench", "--quiet", "--runs", "1"] + argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("silkvision: error: ") and msg in err


def test_list_names_every_registered_learner(capsys):
    from silkvision.backends import available
    from silkvision.cli.main import main

    assert main(["online-bench", "--list"]) == 0
    out = capsys.readouterr().out
    for name in available():
        assert any(line.split()[0] == name for line in out.splitlines() if line.strip())


def test_dataset_and_algorithms_required_without_list(capsys):
    from silkvision.cli.main import main

    assert main(["online-bench", "--dataset", "german"]) == 2
    assert "--algorithms: required (or use --list)" in capsys.readouterr().err
