"""Matplotlib figures of evaluation results (plain ``Figure`` objects rendered with Agg: no display
and no pyplot state needed).

* :func:`plot_roc` -- ROC curves of every scored detector on one plot, a marker at each detector's
  configured threshold (the raw ``score < threshold`` point, on the curve) and a cross at the
  operating point of its exported masks (after the post-processing: median filter, closing, hole
  filling, as the legend lists); detectors without scores (MOG2,
  KNN, result folders) appear as their single operating point. ``log_fpr=True`` uses a logarithmic
  FPR axis, which shows the low-FPR region the SILK paper's Figure 2 (left) zooms into.
* :func:`plot_pr` -- precision-recall curves, same markers.
* :func:`plot_per_frame_f` -- per-frame F-measure over time with the mean frame brightness, and
  the light-switch events.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np


def _import_matplotlib():
    """matplotlib at WARNING level is silent but for one case: a home whose config folder cannot be
    written (a read-only home, a service user), where it logs two lines on stderr at import and then
    uses a temporary folder, which is all figures need. Those two lines are left out."""
    log = logging.getLogger("matplotlib")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        import matplotlib.backends.backend_agg
        import matplotlib.figure
    finally:
        log.setLevel(level)
    return matplotlib.backends.backend_agg.FigureCanvasAgg, matplotlib.figure.Figure


if TYPE_CHECKING:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
else:
    FigureCanvasAgg, Figure = _import_matplotlib()

from silkvision.errors import DataError
from silkvision.evaluation.cdnet import metrics

__all__ = ["plot_roc", "plot_pr", "plot_per_frame_f", "save_figure"]

_COLOURS = {
    "silk": "tab:red",
    "norma": "tab:blue",
    "mog2": "tab:green",
    "knn": "tab:purple",
    "gsoc": "tab:brown",
    "cnt": "tab:olive",
}
_MIN_FPR = 1e-6


def _colour(name: str, k: int) -> str:
    return _COLOURS.get(name, f"C{(k + 5) % 10}")


def _new_axes(ax, size=(6.4, 4.8)):
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, dpi=100)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def _text(s: str) -> str:
    """``s`` as matplotlib can draw it: a name from a file system that is not UTF-8 (a Latin-1
    folder, or any non-ASCII name under ``LC_ALL=C``) holds lone surrogates, which its text
    engine refuses; they are drawn as U+FFFD."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _undefined(roc) -> str:
    """Why a curve of ``roc`` (a RocAccumulator) is undefined, for a legend."""
    return f"curve undefined ({roc.positives} foreground and {roc.negatives} background pixels evaluated)"


