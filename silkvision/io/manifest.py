"""The manifest ``DIR/export.json``: what identifies an export and its source.

It names the source (and a fingerprint of its files, :func:`source_fingerprint`), the algorithm
and the settings that shape the output (:func:`output_settings`), and the status of the export.
A resume compares the manifest on disk with the one of the new run (:func:`compare_manifests`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from silkvision.capture import Source
from silkvision.capture.folder import FolderSource
from silkvision.capture.video import VideoSource
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ExportError, ExportMismatchError
from silkvision.io.atomic import atomic_write_text, reported_write_errors

__all__ = [
    "MANIFEST",
    "RECORDING_FILE",
    "read_recording",
    "output_settings",
    "source_id",
    "source_fingerprint",
    "FINGERPRINT_BYTES",
    "build_manifest",
    "write_manifest",
    "read_manifest",
    "compare_manifests",
]

MANIFEST = "export.json"
#: the file naming the source a GUI recording folder holds masks of (:mod:`silkvision.gui.recorder`)
RECORDING_FILE = "recording.json"
_FORMAT = 1


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
    keep = {
        "detector": {
            "algorithm": algorithm,
            **{k: det[k] for k in SHARED_KEYS},
            algorithm: det.get(algorithm, {}),
        },
        "capture": {"resize": cfg["capture"]["resize"], "max_frames": cfg["capture"]["max_frames"]},
        "export": {"scores": cfg["export"]["scores"], "video": cfg["export"]["video"]},
    }
    return _flat(keep)


def source_id(src: Source) -> str:
    """How an export (and a GUI recording) names its source: the resolved path of a file or
    folder, however it was typed, ``camera:<spec>``, or a stream's URL without its password."""
    if src.kind == "camera":
        return f"camera:{src.spec}"
    if src.kind == "stream":
        from silkvision.capture.stream import redact_url

        return redact_url(src.spec)
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


def build_manifest(src: Source, algorithm: str, settings: dict, status: str) -> dict:
    """The manifest of an export of ``src`` with ``algorithm`` and ``settings`` (as from
    :func:`output_settings`), with the given ``status`` ("running" or "complete")."""
    return {
        "format": _FORMAT,
        "status": status,
        "source": source_id(src),
        "source_kind": src.kind,
        "source_frames": src.frame_count,
        "source_fingerprint": source_fingerprint(src),
        "algorithm": algorithm,
        "settings": settings,
    }


def write_manifest(out: Path, manifest: dict) -> None:
    """Write ``manifest`` to ``out/export.json``, atomically; a write error (disk full, ...) is a
    one-line :class:`~silkvision.errors.ExportError`."""
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
    "skipped": (
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(s, dict) and _is_int(s.get("frame")) and isinstance(s.get("reason"), str)
                for s in v
            )
        ),
        'a list of {"frame": integer, "reason": string}',
    ),
    "damaged": (
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(d, dict) and _is_int(d.get("frame")) and isinstance(d.get("message"), str)
                for d in v
            )
        ),
        'a list of {"frame": integer, "message": string}',
    ),
    "source_through": (
        lambda v: isinstance(v, dict) and _is_int(v.get("frame")) and isinstance(v.get("digest"), str),
        '{"frame": integer, "digest": string}',
    ),
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


def read_manifest(out: Path) -> dict:
    """The manifest ``out/export.json``; a one-line :class:`~silkvision.errors.ExportError` when it
    cannot be read or is not a manifest this version can use."""
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
    raise ExportError(
        f"{path}: not a silkvision export manifest this version can read{why}; use --overwrite to start over"
    )


def _fmt(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else v


def compare_manifests(out: Path, old: dict, new: dict) -> None:
    """Raise ExportMismatchError naming the first thing that differs between two manifests."""
    running = old.get("status") != "complete"
    hint = (
        "; re-run with the arguments it was started with to resume it, or add --overwrite to start over"
        if running
        else "; choose another --out, or add --overwrite to replace it"
    )
    if old.get("source") != new["source"]:
        raise ExportMismatchError(f"{out}: holds an export of {old.get('source')}, not {new['source']}{hint}")
    if old.get("algorithm") != new["algorithm"]:
        raise ExportMismatchError(
            f"{out}: holds an export made with --algorithm {old.get('algorithm')}, "
            f"not {new['algorithm']}{hint}"
        )
    a, b = old.get("settings", {}), new["settings"]
    for key in list(b) + [k for k in a if k not in b]:
        if a.get(key, "<unset>") != b.get(key, "<unset>"):
            raise ExportMismatchError(
                f"{out}: holds an export made with {key}={_fmt(a.get(key, '<unset>'))}, "
                f"not {_fmt(b.get(key, '<unset>'))}{hint}"
            )
    # the same source path, but other content: resuming would mix masks of the old and new frames
    redo = f"add --overwrite to {'start over' if running else 'export it again'}"
    if old.get("source_frames") != new["source_frames"]:
        raise ExportMismatchError(
            f"{out}: holds an export of a source with {old.get('source_frames')} "
            f"frames, but it now has {new['source_frames']}; restore the source "
            f"as it was{' to resume' if running else ''}, or {redo}"
        )
    before, now = old.get("source_fingerprint"), new["source_fingerprint"]
    if before is not None and now is not None and before != now:  # None: unknown (older manifest)
        raise ExportMismatchError(
            f"{out}: {new['source']} changed since the "
            f"{'interrupted ' if running else ''}export in this folder (the "
            f"names or sizes of its files, or its first or last file, differ); "
            f"{redo}"
        )


def read_recording(folder: str | Path) -> dict:
    """What a GUI recording folder's ``recording.json`` says of its source (``{}`` when there is
    none or it cannot be read)."""
    data = read_json(Path(folder) / RECORDING_FILE)
    return data if isinstance(data, dict) else {}


def read_json(path: Path):
    """The JSON in ``path``, or None when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
