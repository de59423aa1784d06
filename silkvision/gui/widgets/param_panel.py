"""Parameter editor of one detector, built from the configuration schema.

One row per key of ``det.get_params()``: a spin box, check box or list, with the key's help from
:mod:`silkvision.config.schema` as tooltip. The spin boxes offer the schema's range; a float key's
box (:class:`.FloatSpinBox`) shows and takes any float the schema allows (``5e-4``, ``1e-16``).
Keys in ``det.RESTART_PARAMS`` are marked "*" (explained under the form and in their tooltips).
"Apply" validates the changed values with the config rules and emits ``apply_requested`` with only
the keys the user changed.
"""

from __future__ import annotations

from PyQt5.QtCore import pyqtSignal
from PyQt5.QtGui import QValidator
from PyQt5.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from silkvision.config import COLOUR_SPACES, SCHEMA, validate
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ConfigError
from silkvision.gui.widgets.float_spin import FloatSpinBox, float_range

__all__ = ["ParamPanel"]

#: Upper end of an integer box whose key the schema leaves unbounded (the largest a QSpinBox holds).
INT_MAX = 2**31 - 1


def _spec(algorithm: str, key: str):
    det = SCHEMA["detector"]
    return det[key] if key in SHARED_KEYS else det.get(algorithm, {}).get(key)


class ListSpinBox(QSpinBox):
    """A spin box whose value is one of a fixed list of integers (the mask filter sizes 0, 3, 5,
    ..., 15): the arrows step through the list, and typed text that cannot become one of its
    values is refused (an unfinished one is corrected to the nearest value when editing ends)."""

    def __init__(self, values, parent=None):
        super().__init__(parent)
        self.values = sorted(values)
        self.setRange(self.values[0], self.values[-1])

    def _nearest(self, v: int) -> int:
        return min(self.values, key=lambda a: (abs(a - v), a))

    def setValue(self, value: int) -> None:
        """Show ``value``, or the nearest allowed one."""
        super().setValue(self._nearest(int(value)))

    def stepBy(self, steps: int) -> None:
        i = self.values.index(self._nearest(self.value()))
        self.setValue(self.values[max(0, min(len(self.values) - 1, i + steps))])

    def validate(self, text: str, pos: int):
        state, text, pos = super().validate(text, pos)
        t = text.strip()
        if state == QValidator.Acceptable and int(t) not in self.values:
            state = (
                QValidator.Intermediate
                if any(str(v).startswith(t) for v in self.values)
                else QValidator.Invalid
            )
        return state, text, pos

    def fixup(self, text: str) -> str:
        try:
            return str(self._nearest(int(text.strip())))
        except ValueError:
            return str(self.value())


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
        self._applying = False  # an Apply was sent and the worker has not answered yet

    def set_params(
        self, algorithm: str, params: dict, restart_params=frozenset(), force: bool = False
    ) -> None:
        """Rebuild the rows for ``algorithm`` showing ``params``. Without ``force`` the rows, and any
        value typed but not applied, are kept when the values are the ones shown already (the
        worker announces the same detectors again after an open), unless an Apply is pending: then
        the worker's answer is shown, also when it refused the change."""
        if (
            not force
            and not self._applying
            and self.editors
            and algorithm == self.algorithm
            and dict(params) == self.params
            and frozenset(restart_params) == self.restart_params
        ):
            return
        self._applying = False
        self.algorithm, self.params, self.restart_params = algorithm, dict(params), frozenset(restart_params)
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors = {}
        for key, value in params.items():
            spec = _spec(algorithm, key)
            editor = self._editor(key, value, spec)
            # a short mark: "(restarts)" made the panel too wide for a 1024-pixel screen
            label = QLabel(key + (" *" if key in self.restart_params else ""))
            tip = "" if spec is None else f"{spec.help}; {spec.allowed}".lstrip("; ")
            if key in self.restart_params:
                tip += "\nChanging it restarts the detector (and the ROC)."
            label.setToolTip(tip)
            editor.setToolTip(tip)
            self.form.addRow(label, editor)
            self.editors[key] = editor
        self.note.setText(
            ""
            if not self.restart_params.intersection(params)
            else "* restarts the detector (and the ROC) when applied."
        )

    def _editor(self, key, value, spec) -> QWidget:
        if isinstance(value, bool):
            w = QCheckBox()
            w.setChecked(value)
        elif key == "colour_space":
            w = QComboBox()
            w.addItems(COLOUR_SPACES)
            w.setCurrentText(str(value))
        elif isinstance(value, int) and spec is not None and spec.values:
            w = ListSpinBox(spec.values)  # median / close: 0 or odd 3..15
            w.setValue(value)
        elif isinstance(value, int):
            lo, hi = (None, None) if spec is None else spec.bounds  # integer keys have closed ends
            w = QSpinBox()
            w.setRange(int(0 if lo is None else lo), int(INT_MAX if hi is None else hi))
            w.setValue(value)
        elif isinstance(value, float):
            lo, hi = float_range(spec)
            w = FloatSpinBox()
            # a live value always fits (a valid value below the smallest one offered: 1e-310)
            w.setRange(min(value, lo), max(value, hi))
            w.setValue(value)
        else:
            w = QLineEdit(str(value))
        return w

    def value(self, key: str):
        """The value ``key``'s editor shows. Text still being typed in a spin box counts (as after
        Enter): Apply takes it even where clicking the button leaves the focus in the box."""
        w = self.editors[key]
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentText()
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            w.interpretText()
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
        self.set_params(self.algorithm, self.params, self.restart_params, force=True)

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
            spec = _spec(self.algorithm, key)
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
            self._applying = True
            self.apply_requested.emit(self.role, changes)
        return changes
