"""Loaders for the online-classification data sets (dense NumPy arrays, labels ready for the learners).

:func:`load` accepts either a data-set *name* (a file or folder under the online-data root, e.g.
``"german"``, ``"letter"``, ``"german/german.numer_scale"`` or ``"w7a.t"``) or a *path* to a file in
one of these formats:

* ``.mat`` (MATLAB v5, read with :func:`scipy.io.loadmat`): variable ``data`` = ``[label, X]``; the
  Hoi-group experiment files (``*.hoi.mat``) also hold ``ID_ALL`` / ``ID_all`` / ``ID_list``, 20 x n
  **1-based** random permutations (the "20 runs" of the DUOL/LIBOL papers), returned 0-based in
  :attr:`Dataset.orderings`;
* LIBSVM/SVMlight text (``label idx:value ...``, 1-based indices, sparse -> dense);
* CSV (comma, semicolon or tab separated: the one that splits the first 20 lines alike; RFC 4180
  quotes), label in the first column by default (or the header column named y/label/class/target;
  ``label_column=-1`` for the last), optional header line (``header``);
* ARFF (dense ``@data`` only; the class is the last attribute unless ``label_column`` says otherwise;
  a nominal class attribute's values must be among those it declares).

Labels: with two classes they are mapped to -1/+1 (-1 = the smaller original label, so -1/+1 stay
as they are and 0/1 become -1/+1); with more classes to 0..K-1 in sorted order of the original
labels. :attr:`Dataset.classes` keeps the mapping (``classes[code]`` = original label, with code
0 -> -1 and 1 -> +1 in the binary case).

The online-data root is the ``root=`` argument, else the environment variable
``SILKVISION_ONLINE_DATA``, else ``<repo>/../shared/data/online``. It is only consulted when a name
is loaded, never at import time. Every user error is a one-line :class:`silkvision.errors.DataError`.

Rejected as errors (the learners could not use them): a file with no feature column besides the
label, labels of a single class, and a LIBSVM file (or ``n_features``) whose dense ``n x d`` matrix
would hold more than :data:`MAX_DENSE_ELEMENTS` values (2**31, 16 GiB of float64; e.g. one
``+1 99999999999:1`` line); the learners need dense rows, and a stray huge index is almost always a
mistake. ``label_column`` applies to CSV and ARFF files only. Also refused: a label column that
mixes numbers and names, an empty label, a header whose first cell is empty (pandas' row index),
UTF-16 text, a data line that is not UTF-8 (a byte of another encoding is accepted in comments
only) and (with a hint) decimal commas.
"""

from __future__ import annotations

import csv
import numbers
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from silkvision.errors import DataError

__all__ = ["Dataset", "load", "default_root", "available_names", "resolve"]

_ORDERING_KEYS = ("ID_ALL", "ID_all", "ID_list")
#: Largest dense ``n x d`` matrix a loader builds: 2**31 values (16 GiB of float64).
MAX_DENSE_ELEMENTS = 2**31
_LABEL_NAMES = {"y", "label", "labels", "class", "target"}


@dataclass
class Dataset:
    """An online-classification data set.

    Attributes
    ----------
    X : ndarray, float64, shape (n, d)
    y : ndarray, shape (n,)
        float64 -1/+1 when ``n_classes <= 2``, else int64 0..K-1.
    orderings : ndarray of int64, shape (runs, n), or None
        0-based permutations stored with the data (the papers' 20 runs); None when the file has none.
    name : str
    n_classes : int
    classes : list
        Original label of each code (binary: ``[label of -1, label of +1]``).
    path : str
        The file that was read.
    """

    X: np.ndarray
    y: np.ndarray
    orderings: np.ndarray | None
    name: str
    n_classes: int
    classes: list = field(default_factory=list)
    path: str = ""

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def is_binary(self) -> bool:
        return self.n_classes <= 2

    def __repr__(self) -> str:
        o = "none" if self.orderings is None else f"{self.orderings.shape[0]}"
        return (
            f"Dataset({self.name!r}, n={self.n_samples}, d={self.n_features}, "
            f"classes={self.n_classes}, orderings={o})"
        )


def default_root() -> Path | None:
    """The online-data root: ``$SILKVISION_ONLINE_DATA``, else ``<checkout>/../shared/data/online``
    when silkvision runs from a source checkout (one with ``pyproject.toml``), else None (an
    installed package has no place of its own for the data)."""
    env = os.environ.get("SILKVISION_ONLINE_DATA")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / "pyproject.toml").is_file():
        return None
    return checkout.parent / "shared" / "data" / "online"


