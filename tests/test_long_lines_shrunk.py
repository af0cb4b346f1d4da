"""A valid line over the readers' cap is read without its long strings, by every reader alike.

A screenshot pasted in a prompt, a PDF read by a tool: Claude Code writes lines of 6 to 12 MB
(claude-code issues 2939, 11181, 20021, 30654).  Skipped whole, the prompt's words, the
tool's status and the call's usage went with the bulk, and every run warned
(``toolkit.shrinkline``).  The property tests shrink the cap and the long strings to a few
bytes; the end-to-end tests write real sizes.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# These take the cap by name when first imported: imported before a test lowers it, or they keep the lowered one.
import agentscan.providers.cursor.plaintext  # noqa: F401
import agentscan.providers.gemini.chatpatch  # noqa: F401
from agentscan.context import ScanContext
from agentscan.toolkit import linescan, reverse, shrinkline
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.toolkit.linescan import ScanProgress, matching_records
from agentscan.toolkit.reverse import records_newest_first
from agentscan.toolkit.shrinkline import Shrinker, shrink
from builders import (claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke,
                      raw_lines_file)

MiB = 1024 * 1024
SESSION = "b1000000-0000-4000-8000-000000000001"
MAX_LINE = 200
MARKER = b'"usage"'

TEXT = st.text(alphabet=st.sampled_from(list('ab é中😀"\\\n\u2028\x01')), max_size=90)
LINES = st.one_of(
    st.builds(lambda text, ascii: json.dumps({"type": "user", "usage": 1, "text": text, "n": [text, 2]},
                                             ensure_ascii=ascii).encode(), TEXT, st.booleans()),
    st.builds(lambda n: b'{"type":"user","pad":"' + b"y" * n + b'"}', st.integers(0, 400)),
    st.builds(lambda n: b'{"usage":[' + b'"x",' * n + b'"x"]}', st.integers(0, 80)),  # no long string: cannot shrink
    st.builds(lambda n: b'{"usage":"' + b"y" * n + b'", broken', st.integers(150, 300)),
    st.builds(lambda n: b'["usage","' + b"y" * n + b'"]', st.integers(150, 300)),
    st.just(b'{"type":"assistant","usage":{"input_tokens":1}}'),
)


@pytest.fixture
def small_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shrinkline, "LONG_STRING", 24)
    monkeypatch.setattr(shrinkline, "KEPT_BYTES", 8)


def _ctx(path: Path) -> ScanContext:
    return ScanContext.create(home=path.parent, env={})


def _said(ctx: ScanContext) -> list:
    return sorted(((w.message, w.line) for w in ctx.warnings.items), key=repr)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=12), final_newline=st.booleans(), bom=st.booleans(),
       block=st.sampled_from([7, 33, 100, 4096]))
def test_every_reader_reads_a_long_line_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_strings: None,
                                              lines, final_newline, bom, block) -> None:
    monkeypatch.setattr(linescan, "BLOCK", block)
    monkeypatch.setattr(reverse, "BLOCK", block)
    monkeypatch.setattr(shrinkline, "PIECE", 16)
    monkeypatch.setattr("agentscan.toolkit.longlines.PIECE", 16)
    path = raw_lines_file(tmp_path, lines, final_newline, bom)
    ctx = _ctx(path)
    forward = [(line.offset, line.record) for line in iter_json_lines(path, ctx, max_line=MAX_LINE)]
    said = _said(ctx)
    ctx = _ctx(path)
    assert list(records_newest_first(path, ctx, max_line=MAX_LINE)) == forward[::-1]
    assert _said(ctx) == said
    ctx = _ctx(path)
    marked = [(line.offset, line.record) for line in iter_json_lines(path, ctx, max_line=MAX_LINE, prefilter=MARKER)]
    marked_said = _said(ctx)
    ctx = _ctx(path)
    assert list(matching_records(path, ctx, MARKER, ScanProgress(), max_line=MAX_LINE)) == marked
    assert _said(ctx) == marked_said


def test_a_long_line_yields_its_record_without_a_warning(tmp_path: Path, small_strings: None) -> None:
    long = {"type": "user", "message": {"content": [{"type": "text", "text": "look"},
                                                    {"type": "image", "source": {"data": "Q" * 5000}}]}}
    path = raw_lines_file(tmp_path, [b'{"n":1}', orjson.dumps(long), b'{"n":3}'], True, False)
    ctx = _ctx(path)
    found = [line.record for line in iter_json_lines(path, ctx, max_line=MAX_LINE)]
    assert not ctx.warnings.items
    content = found[1]["message"]["content"]
    assert content[0] == {"type": "text", "text": "look"}
    assert content[1]["source"]["data"] == "Q" * 8 + "\u2026 [4,992 more bytes not read]"
    assert [found[0], found[2]] == [{"n": 1}, {"n": 3}]


def test_a_line_past_the_read_limit_is_skipped_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         small_strings: None) -> None:
    monkeypatch.setattr(shrinkline, "LONG_LINE_LIMIT", 1000)
    path = raw_lines_file(tmp_path, [orjson.dumps({"type": "user", "pad": "y" * 2000}), b'{"n":2}'], True, False)
    ctx = _ctx(path)
    assert [line.record for line in iter_json_lines(path, ctx, max_line=MAX_LINE)] == [{"n": 2}]
    assert _said(ctx) == [("line longer than 0 MiB skipped", 1)]


@given(text=st.text(max_size=300), cut=st.integers(1, 40), pieces=st.lists(st.integers(1, 50), max_size=30),
       ascii=st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_cut_string_keeps_a_prefix_of_its_characters(text: str, cut: int, pieces: list[int], ascii: bool) -> None:
    # Never within an escape, a surrogate pair or a UTF-8 character; fed in any pieces, the same line.
    line = json.dumps({"k": [text, "short"]}, ensure_ascii=ascii).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shrinkline, "LONG_STRING", cut + 8)
        patch.setattr(shrinkline, "KEPT_BYTES", cut)
        whole = shrink(line, 10_000)
        shrinker, at = Shrinker(10_000), 0
        for size in pieces + [len(line)]:
            shrinker.feed(line[at:at + size])
            at += size
        assert shrinker.result() == whole
    kept = orjson.loads(whole)["k"]
    assert kept[1] == "short"
    if kept[0] != text:
        prefix, mark, rest = kept[0].partition("\u2026 [")
        assert text.startswith(prefix) and mark and rest.endswith(" more bytes not read]")


# -- end to end, at real sizes ---------------------------------------------------------


def _heavy_session(home: Path) -> Path:
    """A screenshot prompt, a tool result of megabytes and a call whose line (a file written) is
    over the cap: each line more than 4 MiB."""
    big = "A" * (5 * MiB)
    return claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-12-01T09:00:00.000Z", [
            {"type": "text", "text": "what is wrong in this screenshot?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": big}}], uuid="u1"),
        claude_assistant(SESSION, "2026-12-01T09:00:10.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 20),
                         blocks=[{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a.pdf"}}],
                         uuid="a1", parentUuid="u1"),
        claude_user(SESSION, "2026-12-01T09:00:20.000Z", [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": big, "is_error": False}], uuid="u2", parentUuid="a1"),
        claude_assistant(SESSION, "2026-12-01T09:00:30.000Z", msg_id="m2", request_id="r2", usage=claude_usage(200, 30),
                         blocks=[{"type": "tool_use", "id": "toolu_2", "name": "Write",
                                  "input": {"file_path": "/b.txt", "content": big}}], uuid="a2", parentUuid="u2"),
        claude_user(SESSION, "2026-12-01T09:00:40.000Z", [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "written"}], uuid="u3", parentUuid="a2"),
        claude_assistant(SESSION, "2026-12-01T09:00:50.000Z", msg_id="m3", request_id="r3", usage=claude_usage(300, 40),
                         uuid="a3", parentUuid="u3"),
    ])


@pytest.mark.parametrize("from_the_end", [False, True])
def test_a_session_of_long_lines_keeps_its_prompt_tools_and_usage(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   from_the_end: bool) -> None:
    _heavy_session(isolated_home)
    # ``show`` of a huge transcript reads it from its end (``toolkit.reverse``), else forward
    monkeypatch.setattr("agentscan.providers.claude.provider.TAIL_MIN_BYTES", 1 if from_the_end else 1 << 40)
    for command in (["list"], ["tokens"], ["show", SESSION]):
        assert invoke("--strict", *command, "--json").exit_code == 0, command
    (row,) = cli_json("list")["sessions"]
    assert row["title"] == "what is wrong in this screenshot?"
    detail = cli_json("show", SESSION)["session"]
    assert [prompt["text"] for prompt in detail["prompts"]] == ["what is wrong in this screenshot? [image]"]
    assert [(tool["name"], tool["status"]) for tool in detail["tools"]] == [("Read", "ok"), ("Write", "ok")]
    assert detail["counts"]["prompts"] == 1
    totals = cli_json("tokens")["total"]
    assert (totals["input"], totals["output"]) == (600, 90) == (row["tokens"]["input"], row["tokens"]["output"])


def test_gemini_show_reads_a_long_message_again_as_its_pass_read_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    small_strings: None) -> None:
    # ``show`` goes back to the line of each message it lists (``chatpatch.record_at``): cut at
    # the cap, a long one read as its pass read it was "changed while it was read" and dropped.
    from agentscan.scan.scanner import Scanner
    from gemini_builders import gemini, meta, tokens, user, write_chat

    monkeypatch.setattr("agentscan.toolkit.jsonl.MAX_LINE_BYTES", 400)
    monkeypatch.setattr("agentscan.providers.gemini.chatpatch.MAX_LINE_BYTES", 400)
    native = "11111111-aaaa-4bbb-8ccc-000000000001"
    long_prompt = user("u1", "2026-05-01T10:00:01.000Z", "look at this")
    long_prompt["content"].append({"inlineData": {"mimeType": "image/png", "data": "Q" * 2000}})
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(native), long_prompt, gemini("g1", "2026-05-01T10:00:02.000Z", "a cat", usage=tokens(10, 2))])
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    detail = scanner.show(native)
    assert [prompt.text for prompt in detail.prompts] == ["look at this"]
    assert not scanner.warnings


def test_an_edit_of_a_prompt_of_a_screenshot_is_found_in_a_huge_transcript(isolated_home: Path,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            small_strings: None) -> None:
    # ``hugeshow.may_hold_edits`` skipped every line over the cap: a screenshot prompt edited
    # (rewound) was not seen, and the transcript was shown from its end, abandoned branch included.
    from agentscan.providers.claude.hugeshow import may_hold_edits

    monkeypatch.setattr("agentscan.toolkit.jsonl.MAX_LINE_BYTES", 600)

    def prompt(n: int, text: str, uuid: str, parent: str | None) -> dict:
        return claude_user(SESSION, f"2026-11-01T10:00:0{n}Z", [
            {"type": "text", "text": text}, {"type": "image", "source": {"data": "Q" * 2000}}], uuid=uuid, parentUuid=parent)

    def reply(n: int, uuid: str, parent: str) -> dict:
        return claude_assistant(SESSION, f"2026-11-01T10:00:0{n}Z", msg_id=f"m{n}", request_id=f"r{n}",
                                usage=claude_usage(10, 1), uuid=uuid, parentUuid=parent)

    path = claude_session_file(isolated_home, SESSION, [
        prompt(0, "first", "u1", None), reply(1, "a1", "u1"), prompt(2, "second", "u2", "a1"), reply(3, "a2", "u2"),
        prompt(4, "second, edited", "u3", "a1"), reply(5, "a3", "u3")])
    assert may_hold_edits(path, path.stat().st_size)


def test_a_summary_s_leaf_on_a_long_line_before_it_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            small_strings: None) -> None:
    from agentscan.providers.claude.lateleaves import late_leaves

    monkeypatch.setattr("agentscan.toolkit.jsonl.MAX_LINE_BYTES", 300)
    leaf = orjson.dumps({"type": "user", "uuid": "L", "message": {"content": [{"type": "image", "source": {"data": "Q" * 2000}}]}})
    path = raw_lines_file(tmp_path, [leaf, b'{"type":"summary","summary":"s","leafUuid":"L"}'], True, False)
    assert late_leaves(path, {"L": path.stat().st_size}) == {"L": len(leaf) + 1}


def test_the_uuid_of_a_long_line_the_pass_reads_is_collected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (``seenuuids``: a re-appended copy of a screenshot prompt is told by its uuid, as any record's)
    from agentscan.providers.claude import seenuuids
    from agentscan.providers.claude.seenuuids import SeenUuids

    monkeypatch.setattr(seenuuids, "_BLOCK", MiB)  # the line spans blocks

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"uuid":"before"}\n{"pad":"' + b"x" * (5 * MiB) + b'","uuid":"long"}\n{"uuid":"after"}\n')
    seen = SeenUuids()
    seen.upto = 0
    seen.collect(path, path.stat().st_size)
    assert sorted(seen.hashes) == sorted([hash("before"), hash("long"), hash("after")])


def test_the_seam_s_record_is_read_as_the_pass_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        small_strings: None) -> None:
    # The second half of a transcript read by halves starts at a prompt (``halves.find_seam``),
    # perhaps a screenshot's: its time, read again, was lost with the line cut at the cap.
    from agentscan.providers.claude.halfpass import _time_at

    monkeypatch.setattr("agentscan.toolkit.jsonl.MAX_LINE_BYTES", 400)
    first = orjson.dumps(claude_user(SESSION, "2026-11-01T10:00:00.000Z", "before")) + b"\n"
    seam = claude_user(SESSION, "2026-11-01T10:05:00.000Z", [{"type": "image", "source": {"data": "Q" * 2000}}])
    path = raw_lines_file(tmp_path, [first[:-1], orjson.dumps(seam)], True, False)
    assert _time_at(path, len(first)).isoformat() == "2026-11-01T10:05:00+00:00"
