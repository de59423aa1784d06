"""Batch export of foreground masks (the engine of ``silkvision export``), resumable.

Output folder layout (CDnet "results" naming)::

    DIR/bin%06d.png        0/255 uint8 mask of input frame %06d (same number as the input frame)
    DIR/scores%06d.npz     optional: member "scores", HxW float16 scores f(x) of that frame
                           (lower = more novel; compressed; SILK/NORMA only)
    DIR/masks.mkv          optional: all masks as a lossless FFV1 grey video (masks.avi with
                           PNG or HuffYUV frames when this OpenCV cannot write FFV1)
    DIR/config.yaml        the effective configuration (export.overwrite written as false)
    DIR/export.json        manifest: source and its fingerprint, algorithm, the settings that shape
                           the output, status
    DIR/checkpoint.npz     only while unfinished: detector state after frame "index"

Every file is written atomically (temporary file + rename), so a killed export leaves only complete
files. Re-running the same export resumes: the manifest must match (otherwise a one-line
:class:`~silkvision.errors.ExportMismatchError` names the first setting that differs, or says that
the source's files changed: see :func:`source_fingerprint`), the detector is restored from
``checkpoint.npz`` (saved every ``export.checkpoint_every`` frames and on SIGINT/SIGTERM) and frames
after the checkpoint are recomputed and rewritten. Detectors without ``get_state`` (MOG2, KNN)
replay from the first frame, keeping masks already written and re-creating missing ones; so does a
resume whose ``checkpoint.npz`` cannot be read or restored, or whose earlier masks (or scores files)
are not all on disk (a note says why). The final
folder is identical, byte for byte, to that of an uninterrupted run -- except ``masks.mkv``, whose
Matroska header carries a random segment UID (its decoded frames are identical).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import cv2
import numpy as np

from silkvision import __version__
from silkvision.capture import Source, open_source
from silkvision.capture.folder import FolderSource
from silkvision.capture.video import VideoSource
from silkvision.config import ALGORITHMS, validate, write_config
from silkvision.detector import create_subtractor
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ExportError, ExportMismatchError, SilkvisionError, SourceError
from silkvision.io.atomic import atomic_write_bytes, atomic_write_text, make_output_folder, reported_write_errors
from silkvision.io.npz import load_npz, save_npz

__all__ = ["export_masks", "ExportResult", "MaskVideoWriter", "write_mask_png", "write_scores_npz",
           "mask_name", "scores_name", "MANIFEST", "CHECKPOINT", "is_export_output",
           "source_fingerprint"]

MANIFEST = "export.json"
CHECKPOINT = "checkpoint.npz"
LOCK = ".export.lock"
_FORMAT = 1
_OURS = re.compile(r"^(bin\d+\.png|scores\d+\.npz|config\.yaml|export\.json|checkpoint\.npz|"
                   r"masks\.(mkv|avi)|\.masks\.partial\.(mkv|avi)|\.export\.lock|\..+\.tmp)$")
#: (fourcc, extension) of lossless grey video codecs, in order of preference.
VIDEO_CODECS = (("FFV1", ".mkv"), ("png ", ".avi"), ("HFYU", ".avi"))


def mask_name(index: int) -> str:
    """``bin%06d.png``: CDnet's result naming."""
    return f"bin{int(index):06d}.png"


def scores_name(index: int) -> str:
    return f"scores{int(index):06d}.npz"


def is_export_output(name: str) -> bool:
    """Whether a file name is one that an export writes (or leaves behind when killed)."""
    return bool(_OURS.match(name))


def write_mask_png(path, mask: np.ndarray) -> Path:
    """Write a mask as a grey 0/255 PNG, atomically.

    Parameters
    ----------
    path : path-like
        The file to write; its name must end in ``.png``.
    mask : ndarray
        Non-empty HxW mask: ``uint8`` with only the values 0 and 255, or ``bool`` (written as
        0/255).

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        ``path`` does not end in ``.png``, or ``mask`` is not a mask as above (named in the message).
    ExportError
        The file cannot be written (disk full, ...).
    """
    if Path(path).suffix.lower() != ".png":
        raise ValueError(f"path: {str(path)!r} does not end in .png; expected a .png file name")
    mask = np.asarray(mask)
    what = f"mask for {path}"
    if mask.ndim != 2 or mask.size == 0:
        raise ValueError(f"{what}: shape {mask.shape}; expected a non-empty HxW array")
    if mask.dtype == bool:
        mask = np.where(mask, np.uint8(255), np.uint8(0))
    elif mask.dtype != np.uint8:
        raise ValueError(f"{what}: dtype {mask.dtype}; expected uint8 with values 0/255, or bool")
    elif not np.all((mask == 0) | (mask == 255)):
        bad = np.unique(mask[(mask != 0) & (mask != 255)])
        shown = ", ".join(str(int(v)) for v in bad[:6]) + (", ..." if bad.size > 6 else "")
        raise ValueError(f"{what}: values {shown}; expected a uint8 mask with only 0 and 255 "
                         f"(or a bool mask)")
    ok, buf = cv2.imencode(".png", mask)
    if not ok:  # pragma: no cover - cv2 always encodes uint8 PNG
        raise ExportError(f"{path}: PNG encoding failed")
    with reported_write_errors(path):
        return atomic_write_bytes(Path(path), buf.tobytes())


