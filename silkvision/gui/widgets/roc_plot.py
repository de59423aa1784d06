"""The live ROC plot (pyqtgraph): one curve per scored detector, an operating point per detector,
and in the legend the AUC, the F-measure of the raw scores at the threshold (``F scores``, the point
on the curve) and the F-measure of the masks as shown, after post-processing (``F mask``).
``F scores ≈`` marks a value read from the ROC histogram's bins (the threshold moved since the last
restart, and its bin holds scores), which can differ from the exact value in the third decimal.

The false-positive-rate axis is logarithmic by default, as in ``silkvision evaluate``'s figures:
a background subtractor works at FPRs of 1e-3 to 1e-2, which a linear axis squeezes against the
y-axis. :meth:`RocPlot.set_log_fpr` switches to the linear axis (the whole curve at even scale)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from silkvision.gui.pipeline import RocView

__all__ = ["RocPlot"]

COLOURS = {"silk": (214, 39, 40), "second": (31, 119, 180)}
#: between the parts of a legend entry (the legend is HTML, which collapses plain spaces)
SEP = "&nbsp;&nbsp;&nbsp;"
#: the plot's minimum width: its axes, title and two-line legend fit without being cut
MIN_WIDTH = 330
#: Smallest FPR the log axis shows (as ``silkvision evaluate``'s figures); FPR 0 is drawn there.
MIN_FPR = 1e-6


def log_floor(views) -> float:
    """Left end of the log FPR axis for ``views`` (RocViews): half the smallest positive FPR of
    their curves and points, or of 1e-3 if that is smaller, and at least :data:`MIN_FPR` (the rule
    of ``silkvision evaluate``'s figures)."""
    fmin = 1.0
    for v in views:
        xs = [] if v.fpr is None else [np.asarray(v.fpr, float)]
        if v.point is not None:
            xs.append(np.asarray([v.point[0]], float))
        for x in xs:
            pos = x[x > 0]
            if pos.size:
                fmin = min(fmin, float(pos.min()))
    return max(min(fmin, 1e-3) / 2, MIN_FPR)


def _label(v: RocView) -> str:
    """The legend entry: name and AUC on one line, the two F-measures (or a note) on the next, so
    that the legend fits a narrow plot (on one line it needed 364 px and was cut at 1024x768)."""
    first = [v.name.upper()]
    if v.auc is not None:
        first.append(f"AUC {v.auc:.3f}")
    second = []
    if v.f_measure is not None:
        second.append(f"F scores {'' if v.exact else '≈'}{v.f_measure:.3f}")
    if v.mask_f_measure is not None:
        second.append(f"F mask {v.mask_f_measure:.3f}")
    if v.note:
        second.append(f"({v.note})")
    return SEP.join(first) + ("<br>" + SEP.join(second) if second else "")


class RocPlot(pg.PlotWidget):
    """ROC curves of SILK and the second algorithm, accumulated over the processed frames."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.setMinimumSize(MIN_WIDTH, 200)
        item = self.getPlotItem()
        item.setLabel("left", "true positive rate")
        self.set_title("ROC vs ground truth")
        item.showGrid(x=True, y=True, alpha=0.3)
        item.setYRange(0, 1, padding=0.02)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen("k")
            item.getAxis(axis).setTextPen("k")
        self.legend = item.addLegend(offset=(-10, -10), labelTextColor="k", brush=(255, 255, 255, 200))
        # the curves and points (the ViewBox's child group) above the legend: in a small window the
        # legend spans the plot and would hide the operating points, which sit near the left edge.
        # (Lowering the legend instead made a drag on it pan the plot.)
        item.vb.childGroup.setZValue(self.legend.zValue() + 1)
        self.diagonal = item.plot([0, 1], [0, 1], pen=pg.mkPen((150, 150, 150), style=pg.QtCore.Qt.DashLine))
        self.curves = {}
        self.points = {}
        for role, colour in COLOURS.items():
            self.curves[role] = item.plot([], [], pen=pg.mkPen(colour, width=2), name=role)
            self.points[role] = item.plot(
                [], [], pen=None, symbol="o", symbolSize=10, symbolBrush=colour, symbolPen="k"
            )
        self.views: dict[str, RocView] = {}
        self._shown: dict[str, RocView | None] = {}  # what each role's curve and point draw
        self.log_fpr = False
        self.set_log_fpr(True)

    def set_log_fpr(self, on: bool) -> None:
        """Logarithmic (True) or linear false-positive-rate axis; the curves are redrawn."""
        self.log_fpr = bool(on)
        item = self.getPlotItem()
        item.setLogMode(x=self.log_fpr, y=False)
        item.setLabel("bottom", "false positive rate" + (" (log)" if self.log_fpr else ""))
        self._redraw()

    def fpr_range(self) -> tuple[float, float]:
        """The FPRs at the left and right ends of the x-axis as drawn now."""
        lo, hi = self.getPlotItem().vb.viewRange()[0]
        return (10**lo, 10**hi) if self.log_fpr else (lo, hi)

    def _redraw(self) -> None:
        """Draw the curves, points and diagonal of :attr:`_shown` on the current axis: on the log
        axis an FPR below its left end (FPR 0) is drawn at that end."""
        item = self.getPlotItem()
        if self.log_fpr:
            lo = log_floor(v for v in self._shown.values() if v is not None)
            diag = np.logspace(np.log10(lo), 0, 50)
            self.diagonal.setData(diag, diag)
            item.setXRange(np.log10(lo), 0, padding=0.02)
        else:
            lo = 0.0
            self.diagonal.setData([0, 1], [0, 1])
            item.setXRange(0, 1, padding=0.02)
        for role in COLOURS:
            v = self._shown.get(role)
            curve, point = self.curves[role], self.points[role]
            if v is None or v.fpr is None:
                curve.setData([], [])
            else:
                curve.setData(np.maximum(np.asarray(v.fpr, float), lo), np.asarray(v.tpr, float))
            if v is None or v.point is None:
                point.setData([], [])
            else:
                point.setData([max(v.point[0], lo)], [v.point[1]])

    def release(self) -> None:
        """Unhook the legend from its anchor before the plot is destroyed.

        pyqtgraph keeps the legend in its corner with a slot on the legend's and the ViewBox's
        ``geometryChanged``; if the legend is resized while the ViewBox is being deleted, that slot
        raises ``RuntimeError: wrapped C/C++ object of type ViewBox has been deleted``. The legend
        no longer follows resizes afterwards, so call this only on the way out.
        """
        # the slot is private to pyqtgraph's GraphicsWidgetAnchor: tolerate its absence
        slot = getattr(self.legend, "_GraphicsWidgetAnchor__geometryChanged", None)
        if slot is None:
            return
        for signal in (self.legend.geometryChanged, self.getPlotItem().vb.geometryChanged):
            try:
                signal.disconnect(slot)
            except (TypeError, RuntimeError):  # not connected, or already deleted
                pass

    def set_title(self, text: str) -> None:
        self.getPlotItem().setTitle(text, color="k", size="11pt")

    def clear_views(self, names: dict[str, str], note: str = "") -> None:
        """Empty plot for a new source or restarted detectors: no curves, no points, a legend
        without values naming each detector by ``names[role]`` (else its role), with ``note``
        after the name (e.g. "no ground truth"). The caller sets the title."""
        self.set_views(*(RocView(names.get(r, r), note=note) for r in ("silk", "second")))
        self.views = {}

    def set_views(self, silk: RocView | None, second: RocView | None) -> None:
        """Draw the curves/points of the two detectors (``None`` clears one)."""
        self._shown = {"silk": silk, "second": second}
        self._redraw()
        for role, v in self._shown.items():
            if v is None:
                continue
            self.views[role] = v
            label = self.legend.getLabel(self.curves[role])
            if label is not None:
                label.setText(_label(v))
