"""What stands where a folder belongs is said in words: a file, a FIFO, a broken symbolic link and
where it points. Before: a broken link given as --out passed the folder check and failed later as the
OS's "File exists", which named neither the link nor its target."""

from __future__ import annotations

import os

import pytest

from searchgym.fileio import check_folder_can_be_made, not_a_folder


def test_not_a_folder_says_what_stands_there(tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "broken").symlink_to(tmp_path / "nothere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "folder").mkdir()
    (tmp_path / "to-folder").symlink_to(tmp_path / "folder")
    os.mkfifo(tmp_path / "fifo")
    assert not_a_folder(tmp_path / "afile") == "a file"
    assert not_a_folder(tmp_path / "broken") == f"a broken symbolic link (to {tmp_path / 'nothere'})"
    assert not_a_folder(tmp_path / "loop") == f"a broken symbolic link (to {tmp_path / 'loop'})"
    assert not_a_folder(tmp_path / "fifo") == "a FIFO (named pipe)"
    assert not_a_folder(tmp_path / "folder") is None and not_a_folder(tmp_path / "to-folder") is None
    assert not_a_folder(tmp_path / "missing") is None and not_a_folder(tmp_path / "afile" / "below") is None


def test_a_broken_link_as_the_folder_is_refused_by_name(tmp_path):
    link = tmp_path / "outdl"
    link.symlink_to("/nothere-searchgym")
    with pytest.raises(ValueError) as refused:
        check_folder_can_be_made(link)
    assert str(refused.value) == (f"--out {link} is a broken symbolic link (to /nothere-searchgym); delete the "
                                  "link or choose another --out")
    assert link.is_symlink() and not os.path.lexists("/nothere-searchgym")
    (tmp_path / "real").mkdir()
    (tmp_path / "to-real").symlink_to(tmp_path / "real")  # a link to a folder is the command's to judge
    assert check_folder_can_be_made(tmp_path / "to-real") == tmp_path / "to-real"
