"""The live ROC plot drawn at its minimum size: the legend must not hide the operating points."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.gui.pipeline import RocView


@pytest.mark.parametrize("log_fpr", [True, False])
@pytest.mark.parametrize("where", [0.05, 0.5])
def test_operating_points_are_drawn_over_the_legend_at_the_minimum_size(qtbot, where, log_fpr):
    """At the minimum width the two-line legend spans most of the plot; a background subtractor's
    operating points sit at a false-positive rate near 0, where the legend's left part is. The
    points (and curves) must be drawn over it, not under its opaque-ish box."""
    from PyQt5.QtCore import QPointF

    from silkvision.gui.widgets.roc_plot import COLOURS, MIN_WIDTH, RocPlot

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.set_log_fpr(log_fpr)
    plot.resize(MIN_WIDTH, 200)
    plot.show()
    qtbot.waitExposed(plot)
    curve = dict(frames=10, fpr=np.array([0.0, 0.0, 1.0]), tpr=np.array([0.0, 1.0, 1.0]))
    norma = RocView("norma", **curve, auc=0.984, point=(0.9, 1.0), f_measure=0.239, mask_f_measure=0.296)
    plot.set_views(
        RocView("silk", **curve, auc=0.942, point=(0.5, 0.5), f_measure=0.471, mask_f_measure=0.682), norma
    )
    qtbot.wait(50)  # the legend takes its size and corner
    vb = plot.getPlotItem().vb
    legend = plot.legend.sceneBoundingRect()
    # a point under the legend's left part (where = 0.05) or its middle, vertically centred
    scene = QPointF(legend.left() + where * legend.width(), legend.center().y())
    point = vb.mapSceneToView(scene)
    fpr = 10 ** point.x() if log_fpr else point.x()  # the view holds log10(FPR) on the log axis
    assert 0 < fpr < 1 and 0 < point.y() < 1
    plot.set_views(
        RocView("silk", **curve, auc=0.942, point=(fpr, point.y()), f_measure=0.471, mask_f_measure=0.682),
        norma,
    )
    qtbot.wait(50)
    centre = plot.mapFromScene(scene)
    image = plot.grab().toImage()
    colour = image.pixelColor(centre.x(), centre.y())
    assert np.abs(np.subtract(colour.getRgb()[:3], COLOURS["silk"])).max() <= 40, colour.getRgb()


def test_the_legend_can_still_be_dragged(qtbot):
    """Drawing the curves over the legend must not turn a drag on the legend into a pan of the plot
    (a legend lowered under the plot's items lost its mouse events to the ViewBox)."""
    from PyQt5 import QtCore, QtGui

    from silkvision.gui.widgets.roc_plot import RocPlot

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    qtbot.waitExposed(plot)
    curve = dict(frames=10, fpr=np.array([0.0, 0.0, 1.0]), tpr=np.array([0.0, 1.0, 1.0]))
    plot.set_views(
        RocView("silk", **curve, auc=0.9, point=(0.1, 0.9), f_measure=0.4, mask_f_measure=0.6),
        RocView("norma", **curve, auc=0.9, point=(0.1, 0.9), f_measure=0.4, mask_f_measure=0.6),
    )
    qtbot.wait(50)
    vb = plot.getPlotItem().vb
    rect = plot.legend.sceneBoundingRect()
    start = plot.mapFromScene(QtCore.QPointF(rect.right() - 15, rect.top() + 8))
    pos0, range0 = plot.legend.pos(), vb.viewRange()

    def send(kind, at, buttons):
        event = QtGui.QMouseEvent(
            kind, QtCore.QPointF(at), QtCore.Qt.LeftButton, buttons, QtCore.Qt.NoModifier
        )
        QtGui.QGuiApplication.sendEvent(plot.viewport(), event)
        qtbot.wait(1)

    send(QtCore.QEvent.MouseButtonPress, start, QtCore.Qt.LeftButton)
    for i in range(1, 11):
        send(QtCore.QEvent.MouseMove, start + QtCore.QPoint(-8 * i, 6 * i), QtCore.Qt.LeftButton)
    send(QtCore.QEvent.MouseButtonRelease, start + QtCore.QPoint(-80, 60), QtCore.Qt.NoButton)
    assert plot.legend.pos() != pos0
    np.testing.assert_allclose(vb.viewRange(), range0)


def test_the_log_axis_spreads_the_operating_points_and_the_linear_one_shows_the_whole_curve(qtbot):
    """On the linear axis an operating point at FPR 0.002 sits on the y-axis (within a pixel or two
    of FPR 0); on the log axis it is far from the left end, and FPR 0 is drawn at that end."""
    from silkvision.gui.widgets.roc_plot import MIN_FPR, RocPlot, log_floor

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    qtbot.waitExposed(plot)
    fpr = np.array([0.0, 1e-4, 2e-3, 0.05, 1.0])
    view = RocView(
        "silk", frames=10, fpr=fpr, tpr=np.array([0.0, 0.2, 0.5, 0.9, 1.0]), auc=0.9, point=(2e-3, 0.5)
    )
    plot.set_views(view, None)
    assert plot.log_fpr and "(log)" in plot.getPlotItem().getAxis("bottom").labelText
    from PyQt5.QtCore import QPointF

    vb = plot.getPlotItem().vb

    def pixels_from_left(x_view):
        return vb.mapViewToScene(QPointF(x_view, 0.5)).x() - vb.sceneBoundingRect().left()

    lo, hi = plot.fpr_range()
    assert lo < 0.5e-4 and hi >= 1.0  # from below the smallest FPR to 1
    assert log_floor([view]) == 0.5e-4 and log_floor([RocView("x")]) == 0.5e-3
    assert log_floor([RocView("x", fpr=np.array([0.0, 1e-9]), tpr=np.array([0, 1]))]) == MIN_FPR
    x_point = plot.points["silk"].getData()[0][0]  # log10 of the point's FPR
    assert x_point == pytest.approx(np.log10(2e-3))
    assert pixels_from_left(x_point) > 0.3 * vb.width()
    # FPR 0 at the left end of the axis, not dropped
    assert plot.curves["silk"].getData()[0][0] == pytest.approx(np.log10(log_floor([view])))
    plot.set_log_fpr(False)
    assert plot.fpr_range()[0] <= 0 and plot.fpr_range()[1] >= 1  # the whole curve
    x_point = plot.points["silk"].getData()[0][0]
    assert x_point == pytest.approx(2e-3) and pixels_from_left(x_point) < 0.05 * vb.width()
    assert plot.getPlotItem().getAxis("bottom").labelText == "false positive rate"
