"""``TZ=:/etc/localtime`` (set by many servers' profiles so the C library need not stat the
file each call) is the system's zone: ``window.tz`` named it as with ``TZ`` unset, not
``null`` (the path holds no ``zoneinfo/`` to read a name from; the link or copy does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan import localzone

ZONES = Path("/usr/share/zoneinfo")


@pytest.fixture
def system_zone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Path]:
    """``/etc/localtime`` (and ``/etc/timezone``) as the test sets them in ``files``."""
    if not (ZONES / "Europe/Paris").exists():
        pytest.skip("no zone files")
    monkeypatch.delenv("TZDIR", raising=False)
    monkeypatch.setattr(localzone, "_checked", lambda name: name)  # (the offset check is the process's zone's)
    real_open, real_readlink = open, localzone.os.readlink
    files: dict[str, Path] = {}

    def fake_readlink(path: str) -> str:
        if path == "/etc/localtime" and "link" in files:
            return str(files["link"])
        if path == "/etc/localtime":
            raise OSError(22, "Invalid argument")  # a copy, not a link
        return real_readlink(path)

    def fake_open(path, *args, **kwargs):  # noqa: ANN001, ANN202
        return real_open(files.get(str(path), path), *args, **kwargs)

    monkeypatch.setattr(localzone.os, "readlink", fake_readlink)
    monkeypatch.setattr("builtins.open", fake_open)
    return files


@pytest.mark.parametrize("tz", [":/etc/localtime", "/etc/localtime", ":/etc//localtime"])
def test_tz_naming_the_system_zone_file_is_named_as_unset(system_zone: dict[str, Path], tmp_path: Path, tz: str) -> None:
    system_zone["link"] = ZONES / "Europe/Paris"
    assert localzone.iana_name({}) == "Europe/Paris"
    assert localzone.iana_name({"TZ": tz}) == "Europe/Paris"
    del system_zone["link"]  # a copy: named only when /etc/timezone names a zone of its bytes
    (tmp_path / "timezone").write_text("Europe/Paris\n")
    system_zone["/etc/timezone"] = tmp_path / "timezone"
    system_zone["/etc/localtime"] = ZONES / "Europe/Paris"
    assert localzone.iana_name({"TZ": tz}) == "Europe/Paris"
    system_zone["/etc/localtime"] = ZONES / "Asia/Tokyo"
    assert localzone.iana_name({"TZ": tz}) is None


def test_another_absolute_zone_file_is_still_read_by_its_path(system_zone: dict[str, Path]) -> None:
    system_zone["link"] = ZONES / "Europe/Paris"
    assert localzone.iana_name({"TZ": f":{ZONES}/Asia/Tokyo"}) == "Asia/Tokyo"
    assert localzone.iana_name({"TZ": "/etc/other-localtime"}) is None


def test_a_system_zone_is_named_by_its_link_or_a_true_copy(system_zone: dict[str, Path], tmp_path: Path) -> None:
    system_zone["link"] = ZONES / "Europe/Paris"
    assert localzone.iana_name({}) == "Europe/Paris"
    del system_zone["link"]
    (tmp_path / "timezone").write_text("Europe/Paris\n")
    system_zone["/etc/timezone"] = tmp_path / "timezone"
    system_zone["/etc/localtime"] = ZONES / "Europe/Paris"
    assert localzone.iana_name({}) == "Europe/Paris"
    system_zone["/etc/localtime"] = ZONES / "Asia/Tokyo"  # /etc/timezone left behind by a tool that set another zone
    assert localzone.iana_name({}) is None
    assert localzone.iana_name({"TZDIR": "/opt/zones"}) is None
