"""Discovery taken from the index while nothing under a provider's roots changed."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.demo import demo_home
from agentscan.providers import iter_providers
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.census import census
from agentscan.memohint import is_memo_ref
from agentscan.scan.memorefs import MemoRef
from agentscan.scan.scanner import Scanner
from builders import (
    cli_json,
    claude_assistant,
    claude_session_file,
    claude_usage,
    claude_user,
    forget_remembered_answers,
    write_jsonl,
)

runner = CliRunner()
S1 = "aaaaaaaa-1111-4222-8333-444444444444"
S2 = "bbbbbbbb-1111-4222-8333-444444444444"
S3 = "cccccccc-1111-4222-8333-444444444444"


def session(home: Path, native_id: str, day: int, tokens: int) -> Path:
    return claude_session_file(home, native_id, [
        claude_user(native_id, f"2026-11-{day:02d}T10:00:00Z", f"prompt of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-{day:02d}T10:00:01Z", msg_id=f"m-{native_id}", request_id=f"r-{native_id}",
                         usage=claude_usage(tokens, 10)),
    ], mtime=1_790_000_000 + day * 86_400)



# -- the census ---------------------------------------------------------------


def test_census_sees_every_kind_of_change(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    target = root / "a" / "b" / "s.jsonl"
    target.write_bytes(b'{"x":1}\n')
    def digest() -> str:
        found = census([str(root)])
        assert found is not None
        return found.digest

    seen = {digest()}
    assert digest() in seen  # nothing changed: the same digest

    def changed() -> None:
        now = digest()
        assert now not in seen
        seen.add(now)

    with target.open("ab") as handle:  # an append (the directory's mtime does not move)
        handle.write(b'{"x":2}\n')
    changed()
    info = target.stat()
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns + 1))
    changed()
    replacement = root / "a" / "r.tmp"  # same bytes and times, another file (os.replace)
    shutil.copy2(target, replacement)
    os.replace(replacement, target)
    changed()
    os.chmod(target, 0o600)
    changed()
    before = census([str(root)])
    (root / "a" / "new.jsonl").write_bytes(b"")
    changed()
    (root / "a" / "new.jsonl").unlink()
    # The same entries with the same stats as before: discovery would find the same.
    assert census([str(root)]) == before
    (root / "a" / "c").mkdir()
    changed()


def test_census_of_missing_paths_and_loops(tmp_path: Path) -> None:
    missing = str(tmp_path / "nothing-here")
    assert census([missing]) == census([missing])
    (tmp_path / "nothing-here").mkdir()
    assert census([missing]) != census([str(tmp_path / "other")])
    loop = tmp_path / "loop"
    loop.mkdir()
    os.symlink(loop, loop / "again")
    assert census([str(loop)]) is not None  # a symlink loop is walked once


def test_census_gives_up_on_a_directory_it_cannot_list(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        # root reads anything: simulate the refusal instead
        real_scandir = os.scandir

        def refusing(path):  # noqa: ANN001, ANN202
            if str(path) == str(locked):
                raise PermissionError(13, "Permission denied")
            return real_scandir(path)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "scandir", refusing)
            assert census([str(tmp_path)]) is None
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0)
        try:
            assert census([str(tmp_path)]) is None
        finally:
            locked.chmod(0o700)


def test_every_file_of_the_demo_home_is_under_a_census_path(tmp_path: Path) -> None:
    """The census must cover what discovery reads: every provider file of the demo home."""
    home = tmp_path / "demo"
    shutil.copytree(demo_home(), home)
    ctx = ScanContext.create(home=home, env={"HOME": str(home)})
    covered = [Path(p) for provider in iter_providers() for p in (provider.census_paths(ctx) or [])]
    # Claude Code's registry of running processes is read for ``running``, fresh each time, not by discovery.
    registry = home / ".claude" / "sessions"
    files = [path for path in home.rglob("*") if path.is_file() and registry not in path.parents]
    assert files
    for path in files:
        assert any(path == root or root in path.parents for root in covered), path


# -- the memo -----------------------------------------------------------------


def test_a_warm_list_takes_discovery_from_the_index(isolated_home: Path, discoveries: list[str]) -> None:
    session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    cold = cli_json("list")
    assert discoveries == ["claude"]
    warm = cli_json("list")
    assert discoveries == ["claude"]  # no second discovery
    assert warm == cold
    assert cli_json("tokens") == cli_json("--no-cache", "tokens")


def test_a_new_or_grown_session_is_seen_at_once(isolated_home: Path, discoveries: list[str]) -> None:
    first = session(isolated_home, S1, 1, 100)
    cli_json("list")
    session(isolated_home, S3, 3, 300)
    listed = [row["native_id"] for row in cli_json("list")["sessions"]]
    assert listed == [S3, S1]
    assert discoveries == ["claude", "claude"]
    with first.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(S1, "2026-11-04T10:00:01Z", msg_id="m-late", request_id="r-late",
                                                   usage=claude_usage(5, 5))) + b"\n")
    rows = {row["native_id"]: row for row in cli_json("list")["sessions"]}
    assert rows[S1]["tokens"]["input"] == 105
    assert cli_json("tokens") == cli_json("--no-cache", "tokens")


def test_tokens_parses_memo_refs_through_the_real_discovery(isolated_home: Path, discoveries: list[str]) -> None:
    """Discovery stored, nothing parsed yet: ``tokens`` gets memo refs and must parse them."""
    session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        scanner.refs()
    assert discoveries == ["claude"]
    warm = cli_json("tokens")
    # A few sessions to parse, from a discovery that made no choice: each is rebuilt alone.
    assert discoveries == ["claude"]
    assert warm == cli_json("--no-cache", "tokens")
    assert {row["key"] for row in warm["rows"]} == {f"claude:{S1}", f"claude:{S2}"}


def test_many_memo_refs_to_parse_are_found_by_one_discovery(isolated_home: Path, discoveries: list[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import agentscan.scan.ownrefs as ownrefs_module

    monkeypatch.setattr(ownrefs_module, "LOCATE_LIMIT", 1)
    session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        scanner.refs()
    warm = cli_json("tokens")
    assert discoveries == ["claude", "claude"]  # the memo, then the provider's own refs for the parse
    assert warm == cli_json("--no-cache", "tokens")


def test_memo_refs_carry_what_discovery_found(isolated_home: Path) -> None:
    session(isolated_home, S1, 1, 100)
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        real = scanner.refs()
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        memo = scanner.refs()
        assert all(isinstance(ref, MemoRef) and is_memo_ref(ref) for ref in memo)
        assert [(r.id, r.path, r.files, r.recency, r.children) for r in memo] == \
               [(r.id, r.path, r.files, r.recency, r.children) for r in real]
        assert scanner.fingerprint(memo[0]) == ClaudeProvider().fingerprint(real[0], scanner.ctx)
        found = scanner.real_ref(memo[0])
        assert found is not None and not is_memo_ref(found) and found.id == real[0].id


def test_discovery_warnings_are_said_again(isolated_home: Path) -> None:
    session(isolated_home, S1, 1, 100)
    empty = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S2}.jsonl"
    empty.write_bytes(b"")
    cold = cli_json("list")["warnings"]
    printed_again = cli_json("list")["warnings"]  # the page remembered (``cli.list_answer``)
    forget_remembered_answers()
    warm = cli_json("list")["warnings"]  # made again, from the memo
    assert cold and warm == cold and printed_again == cold


def test_a_session_gone_since_the_census_is_a_warning(isolated_home: Path) -> None:
    path = session(isolated_home, S1, 1, 100)
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        scanner.refs()
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        (memo,) = scanner.refs()
        path.unlink()
        assert scanner.real_ref(memo) is None
        assert any("changed while being read" in w.message for w in scanner.warnings)


def test_library_scanners_do_not_use_the_memo_unless_asked(isolated_home: Path) -> None:
    session(isolated_home, S1, 1, 100)
    for _ in range(2):
        with Scanner(use_cache=True) as scanner:
            assert not any(is_memo_ref(ref) for ref in scanner.refs())


# -- whole answers --------------------------------------------------------------


@pytest.fixture
def reports(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The groupings ``token_report`` was really computed for (or a patch's rows: ``session``)."""
    import agentscan.scan.tokens as tokens_module

    computed: list[str] = []
    original = tokens_module.token_report
    original_rows = tokens_module.session_rows

    def counting(scanner, **options):  # noqa: ANN001, ANN202
        computed.append(options.get("by", "session"))
        return original(scanner, **options)

    def counting_rows(scanner, refs):  # noqa: ANN001, ANN202
        computed.append("session")  # the last whole answer patched by the sessions changed (``scan.answerpatch``)
        return original_rows(scanner, refs)

    monkeypatch.setattr(tokens_module, "token_report", counting)
    monkeypatch.setattr(tokens_module, "session_rows", counting_rows)
    return computed


