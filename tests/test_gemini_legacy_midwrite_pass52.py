"""A legacy Gemini chat read while Gemini CLI rewrote it is said so, as a JSONL chat's
unfinished last line is (pass 52).

Gemini CLI ≤ v0.38 rewrote the whole ``.json`` in place on every message, so ``list`` can
meet it half written: it said "chat file is truncated or corrupt" and ``--strict`` failed,
while the file was simply being written.  While the file is young (``settling``) it is
"cut short (file still being written?)" and does not fail ``--strict``; once still, as before.
A document that ends whole but does not parse is corrupt at once."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import legacy_chat

S1 = "11111111-aaaa-4bbb-8ccc-000000000052"
READ = "read the 3 complete messages before the damage"


def _cut(home: Path) -> Path:
    return legacy_chat(home, S1, cut_mid_reply=True)


def _said(path: Path) -> list[str]:
    document = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in document["sessions"]] == [S1]
    return [w["message"] for w in document["warnings"] if w["path"] == str(path)]


def test_a_chat_cut_short_while_young_is_being_written(isolated_home: Path) -> None:
    path = _cut(isolated_home)
    for _ in range(2):  # cold, then from the index
        assert _said(path) == [f"chat file is cut short (file still being written?); {READ}"]
    assert invoke("list", "--strict").exit_code == 0
    os.utime(path, (1_756_713_600, 1_756_713_600))  # still since: lost for good
    for _ in range(2):
        assert _said(path) == [f"chat file is truncated or corrupt; {READ}"]
    assert invoke("list", "--strict").exit_code == 1


def test_a_whole_document_that_does_not_parse_is_corrupt_at_once(isolated_home: Path) -> None:
    path = _cut(isolated_home)
    path.write_bytes(path.read_bytes() + b"\n}")  # ends as a whole document, broken inside
    assert _said(path) == [f"chat file is truncated or corrupt; {READ}"]
    assert invoke("list", "--strict").exit_code == 1


def test_nul_bytes_at_the_end_are_a_crash_not_a_write(isolated_home: Path) -> None:
    path = _cut(isolated_home)
    path.write_bytes(path.read_bytes() + b"\0" * 64)
    assert _said(path) == [f"chat file is truncated or corrupt; {READ}"]


def test_a_warm_run_words_it_by_the_file_age_then(isolated_home: Path, monkeypatch) -> None:
    # The warning is kept with the row in the index as it was said (the file young); a warm
    # run an hour later, the file unchanged, says it as lost for good (``WarningSink.listed``).
    import agentscan.settling as settling

    path = _cut(isolated_home)
    assert _said(path) == [f"chat file is cut short (file still being written?); {READ}"]
    monkeypatch.setattr(settling, "_written_lately", lambda path, now: False)  # (an hour on)
    assert _said(path) == [f"chat file is truncated or corrupt; {READ}"]
    assert invoke("list", "--strict").exit_code == 1
