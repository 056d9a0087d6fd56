"""The supervised base's files in a folder handed over: base.json read with a run record's bounds (not
through a link, at most 4 MiB and 200,000 values), and a folder where the build writes a file refused
before anything is built."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from searchgym.damaged import DELETE_AND_RERUN, LINKED_READ, DamagedFile
from searchgym.harness.methods import RunContext
from searchgym.harness.run_reads import MAX_RUN_JSON_BYTES, MAX_RUN_JSON_VALUES
from searchgym.harness.sft import BASE, META, PARTIAL, base_key, ensure_base, sft_config
from searchgym.suites import Suite, register_suite

QA = register_suite(Suite("test-sft-base-bounds-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6},
                          world_size="tiny", dev_size=3, test_size=3,
                          description="tests: bounded reads of the supervised base's files"))
SFT = {"sft_tasks": 3, "sft_epochs": 2, "sft_batch_size": 16}
KEY = base_key(QA, 0, "hash", sft_config(SFT))


def _ctx(root) -> RunContext:
    return RunContext(suite=QA, seed=0, budget=0, device="cpu", run_dir=root / "run", policy="hash",
                      options=dict(SFT), bases_dir=root / "bases")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("built")
    ensure_base(_ctx(root), sft_config(SFT))
    return root / "bases" / KEY


def _linked(meta, path, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"  # the base's own record, valid: still not this folder's file
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere)


def _many_values(meta, path, tmp_path):
    path.write_text(json.dumps({**meta, "padding": [[]] * MAX_RUN_JSON_VALUES}))


def _many_bytes(meta, path, tmp_path):
    path.write_text(json.dumps({**meta, "padding": "x" * MAX_RUN_JSON_BYTES}))


@pytest.mark.parametrize(("damage", "said"), [
    (_linked, LINKED_READ),
    (_many_values, f"holds more than {MAX_RUN_JSON_VALUES} JSON values, where a base's base.json holds"),
    (_many_bytes, f"more than the {MAX_RUN_JSON_BYTES}"),
])
def test_a_base_record_is_read_with_a_run_records_bounds(built, tmp_path, damage, said):
    """Before: each was read (through the link; 256 MiB of any values) and the base was used."""
    folder = tmp_path / "bases" / KEY
    shutil.copytree(built, folder)
    damage(json.loads((built / META).read_text()), folder / META, tmp_path)
    with pytest.raises(DamagedFile) as caught:
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert str(caught.value).startswith(f"{folder / META}: ") and said in str(caught.value)
    assert str(caught.value).endswith(f"delete {folder} and re-run the same command to build the base again")


@pytest.mark.parametrize("name", [BASE, META, PARTIAL])
def test_a_folder_where_the_build_writes_a_file_is_refused_before_building(tmp_path, name):
    """Before (base.pt, base.json): the base was demonstrated and fitted, then its save failed with
    IsADirectoryError, and the re-run it advised built it again and failed the same way; (partial.pt)
    the demonstrations were made before the first save failed."""
    folder = tmp_path / "bases" / KEY
    (folder / name).mkdir(parents=True)
    (folder / name / "keep.txt").write_text("mine")
    with pytest.raises(DamagedFile, match=re.escape(f"{folder / name}: is a folder where the base's build writes "
                                                    f"a file; {DELETE_AND_RERUN}")):
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert sorted(p.name for p in folder.iterdir()) == sorted([".lock", name])  # nothing built
    assert (folder / name / "keep.txt").read_text() == "mine"
