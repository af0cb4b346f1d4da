"""A ``list`` page too large to be kept even compressed is not compressed in vain (pass 52).

``list_answer._kept`` compressed every frame up to ``PAGE_BYTES`` (32 MiB) and threw away
what was still over ``KEPT_BYTES`` (4 MiB): zlib packs ``list``'s frames at most ~4.7 to 1
(the bench's scale 10: 18 MB of JSON to 3.8 MB), so a page from ~18 MB up was compressed on
every run (0.1 s) for nothing.  A frame over 5 times the cap is told by its size alone."""

from __future__ import annotations

import zlib

import pytest

from agentscan.cli import list_answer


def test_a_page_that_cannot_fit_is_not_compressed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> bytes:
        raise AssertionError("compressed a page that cannot be kept")

    monkeypatch.setattr(zlib, "compress", refused)
    monkeypatch.setattr(list_answer, "_witness", lambda rows, refs: b"w")
    body = b'{"id": "claude:0000"},\n' * (5 * list_answer.KEPT_BYTES // 23 + 1)
    assert len(body) > 5 * list_answer.KEPT_BYTES
    assert len(body) < 32 * 1024 * 1024  # (kept before, compressed each run)
    assert list_answer._kept(body, [], []) is None