def write_scores_npz(path, scores: np.ndarray) -> Path:
    """Write the scores of one frame as ``.npz`` (member ``scores``, float16, compressed),
    atomically; a write error (disk full, ...) is a one-line :class:`ExportError`."""
    with reported_write_errors(path):
        return save_npz(Path(path), {"scores": np.asarray(scores).astype(np.float16)})


class MaskVideoWriter:
    """Lossless grey mask video, written to a hidden partial file and renamed when finished.

    Uses the first codec of :data:`VIDEO_CODECS` this OpenCV build can write (FFV1 in Matroska
    with opencv-python-headless).
    """

    def __init__(self, out_dir: Path, size: tuple[int, int], fps: float):
        self.size = tuple(size)
        self._writer = None
        for fourcc, ext in VIDEO_CODECS:
            partial = Path(out_dir) / f".masks.partial{ext}"
            w = cv2.VideoWriter(str(partial), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*fourcc),
                                float(fps), self.size, False)
            if w.isOpened():
                self._writer, self.partial, self.fourcc = w, partial, fourcc.strip()
                self.path = Path(out_dir) / f"masks{ext}"
                break
            w.release()
            partial.unlink(missing_ok=True)
        if self._writer is None:
            raise ExportError(f"{out_dir}: this OpenCV build cannot write a lossless video "
                              f"(tried FFV1, PNG and HuffYUV); drop --video")

    def write(self, mask: np.ndarray) -> None:
        self._writer.write(mask)

    def finish(self) -> Path:
        """Close the video and move it into place."""
        self._writer.release()
        with reported_write_errors(self.path):
            os.replace(self.partial, self.path)
        return self.path

    def abandon(self) -> None:
        """Close without publishing and remove the partial file (an interrupted export rebuilds
        the video from the masks on disk when it resumes)."""
        self._writer.release()
        try:
            self.partial.unlink(missing_ok=True)
        except OSError:  # pragma: no cover - best effort; a re-run removes it too
            pass


@dataclass
class ExportResult:
    """What :func:`export_masks` did.

    Attributes
    ----------
    out_dir : Path
    frames : int
        Frames in the output folder when the run ended.
    processed : int
        Frames run through the detector by this run.
    seconds, fps : float
        Wall time of this run and ``processed / seconds``.
    first_index, last_index : int or None
        Numbers of the first and last mask written so far.
    resumed_from : int or None
        Last frame of the checkpoint this run resumed from (0: resumed without checkpoint, replayed
        from the first frame); None for a fresh export.
    interrupted : bool
        Stopped by SIGINT/SIGTERM; the checkpoint was saved (re-run to resume).
    signal : int or None
        The signal number that stopped it.
    complete : bool
        The export is finished (``export.json`` says "complete").
    video : Path or None
    notes : list of str
        Messages shown to the user (resume, no checkpoint, ...).
    """

    out_dir: Path
    frames: int = 0
    processed: int = 0
    seconds: float = 0.0
    first_index: int | None = None
    last_index: int | None = None
    resumed_from: int | None = None
    interrupted: bool = False
    signal: int | None = None
    complete: bool = False
    already_complete: bool = False
    video: Path | None = None
    algorithm: str = ""
    notes: list = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.processed / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        """The final one-line summary."""
        if self.already_complete:
            return (f"{self.out_dir}: already holds the complete export ({self.frames} frames); "
                    f"nothing to do (use --overwrite to redo it)")
        verb = "interrupted after" if self.interrupted else "exported"
        resumed = ""
        if self.resumed_from is not None:
            resumed = (f", resumed after frame {self.resumed_from}" if self.resumed_from
                       else ", replayed from the first frame")
        return (f"{verb} {self.frames} frames ({self.processed} processed{resumed}) in "
                f"{self.seconds:.1f} s ({self.fps:.1f} fps) with {self.algorithm} to {self.out_dir}")


