"""The window's building blocks: image panels, the ROC plot, the parameter editor and its float
spin box."""

from silkvision.gui.widgets.float_spin import FloatSpinBox
from silkvision.gui.widgets.image_view import ImageView
from silkvision.gui.widgets.param_panel import ParamPanel
from silkvision.gui.widgets.roc_plot import RocPlot

__all__ = ["FloatSpinBox", "ImageView", "ParamPanel", "RocPlot"]
