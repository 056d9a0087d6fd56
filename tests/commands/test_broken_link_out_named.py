"""A broken symbolic link given as the output folder is one line naming the link and where it points, as
compare, train and evaluate name it. Before: `report --out LINK` said only "is not a folder", and
`export_verl(out=LINK)` from Python said "cannot be made a folder (File exists)"."""

from __future__ import annotations

import pytest

from searchgym.cli import main


@pytest.fixture
def broken_link(tmp_path):
    link = tmp_path / "outdl"
    link.symlink_to(tmp_path / "nothere")
    return link


def test_report_names_a_broken_link_as_out(broken_link, tmp_path, capsys):
    assert main(["report", "--out", str(broken_link)]) == 2
    assert capsys.readouterr().err == (f"searchgym report: error: --out {broken_link} is a broken symbolic link (to "
                                       f"{tmp_path / 'nothere'}), not a folder; give the --out folder of a "
                                       "`searchgym compare` run (it holds runs/<method>/seed<N>)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outdl"]


def test_export_verl_names_a_broken_link_as_out(broken_link, tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("yaml")
    from searchgym.integrations.verl_dataset import export_verl

    with pytest.raises(ValueError) as refused:
        export_verl("searchqa-text-v2", "dev", broken_link)
    assert str(refused.value) == (f"--out {broken_link} is a broken symbolic link (to {tmp_path / 'nothere'}); "
                                  "delete the link or choose another --out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outdl"]
