"""Pass 51, code written twice made one: what the shared pieces must keep doing.

* ``fsutil.stale_own_files``: the one listing behind ``files.remove_stale_temps`` (a killed
  run's temp file) and ``lockprune.prune`` (a cache lock no run took for a week).
* ``streams.stood_in``: now the registered stand-in handler itself, lone surrogates aside.
* ``locks.output_lock``: prunes the cache's ``locks/`` only, never a fallback folder's.
"""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

posix = pytest.mark.skipif(os.name == "nt", reason="POSIX owners and links, flock")


@posix
def test_stale_own_files_lists_only_old_regular_files_of_the_pattern(tmp_path: Path) -> None:
    from agentscan.toolkit.fsutil import stale_own_files

    cutoff = time.time() - 600
    old = {name: tmp_path / name for name in ("a.tmp", "at-cutoff.tmp", "notes.txt")}
    for path in old.values():
        path.write_text("x")
    (tmp_path / "new.tmp").write_text("x")
    (tmp_path / "dir.tmp").mkdir()
    (tmp_path / "link.tmp").symlink_to(old["a.tmp"])  # (a link: never followed, never listed)
    for path in (*old.values(), tmp_path / "dir.tmp"):
        os.utime(path, (cutoff - 60, cutoff - 60))
    os.utime(old["at-cutoff.tmp"], (cutoff, cutoff))  # (untouched since the cutoff: stale)
    os.utime(tmp_path / "link.tmp", (cutoff - 60, cutoff - 60), follow_symlinks=False)
    found = {path.name: found.st_ino for path, found in stale_own_files(tmp_path, re.compile(r".*\.tmp"), cutoff)}
    assert found == {"a.tmp": old["a.tmp"].stat().st_ino, "at-cutoff.tmp": old["at-cutoff.tmp"].stat().st_ino}
    assert list(stale_own_files(tmp_path / "missing", re.compile(".*"), cutoff)) == []


class _Stream(io.StringIO):
    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


@pytest.mark.parametrize(("encoding", "expected"), [
    ("ascii", "REASONING >5 > x ?? ?? ? \udcff? ok"),  # (a combining mark: no column)
    ("latin-1", "REASONING >5 > \u00d7 ?? ?? \u00e9 \udcff\u00fc ok"),
    ("utf-8", "REASONING \u22655 \u21b3 \u00d7 \u65e5 \U0001f600 \u00e9\u0301 \udcff\u00fc ok"),
])
def test_stood_in_writes_a_table_s_stand_ins_and_keeps_lone_surrogates(encoding: str, expected: str) -> None:
    from agentscan.cli.streams import stood_in

    text = "REASONING \u22655 \u21b3 \u00d7 \u65e5 \U0001f600 \u00e9\u0301 \udcff\u00fc ok"
    assert stood_in(text, _Stream(encoding)) == expected


@posix
def test_a_fallback_lock_folder_is_not_pruned(isolated_home: Path, tmp_path: Path) -> None:
    """A cache that cannot be written locks in the (shared, ``AGENTSCAN_LOCK_DIR``) fallback
    folder: another's old lock file there is left, as only the cache's ``locks/`` is pruned."""
    from agentscan.cli import app

    folder = Path(os.environ["AGENTSCAN_LOCK_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    old = folder / f"export-{'a' * 32}.lock"
    old.touch()
    week_ago = time.time() - 8 * 86_400
    os.utime(old, (week_ago, week_ago))
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    result = CliRunner().invoke(app, ["--demo", "export", "-o", str(tmp_path / "out.csv")],
                                env={"AGENTSCAN_CACHE_DIR": str(blocked)})
    assert result.exit_code == 0, result.output
    assert old.exists()
