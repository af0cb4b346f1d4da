"""Pass 50: what "no price" says of a name no update can price (docs/pricing.md).

Codex's ``codex-auto-review`` is an alias Codex gives its own review runs, no vendor's model
id: its warning offered ``prices --update``, which can never price it (and no price is
guessed for it: ccusage's ``gpt-5.4`` is a guess).  A Claude fast-mode name with no price
(``claude-opus-4-6-fast``) was offered its model's standard price (``claude-opus-4-6``),
which a fast-mode call is not billed at.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import T0, at, meta, rollout_path, token_count, turn_context, usage, write_rollout

runner = CliRunner()
THREAD = "0199aaaa-0000-7000-8000-000000000050"


def test_codex_s_review_alias_is_said_to_be_one_and_offered_no_update(isolated_home: Path) -> None:
    counters = usage(10000, cached=6000, output=1000, reasoning=500)
    write_rollout(rollout_path(isolated_home / ".codex", THREAD, T0), [
        meta(THREAD, T0), turn_context(at(1), model="codex-auto-review"), token_count(at(2), counters, counters)])
    doc = orjson.loads(runner.invoke(app, ["tokens", "--json", "--by", "model"]).stdout)
    [message] = [w["message"] for w in doc["warnings"] if w["path"] == "model:codex/codex-auto-review"]
    assert "--update" not in message
    assert message.endswith("; codex-auto-review is an alias Codex uses for its own review runs, "
                            "with no public price: left unpriced")
    # never a guessed price: its row's cost stays unknown
    assert [row["cost_usd"] for row in doc["rows"]] == [None]


def test_the_alias_is_codex_s_alone() -> None:
    from agentscan.pricing.aliases import agent_alias

    assert agent_alias("codex", "codex-auto-review") is not None
    assert agent_alias("claude", "codex-auto-review") is None
    assert agent_alias("codex", "gpt-5.1-codex") is None


def _prices(*names: str) -> tuple[list[str], list[str]]:
    result = runner.invoke(app, ["prices", *names])
    err = result.stderr.splitlines()
    return [line for line in err if "did you mean" in line], [line for line in err if line.startswith("warning: ")]


def test_a_fast_mode_name_is_offered_fast_mode_names_alone(isolated_home: Path) -> None:
    # (names of no priced model: one whose model is priced has its gap said, and no guess)
    for name in ("claude-opsu-4-6-fast", "opsu-4.6-fast", "claude-opus-4-9-fast"):
        [guess], _ = _prices(name)
        offered = guess.split("did you mean ", 1)[1].rstrip("?").split(" or ")
        assert offered and all(each.endswith("-fast") for each in offered), guess


def test_a_fast_mode_name_s_warning_says_its_model_has_no_fast_mode_price(isolated_home: Path) -> None:
    _, [warning] = _prices("claude-opus-4-6-fast")
    assert warning.endswith(": it has no fast-mode price for claude-opus-4-6 "
                            "(a fast-mode call is not billed at its standard price)")
    _, [short] = _prices("opus-4.6-fast")
    assert "no fast-mode price for opus-4.6 " in short
    # a misspelt name is no known model's: nothing said of a fast-mode price
    _, [misspelt] = _prices("claude-opsu-4-6-fast")
    assert "fast-mode price" not in misspelt


def test_prices_says_what_codex_s_review_alias_is(isolated_home: Path) -> None:
    for args in (["codex-auto-review"], ["codex-auto-review", "-p", "codex"]):
        _, [warning] = _prices(*args)
        assert warning.endswith(": codex-auto-review is an alias Codex uses for its own review runs, "
                                "with no public price: left unpriced")
    _, [warning] = _prices("codex-auto-review", "-p", "claude")  # no Claude Code alias
    assert "alias" not in warning
