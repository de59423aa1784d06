"""Data-set loader rules, one counter-case each: what a clause of format detection, the separator
sniff, the header heuristics, the label column, the refusals and the text/binary check keeps
from happening (backends/datasets.py). test_datasets.py has the main cases."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import datasets
from silkvision.errors import DataError


def _write(tmp_path, name, content):
    f = tmp_path / name
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content, encoding="utf-8")
    return f


# --- format detection of a file without a known suffix -----------------------------------------


def test_a_comment_line_with_a_comma_does_not_make_libsvm_a_csv(tmp_path):
    """'#' lines are skipped when sniffing the format, as '%' lines are."""
    f = _write(tmp_path, "svm_with_note", "# a comment, with a comma\n+1 1:0.5 3:1\n-1 2:1\n")
    d = datasets.load(f)
    np.testing.assert_array_equal(d.X, [[0.5, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(d.y, [1, -1])


@pytest.mark.parametrize(
    "name, text, classes, X",
    [
        # ``grp1:a,0.5`` looks like ``index:value`` but has a comma: a CSV, not a LIBSVM file
        ("groups", "grp1:a,0.5,0.2\ngrp2:b,0.1,0.3\n", ["grp1:a", "grp2:b"], [[0.5, 0.2], [0.1, 0.3]]),
        # tab is a separator candidate; blanks inside a tab-separated cell are part of the name
        (
            "mail.tsv",
            "spam mail\t0.5\t1\nham mail\t0.2\t3\n",
            ["ham mail", "spam mail"],
            [[0.5, 1], [0.2, 3]],
        ),
    ],
)
def test_class_names_with_a_colon_or_a_blank_are_kept_whole(tmp_path, name, text, classes, X):
    d = datasets.load(_write(tmp_path, name, text))
    assert d.classes == classes
    np.testing.assert_array_equal(d.X, X)


def test_a_libsvm_file_whose_first_row_is_all_zero_is_libsvm(tmp_path):
    """A lone label on line 1 is a LIBSVM example with no non-zero feature."""
    f = _write(tmp_path, "zero_first", "+1\n-1 3:1\n+1 1:2\n")
    d = datasets.load(f)
    np.testing.assert_array_equal(d.X, [[0, 0, 0], [0, 0, 1], [2, 0, 0]])
    np.testing.assert_array_equal(d.y, [1, -1, 1])


# --- separator ---------------------------------------------------------------------------------


def test_an_empty_cell_in_a_tab_separated_file_is_refused_not_dropped(tmp_path):
    """Read as whitespace-separated, two tabs would merge and the empty column would vanish,
    shifting every later value one column left."""
    f = _write(tmp_path, "gap.txt", "1\t0.5\t\t1\n0\t0.2\t\t3\n")
    with pytest.raises(DataError, match=r"gap\.txt:1: bad value in column 3 '' \(expected a number\)"):
        datasets.load(f)


# --- header rules ("auto") ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, n, classes, first_row",
    [
        # a name over columns numbered from 2 (column 1 being the label) is a header
        ("Letter,2,3\nA,1,2\nB,3,4\nA,2,2\n", 3, ["A", "B"], [1, 2]),
        # a class named like a label column, seen again below, is an example
        ("y,0.5,0.5\ny,0.1,0.2\nn,0.3,0.3\n", 3, ["n", "y"], [0.5, 0.5]),
        # a class over integer cells that occurs again below is an example, not a header to ask about
        ("a,1,2\nb,0.5,0.2\na,0.3,0.1\n", 3, ["a", "b"], [1, 2]),
    ],
    ids=["numbered-from-2", "class-named-y-repeated", "repeated-class-over-integers"],
)
def test_auto_header_decides_line_one(tmp_path, text, n, classes, first_row):
    """Which line becomes the first example, and no class is added or lost on the way."""
    f = _write(tmp_path, "h.csv", text)
    d = datasets.load(f)
    assert d.n_samples == n and d.classes == classes
    np.testing.assert_array_equal(d.X[0], first_row)


@pytest.mark.parametrize(
    "text",
    [
        # fractional values start on line 3 only: line 2 must not decide alone
        "0,1,2\n1,3,4\n0,0.5,0.2\n1,0.3,0.1\n",
        # pandas' default column names numbered from 1
        "1,2,3\n0,0.5,0.2\n1,0.3,0.1\n",
        # an empty first cell over integer cells that are not pandas' 0..d-1
        ",5,7\n1,0.5,0.2\n0,0.3,0.1\n",
    ],
    ids=["fractions-from-line-3", "numbered-from-1", "empty-label-over-integers"],
)
def test_auto_header_asks_when_line_one_may_be_numbered_column_names(tmp_path, text):
    """Taking line 1 as an example or as a header could each be wrong, so "auto" asks."""
    f = _write(tmp_path, "h.csv", text)
    with pytest.raises(
        DataError,
        match=r"h\.csv:1: line 1 .* may be a header of numbered columns or an "
        r"example with integer values; say which: header=True or header=False",
    ):
        datasets.load(f)


def test_a_header_with_an_empty_label_name_reports_the_empty_label_below(tmp_path):
    """Only a data row below with a label makes an unnamed first column pandas' row index; here
    line 2's label is empty too, and that is what is reported."""
    f = _write(tmp_path, "h.csv", ",a,b\n,0.5,0.2\n1,0.3,0.1\n")
    with pytest.raises(DataError, match=r"h\.csv:2: the label \(column 1\) is empty$"):
        datasets.load(f)


