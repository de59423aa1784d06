"""``silkvision online-bench`` and the protocol runner on tiny data."""

from __future__ import annotations

import json
import time

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
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(tiny_csv),
                "--algorithms",
                "duol,duol_appr",
                "--runs",
                "3",
                "--set",
                "sigma=2",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert "random permutations (seed 0" in lines[0] and "3 runs" in lines[0]
    assert lines[2].split()[0] == "duol" and lines[3].split()[0] == "duol_appr"
    assert "[duol] run 3/3" in err


def test_json_shape_and_protocol(tiny_csv, capsys):
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(tiny_csv),
                "--algorithms",
                "duol",
                "--runs",
                "2",
                "--json",
                "--set",
                "duol.C=2",
                "--seed",
                "5",
            ]
        )
        == 0
    )
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
    argv = [
        "online-bench",
        "--dataset",
        str(tiny_csv),
        "--algorithms",
        "online_asvm_r,pa1",
        "--runs",
        "3",
        "--set",
        "sigma=1",
        "--quiet",
    ]
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
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(tiny_multi),
                "--algorithms",
                "mduol",
                "--runs",
                "1",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
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


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--dataset", "nope-not-here", "--algorithms", "duol"], "no such data file"),
        (["--dataset", "TINY", "--algorithms", "duol,nosuch"], "algorithm 'nosuch' is unknown"),
        (["--dataset", "TINY", "--algorithms", "duol", "--set", "zz=1"], "no algorithm among duol takes"),
        (["--dataset", "TINY", "--algorithms", "duol", "--set", "C=-1"], "duol: C: -1"),
        (["--dataset", "TINY", "--algorithms", "duol", "--set", "pa1.C=1"], "not among the algorithms"),
        (["--dataset", "TINY", "--algorithms", "duol", "--set", "noequals"], "expected PARAM=VALUE"),
        (["--dataset", "BAD", "--algorithms", "duol"], "bad.csv:2: expected 3 fields"),
        (["--dataset", "MULTI", "--algorithms", "duol"], "binary classifier but multi has 3 classes"),
        (["--dataset", "TINY", "--algorithms", "pa1,duol,pa1"], "--algorithms: pa1 given twice"),
    ],
)
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
        if name.endswith("_novelty"):  # named apart: online-bench runs classifiers only
            assert "novelty detectors" in out and name in out
        else:
            assert any(line.split()[0] == name for line in out.splitlines() if line.strip())


def test_list_json_is_one_json_object(capsys):
    from silkvision.backends import available

    assert main(["online-bench", "--list", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res) == {"learners", "novelty_detectors", "datasets", "data_root"}
    assert set(res["learners"]) | set(res["novelty_detectors"]) == set(available())
    assert set(res["novelty_detectors"]) == {"silk_novelty", "norma_novelty"}


def test_dataset_and_algorithms_required_without_list(capsys):
    from silkvision.cli.main import main

    assert main(["online-bench", "--dataset", "german"]) == 2
    assert "--algorithms: required (or use --list)" in capsys.readouterr().err


# --- --seed, lazy orderings, Ctrl-C, booleans, --list, --label-column -------------------------------------


def _one_line_error(capsys, argv, msg):
    assert main(["online-bench", "--quiet"] + argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("silkvision: error: ")
    assert msg in err, err


@pytest.mark.parametrize("runs", ["1", "22"])
def test_negative_seed_is_a_one_line_error(tiny_csv, capsys, runs):
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_csv), "--algorithms", "pa1", "--runs", runs, "--seed", "-1"],
        "--seed: -1 must be an integer >= 0",
    )


def test_make_orderings_checks_the_seed(tiny_csv):
    ds = datasets.load(tiny_csv)
    with pytest.raises(ValueError, match=r"seed: -1 must be an integer >= 0"):
        bench.make_orderings(ds, 2, seed=-1)
    with pytest.raises(ValueError, match=r"seed: 1.5 must be an integer"):
        bench.make_orderings(ds, 2, seed=1.5)
    with pytest.raises(bench.ConfigError, match=r"seed: -3"):
        bench.benchmark(ds, ["pa1"], runs=1, seed=-3)


