"""The censuses of several providers taken side by side (``scan.stamps``): the same stamps."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import orjson
import pytest

from agentscan.cli.state import State
from agentscan.scan import stamps
from agentscan.toolkit import cores, helperproc
from agentscan.scan.memo import stamp_of
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_usage, cli_json, lay_out_real_claude
from codex_builders import lay_out_real_codex
from gemini_builders import lay_out_real_gemini


REAL_HELPER = helperproc.Helper  # the class itself (the ``parallel`` fixture wraps it)


def build(home: Path) -> None:
    lay_out_real_claude(home)
    lay_out_real_codex(home)
    lay_out_real_gemini(home)


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> list[helperproc.Helper]:
    """Every census side by side, however small the home; the helpers started, to look at."""
    started: list[helperproc.Helper] = []
    real_helper = helperproc.Helper

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        helper = real_helper(*args, **kwargs)
        started.append(helper)
        return helper

    monkeypatch.setattr(stamps, "PARALLEL_MIN_SESSIONS", 0)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    monkeypatch.setattr(helperproc, "Helper", counting)
    return started


def test_the_stamps_are_those_taken_one_by_one(isolated_home: Path, parallel: list) -> None:
    build(isolated_home)
    cli_json("list")  # the index counts each provider's sessions
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        side_by_side = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        one_by_one = {provider.name: stamp_of(provider, scanner.ctx) for provider in scanner.providers}
    assert parallel and parallel[0].pid is None  # a helper took some, and was stopped
    assert side_by_side == one_by_one
    assert all(stamp is not None for stamp in side_by_side.values())


def test_answers_are_a_fresh_runs(isolated_home: Path, parallel: list) -> None:
    build(isolated_home)
    fresh = [cli_json("--no-cache", *argv) for argv in (["list"], ["tokens"])]
    cli_json("list")
    parallel.clear()
    assert [cli_json(*argv) for argv in (["list"], ["tokens"])] == fresh
    assert parallel  # the warm runs took their censuses side by side


def _children() -> set[str]:
    """This process's living children (Linux)."""
    found: set[str] = set()
    for task in Path("/proc/self/task").iterdir():
        found.update((task / "children").read_text().split())
    return found


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _heaviest(scanner: Scanner) -> str:
    counts = scanner.cache.session_counts()  # type: ignore[union-attr]
    return max(scanner.providers, key=lambda provider: counts.get(provider.name, 0)).name