# -- settings that shape the output --------------------------------------------------------
def _flat(d: Mapping, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, Mapping):
            out.update(_flat(v, key))
        else:
            out[key] = list(v) if isinstance(v, tuple) else v
    return out


def output_settings(cfg: Mapping, algorithm: str) -> dict:
    """Flat ``{dotted key: value}`` of the configuration keys that change the exported files."""
    det = cfg["detector"]
    keep = {"detector": {"algorithm": algorithm, **{k: det[k] for k in SHARED_KEYS},
                         algorithm: det.get(algorithm, {})},
            "capture": {"resize": cfg["capture"]["resize"], "max_frames": cfg["capture"]["max_frames"]},
            "export": {"scores": cfg["export"]["scores"], "video": cfg["export"]["video"]}}
    return _flat(keep)


def _source_id(src: Source) -> str:
    if src.kind == "camera":
        return f"camera:{src.spec}"
    return str(Path(src.spec).resolve())


def _source_files(src: Source) -> list[Path]:
    """The files the frames of ``src`` are read from (after ``max_frames``); [] when none are known
    (a camera, or a custom source)."""
    if isinstance(src, FolderSource):
        return [src.path(i) for i in src.indices]
    if isinstance(src, VideoSource):
        return [src.path]
    return []


#: Bytes read from each end of the first and last source file for :func:`source_fingerprint`.
FINGERPRINT_BYTES = 1 << 20


def _ends(path: Path, digest) -> None:
    """Feed the first and last :data:`FINGERPRINT_BYTES` of ``path`` (all of a smaller file)."""
    with open(path, "rb") as f:
        digest.update(f.read(FINGERPRINT_BYTES))
        size = f.seek(0, os.SEEK_END)
        if size > FINGERPRINT_BYTES:
            f.seek(max(FINGERPRINT_BYTES, size - FINGERPRINT_BYTES))
            digest.update(f.read())


def source_fingerprint(src: Source) -> str | None:
    """A cheap digest of the source's content, so that a resume notices a changed source.

    Parameters
    ----------
    src : Source
        An open source.

    Returns
    -------
    str or None
        SHA-256 (hex) of the name and size of every file its frames are read from (the video file,
        or the frame files of an image folder / CDnet sequence) and of the content of the first and
        last of them (up to 1 MiB from each end). Modification times are not used, so a copy or a
        checkout that keeps the content keeps the fingerprint. None when the source has no files
        (a camera) or one cannot be read (unknown: not compared).
    """
    files = _source_files(src)
    if not files:
        return None
    digest = hashlib.sha256()
    try:
        for path in files:
            line = f"{path.name}\0{path.stat().st_size}\n"
            digest.update(line.encode("utf-8", "surrogateescape"))
        for path in dict.fromkeys((files[0], files[-1])):
            _ends(path, digest)
    except OSError:
        return None
    return digest.hexdigest()


def _manifest(src: Source, algorithm: str, settings: dict, status: str) -> dict:
    return {"format": _FORMAT, "status": status, "source": _source_id(src), "source_kind": src.kind,
            "source_frames": src.frame_count, "source_fingerprint": source_fingerprint(src),
            "algorithm": algorithm, "settings": settings}


def _write_manifest(out: Path, manifest: dict) -> None:
    with reported_write_errors(out / MANIFEST):
        atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: manifest field -> (check, what it must be); a field that is absent is not checked here.
_MANIFEST_FIELDS = {
    "status": (lambda v: v in ("running", "complete"), '"running" or "complete"'),
    "source": (lambda v: isinstance(v, str), "a string"),
    "source_kind": (lambda v: isinstance(v, str), "a string"),
    "algorithm": (lambda v: isinstance(v, str), "a string"),
    "settings": (lambda v: isinstance(v, dict), "an object"),
    "source_frames": (lambda v: v is None or (_is_int(v) and v >= 0), "null or an integer >= 0"),
    "source_fingerprint": (lambda v: v is None or isinstance(v, str), "null or a string"),
    "frames": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "first_index": (lambda v: v is None or _is_int(v), "null or an integer"),
    "last_index": (lambda v: v is None or _is_int(v), "null or an integer"),
    "video": (lambda v: v is None or isinstance(v, str), "null or a file name"),
    "scores": (lambda v: isinstance(v, bool), "true or false"),
}


def _manifest_problem(m) -> str | None:
    """Why ``m`` is not a manifest this version can use (None when it is)."""
    if not isinstance(m, dict):
        return f"a JSON {type(m).__name__}, not an object"
    if m.get("format") != _FORMAT:
        return f'"format" is {json.dumps(m.get("format"))}, not {_FORMAT}'
    for key in ("status", "source", "algorithm", "settings"):
        if key not in m:
            return f'no "{key}"'
    if m["status"] == "complete" and "frames" not in m:
        return 'no "frames"'
    for key, (ok, what) in _MANIFEST_FIELDS.items():
        if key in m and not ok(m[key]):
            return f'"{key}": {json.dumps(m[key])} is not {what}'
    return None


