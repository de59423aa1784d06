"""Tables, JSON and CSV of evaluation results.

The JSON object (``silkvision evaluate --json`` and ``metrics.json``) is::

    {"sequences": {SEQ: {ALGO: ROW}},
     "categories": {CATEGORY: {ALGO: MEAN_ROW}},
     "mean": {ALGO: MEAN_ROW},
     "light_switch": {SEQ: {ALGO: [EVENT, ...]}}          # only with light switches
     "info": {SEQ: {"path", "category", "first", "last", "frames", "light_switches"}}}

(``info``'s ``frames``: frames the detectors read, warm-up included; 0 when only ``--results`` masks
were scored. The evaluated frames are each ROW's ``frames``.)

``ROW`` has ``tp, fp, fn, tn, recall, specificity, fpr, fnr, pwc, precision, f_measure, auc`` (null
without scores), ``threshold`` (null without scores), ``best_f``, ``best_f_threshold`` (from the ROC;
null without scores), ``median``, ``frames`` (evaluated frames), ``close`` and ``fill_holes`` (with
``median``, the post-processing of the masks: median filter size, closing size, hole filling; null
when unknown, e.g. for ``--results`` masks; the last two were added after ``frames``, so that older
columns keep their places). Undefined metrics (``nan``) are ``null``.

``MEAN_ROW`` follows CDnet's ``Stats.py``: per category, metrics (and ``auc``, ``best_f``) are means
of the sequences' values and counts are sums; ``mean`` is the mean of the category means (counts
summed). A sequence without any scored pixel (all its ground truth ignored or outside the ROI, so
all its metrics are ``null``) is left out of the means, which are over the other sequences:
``n_sequences`` says how many sequences went in, ``left_out`` names those left out (``silkvision
evaluate`` also warns), ``n_categories`` (overall mean) how many categories went in. Among the
sequences that go in, a metric undefined in one of them (e.g. ``precision`` when nothing was
detected) makes that mean ``null``, rather than a mean over a subset.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from silkvision.evaluation.cdnet import METRIC_NAMES, has_scored_pixels, mean_metrics

__all__ = ["build_report", "format_table", "format_markdown", "write_json", "write_csv", "jsonable"]

ROW_KEYS = (
    "tp",
    "fp",
    "fn",
    "tn",
    *METRIC_NAMES,
    "auc",
    "threshold",
    "best_f",
    "best_f_threshold",
    "median",
    "frames",
    "close",
    "fill_holes",
)


def jsonable(x):
    """Replace nan/inf by None and numpy scalars by Python numbers, recursively."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def build_report(results: Sequence, light_switch: Mapping | None = None) -> dict:
    """The JSON-ready report of several :class:`~silkvision.evaluation.runner.SequenceResult`.

    Parameters
    ----------
    results : sequence of SequenceResult
    light_switch : mapping, optional
        ``{SEQ: {ALGO: [event dicts]}}`` from :func:`~silkvision.evaluation.light_switch.recovery_report`.
    """
    sequences: dict = {}
    info: dict = {}
    by_cat: dict = {}
    algos: list[str] = []
    for r in results:
        rows = {a: ar.row() for a, ar in r.algorithms.items()}
        sequences[r.name] = rows
        info[r.name] = {
            "path": r.path,
            "category": r.category,
            "first": r.first,
            "last": r.last,
            "frames": r.frames,
            "light_switches": [str(s) for s in r.light_switches],
        }
        by_cat.setdefault(r.category, []).append(r.name)
        for a in rows:
            if a not in algos:
                algos.append(a)
    categories: dict = {}
    for cat, names in by_cat.items():
        categories[cat] = {}
        for a in algos:
            named = {n: sequences[n][a] for n in names if a in sequences[n]}
            if named:
                m = mean_metrics(named.values())
                m["left_out"] = [n for n, row in named.items() if not has_scored_pixels(row)]
                categories[cat][a] = m
    mean: dict = {}
    for a in algos:
        cat_rows = [categories[c][a] for c in categories if a in categories[c]]
        if cat_rows:
            m = mean_metrics(cat_rows)
            m["n_categories"] = sum(1 for r in cat_rows if has_scored_pixels(r))
            m["left_out"] = [n for r in cat_rows for n in r["left_out"]]
            mean[a] = m
    out = {"sequences": sequences, "categories": categories, "mean": mean}
    if light_switch:
        out["light_switch"] = dict(light_switch)
    out["info"] = info
    return jsonable(out)


