"""Evaluation against ground truth: CDnet2014 confusion counts and metrics, ROC/PR curves from the
detectors' real per-pixel scores, runs over whole sequences, light-switch robustness, reports.

>>> from silkvision.evaluation import Counts, confusion_counts, metrics, RocAccumulator
>>> from silkvision.evaluation import evaluate_sequence, score_results

Library first: the GUI's live ROC uses :class:`RocAccumulator` (``roc.update(det.scores, gt, roi)``
once per frame: one ``np.bincount``), the ``silkvision evaluate`` command is built on
:func:`evaluate_sequence` / :func:`score_results` and :mod:`silkvision.evaluation.report`.
Figures (:mod:`silkvision.evaluation.plots`) are imported on demand (matplotlib).
"""

from silkvision.evaluation.cdnet import Counts, confusion_counts, mean_metrics, metrics
from silkvision.evaluation.light_switch import LightSwitch, recovery_report
from silkvision.evaluation.roc import RocAccumulator
from silkvision.evaluation.runner import AlgorithmResult, SequenceResult, evaluate_sequence, score_results

__all__ = [
    "Counts",
    "confusion_counts",
    "metrics",
    "mean_metrics",
    "RocAccumulator",
    "evaluate_sequence",
    "score_results",
    "AlgorithmResult",
    "SequenceResult",
    "LightSwitch",
    "recovery_report",
]
