"""The report's means (a sequence without scored pixels is left out, not the whole mean) and the
figures' labels of the masks' post-processing."""

import json

import numpy as np
import pytest

from silkvision.evaluation import Counts
from silkvision.evaluation.plots import plot_roc
from silkvision.evaluation.report import build_report, write_csv
from silkvision.evaluation.runner import AlgorithmResult, SequenceResult


def _sequence(name: str, category: str, counts: Counts) -> SequenceResult:
    idx = np.arange(1, 3)
    per_frame = np.array([counts.as_array(), np.zeros(4, np.int64)])
    ar = AlgorithmResult("mog2", counts, idx, per_frame, median=5, close=5, fill_holes=True)
    return SequenceResult(
        name=name,
        path=name,
        category=category,
        first=1,
        last=2,
        frames=2,
        evaluated=idx,
        algorithms={"mog2": ar},
    )


def test_a_sequence_without_scored_pixels_is_left_out_of_the_means_not_the_means_lost(tmp_path):
    rep = build_report(
        [
            _sequence("dark", "a", Counts()),
            _sequence("lit", "b", Counts(10, 10, 10, 70)),
            _sequence("lit2", "b", Counts(10, 0, 0, 90)),
        ]
    )
    json.dumps(rep, allow_nan=False)  # strict JSON: null, never NaN
    assert rep["sequences"]["dark"]["mog2"]["f_measure"] is None
    cat_a, cat_b = rep["categories"]["a"]["mog2"], rep["categories"]["b"]["mog2"]
    assert cat_a["f_measure"] is None and cat_a["n_sequences"] == 0 and cat_a["left_out"] == ["dark"]
    assert cat_b["f_measure"] == 0.75 and cat_b["n_sequences"] == 2 and cat_b["left_out"] == []
    mean = rep["mean"]["mog2"]
    assert mean["f_measure"] == 0.75 and mean["n_sequences"] == 2 and mean["n_categories"] == 1
    assert mean["left_out"] == ["dark"] and mean["tp"] == 20
    write_csv(rep, tmp_path / "m.csv")
    head, *rows = (tmp_path / "m.csv").read_text().splitlines()
    assert head.endswith(",median,frames,close,fill_holes")  # new columns last
    assert rows[-1].startswith("mean,,mog2,20,")


def test_roc_legend_names_the_whole_post_processing_of_the_masks():
    fig = plot_roc(_sequence("lit", "b", Counts(10, 10, 10, 70)))
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["mog2 masks (median 5, closing 5, hole filling)"]


def test_a_detector_without_a_defined_curve_stays_in_the_legends_saying_why():
    """A sequence without foreground: the scored detector used to vanish from the ROC and PR
    figures without a word, and the masks' F read "F nan"."""
    import warnings

    from silkvision.evaluation import RocAccumulator
    from silkvision.evaluation.plots import plot_pr

    seq = _sequence("empty", "a", Counts(0, 0, 0, 100))  # mog2: nothing detected, F undefined
    roc = RocAccumulator(0.0, 1.0, bins=16, thresholds=(0.5,))
    roc.update(np.full((10, 10), 0.7, np.float32), np.zeros((10, 10), np.uint8))
    seq.algorithms["silk"] = AlgorithmResult(
        "silk",
        Counts(0, 5, 0, 95),
        seq.evaluated,
        seq.algorithms["mog2"].frame_counts,
        roc=roc,
        threshold=0.5,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_fig, pr_fig = plot_roc(seq), plot_pr(seq)
    roc_labels = [t.get_text() for t in roc_fig.axes[0].get_legend().get_texts()]
    pr_labels = [t.get_text() for t in pr_fig.axes[0].get_legend().get_texts()]
    why = "silk: curve undefined (0 foreground and 100 background pixels evaluated)"
    assert why in roc_labels and why in pr_labels
    assert "silk masks (undefined)" in roc_labels
    assert "mog2 masks (F -)" in pr_labels and not any("nan" in t for t in roc_labels + pr_labels)


@pytest.mark.slow
def test_a_home_matplotlib_cannot_write_to_gives_no_stderr_lines(tmp_path):
    """matplotlib logs two lines on stderr when it cannot make its config folder (a read-only home)
    and uses a temporary one; silkvision's own messages are the only lines its commands print."""
    import os
    import subprocess
    import sys

    home = tmp_path / "not-a-folder"
    home.write_text("")
    env = {
        k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
    }
    env["HOME"] = str(home)
    run = subprocess.run(
        [sys.executable, "-c", "import silkvision.evaluation.plots"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and run.stderr == ""
