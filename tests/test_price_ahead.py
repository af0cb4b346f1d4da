"""genai-prices imported by a helper process on a cold run (``scan.priceahead``).

The helper answers the price book's questions with the library's own
answers: the same models, the same price periods, the same refusals, and
the same report as a run priced in this process.  A helper that is gone
(dead, stopped) leaves the questions to this process; one that is never
asked is killed and reaped when the run ends.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.pricing import source
from agentscan.pricing.access import AHEAD, IN_PROCESS
from agentscan.pricing.periods import NotPriceable
from agentscan.scan import priceahead
from agentscan.toolkit import cores, helperproc
from agentscan.scan.scanner import Scanner
from builders import cli_json
from pricing_builders import claude_sonnet_session, claude_unknown_model_session

QUESTIONS = [
    ("anthropic", "claude-sonnet-4-5-20250929"),
    ("anthropic", "claude-opus-4-6"),  # a dated change and long-context tiers
    ("openai", "o3"),  # a dated price cut
    ("google", "gemini-2.5-pro"),
    (None, "gpt-5-codex"),
    ("anthropic", "aide-gpt-5-nonesuch"),  # no such model
]
TIMES = [None, datetime(2025, 6, 1, tzinfo=timezone.utc).timestamp(), datetime(2026, 4, 1, tzinfo=timezone.utc).timestamp()]


def _answer(library, data, hint, ref, ts):
    """What ``library`` says of a model at a time, as comparable values."""
    try:
        found = library.find(data, hint, ref)
    except NotPriceable as exc:
        return ("not", str(exc))
    try:
        return (found.provider_id, found.model_id, library.period_at(data, found, ts))
    except NotPriceable as exc:
        return (found.provider_id, found.model_id, "not", str(exc))


def test_the_helper_answers_as_the_library_does() -> None:
    data = source.current({})
    ahead = priceahead.Ahead(data)
    try:
        assert ahead.problem(data) is None
        for hint, ref in QUESTIONS:
            for ts in TIMES:
                assert _answer(ahead, data, hint, ref, ts) == _answer(IN_PROCESS, data, hint, ref, ts), (hint, ref, ts)
        assert not ahead._gone  # every answer came from the helper
    finally:
        ahead.stop()


def test_a_helper_that_is_gone_leaves_the_questions_to_this_process() -> None:
    data = source.current({})
    ahead = priceahead.Ahead(data)
    found = ahead.find(data, "anthropic", "claude-sonnet-4-5-20250929")
    os.kill(ahead._helper.pid, 9)  # type: ignore[arg-type]
    period = ahead.period_at(data, found, None)
    assert ahead._gone and not ahead.serves(data)
    assert period == IN_PROCESS.period_at(data, IN_PROCESS.find(data, "anthropic", "claude-sonnet-4-5-20250929"), None)
    ahead.stop()


def test_a_price_book_goes_on_when_its_helper_is_gone_between_two_questions() -> None:
    """A model the helper found, asked for another period after the helper is gone (its idle
    end, an OOM kill): this process finds it again, and the keys are the in-process book's."""
    from agentscan.pricing import PriceBook

    def keys(book: PriceBook, ahead: priceahead.Ahead | None) -> list:
        found = [book.key("codex", "o3", TIMES[1], 10)]
        if ahead is not None:
            os.kill(ahead._helper.pid, 9)  # type: ignore[arg-type]
        found.append(book.key("claude", "claude-sonnet-4-5-20250929", TIMES[1], 10))  # finds it gone
        found.append(book.key("codex", "o3", TIMES[2], 10))  # a new period of a model the helper found
        return [(key, book.vectors[key]) for key in found]

    here = PriceBook(ScanContext.create(home=Path("/nonexistent"), env={}))
    helped = PriceBook(ScanContext.create(home=Path("/nonexistent"), env={}))
    ahead = priceahead.Ahead(helped.data)
    helped.ctx.memo[AHEAD] = ahead
    try:
        assert keys(helped, ahead) == keys(here, None)
        assert ahead._gone
    finally:
        ahead.stop()