@pytest.mark.parametrize("how", ["exits", "raises"])
def test_a_helper_that_fails_leaves_the_censuses_to_this_process(isolated_home: Path, parallel: list,
                                                                monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    build(isolated_home)
    fresh = orjson.dumps(cli_json("--no-cache", "tokens"))
    cli_json("list")

    def failing(names: list[str]) -> dict:
        if how == "exits":
            os._exit(3)  # in the helper: as if killed
        raise RuntimeError("a bug in the helper")

    real_helper = helperproc.Helper
    monkeypatch.setattr(helperproc, "Helper", lambda setup, serve, **kwargs: real_helper(setup, failing, **kwargs))
    children, fds = _children(), _open_fds()
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        taken = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        heavy = _heaviest(scanner)
        assert taken == {heavy: stamp_of(scanner.provider(heavy), scanner.ctx)}  # the rest, one by one later
    assert _children() == children and _open_fds() == fds
    assert orjson.dumps(cli_json("tokens")) == fresh


def test_ctrl_c_during_the_fork_leaves_no_helper_behind(isolated_home: Path, parallel: list,
                                                        monkeypatch: pytest.MonkeyPatch, default_sigint: None) -> None:
    import signal

    build(isolated_home)
    cli_json("list")
    real_fork = os.fork

    def interrupted_fork() -> int:
        os.kill(os.getpid(), signal.SIGINT)  # pending while SIGINT is blocked around the fork
        return real_fork()

    monkeypatch.setattr(os, "fork", interrupted_fork)
    children, fds = _children(), _open_fds()
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        with pytest.raises(KeyboardInterrupt):
            stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
    assert _children() == children and _open_fds() == fds


def test_a_symlink_a_lighter_census_follows_is_followed_alike(isolated_home: Path, tmp_path: Path,
                                                               parallel: list) -> None:
    """The helper decides which symlinked directories to walk as this process would."""
    build(isolated_home)
    cli_json("list")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.jsonl").write_text("{}\n")
    sessions = isolated_home / ".codex" / "sessions"
    (sessions / "linked-outside").symlink_to(outside, target_is_directory=True)
    inside = next(path for path in sessions.iterdir() if path.is_dir() and not path.is_symlink())
    (sessions / "linked-inside").symlink_to(inside, target_is_directory=True)
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        side_by_side = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        assert side_by_side["codex"] is not None
        assert side_by_side == {provider.name: stamp_of(provider, scanner.ctx) for provider in scanner.providers}


def test_a_lighter_provider_that_changed_is_seen(isolated_home: Path, parallel: list) -> None:
    """A wrong stamp from the helper would show a stale answer once a lighter provider changed."""
    build(isolated_home)
    cli_json("list")
    cli_json("tokens")
    rollout = next((isolated_home / ".codex" / "sessions").rglob("*.jsonl"))
    rollout.unlink()
    assert cli_json("tokens") == cli_json("--no-cache", "tokens")
    assert cli_json("list") == cli_json("--no-cache", "list")


def test_no_helper_for_a_light_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(isolated_home)
    cli_json("list")
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a helper for a handful of sessions")

    monkeypatch.setattr(helperproc, "Helper", refused)
    with State().scanner(memo=True) as scanner:
        assert scanner.cache is not None and sum(scanner.cache.session_counts().values()) < stamps.PARALLEL_MIN_SESSIONS
        assert stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache) == {}
        assert scanner.refs()  # taken one by one


def test_a_small_home_takes_its_censuses_without_importing_workers(isolated_home: Path) -> None:
    import subprocess
    import sys

    build(isolated_home)
    script = ("import sys; sys.argv[0] = 'agentscan'\nfrom agentscan.entry import main\n"
              "try:\n    main()\nfinally:\n    print('workers:', 'agentscan.toolkit.workers' in sys.modules, file=sys.stderr)\n")
    runs = [subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ))
            for argv in (["list"], ["list"], ["tokens", "--json"], ["tokens", "--json"])]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    # Warm: below ``PARALLEL_MIN_SESSIONS`` no helper is forked, and its module costs 4 ms of imports.
    # (A ``list`` prices its rows from their own passes' sums: the first ``tokens`` reads the sessions.)
    assert [runs[index].stderr.rsplit("workers: ", 1)[-1] for index in (1, 3)] == ["False\n", "False\n"]


def test_tokens_after_one_session_grew_parses_it_without_the_worker_pool(isolated_home: Path) -> None:
    """A session that grew is parsed here: deciding so imports ``toolkit.cores``, not the
    pool's modules (``pickle``, ``selectors``, ``threading``: about 7 ms)."""
    import subprocess
    import sys

    build(isolated_home)
    script = ("import sys; sys.argv[0] = 'agentscan'\nfrom agentscan.entry import main\n"
              "try:\n    main()\nfinally:\n    print('workers:', 'agentscan.toolkit.workers' in sys.modules, file=sys.stderr)\n")

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ))
        assert done.returncode == 0, done.stderr
        return done

    before = orjson.loads(run("tokens", "--json").stdout)["total"]["total"]
    transcript = max((isolated_home / ".claude" / "projects").rglob("*.jsonl"), key=lambda path: path.stat().st_size)
    session = transcript.stem
    call = claude_assistant(session, "2026-05-02T10:00:00Z", msg_id="grown-1", request_id="grown-r1",
                            usage=claude_usage(input=7, output=11))
    with transcript.open("ab") as grown:
        grown.write(orjson.dumps(call) + b"\n")  # one more call: the session must be read again
    patched = run("tokens", "--json")
    assert patched.stderr.endswith("workers: False\n")
    total = orjson.loads(patched.stdout)["total"]
    assert total["total"] == before + 18
    assert total == orjson.loads(run("--no-cache", "tokens", "--json").stdout)["total"]
    with transcript.open("ab") as grown:  # and the table, whose rows are read again (``rowbuild`` decides here)
        grown.write(orjson.dumps({**call, "requestId": "grown-r2", "message": {**call["message"], "id": "grown-2"}}) + b"\n")
    assert run("tokens").stderr.endswith("workers: False\n")