# --- label column ------------------------------------------------------------------------------


def test_two_label_named_columns_leave_the_label_in_the_first_column(tmp_path):
    """The header picks the label column only when exactly one column is named y, label or the like."""
    f = _write(tmp_path, "two.csv", "c,y,label\n0,1,0.5\n1,0,0.2\n0,1,0.1\n")
    d = datasets.load(f)
    np.testing.assert_array_equal(d.X, [[1, 0.5], [0, 0.2], [1, 0.1]])
    np.testing.assert_array_equal(d.y, [-1, 1, -1])


def test_header_false_ignores_a_label_name_on_line_one(tmp_path):
    """With header=False line 1 is an example, so a cell 'y' in it names no column: the label stays
    in column 1 and 'y' is a bad feature value."""
    f = _write(tmp_path, "nohead.csv", "1,y,0.5\n0,n,0.2\n1,n,0.3\n")
    with pytest.raises(DataError, match=r"nohead\.csv:1: bad value in column 2 'y' \(expected a number\)"):
        datasets.load(f, header=False)
    assert datasets.load(f, header=False, label_column=1).classes == ["n", "y"]


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, text, match",
    [
        ("inf.csv", "1,inf,2\n0,1,2\n", r"inf\.csv:1: value in column 2 'inf' is not finite$"),
        ("neg.csv", "1,0.5,2\n0,1,-inf\n", r"neg\.csv:2: value in column 3 '-inf' is not finite$"),
        ("big.csv", "1,1e400,2\n0,1,2\n", r"big\.csv:1: value in column 2 '1e400' is not finite$"),
        ("inf.libsvm", "+1 1:0.5\n-1 2:inf\n", r"inf\.libsvm:2: value of feature 2 'inf' is not finite$"),
    ],
    ids=["inf", "minus-inf", "overflow", "libsvm"],
)
def test_an_infinite_feature_value_is_refused(tmp_path, name, text, match):
    """The learners cannot use an infinite value; it is refused as 'nan' is."""
    f = _write(tmp_path, name, text)
    with pytest.raises(DataError, match=match):
        datasets.load(f)


def test_n_features_below_a_csv_files_width_is_refused(tmp_path):
    """One feature too many is a one-line DataError, not a NumPy broadcast error."""
    f = _write(tmp_path, "wide.csv", "1,0.5,0.2,0.1\n0,0.3,0.2,0.1\n")
    with pytest.raises(DataError, match=r"wide\.csv: has 3 features, more than n_features=2$"):
        datasets.load(f, n_features=2)
    assert datasets.load(f, n_features=3).X.shape == (2, 3)