def test_a_command_that_fails_stops_its_helper(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    claude_sonnet_session(isolated_home)
    started: list = []
    real_start = priceahead.start

    def start(scanner: Scanner) -> None:
        real_start(scanner)
        started.append(scanner.ctx.memo.get(AHEAD))

    monkeypatch.setattr(priceahead, "_imported", lambda: False)
    monkeypatch.setattr(priceahead, "start", start)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    result = CliRunner().invoke(app, ["show", "nosuchsession"])
    assert result.exit_code != 0 and "error:" in result.stderr
    assert started and started[0] is not None and started[0]._helper.pid is None
    assert priceahead._live == []


def test_stop_kills_and_reaps_a_helper_still_at_work() -> None:
    helper = helperproc.Helper(lambda: None, lambda question: question * 2)
    assert helper.ask(21) == 42
    pid = helper.pid
    helper.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # type: ignore[arg-type]  # reaped: no such child any more
    with pytest.raises(helperproc.HelperGone):
        helper.ask(1)


def test_a_question_the_helper_dies_on_is_helper_gone() -> None:
    helper = helperproc.Helper(lambda: None, lambda question: 1 // question)
    assert helper.ask(1) == 1
    with pytest.raises(helperproc.HelperGone):
        helper.ask(0)  # ZeroDivisionError ends the child: the parent sees the pipe close
    assert helper.pid is None


@pytest.mark.parametrize("command", [["list"], ["tokens"], ["tokens", "--by", "model"]])
def test_a_cold_run_priced_by_the_helper_prints_what_one_priced_here_does(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    claude_sonnet_session(isolated_home)
    claude_unknown_model_session(isolated_home)
    here = cli_json("--no-cache", *command)
    started: list = []
    real_start = priceahead.start

    def start(scanner: Scanner) -> None:
        real_start(scanner)
        started.append(scanner.ctx.memo.get(AHEAD))

    monkeypatch.setattr(priceahead, "_imported", lambda: False)  # this test process imported it long ago
    monkeypatch.setattr(priceahead, "start", start)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    helped = cli_json(*command)
    assert started and started[0] is not None
    assert started[0].answered and not started[0]._gone  # the helper priced it, not a fallback here
    assert started[0]._helper.pid is None  # stopped with the run
    assert orjson.dumps(helped) == orjson.dumps(here)
    assert cli_json(*command) == here  # and the prices it found were kept in the index


def test_a_warm_run_starts_no_helper(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sonnet_session(isolated_home)
    cli_json("list")  # prices kept in the index
    monkeypatch.setattr(priceahead, "_imported", lambda: False)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    with Scanner(env=dict(os.environ), use_cache=True) as scanner:
        priceahead.start(scanner)
        assert AHEAD not in scanner.ctx.memo


def test_an_empty_home_starts_no_helper_after_its_first_run(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No sessions, nothing to price: a helper per run would import genai-prices for nothing."""
    monkeypatch.setattr(priceahead, "_imported", lambda: False)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)

    def started() -> bool:
        with Scanner(env=dict(os.environ), use_cache=True) as scanner:
            priceahead.start(scanner)
            try:
                return AHEAD in scanner.ctx.memo
            finally:
                priceahead.stop_all()

    assert started()  # a first run cannot know the home is empty
    cli_json("list")
    assert not started()
    claude_sonnet_session(isolated_home)
    cli_json("--no-cache", "list")  # the index has not seen it yet: still "empty" as far as it knows
    assert not started()
    cli_json("list")  # discovered and priced: the prices are kept
    assert not started()


@pytest.mark.parametrize("command", [["list"], ["tokens", "--json"]])
def test_a_first_run_starts_its_helper_before_the_censuses(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          command: list[str]) -> None:
    """No provider discovered with the index yet: the helper's imports run while this process
    takes the censuses (``cli.state.start_prices_on_a_first_run``).  A later run that makes
    its answer starts it after them, once its answer is known not to be remembered."""
    from agentscan.scan import memo

    claude_sonnet_session(isolated_home)
    monkeypatch.setattr(priceahead, "_imported", lambda: False)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    order: list[str] = []  # the calls of both, in turn
    helper_at_census: list[bool] = []  # whether a helper was at work when each census began
    monkeypatch.setattr(priceahead, "start", _noting(order, "start", priceahead.start))
    census = _noting(order, "census", memo.stamp_of)

    def noted_census(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        helper_at_census.append(bool(priceahead._live))
        return census(*args, **kwargs)

    monkeypatch.setattr(memo, "stamp_of", noted_census)
    first = cli_json(*command)
    assert order[0] == "start" and "census" in order
    assert helper_at_census and all(helper_at_census)  # forked, not only asked to start
    order.clear()
    (isolated_home / ".claude" / "projects").joinpath("-elsewhere").mkdir()  # a change: made again, not a first run
    assert cli_json(*command) == first
    assert order.index("census") < order.index("start")


def _noting(order: list[str], name: str, real):  # noqa: ANN001, ANN202 - a spy of any signature
    def noted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        order.append(name)
        return real(*args, **kwargs)

    return noted


_ANSWERS = """
import sys
from agentscan.pricing import source
from agentscan.pricing.access import IN_PROCESS
from agentscan.scan import priceahead
if sys.argv[1] == "helper":
    priceahead._without_package_init()
data = source.current({})
print(IN_PROCESS.problem(data))
for hint, ref in %r:
    for ts in %r:
        try:
            found = IN_PROCESS.find(data, hint, ref)
            print(found.provider_id, found.model_id, IN_PROCESS.period_at(data, found, ts))
        except Exception as exc:
            print(type(exc).__name__, exc)
print(sorted(name for name in sys.modules if name.startswith(("genai_prices", "httpx"))))
""" % (QUESTIONS, TIMES)


def test_the_helper_imports_the_price_data_without_the_package_init() -> None:
    """The helper leaves genai-prices' ``__init__`` (its updater, httpx) unimported: pass 51,
    a quarter of the import's CPU.  Its answers are those of the plain import."""
    import subprocess
    import sys

    def answers(way: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", _ANSWERS, way], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(Path(priceahead.__file__).parents[2])})
        return done.stdout.splitlines()

    helper, plain = answers("helper"), answers("plain")
    assert helper[:-1] == plain[:-1] and len(helper) == 2 + len(QUESTIONS) * len(TIMES)
    assert "genai_prices.update_prices" in plain[-1] and "httpx" in plain[-1]
    assert "genai_prices.update_prices" not in helper[-1] and "httpx" not in helper[-1]
