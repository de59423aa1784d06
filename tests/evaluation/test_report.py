"""The report's means (a sequence without scored pixels is left out, not the whole mean) and the
figures' labels of the masks' post-processing."""

import json

import numpy as np

from silkvision.evaluation import Counts
from silkvision.evaluation.plots import plot_roc
from silkvision.evaluation.report import build_report, write_csv
from silkvision.evaluation.runner import AlgorithmResult, SequenceResult


def _sequence(name: str, category: str, counts: Counts) -> SequenceResult:
    idx = np.arange(1, 3)
    per_frame = np.array([counts.as_array(), np.zeros(4, np.int64)])
    ar = AlgorithmResult("mog2", counts, idx, per_frame, median=5, close=5, fill_holes=True)
    return SequenceResult(name=name, path=name, category=category, first=1, last=2, frames=2,
                          evaluated=idx, algorithms={"mog2": ar})


def test_a_sequence_without_scored_pixels_is_left_out_of_the_means_not_the_means_lost(tmp_path):
    rep = build_report([_sequence("dark", "a", Counts()), _sequence("lit", "b", Counts(10, 10, 10, 70)),
                        _sequence("lit2", "b", Counts(10, 0, 0, 90))])
    json.dumps(rep, allow_nan=False)   # strict JSON: null, never NaN
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
