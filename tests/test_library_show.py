"""``Scanner.show`` gives what ``agentscan show --json`` gives, cost included, by one path;
and the package's own example runs as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import orjson
import pytest

import agentscan
from agentscan import Scanner, with_costs
from builders import invoke
from pricing_builders import CLAUDE_SESSION, HAIKU_CALL, SONNET_CALL_1, SONNET_CALL_2, claude_sonnet_session
from spies import record_calls

SESSION = f"claude:{CLAUDE_SESSION}"


def test_the_librarys_show_has_the_cost_list_and_the_cli_give(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    with Scanner(home=isolated_home) as scanner:
        detail = scanner.show(SESSION)
        (listed,) = with_costs(scanner, scanner.list_sessions())
    assert detail.row.cost == listed.cost == SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL
    assert detail.row.cost_priced == listed.cost_priced
    shown = orjson.loads(invoke("show", SESSION, "--json").stdout)["session"]
    # The CLI adds only its cross-check with the hook store (README: not the session's files').
    assert shown.pop("hook_events") == 0
    assert orjson.loads(orjson.dumps(detail.to_json())) == shown


def test_a_subagents_id_opens_its_parent_with_the_parents_cost(isolated_home: Path) -> None:
    from pricing_builders import CLAUDE_AGENT

    claude_sonnet_session(isolated_home)
    with Scanner(home=isolated_home) as scanner:
        detail = scanner.show(CLAUDE_AGENT)
    assert detail.row.id == SESSION and detail.extra["focus"]["subagent"] == CLAUDE_AGENT
    assert detail.row.cost == SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL


def test_the_cli_prices_a_shown_session_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import costs

    claude_sonnet_session(isolated_home)
    # (``with_costs`` and ``show``'s ``with_cost``, which prices its subagents too, share ``_with_costs``)
    priced = record_calls(monkeypatch, costs, "_with_costs", lambda scanner, rows, *rest, **kw: [row.id for row in rows])
    document = orjson.loads(invoke("show", SESSION, "--json").stdout)
    assert priced == [[SESSION]]
    assert document["session"]["cost_usd"] is not None and document["prices"]["source"] == "bundled"


def _example(doc: str) -> str:
    """The indented code block after ``::`` in ``doc``."""
    block = doc.split("::\n", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_the_package_docstrings_example_runs(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude_sonnet_session(isolated_home)
    assert agentscan.__doc__ is not None
    exec(_example(agentscan.__doc__), {})  # noqa: S102 - the example a reader copies
    out = capsys.readouterr().out
    assert f"{SESSION} 0.33195" in out


def test_the_readmes_library_example_runs(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude_sonnet_session(isolated_home)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    (code,) = re.findall(r"## Library\n\n```python\n(.*?)```", readme, flags=re.S)
    exec(code, {})  # noqa: S102 - the example a reader copies
    assert f"{SESSION} 0.33195" in capsys.readouterr().out


def test_a_scanner_prices_its_shows_and_rows_with_one_book(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dashboard calling ``show`` in a loop loaded the price data for every call."""
    from agentscan.scan import costs

    claude_sonnet_session(isolated_home)
    made = record_calls(monkeypatch, costs, "PriceBook", lambda *args, **kwargs: None)
    with Scanner(home=isolated_home) as scanner:
        first = scanner.show(SESSION)
        again = scanner.show(SESSION)
        (listed,) = with_costs(scanner, scanner.list_sessions())
    assert first.row.cost == again.row.cost == listed.cost == SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL
    assert len(made) == 1
    with Scanner(home=isolated_home) as other:  # another scanner, another book
        other.show(SESSION)
    assert len(made) == 2
