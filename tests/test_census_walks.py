"""How the census walks a root's subtrees: a symlinked directory inside the root it is in is
walked where it is, once, however many links lead to it (a subtree walked apart used to walk
it again for each link), and a change behind a link is still seen; a root past
``MAX_ENTRIES`` is given up as soon as its subtrees pass it, not one subtree later each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.scan import census as census_module
from agentscan.scan.census import census


def _home(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    big = root / "big"
    for index in range(4):
        (big / f"s{index}").mkdir(parents=True)
        (big / f"s{index}" / "x.jsonl").write_text("{}\n")
    for name in ("a", "b", "c"):
        (root / name).mkdir()
        (root / name / "to-big").symlink_to(big, target_is_directory=True)
    (root / "c" / "to-root").symlink_to(root, target_is_directory=True)
    return root, big


def _take(root: Path) -> census_module.Census:
    taken = census([str(root)], admits=lambda path: True)
    assert taken is not None
    return taken


def test_a_link_into_its_own_root_is_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, big = _home(tmp_path)
    walked: list[str] = []
    real_walk = census_module._walk

    def counting(directory: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        walked.append(directory)
        return real_walk(directory, *args, **kwargs)

    monkeypatch.setattr(census_module, "_walk", counting)
    taken = _take(root)
    real_dirs = sorted(str(path) for path in [root, *root.rglob("*")] if path.is_dir() and not path.is_symlink())
    assert sorted(walked) == real_dirs
    assert taken.dirs is None  # a file may have two paths for discovery: never mended


def test_what_changes_behind_a_link_is_seen(tmp_path: Path) -> None:
    root, big = _home(tmp_path)
    before = _take(root)
    assert _take(root).digest == before.digest
    with (big / "s2" / "x.jsonl").open("a") as transcript:
        transcript.write("{}\n")
    grown = _take(root)
    assert grown.digest != before.digest
    os.unlink(root / "a" / "to-big")
    (root / "a" / "to-big").symlink_to(big / "s1", target_is_directory=True)
    assert _take(root).digest != grown.digest


def test_a_link_out_of_its_root_is_still_walked(tmp_path: Path) -> None:
    root, _ = _home(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "b" / "to-outside").symlink_to(outside, target_is_directory=True)
    before = _take(root)
    (outside / "new.jsonl").write_text("{}\n")
    assert _take(root).digest != before.digest
    assert census([str(root)], admits=lambda path: not path.startswith(str(outside))) is not None


def test_a_root_past_the_limit_is_given_up_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    for number in range(6):
        for name in ("x", "y", "z", "w"):
            (root / f"p{number}" / name).mkdir(parents=True)
    walked: list[str] = []
    real_walk = census_module.walk_subtree

    def counting(path: str, *args: object) -> object:
        walked.append(path)
        return real_walk(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(census_module, "walk_subtree", counting)
    monkeypatch.setattr(census_module, "MAX_ENTRIES", 6 * 4 + 6)
    assert census([str(root)]) is not None  # exactly at the limit
    monkeypatch.setattr(census_module, "MAX_ENTRIES", 9)
    walked.clear()
    assert census([str(root)]) is None
    assert len(walked) == 1  # 6 entries at the root, 4 in its first subtree: past 9 there


@pytest.mark.parametrize(("path", "root", "within"), [
    ("/a/b", "/a/b", True), ("/a/b/c", "/a/b", True), ("/a/b/c", "/a/b/", True), ("/a/bc", "/a/b", False),
    ("/a", "/a/b", False), ("/anything", "/", True), ("/", "/", True),
])
def test_is_within(path: str, root: str, within: bool) -> None:
    from agentscan.toolkit.paths import is_within

    assert is_within(path, root) is within
