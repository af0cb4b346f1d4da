"""Mends of the review of the pass-61 words commit.

A remembered answer was keyed by ``PATH``: cron and a shell (a venv activated, direnv) took turns
pushing out each other's answer, byte for byte the same.  Only an answer whose hints name the
program keeps the word, and only another word is a miss.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from builders import claude_one_call, invoke


def _printed_again(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from agentscan.cli import recorded

    calls: list[str] = []
    again = recorded.print_again

    def counted(command, *args):  # noqa: ANN001, ANN202
        calls.append(command)
        return again(command, *args)

    monkeypatch.setattr(recorded, "print_again", counted)
    return calls


def _cursor_chat(home: Path) -> str:
    from cursor_builders import write_chat_store

    chat = "a6100000-0000-4000-8000-0000000000c1"
    write_chat_store(home, "/work/cli", chat, meta={"name": "chat", "cwd": "/work/cli"}, store={"name": "chat"})
    return chat


def test_an_answer_naming_no_program_is_remembered_across_paths(isolated_home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan import invocation

    claude_one_call(isolated_home, "a6100000-0000-4000-8000-0000000000b1")
    again = _printed_again(monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "cron"))
    first = invoke("tokens", "--json")
    monkeypatch.setenv("PATH", str(tmp_path / "shell"))
    asked = invocation.program_asked()
    second = invoke("tokens", "--json")
    assert second.stdout == first.stdout and again == ["tokens"]
    assert invocation.program_asked() == asked  # (the word is not worked out for an answer that names none)


def test_an_answer_whose_hints_name_the_program_is_remembered_while_the_word_is_the_same(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, only_cursor: None) -> None:
    chat = _cursor_chat(isolated_home)
    again = _printed_again(monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "cron"))
    first = invoke("tokens")
    assert f"`agentscan show cursor:{chat}`" in first.stderr, first.stderr
    monkeypatch.setenv("PATH", str(tmp_path / "shell"))  # (under a test runner the word is ``agentscan`` on any)
    second = invoke("tokens")
    assert (second.stdout, second.stderr) == (first.stdout, first.stderr) and again == ["tokens"]


def test_a_remembered_answer_names_the_program_run_in_its_hints(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch, only_cursor: None) -> None:
    """``python -m agentscan tokens`` after ``agentscan tokens`` on one cache printed the
    remembered answer, whose hint named ``agentscan``."""
    from agentscan import invocation

    chat = _cursor_chat(isolated_home)
    again = _printed_again(monkeypatch)
    first = invoke("tokens").stderr
    assert f"`agentscan show cursor:{chat}`" in first, first
    # ``python -m agentscan`` with no agentscan on ``PATH``: its hints say the module as run
    main = Path(invocation.__file__).parent / "__main__.py"
    monkeypatch.setattr(sys, "argv", [str(main), "tokens"])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    word = invocation.module_word()
    assert word is not None and word != "agentscan"
    second = invoke("tokens").stderr
    assert f"`{word} show cursor:{chat}`" in second and again == [], second


# -- doctor's kinds: never a bare ``*``, shared parts kept, names that differ said so --------


@pytest.mark.parametrize(("heads", "named"), [
    # two Cursor values' keys (as the warnings were worded before): each its own line, not ``*``
    ({"bubbleId:aaaa1111-2222:bbbb3333": 1, "bubbleId:cccc1111-2222:dddd3333": 1},
     {"bubbleId:*:*": 2}),
    ({"x1": 1, "y2": 1}, {"x1": 1, "y2": 1}),
    ({"cannot read /home/u/a1/x.json": 1, "cannot read /home/u/a2/x.json": 1},
     {"cannot read /home/u/*/x.json (2 different)": 2}),
    ({"cannot read /home/u/1/x.json": 1, "cannot read /home/u/2/deep/x.json": 1}, {"cannot read /home/u/* (2 different)": 2}),
    # models are not ids: one line says how many differ (``mystery``, no digit, was and is apart)
    ({"unknown model gpt-5": 1, "unknown model claude-3": 1, "unknown model mystery": 1},
     {"unknown model * (2 different)": 2, "unknown model mystery": 1}),
    ({"unknown model gpt-5": 1, "unknown model gpt-4": 1}, {"unknown model gpt-N (2 different)": 2}),
    # limits that differ are kinds apart
    ({"line longer than 4 MiB skipped": 1, "line longer than 64 MiB skipped": 1},
     {"line longer than 4 MiB skipped": 1, "line longer than 64 MiB skipped": 1}),
    ({"composerData:019a0000-1111-7222-8333-444455556666": 1, "composerData:019a0000-1111-7222-8333-444455557777": 1},
     {"composerData:*": 2}),
])
def test_kinds_share_parts_and_never_name_a_bare_star(heads: dict[str, int], named: dict[str, int]) -> None:
    from collections import Counter

    from agentscan.scan.warningkinds import kinds

    assert kinds(Counter(heads)) == named


def test_two_cursor_values_of_invalid_json_are_one_kind_named_by_what_happened(
        isolated_home: Path, only_cursor: None) -> None:
    from builders import cli_json
    from cursor_builders import bubble, composer_data, make_state_db, state_db_path

    composers = ["a6100000-0000-4000-8000-0000000000a1", "a6100000-0000-4000-8000-0000000000a2"]
    make_state_db(state_db_path(isolated_home),
                  composers=[composer_data(c, name="chat", model="gpt-5", bubbles=["u", "a"]) for c in composers],
                  bubbles={c: [bubble("u", 1, "hi"), bubble("a", 2, "done", tokens=(5, 2), model="gpt-5")]
                           for c in composers},
                  raw_rows=[(f"bubbleId:{c}:torn{index}", b'{"type": 2, "tokenCount"') for index, c in enumerate(composers)])
    from collections import Counter

    from agentscan.scan.warningkinds import kinds, message_kind

    messages = [warning["message"] for warning in cli_json("tokens")["warnings"]]
    assert sorted(messages) == [f"invalid JSON skipped: bubbleId:{composer}:torn{index}"
                                for index, composer in enumerate(composers)], messages
    assert kinds(Counter(map(message_kind, messages))) == {"invalid JSON skipped": 2}


# -- a short option's value read as click reads it ---------------------------------------------


@pytest.mark.parametrize("typed", [["-pweb"], ["-p=claude"], ["-p", "web"]])
def test_a_hint_leaves_out_a_short_provider_value_the_command_would_refuse(isolated_home: Path, typed: list[str]) -> None:
    """``-pweb`` and ``-p=claude`` (click reads ``=claude``) were kept in the hint, which failed."""
    claude_one_call(isolated_home, "a6100000-0000-4000-8000-0000000000b1")
    assert invoke("tokens", *typed).exit_code != 0  # (the command refuses it: so must the hint leave it out)
    said = invoke("tokens", "daily", "--breakdown", *typed).stderr
    hinted = said.split("hint: `", 1)[1].split("`", 1)[0]
    assert hinted.endswith(" tokens --by day --breakdown"), said
    assert f"{' '.join(typed)} left out" in " ".join(said.split()), said
    words = hinted.split()
    assert invoke(*words[words.index("tokens"):]).exit_code == 0


def test_short_options_are_split_as_click_splits_them() -> None:
    from agentscan.cli.typedoptions import split_typed, value_of

    typed = split_typed(["-pclaude", "-n5", "-p=codex", "--by=day", "-n", "2", "--since", "7d"])
    assert typed == [["-pclaude"], ["-n5"], ["-p=codex"], ["--by=day"], ["-n", "2"], ["--since", "7d"]]
    assert [value_of(option) for option in typed] == ["claude", "5", "=codex", "day", "2", "7d"]


@pytest.mark.parametrize(("typed", "refused"), [(["daily", "-vpweb"], "web"), (["models", "-qb"], "-b")])
def test_grouped_short_flags_are_read_letter_by_letter_in_a_hint(isolated_home: Path, typed: list[str],
                                                                 refused: str) -> None:
    # ``-vpweb`` is ``-v -p web`` and ``-qb`` ``-q -b`` to click: a hint that kept them failed.
    from agentscan.cli.typedoptions import split_typed

    assert split_typed(typed)[1:] == ([["-v"], ["-pweb"]] if refused == "web" else [["-q"], ["-b"]])
    claude_one_call(isolated_home, "a6100000-0000-4000-8000-0000000000b2")
    said = invoke("tokens", *typed).stderr
    if "hint: `" in said:
        hinted = said.split("hint: `", 1)[1].split("`", 1)[0]
        words = hinted.split()
        assert invoke(*words[words.index("tokens"):]).exit_code == 0, hinted


# -- prices: a provider before a US-only name, and the suffix read once --------------------------


@pytest.mark.parametrize("typed", ["anthropic/claude-opus-4-6-us-only", "Anthropic/Claude-Opus-4-6 (US-only)"])
def test_a_us_only_name_after_its_provider_is_priced_as_us_only(typed: str) -> None:
    """``anthropic/claude-opus-4-6-us-only`` was priced as ``google/claude-opus-4-6`` at its list price."""
    result = invoke("prices", typed)
    assert result.exit_code == 0, result.output
    row = [cell for cell in result.stdout.splitlines()[1].split("  ") if cell]
    assert row[:5] == ["claude-opus-4-6 (us-only)", "anthropic/claude-opus-4-6 (US-only)", "0", "$5.50", "$27.50"], row


def test_the_dashed_us_only_suffix_is_read_once() -> None:
    from agentscan.pricing.typednames import typed_name

    assert typed_name("claude-opus-4-6-us-only-us-only", None) == ("claude-opus-4-6-us-only-us-only", None)
    assert typed_name("claude-opus-4-6-us-only", None) == ("claude-opus-4-6 (us-only)", None)


# -- tokens --by cwd: two paths alike below the folders that fit ---------------------------------


@pytest.mark.parametrize("columns", [60, 80])
def test_paths_alike_at_their_end_keep_the_folder_that_tells_them_apart(isolated_home: Path, tty, columns: int) -> None:  # noqa: ANN001
    """``/home/u/projects/client-{alpha,beta}/services/billing-service`` were both ``…/billing-service``."""
    from test_terminal_words_pass61 import _claude_in

    cwds = tuple(f"/home/u/projects/client-{name}/services/billing-service" for name in ("alpha", "beta"))
    _claude_in(isolated_home, cwds)
    tty(columns)
    result = invoke("tokens", "--by", "cwd")
    assert result.exit_code == 0, result.output
    keys = sorted(line.split("  ")[0] for line in result.stdout.splitlines()[1:3])
    assert "client-alpha/" in keys[0] and "client-beta/" in keys[1], keys


def test_a_cut_keeps_the_folder_that_tells_two_paths_apart_and_elides_the_middle() -> None:
    from agentscan.cli.tablepaths import even_cuts

    cells = [f"/home/u/projects/client-{name}/services/billing-service" for name in ("alpha", "beta")]
    assert even_cuts(cells, 34) == {cells[0]: "…/client-alpha/…/billing-service", cells[1]: "…/client-beta/…/billing-service"}
    assert even_cuts(cells, 20) == {cells[0]: "…/client-alpha/…", cells[1]: "…/client-beta/…"}
    assert even_cuts(cells, 40) == {cells[0]: "…/client-alpha/services/billing-service",
                                    cells[1]: "…/client-beta/services/billing-service"}


def test_paths_that_differ_only_in_their_first_folder_are_told_apart_by_it() -> None:
    # Each path whole is one of its ends: a folder both share never tells them apart.
    from agentscan.cli.tablepaths import even_cuts

    cells = ["/alpha/services/billing-service-component", "/betaa/services/billing-service-component"]
    assert even_cuts(cells, 40) == {cells[0]: "/alpha/…/billing-service-component",
                                    cells[1]: "/betaa/…/billing-service-component"}
    shown = even_cuts(["/a/x/proj", "/b/x/proj"], 8)
    assert len(set(shown.values())) == 2 and all(cut.startswith(("/a/", "/b/")) for cut in shown.values())