def test_the_same_question_over_unchanged_files_is_answered_from_the_index(isolated_home: Path, reports: list[str]) -> None:
    session(isolated_home, S1, 1, 100)
    empty = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S2}.jsonl"
    empty.write_bytes(b"")
    first = cli_json("tokens")
    again = cli_json("tokens")
    assert reports == ["session"]
    assert again == first and first["warnings"]  # warnings said again
    by_day = cli_json("tokens", "--by", "day")
    assert reports == ["session", "day"] and by_day != first
    assert cli_json("tokens", "--by", "day") == by_day and reports == ["session", "day"]
    assert cli_json("tokens", "--tz", "Asia/Kolkata", "--by", "day") is not None
    assert reports == ["session", "day", "day"]  # another zone is another question
    assert cli_json("tokens", "--provider", "claude")["rows"] == first["rows"]
    assert reports[-1] == "session"


def test_a_remembered_answer_prints_the_same_bytes(isolated_home: Path, reports: list[str]) -> None:
    session(isolated_home, S1, 1, 100)
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S2}.jsonl").write_bytes(b"")
    outputs = [runner.invoke(app, ["tokens", "--json"]).stdout_bytes for _ in range(3)]
    assert len(reports) == 1
    assert outputs[0] == outputs[1] == outputs[2]
    assert orjson.loads(outputs[0])["warnings"]


