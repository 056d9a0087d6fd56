"""`searchgym export` beside a parquet file larger than any export reads its footer, not its rows.

Before: the folder check read the whole data_source column into a Python list, so a 108 kB file of
20 million dictionary-encoded rows took 1.9 GB and 90 s and was then accepted as an export of the
suite; a data_source of megabytes was read once per row and named whole in the error line."""

from __future__ import annotations

import pytest

from searchgym.cli import main

pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("yaml")

SUITE = "searchqa-text-v2"


def _export(out) -> int:
    return main(["export", "--format", "verl", "--suite", SUITE, "--split", "dev", "--out", str(out)])


def _write(path, rows: int, source: str) -> None:
    import numpy as np

    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int8)), pa.array([source]))
    pq.write_table(pa.table({"data_source": column}), path, compression="zstd")


def test_more_rows_than_the_split_has_is_refused_from_the_footer(tmp_path, capsys) -> None:
    _write(tmp_path / "train.parquet", 3_000_000, f"searchgym/{SUITE}")  # about 20 kB
    assert _export(tmp_path) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == (f"searchgym export: error: {tmp_path / 'train.parquet'} holds 3000000 rows, more than the train "
                    f"split of suite '{SUITE}' has (1090), so it is not a searchgym verl export and was read no "
                    "further; delete it or export into another folder (--out)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.parquet"]


def test_a_data_source_of_megabytes_is_refused_unread(tmp_path, capsys) -> None:
    _write(tmp_path / "test.parquet", 4, f"searchgym/{SUITE}" + "x" * (9 << 20))
    assert _export(tmp_path) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert len(line) < 400 and str(tmp_path / "test.parquet") in line and "bytes of data_source" in line, line[:400]


def test_an_export_with_as_many_rows_as_its_split_still_joins(tmp_path) -> None:
    _write(tmp_path / "test.parquet", 200, f"searchgym/{SUITE}")
    assert _export(tmp_path) == 0
    (tmp_path / "dev.parquet").unlink()
    _write(tmp_path / "test.parquet", 201, f"searchgym/{SUITE}")
    assert _export(tmp_path) == 2