def _read_manifest(out: Path) -> dict:
    path = out / MANIFEST
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # (UnicodeDecodeError is a ValueError)
        problem = None
    else:
        problem = _manifest_problem(m)
        if problem is None:
            return m
    why = f" ({problem})" if problem else ""
    raise ExportError(f"{path}: not a silkvision export manifest this version can read{why}; "
                      f"use --overwrite to start over")


def _fmt(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else v


def _compare(out: Path, old: dict, new: dict) -> None:
    """Raise ExportMismatchError naming the first thing that differs between two manifests."""
    running = old.get("status") != "complete"
    hint = ("; re-run with the arguments it was started with to resume it, or add --overwrite to "
            "start over" if running else "; choose another --out, or add --overwrite to replace it")
    if old.get("source") != new["source"]:
        raise ExportMismatchError(f"{out}: holds an export of {old.get('source')}, not {new['source']}{hint}")
    if old.get("algorithm") != new["algorithm"]:
        raise ExportMismatchError(f"{out}: holds an export made with --algorithm {old.get('algorithm')}, "
                          f"not {new['algorithm']}{hint}")
    a, b = old.get("settings", {}), new["settings"]
    for key in list(b) + [k for k in a if k not in b]:
        if a.get(key, "<unset>") != b.get(key, "<unset>"):
            raise ExportMismatchError(f"{out}: holds an export made with {key}={_fmt(a.get(key, '<unset>'))}, "
                              f"not {_fmt(b.get(key, '<unset>'))}{hint}")
    # the same source path, but other content: resuming would mix masks of the old and new frames
    redo = f"add --overwrite to {'start over' if running else 'export it again'}"
    if old.get("source_frames") != new["source_frames"]:
        raise ExportMismatchError(f"{out}: holds an export of a source with {old.get('source_frames')} "
                                  f"frames, but it now has {new['source_frames']}; restore the source "
                                  f"as it was{' to resume' if running else ''}, or {redo}")
    before, now = old.get("source_fingerprint"), new["source_fingerprint"]
    if before is not None and now is not None and before != now:  # None: unknown (older manifest)
        raise ExportMismatchError(f"{out}: {new['source']} changed since the "
                                  f"{'interrupted ' if running else ''}export in this folder (the "
                                  f"names or sizes of its files, or its first or last file, differ); "
                                  f"{redo}")


class _FolderLock:
    """An exclusive ``flock`` on ``DIR/.export.lock`` so two exports cannot write one folder (the
    kernel drops it when the process dies, even by SIGKILL). No-op where fcntl is missing."""

    def __init__(self, out: Path):
        self.path = out / LOCK
        self._f = None

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        try:
            self._f = open(self.path, "a+")
        except OSError as e:
            raise ExportError(f"{self.path.parent}: cannot create the lock file ({e.strerror})") from None
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._f.close()
            self._f = None
            raise ExportError(f"{self.path.parent}: another silkvision export is writing to this "
                              f"folder; wait for it or choose another --out") from None

    def release(self) -> None:
        if self._f is not None:
            self.path.unlink(missing_ok=True)
            self._f.close()
            self._f = None


def _prepare_folder(out: Path, overwrite: bool) -> dict | None:
    """Create/check the output folder. Returns the manifest of an export to resume, else None."""
    try:
        names = sorted(os.listdir(out))
    except OSError as e:
        raise ExportError(f"{out}: cannot create or list the output folder ({e.strerror})") from None
    ours = [n for n in names if is_export_output(n) and (out / n).is_file()]
    foreign = [n for n in names if n not in ours and not n.startswith(".")]
    for n in ours:  # temporary files of a killed run (we hold the folder's lock)
        if n.startswith(".") and n != LOCK:
            (out / n).unlink(missing_ok=True)
    ours = [n for n in ours if not n.startswith(".")]
    if overwrite:
        for n in ours:
            (out / n).unlink(missing_ok=True)
        return None
    if foreign:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise ExportError(f"{out}: output folder holds {foreign[0]!r}{more}, which an export did not "
                          f"write; choose an empty folder or add --overwrite")
    if MANIFEST in ours:
        return _read_manifest(out)
    if ours:
        raise ExportError(f"{out}: holds {ours[0]!r} but no {MANIFEST}, so it is not a resumable "
                          f"export; choose an empty folder or add --overwrite")
    return None


class _StopFlag:
    """SIGINT/SIGTERM set a flag (the loop stops after the current frame); a second signal raises
    KeyboardInterrupt at once. A signal the process inherited as ignored (a background ``cmd &``
    ignores SIGINT) stays ignored."""

    def __init__(self, enabled: bool):
        self.signum = None
        self._old = {}
        self.enabled = enabled and threading.current_thread() is threading.main_thread()

    def _handler(self, signum, frame):
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum

    def __enter__(self):
        if self.enabled:
            for s in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(s) is not signal.SIG_IGN:
                    self._old[s] = signal.signal(s, self._handler)
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            signal.signal(s, h)

    @property
    def set(self) -> bool:
        return self.signum is not None


def _get_state(det) -> dict | None:
    try:
        return det.get_state()
    except NotImplementedError:
        return None


def _save_checkpoint(out: Path, det, index: int, frames: int) -> bool:
    state = _get_state(det)
    if state is None:
        return False
    arrays = {f"state.{k}": np.asarray(v) for k, v in state.items()}
    arrays["_index"] = np.int64(index)
    arrays["_frames"] = np.int64(frames)
    try:
        save_npz(out / CHECKPOINT, arrays, compress=False)
    except OSError as e:
        raise ExportError(f"{out / CHECKPOINT}: cannot write checkpoint ({e.strerror})") from None
    return True


class _BadCheckpoint(Exception):
    """``checkpoint.npz`` cannot be read, or does not fit this export; the message says why."""


def _why(e: BaseException) -> str:
    """The first line of an exception's message (its type name when it has none)."""
    if isinstance(e, KeyError) and e.args:
        return f"missing key {e.args[0]!r}"
    text = str(e).splitlines()[0].strip() if str(e).strip() else ""
    return text or type(e).__name__


def _load_checkpoint(out: Path, src: Source | None = None,
                     scores: bool = False) -> tuple[dict, int, int]:
    """``(state, index, frames)`` of ``out/checkpoint.npz``: the detector state after frame
    ``index``, the ``frames``-th frame of the export. Raises :class:`_BadCheckpoint` when the file
    cannot be read, or (given ``src``) names a frame that this source lacks, or one up to it whose
    mask (or, with ``scores``, scores file) is not on disk."""
    path = out / CHECKPOINT
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
        if not magic:
            raise _BadCheckpoint("empty file")
        if magic != b"PK\x03\x04":  # every .npz is a zip archive
            raise _BadCheckpoint("not a .npz (zip) file")
        z = load_npz(path)
    except OSError as e:
        raise _BadCheckpoint(e.strerror or _why(e)) from None
    except _BadCheckpoint:
        raise
    except Exception as e:  # noqa: BLE001 - truncated/garbled zip or .npy: BadZipFile, ValueError, ...
        raise _BadCheckpoint(f"truncated or damaged .npz file: {_why(e)}") from None
    ints = {}
    for key in ("_index", "_frames"):
        v = z.pop(key, None)
        if v is None:
            raise _BadCheckpoint(f"no {key!r} member")
        if v.shape != () or v.dtype.kind not in "iu":
            raise _BadCheckpoint(f"{key!r} is {v.dtype} {v.shape}, not an integer")
        ints[key] = int(v)
    index, frames = ints["_index"], ints["_frames"]
    state = {k[len("state."):]: v for k, v in z.items() if k.startswith("state.")}
    if not state:
        raise _BadCheckpoint("no detector state")
    if src is not None:
        problem = _checkpoint_mismatch(out, src, index, frames, scores)
        if problem:
            raise _BadCheckpoint(problem)
    return state, index, frames


def _checkpoint_mismatch(out: Path, src: Source, index: int, frames: int,
                         scores: bool = False) -> str | None:
    """Why a checkpoint after frame ``index`` (the ``frames``-th) cannot be the one of this export
    of ``src`` (None when it can): every frame up to it has been exported, so ``index`` is a frame
    of the source at position ``frames`` and the masks (with ``scores``, also the scores files) of
    all frames up to it are on disk -- resuming after a gap would finish an export with a file
    missing, whereas a replay from the first frame re-creates it."""
    indices = getattr(src, "indices", None)   # FolderSource / CdnetSource
    if indices is not None:
        ok = 1 <= frames <= len(indices) and indices[frames - 1] == index
    else:
        n = src.frame_count
        ok = frames >= 1 and index == src.first_index + frames - 1 and (n is None or frames <= n)
    if not ok:
        return f"frame {index} as export frame {frames} does not match {src.spec}"
    names = (mask_name, scores_name) if scores else (mask_name,)
    for i in _indices_through(src, index):
        for name in names:
            if not (out / name(i)).is_file():
                return f"{name(i)}, written before it, is missing"
    return None


def _indices_through(src: Source, last: int):
    """Numbers of the frames of ``src`` from its first one up to ``last``, in order."""
    if isinstance(src, FolderSource):
        return [i for i in src.indices if i <= last]
    return range(src.first_index, last + 1)


def _count_outputs(out: Path, prefix: str = "bin", ext: str = ".png") -> int:
    """Number of ``PREFIX<digits>EXT`` files in ``out`` (masks by default, or scores files)."""
    return sum(1 for p in out.glob(f"{prefix}[0-9]*{ext}") if p.stem[len(prefix):].isdigit() and p.is_file())


def export_masks(source, out_dir, config: Mapping | None = None, *, algorithm: str | None = None,
                 scores: bool | None = None, video: bool | None = None,
                 overwrite: bool | None = None, detector=None, progress: bool | None = None,
                 log: Callable[[str], None] | None = None,
                 handle_signals: bool = True) -> ExportResult:
    """Run a background subtractor over a source and write its masks (resumable, see module doc).

    Parameters
    ----------
    source : int, str, path or Source
        What :func:`silkvision.capture.open_source` opens (with the ``capture`` config keys), or an
        already open source (not closed here). A seekable source is exported from its first frame
        even if it was read from before (it is rewound); a camera from its next frame.
    out_dir : path
        Output folder (created). It must be empty, hold an unfinished export with the same settings
        (resumed), or ``overwrite`` must be set (our old files are deleted, others left alone).
    config : mapping, optional
        Configuration (as from :func:`silkvision.load_config`); default: built-in defaults.
    algorithm, scores, video, overwrite : optional
        Override ``detector.algorithm``, ``export.scores``, ``export.video``, ``export.overwrite``.
    detector : BackgroundSubtractor, optional
        Use this detector instead of creating one from the configuration.
    progress : bool, optional
        Show a tqdm progress bar on stderr; default: when stderr is a terminal.
    log : callable, optional
        Receives one-line notes (default: print to stderr).
    handle_signals : bool
        Catch SIGINT/SIGTERM (main thread only): finish the current frame, save the checkpoint and
        return with ``interrupted=True``.

    Returns
    -------
    ExportResult
    """
    cfg = validate(config or {}, "config")
    if algorithm is not None:
        cfg["detector"]["algorithm"] = algorithm
    for key, value in (("scores", scores), ("video", video), ("overwrite", overwrite)):
        if value is not None:
            cfg["export"][key] = bool(value)
    cfg = validate(cfg, "export_masks")  # checks the overrides too
    if log is None:
        def log(msg: str) -> None:
            print(f"silkvision: {msg}", file=sys.stderr, flush=True)
    if str(out_dir) == "":  # Path("") is the current folder: never meant as an output folder
        raise ExportError("output folder '': empty path; expected a folder path")
    out = Path(out_dir).expanduser()

    own_source = not isinstance(source, Source)
    if own_source:
        cap = cfg["capture"]
        src = open_source(source, camera_timeout=cap["camera_timeout"], resize=cap["resize"],
                          max_frames=cap["max_frames"])
    else:
        src = source
    try:
        return _export(src, out, cfg, detector, progress, log, handle_signals)
    finally:
        if own_source:
            src.close()


def _export(src: Source, out: Path, cfg: dict, det, progress, log, handle_signals) -> ExportResult:
    if src.kind in ("folder", "cdnet"):
        folder = Path(src.folder).resolve()
        if out.resolve() in (folder, folder.parent if src.kind == "cdnet" else folder):
            raise ExportError(f"{out}: is the source folder; choose another output folder")
    if det is None:
        det = create_subtractor(cfg["detector"]["algorithm"], config=cfg)
    algorithm = det.name
    if algorithm in ALGORITHMS:  # (a custom detector object keeps the configured name)
        cfg["detector"]["algorithm"] = algorithm
    res = ExportResult(out_dir=out, algorithm=algorithm)

    make_output_folder(out, ExportError)
    lock = _FolderLock(out)
    lock.acquire()
    try:
        return _export_locked(src, out, cfg, det, algorithm, res, progress, log, handle_signals)
    finally:
        lock.release()


def _export_locked(src, out, cfg, det, algorithm, res, progress, log, handle_signals) -> ExportResult:
    asked_scores = bool(cfg["export"]["scores"])
    want_scores = asked_scores and det.has_scores   # scores files written (MOG2/KNN have none)
    want_video = bool(cfg["export"]["video"])
    every = int(cfg["export"]["checkpoint_every"])
    settings = output_settings(cfg, algorithm)
    old = _prepare_folder(out, bool(cfg["export"]["overwrite"]))
    new = _manifest(src, algorithm, settings, "running")
    resume_index = None   # frames up to here are done (from the checkpoint)
    keep_existing = False  # replay without rewriting existing files
    frames_before = 0
    if old is not None:
        _compare(out, old, new)
        if old.get("status") == "complete":
            _check_complete_files(out, old, want_scores)
            (out / CHECKPOINT).unlink(missing_ok=True)
            res.frames, res.complete, res.already_complete = old["frames"], True, True
            res.first_index, res.last_index = old.get("first_index"), old.get("last_index")
            return res
        if not src.seekable:
            raise ExportError(f"{out}: holds an unfinished export of {src.name}, which cannot be "
                              f"resumed (a live camera); add --overwrite to start over")
        bad = None  # why checkpoint.npz cannot be used: then replay, keeping the masks
        if (out / CHECKPOINT).is_file():
            try:
                state, resume_index, frames_before = _load_checkpoint(
                    out, src, scores=want_scores)
            except _BadCheckpoint as e:
                bad = str(e)
            else:
                try:
                    det.set_state(state)
                except Exception as e:  # noqa: BLE001 - garbled arrays: ValueError, TypeError, ...
                    reset = getattr(det, "reset", None)
                    if not callable(reset):  # half-restored and cannot be made fresh again
                        raise ExportError(f"{out / CHECKPOINT}: cannot restore the {algorithm} "
                                          f"detector ({_why(e)}); use --overwrite to start "
                                          f"over") from None
                    reset()
                    bad = f"cannot restore the {algorithm} detector: {_why(e)}"
                    resume_index, frames_before = None, 0
        if resume_index is not None:
            res.resumed_from = resume_index
            res.notes.append(f"resuming {out} after frame {resume_index} (checkpoint)")
        elif bad is not None:
            keep_existing = True
            res.resumed_from = 0
            n = _count_outputs(out)
            res.notes.append(f"{out / CHECKPOINT}: cannot be used ({bad}); replaying from the "
                             f"first frame, keeping the {n} mask{'' if n == 1 else 's'} already written")
        else:
            keep_existing = True
            res.resumed_from = 0
            why = (f"{algorithm} cannot be checkpointed" if _get_state_unsupported(det)
                   else "no checkpoint was saved yet")
            res.notes.append(f"resuming {out}: {why}, so frames are replayed from the first one; "
                             f"masks already written are kept")
        for n in res.notes:
            log(n)
    # A fresh export (or a replay) starts at the first frame of the source, also when an open source
    # given by the caller was read from already: the manifest names the whole source, and a resume
    # counts export frame k as the source's k-th frame. The first frame is read before anything is
    # written, so a source without frames leaves no "running" manifest behind.
    pending = None
    if resume_index is None:
        if src.seekable:
            src.seek(src.first_index)
        try:
            pending = next(src)
        except StopIteration:
            _note_dropped(src, res, log)
            raise SourceError(f"{src.spec}: no frames to export") from None
    _write_manifest(out, new)
    with reported_write_errors(out / "config.yaml"):
        write_config(_effective_config(cfg), out / "config.yaml")
    if asked_scores and not want_scores:
        log(f"{algorithm} has no per-pixel scores: no scores files are written")

    # the video is opened at the first decoded frame (its real size; a header may disagree)
    writer = None
    if resume_index is not None:
        src.seek(resume_index)
        try:
            next(src)  # skip the checkpoint frame itself
        except StopIteration:
            pass
        if want_video:  # rebuild the video's first part from the masks on disk
            writer = MaskVideoWriter(out, src.frame_size, src.fps or 25.0)
            _feed_video_from_disk(out, src, writer, resume_index)

    frames = frames_before
    first_index = None if resume_index is None else src.first_index
    last_index = resume_index
    checkpointed = resume_index
    use_bar = sys.stderr.isatty() if progress is None else bool(progress)
    bar = None
    if use_bar:
        from tqdm import tqdm
        bar = tqdm(total=src.frame_count, initial=frames_before, unit="frame", file=sys.stderr,
                   desc=src.name, dynamic_ncols=True, leave=False)
    t0 = time.perf_counter()
    with _StopFlag(handle_signals) as stop:
        try:
            for index, frame in (src if pending is None else itertools.chain((pending,), src)):
                if want_video and writer is None:
                    writer = MaskVideoWriter(out, (frame.shape[1], frame.shape[0]), src.fps or 25.0)
                mask = det.apply(frame)
                mask_path = out / mask_name(index)
                if not (keep_existing and mask_path.is_file()):
                    write_mask_png(mask_path, mask)
                if want_scores:
                    sp = out / scores_name(index)
                    if not (keep_existing and sp.is_file()):
                        write_scores_npz(sp, det.scores)
                if writer is not None:
                    writer.write(mask)
                frames += 1
                res.processed += 1
                first_index = index if first_index is None else first_index
                last_index = index
                if bar is not None:
                    bar.update(1)
                if stop.set:
                    break
                if every and src.seekable and frames % every == 0:
                    if _save_checkpoint(out, det, index, frames):
                        checkpointed = index
        except SourceError:
            # the detector is consistent up to last_index: keep that so a fixed source resumes
            if src.seekable and last_index is not None and last_index != checkpointed:
                _save_checkpoint(out, det, last_index, frames)
            _note_dropped(src, res, log)
            if writer is not None:
                writer.abandon()
            raise
        except BaseException:
            if writer is not None:
                writer.abandon()
            raise
        finally:
            if bar is not None:
                bar.close()
    res.seconds = time.perf_counter() - t0
    res.signal = stop.signum
    res.frames, res.first_index, res.last_index = frames, first_index, last_index

    if stop.set and src.seekable:
        res.interrupted = True
        if writer is not None:
            writer.abandon()
        saved = last_index is not None and (last_index == checkpointed or
                                            _save_checkpoint(out, det, last_index, frames))
        if last_index is None:
            res.notes.append("interrupted before the first frame was exported")
        elif saved:
            res.notes.append(f"interrupted after frame {last_index}; checkpoint saved; run the same "
                             f"command again to resume")
        else:
            res.notes.append(f"interrupted after frame {last_index}; {algorithm} cannot be "
                             f"checkpointed, so running the same command again replays from the "
                             f"first frame (masks already written are kept)")
        log(res.notes[-1])
        return res

    res.interrupted = stop.set  # a camera export stopped by Ctrl-C is finished normally
    _note_dropped(src, res, log)
    if frames == 0:
        if writer is not None:
            writer.abandon()
        raise SourceError(f"{src.spec}: no frames to export")
    if writer is not None:
        res.video = writer.finish()
    _write_manifest(out, {**new, "status": "complete", "frames": frames, "first_index": first_index,
                          "last_index": last_index, "video": res.video.name if res.video else None,
                          "scores": want_scores, "silkvision": __version__})
    (out / CHECKPOINT).unlink(missing_ok=True)
    res.complete = True
    return res


def _effective_config(cfg: Mapping) -> dict:
    """``cfg`` as written to ``DIR/config.yaml``: ``export.overwrite`` is what one run does, not a
    setting of the output, so it is written as false -- reusing the file as ``--config`` must not
    silently replace another export."""
    return {**cfg, "export": {**cfg["export"], "overwrite": False}}


def _check_complete_files(out: Path, manifest: Mapping, want_scores: bool) -> None:
    """A folder whose manifest says "complete" must still hold every mask (and scores file)."""
    kinds = [("bin", ".png", "masks")] + ([("scores", ".npz", "scores files")] if want_scores else [])
    for prefix, ext, what in kinds:
        n = _count_outputs(out, prefix, ext)
        if n < manifest["frames"]:
            raise ExportError(f"{out}: export.json says the export is complete with {manifest['frames']} "
                              f"frames, but only {n} {what} are there (files were removed?); use "
                              f"--overwrite to redo it")


def _note_dropped(src: Source, res: ExportResult, log) -> None:
    """Tell the user how many camera frames arrived while the detector was busy (not exported)."""
    dropped = getattr(src, "dropped", 0)
    if dropped:
        res.notes.append(f"{dropped} camera frame{'s' if dropped != 1 else ''} arrived while the "
                         f"detector was busy and {'were' if dropped != 1 else 'was'} not exported (the "
                         f"camera runs faster than the detector)")
        log(res.notes[-1])


def _get_state_unsupported(det) -> bool:
    try:
        det.get_state()
    except NotImplementedError:
        return True
    except Exception:  # noqa: BLE001 - e.g. "no frame seen yet": it can checkpoint later
        return False
    return False


def _feed_video_from_disk(out: Path, src: Source, writer: MaskVideoWriter, last: int) -> None:
    """Write the masks ``first_index .. last`` from their PNG files into the video."""
    for i in _indices_through(src, last):
        path = out / mask_name(i)
        m = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if m is None:
            raise ExportError(f"{path}: missing or unreadable while rebuilding the mask video; "
                              f"use --overwrite to start over")
        writer.write(m)
