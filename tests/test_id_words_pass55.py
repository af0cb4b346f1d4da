"""``cli.idwords`` paid its design debt (pass 55), its hints unchanged:

* the words typed after the command are kept with the command's path (``cli.state``), not in a
  second global of idwords' own: its functions are handed them;
* the words of a window said aloud (``last week``) are ``whentext``'s, not a copy;
* a provider's name typed as an id offers its line as every other hint does (``_offer``), and
  the typed words are split into options once (``split_typed``);
* the options ``tokens``' grouping refuses are one rule (``cli.tokensrules``), which the
  command's usage error and the hint's "left out" both ask.
"""

from __future__ import annotations

import pytest

from agentscan.cli import idwords


def test_the_typed_words_are_kept_with_the_command_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import state
    from agentscan.errors import SessionNotFound

    assert not hasattr(idwords, "_TYPED") and not hasattr(idwords, "remember_typed")
    monkeypatch.setattr(state, "_command_path", ["agentscan"])
    monkeypatch.setattr(state, "_typed_words", [()])
    state.set_command_path("agentscan tokens", ["daily", "--since", "7d"])
    assert state._typed_words[0] == ("daily", "--since", "7d")
    exc = SessionNotFound("daily")
    assert "--by day --since 7d" in (idwords.meant_for(exc, "tokens", "", state._typed_words[0]) or "")
    state.set_command_path("agentscan")  # a new command line: no words of the last one's
    assert state._typed_words[0] == ()


def test_the_window_words_are_whentexts() -> None:
    from agentscan import whentext

    assert idwords.WINDOW_WORDS is whentext.WINDOW_WORDS and idwords.WINDOW_UNITS is whentext.WINDOW_UNITS
    assert whentext._WINDOW_PHRASE.fullmatch(" Previous MONTH ") is not None
    assert whentext._WINDOW_PHRASE.fullmatch("last year") is None


def test_a_providers_line_is_offered_as_every_hint_is() -> None:
    typed = ("codex", "daily", "-n", "3", "--json", "--home", "/x")
    assert idwords.provider_hint("codex", "codex", "tokens", "", typed) == (
        "hint: `agentscan tokens -p codex --by day --json` adds up its sessions' tokens (--limit shapes the table"
        " by session; --by day shows every row: -n 3 left out)")
    assert idwords.provider_hint("codex", "codex", "tokens", "", ("codex",)) == (
        "hint: `agentscan tokens -p codex` adds up its sessions' tokens")


def test_typed_words_are_split_into_options_once() -> None:
    assert idwords.split_typed(["--since", "7d", "--json", "--by=day", "weekly", "-p"]) == [
        ["--since", "7d"], ["--json"], ["--by=day"], ["weekly"], ["-p"]]
    assert idwords.split_typed(["-n", "2", "--", "-x", "abc"]) == [["-n", "2"], ["--", "-x", "abc"]]
    assert idwords._by_values(["--by", "day", "-p", "codex", "--by", "model"]) == ["day", "model"]


def test_the_hint_and_the_command_refuse_an_option_by_one_rule(isolated_home, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import tokensrules
    from builders import invoke
    from spies import record_calls

    asked = record_calls(monkeypatch, tokensrules, "refused_under", lambda option, by: (option, by))
    refused = invoke("tokens", "--by", "day", "-n", "3")
    assert refused.exit_code == 2 and "--limit shapes the table by session; --by day shows every period's row" in refused.stderr
    assert ("--limit", "day") in asked
    asked.clear()
    assert idwords._runnable(["--by", "model", "-b", "--all"]) == (["--by", "model"], [
        "--by model's rows are models already: -b left out",
        "--all shapes the table by session; --by model shows every row: --all left out"])
    assert ("--breakdown", "model") in asked and ("--all", "model") in asked
    assert not tokensrules.refused_under("--limit", "session") and not tokensrules.refused_under("--breakdown", "day")