def test_an_answer_is_not_reused_when_a_file_or_the_prices_change(isolated_home: Path, reports: list[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = session(isolated_home, S1, 1, 100)
    before = cli_json("tokens")
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(S1, "2026-11-01T11:00:00Z", msg_id="m-more", request_id="r-more",
                                                   usage=claude_usage(7, 1))) + b"\n")
    after = cli_json("tokens")
    assert after["rows"][0]["tokens"]["input"] == before["rows"][0]["tokens"]["input"] + 7
    assert len(reports) == 2
    from agentscan.pricing import source

    monkeypatch.setattr(source, "package_version", lambda: "0.0.0-other")  # another genai-prices installed
    cli_json("tokens")
    assert len(reports) == 3


def test_show_of_a_memo_ref_rebuilds_that_session_alone(isolated_home: Path, discoveries: list[str]) -> None:
    session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    cold = cli_json("show", S1[:8])
    assert discoveries == ["claude"]
    warm = cli_json("show", S1[:8])
    assert discoveries == ["claude"]  # the memo found it; locate rebuilt it without discovery
    assert warm == cold and cold["session"]["native_id"] == S1


def test_a_gemini_cwd_revealed_later_reaches_a_warm_row(isolated_home: Path) -> None:
    """The Gemini row is cached with no cwd; a Claude session in that directory reveals it."""
    from gemini_builders import gemini, meta, sha256_hex, tokens, user, write_chat, write_claude_transcript

    cwd = "/home/dev/secret-project"
    project = sha256_hex(cwd)
    native = "11111111-2222-4333-8444-555555555555"
    write_chat(isolated_home, project, "session-2026-05-01T10-00-11111111.jsonl",
               [meta(native, project_hash=project), user("u1", "2026-05-01T10:00:00.000Z", "hi"),
                gemini("g1", "2026-05-01T10:00:01.000Z", "yo", usage=tokens(10, 5))], mtime=1_777_000_000)

    def gemini_cwd() -> str | None:
        (row,) = [row for row in cli_json("list")["sessions"] if row["provider"] == "gemini"]
        return row["cwd"]

    assert gemini_cwd() is None
    assert gemini_cwd() is None  # warm, from the memo
    write_claude_transcript(isolated_home, cwd, "99999999-2222-4333-8444-555555555555")
    assert gemini_cwd() == cwd
    assert gemini_cwd() == cwd  # warm again: kept


