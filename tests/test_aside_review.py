"""The review of ``scan/aside.py`` (0da7397): a first ``list`` whose later providers were
discovered in a helper must print, warn and keep what discovering them here does, in homes
the first tests did not lay out; this process must not discover them again for the page's
rows; and a helper that fails in any way (a Ctrl-C as it starts, an answer that cannot be
taken back) leaves the discovery here, with no process left behind."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.providers.codex import discovery as codex_discovery
from agentscan.providers.codex.discovery import CodexSession
from agentscan.scan import aside
from agentscan.toolkit import helperproc, workers
from agentscan.scan.scanner import Scanner
from builders import forget_remembered_answers
from codex_builders import rollout_path, write_rollout
from cursor_builders import composer_data, copy_real_dot_cursor, make_state_db, state_db_path
from gemini_builders import lay_out_real_gemini
import test_aside
from test_aside import _both_ways, _with_warnings
from test_codex_counting import _fork, _parent
from test_codex_recovery import _paginated_home
from test_row_build import lay_out, run

adopted = test_aside.adopted  # the fixture: the providers whose discovery came from the helper

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")


def _aged(home: Path, tree: str, when: float) -> None:
    """Every file under ``home/tree`` last changed at ``when`` (what the page shows first)."""
    for path in (home / tree).rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


def _codex_warnings(home: Path) -> None:
    """Codex discovery warnings: an empty rollout."""
    started = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    write_rollout(rollout_path(home / ".codex", "0199aaaa-0000-7000-8000-000000000001", started), [])


@pytest.fixture
def discovered_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Codex discoveries made in this process (not taken from its memo of this scan)."""
    parent = os.getpid()
    made: list[str] = []
    real = codex_discovery.discover

    def discover(ctx):  # noqa: ANN001, ANN202
        if os.getpid() == parent and not isinstance(ctx.memo.get(codex_discovery._MEMO_KEY), codex_discovery.Discovery):
            made.append("codex")
        return real(ctx)

    monkeypatch.setattr(codex_discovery, "discover", discover)
    return made


def test_the_page_s_codex_rows_need_no_codex_discovery_here(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str],
        discovered_here: list[str]) -> None:
    """A Codex row's fingerprint asked for the thread index's identity, which only a discovery
    knows: the helper's work was done again here, for every first list with a Codex row."""
    lay_out(isolated_home)
    _paginated_home(isolated_home)
    _codex_warnings(isolated_home)
    _aged(isolated_home, ".claude", 1_000_000_000)  # the page is Codex's
    outputs, _ = _both_ways(tmp_path, monkeypatch, [["list"]])
    assert "codex:" in outputs[0][0]
    assert adopted == ["codex", "gemini", "cursor"]
    assert discovered_here == ["codex"]  # the serial run's own, none in the first


