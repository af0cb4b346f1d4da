"""``--limit`` and ``--all`` are checked by one rule (``cli.tokensrules.limit_refused``), which
``list``'s and ``tokens``' usage errors (``cli.actions.limit_and_all``) and the hint that offers
a ``tokens`` line (``cli.idwords._runnable``) both ask; each says it in its own words after the
rule's.  ``_runnable`` had its own copy of the checks, which drifted: it offered ``-n 0`` (the
command refuses it) and left out a second ``-n 1`` (the command takes it), and for ``tokens
--by day -n 3 --json`` the hint and the command named different reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli import actions, idwords, tokensrules
from builders import invoke
from spies import record_calls


def test_the_command_and_the_hint_ask_one_rule(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = record_calls(monkeypatch, tokensrules, "limit_refused", lambda *args, **kwargs: args)
    refused = invoke("tokens", "-n", "2", "--all")
    assert refused.exit_code == 2 and "give --limit N or --all, not both" in refused.stderr
    assert asked == [([2], True)]
    asked.clear()
    assert idwords._runnable(["-n", "2", "--all"]) == (["-n", "2"], ["give --limit N or --all, not both: --all left out"])
    assert asked and not hasattr(actions, "one_limit")
    source = Path(idwords.__file__).read_text(encoding="utf-8")
    assert "not both" not in source and "takes one number" not in source and "lists every row" not in source


def test_the_hint_leaves_out_what_the_command_refuses_and_keeps_what_it_takes() -> None:
    assert idwords._runnable(["-n", "0"]) == ([], ["--limit must be a whole number of 1 or more: -n 0 left out"])
    assert idwords._runnable(["-n", "1", "--limit=1"]) == (["-n", "1", "--limit=1"], [])  # (the same number: taken)
    assert idwords._runnable(["-n", "1", "-n", "5"]) == (["-n", "1"], ["--limit takes one number: -n 5 left out"])
    # (pass 58: ``--json`` takes ``--limit`` in ``tokens`` as in ``list``: a page of N rows)
    assert idwords._runnable(["--json", "-n", "1"]) == (["--json", "-n", "1"], [])


def test_the_command_names_the_reason_the_hint_names(isolated_home: Path) -> None:
    _, dropped = idwords._runnable(["--by", "day", "-n", "3", "--json"])
    assert dropped == ["--limit shapes the table by session; --by day shows every row: -n 3 left out"]
    refused = invoke("tokens", "--by", "day", "-n", "3", "--json")
    assert refused.exit_code == 2, refused.output
    assert "--limit shapes the table by session; --by day shows every period's row" in refused.stderr, refused.stderr
    taken = invoke("tokens", "--json", "-n", "3")  # (by session: taken, pass 58)
    assert taken.exit_code == 0, taken.output
