"""An image panel with a title, drawn scaled to fit while keeping its aspect ratio, and the small
NumPy helpers that turn masks and scores into displayable images."""

from __future__ import annotations

import cv2
import numpy as np
from PyQt5.QtCore import QRect, QSize, Qt
from PyQt5.QtGui import QImage, QPainter
from PyQt5.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

__all__ = ["ImageView", "to_qimage", "heat_map", "overlay", "draw_boxes"]


def to_qimage(img: np.ndarray) -> QImage:
    """QImage (owning a copy) of an HxW grey or HxWx3 BGR uint8 array."""
    img = np.ascontiguousarray(img)
    h, w = img.shape[:2]
    if img.ndim == 2:
        return QImage(img.data, w, h, img.strides[0], QImage.Format_Grayscale8).copy()
    rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    return QImage(rgb.data, w, h, rgb.strides[0], QImage.Format_RGB888).copy()


def heat_map(scores: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """BGR heat map of scores in [lo, hi]: low scores (novel, foreground) bright, high dark."""
    span = max(hi - lo, 1e-12)
    novelty = np.clip((hi - scores) / span, 0.0, 1.0)
    return cv2.applyColorMap((novelty * 255).astype(np.uint8), cv2.COLORMAP_INFERNO)


def overlay(frame: np.ndarray, mask: np.ndarray, colour=(0, 0, 255), alpha: float = 0.5) -> np.ndarray:
    """``frame`` (BGR) with the foreground of ``mask`` tinted by ``colour`` (BGR)."""
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    out = frame.copy()
    fg = mask > 0
    out[fg] = (frame[fg] * (1 - alpha) + np.asarray(colour, float) * alpha).astype(np.uint8)
    return out


def draw_boxes(frame: np.ndarray, regions, colour=(0, 255, 0)) -> np.ndarray:
    """A BGR copy of ``frame`` with the bounding box of each region (:class:`silkvision.objects.Region`)
    drawn in ``colour`` (BGR), one pixel wide, around the region's pixels."""
    out = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy()
    for r in regions:
        cv2.rectangle(out, (r.x, r.y), (r.x + r.width - 1, r.y + r.height - 1), colour, 1)
    return out


class _Canvas(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.image: QImage | None = None
        self.placeholder = ""
        self.setMinimumSize(120, 90)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(320, 240)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        if self.image is None:
            p.fillRect(self.rect(), Qt.darkGray)
            p.setPen(Qt.white)
            p.drawText(self.rect(), Qt.AlignCenter | Qt.TextWordWrap, self.placeholder)
            return
        size = self.image.size().scaled(self.size(), Qt.KeepAspectRatio)
        x = (self.width() - size.width()) // 2
        y = 0  # top-aligned, right under the title
        p.setRenderHint(QPainter.SmoothPixmapTransform, size.width() < self.image.width())
        p.drawImage(QRect(x, y, size.width(), size.height()), self.image)


class _TitleLabel(QLabel):
    """A one-line title that never widens its column: cut to the width it gets, with an ellipsis,
    and shown whole in its tooltip when it is cut (Qt's own ``QFontMetrics.elidedText``)."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.setStyleSheet("font-weight: bold;")
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.set_full_text(title)

    def set_full_text(self, title: str) -> None:
        self.full_text = title
        self._elide()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self.full_text, Qt.ElideRight, max(self.width(), 1))
        self.setText(shown)
        self.setToolTip(self.full_text if shown != self.full_text else "")


class ImageView(QWidget):
    """A titled image panel; :meth:`set_image` takes a NumPy array (grey or BGR)."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = _TitleLabel(title)
        self.canvas = _Canvas()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addWidget(self.title)
        lay.addWidget(self.canvas, 1)
        self.array: np.ndarray | None = None  # the last array shown (tests read it)

    def set_title(self, title: str) -> None:
        self.title.set_full_text(title)

    def set_image(self, img: np.ndarray | None, placeholder: str = "") -> None:
        self.array = img
        self.canvas.image = None if img is None else to_qimage(img)
        self.canvas.placeholder = placeholder
        self.canvas.update()
