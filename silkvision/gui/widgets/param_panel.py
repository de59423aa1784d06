"""Parameter editor of one detector, built from the configuration schema.

One row per key of ``det.get_params()``: a spin box, check box or list, with the key's help from
:mod:`silkvision.config.schema` as tooltip. Keys in ``det.RESTART_PARAMS`` are marked "(restarts)".
"Apply" validates the changed values with the config rules and emits ``apply_requested``.
"""

from __future__ import annotations

from PyQt5.QtCore import pyqtSignal
from PyQt5.QtWidgets import (QAbstractSpinBox, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout,
                             QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout,
                             QWidget)

from silkvision.config import COLOUR_SPACES, SCHEMA, validate
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ConfigError

__all__ = ["ParamPanel"]


def _spec(algorithm: str, key: str):
    det = SCHEMA["detector"]
    if key in SHARED_KEYS:
        return det[key], {"detector": {key: None}}
    section = det.get(algorithm, {})
    return section.get(key), {"detector": {algorithm: {key: None}}}


def _bounds(spec) -> tuple[float | None, float | None]:
    """A key's range as a spin box range: the schema's ``Param.bounds`` (open ends are the limit
    itself, which the validation on Apply refuses; ``None`` where the schema states no limit)."""
    if spec is None:
        return None, None
    return tuple(None if b is None else float(b) for b in spec.bounds)


def _decimals(value: float, least: int = 4, most: int = 8) -> int:
    """Decimals a spin box needs to hold ``value`` without rounding it (between ``least`` and ``most``)."""
    text = f"{value:.{most}f}".rstrip("0")
    return max(least, len(text.split(".")[1]) if "." in text else 0)


class ParamPanel(QWidget):
    """Editable parameters of one detector.

    Signals
    -------
    apply_requested(str, dict)
        ``(role, {key: value})`` with only the keys whose value changed; already validated.
    error(str)
        A value is out of range (message names the key and the allowed values).
    """

    apply_requested = pyqtSignal(str, dict)
    error = pyqtSignal(str)

    def __init__(self, role: str, parent=None):
        super().__init__(parent)
        self.role = role
        self.algorithm = ""
        self.params: dict = {}
        self.editors: dict[str, QWidget] = {}
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.addLayout(self.form)
        lay.addWidget(self.note)
        lay.addLayout(buttons)
        lay.addStretch(1)
        self.restart_params: frozenset = frozenset()

    def set_params(self, algorithm: str, params: dict, restart_params=frozenset()) -> None:
        """Rebuild the rows for ``algorithm`` showing ``params``."""
        self.algorithm, self.params, self.restart_params = algorithm, dict(params), frozenset(restart_params)
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors = {}
        for key, value in params.items():
            spec, _ = _spec(algorithm, key)
            editor = self._editor(key, value, spec)
            label = QLabel(key + ("  (restarts)" if key in self.restart_params else ""))
            tip = "" if spec is None else f"{spec.help}; {spec.allowed}".lstrip("; ")
            if key in self.restart_params:
                tip += "\nChanging it restarts the detector (and the ROC)."
            label.setToolTip(tip)
            editor.setToolTip(tip)
            self.form.addRow(label, editor)
            self.editors[key] = editor
        self.note.setText("" if not self.restart_params.intersection(params)
                          else "Keys marked (restarts) reset the model when applied.")

    def _editor(self, key, value, spec) -> QWidget:
        if isinstance(value, bool):
            w = QCheckBox()
            w.setChecked(value)
        elif key == "colour_space":
            w = QComboBox()
            w.addItems(COLOUR_SPACES)
            w.setCurrentText(str(value))
        elif isinstance(value, int):
            lo, hi = _bounds(spec)              # the schema's range where it states one
            w = QSpinBox()
            w.setRange(int(0 if lo is None else lo), int(max(value, 1_000_000 if hi is None else hi)))
            w.setValue(value)
        elif isinstance(value, float):
            lo, hi = _bounds(spec)
            w = QDoubleSpinBox()
            w.setDecimals(_decimals(value))     # enough to show the value exactly (tau = 0.000503)
            w.setRange(0.0 if lo is None else lo, max(value, 1e6 if hi is None else hi))
            w.setStepType(QAbstractSpinBox.AdaptiveDecimalStepType)
            w.setValue(value)
        else:
            w = QLineEdit(str(value))
        return w

    def value(self, key: str):
        w = self.editors[key]
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentText()
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            return w.value()
        return w.text()

    def set_value(self, key: str, value) -> None:
        """Show ``value`` for ``key`` without applying it (e.g. the threshold slider moved)."""
        w = self.editors.get(key)
        if w is None:
            return
        w.blockSignals(True)
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QComboBox):
            w.setCurrentText(str(value))
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            w.setValue(value)
        else:
            w.setText(str(value))
        w.blockSignals(False)
        self.params[key] = value

    def revert(self) -> None:
        """Show the live values again (the last ones set with :meth:`set_params`/:meth:`set_value`)."""
        self.set_params(self.algorithm, self.params, self.restart_params)

    def changed(self) -> dict:
        return {k: self.value(k) for k in self.editors if self.value(k) != self.params.get(k)}

    def apply(self) -> dict:
        """Validate the changed values and emit ``apply_requested``; returns them ({} on error).

        The changes are checked together with the live values of the other keys, so that rules
        between keys (NORMA's ``eta * lambda < 1``) hold. After a refusal the panel shows the live
        values again, so that it never shows a value the detector does not use.
        """
        changes = self.changed()
        check: dict = {"detector": {}}
        for key, v in {**self.params, **changes}.items():
            spec, _ = _spec(self.algorithm, key)
            if spec is None:
                continue
            if key in SHARED_KEYS:
                check["detector"][key] = v
            else:
                check["detector"].setdefault(self.algorithm, {})[key] = v
        try:
            validate(check, f"{self.algorithm} parameters")
        except ConfigError as e:
            self.revert()
            self.error.emit(str(e))
            return {}
        if changes:
            self.apply_requested.emit(self.role, changes)
        return changes
