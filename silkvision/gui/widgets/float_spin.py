"""A spin box for the floating-point keys of the configuration: it shows and takes any float the
schema allows, in plain or scientific notation (``0.45``, ``5e-4``, ``1e-16``), and never rounds
the value to a fixed number of decimals."""

from __future__ import annotations

import math
import re

from PyQt5.QtCore import QSize
from PyQt5.QtGui import QValidator
from PyQt5.QtWidgets import QDoubleSpinBox

__all__ = ["FloatSpinBox", "float_text", "float_range", "step_value", "HUGE", "SMALLEST_POSITIVE"]

#: Ends of a box whose key the schema leaves unbounded: 1e6 is more than any setting needs, and far
#: larger values (C = 1e308) would overflow the detectors' score range (SILK's is 0..omega*C).
HUGE = 1e6
#: Lower end of a box whose key must be > 0. A QDoubleSpinBox keeps at most 323 decimals, so the
#: float right after 0 (5e-324) would read back as 0; 1e-300 is held exactly.
SMALLEST_POSITIVE = 1e-300
#: Most decimals a QDoubleSpinBox keeps (``DBL_MAX_10_EXP + DBL_DIG``): with them, ``setValue``
#: keeps every float above about 1e-308 exactly.
MAX_DECIMALS = 323
#: Text as wide as the box is made (longer text scrolls): room for 0.000503, 1.2345e-16, 2000000
SIZE_TEXT = "0.0000000000"
# what typed text may look like on its way to a number: 1, 1., .5, 1e, 1e-, 1e-3, -2.5E+7; a
# decimal comma (1,5) is let through so that the whole text is refused, not read as 15
_PARTIAL_NUMBER = re.compile(r"[+-]?(\d*[.,]?\d*)([eE][+-]?\d*)?")


def float_text(value: float) -> str:
    """The shortest text that reads back as ``value`` exactly, without needless characters.

    Parameters
    ----------
    value : float

    Returns
    -------
    str
        Plain notation from 1e-4 to 1e16 (``0.000503``, ``0.45``, ``8``, ``2000000``), scientific
        notation outside (``5e-5``, ``1e-16``, ``1e300``), as Python's ``repr`` chooses.
    """
    text = repr(float(value))
    mantissa, e, exponent = text.partition("e")
    if mantissa.endswith(".0"):
        mantissa = mantissa[:-2]
    return mantissa + (f"e{int(exponent)}" if e else "")


def float_range(spec) -> tuple[float, float]:
    """A float key's range as a closed spin-box range.

    Parameters
    ----------
    spec : silkvision.config.schema.Param or None
        The key's schema entry (``bounds`` and ``open_ends``); ``None``: any finite float.

    Returns
    -------
    (float, float)
        The schema's bounds; a missing one becomes -/+ :data:`HUGE`, an open one the next float
        inside (:data:`SMALLEST_POSITIVE` for an open 0), so that the box offers no value that
        Apply would refuse.
    """
    lo, hi = (None, None) if spec is None else spec.bounds
    lo_open, hi_open = (False, False) if spec is None else spec.open_ends
    lo = -HUGE if lo is None else float(lo)
    hi = HUGE if hi is None else float(hi)
    if lo_open:
        lo = SMALLEST_POSITIVE if lo == 0 else math.nextafter(lo, math.inf)
    if hi_open:
        hi = -SMALLEST_POSITIVE if hi == 0 else math.nextafter(hi, -math.inf)
    return lo, hi


def step_value(value: float, steps: int, zero_step: float) -> float:
    """``value`` moved by ``steps`` decimal steps: one step is a tenth of the value's leading
    decade (0.45 -> 0.46, 8e-6 -> 8.1e-6, 200 -> 210), the result rounded to that step.

    Parameters
    ----------
    value : float
    steps : int
        Positive: up; negative: down.
    zero_step : float
        The step from 0.

    Returns
    -------
    float
        Possibly out of the box's range (the box clamps it); ``inf`` past the largest float.
    """
    if value == 0:
        return steps * zero_step
    size = abs(value)
    if (value < 0) != (steps < 0):  # moving towards 0: from 1 the step down is 0.01, not 0.1
        if size <= zero_step:  # ... and from the first step above 0, to 0 (not 1e-25 ever)
            return 0.0
        size /= 1.01
    exponent = math.floor(math.log10(size)) - 1
    moved = value + steps * 10.0**exponent
    if not math.isfinite(moved):
        return moved
    return round(moved, -exponent)


class FloatSpinBox(QDoubleSpinBox):
    """A QDoubleSpinBox for any float: shown as its shortest exact text (:func:`float_text`),
    typed as Python reads it (``5e-4``, ``.5``, ``1E3``), stepped by decades (:func:`step_value`).

    Letters and other characters that cannot be part of a number are refused key by key; an
    unfinished number (``1e-``), one out of range, or one with a decimal comma (``1,5``, which must
    not become 15) is left for the user to change, and when editing ends on it the box shows its
    value it had before. Typed text becomes the value on Enter or when the box loses focus. The
    value is never rounded to a number of decimals.

    Parameters
    ----------
    zero_step : float
        The arrows' step from 0 (other values step by a tenth of their leading decade).
    """

    def __init__(self, parent=None, zero_step: float = 0.01):
        super().__init__(parent)
        self.zero_step = zero_step
        self.setDecimals(MAX_DECIMALS)
        self.setRange(-HUGE, HUGE)
        # typed text becomes the value on Enter or when the box loses focus, not key by key: "1"
        # of "1e-5" is never used, and text refused when editing ends brings back the value before
        self.setKeyboardTracking(False)

    def textFromValue(self, value: float) -> str:
        return float_text(value)

    def valueFromText(self, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):
        t = text.strip()
        if not _PARTIAL_NUMBER.fullmatch(t) or (t.startswith("-") and self.minimum() >= 0):
            return QValidator.Invalid, text, pos
        try:
            value = float(t)
        except ValueError:
            return QValidator.Intermediate, text, pos  # "", "-", ".", "1e", "1e-", "1,5"
        ok = self.minimum() <= value <= self.maximum()
        return (QValidator.Acceptable if ok else QValidator.Intermediate), text, pos

    def fixup(self, text: str) -> str:
        return float_text(self.value())

    def sizeHint(self) -> QSize:
        return self._narrowed(super().sizeHint())

    def minimumSizeHint(self) -> QSize:
        return self._narrowed(super().minimumSizeHint())

    def _narrowed(self, hint: QSize) -> QSize:
        """``hint`` with room for :data:`SIZE_TEXT`: Qt sizes a spin box for the text of its range
        ends (each cut to 18 characters), and an unbounded end (1.7976931348623157e308) would make
        the box needlessly wide."""
        fm = self.fontMetrics()
        ends = max(fm.horizontalAdvance(float_text(v)[:18]) for v in (self.minimum(), self.maximum()))
        return QSize(hint.width() - max(ends - fm.horizontalAdvance(SIZE_TEXT), 0), hint.height())

    def stepBy(self, steps: int) -> None:
        self.interpretText()  # step from what was typed (as Qt's own boxes do), not the old value
        moved = step_value(self.value(), steps, self.zero_step)
        self.setValue(min(max(moved, self.minimum()), self.maximum()))
        self.selectAll()