def test_lazy_orderings_match_the_eager_ones(tiny_csv, tmp_path):
    """The orderings are drawn one at a time from the same generator: the same permutations as the
    former ``np.array([rng.permutation(n) for _ in range(rest)])``, after the stored ones."""
    import scipy.io as sio

    ds = datasets.load(tiny_csv)
    n = ds.n_samples
    for seed in (0, 5, 12345):
        rng = np.random.default_rng(seed)
        eager = np.array([rng.permutation(n) for _ in range(7)], dtype=np.int64)
        orders, _ = bench.make_orderings(ds, 7, seed=seed)
        assert len(orders) == 7 and orders.shape == (7, n)
        lazy = np.array(list(orders))
        assert lazy.dtype == np.int64
        np.testing.assert_array_equal(lazy, eager)
        np.testing.assert_array_equal(np.asarray(orders), eager)
        np.testing.assert_array_equal(orders[3], eager[3])
        np.testing.assert_array_equal(orders[-1], eager[-1])
        np.testing.assert_array_equal(orders[2:5], eager[2:5])
        np.testing.assert_array_equal(np.array(list(orders)), eager)  # every pass is the same
    # stored ones first, then the random ones from a fresh generator
    ids = np.array([np.arange(1, 11), np.arange(10, 0, -1)])
    y = np.where(np.arange(10) % 2, 1, -1)
    sio.savemat(tmp_path / "s.hoi.mat", {"data": np.column_stack([y, np.arange(10.0)]), "ID_ALL": ids})
    s = datasets.load(tmp_path / "s.hoi.mat")
    orders, how = bench.make_orderings(s, 5, seed=3)
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(
        np.asarray(orders), np.vstack([ids - 1] + [rng.permutation(10) for _ in range(3)])
    )
    assert how == "stored (2) + random permutations (3, seed 3)"
    assert bench.make_orderings(s, 1)[1] == "stored (1 of 2)"
    with pytest.raises(IndexError):
        orders[5]


def test_huge_runs_cost_no_memory_up_front(tiny_csv, monkeypatch):
    """--runs 100000000 used to build every ordering first (5 GB, no output): now the orderings are
    generated one per run, and the first runs report progress at once (at the largest --runs)."""
    real_rng = np.random.default_rng
    drawn = []

    class CountingRng:  # fails the test instead of eating the memory if orderings are built up front
        def __init__(self, seed):
            self._rng = real_rng(seed)

        def permutation(self, n):
            drawn.append(n)
            if len(drawn) > 100:
                raise AssertionError("more orderings drawn than runs made: not lazy")
            return self._rng.permutation(n)

    monkeypatch.setattr(np.random, "default_rng", CountingRng)
    ds = datasets.load(tiny_csv)
    big = bench.MAX_RUNS
    orders, how = bench.make_orderings(ds, big)
    assert len(orders) == big and "random permutations" in how
    seen = []

    def progress(algo, i, total, r):
        seen.append((i, total))
        if i == 4:
            raise KeyboardInterrupt

    with pytest.raises(bench.Interrupted) as ei:
        bench.benchmark(ds, ["perceptron"], runs=big, progress=progress)
    assert seen == [(i, big) for i in range(5)]
    res = ei.value.result
    assert res["partial"] is True and res["runs"] == big
    assert res["results"]["perceptron"]["runs_done"] == 5
    assert len(drawn) == 5


class _InterruptAt:
    """Make a learner's ``progressive_predict`` raise on its ``k``-th call (the warm-up is call 1)."""

    def __init__(self, monkeypatch, name, k, exc):
        from silkvision.backends import get_class

        cls = get_class(name)
        real = cls.progressive_predict
        self.calls = 0

        def wrapped(est, *a, **kw):
            self.calls += 1
            if self.calls == k:
                raise exc()
            return real(est, *a, **kw)

        monkeypatch.setattr(cls, "progressive_predict", wrapped)


