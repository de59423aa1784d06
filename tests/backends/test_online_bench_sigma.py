"""online-bench on a user's standardised CSV: the papers' sigma = 8 makes every RBF kernel value
close to 1 there, and the learners no better than a majority guess; a warning says so and suggests
the median distance between examples."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.cli.main import main
from silkvision.cli.online_bench import median_distance


@pytest.fixture
def standardised_csv(tmp_path):
    rng = np.random.default_rng(1)
    n, d = 600, 4
    X = rng.normal(size=(n, d))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] ** 2 - 1 > 0, 1, 0)
    X = (X - X.mean(0)) / X.std(0)
    path = tmp_path / "mine.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",", header="label,a,b,c,d", comments="", fmt="%.6g")
    return path, X, 100.0 * (1 - max(np.mean(y), 1 - np.mean(y)))


def test_median_distance_matches_scipy(rng):
    from scipy.spatial.distance import pdist

    X = rng.normal(size=(300, 5)) + 1e3  # a large common offset must not matter
    assert median_distance(X) == pytest.approx(float(np.median(pdist(X))), rel=1e-6)
    assert median_distance(X[:1]) == 0.0
    big = rng.normal(size=(3000, 2))
    assert median_distance(big, sample=500) == median_distance(big, sample=500)  # seeded


def test_the_papers_sigma_on_a_standardised_csv_gets_a_hint(standardised_csv, capsys):
    path, X, chance = standardised_csv
    assert main(["online-bench", "--dataset", str(path), "-a", "duol,pa1", "--runs", "2", "--quiet"]) == 0
    out, err = capsys.readouterr()
    rates = [float(line.split()[1]) for line in out.splitlines()[2:]]
    assert min(rates) >= chance
    warnings = [ln for ln in err.splitlines() if ln.startswith("silkvision: warning:")]
    m = median_distance(X)
    assert warnings == [
        f"silkvision: warning: duol, pa1: no fewer mistakes than always predicting "
        f"the most frequent class ({chance:.1f} %) with "
        f"the RBF kernel's sigma = 8, which is {8 / m:.3g} times the median distance "
        f"between examples ({m:.3g}); try --set sigma={m:.3g}"
    ]
    # following the hint works: well below chance, and no warning
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(path),
                "-a",
                "duol,pa1",
                "--runs",
                "2",
                "--quiet",
                "--set",
                f"sigma={m:.3g}",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert max(float(line.split()[1]) for line in out.splitlines()[2:]) < 30
    assert "warning" not in err


def test_no_hint_for_a_learner_without_an_rbf_kernel(standardised_csv, capsys):
    path, _, _ = standardised_csv
    assert (
        main(
            [
                "online-bench",
                "--dataset",
                str(path),
                "-a",
                "duol",
                "--runs",
                "1",
                "--quiet",
                "--set",
                "kernel=linear",
            ]
        )
        == 0
    )
    assert "warning" not in capsys.readouterr().err
