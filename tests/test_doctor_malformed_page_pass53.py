"""A Cursor state DB whose header is sound but a data page malformed (pass 53).

It opens, so doctor's STATUS said ``ok`` (JSON ``problem`` null) and its last line sent the
user to "set the variable that moves them", while its own finding said "not used: database
disk image is malformed" and list/tokens/export said the DB could not be read.  The DB is
asked again once the scan has read it."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

import agentscan
from builders import invoke
from cursor_builders import state_db_path

pytestmark = pytest.mark.usefixtures("only_cursor")

DEMO_DB = Path(agentscan.__file__).parent / "demo" / "home" / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"


def _malformed(home: Path) -> Path:
    db = state_db_path(home)
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DEMO_DB, db)
    with open(db, "r+b") as handle:  # page 1 (the header and schema) whole, the rest garbage
        handle.seek(4096)
        handle.write(b"\xff" * 8192)
    return db


def test_doctor_says_a_db_malformed_past_its_header_is_not_used(isolated_home: Path) -> None:
    db = _malformed(isolated_home)
    (root,) = [r for p in orjson.loads(invoke("doctor", "--json").stdout)["providers"] for r in p["roots"]
               if r["kind"] == "database"]
    assert root["path"] == str(db)
    assert root["readable"] is False and root["problem"] == "database disk image is malformed"
    text = invoke("doctor").stdout
    assert "database  ok" not in " ".join(text.split(" ")), text
    row = next(line for line in text.splitlines() if line.lstrip().startswith("database"))
    assert "database disk image is malformed" in row
    last = " ".join(text.split("\n\n")[-1].split())
    assert last == "no sessions found for any agent here, and Cursor's database could not be used: see its STATUS above"
