"""``doctor`` says when another user could replace the index: its folder is writable by
others (a shared ``AGENTSCAN_CACHE_DIR``), which no file mode of agentscan's own can guard."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()
posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int) -> Path:
    folder = tmp_path / "shared-cache"
    folder.mkdir()
    os.chmod(folder, mode)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(folder))
    return folder


@posix_only
def test_a_cache_folder_others_can_write_is_named_with_the_chmod_that_mends_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _cache(tmp_path, monkeypatch, 0o777)
    cache = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)["cache"]
    assert cache["problem"] == "others can write its folder (mode 0777), so they could replace the index"
    assert f"chmod 700 {folder}" in cache["next_step"]
    text = runner.invoke(app, ["doctor"], env={"COLUMNS": "300"}).stdout
    assert "others can write its folder (mode 0777)" in text and f"next: make the folder this user's alone (`chmod 700 {folder}`)" in text


@posix_only
def test_a_cache_folder_of_this_user_alone_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cache(tmp_path, monkeypatch, 0o755)  # readable by others is no threat to the answers
    cache = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)["cache"]
    assert cache["problem"] is None and cache["next_step"] is None


@posix_only
def test_a_shared_sticky_folder_gets_no_chmod_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # It said `chmod 700 /tmp` of a cache in /tmp: copied, that breaks the machine. Others may
    # not replace this user's files in a sticky folder, but may put one beside the index.
    folder = _cache(tmp_path, monkeypatch, 0o1777)
    cache = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)["cache"]
    assert cache["problem"] == "others can put files in its folder (mode 1777, a shared folder), beside the index"
    assert "chmod" not in cache["next_step"] and "AGENTSCAN_CACHE_DIR" in cache["next_step"]
    assert str(folder) not in cache["next_step"]


@posix_only
def test_with_no_cache_the_folder_is_not_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cache(tmp_path, monkeypatch, 0o777)  # not used this run: its text says "disabled", no step
    cache = orjson.loads(runner.invoke(app, ["--no-cache", "doctor", "--json"]).stdout)["cache"]
    assert cache["problem"] is None and cache["next_step"] is None


# -- pass 51 (export2): exports warn of it, doctor --strict fails on it ----------------------

@posix_only
def test_export_warns_of_a_cache_folder_others_can_write_and_strict_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _cache(tmp_path, monkeypatch, 0o777)
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["--demo", "export", "-o", str(out)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert f"{folder / 'index.sqlite'}: others can write its folder (mode 0777)" in said
    assert f"chmod 700 {folder}" in said
    strict = runner.invoke(app, ["--demo", "--strict", "export", "-o", str(out)])
    assert strict.exit_code == 1, strict.output
    done = orjson.loads(runner.invoke(app, ["--demo", "export", "-o", str(out), "--json"]).stdout)
    assert [w["path"] for w in done["warnings"]] == [str(folder / "index.sqlite")]


@posix_only
def test_doctor_strict_fails_on_a_cache_folder_others_can_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _cache(tmp_path, monkeypatch, 0o777)
    result = runner.invoke(app, ["--demo", "--strict", "doctor"])
    assert result.exit_code == 1, result.output
    assert "others can write its folder (mode 0777)" in " ".join(result.stderr.split())
    os.chmod(folder, 0o700)
    assert runner.invoke(app, ["--demo", "--strict", "doctor"]).exit_code == 0
    assert runner.invoke(app, ["--demo", "--strict", "export", "-o", str(tmp_path / "o.csv")]).exit_code == 0


@posix_only
def test_with_no_cache_an_export_says_nothing_of_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cache(tmp_path, monkeypatch, 0o777)
    result = runner.invoke(app, ["--demo", "--no-cache", "--strict", "export", "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 0, result.output
