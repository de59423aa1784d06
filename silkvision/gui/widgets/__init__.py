"""The window's building blocks: image panels, the ROC plot and the parameter editor."""

from silkvision.gui.widgets.image_view import ImageView
from silkvision.gui.widgets.param_panel import ParamPanel
from silkvision.gui.widgets.roc_plot import RocPlot

__all__ = ["ImageView", "ParamPanel", "RocPlot"]
