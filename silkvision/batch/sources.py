"""The sources of a batch: ``SOURCE`` arguments expanded into one :class:`Job` per video.

A ``SOURCE`` is a video file, an image folder, a CDnet sequence folder (with ``input/``), a glob
pattern (``'archive/**/*.mp4'``, expanded here, so quote it), ``@LIST`` (a text file naming one
``SOURCE`` a line; blank lines and lines starting with ``#`` are skipped; relative paths are taken
from the working folder, as the shell would), or a folder of any of these: a folder that is neither
a CDnet sequence nor holds images itself is searched, with its sub-folders, for video files
(:data:`VIDEO_EXTENSIONS`), image folders and CDnet sequences.

Each source's output folder is ``OUT/<name>``: the file's stem or the folder's name. Names shared
by several sources get the names of their parent folders in front (``cam1_0800``, ``cam2_0800``)
until they differ, else ``-2``, ``-3`` ... in the order of their paths; the same command therefore
always gives the same names.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from silkvision.capture import IMAGE_EXTENSIONS
from silkvision.errors import ConfigError

__all__ = ["Job", "expand_sources", "VIDEO_EXTENSIONS"]

#: File extensions taken as videos when a folder is searched (a file named directly is always
#: tried, whatever its extension).
VIDEO_EXTENSIONS = frozenset(
    {
        ".avi",
        ".mp4",
        ".m4v",
        ".mkv",
        ".mov",
        ".mpg",
        ".mpeg",
        ".m2v",
        ".ts",
        ".mts",
        ".m2ts",
        ".webm",
        ".wmv",
        ".flv",
        ".ogv",
        ".3gp",
        ".mjpeg",
        ".mjpg",
        ".h264",
        ".h265",
        ".hevc",
        ".y4m",
    }
)

_GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class Job:
    """One source of a batch.

    Attributes
    ----------
    source : str
        The path as given (or as found by a glob or a folder search).
    name : str
        The name of its output folder under the batch's ``--out``; empty for a pattern that
        matched nothing (it has no output).
    error : str or None
        Why it cannot run at all (a pattern that matched nothing); None otherwise. A missing or
        unreadable file is not found out here but by its own export, on the cluster.
    """

    source: str
    name: str
    error: str | None = None


def _is_sequence(folder: Path) -> bool:
    """A folder ``open_source`` reads as one source: a CDnet sequence or a folder of images."""
    if (folder / "input").is_dir():
        return True
    try:
        with os.scandir(folder) as it:
            return any(
                e.is_file() and Path(e.name).suffix.lower() in IMAGE_EXTENSIONS and not e.name.startswith(".")
                for e in it
            )
    except OSError:
        return False


def _search(folder: Path, skip: str | None = None) -> list[Path]:
    """Video files, image folders and CDnet sequences in ``folder`` and its sub-folders, sorted;
    nothing in the folder ``skip`` (a real path: the batch's output)."""
    found = []
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda entry: entry.name)
    except OSError as e:
        raise ConfigError(
            f"{folder}: cannot list the folder ({e.strerror}); expected a readable "
            f"folder of videos or sequences"
        ) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        p = Path(entry.path)
        if entry.is_dir():
            if skip is not None and os.path.realpath(p) == skip:
                continue
            found += [p] if _is_sequence(p) else _search(p, skip)
        elif entry.is_file() and p.suffix.lower() in VIDEO_EXTENSIONS:
            found.append(p)
    return found


