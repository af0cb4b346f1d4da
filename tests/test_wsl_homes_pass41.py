"""On WSL, ``doctor`` names the Windows profiles that hold an agent's folders, and how to
read them (``--home /mnt/c/Users/me``): agentscan reads one home, and a user whose Cursor
runs on Windows saw none of its sessions and no reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.scan import wslhomes
from builders import cli_json, invoke


def _windows(tmp_path: Path) -> Path:
    users = tmp_path / "windows-users"  # where the autouse fixture points WINDOWS_USERS
    (users / "me" / ".claude" / "projects").mkdir(parents=True)
    # Cursor's Windows database, where its IDE sessions are (pass 42: its roots, not a list of folders)
    (users / "me" / "AppData" / "Roaming" / "Cursor" / "User" / "globalStorage").mkdir(parents=True)
    (users / "me" / "AppData" / "Roaming" / "Cursor" / "User" / "globalStorage" / "state.vscdb").touch()
    (users / "me" / ".cursor").mkdir()
    (users / "Public" / ".claude").mkdir(parents=True)  # Windows' own profile: no one's
    (users / "ann" / "Documents").mkdir(parents=True)  # no agent ran there
    return users


def test_the_profiles_with_an_agents_folders(tmp_path: Path) -> None:
    users = _windows(tmp_path)
    assert wslhomes.windows_homes(users) == [{"home": str(users / "me"), "providers": ["claude", "cursor"]}]
    assert wslhomes.windows_homes(tmp_path / "not-mounted") == []


def test_wsl_is_told_by_its_variable() -> None:
    assert wslhomes.on_wsl({"WSL_DISTRO_NAME": "Ubuntu"})


def test_doctor_on_wsl_names_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    users = _windows(tmp_path)
    monkeypatch.setenv("WSL_DISTRO_NAME", "Ubuntu")
    report = cli_json("doctor")
    assert report["windows_homes"] == [{"home": str(users / "me"), "providers": ["claude", "cursor"]}]
    text = invoke("doctor").stdout
    assert f"windows: {users / 'me'} holds Claude Code and Cursor's folders too (WSL): " \
           f"agentscan --home {users / 'me'} list reads them" in text


def test_doctor_says_nothing_off_wsl_or_when_a_home_was_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                isolated_home: Path) -> None:
    _windows(tmp_path)
    monkeypatch.setattr(wslhomes, "on_wsl", lambda env=None: False)
    assert cli_json("doctor")["windows_homes"] == []
    monkeypatch.setattr(wslhomes, "on_wsl", lambda env=None: True)
    assert cli_json("--home", str(isolated_home), "doctor")["windows_homes"] == []
    assert "windows" not in invoke("--home", str(isolated_home), "doctor").stdout.lower()


# -- pass 42: the folders are the providers' own roots, asked of them -------------------


@pytest.mark.parametrize("folder, provider", [
    (".codex/archived_sessions", "codex"),  # archived only: a list of folders kept apart missed it
    (".config/claude/projects", "claude"),  # Claude Code's XDG place
    (".cursor/chats", "cursor"),  # the Cursor Agent CLI's store
    (".gemini/tmp", "gemini"),
])
def test_every_root_of_a_provider_tells_it_ran(tmp_path: Path, folder: str, provider: str) -> None:
    users = tmp_path / "users"
    (users / "me" / folder).mkdir(parents=True)
    assert wslhomes.windows_homes(users) == [{"home": str(users / "me"), "providers": [provider]}]


def test_an_agent_s_settings_alone_are_no_sessions(tmp_path: Path) -> None:
    users = tmp_path / "users"
    (users / "me" / ".claude").mkdir(parents=True)
    (users / "me" / ".claude" / "settings.json").write_text("{}")
    (users / "me" / ".cursor").mkdir()
    (users / "me" / "AppData" / "Roaming" / "Cursor").mkdir(parents=True)  # the app, no database
    assert wslhomes.windows_homes(users) == []


def test_a_new_provider_s_root_is_picked_up(tmp_path: Path) -> None:
    from agentscan.providers import get_provider
    from agentscan.providers.fake import FakeProvider

    users = tmp_path / "users"
    (users / "me" / ".fake").mkdir(parents=True)  # ``FakeProvider.roots``: <home>/.fake
    (users / "ann" / ".claude" / "projects").mkdir(parents=True)

    found = wslhomes.windows_homes(users, [get_provider("claude"), FakeProvider(name="newagent")])
    assert found == [{"home": str(users / "ann"), "providers": ["claude"]},
                     {"home": str(users / "me"), "providers": ["newagent"]}]


def test_a_root_outside_the_profile_does_not_count(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.fake import FakeProvider
    from agentscan.toolkit.roots import Root

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    class Absolute(FakeProvider):
        def roots(self, ctx: ScanContext) -> list[Root]:
            return [Root(self.name, elsewhere, "X_HOME")]

    users = tmp_path / "users"
    (users / "me").mkdir(parents=True)
    assert wslhomes.windows_homes(users, [Absolute(name="abs")]) == []
