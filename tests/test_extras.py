"""A command that needs an optional extra which is not installed stops in one line naming the pip
command, before it does any work; the core install covers the rest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from silkvision.cli.main import main
from silkvision.extras import EXTRAS, MissingExtraError, missing, require

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_extras_match_pyproject():
    """Every extra named in :data:`EXTRAS` is one of pyproject's, and installs those modules."""
    import tomllib

    optional = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        names = [d.split(">")[0].split("[")[0].split("=")[0].strip().lower() for d in optional[extra]]
        assert names == [m.lower() for m in modules], extra
    assert "silkvision[gui,figures,cluster,docs,lint]" in optional["dev"]


def test_core_dependencies_are_headless():
    import tomllib

    core = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].strip().lower() for d in core}
    assert not names & {"pyqt5", "pyqtgraph", "matplotlib", "dask", "distributed"}
    assert {"numpy", "numba", "opencv-python-headless"} <= names


def test_require_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    assert missing("figures") == ["matplotlib"]
    with pytest.raises(MissingExtraError) as e:
        require("figures", "writing evaluate's figures", "or pass --no-figures")
    assert str(e.value) == (
        "writing evaluate's figures needs matplotlib, not installed here; install with: "
        'pip install "silkvision[figures]", or pass --no-figures'
    )


def test_evaluate_without_matplotlib_stops_before_any_work(monkeypatch, tmp_path, capsys, sample_seq):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "eval"
    assert main(["evaluate", str(sample_seq), "-a", "mog2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "silkvision[figures]"' in err and "--no-figures" in err
    assert not out.exists()


def test_evaluate_no_figures_needs_no_matplotlib(tmp_path):
    """The headless core evaluates: matplotlib is never imported with --no-figures."""
    seq = Path(__file__).resolve().parents[1] / "samples" / "highway"
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from silkvision.cli.main import main\n"
        f"rc = main(['evaluate', {str(seq)!r}, '-a', 'mog2', '--no-figures', '--out', {str(tmp_path)!r}])\n"
        "sys.exit(rc)"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "metrics.json").is_file()


def test_batch_without_dask_names_the_cluster_extra(monkeypatch, tmp_path, capsys, sample_seq):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    out = tmp_path / "batch"
    assert main(["batch", str(sample_seq), "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "silkvision[cluster]"' in err