def _read_list(item: str) -> list[str]:
    path = Path(item[1:]).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or "not UTF-8 text"
        raise ConfigError(
            f"{item}: cannot read the list {path} ({why}); expected a text file with one SOURCE a line"
        ) from None
    lines = [ln.strip() for ln in text.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _paths(
    items: list[str], in_list: str | None = None, skip: str | None = None
) -> list[tuple[str, str | None]]:
    """``(source, error)`` for every item, lists and patterns and folders expanded."""
    out: list[tuple[str, str | None]] = []
    for item in items:
        if item == "":
            raise ConfigError(
                f"SOURCE ''{f' in {in_list}' if in_list else ''}: empty path; expected "
                f"a video file, a folder, a glob pattern or @LIST"
            )
        if item.startswith("@") and in_list is None:
            out += _paths(_read_list(item), in_list=item, skip=skip)
            continue
        if item.strip().isdecimal():
            if not Path(item).exists():
                raise ConfigError(
                    f"SOURCE {item!r}: a camera index; batch exports recordings (files, "
                    f"folders, CDnet sequences), not live cameras (use silkvision export)"
                )
            item = os.path.join(".", item)  # the file "0", not camera 0
        if _GLOB_CHARS & set(item) and not Path(item).exists():
            matches = sorted(glob.glob(os.path.expanduser(item), recursive=True))
            if not matches:
                out.append((item, f"{item}: no file or folder matches this pattern"))
            for m in matches:
                p = Path(m)
                if p.is_dir() and not _is_sequence(p):
                    out += [(str(f), None) for f in _search(p, skip)]
                else:
                    out.append((m, None))
            continue
        p = Path(item).expanduser()
        if p.is_dir() and not _is_sequence(p):
            found = _search(p, skip)
            if not found:
                out.append((item, f"{item}: holds no video file, image folder or CDnet sequence"))
            out += [(str(f), None) for f in found]
        else:
            out.append((item, None))
    return out


def _base_name(path: Path) -> str:
    return path.name if path.is_dir() else path.stem or path.name


def _unique_names(paths: list[Path]) -> list[str]:
    """Output folder names, one per path (see the module docstring)."""
    names = [_base_name(p) for p in paths]
    groups: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        groups.setdefault(n, []).append(i)
    for base, idx in groups.items():
        if len(idx) < 2:
            continue
        parents = [list(paths[i].absolute().parent.parts[1:]) for i in idx]
        distinct = len({tuple(p) for p in parents})  # sources in one folder stay equal here
        depth = 0
        cand = [base] * len(idx)
        while len(set(cand)) < distinct and depth < max(len(p) for p in parents):
            depth += 1
            cand = ["_".join(p[-depth:] + [base]) for p in parents]
        for i, c in zip(idx, cand):
            names[i] = c
    seen: dict[str, int] = {}
    order = sorted(range(len(paths)), key=lambda i: str(paths[i].absolute()))
    for i in order:  # still equal (e.g. a.mp4 and a.avi side by side): -2, -3 in path order
        n = names[i]
        seen[n] = seen.get(n, 0) + 1
        if seen[n] > 1:
            names[i] = f"{n}-{seen[n]}"
    return names


def expand_sources(items: list[str], out=None) -> list[Job]:
    """Expand ``SOURCE`` arguments into jobs (see the module docstring).

    Parameters
    ----------
    items : list of str
        Paths, glob patterns, ``@LIST`` files.
    out : path, optional
        The batch's output folder: nothing inside it is a source (masks of an earlier run in a
        searched folder are image folders too).

    Returns
    -------
    list of Job
        In the order given (a folder's or a pattern's sources sorted by path); a source named
        twice (the same file or folder) is kept once.

    Raises
    ------
    ConfigError
        An empty path, a camera index, an unreadable ``@LIST`` or folder, or no source at all.
    """
    pairs, seen = [], set()
    skip = os.path.realpath(os.path.expanduser(out)) if out is not None else None
    inside = (skip + os.sep) if skip is not None else None
    for src, err in _paths(list(items), skip=skip):
        if (
            inside is not None
            and err is None
            and os.path.realpath(os.path.expanduser(src)).startswith(inside)
        ):
            continue
        key = os.path.realpath(os.path.expanduser(src)) if err is None else src
        if key in seen:
            continue
        seen.add(key)
        pairs.append((src, err))
    if not pairs:
        raise ConfigError("SOURCE: none given; expected video files, folders, glob patterns or @LIST")
    ok = [i for i, (_, err) in enumerate(pairs) if err is None]
    names = _unique_names([Path(pairs[i][0]).expanduser() for i in ok])
    name_of = dict(zip(ok, names))
    return [Job(src, name_of.get(i, ""), err) for i, (src, err) in enumerate(pairs)]