def _root(root) -> Path | None:
    return Path(root) if root is not None else default_root()


# preference when a name is a folder: files with orderings first, then the usual LIBSVM names
def _pick_in_folder(folder: Path) -> Path | None:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        return None
    name = folder.name
    for pred in (
        lambda p: p.name.endswith(".hoi.mat"),
        lambda p: p.suffix == ".mat",
        lambda p: p.name == f"{name}.scale",
        lambda p: p.name == name,
        lambda p: p.suffix in ("", ".scale", ".libsvm", ".svm") and not p.name.endswith(".t"),
        lambda p: True,
    ):
        hits = [p for p in files if pred(p)]
        if hits:
            return hits[0]
    return None


def available_names(root: str | os.PathLike | None = None) -> list[str]:
    """Names of the data-set folders under the online-data root (empty if the root is absent)."""
    r = _root(root)
    if r is None or not r.is_dir():
        return []
    return sorted(p.name for p in r.iterdir() if p.is_dir() and _pick_in_folder(p) is not None)


def resolve(name_or_path: str | os.PathLike, root: str | os.PathLike | None = None) -> Path:
    """The file that :func:`load` would read for ``name_or_path`` (raises :class:`DataError`)."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ValueError(f"name_or_path: {name_or_path!r} is not a data set name or a path")
    if not str(name_or_path).strip():  # Path("") is the current folder: never what was meant
        raise DataError(
            f"{str(name_or_path)!r}: empty data set name or path; expected a name under the "
            f"data root or a data file"
        )
    p = Path(name_or_path)
    if p.is_file():
        return p
    if p.is_dir():
        f = _pick_in_folder(p)
        if f is None:
            raise DataError(f"{p}: folder holds no data file")
        return f
    if os.path.lexists(p):  # there, but not readable as a file: a FIFO, a device, a broken link
        from silkvision.capture.images import not_a_file

        raise DataError(f"{p}: {not_a_file(p)}; expected a data file")
    r = _root(root)
    s = str(name_or_path)
    looks_like_path = os.sep in s and (p.is_absolute() or s.startswith("."))
    if not looks_like_path and r is not None and r.is_dir():
        cand = r / s
        if cand.is_file():
            return cand
        if cand.is_dir():
            f = _pick_in_folder(cand)
            if f is not None:
                return f
        if os.sep not in s:  # a file name inside one of the data-set folders, e.g. "w7a.t"
            hits = sorted(r.glob(f"*/{s}"))
            if hits:
                return hits[0]
    if r is None:
        where = " (no data root: pass --data-root DIR or set SILKVISION_ONLINE_DATA)"
    else:
        state = "" if r.is_dir() else ", which is not a folder" if r.exists() else ", which does not exist"
        where = f" (data root {r}{state})"
    raise DataError(f"{name_or_path}: no such data file or data-set name{where}")


def _refuse_utf16(path: Path, head: bytes, what: str) -> None:
    """DataError for UTF-16 text (a byte-order mark, or ASCII with every other byte NUL)."""
    utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))
    if not utf16 and len(head) >= 4:  # no byte-order mark: text that decodes as UTF-16
        for enc in ("utf-16-le", "utf-16-be"):
            try:
                t = head[: len(head) // 2 * 2].decode(enc)
            except UnicodeDecodeError:
                continue
            if sum(c.isprintable() or c in "\t\r\n" for c in t) >= 0.95 * len(t) and sum(
                c.isascii() for c in t
            ) >= 0.9 * len(t):
                utf16 = True
                break
    if utf16:
        raise DataError(
            f"{path}: is UTF-16 text; expected UTF-8{' ' + what if what else ''} text (convert "
            f"it, e.g. iconv -f UTF-16 -t UTF-8)"
        )


def _binary(head: bytes) -> bool:
    """Whether the first bytes of a file are not text: a NUL byte, or bytes that are not UTF-8 and
    are mostly high bytes. A multi-byte character cut at the block's end is text, and so is a stray
    byte of another encoding (a Latin-1 accent in a comment; :func:`_read_lines` refuses one in data)."""
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < len(head) - 4 and sum(b >= 0x80 for b in head) > len(head) // 10
    return False


def _check_text(path: Path, fmt: str) -> None:
    """DataError when the start of a CSV/LIBSVM/ARFF file is not text (:func:`_binary`, UTF-16)
    instead of a parse error about its 'fields'."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    _refuse_utf16(path, head, fmt.upper())
    if _binary(head):
        raise DataError(
            f"{path}: is not a text file (binary content at the start); expected {fmt.upper()} text"
        )