def test_gemini_rows_keep_no_warning_of_a_discovery_made_aside(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    """A Gemini row of a hash-named project asks every provider for the cwds it knows: Codex's
    was discovered again here, inside the row's capture, and the row kept Codex's warnings."""
    _with_warnings(isolated_home)
    _aged(isolated_home, ".codex", 1_000_000_000)
    _aged(isolated_home, ".gemini", time.time() - 10)  # the page starts with Gemini's rows
    outputs, _ = _both_ways(tmp_path, monkeypatch, [["list"], test_aside.FORGET, ["list"],
                                                     ["list", "--provider", "gemini"]])
    assert adopted == ["codex", "gemini", "cursor"]
    assert "gemini:" in outputs[3][0] and "empty file" not in outputs[3][1]


def test_cursor_rows_keep_no_warning_of_a_discovery_made_aside(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    """A Cursor row reads the state DB its discovery opened: opened again here, it warned again
    inside the row's capture, and the row kept the warning."""
    lay_out(isolated_home)
    copy_real_dot_cursor(isolated_home)
    lay_out_real_gemini(isolated_home)
    make_state_db(state_db_path(isolated_home),
                  composers=[composer_data("c0ffee00-0000-4000-8000-000000000001", name="x", created=1, updated=2)],
                  raw_rows=[("composerData:bad", b"{not json")])
    for tree in (".claude", ".codex", ".gemini"):
        _aged(isolated_home, tree, 1_000_000_000)
    outputs, _ = _both_ways(tmp_path, monkeypatch, [["list"], ["list", "--provider", "cursor", "--json"]])
    assert adopted == ["codex", "gemini", "cursor"]
    assert "cursor:" in outputs[0][0]


def test_a_codex_fork_priced_on_a_first_list_keeps_no_discovery_warning(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    """A fork without turn markers is priced from its own calls less its parent's, which only
    a discovery finds: the parse discovered Codex again inside its capture."""
    lay_out(isolated_home)
    _codex_warnings(isolated_home)
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda index, record: record["timestamp"])
    _aged(isolated_home, ".claude", 1_000_000_000)
    outputs, _ = _both_ways(tmp_path, monkeypatch, [["list"], ["tokens", "--by", "session"]])
    assert adopted == ["codex", "gemini", "cursor"]
    assert "codex:019c0000-0000-7000-8000-00000000000f" in outputs[0][0]  # the fork, on the page


def test_a_warm_list_after_one_with_a_helper_discovers_nothing(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _with_warnings(isolated_home)
    first = run("list")
    assert adopted == ["codex", "gemini", "cursor"]
    from agentscan.providers import iter_providers

    discoveries: list[str] = []
    for provider in iter_providers(None):
        kind = type(provider)
        real = kind.discover

        def discover(self, ctx, real=real):  # noqa: ANN001, ANN202
            discoveries.append(self.name)
            return real(self, ctx)

        monkeypatch.setattr(kind, "discover", discover)
    assert run("list") == first  # printed again (``cli.list_answer``)
    forget_remembered_answers()
    assert run("list") == first  # made again: from the discoveries kept
    assert discoveries == []


def test_a_ctrl_c_as_the_helper_starts_leaves_no_process(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between the fork and the question: the helper was neither stopped nor reaped
    (it waited, blocked, for as long as this process lived)."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    _with_warnings(isolated_home)
    started: list[int] = []
    real_start = helperproc.Helper.start

    def start(self):  # noqa: ANN001, ANN202
        real_start(self)
        assert self.pid is not None
        started.append(self.pid)

    def interrupted(self, question):  # noqa: ANN001, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(helperproc.Helper, "start", start)
    monkeypatch.setattr(helperproc.Helper, "send", interrupted)
    with Scanner(use_cache=True, memo_discovery=True) as scanner, pytest.raises(KeyboardInterrupt):
        scanner.list_sessions(limit=25)
    assert started
    try:
        alive = os.waitpid(started[0], os.WNOHANG) == (0, 0)
    except ChildProcessError:
        alive = False  # reaped already
    if alive:  # not left to the rest of the suite
        os.kill(started[0], 9)
        os.waitpid(started[0], 0)
    assert not alive


def _refused() -> object:
    raise ValueError("cannot be made here")


def test_an_answer_that_cannot_be_taken_back_leaves_every_discovery_here(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    """A hint the helper pickles but this process cannot unpickle: a traceback, not a fallback."""
    _with_warnings(isolated_home)
    monkeypatch.setattr(CodexSession, "__reduce_ex__", lambda self, protocol: (_refused, ()), raising=False)
    _both_ways(tmp_path, monkeypatch, [["list"]])
    assert adopted == []


def test_an_answer_the_helper_cannot_send_leaves_every_discovery_here(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _with_warnings(isolated_home)

    def unpicklable(self, protocol):  # noqa: ANN001, ANN202
        raise TypeError("cannot pickle this hint")

    monkeypatch.setattr(CodexSession, "__reduce_ex__", unpicklable, raising=False)
    _both_ways(tmp_path, monkeypatch, [["list"]])
    assert adopted == []


def test_a_warm_list_reading_new_gemini_rows_keeps_no_codex_discovery_warning(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with Codex's discovery taken from the index (no helper): a new Gemini row
    asking for every provider's cwds discovered Codex inside the row's capture."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 10**12)
    lay_out(isolated_home)
    _codex_warnings(isolated_home)
    assert "empty file" in run("list")[1]
    lay_out_real_gemini(isolated_home)  # hash-named projects, newer than anything
    _aged(isolated_home, ".gemini", time.time() - 10)
    assert "empty file" in run("list")[1]
    shown, warned = run("list", "--provider", "gemini")
    assert "gemini:" in shown
    assert "empty file" not in warned


class _Dropped:
    """Garbage not collected yet (it refers to itself), that says where it was finalized."""

    def __init__(self, record: Path) -> None:
        self.record = record
        self.me = self

    def __del__(self) -> None:
        with open(self.record, "a") as out:
            out.write(f"{os.getpid()}\n")


def test_a_helper_never_finalizes_what_this_process_dropped(tmp_path: Path) -> None:
    """A scanner dropped unclosed is such garbage, with its index connection: the helper's
    collection closed it there, in the middle of this process's use of the index."""
    import gc

    record = tmp_path / "finalized"
    gc.disable()
    try:
        _Dropped(record)
        helper = helperproc.Helper(lambda: None, lambda question: gc.collect())
        try:
            helper.ask("collect")
        finally:
            helper.stop()
        gc.collect()
    finally:
        gc.enable()
    assert record.read_text().split() == [str(os.getpid())]