def test_every_warning_is_said_again_however_many(isolated_home: Path) -> None:
    """More than one capture's worth of warnings, and a file past its own warning limit."""
    path = session(isolated_home, S1, 1, 100)
    with path.open("a") as handle:
        for index in range(30):  # past the per-file limit: "N more warnings for this file"
            handle.write("{not json %d\n" % index)
    os.utime(path, (1_790_086_400, 1_790_086_400))
    for index in range(120):  # legacy sidechains with no session id: one discovery warning each
        (path.parent / f"agent-{index:08x}.jsonl").write_text('{"type":"user"}\n')
    for command in (["list"], ["tokens"]):
        cold = cli_json("--no-cache", *command)["warnings"]
        assert len(cold) > 100
        assert cli_json(*command)["warnings"] == cold  # the first cached run
        assert cli_json(*command)["warnings"] == cold  # from the memo / the remembered answer


def test_nothing_read_this_time_is_not_kept(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                             discoveries: list[str]) -> None:
    """A discovery that could not read something (a locked database, an I/O error) is not kept."""
    session(isolated_home, S1, 1, 100)
    original = ClaudeProvider.discover

    def failing_once(self: ClaudeProvider, ctx: ScanContext):  # noqa: ANN202
        ctx.cannot_read(isolated_home / "somewhere", OSError(5, "Input/output error"))
        return original(self, ctx)

    monkeypatch.setattr(ClaudeProvider, "discover", failing_once)
    cli_json("list")
    cli_json("list")
    monkeypatch.setattr(ClaudeProvider, "discover", original)
    first = cli_json("list")
    assert not any("Input/output" in w["message"] for w in first["warnings"])


def test_which_symlinks_are_followed_does_not_depend_on_the_memo(isolated_home: Path) -> None:
    """A Gemini chat linked into Claude's tree is listed whether or not Claude's discovery ran."""
    from builders import write_jsonl
    from gemini_builders import gemini, meta, tokens, user, write_chat

    session(isolated_home, S1, 1, 100)
    linked = "11111111-2222-4333-8444-555555555555"
    real = write_jsonl(isolated_home / ".claude" / "projects" / "stash" / "g.jsonl",
                       [meta(linked), user("u1", "2026-05-01T10:00:00.000Z", "hi"),
                        gemini("g1", "2026-05-01T10:00:01.000Z", "yo", usage=tokens(10, 5))], mtime=1_777_000_000)
    chats = isolated_home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    os.symlink(real, chats / "session-2026-05-01T10-00-11111111.jsonl")

    def gemini_ids() -> set[str]:
        return {row["native_id"] for row in cli_json("list")["sessions"] if row["provider"] == "gemini"}

    assert linked in gemini_ids()
    write_chat(isolated_home, "proj2", "session-2026-05-02T10-00-22222222.jsonl",
               [meta("22222222-2222-4333-8444-555555555555"), user("u1", "2026-05-02T10:00:00.000Z", "hi")],
               mtime=1_777_100_000)
    assert linked in gemini_ids()  # Gemini discovered again, Claude from the memo
    assert linked in gemini_ids()
    assert linked in {row["native_id"] for row in cli_json("list", "--provider", "gemini")["sessions"]}


def test_nothing_is_kept_while_a_file_changed_just_now(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                       discoveries: list[str], reports: list[str]) -> None:
    """A file changed within the timestamps' resolution may change again unseen ("racily clean")."""
    from agentscan.scan import memo

    monkeypatch.setattr(memo, "SETTLE_NS", 2_000_000_000)
    session(isolated_home, S1, 1, 100)  # its ctime is now
    cli_json("tokens")
    cli_json("tokens")
    assert discoveries == ["claude", "claude"] and reports == ["session", "session"]  # neither kept
    monkeypatch.setattr(memo, "SETTLE_NS", 0)  # as if two seconds had passed
    cli_json("tokens")
    cli_json("tokens")
    assert discoveries == ["claude"] * 3 and reports == ["session"] * 3


