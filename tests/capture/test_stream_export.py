"""``export`` of a network stream that is cut for 5 s mid-run: it reconnects, keeps the detector,
finishes, and marks the gap in the frame numbering and in ``export.json``."""

import json
import threading
import time

from silkvision.config import validate
from silkvision.export import export_masks
from tests.capture.mjpeg_server import MjpegServer

CUT_S = 5.0


def _cut_after(server: MjpegServer, out, masks: int, done: threading.Event) -> None:
    """Stop the server once ``masks`` masks are written, start it again CUT_S seconds later."""
    deadline = time.monotonic() + 60
    while len(list(out.glob("bin*.png"))) < masks and time.monotonic() < deadline:
        time.sleep(0.02)
    server.stop()
    time.sleep(CUT_S)
    server.start()
    done.set()


def test_an_export_of_a_stream_cut_for_five_seconds_reconnects_and_finishes(tmp_path):
    out = tmp_path / "out"
    notes = []
    cfg = validate(
        {"capture": {"max_frames": 40, "reconnect_timeout": 20.0}, "detector": {"algorithm": "silk"}}
    )
    with MjpegServer(fps=50) as server:
        back = threading.Event()
        cutter = threading.Thread(target=_cut_after, args=(server, out, 10, back), daemon=True)
        cutter.start()
        res = export_masks(server.url, out, cfg, log=notes.append, progress=False)
        cutter.join(timeout=30)
    assert back.is_set() and res.complete and res.frames == 40
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["status"] == "complete" and manifest["source"] == server.url
    assert manifest["source_kind"] == "stream"
    gaps = manifest["gaps"]
    assert len(gaps) == 1 and gaps[0]["seconds"] >= CUT_S - 0.5
    numbers = sorted(int(p.stem[3:]) for p in out.glob("bin*.png"))
    assert len(numbers) == 40 and numbers[0] == 1 and numbers[-1] == manifest["last_index"]
    # the numbering skips the frames the cut lost, and only there
    assert numbers == list(range(1, gaps[0]["after"] + 1)) + list(range(gaps[0]["next"], numbers[-1] + 1))
    assert gaps[0]["next"] - gaps[0]["after"] > 1
    assert any("stream lost after frame" in n for n in notes)
    assert any("stream back after" in n for n in notes)
    assert any("export.json lists the gaps" in n for n in notes)