def _fmt(v, digits=4) -> str:
    if v is None:
        return "-"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}f}"


_TABLE_COLS = [
    ("recall", "Recall", 4),
    ("specificity", "Spec", 4),
    ("fpr", "FPR", 5),
    ("fnr", "FNR", 4),
    ("pwc", "PWC", 3),
    ("precision", "Prec", 4),
    ("f_measure", "F", 4),
    ("auc", "AUC", 4),
    ("threshold", "thr", 3),
]


def _table_rows(report: Mapping):
    for seq, algos in report["sequences"].items():
        for a, row in algos.items():
            yield seq, a, row
    if len(report["sequences"]) > 1:
        if len(report.get("categories", {})) > 1:
            for cat, algos in report["categories"].items():
                for a, row in algos.items():
                    yield f"[{cat}]", a, row
        for a, row in report["mean"].items():
            yield "mean", a, row


def format_table(report: Mapping) -> str:
    """Plain-text table: one row per sequence and algorithm, then category means and the overall
    mean (several sequences)."""
    head = ["sequence", "algorithm"] + [h for _, h, _ in _TABLE_COLS]
    lines = [head]
    for seq, a, row in _table_rows(report):
        lines.append([seq, a] + [_fmt(row.get(k), d) for k, _, d in _TABLE_COLS])
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    out = []
    for j, r in enumerate(lines):
        out.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if j == 0:
            out.append("-" * len(out[0]))
    return "\n".join(out)


def format_markdown(report: Mapping, keys=("f_measure", "pwc", "auc")) -> str:
    """Markdown table, one row per sequence (and the mean), one column group per algorithm."""
    names = {"f_measure": "F", "pwc": "PWC", "auc": "AUC", "recall": "Re", "precision": "Pr"}
    algos = list(report["mean"]) or sorted({a for s in report["sequences"].values() for a in s})
    head = ["sequence"] + [f"{a} {names.get(k, k)}" for a in algos for k in keys]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows = list(report["sequences"].items())
    if len(rows) > 1:
        rows.append(("**mean**", report["mean"]))
    for seq, algos_rows in rows:
        cells = [seq]
        for a in algos:
            row = algos_rows.get(a, {})
            for k in keys:
                cells.append(_fmt(row.get(k), 3 if k == "pwc" else 4))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_json(report: Mapping, path) -> Path:
    """Write ``metrics.json`` atomically."""
    from silkvision.io.atomic import atomic_write_text

    return atomic_write_text(Path(path), json.dumps(jsonable(report), indent=2) + "\n")


def write_csv(report: Mapping, path) -> Path:
    """Write ``metrics.csv`` atomically: one row per sequence and algorithm, then category means
    (``sequence`` = ``category:NAME``) and the overall mean (``sequence`` = ``mean``)."""
    from silkvision.io.atomic import atomic_write_text

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["sequence", "category", "algorithm", *ROW_KEYS])
    info = report.get("info", {})
    for seq, algos in report["sequences"].items():
        for a, row in algos.items():
            w.writerow(
                [
                    seq,
                    info.get(seq, {}).get("category", ""),
                    a,
                    *("" if row.get(k) is None else row.get(k) for k in ROW_KEYS),
                ]
            )
    for cat, algos in report.get("categories", {}).items():
        for a, row in algos.items():
            w.writerow(
                [f"category:{cat}", cat, a, *("" if row.get(k) is None else row.get(k) for k in ROW_KEYS)]
            )
    for a, row in report.get("mean", {}).items():
        w.writerow(["mean", "", a, *("" if row.get(k) is None else row.get(k) for k in ROW_KEYS)])
    return atomic_write_text(Path(path), buf.getvalue())