def _numba_style_interrupt():
    """What a numba-compiled call raises when Ctrl-C arrives inside it."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as ki:
        try:
            raise SystemError(
                "CPUDispatcher(<function _duol_run>) returned a result with an exception set"
            ) from ki
        except SystemError as e:
            return e


@pytest.mark.parametrize(
    "exc", [KeyboardInterrupt, _numba_style_interrupt], ids=["keyboard", "numba-systemerror"]
)
def test_ctrl_c_prints_the_finished_runs_and_exits_130(tiny_csv, capsys, monkeypatch, exc):
    # pa1: warm-up + 3 runs; duol: warm-up, 2 runs, then Ctrl-C in its 3rd run
    _InterruptAt(monkeypatch, "duol", 4, exc)
    argv = ["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1,duol,perceptron", "--runs", "3"]
    assert main(argv) == 130
    out, err = capsys.readouterr()
    assert err.endswith("silkvision: interrupted\n") and "Traceback" not in err and "SystemError" not in err
    lines = out.strip().splitlines()
    assert [ln.split()[0] for ln in lines[2:4]] == ["pa1", "duol"]
    assert lines[-1] == "interrupted, partial results: pa1 3 of 3 runs, duol 2 of 3 runs, perceptron none"


def test_ctrl_c_json_is_flagged_partial_and_matches_the_runs_done(tiny_csv, capsys, monkeypatch):
    _InterruptAt(monkeypatch, "duol", 3, _numba_style_interrupt)
    argv = [
        "online-bench",
        "--dataset",
        str(tiny_csv),
        "--algorithms",
        "duol,pa1",
        "--runs",
        "4",
        "--json",
        "--quiet",
        "--seed",
        "2",
    ]
    assert main(argv) == 130
    out, err = capsys.readouterr()
    assert err == "silkvision: interrupted\n"
    res = json.loads(out)
    assert res["partial"] is True and res["not_run"] == ["pa1"] and list(res["results"]) == ["duol"]
    r = res["results"]["duol"]
    assert r["runs_done"] == 1
    ds = datasets.load(tiny_csv)
    orders, _ = bench.make_orderings(ds, 1, seed=2)
    runs = bench.run_protocol(create("duol", sigma=8.0, C=5.0, rho=0.0), ds.X, ds.y, orders)
    assert r["mistake_rate_mean"] == pytest.approx(runs[0].mistake_rate)


def test_ctrl_c_before_any_run_prints_an_empty_partial_result(tiny_csv, capsys, monkeypatch):
    """--json promises one JSON object on stdout, also when no run had finished."""
    _InterruptAt(monkeypatch, "pa1", 1, _numba_style_interrupt)  # in the warm-up
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--json", "--quiet"]) == 130
    )
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["partial"] is True and res["results"] == {} and res["not_run"] == ["pa1"]
    assert err == "silkvision: interrupted\n"


def test_other_system_errors_are_not_swallowed(tiny_csv, monkeypatch, capsys):
    def plain():
        return SystemError("a real bug")

    _InterruptAt(monkeypatch, "pa1", 2, plain)
    with pytest.raises(SystemError, match="a real bug"):
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--quiet"])
    assert not bench.is_interrupt(SystemError("x"))
    assert bench.is_interrupt(_numba_style_interrupt())
    try:
        raise ValueError("x") from KeyboardInterrupt()
    except ValueError as e:
        assert not bench.is_interrupt(e)


def test_run_protocol_interrupted_carries_the_finished_runs(tiny_csv):
    ds = datasets.load(tiny_csv)
    orders, _ = bench.make_orderings(ds, 5)

    def progress(i, r):
        if i == 1:
            raise KeyboardInterrupt

    with pytest.raises(bench.Interrupted) as ei:
        bench.run_protocol(create("pa1"), ds.X, ds.y, orders, progress)
    assert len(ei.value.runs) == 2 and isinstance(ei.value, KeyboardInterrupt)


@pytest.mark.parametrize("value", ["true", "false", "yes", "on"])
def test_boolean_for_a_numeric_parameter_is_a_one_line_error(tiny_csv, capsys, value):
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_csv), "--algorithms", "duol", "--runs", "1", "--set", f"C={value}"],
        "--set C: the value is a boolean",
    )
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_csv), "--algorithms", "pa1,duol", "--runs", "1", "--set", f"duol.rho={value}"],
        "but duol's rho takes a number",
    )
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_csv), "--algorithms", "pa1", "--runs", "1", "--set", f"kernel={value}"],
        "but pa1's kernel takes a string",
    )


def test_boolean_parameter_still_accepts_a_boolean(tiny_csv, capsys):
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(tiny_csv),
                "--algorithms",
                "online_svm_r",
                "--runs",
                "1",
                "--set",
                "shrinking=false",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["results"]["online_svm_r"]["params"]["shrinking"] is False


def test_list_shows_aggromma(capsys):
    assert main(["online-bench", "--list"]) == 0
    names = [ln.split()[0] for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert "aggromma" in names and names[0] == "aggromma"


def test_label_column_help_and_libsvm_error(tiny_multi, capsys):
    with pytest.raises(SystemExit):
        main(["online-bench", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "0-based column of the label in a CSV or ARFF file" in out
    assert "An error for LIBSVM and .mat files" in out and "partial" in out
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_multi), "--algorithms", "mpa1", "--label-column", "0"],
        "label_column=0 (--label-column) applies to CSV and ARFF files only",
    )


@pytest.mark.parametrize(
    "name, text, msg",
    [
        ("labelonly.csv", "1\n-1\n", "labelonly.csv: no feature columns besides the label"),
        (
            "huge.libsvm",
            "+1 1:1\n-1 99999999999:1\n",
            "huge.libsvm:2: feature index 99999999999 would make a dense",
        ),
        (
            "single.csv",
            "1,0.5\n1,2\n",
            "single.csv: all labels are 1; a classifier needs at least two classes",
        ),
    ],
)
def test_bad_data_sets_are_one_line_errors(tmp_path, capsys, name, text, msg):
    f = tmp_path / name
    f.write_text(text)
    _one_line_error(capsys, ["--dataset", str(f), "--algorithms", "pa1", "--runs", "1"], msg)


# -- learner errors mid-run, --set numbers, runs bound, Ctrl-C the compiler swallows --------------------
@pytest.mark.parametrize(
    "argv, msg",
    [
        (
            ["--algorithms", "pa1", "--set", "kernel=poly", "--set", "degree=1000"],
            "pa1 on tiny: X[0]: k(x, x) = inf",
        ),
        (["--algorithms", "mpa1", "--set", "n_classes=1"], "mpa1: n_classes=1 is fewer than the 2 classes"),
        (["--algorithms", "pa1", "--set", "C=0x10"], "C: '0x10' in --set is not a plain decimal number"),
        (["--algorithms", "pa1", "--set", "C=1:30"], "C: '1:30' in --set is not a plain decimal number"),
        (
            ["--algorithms", "pa1", "--runs", str(2**63)],
            "--runs: 9223372036854775808 must be an integer 1..1000000",
        ),
    ],
)
def test_more_one_line_errors(argv, msg, tiny_csv, capsys):
    assert main(["online-bench", "--dataset", str(tiny_csv), "--quiet", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and msg in err, err


@pytest.mark.parametrize(
    "text, value",
    [
        ("1e-3", 0.001),
        ("1E3", 1000.0),
        ("5e0", 5.0),
        (".5", 0.5),
        ("10", 10),
        ("010", 10),
        ("1_000", 1000),
        ("-2", -2),
        ("None", None),
        ("null", None),
        ("true", True),
        ("rbf", "rbf"),
    ],
)
def test_set_values_are_read_as_python_reads_numbers(text, value):
    from silkvision.cli.online_bench import _parse_params

    got = _parse_params([f"p={text}"])["p"]
    assert got == value and type(got) is type(value)


def _at_call(monkeypatch, k: int, action) -> None:
    """Make pa1's ``progressive_predict`` run ``action()`` at its ``k``-th call (the warm-up is the
    first), before learning."""
    from silkvision.backends import get_class

    cls = get_class("pa1")
    real = cls.progressive_predict
    calls = []

    def patched(self, X, y):
        calls.append(1)
        if len(calls) == k:
            action()
        return real(self, X, y)

    monkeypatch.setattr(cls, "progressive_predict", patched)


def _swallowed(signum):
    """A signal whose handler's exception is caught and dropped, as numba's compiler callback does."""
    import signal as _signal

    def action():
        try:
            _signal.raise_signal(signum)
        except KeyboardInterrupt:  # (Terminated is one)
            pass

    return action


def test_a_ctrl_c_the_compiler_swallowed_stops_after_the_run(tiny_csv, capsys, monkeypatch):
    """numba may catch the KeyboardInterrupt inside a compiler callback and go on; the handler's flag
    still stops the benchmark after the run in progress, with the partial result and exit 130."""
    import signal as _signal

    _at_call(monkeypatch, 2, _swallowed(_signal.SIGINT))  # during the first run
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--json", "--quiet"]) == 130
    )
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["partial"] is True and res["results"]["pa1"]["runs_done"] == 1
    assert err == "silkvision: interrupted\n"
    assert _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler  # handler restored


def test_a_full_stdout_is_a_one_line_error(tiny_csv, capsys, monkeypatch):
    import errno
    import sys

    class Full:
        def write(self, s):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--runs", "1", "--quiet"])
        == 2
    )
    err = capsys.readouterr().err
    assert err == "silkvision: error: cannot write the results to stdout: No space left on device\n"


def test_set_value_alias_bomb_is_refused_fast():
    from silkvision.cli.online_bench import _parse_params
    from silkvision.errors import ConfigError

    # 8 levels of 10 aliases: 10**8 values when expanded (printed in a message, hundreds of MB)
    bomb = (
        "[&a ['x','x','x','x','x','x','x','x','x','x'], "
        + ", ".join(f"&a{i} [" + ",".join([f"*a{i - 1}" if i > 1 else "*a"] * 10) + "]" for i in range(1, 8))
        + "]"
    )
    t0 = time.perf_counter()
    with pytest.raises(
        ConfigError, match=r"^C: alias \*a\d expands the value to more than 10000 values in --set$"
    ):
        _parse_params([f"C={bomb}"])
    assert time.perf_counter() - t0 < 2.0
    with pytest.raises(
        ConfigError, match=r"--set C: expected a number, true/false, null or a name, got a YAML list"
    ):
        _parse_params(["C=[1, 2]"])


def test_an_error_after_a_swallowed_ctrl_c_is_the_interruption(tiny_csv, capsys, monkeypatch):
    """numba's compiler, interrupted, may fail with its own error (RuntimeError: no compiled object
    yet ...): after a Ctrl-C that error stops the benchmark like the Ctrl-C, exit 130 and the partial
    JSON, and the swallowed KeyboardInterrupt's "Exception ignored" report is not printed."""
    import sys as _sys

    def compiler_fails():
        class U:
            exc_type, exc_value, exc_traceback = KeyboardInterrupt, KeyboardInterrupt(), None
            err_msg, object = "Exception ignored on calling ctypes callback function", None

        _sys.unraisablehook(U())
        raise RuntimeError("no compiled object yet for <Library 'cols_kernel_row'>")

    _at_call(monkeypatch, 3, compiler_fails)  # second run: a swallowed Ctrl-C, then the error
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--json", "--quiet"]) == 130
    )
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["partial"] is True and res["results"]["pa1"]["runs_done"] == 1
    assert err == "silkvision: interrupted\n"


