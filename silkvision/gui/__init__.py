"""Desktop GUI (PyQt5 + pyqtgraph): live foreground masks and a live ROC on a webcam, a video file,
an image folder or a CDnet sequence.

All Qt code of silkvision lives in this package; the detectors, capture and evaluation never import
Qt. Start it with ``silkvision gui [SOURCE]``. Layout:

- :mod:`.pipeline` (no Qt): source + SILK + second algorithm + live ROC + recording, frame by frame;
- :mod:`.worker`: runs the pipeline in a QThread, results by signal;
- :mod:`.main_window`: the window; :mod:`.widgets`: image panels, ROC plot, parameter panel;
- :mod:`.app`: QApplication and :func:`run_gui`.
"""

from silkvision.gui.app import main, run_gui

__all__ = ["main", "run_gui"]
