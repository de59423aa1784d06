"""The image panel's title: cut with an ellipsis (whole in the tooltip) when its column is narrow, so
a long title such as "SILK scores (bright = novel)" is never clipped mid-word at 1024x768."""

from __future__ import annotations

TITLE = "SILK scores (bright = novel)"


def test_a_narrow_panel_elides_its_title_and_the_tooltip_has_it_whole(qtbot):
    from silkvision.gui.widgets.image_view import ImageView

    view = ImageView(TITLE)
    qtbot.addWidget(view)
    view.resize(130, 120)
    view.show()
    qtbot.waitExposed(view)
    shown = view.title.text()
    assert shown != TITLE and shown.endswith("\u2026") and TITLE.startswith(shown[:-1])
    assert view.title.fontMetrics().horizontalAdvance(shown) <= view.title.width()
    assert view.title.toolTip() == TITLE and view.title.full_text == TITLE

    view.resize(900, 300)  # wide again: the whole title, no tooltip
    qtbot.waitUntil(lambda: view.title.text() == TITLE, timeout=2000)
    assert view.title.toolTip() == ""


def test_set_title_replaces_the_whole_title(qtbot):
    from silkvision.gui.widgets.image_view import ImageView

    view = ImageView("second mask")
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    qtbot.waitExposed(view)
    view.set_title("MOG2 mask")
    assert view.title.text() == "MOG2 mask" and view.title.full_text == "MOG2 mask"
