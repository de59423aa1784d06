"""The live ROC plot (pyqtgraph): one curve per scored detector, an operating point per detector,
and in the legend the AUC, the F-measure of the raw scores at the threshold (``F scores``, the point
on the curve) and the F-measure of the masks as shown, after post-processing (``F mask``).
``F scores ≈`` marks a value read from the ROC histogram's bins (the threshold moved since the last
restart, and its bin holds scores), which can differ from the exact value in the third decimal."""

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
        item.setLabel("bottom", "false positive rate")
        item.setLabel("left", "true positive rate")
        self.set_title("ROC vs ground truth")
        item.showGrid(x=True, y=True, alpha=0.3)
        item.setXRange(0, 1, padding=0.02)
        item.setYRange(0, 1, padding=0.02)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen("k")
            item.getAxis(axis).setTextPen("k")
        self.legend = item.addLegend(offset=(-10, -10), labelTextColor="k", brush=(255, 255, 255, 200))
        # the curves and points (the ViewBox's child group) above the legend: in a small window the
        # legend spans the plot and would hide the operating points, which sit near the left edge.
        # (Lowering the legend instead made a drag on it pan the plot.)
        item.vb.childGroup.setZValue(self.legend.zValue() + 1)
        item.plot([0, 1], [0, 1], pen=pg.mkPen((150, 150, 150), style=pg.QtCore.Qt.DashLine))
        self.curves = {}
        self.points = {}
        for role, colour in COLOURS.items():
            self.curves[role] = item.plot([], [], pen=pg.mkPen(colour, width=2), name=role)
            self.points[role] = item.plot([], [], pen=None, symbol="o", symbolSize=10,
                                          symbolBrush=colour, symbolPen="k")
        self.views: dict[str, RocView] = {}

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
        for role, v in (("silk", silk), ("second", second)):
            curve, point = self.curves[role], self.points[role]
            if v is None:
                curve.setData([], [])
                point.setData([], [])
                continue
            self.views[role] = v
            if v.fpr is not None:
                curve.setData(np.asarray(v.fpr), np.asarray(v.tpr))
            else:
                curve.setData([], [])
            if v.point is not None:
                point.setData([v.point[0]], [v.point[1]])
            else:
                point.setData([], [])
            label = self.legend.getLabel(curve)
            if label is not None:
                label.setText(_label(v))