@pytest.mark.parametrize("helper", ["answers", "is gone"])
def test_the_heaviest_census_shared_with_the_helper_is_the_same(isolated_home: Path, parallel: list,
                                                                 monkeypatch: pytest.MonkeyPatch, helper: str) -> None:
    from agentscan.scan import census as census_module
    from agentscan.scan.cache import Cache
    from builders import claude_session_file, claude_user

    build(isolated_home)
    for number in range(8):  # more project folders: subtrees of the Claude root to share
        native = f"{number:08x}-0000-4000-8000-000000000000"
        claude_session_file(isolated_home, native, [claude_user(native, "2026-10-01T10:00:00Z", "hi")],
                            project=f"-home-dev-p{number}", mtime=1_790_000_000)
    (isolated_home / ".claude" / "projects" / "-home-dev-p3" / "nested" / "deeper").mkdir(parents=True)
    cli_json("list")
    # Claude is the heaviest by far: half its root's subtrees go to the helper.
    monkeypatch.setattr(Cache, "session_counts", lambda self: {"claude": 5000})
    walked_here: list[str] = []
    real_walk = census_module.walk_subtree

    def counting(path: str, *args: object) -> object:
        walked_here.append(path)
        return real_walk(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(census_module, "walk_subtree", counting)
    if helper == "is gone":
        def gone(self: helperproc.Helper) -> None:
            raise helperproc.HelperGone("killed")

        monkeypatch.setattr(REAL_HELPER, "receive", gone)
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        side_by_side = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        walked_by_sharing = list(walked_here)  # not what the one-by-one censuses walk next
        one_by_one = {provider.name: stamp_of(provider, scanner.ctx) for provider in scanner.providers}
    subtrees = [path for path in (isolated_home / ".claude" / "projects").iterdir() if path.is_dir()]
    assert len(subtrees) >= 9
    if helper == "answers":
        assert side_by_side == one_by_one
        assert 0 < len(walked_by_sharing) < len(subtrees)  # the rest were walked by the helper
    else:
        assert side_by_side == {"claude": one_by_one["claude"]}  # the lighter ones: one by one, later
        assert sorted(walked_by_sharing) == sorted(map(str, subtrees))  # the helper's share walked here after all


def _more_claude_projects(home: Path, count: int = 8) -> Path:
    """Project folders: subtrees of the Claude root to share with the helper."""
    from builders import claude_session_file, claude_user

    for number in range(count):
        native = f"{number:08x}-0000-4000-8000-000000000000"
        claude_session_file(home, native, [claude_user(native, "2026-10-01T10:00:00Z", "hi")],
                            project=f"-home-dev-p{number}", mtime=1_790_000_000)
    return home / ".claude" / "projects"


def _both_ways() -> tuple[dict, dict]:
    with State().scanner(memo=True) as scanner:
        scanner.confine()
        side_by_side = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        one_by_one = {provider.name: stamp_of(provider, scanner.ctx) for provider in scanner.providers}
    return side_by_side, one_by_one


@pytest.fixture
def heaviest(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Make one provider the heaviest by far: half its first root's subtrees go to the helper."""
    from agentscan.scan.cache import Cache

    return lambda name: monkeypatch.setattr(Cache, "session_counts", lambda self: {name: 5000})


def test_a_change_in_any_shared_subtree_is_seen(isolated_home: Path, parallel: list, heaviest: Callable[[str], None]) -> None:
    build(isolated_home)
    root = _more_claude_projects(isolated_home)
    cli_json("list")
    heaviest("claude")
    before, _ = _both_ways()
    changed = 0
    for subtree in sorted(path for path in root.iterdir() if path.is_dir()):
        transcript = next(subtree.rglob("*.jsonl"), None)
        if transcript is None:
            continue
        times = transcript.stat()
        os.utime(transcript, ns=(times.st_atime_ns, times.st_mtime_ns + 1_000))  # a time alone
        side_by_side, one_by_one = _both_ways()
        assert side_by_side == one_by_one
        assert side_by_side["claude"] != before["claude"], subtree
        before, changed = side_by_side, changed + 1
    assert changed >= 9 and parallel


def test_symlinks_between_subtrees_and_to_the_root(isolated_home: Path, parallel: list, heaviest: Callable[[str], None]) -> None:
    build(isolated_home)
    root = _more_claude_projects(isolated_home)
    cli_json("list")
    heaviest("claude")
    (root / "-home-dev-p1" / "to-p6").symlink_to(root / "-home-dev-p6", target_is_directory=True)
    (root / "-home-dev-p6" / "to-p1").symlink_to(root / "-home-dev-p1", target_is_directory=True)
    (root / "-home-dev-p2" / "to-root").symlink_to(root, target_is_directory=True)
    before, one_by_one = _both_ways()
    assert before == one_by_one and before["claude"] is not None
    with next((root / "-home-dev-p6").glob("*.jsonl")).open("a") as transcript:
        transcript.write("\n")
    after, one_by_one = _both_ways()
    assert after == one_by_one and after["claude"] not in (None, before["claude"])


def test_too_many_entries_is_no_stamp_either_way(isolated_home: Path, parallel: list, heaviest: Callable[[str], None],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import census

    build(isolated_home)
    root = _more_claude_projects(isolated_home)
    cli_json("list")
    heaviest("claude")
    entries = sum(1 for _ in root.rglob("*"))
    for limit in (3, entries // 2, entries - 1, entries, entries + 50):
        monkeypatch.setattr(census, "MAX_ENTRIES", limit)
        side_by_side, one_by_one = _both_ways()
        assert side_by_side == one_by_one, limit
        assert (side_by_side["claude"] is None) == (limit < entries), limit


def test_the_heaviest_root_missing_or_a_file(isolated_home: Path, parallel: list, heaviest: Callable[[str], None]) -> None:
    import shutil

    build(isolated_home)
    cli_json("list")
    heaviest("claude")
    root = isolated_home / ".claude" / "projects"
    shutil.rmtree(root)
    assert _both_ways()[0] == _both_ways()[1]
    root.write_text("not a folder")
    side_by_side, one_by_one = _both_ways()
    assert side_by_side == one_by_one and side_by_side["claude"] is not None


def test_the_second_root_of_the_heaviest_is_walked_here(isolated_home: Path, parallel: list, heaviest: Callable[[str], None]) -> None:
    build(isolated_home)
    codex = isolated_home / ".codex"
    for number in range(6):
        for root in ("sessions", "archived_sessions"):
            folder = codex / root / f"20{number:02d}"
            folder.mkdir(parents=True)
            (folder / "note.txt").write_text("x")
    cli_json("list")
    heaviest("codex")
    children, fds = _children(), _open_fds()
    before, one_by_one = _both_ways()
    assert before == one_by_one and before["codex"] is not None
    (codex / "archived_sessions" / "2003" / "note.txt").write_text("xy")
    after, one_by_one = _both_ways()
    assert after == one_by_one and after["codex"] != before["codex"]
    assert parallel and all(helper.pid is None for helper in parallel)
    assert _children() == children and _open_fds() == fds  # no helper, no pipe left behind
