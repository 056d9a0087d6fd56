"""Where an ``sft`` run's supervised base is, for ``evaluate --agent run`` to play it: under the run's or
its comparison's ``bases`` folder, checked against the sha256 its config.json records."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile
from searchgym.harness.run_reads import refuse_linked, shown_text

CONFIG = "config.json"
#: A supervised base's key (:func:`searchgym.harness.sft.base_key`): 16 hex digits.
BASE_KEY = re.compile(r"[0-9a-f]{16}")


def find_base(folder: Path, config: dict[str, Any], unplayable: str) -> Path:
    """The supervised base an ``sft`` run scored: under the run's or its comparison's ``bases`` folder,
    where the harness writes it; its sha256 must be the recorded one. Why not config.json's
    ``base.path``: any file it named (``/etc/shadow``) was hashed, and its existence told; one of the
    recorded hash would have been loaded. A link on the way is refused, unread."""
    from searchgym.agents.sft_base import file_sha256, max_base_bytes

    record = config.get("base")
    if not isinstance(record, dict) or not isinstance(record.get("key"), str) or not isinstance(
            record.get("sha256"), str):
        raise DamagedFile(folder / CONFIG, "records no supervised base (base: key, sha256) for its sft run",
                          "point path= at an intact run folder")
    if not BASE_KEY.fullmatch(record["key"]):  # else a key of "../.." named a file elsewhere
        raise DamagedFile(folder / CONFIG, f"records base key {record['key'][:40]!r}, not the 16 hex digits "
                          "of a base's key", "point path= at an intact run folder")
    folders = [folder]
    if folder.parent.parent.name == "runs":  # a comparison's run: <out>/runs/<method>/seed<N>
        folders.append(folder.parents[2])
    places, other = [where / "bases" / record["key"] / "base.pt" for where in folders], []
    for place in places:
        for part in (place.parents[1], place.parent, place):
            refuse_linked(part, unplayable)
        if place.is_file():
            # bounded (before: hashed whatever its size), never through a link
            sha = file_sha256(place, max_base_bytes(config["policy"]), unplayable, follow_links=False)
            if sha == record["sha256"]:
                return place
            other.append(str(place))
    if other:  # before: "is in none of", as if it were missing, and a copy of bases/ would not help
        raise ValueError(f"{folder} is an sft run whose supervised base (key {record['key']}) is at "
                         f"{', '.join(other)} with another sha256 than the run recorded ({shown_text(record['sha256'][:12])}...): "
                         "damaged, or another base; restore it from the comparison that built it")
    raise ValueError(f"{folder} is an sft run whose supervised base (key {record['key']}, sha256 "
                     f"{shown_text(record['sha256'][:12])}...) is in none of: {', '.join(str(p) for p in places)}; "
                     "copy the comparison's bases/ folder beside its runs/")
