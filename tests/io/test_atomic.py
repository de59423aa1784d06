import os
import stat

import pytest

from silkvision.io.atomic import atomic_write_bytes, atomic_write_text, atomic_write_with


def test_atomic_write_replaces_whole_file_with_normal_permissions(tmp_path):
    p = tmp_path / "a.txt"
    atomic_write_text(p, "one")
    atomic_write_text(p, "two")
    assert p.read_text() == "two"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask
    assert [f.name for f in tmp_path.iterdir()] == ["a.txt"]  # no temporary left behind


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "b.bin"
    atomic_write_bytes(p, b"old")

    def broken(tmp):
        with open(tmp, "wb") as f:
            f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write_with(p, broken)
    assert p.read_bytes() == b"old"
    assert [f.name for f in tmp_path.iterdir()] == ["b.bin"]
