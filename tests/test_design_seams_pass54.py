"""Pass 54: seams moved so the next fix has room, pinned where they now are.

``cut_short`` sits beside ``decompression_capped`` (``toolkit.boundedstreams``): both read
what the decompressed stream (``CappedStream``) noted when it reached its end, where
``toolkit.zstdframes`` is the frame format alone.
"""

from __future__ import annotations

from pathlib import Path

import zstandard

from agentscan.toolkit import boundedstreams, zstdframes
from agentscan.toolkit.jsonl import open_binary


def _read_to_end(path: Path) -> tuple[bool, bool]:
    with open_binary(path) as handle:
        while handle.read(1 << 16):
            pass
        return boundedstreams.cut_short(handle), boundedstreams.decompression_capped(handle)


def test_what_the_stream_noted_is_read_in_one_place(tmp_path: Path) -> None:
    data = zstandard.ZstdCompressor().compress(b'{"a": 1}\n' * 200)
    whole, cut = tmp_path / "whole.jsonl.zst", tmp_path / "cut.jsonl.zst"
    whole.write_bytes(data)
    cut.write_bytes(data[:len(data) // 2])
    assert _read_to_end(whole) == (False, False)
    assert _read_to_end(cut) == (True, False)
    assert not hasattr(zstdframes, "cut_short")


def test_an_export_s_arguments_are_checked_apart_from_the_run() -> None:
    """``export.formats`` (what an export is asked for) and ``export.target.checked_target``
    (what its output must be) left ``export.run`` (399 lines): the run writes.  The old names
    still import from ``export.run``; the formats module is light (``cli.usagewords`` names
    the formats without importing the run)."""
    import subprocess
    import sys

    from agentscan.export import formats, run, target

    assert (run.parse_format, run.check_days, run.FORMATS) == (formats.parse_format, formats.check_days, formats.FORMATS)
    assert run.checked_target is target.checked_target and run.STDOUT is formats.STDOUT
    done = subprocess.run([sys.executable, "-c", "import sys, agentscan.export.formats; "
                           "print('agentscan.export.run' in sys.modules, 'dataclasses' in sys.modules)"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_show_s_lists_of_runs_have_modules_of_their_own() -> None:
    """Claude's subagent list (``subagentlist``) left ``claude.detail`` (400 lines: the stream of
    one transcript's records), and Cursor's ``show`` of one session (``showsession``: which
    source is streamed) left ``cursor.provider`` (397 lines: the adapter's wiring)."""
    import inspect

    from agentscan.providers.claude import detail, subagentlist
    from agentscan.providers.cursor import provider, showsession

    assert not hasattr(detail, "subagent_infos") and callable(subagentlist.subagent_infos)
    assert "session_detail" in inspect.getsource(provider.CursorProvider.detail)
    assert callable(showsession.session_detail)


def test_every_row_is_apart_from_a_page() -> None:
    from agentscan.scan import everyrow, listing

    assert not hasattr(listing, "every_row") and callable(everyrow.every_row)


def test_a_usage_snapshot_s_layout_is_written_and_read_in_one_module() -> None:
    """``scan.usagesnapshot`` (the layout of a provider's usage snapshot, written and read back
    checked) left ``scan.collect`` (398 lines), which still decides when one is read and kept."""
    from agentscan.scan import collect, usagesnapshot
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.usagegroups import GROUP_WIDTH

    group = [None, "m", *([0] * (GROUP_WIDTH - 2))]
    sums = {"claude:a": SessionSums([group], []), "claude:b": SessionSums([], [])}
    fingerprints: dict[str, str | None] = {"claude:a": "fa", "claude:b": "fb"}
    value = usagesnapshot.sealed(["claude:a", "claude:b"], sums, fingerprints)
    pairs = [(object(), "claude:a"), (object(), "claude:b")]  # (only their ids are read)
    whole = usagesnapshot.sums_of(value, pairs, {}, whole=True)
    assert whole is not None and {key: found.groups for key, found in whole.items()} == {"claude:a": [group], "claude:b": []}
    # Not whole: only the sessions at the fingerprints kept (one changed since).
    part = usagesnapshot.sums_of(value, pairs, {"claude:a": "fa", "claude:b": "changed"}, whole=False)
    assert part is not None and list(part) == ["claude:a"]
    assert usagesnapshot.sums_of(value[:-1], pairs, fingerprints, whole=True) is None  # damaged: a miss
    assert usagesnapshot.sums_of(None, pairs, fingerprints, whole=False) is None
    assert not hasattr(collect, "GROUP_WIDTH")
