"""Paths the system refuses for their length (pass 54).

``export -o x.jsonl`` run from a folder nested past 4,096 bytes (the output is made absolute),
a file name over 255 bytes, or an ``AGENTSCAN_CACHE_DIR`` that long: ``Path.is_dir`` and
``is_file`` raise ``File name too long`` (they pass over a missing file's errors only), and
the command ended in a traceback.  Each is one line now, or (the cache) a warning.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_sessions, invoke


@pytest.mark.parametrize("command", ["export", "otlp"])
def test_an_output_path_too_long_is_one_error_line(isolated_home: Path, tmp_path: Path, command: str) -> None:
    claude_sessions(isolated_home, 1)
    deep = tmp_path.joinpath(*["d" * 200] * 25) / "x.jsonl"  # 5,000 bytes: no such folder, nor can there be
    result = invoke(command, "-o", str(deep), "--json")
    assert result.exit_code == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    length = len(str(deep).encode())
    assert line == (f"error: cannot write {deep}: the path is too long ({length:,} bytes; a relative --output "
                    "is taken from the current directory): give a shorter one")


def test_a_file_name_too_long_is_said_so(isolated_home: Path, tmp_path: Path) -> None:
    claude_sessions(isolated_home, 1)
    result = invoke("export", "-o", str(tmp_path / ("a" * 300 + ".csv")))
    assert result.exit_code == 1
    assert result.stderr.rstrip().endswith("a name in it is too long (304 bytes): give a shorter one")


def test_doctor_with_a_cache_folder_too_long_reports(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path.joinpath(*["c" * 200] * 25)))
    result = invoke("doctor", "--json")
    assert result.exit_code == 0, result.output
    cache = orjson.loads(result.stdout)["cache"]
    assert cache["exists"] is False and "file name too long" in cache["warnings"][0]
    assert cache["problem"] == "cannot be written: its directory cannot be created (file name too long)"
