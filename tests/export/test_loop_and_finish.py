"""The frame loop and the finish/interrupt step, each alone (the engine composes them with the
resume plan; tests/export/test_plan.py tests the plan alone)."""

from pathlib import Path

import numpy as np

from silkvision.capture import open_source, read_image
from silkvision.detector import create_subtractor
from silkvision.export.finish import StopFlag
from silkvision.export.loop import FrameLoop
from silkvision.export.result import ExportResult
from silkvision.io.checkpoint import CHECKPOINT, load_checkpoint

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "highway"


class _StopAfter:
    """A stop flag that is set once ``n`` masks are on disk (as a signal between frames would be)."""

    def __init__(self, out: Path, n: int):
        self.out, self.n = out, n

    @property
    def set(self) -> bool:
        return len(list(self.out.glob("bin*.png"))) >= self.n


def _loop(src, out, every=2):
    det = create_subtractor("silk")
    return det, FrameLoop(
        src, det, out, scores=False, video=False, keep_existing=False, checkpoint_every=every
    )


def test_the_loop_alone_writes_each_frames_mask_and_the_checkpoints(tmp_path):
    with open_source(SAMPLE, max_frames=5) as src:
        det, loop = _loop(src, tmp_path)
        loop.run(None, StopFlag(False), ExportResult(out_dir=tmp_path), log=lambda m: None, progress=False)
        assert loop.exhausted and loop.frames == 5 and loop.processed == 5
        assert (loop.first_index, loop.last_index) == (1, 5)
    assert sorted(p.name for p in tmp_path.glob("bin*.png")) == [f"bin{i:06d}.png" for i in range(1, 6)]
    last = read_image(tmp_path / "bin000005.png", 0)
    np.testing.assert_array_equal(last, det.mask_from_scores(det.scores))  # the last frame's mask
    assert (tmp_path / CHECKPOINT).is_file() and load_checkpoint(tmp_path)[1] == loop.checkpointed == 4


def test_the_loop_alone_stops_after_the_frame_a_stop_arrives_in(tmp_path):
    with open_source(SAMPLE, max_frames=10) as src:
        _, loop = _loop(src, tmp_path, every=0)
        loop.run(
            None, _StopAfter(tmp_path, 3), ExportResult(out_dir=tmp_path), log=lambda m: None, progress=False
        )
        assert not loop.exhausted and loop.frames == 3 and loop.last_index == 3
    assert len(list(tmp_path.glob("bin*.png"))) == 3


def test_the_stop_flag_alone_restores_the_handlers_it_replaced():
    import signal

    before = signal.getsignal(signal.SIGINT)
    with StopFlag(True) as stop:
        assert signal.getsignal(signal.SIGINT) is not before and not stop.set
        stop._handler(signal.SIGINT, None)
        assert stop.set and stop.signum == signal.SIGINT
    assert signal.getsignal(signal.SIGINT) is before
