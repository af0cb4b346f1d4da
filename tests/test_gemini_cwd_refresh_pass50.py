"""A Gemini row's cwd comes from its project dir's ``.project_root`` or ``projects.json``,
not from its chats: editing either after a ``list`` or ``tokens`` left ``list --json``
showing the old cwd (only ``--no-cache`` showed the new one), because the session's
fingerprint covered its chats alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from gemini_builders import gemini, meta, tokens, user, write_chat

runner = CliRunner()
NATIVE = "9e9e9e9e-1111-4222-8333-444444444444"


def chat(home: Path, project: str) -> Path:
    return write_chat(home, project, f"session-2026-05-01T10-00-{NATIVE[:8]}.jsonl", [
        meta(NATIVE), user("u1", "2026-05-01T10:00:00.000Z", "port the module"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "done", usage=tokens(100, 10))], mtime=1_777_000_000)


def cwds(*extra: str) -> list[str | None]:
    result = runner.invoke(app, ["list", "--json", *extra])
    assert result.exit_code == 0, result.output
    return [row["cwd"] for row in orjson.loads(result.stdout)["sessions"]]


def touched(path: Path, text: str) -> None:
    # A second's step: an edit within the same mtime tick is still told by size and ctime,
    # but keep the test about the files, not the clock.
    path.write_text(text, "utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@pytest.mark.parametrize("first", ["list", "tokens"])
def test_an_edited_project_root_gives_the_new_cwd(isolated_home: Path, first: str) -> None:
    chat(isolated_home, "api")
    marker = isolated_home / ".gemini" / "tmp" / "api" / ".project_root"
    marker.write_text("/work/old-api\n", "utf-8")
    assert runner.invoke(app, [first]).exit_code == 0
    assert cwds() == ["/work/old-api"]
    touched(marker, "/work/new-api\n")
    assert cwds() == ["/work/new-api"] == cwds("--no-cache")
    marker.unlink()  # then the registry settles it
    (isolated_home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {"/work/registered-api": "api"}}), "utf-8")
    assert cwds() == ["/work/registered-api"]


@pytest.mark.parametrize("first", ["list", "tokens"])
def test_an_edited_registry_gives_the_new_cwd(isolated_home: Path, first: str) -> None:
    chat(isolated_home, "api")
    registry = isolated_home / ".gemini" / "projects.json"
    registry.write_text(json.dumps({"projects": {"/work/old-api": "api"}}), "utf-8")
    assert runner.invoke(app, [first]).exit_code == 0
    assert cwds() == ["/work/old-api"]
    touched(registry, json.dumps({"projects": {"/work/moved-api": "api"}}))
    assert cwds() == ["/work/moved-api"] == cwds("--no-cache")


@pytest.mark.parametrize("junk", ["", "relative/path\n", "/a\n/b\n"])
def test_a_registry_edit_reaches_a_dir_whose_project_root_is_junk(isolated_home: Path, junk: str) -> None:
    """A ``.project_root`` that holds no path settles nothing: the registry does, so its edit
    renews the row (pass 51: the junk marker's identity stood for the registry's)."""
    chat(isolated_home, "api")
    (isolated_home / ".gemini" / "tmp" / "api" / ".project_root").write_text(junk, "utf-8")
    registry = isolated_home / ".gemini" / "projects.json"
    registry.write_text(json.dumps({"projects": {"/work/old-api": "api"}}), "utf-8")
    assert cwds() == ["/work/old-api"]
    touched(registry, json.dumps({"projects": {"/work/moved-api": "api"}}))
    assert cwds() == ["/work/moved-api"] == cwds("--no-cache")


def test_a_good_project_root_is_not_read_again_for_a_registry_edit(isolated_home: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A marker's verdict is remembered until it changes; a registry edit renews no row a
    marker settles (the rows of other dirs are read again)."""
    from agentscan.providers.gemini import projects

    chat(isolated_home, "api")
    (isolated_home / ".gemini" / "tmp" / "api" / ".project_root").write_text("/work/api\n", "utf-8")
    registry = isolated_home / ".gemini" / "projects.json"
    registry.write_text(json.dumps({"projects": {"/work/api": "api"}}), "utf-8")
    assert cwds() == ["/work/api"]
    read: list[Path] = []
    real = projects.marker_path
    monkeypatch.setattr(projects, "marker_path", lambda path, ctx: read.append(path) or real(path, ctx))
    touched(registry, json.dumps({"projects": {"/work/api": "api", "/work/web": "web"}}))
    assert cwds() == ["/work/api"]
    assert read == []


def test_a_new_project_in_the_registry_does_not_renew_a_registered_dir_s_rows(isolated_home: Path) -> None:
    """Gemini CLI rewrites ``projects.json`` for each new project: a dir whose slug it registers
    is settled by that entry alone, so its row is kept (its chats not read again); its own entry
    edited renews it."""
    from agentscan.providers.gemini.provider import GeminiProvider

    chat(isolated_home, "api")
    registry = isolated_home / ".gemini" / "projects.json"
    registry.write_text(json.dumps({"projects": {"/work/api": "api"}}), "utf-8")
    assert cwds() == ["/work/api"]
    built: list[str] = []
    real = GeminiProvider.row

    def counted(self, ref, ctx):  # type: ignore[no-untyped-def]
        built.append(ref.native_id)
        return real(self, ref, ctx)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GeminiProvider, "row", counted)
        touched(registry, json.dumps({"projects": {"/work/api": "api", "/work/web": "web"}}))
        assert cwds() == ["/work/api"]
        assert built == []
        touched(registry, json.dumps({"projects": {"/work/api-moved": "api", "/work/web": "web"}}))
        assert cwds() == ["/work/api-moved"]
        assert built == [NATIVE]