def _detect_format(path: Path) -> str:
    suf = path.suffix.lower()
    if suf == ".mat":
        return "mat"
    if suf == ".arff":
        return "arff"
    if suf in (".csv", ".tsv"):
        return "csv"
    if suf in (".libsvm", ".svm", ".svmlight", ".scale"):
        return "libsvm"
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.startswith(b"MATLAB"):
        return "mat"
    _refuse_utf16(path, head, "")
    if _binary(head):
        raise DataError(f"{path}: unknown data format (binary file that is not MATLAB .mat)")
    text = head.decode("utf-8", errors="replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("%", "#"))]
    if not lines:
        raise DataError(f"{path}: file holds no data")
    if any(ln.lower().startswith(("@relation", "@attribute", "@data")) for ln in lines[:50]):
        return "arff"
    first = lines[0].split("#", 1)[0].strip() or lines[0]  # a trailing comment is not data
    if re.search(r"\d:\S", first) and "," not in first:
        return "libsvm"
    if "," in first or ";" in first or "\t" in first:
        return "csv"
    if re.fullmatch(r"\S+", first):  # a label with no features: LIBSVM with an all-zero row
        return "libsvm"
    return "csv"  # whitespace-separated dense table


def _map_labels(raw: list | np.ndarray, path: Path, label_hint: str = ""):
    """Original labels -> (y, classes, n_classes). ``label_hint`` ends the message about
    non-integer labels (where the label might be instead)."""
    arr = np.asarray(raw)
    if arr.dtype.kind in "fiub":
        arr = arr.astype(np.float64)
        bad = arr[~np.isfinite(arr)]
        if bad.size:
            raise DataError(
                f"{path}: the labels include {bad[0]:g}; class labels must be finite integers or names"
            )
        frac = arr[arr != np.round(arr)]
        if frac.size:  # a real-valued column: a feature or a regression target, not a class label
            raise DataError(
                f"{path}: the labels include non-integer values such as {frac[0]:g}; "
                f"class labels must be integers or names{label_hint}"
            )
        classes, codes = np.unique(arr, return_inverse=True)
        classes = [int(c) for c in classes]
    else:
        arr = arr.astype(str)
        classes, codes = np.unique(arr, return_inverse=True)
        classes = [str(c) for c in classes]
    codes = codes.reshape(-1)
    k = len(classes)
    if k == 1:
        lab = classes[0] if not isinstance(classes[0], str) else repr(classes[0])
        what = f"the only example has label {lab}" if len(codes) == 1 else f"all labels are {lab}"
        raise DataError(f"{path}: {what}; a classifier needs at least two classes")
    if k <= 2:
        return np.where(codes == 0, -1.0, 1.0), classes, 2
    return codes.astype(np.int64), classes, k


def _load_mat(path: Path, n_features: int | None):
    try:
        import scipy.io as sio

        m = sio.loadmat(str(path))
    except Exception as e:  # corrupt, truncated or v7.3 (HDF5) files
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DataError(f"{path}: cannot read MATLAB file ({msg})") from None
    if "data" not in m:
        keys = [k for k in m if not k.startswith("__")]
        raise DataError(f"{path}: MATLAB file has no variable 'data' = [label, X] (it has {', '.join(keys)})")
    data = m["data"]
    if not isinstance(data, np.ndarray) or data.dtype.kind not in "fiub":
        kind = (
            type(data).__name__
            if not isinstance(data, np.ndarray)
            else {"c": "complex", "U": "text", "S": "text", "O": "cell/struct"}.get(
                data.dtype.kind, str(data.dtype)
            )
        )
        raise DataError(
            f"{path}: variable 'data' must be a real numeric (full, not sparse) 2-D array "
            f"[label, X], got {kind} values"
        )
    if data.ndim != 2 or data.shape[1] < 1:
        raise DataError(
            f"{path}: variable 'data' must be a numeric 2-D array [label, X], got shape {data.shape}"
        )
    if not np.all(np.isfinite(data.astype(np.float64))):
        raise DataError(f"{path}: variable 'data' contains NaN or infinite values")
    X = np.ascontiguousarray(data[:, 1:], dtype=np.float64)
    if n_features is not None:
        X = _fit_width(X, n_features, path)
    order = None
    for key in _ORDERING_KEYS:
        if key in m:
            ids = np.asarray(m[key])
            n = X.shape[0]
            if ids.ndim != 2 or ids.shape[1] != n:
                if ids.ndim == 2 and ids.shape[0] == n:
                    ids = ids.T
                else:
                    raise DataError(
                        f"{path}: variable {key!r} must be runs x {n} permutations, got {ids.shape}"
                    )
            if ids.dtype.kind not in "iuf" or (ids.dtype.kind == "f" and np.any(ids != np.round(ids))):
                raise DataError(f"{path}: variable {key!r} must hold integer indices 1..{n}")
            o = ids.astype(np.int64) - 1
            srt = np.sort(o, axis=1)
            if not np.all(srt == np.arange(n)[None, :]):
                raise DataError(f"{path}: variable {key!r} rows are not 1-based permutations of 1..{n}")
            order = o
            break
    return data[:, 0], X, order


def _size_text(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if nbytes < 1024 or unit == "EiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return ""  # pragma: no cover


def _dense_zeros(n: int, d: int, where: str, what: str) -> np.ndarray:
    """``np.zeros((n, d))``, or a one-line DataError when it is too large (``where``: "file:line";
    ``what``: the cause, e.g. "feature index 99999999999")."""
    size = _size_text(8.0 * n * d)
    if n * d > MAX_DENSE_ELEMENTS:
        limit = _size_text(8.0 * MAX_DENSE_ELEMENTS)
        raise DataError(
            f"{where}: {what} would make a dense {n} x {d} matrix ({size}, more than the "
            f"limit of {limit}); the learners need dense rows"
        )
    try:
        return np.zeros((n, d))
    except MemoryError:
        raise DataError(
            f"{where}: {what} needs a dense {n} x {d} matrix ({size}): not enough memory"
        ) from None


def _fit_width(X: np.ndarray, n_features: int, path: Path) -> np.ndarray:
    if X.shape[1] == n_features:
        return X
    if X.shape[1] > n_features:
        raise DataError(f"{path}: has {X.shape[1]} features, more than n_features={n_features}")
    out = _dense_zeros(X.shape[0], n_features, str(path), f"n_features={n_features}")
    out[:, : X.shape[1]] = X
    return out


def _decimal_comma(tok: str) -> bool:
    """A number written with a decimal comma (``1,5``)."""
    return "," in tok and _is_number(tok.replace(",", ".", 1))


def _float(tok: str, path: Path, lineno: int, what: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        hint = ""
        if _decimal_comma(tok):
            hint = "; a decimal comma? numbers must use '.'"
        raise DataError(f"{path}:{lineno}: bad {what} {tok!r} (expected a number{hint})") from None
    if not np.isfinite(v):
        raise DataError(f"{path}:{lineno}: {what} {tok!r} is not finite")
    return v


def _load_libsvm(path: Path, n_features: int | None):
    labels: list = []
    rows_i: list = []
    rows_j: list = []
    vals: list = []
    dmax = 0
    dmax_line = 0
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            toks = line.split()
            lab = toks[0]
            try:
                labels.append(float(lab))
            except ValueError:
                raise DataError(f"{path}:{lineno}: bad label {lab!r} (expected a number)") from None
            r = len(labels) - 1
            last = 0
            for t in toks[1:]:
                idx, sep, val = t.partition(":")
                if not sep or not (idx.isascii() and idx.isdigit()) or int(idx) < 1:
                    if t.startswith("qid:"):
                        continue
                    raise DataError(f"{path}:{lineno}: bad feature {t!r} (expected index:value, index >= 1)")
                j = int(idx)
                if j <= last:
                    raise DataError(f"{path}:{lineno}: feature indices must increase ({last} then {j})")
                last = j
                rows_i.append(r)
                rows_j.append(j - 1)
                vals.append(_float(val, path, lineno, f"value of feature {j}"))
            if last > dmax:
                dmax, dmax_line = last, lineno
    if not labels:
        raise DataError(f"{path}: file holds no data")
    d = dmax if n_features is None else n_features
    if dmax > d:
        raise DataError(f"{path}: feature index {dmax} exceeds n_features={n_features}")
    if n_features is None:
        X = _dense_zeros(len(labels), d, f"{path}:{dmax_line}", f"feature index {dmax}")
    else:
        X = _dense_zeros(len(labels), d, str(path), f"n_features={n_features}")
    if vals:
        X[np.asarray(rows_i), np.asarray(rows_j)] = np.asarray(vals)
    return np.asarray(labels), X, None


def _split_fields(line: str, sep: str | None) -> list[str]:
    """The fields of one line. With a separator, RFC 4180 quoting is respected (``1,"1,5",2`` has
    three fields; an unterminated quote is a ValueError); whitespace-separated lines split on runs
    of blanks."""
    if not sep:
        return [f.strip().strip('"').strip("'") for f in line.split()]
    try:
        fields = next(csv.reader([line], delimiter=sep, skipinitialspace=True, strict=True))
    except csv.Error as e:
        raise ValueError(f"bad quoting ({e})") from None
    return [f.strip().strip("'") for f in fields]


#: a number written with a decimal comma (a cell under ``;`` or tab)
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+(?:[eE][-+]?\d+)?")


def _sniff_sep(lines: list[tuple[int, str]]) -> str | None:
    """The separator of a delimited table: of ``,``, ``;`` and tab, those in the first line that
    split the first 20 lines into one and the same number (>= 2) of fields; of these the one that
    gives the most numeric cells below line 1 (``1;0.5;2`` is ``;``-separated even if line 1, a
    header, holds a comma). When another separator fits too and every cell it gives that holds a
    comma is a number with a decimal comma (``spam;2,5``), that separator is taken and the parse
    refuses the decimal commas with a hint (read as the separator, the commas gave names like
    ``spam;2`` over a column of fives)."""
    head = lines[:20]
    present = [c for c in (",", ";", "\t") if c in head[0][1]]
    best, best_score, fits = None, -1, []
    for c in present:
        try:
            split = [_split_fields(t, c) for _, t in head]
        except ValueError:
            continue
        counts = {len(f) for f in split}
        if len(counts) != 1 or counts.pop() < 2:
            continue
        fits.append(c)
        score = sum(_is_number(f) for fields in split[1:] for f in fields)
        if score > best_score:
            best, best_score = c, score
    if best == "," and len(fits) > 1:
        # every comma inside a number with one decimal comma under the other separator
        cells = [f for _, t in head for f in _split_fields(t, fits[1]) if "," in f]
        if cells and all(_DECIMAL_COMMA.fullmatch(f) for f in cells):
            best = fits[1]
    if best is None and present:
        best = present[0]  # none fits: the parse reports the first bad line
    return best


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _is_integer_text(s: str) -> bool:
    s = s.strip()
    return s.isascii() and s.lstrip("+-").isdecimal()


#: a label column with a different value on each of at least this many rows is refused (an ID column)
ID_ROWS = 20


def _table(
    path: Path,
    lines: list[tuple[int, str]],
    label_column: int,
    header,
    n_features: int | None,
    sep: str | None,
):
    """Dense table rows -> labels, X. ``lines`` = (lineno, text) of the data lines."""
    if not lines:
        raise DataError(f"{path}: file holds no data")
    rows = []
    for ln, t in lines:
        try:
            rows.append((ln, _split_fields(t, sep)))
        except ValueError as e:
            raise DataError(f"{path}:{ln}: {e}") from None
    ncol = len(rows[0][1])
    if ncol < 1:
        raise DataError(f"{path}:{rows[0][0]}: empty row")
    numeric = _is_number
    head1 = rows[0][1][1:]
    # pandas' header over its row index: names, or its own column numbers 0, 1, 2, ... when the
    # columns are unnamed (",0.5,0.2" is a data row with an empty label, reported below)
    pandas_head = all(head1) and (
        not any(numeric(f) for f in head1)
        or (all(_is_integer_text(f) for f in head1) and [int(f) for f in head1] == list(range(len(head1))))
    )
    if ncol >= 2 and rows[0][1][0] == "" and pandas_head and len(rows) > 1 and rows[1][1][0] != "":
        raise DataError(
            f"{path}:{rows[0][0]}: the header's first column has no name, as pandas writes its "
            f"row index (to_csv with index=True); write the file with index=False, or drop "
            f"that column"
        )

    if label_column is None:  # a header naming the label column, else the first column
        names = [f.lower() for f in rows[0][1]]
        named = [k for k, f in enumerate(names) if f in _LABEL_NAMES]
        by_name = len(named) == 1 and header is not False
        label_column = named[0] if by_name else 0
        guessed = not by_name  # the first column, by default
    else:
        guessed = False
    lc = label_column if label_column >= 0 else ncol + label_column
    if not 0 <= lc < ncol:
        raise DataError(f"{path}: label_column={label_column} is outside the {ncol} columns")

    if header == "auto":
        f0 = rows[0][1]
        # a header names every column; a first row with numbers among other cells is a data row
        # with a typo (or an empty cell), which the parse below reports by line
        feats = [f for k, f in enumerate(f0) if k != lc]
        lab = f0[lc]
        feats_bad = bool(feats) and not any(numeric(f) for f in feats) and not numeric(lab)
        # a label name seen only once over numbered feature columns ("Letter,1,2,...,16" in UCI's
        # letter-recognition.data, "label,1,2"); a class name seen once over feature values
        # ("rare,0.9,0.9") is an example of a rare class, not a header
        nums = [f.strip() for f in feats]
        numbered = len(nums) >= 2 and all(f.isascii() and f.isdecimal() for f in nums)
        if numbered:
            first = int(nums[0])
            numbered = first <= 2 and [int(f) for f in nums] == list(range(first, first + len(nums)))
        once = len(rows) > 1 and all(r[1][lc] != lab for r in rows[1:] if len(r[1]) > lc)
        lab_header = once and not numeric(lab) and (numbered or lab.strip().lower() in _LABEL_NAMES)
        # below line 1 the labels are all numbers: a lone name on line 1 names the column
        later = [r[1][lc] for r in rows[1:] if len(r[1]) > lc]
        # (not over fractional cells: "1O,0.5,0.2" is a data row with a typo, reported below)
        named_over_numbers = (
            once
            and not numeric(lab)
            and lab.strip() != ""
            and bool(later)
            and all(numeric(v) for v in later)
            and not any(numeric(f) and not _is_integer_text(f) for f in feats)
        )
        # line 1 holds only integers (column names such as wavelengths, or pandas' 0..d) where the
        # rows below have fractional values: "diagnosis,400,410,420" or "0,1,2" over "1,0.5,0.1"
        later_frac = any(
            numeric(f) and not _is_integer_text(f) for r in rows[1:21] for k, f in enumerate(r[1]) if k != lc
        )
        int_names = bool(feats) and all(_is_integer_text(f) for f in feats) and later_frac
        pandas_names = (
            ncol >= 3
            and int_names
            and _is_integer_text(lab)
            and [int(f) for f in f0] == list(range(int(f0[0]), int(f0[0]) + ncol))
            and int(f0[0]) in (0, 1)
        )
        header = feats_bad or lab_header or named_over_numbers
        if not header and ((int_names and once and not numeric(lab)) or pandas_names):
            # column names or a first example with integer values? Either guess can lose data
            raise DataError(
                f"{path}:{rows[0][0]}: line 1 ({lines[0][1][:40]!r}) may be a header of "
                f"numbered columns or an example with integer values; say which: header=True "
                f"or header=False (online-bench --header yes|no)"
            )
    head_names = rows[0][1] if header else None
    if header:
        rows = rows[1:]
        if not rows:
            raise DataError(f"{path}: file holds only a header line")
    labels = []
    X = np.empty((len(rows), ncol - 1))
    for i, (ln, f) in enumerate(rows):
        if len(f) != ncol:
            raise DataError(f"{path}:{ln}: expected {ncol} fields, got {len(f)}")
        labels.append(f[lc])
        k = 0
        for c, tok in enumerate(f):
            if c == lc:
                continue
            X[i, k] = _float(tok, path, ln, f"value in column {c + 1}")
            k += 1
    if n_features is not None:
        X = _fit_width(X, n_features, path)
    if guessed and len(labels) >= ID_ROWS and len(set(labels)) == len(labels):
        name = f", {head_names[lc]!r}" if head_names else ""
        raise DataError(
            f"{path}: the label column (column {lc + 1}{name}) holds a different value on each of "
            f"its {len(labels)} rows, as an ID column does; choose the label with label_column "
            f"(--label-column; label_column=0 keeps this one)"
        )
    empty = [i for i, v in enumerate(labels) if v == ""]
    if empty:
        raise DataError(f"{path}:{rows[empty[0]][0]}: the label (column {lc + 1}) is empty")
    # "nan" and "inf" parse as floats but cannot be class numbers: among names they are names,
    # among numbers a missing or broken label
    is_num = [numeric(v) and np.isfinite(float(v)) for v in labels]
    if all(numeric(v) for v in labels):  # _float names a "nan" or "inf" label as not finite
        lab = np.array([_float(v, path, ln, "label") for v, (ln, _) in zip(labels, rows)])
    else:
        if any(is_num):  # "1" and "1.0" would be two classes, and a stray name is usually a typo
            i_num, i_name = is_num.index(True), is_num.index(False)
            raise DataError(
                f"{path}: the label column (column {lc + 1}) mixes numbers and names: "
                f"{labels[i_num]!r} on line {rows[i_num][0]}, {labels[i_name]!r} on line "
                f"{rows[i_name][0]}; class labels must be all numbers or all names"
            )
        comma = [i for i, v in enumerate(labels) if _decimal_comma(v)]
        if comma:  # a class named "2,5" is far less likely than a decimal comma
            i = comma[0]
            raise DataError(
                f"{path}:{rows[i][0]}: bad label {labels[i]!r} in column {lc + 1} (a decimal "
                f"comma? numbers must use '.')"
            )
        lab = np.array(labels, dtype=str)
    return lab, X


def _read_lines(path: Path, comment: tuple[str, ...]) -> list[tuple[int, str]]:
    """The (line number, text) of the data lines. A byte that is not UTF-8 is accepted in a comment
    line only: in data it would be read as U+FFFD, and two class names such as Latin-1 'sévère' and
    'sèvère' would become one."""
    out = []
    with open(path, "rb") as fh:
        data = fh.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for lineno, raw in enumerate(data.splitlines(), 1):
        try:
            s = raw.decode("utf-8").strip()
            bad = False
        except UnicodeDecodeError:
            s, bad = raw.decode("utf-8", errors="replace").strip(), True
        if s and not s.startswith(comment):
            if bad:
                raise DataError(
                    f"{path}:{lineno}: is not UTF-8 text (a Latin-1 file? convert it, e.g. "
                    f"iconv -f latin1 -t utf-8)"
                )
            out.append((lineno, s))
    return out


def _load_csv(path: Path, label_column: int, header, n_features: int | None):
    lines = _read_lines(path, ("#",))
    if not lines:
        raise DataError(f"{path}: file holds no data")
    labels, X = _table(path, lines, label_column, header, n_features, _sniff_sep(lines))
    return labels, X, None


_ARFF_ATTRIBUTE = re.compile(
    r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*)$""", re.IGNORECASE
)


def _arff_nominal(decl: str) -> tuple[str, list[str] | None]:
    """(name, nominal values or None) of an ``@attribute`` line; values unquoted as in @data."""
    m = _ARFF_ATTRIBUTE.match(decl)
    if m is None:
        return "", None
    name = m.group(1).strip().strip('"').strip("'")
    kind = m.group(2).strip()
    if not (kind.startswith("{") and kind.endswith("}")):
        return name, None
    return name, _split_fields(kind[1:-1], ",")


def _check_arff_classes(
    path: Path, data: list[tuple[int, str]], lc: int, name: str, values: list[str]
) -> None:
    """Every @data label (field ``lc``) must be one of the declared nominal ``values``."""
    allowed = set(values)
    shown = "{" + ", ".join(values if len(values) <= 12 else [*values[:10], "..."]) + "}"
    if len(values) > 12:
        shown += f" ({len(values)} values)"
    for ln, s in data:
        f = _split_fields(s, ",")
        v = f[lc] if -len(f) <= lc < len(f) else None
        if v is None or v in allowed:
            continue
        if v == "?":
            raise DataError(
                f"{path}:{ln}: missing class value '?'; expected one of {shown} (@attribute {name})"
            )
        raise DataError(
            f"{path}:{ln}: class value {v!r} is not in the declared set {shown} of @attribute {name}"
        )


def _load_arff(path: Path, label_column: int | None, n_features: int | None):
    lines = _read_lines(path, ("%",))
    n_attr = 0
    attrs = []  # (name, nominal values or None) of each attribute, in order
    start = None
    for k, (ln, s) in enumerate(lines):
        low = s.lower()
        if low.startswith("@attribute"):
            n_attr += 1
            attrs.append(_arff_nominal(s))
        elif low.startswith("@data"):
            start = k + 1
            break
    if start is None:
        raise DataError(f"{path}: ARFF file has no @data section")
    data = lines[start:]
    for ln, s in data:
        if s.startswith("{"):
            raise DataError(f"{path}:{ln}: sparse ARFF rows are not supported")
    lc = n_attr - 1 if label_column is None else label_column
    labels, X = _table(path, data, lc, False, n_features, ",")
    if n_attr and X.shape[1] != n_attr - 1:
        raise DataError(
            f"{path}: @data rows have {X.shape[1] + 1} fields but {n_attr} attributes are declared"
        )
    if -n_attr <= lc < n_attr:
        name, values = attrs[lc]
        if values is not None:
            _check_arff_classes(path, data, lc, name, values)
    return labels, X, None


def load(
    name_or_path: str | os.PathLike,
    root: str | os.PathLike | None = None,
    *,
    fmt: str | None = None,
    label_column: int | None = None,
    header: bool | str = "auto",
    n_features: int | None = None,
) -> Dataset:
    """Load an online-classification data set as dense arrays.

    Parameters
    ----------
    name_or_path : str or path
        A file path, or a name under the online-data root: a folder (``"german"``: its ``*.hoi.mat``
        is preferred, then another ``.mat``, then ``<name>.scale``, then ``<name>``), a relative file
        (``"german/german.numer_scale"``) or a bare file name found in one folder (``"w7a.t"``).
    root : path, optional
        Online-data root (default :func:`default_root`).
    fmt : {"mat", "libsvm", "csv", "arff"}, optional
        Force the format (default: from the suffix, else sniffed from the content).
    label_column : int, optional
        0-based column of the label (CSV and ARFF only; a DataError for LIBSVM and .mat files, whose
        label is always first); negative counts from the end (-1 = last). CSV default: the header
        column named y/label/class/target if there is exactly one, else the first column. ARFF
        default: the last attribute.
    header : bool or "auto"
        Whether a CSV file starts with a header line; "auto" takes line 1 as one when no cell is a
        number, or when its label never occurs again and is a label name (y, label, ...) over numbered
        columns or a name over numeric labels below. A class name seen once over fractional values
        (``rare,0.9,0.9``) stays an example. Where line 1 could be either, integer cells over
        fractional values below (``diagnosis,400,410,420``: wavelengths, or pandas' ``0,1,2``; but
        also ``rare,3,7``), "auto" refuses to guess and asks for True or False. True applies to CSV
        files only.
    n_features : int, optional
        Pad LIBSVM/CSV data with zero columns to this width (e.g. a LIBSVM test split).

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        Missing file or unknown name, unknown format, a malformed line (file and line number), no
        feature column, a single class, or a dense matrix too large (:data:`MAX_DENSE_ELEMENTS`).
    """
    if label_column is not None and (
        isinstance(label_column, bool) or not isinstance(label_column, numbers.Integral)
    ):
        raise ValueError(
            f"label_column: {label_column!r} must be a column index (an integer; -1 is the last "
            f"column), or None"
        )
    if n_features is not None and (
        isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features < 1
    ):
        raise ValueError(f"n_features: {n_features!r} must be an integer >= 1")
    path = resolve(name_or_path, root)
    if fmt is None:
        fmt = _detect_format(path)
    if fmt not in ("mat", "libsvm", "csv", "arff"):
        raise DataError(f"{path}: unknown data format {fmt!r}; expected mat, libsvm, csv or arff")
    if label_column is not None and fmt in ("mat", "libsvm"):
        kind = (
            "a LIBSVM file, whose label is the first field of each line"
            if fmt == "libsvm"
            else "a MATLAB file, whose label is the first column of 'data'"
        )
        raise DataError(
            f"{path}: label_column={label_column} (--label-column) applies to CSV and ARFF files "
            f"only; this is {kind}"
        )
    if header not in ("auto", True, False):
        raise ValueError(f"header: {header!r} must be True, False or 'auto'")
    if header is True and fmt != "csv":  # header=False is what the other formats have anyway
        raise DataError(
            f"{path}: header=True (--header yes) applies to CSV files only; this is read as "
            f"{ {'mat': 'a MATLAB', 'libsvm': 'a LIBSVM', 'arff': 'an ARFF'}[fmt] } file"
        )
    try:
        if fmt != "mat":
            _check_text(path, fmt)
        if fmt == "mat":
            raw, X, order = _load_mat(path, n_features)
        elif fmt == "libsvm":
            raw, X, order = _load_libsvm(path, n_features)
        elif fmt == "csv":
            raw, X, order = _load_csv(path, label_column, header, n_features)
        else:
            raw, X, order = _load_arff(path, label_column, n_features)
    except OSError as e:
        raise DataError(f"{path}: cannot read ({e.strerror or e})") from None
    if X.shape[0] == 0:
        raise DataError(f"{path}: file holds no data")
    if X.ndim != 2 or X.shape[1] == 0:
        if fmt == "libsvm":
            raise DataError(f"{path}: no features on any line (only labels)")
        raise DataError(f"{path}: no feature columns besides the label")
    hint = (
        " (is the label in another column? see label_column, --label-column)"
        if fmt in ("csv", "arff")
        else ""
    )
    y, classes, k = _map_labels(raw, path, hint)
    name = path.name
    for suf in (
        ".hoi.mat",
        ".libol.mat",
        ".jingcoco.mat",
        ".mat",
        ".scale",
        ".csv",
        ".tsv",
        ".arff",
        ".libsvm",
        ".svm",
        ".svmlight",
        ".data",
        ".txt",
    ):
        if name.endswith(suf) and len(name) > len(suf):
            name = name[: -len(suf)]
            break
    return Dataset(
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=y,
        orderings=order,
        name=name,
        n_classes=k,
        classes=list(classes),
        path=str(path),
    )
