"""Large frames: the up-front memory check, and what ``capture.resize`` tells the user."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.cli.main import main
from silkvision.detector import memory
from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.silk import SilkSubtractor


def _pretend_available(monkeypatch, nbytes):
    monkeypatch.setattr(memory, "available_memory", lambda: nbytes)


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_nbytes_for_is_what_the_first_frame_allocates(cls):
    det = cls()
    det.apply(np.zeros((37, 53, 3), np.uint8))
    arrays = [det._colours, det._alphas, det._scores, det._raw, det._scr_f, det._scr_i, *det._extra.values()]
    assert det.nbytes_for(37, 53) == sum(a.nbytes for a in arrays)
    assert det.state_nbytes == (147 if cls is SilkSubtractor else 145) * 37 * 53


def test_available_memory_is_a_positive_number_of_bytes_here():
    avail = memory.available_memory()
    if avail is None:
        pytest.skip("this system reports no available memory")
    assert isinstance(avail, int) and avail > 0


GIB = 2**30
MEMINFO = "MemTotal:       67108864 kB\nMemFree:         1000000 kB\nMemAvailable:   50331648 kB\n"


def _system(monkeypatch, files: dict[str, str]) -> None:
    """Make the memory module read ``files`` (path -> text) instead of the real system files."""
    monkeypatch.setattr(memory, "_read_text", lambda path: files.get(str(path)))


def test_meminfo_gives_memavailable_not_memtotal_or_memfree(monkeypatch):
    _system(monkeypatch, {"/proc/meminfo": MEMINFO})
    assert memory.available_memory() == 50331648 * 1024


@pytest.mark.parametrize(
    "files, expected",
    [
        # cgroup v2 in a container (its own namespace): the limit minus what is used, page cache counted free
        (
            {
                "/proc/self/cgroup": "0::/\n",
                "/sys/fs/cgroup/memory.max": str(4 * GIB),
                "/sys/fs/cgroup/memory.current": str(4 * GIB - 2**20),
                "/sys/fs/cgroup/memory.stat": f"anon 100\ninactive_file {3 * GIB}\nactive_file 5\n",
            },
            3 * GIB + 2**20,
        ),
        # cgroup v2 without a limit
        (
            {
                "/proc/self/cgroup": "0::/\n",
                "/sys/fs/cgroup/memory.max": "max\n",
                "/sys/fs/cgroup/memory.current": str(GIB),
            },
            None,
        ),
        # cgroup v2 slice (no namespace): the limit sits on the process's own group, under the root
        (
            {
                "/proc/self/cgroup": "0::/system.slice/job.service\n",
                "/sys/fs/cgroup/system.slice/job.service/memory.max": str(2 * GIB),
                "/sys/fs/cgroup/system.slice/job.service/memory.current": str(GIB // 2),
                "/sys/fs/cgroup/system.slice/memory.max": "max",
            },
            2 * GIB - GIB // 2,
        ),
        # a tighter limit on a parent group wins
        (
            {
                "/proc/self/cgroup": "0::/a/b\n",
                "/sys/fs/cgroup/a/b/memory.max": str(8 * GIB),
                "/sys/fs/cgroup/a/b/memory.current": str(GIB),
                "/sys/fs/cgroup/a/memory.max": str(3 * GIB),
                "/sys/fs/cgroup/a/memory.current": str(2 * GIB),
            },
            GIB,
        ),
        # cgroup v1: limit_in_bytes and usage_in_bytes, total_inactive_file counted free; v1's "no limit" ignored
        (
            {
                "/proc/self/cgroup": "9:name=systemd:/\n4:memory:/docker/abc\n",
                "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": str(2 * GIB),
                "/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": str(GIB),
                "/sys/fs/cgroup/memory/docker/abc/memory.stat": f"cache 7\ntotal_inactive_file {GIB // 4}\n",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712",
            },
            GIB + GIB // 4,
        ),
        # an inconsistent snapshot (more inactive file cache than memory in use): headroom is the limit, no more
        (
            {
                "/proc/self/cgroup": "0::/\n",
                "/sys/fs/cgroup/memory.max": str(4 * GIB),
                "/sys/fs/cgroup/memory.current": str(GIB),
                "/sys/fs/cgroup/memory.stat": f"inactive_file {2 * GIB}\n",
            },
            4 * GIB,
        ),
        # garbled values are ignored
        (
            {
                "/proc/self/cgroup": "0::/\n",
                "/sys/fs/cgroup/memory.max": "lots",
                "/sys/fs/cgroup/memory.current": "7",
            },
            None,
        ),
    ],
)
def test_cgroup_limits_lower_the_estimate(monkeypatch, files, expected):
    _system(monkeypatch, files)
    assert memory._cgroup_headroom() == expected
    _system(monkeypatch, {**files, "/proc/meminfo": MEMINFO})
    assert memory.available_memory() == min(50331648 * 1024, expected or 2**62)


def test_a_state_that_does_not_fit_is_refused_before_it_is_allocated(monkeypatch):
    det = SilkSubtractor()
    need = det.nbytes_for(24, 32)
    _pretend_available(monkeypatch, need - 1)
    with pytest.raises(MemoryError) as e:
        det.apply(np.zeros((24, 32, 3), np.uint8))
    assert str(e.value) == (
        f"the silk state of a 32x24 frame needs {need / 2**20:.1f} MiB, but only "
        f"{(need - 1) / 2**20:.1f} MiB of memory is available "
        f"(SILKVISION_MEMORY_CHECK=0 skips this check)"
    )
    assert det.state_nbytes == 0  # nothing allocated, the detector is still usable
    monkeypatch.setenv("SILKVISION_MEMORY_CHECK", "0")
    assert det.apply(np.zeros((24, 32, 3), np.uint8)).shape == (24, 32)


def test_set_state_that_does_not_fit_keeps_the_model(monkeypatch):
    rng = np.random.default_rng(0)
    small = SilkSubtractor()
    small.apply(rng.integers(0, 255, (24, 32, 3), np.uint8))
    det = SilkSubtractor()
    for _ in range(3):
        det.apply(rng.integers(0, 255, (48, 64, 3), np.uint8))
    before = det.get_state()
    big = SilkSubtractor()
    big.apply(rng.integers(0, 255, (96, 128, 3), np.uint8))
    _pretend_available(monkeypatch, det.nbytes_for(96, 128) - det.nbytes_for(48, 64) - 1)
    with pytest.raises(MemoryError):
        det.set_state(big.get_state())
    after = det.get_state()
    assert det.frames_seen == 3 and all(np.array_equal(before[k], after[k]) for k in before)
    det.set_state(small.get_state())  # smaller than the state it frees: fits
    assert det.state_nbytes == small.state_nbytes


def test_a_resume_that_does_not_fit_keeps_its_checkpoint_and_says_only_that(
    tmp_path, sample_seq, monkeypatch
):
    from silkvision.export import CHECKPOINT, export_masks

    from ..io.fake_detector import interrupt_after

    cfg = {"capture": {"max_frames": 12}, "export": {"checkpoint_every": 4}}
    out = tmp_path / "out"
    res = export_masks(
        sample_seq,
        out,
        cfg,
        detector=interrupt_after(SilkSubtractor(), 8),
        progress=False,
        log=lambda m: None,
    )
    assert res.interrupted and (out / CHECKPOINT).is_file()
    _pretend_available(monkeypatch, 1000)
    notes = []
    with pytest.raises(MemoryError, match="the silk state of a 320x240 frame needs"):
        export_masks(sample_seq, out, cfg, detector=SilkSubtractor(), progress=False, log=notes.append)
    assert not any("cannot be used" in n or "replaying" in n for n in notes)
    assert (out / CHECKPOINT).is_file()
    monkeypatch.undo()
    res = export_masks(sample_seq, out, cfg, detector=SilkSubtractor(), progress=False, log=lambda m: None)
    assert res.complete and res.resumed_from == 8


def test_export_refuses_a_frame_too_large_before_writing_anything(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _pretend_available(monkeypatch, 10_000_000)  # the sample's 320x240 needs 11 MB
    need = SilkSubtractor().nbytes_for(240, 320)
    out = tmp_path / "out"
    rc = main(["export", str(sample_seq), "--out", str(out), "--set", "capture.max_frames=3"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert (
        f"out of memory (the silk state of a 320x240 frame needs {need / 2**20:.1f} MiB, but only "
        f"9.5 MiB of memory is available"
    ) in err
    assert "use smaller frames (capture.resize)" in err
    assert not (out / "export.json").exists() and not list(out.glob("bin*"))
    # nothing was started, so other settings are not refused as "a different export"
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "export",
                str(sample_seq),
                "--out",
                str(out),
                "--set",
                "capture.max_frames=3",
                "--set",
                "capture.resize=[160,120]",
            ]
        )
        == 0
    )


def test_the_state_a_detector_holds_counts_as_freed_by_the_check(monkeypatch):
    """A detector that holds the state of a frame size is not counted twice: reset() (an export of a
    detector passed in resets it) frees those arrays before the new ones are made."""
    det = SilkSubtractor()
    det.apply(np.zeros((240, 320, 3), np.uint8))
    _pretend_available(monkeypatch, det.state_nbytes // 2)
    det.check_memory(240, 320)
    with pytest.raises(MemoryError):
        SilkSubtractor().check_memory(240, 320)


def test_export_notes_the_mask_size_and_an_aspect_change(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["export", str(sample_seq), "--set", "capture.max_frames=2"]
    assert main(args + ["--out", str(tmp_path / "a"), "--set", "capture.resize=[160,120]"]) == 0
    err = capsys.readouterr().err
    assert "masks are 160x120 (capture.resize); the source's frames are 320x240\n" in err
    assert main(args + ["--out", str(tmp_path / "b"), "--set", "capture.resize=[120,160]"]) == 0
    err = capsys.readouterr().err
    assert (
        "masks are 120x160 (capture.resize); the source's frames are 320x240, so the resize changes "
        "the aspect ratio from 1.33 to 0.75 (width/height)"
    ) in err
    assert main(args + ["--out", str(tmp_path / "c")]) == 0
    assert "capture.resize" not in capsys.readouterr().err


@pytest.mark.slow
def test_scoring_a_downscaled_export_names_its_resize(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = tmp_path / "small"
    assert main(["export", str(sample_seq), "--out", str(res), "--set", "capture.resize=[160,120]"]) == 0
    capsys.readouterr()
    rc = main(
        ["evaluate", str(sample_seq), "--results", str(res), "--out", str(tmp_path / "ev"), "--no-figures"]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert (
        "mask is 160x120 but the ground truth is 320x240; expected the same size (its export.json "
        "says it was exported with capture.resize=[160, 120]; export again without capture.resize" in err
    )


def test_a_resize_of_the_wrong_length_is_not_valid_rather_than_out_of_range(
    tmp_path, sample_seq, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    rc = main(["export", str(sample_seq), "--out", str(tmp_path / "o"), "--set", "capture.resize=[640]"])
    assert rc == 2
    assert (
        "capture.resize: [640] in --set is not valid; expected null or [width, height]"
        in capsys.readouterr().err
    )