def test_a_dense_matrix_of_exactly_the_limit_loads(tmp_path, monkeypatch):
    """MAX_DENSE_ELEMENTS is the largest n x d allowed, not the first refused."""
    f = _write(tmp_path, "six.libsvm", "+1 1:1 3:1\n-1 2:1\n")  # 2 x 3
    monkeypatch.setattr(datasets, "MAX_DENSE_ELEMENTS", 6)
    assert datasets.load(f).X.shape == (2, 3)
    monkeypatch.setattr(datasets, "MAX_DENSE_ELEMENTS", 5)
    with pytest.raises(DataError, match=r"six\.libsvm:1: feature index 3 would make a dense 2 x 3 matrix"):
        datasets.load(f)


def test_a_huge_index_error_names_the_first_line_holding_it(tmp_path):
    """Two lines hold the same huge index: the message points at the first."""
    f = _write(tmp_path, "huge.libsvm", "+1 1:1\n+1 99999999999:1\n-1 99999999999:1\n")
    with pytest.raises(DataError, match=r"huge\.libsvm:2: feature index 99999999999 would make a dense"):
        datasets.load(f)


def test_arff_rows_narrower_than_the_declared_attributes_are_refused(tmp_path):
    """With the class first (label_column=0), 2-field rows under 3 attributes are refused, not read
    as a 1-feature table."""
    f = _write(
        tmp_path,
        "short.arff",
        "@relation r\n@attribute class {0,1}\n@attribute a numeric\n"
        "@attribute b numeric\n@data\n1,0.5\n0,0.2\n",
    )
    with pytest.raises(
        DataError, match=r"short\.arff: @data rows have 2 fields but 3 attributes are declared$"
    ):
        datasets.load(f, label_column=0)


# --- text or binary ----------------------------------------------------------------------------


def test_mostly_non_ascii_utf8_cut_inside_a_character_at_4_kib_is_text(tmp_path):
    """Cyrillic class names make over half the bytes high; a 2-byte character across byte 4096 is
    the read block's end, not binary content (the ASCII-filled test in test_datasets.py
    stays under the high-byte share that calls undecodable bytes binary)."""
    body = ("класс,x\n" + "".join(f"{'да' if i % 2 else 'нет'},{i}\n" for i in range(800))).encode()
    for pad in range(8):  # a comment line shifts the text until byte 4095 starts a character
        data = ("#" + "-" * pad + "\n").encode() + body
        if data[4095] >= 0xC0:
            break
    assert data[4095] >= 0xC0 and 0x80 <= data[4096] < 0xC0
    assert sum(b >= 0x80 for b in data[:4096]) > 2048
    f = _write(tmp_path, "cyr.csv", data)
    d = datasets.load(f)
    assert d.n_samples == 800 and d.classes == ["да", "нет"]


def test_a_single_nul_byte_makes_the_file_binary(tmp_path):
    """One NUL is enough to call the start of a file binary, rather than a bad value."""
    f = _write(tmp_path, "nul.csv", b"1,2\x003\n0,4\n")
    with pytest.raises(
        DataError,
        match=r"nul\.csv: is not a text file \(binary content at the start\); "
        r"expected CSV text$",
    ):
        datasets.load(f)


def test_binary_bytes_without_a_nul_are_binary_not_latin1(tmp_path):
    """Undecodable bytes that are a quarter of the head are binary content, not a text file in another
    encoding (the share that decides is a tenth)."""
    head = (bytes(range(1, 32)) * 3 + bytes(range(128, 160))) * 40
    assert b"\0" not in head and 0.2 < sum(b >= 0x80 for b in head[:4096]) / 4096 < 0.3
    f = _write(tmp_path, "ctl.csv", head)
    with pytest.raises(DataError, match=r"ctl\.csv: is not a text file \(binary content at the start\)") as e:
        datasets.load(f)
    assert "Latin-1" not in str(e.value)


def test_a_16_bit_integer_array_is_binary_not_utf16(tmp_path):
    """Small int16 values decode as UTF-16 ASCII, but too few of them are printable."""
    f = _write(tmp_path, "counts.bin", (np.arange(4000) % 100).astype("<i2").tobytes())
    with pytest.raises(
        DataError, match=r"counts\.bin: unknown data format \(binary file that is not MATLAB"
    ) as e:
        datasets.load(f)
    assert "UTF-16" not in str(e.value)