def test_the_same_error_without_ctrl_c_is_not_an_interruption(tiny_csv, monkeypatch):
    from silkvision.backends import get_class

    def fails(self, X, y):
        raise RuntimeError("a real bug")

    monkeypatch.setattr(get_class("pa1"), "progressive_predict", fails)
    with pytest.raises(RuntimeError, match="a real bug"):
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--quiet"])


def test_a_sigterm_the_compiler_swallowed_exits_143(tiny_csv, capsys, monkeypatch):
    import signal as _signal

    _at_call(monkeypatch, 2, _swallowed(_signal.SIGTERM))
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--json", "--quiet"]) == 143
    )
    out, err = capsys.readouterr()
    assert json.loads(out)["results"]["pa1"]["runs_done"] == 1 and err == "silkvision: terminated\n"


@pytest.mark.parametrize(
    "signame, code, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_an_error_after_a_swallowed_signal_is_that_signal(tiny_csv, capsys, monkeypatch, signame, code, word):
    """The compiler's own error after it swallowed a SIGTERM is the termination (143), not a Ctrl-C:
    a service manager reads the exit status."""
    import signal as _signal

    swallow = _swallowed(getattr(_signal, signame))

    def compiler_fails():
        swallow()
        raise RuntimeError("no compiled object yet for <Library 'cols_kernel_row'>")

    _at_call(monkeypatch, 3, compiler_fails)
    assert (
        main(["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--json", "--quiet"]) == code
    )
    out, err = capsys.readouterr()
    assert json.loads(out)["results"]["pa1"]["runs_done"] == 1 and err == f"silkvision: {word}\n"


def test_set_none_in_either_case_is_null():
    from silkvision.cli.online_bench import _parse_params

    assert _parse_params(["C=none", "sigma=None"]) == {"C": None, "sigma": None}


def test_an_inherited_ignored_sigint_stays_ignored(tiny_csv, capsys, monkeypatch):
    """A background job (``cmd &``) inherits SIGINT ignored; the benchmark must not start honouring it."""
    import signal as _signal

    from silkvision.backends import get_class

    cls = get_class("pa1")
    real = cls.progressive_predict
    seen = []

    def look(self, X, y):
        seen.append(_signal.getsignal(_signal.SIGINT))
        return real(self, X, y)

    monkeypatch.setattr(cls, "progressive_predict", look)
    old = _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        assert (
            main(
                ["online-bench", "--dataset", str(tiny_csv), "--algorithms", "pa1", "--runs", "2", "--quiet"]
            )
            == 0
        )
        assert _signal.getsignal(_signal.SIGINT) is _signal.SIG_IGN
    finally:
        _signal.signal(_signal.SIGINT, old)
    assert seen and all(h is _signal.SIG_IGN for h in seen)


def test_list_says_where_named_data_sets_are_looked_for(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert main(["online-bench", "--list", "--data-root", str(missing)]) == 0
    out = capsys.readouterr().out
    assert f"no named data sets: {missing} does not exist or holds none (use --data-root DIR" in out
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "toy.csv").write_text("1,0.5\n-1,0.2\n")
    assert main(["online-bench", "--list", "--data-root", str(tmp_path)]) == 0
    assert f"data sets under {tmp_path}: toy" in capsys.readouterr().out


def test_header_and_format_options(tmp_path, tiny_multi, capsys):
    """--header overrides the CSV header detection; --format the sniffed format."""
    f = tmp_path / "pandas.csv"  # pandas' integer header over the data: auto asks
    f.write_text("0,1,2\n" + "".join(f"{i % 2},{i / 7:.3f},{i / 5:.3f}\n" for i in range(20)))
    _one_line_error(
        capsys,
        ["--dataset", str(f), "-a", "perceptron"],
        "may be a header of numbered columns or an example with integer values",
    )
    for opt, n in ((["--header", "no"], 21), (["--header", "yes"], 20)):
        assert (
            main(
                ["online-bench", "--quiet", "--dataset", str(f), "-a", "perceptron", "--runs", "1", "--json"]
                + opt
            )
            == 0
        )
        assert json.loads(capsys.readouterr().out)["n_samples"] == n
    _one_line_error(
        capsys,
        ["--dataset", str(tiny_multi), "-a", "mpa1", "--header", "yes"],
        "header=True (--header yes) applies to CSV files only",
    )
    g = tmp_path / "noext"
    g.write_text("1,0.5\n-1,0.25\n1,0.75\n")
    assert (
        main(
            [
                "online-bench",
                "--quiet",
                "--dataset",
                str(g),
                "-a",
                "perceptron",
                "--runs",
                "1",
                "--format",
                "csv",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["n_samples"] == 3


def test_one_run_has_no_standard_deviation(tiny_csv, capsys):
    """'+- 0.000' read as a measured zero spread; one run has none."""
    assert (
        main(["online-bench", "--quiet", "--dataset", str(tiny_csv), "-a", "pa1", "--runs", "1", "--json"])
        == 0
    )
    r = json.loads(capsys.readouterr().out)["results"]["pa1"]
    assert r["mistake_rate_std"] is None and r["n_support_std"] is None
    assert main(["online-bench", "--quiet", "--dataset", str(tiny_csv), "-a", "pa1", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "; 1 run, orderings" in out and out.count("+- n/a") == 2
    assert (
        main(["online-bench", "--quiet", "--dataset", str(tiny_csv), "-a", "pa1", "--runs", "2", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["results"]["pa1"]["mistake_rate_std"] >= 0.0