def plot_roc(seq, *, log_fpr: bool = True, ax=None, title: str | None = None) -> Figure:
    """ROC of every algorithm of a :class:`~silkvision.evaluation.runner.SequenceResult`.

    Parameters
    ----------
    seq : SequenceResult
    log_fpr : bool
        Logarithmic FPR axis (from 1e-6, or the smallest positive FPR met).
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
    title : str, optional
    """
    fig, ax = _new_axes(ax)
    items: list = []  # (kind, x, y, style) gathered first so that the log axis limit is known
    fmin = 1.0
    for k, (name, ar) in enumerate(seq.algorithms.items()):
        c = _colour(name, k)
        name = _text(name)
        m = metrics(ar.counts)
        if ar.roc is not None:
            try:
                fpr, tpr, _ = ar.roc.curve()
            except DataError:  # still in the legend, saying why there is no curve
                items.append(([], [], dict(ls="-", color=c, lw=1.5, label=f"{name}: {_undefined(ar.roc)}")))
            else:
                items.append(
                    (fpr, tpr, dict(ls="-", color=c, lw=1.5, label=f"{name} (AUC {ar.roc.auc():.4f})"))
                )
                rc = ar.roc_counts
                if rc is not None:
                    rm = metrics(rc)
                    items.append(
                        (
                            [rm["fpr"]],
                            [rm["recall"]],
                            dict(
                                ls="",
                                marker="o",
                                color=c,
                                ms=6,
                                mfc="none",
                                label=f"{name} threshold {ar.threshold:g} (raw)",
                            ),
                        )
                    )
                pos = fpr[fpr > 0]
                if pos.size:
                    fmin = min(fmin, float(pos.min()))
        defined = np.isfinite(m["fpr"]) and np.isfinite(m["recall"])
        items.append(
            (
                [m["fpr"]] if defined else [],
                [m["recall"]] if defined else [],
                dict(
                    ls="",
                    marker="x" if ar.roc is not None else "s",
                    color=c,
                    ms=8,
                    mew=2,
                    label=f"{name} masks"
                    + (f" ({ar.postprocessing})" if ar.postprocessing else "")
                    + ("" if defined else " (undefined)"),
                ),
            )
        )
        if defined and m["fpr"] > 0:
            fmin = min(fmin, m["fpr"])
    xmin = max(min(fmin, 1e-3) / 2, _MIN_FPR)
    for x, y, style in items:
        x = np.asarray(x, float)
        if log_fpr:  # FPR 0 is drawn at the left edge of the log axis
            x = np.maximum(x, xmin)
        ax.plot(x, y, **style)
    if log_fpr:
        ax.set_xscale("log")
        ax.set_xlim(xmin, 1.0)
    else:
        ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("false positive rate" + (" (log)" if log_fpr else ""))
    ax.set_ylabel("true positive rate (recall)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(_text(title or f"ROC: {seq.name} (frames {seq.first}-{seq.last})"))
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig


def plot_pr(seq, *, ax=None, title: str | None = None) -> Figure:
    """Precision-recall curves (scored detectors) and operating points (all)."""
    fig, ax = _new_axes(ax)
    for k, (name, ar) in enumerate(seq.algorithms.items()):
        c = _colour(name, k)
        name = _text(name)
        m = metrics(ar.counts)
        if ar.roc is not None:
            try:
                p, r, _ = ar.roc.pr_curve()
            except DataError:  # still in the legend, saying why there is no curve
                ax.plot([], [], "-", color=c, lw=1.5, label=f"{name}: {_undefined(ar.roc)}")
            else:
                thr, f = ar.best_f()
                ax.plot(
                    r,
                    p,
                    "-",
                    color=c,
                    lw=1.5,
                    label=f"{name}" + (f" (best raw F {f:.3f} at {thr:.3g})" if f is not None else ""),
                )
                rc = ar.roc_counts
                if rc is not None:
                    rm = metrics(rc)
                    ax.plot(
                        [rm["recall"]],
                        [rm["precision"]],
                        "o",
                        color=c,
                        ms=6,
                        mfc="none",
                        label=f"{name} threshold {ar.threshold:g} (raw)",
                    )
        f_text = f"{m['f_measure']:.3f}" if np.isfinite(m["f_measure"]) else "-"
        ax.plot(
            [m["recall"]],
            [m["precision"]],
            "x" if ar.roc is not None else "s",
            color=c,
            ms=8,
            mew=2,
            label=f"{name} masks (F {f_text})",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.grid(True, alpha=0.3)
    ax.set_title(_text(title or f"Precision-recall: {seq.name}"))
    ax.legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    return fig


def plot_per_frame_f(seq, *, events=None, title: str | None = None, smooth: int = 1) -> Figure:
    """Per-frame F-measure of every algorithm over the evaluated frames, the mean grey level of the
    frames the detectors saw (right axis) and light-switch events (vertical lines).

    ``smooth`` > 1 draws a centred moving average over that many frames (undefined frames skipped),
    or over all of them when fewer were evaluated.
    """
    fig = Figure(figsize=(9, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for k, (name, ar) in enumerate(seq.algorithms.items()):
        colour, name = _colour(name, k), _text(name)
        f = ar.per_frame_f()
        width = min(smooth, len(f))  # np.convolve's "same" is as long as the longer input
        if width > 1:
            ok = np.isfinite(f)
            kern = np.ones(width)
            num = np.convolve(np.where(ok, f, 0.0), kern, "same")
            den = np.convolve(ok.astype(float), kern, "same")
            f = np.where(den > 0, num / np.maximum(den, 1), np.nan)
        ax.plot(ar.frame_indices, f, "-", color=colour, lw=1, label=name)
    ax.set_ylim(0, 1.0)
    ax.set_xlabel("frame")
    ax.set_ylabel("per-frame F-measure" + (f" ({smooth}-frame mean)" if smooth > 1 else ""))
    if seq.brightness is not None and len(seq.brightness):
        ax2 = ax.twinx()
        ax2.plot(seq.brightness_indices, seq.brightness, "-", color="0.6", lw=0.8)
        ax2.set_ylabel("mean grey level of the input", color="0.45")
        ax2.set_ylim(0, 255)
        ax.set_zorder(ax2.get_zorder() + 1)
        ax.patch.set_visible(False)
    for e in events or ():
        ax.axvline(e["frame"], color="k", ls="--", lw=0.8)
    pad = 0.5 if seq.first == seq.last else 0.0  # one frame: an empty range warns and is widened
    ax.set_xlim(seq.first - pad, seq.last + pad)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8, ncol=4)
    ax.set_title(_text(title or f"Per-frame F-measure: {seq.name}"))
    fig.tight_layout()
    return fig


def save_figure(fig: Figure, path) -> Path:
    """Save ``fig`` as PNG atomically."""
    from silkvision.io.atomic import atomic_write_with

    path = Path(path)
    atomic_write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=fig.dpi), suffix=".png")
    return path