def test_a_file_dated_in_the_future_does_not_hide_a_change_of_a_moment_ago(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, discoveries: list[str], reports: list[str]) -> None:
    """A copied home (or a clock's skew) can date a file years ahead: the newest time of
    the census must still be the just-changed file's, or it would look settled."""
    from agentscan.scan import memo

    monkeypatch.setattr(memo, "SETTLE_NS", 500_000_000)
    ahead = session(isolated_home, S2, 2, 50)
    os.utime(ahead, (time.time() + 400 * 86_400,) * 2)
    time.sleep(0.6)  # its ctime has settled; its mtime is a year ahead
    session(isolated_home, S1, 1, 100)  # changed just now
    cli_json("tokens")
    cli_json("tokens")
    assert discoveries == ["claude", "claude"] and reports == ["session", "session"]  # neither kept


def test_the_census_walks_a_symlink_only_where_discovery_would(tmp_path: Path) -> None:
    root, outside, other = tmp_path / "root", tmp_path / "outside", tmp_path / "other"
    for directory in (root, outside, other):
        directory.mkdir()
    (outside / "huge.bin").write_bytes(b"x")
    os.symlink(outside, root / "link")
    inside_only = str(root)

    def admits(real: str) -> bool:
        return real == inside_only or real.startswith(inside_only + os.sep)

    first = census([str(root)], admits=admits)
    (outside / "huge.bin").write_bytes(b"xy")  # not walked: discovery would not go there
    assert census([str(root)], admits=admits) == first
    os.unlink(root / "link")
    os.symlink(other, root / "link")  # pointed elsewhere: that is a change
    assert census([str(root)], admits=admits) != first
    assert census([str(root)]) is not None  # without a rule, every link is walked


def test_cursor_workspaces_are_looked_at_for_what_discovery_reads(isolated_home: Path) -> None:
    from cursor_builders import make_workspace_db

    db = make_workspace_db(isolated_home, "file:///home/dev/app", [])
    storage = db.parent / "extension-storage"
    storage.mkdir()
    (storage / "blob").write_bytes(b"a")
    provider = next(p for p in iter_providers() if p.name == "cursor")
    ctx = ScanContext.create(home=isolated_home, env=dict(os.environ))

    def stamp() -> str:
        from agentscan.scan.memo import stamp_of

        found = stamp_of(provider, ctx)
        assert found is not None
        return found.value

    before = stamp()
    (storage / "blob").write_bytes(b"ab")  # an extension's own files: never read
    assert stamp() == before
    with db.open("ab") as handle:
        handle.write(b"\0")
    assert stamp() != before


def test_merged_refs_keep_the_order_of_a_stable_sort_and_make_refs_lazily() -> None:
    from agentscan.model import SessionRef
    from agentscan.scan.mergedrefs import MergedRefs
    from agentscan.scan.memorefs import MemoRefs

    rows = [[f"m{index}", None, float(index % 3), [], [], f"fp{index}"] for index in range(9)]
    memo = MemoRefs.checked("claude", rows)
    assert memo is not None
    real = [SessionRef("codex", f"r{index}", None, float(index % 2)) for index in range(4)]
    merged = MergedRefs([memo, real])
    everything = [*(memo[i] for i in range(len(memo))), *real]
    expected = sorted(everything, key=lambda ref: ref.recency, reverse=True)
    assert [ref.id for ref in merged] == [ref.id for ref in expected]
    assert [ref.id for ref in merged[2:5]] == [ref.id for ref in expected[2:5]]
    fresh = MemoRefs.checked("claude", rows)
    assert fresh is not None
    assert MergedRefs([fresh])[0].native_id in {"m2", "m5", "m8"}
    assert sum(made is not None for made in fresh._made) == 1  # only the one asked for was made
    assert MemoRefs.checked("claude", [["x", None, 1.0, [], [], 5]]) is None  # a fingerprint that is no string
    assert MemoRefs.checked("claude", [["x", None, 1.0, [3], [], "f"]]) is None


def test_the_text_table_is_remembered_for_the_same_terminal(isolated_home: Path, reports: list[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / "cccccccc-1111-4222-8333-444444444444.jsonl").write_bytes(b"")

    def table() -> tuple[str, str]:
        result = runner.invoke(app, ["tokens"])
        assert result.exit_code == 0, result.output
        return result.stdout, result.stderr

    first = table()
    assert table() == first and len(reports) == 1
    assert "1 empty file" in first[1]  # the warnings summary, from the remembered warnings too
    monkeypatch.setenv("COLUMNS", "90")  # another terminal width: another table
    narrow = table()
    assert len(reports) == 2  # (piped, the table is not fitted: the same text, computed again)
    assert table() == narrow and len(reports) == 2
    assert runner.invoke(app, ["--no-cache", "tokens"]).stdout == narrow[0]


def test_a_workspace_linked_from_outside_every_root_is_not_followed(isolated_home: Path, tmp_path: Path) -> None:
    """Looking at workspaceStorage for the census must not make a link's target a root."""
    from cursor_builders import bubble, make_state_db, make_workspace_db, state_db_path

    db = state_db_path(isolated_home)
    db.parent.mkdir(parents=True)
    make_state_db(db)
    outside = tmp_path / "outside"
    conversation = [bubble("b1", 1, "secret prompt", created="2026-05-01T10:00:00Z"), bubble("b2", 2, "ok", tokens=(10, 5))]
    made = make_workspace_db(outside, "file:///work/secret", [{
        "composerId": "c0ffee00-0000-4000-8000-000000000001", "name": "outside composer",
        "createdAt": 1777000000000, "lastUpdatedAt": 1777000000000, "conversation": conversation}])
    storage = db.parent.parent / "workspaceStorage"
    storage.mkdir()
    os.symlink(made.parent, storage / "abc")
    for _ in range(2):  # cold, then from the memo
        listed = cli_json("list", "--provider", "cursor")
        assert listed["sessions"] == []
        assert any("points outside" in w["message"] for w in listed["warnings"])


def test_a_directory_whose_guessed_identity_was_seen_is_still_walked(tmp_path: Path) -> None:
    """Under a mount point a real directory's (parent device, inode) can meet another's: its
    true stat decides, so a change inside it is still seen.  Simulated: ``inner`` reports
    another device, and its guessed identity was already seen."""
    from agentscan.scan import census as census_module

    root = tmp_path / "root"
    inner = root / "inner"
    inner.mkdir(parents=True)
    (inner / "a.jsonl").write_bytes(b"1")
    guessed = (os.stat(root).st_dev, os.stat(inner).st_ino)
    real_stat, real_walk = os.stat, census_module._walk

    def mounted_stat(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        found = real_stat(path, *args, **kwargs)
        if str(path) == str(inner):
            fields = list(found[:10])
            fields[2] += 1  # st_dev: another file system
            return os.stat_result(fields)
        return found

    def colliding(directory, identity, walk, depth, walker=None):  # noqa: ANN001, ANN202
        if directory == str(root):
            walk.roots.add(guessed)  # as if another directory had this identity (each subtree starts from the roots)
        return real_walk(directory, identity, walk, depth, walker)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(census_module.os, "stat", mounted_stat)
        patch.setattr(census_module, "_walk", colliding)
        before = census([str(root)])
        (inner / "a.jsonl").write_bytes(b"22")
        after = census([str(root)])
    assert before is not None and after is not None and before.digest != after.digest


def test_a_remembered_table_sees_another_providers_new_facts(isolated_home: Path) -> None:
    """The table's PROJECT of a hash-named Gemini session comes from other providers' sessions."""
    from gemini_builders import hash_named_chat, write_claude_transcript

    cwd = "/work/proj-x"
    hash_named_chat(isolated_home, cwd)

    def table() -> str:
        result = runner.invoke(app, ["tokens", "--provider", "gemini"])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert cwd not in table()
    assert cwd not in table()
    write_claude_transcript(isolated_home, cwd, "99999999-2222-4333-8444-555555555555")
    assert cwd in table()


def test_a_remembered_table_is_for_one_local_zone(isolated_home: Path, reports: list[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    session(isolated_home, S1, 1, 100)
    try:
        with monkeypatch.context() as patch:  # (not ``monkeypatch.undo()``: the isolated home stays)
            patch.setenv("TZ", "UTC")
            time.tzset()
            runner.invoke(app, ["tokens", "--tz", "Europe/Paris"])
            runner.invoke(app, ["tokens", "--tz", "Europe/Paris"])
            assert len(reports) == 1
            patch.setenv("TZ", "Pacific/Kiritimati")
            time.tzset()
            runner.invoke(app, ["tokens", "--tz", "Europe/Paris"])
            assert len(reports) == 1  # its dates are in the --tz zone: the same table
            runner.invoke(app, ["tokens"])
            assert len(reports) == 2
            patch.setenv("TZ", "UTC")  # without --tz the dates are local: another table
            time.tzset()
            runner.invoke(app, ["tokens"])
            assert len(reports) == 3
    finally:
        time.tzset()


def test_another_agentscan_does_not_take_what_this_one_kept(isolated_home: Path, discoveries: list[str],
                                                              reports: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The version alone does not say which code ran (a checkout, an editable install)."""
    from agentscan import codeid

    session(isolated_home, S1, 1, 100)
    cli_json("tokens")
    cli_json("tokens")
    assert discoveries == ["claude"] and reports == ["session"]
    monkeypatch.setattr(codeid, "_memo", ["another build of agentscan"])
    cli_json("tokens")
    assert discoveries == ["claude", "claude"] and reports == ["session", "session"]


def test_the_code_identity_follows_every_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan import codeid

    package = tmp_path / "agentscan"
    (package / "scan").mkdir(parents=True)
    (package / "demo" / "home").mkdir(parents=True)
    module = package / "scan" / "tokens.py"
    module.write_text("A = 1\n")
    (package / "demo" / "home" / "x.py").write_text("data\n")
    monkeypatch.setattr(codeid, "_PACKAGE", str(package))

    def identity() -> str:
        monkeypatch.setattr(codeid, "_memo", [])
        return codeid.code_identity()

    first = identity()
    assert identity() == first
    (package / "demo" / "home" / "x.py").write_text("other data\n")  # the demo home is data
    assert identity() == first
    module.write_text("A = 22\n")
    assert identity() != first


def test_a_database_that_could_not_be_read_is_read_again_next_time(isolated_home: Path) -> None:
    """A thread index unreadable this time (locked, busy, damaged) leaves no memo behind."""
    from agentscan.providers.codex.provider import CodexProvider
    from agentscan.scan.memorefs import MemoRefs

    codex = isolated_home / ".codex"
    (codex / "sessions").mkdir(parents=True)
    (codex / "state_5.sqlite").write_bytes(b"not a database at all" * 10)
    for _ in range(2):
        with Scanner(providers=[CodexProvider()], use_cache=True, memo_discovery=True) as scanner:
            scanner.refs()
            assert not isinstance(scanner._refs["codex"], MemoRefs)
            assert any("thread index unreadable" in w.message for w in scanner.warnings)


def test_a_subagents_directory_linked_from_outside_every_root_is_not_followed(isolated_home: Path, tmp_path: Path) -> None:
    """Found by name, a session's ``subagents`` is not listed with ``admit``: a link out of the
    roots was read by discovery, unseen by the census (a warm run kept its old sums)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    agent = write_jsonl(outside / "agent-a1.jsonl", [claude_assistant(
        S1, "2026-11-01T10:00:05Z", msg_id="m-sub", request_id="r-sub", usage=claude_usage(40, 10))], mtime=1_790_000_000)
    session(isolated_home, S1, 1, 100)
    session_dir = isolated_home / ".claude" / "projects" / "-home-dev-project" / S1
    session_dir.mkdir()
    os.symlink(outside, session_dir / "subagents")
    for _ in range(2):  # cold, then from the memo
        document = cli_json("tokens")
        assert document["total"]["input"] == 100
        assert any("points outside" in w["message"] for w in document["warnings"])
    with agent.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(S1, "2026-11-01T10:00:07Z", msg_id="m-sub2", request_id="r-sub2",
                                                   usage=claude_usage(5, 1))) + b"\n")
    assert cli_json("tokens") == cli_json("--no-cache", "tokens")
