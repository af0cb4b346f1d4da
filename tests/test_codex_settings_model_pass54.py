"""A Codex call before the file's first ``turn_context`` runs on the model the thread's settings name.

Codex 0.146+ persists ``event_msg`` ``thread_settings_applied`` in the rollout (openai/codex
``codex-rs/rollout/src/policy.rs``: ``EventMsg::ThreadSettingsApplied(_) => true``), whose
``thread_settings`` is a ``ThreadSettingsSnapshot`` with a required ``model: String`` beside the
optional ``service_tier`` (openai/codex ``codex-rs/protocol/src/protocol.rs``,
https://github.com/openai/codex/blob/main/codex-rs/protocol/src/protocol.rs).  agentscan read only
its tier: a ``token_count`` before the first ``turn_context`` was counted under model ``unknown``
(no price, a warning; ``list`` said MODEL ``-`` for a thread with no ``turn_context``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agentscan.providers.codex.callscan import FileUsageScanner
from builders import cli_json
from codex_builders import (line, meta, rollout_path, task_started, token_count, turn_context, usage,
                            user_message, write_rollout)

T = "019d1000-0000-7000-8000-000000000541"
START = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def _settings(moment: datetime, model: str, tier: str | None = None) -> dict[str, Any]:
    settings: dict[str, Any] = {"cwd": "/work/project", "model": model, "model_provider_id": "openai",
                                "approval_policy": "never"}
    if tier is not None:
        settings["service_tier"] = tier
    return line(moment, "event_msg", {"type": "thread_settings_applied", "thread_settings": settings})


def _rollout(*, with_turn: bool) -> list[dict[str, Any]]:
    """Settings, a prompt and a call, then (``with_turn``) a ``turn_context`` and a second call."""
    records = [meta(T, START), _settings(START, "gpt-5.5"), task_started(START + timedelta(seconds=1)),
               user_message(START + timedelta(seconds=1), "hello"),
               token_count(START + timedelta(seconds=5), usage(10_000, 4_000, 1_000), usage(10_000, 4_000, 1_000))]
    if with_turn:
        records += [turn_context(START + timedelta(seconds=6), model="gpt-5.5"),
                    token_count(START + timedelta(seconds=9), usage(20_000, 8_000, 2_000), usage(10_000, 4_000, 1_000))]
    return records


def _models(records: list[dict[str, Any]]) -> list[str | None]:
    scanner = FileUsageScanner()
    for record in records:
        scanner.feed(record)
    return [event.model for event in scanner.events]


def test_calls_before_the_first_turn_context_run_on_the_settings_model() -> None:
    assert _models(_rollout(with_turn=True)) == ["gpt-5.5", "gpt-5.5"]
    # the settings' tier still applies to that call
    records = _rollout(with_turn=False)
    records[1] = _settings(START, "gpt-5.5", "priority")
    assert _models(records) == ["gpt-5.5 (priority)"]


def test_a_turn_context_outranks_the_settings() -> None:
    """A settings change while a turn runs leaves that turn on its model: the next ``turn_context``
    names the new one."""
    records = [*_rollout(with_turn=True), _settings(START + timedelta(seconds=10), "gpt-5.4"),
               token_count(START + timedelta(seconds=12), usage(30_000, 12_000, 3_000), usage(10_000, 4_000, 1_000)),
               turn_context(START + timedelta(seconds=13), model="gpt-5.4"),
               token_count(START + timedelta(seconds=15), usage(40_000, 16_000, 4_000), usage(10_000, 4_000, 1_000))]
    assert _models(records) == ["gpt-5.5", "gpt-5.5", "gpt-5.5", "gpt-5.4"]


def test_tokens_list_and_show_price_those_calls(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, START), _rollout(with_turn=True))
    doc = cli_json("tokens", "--by", "model")
    assert [row["key"] for row in doc["rows"]] == ["gpt-5.5"]
    assert doc["rows"][0]["tokens"]["total"] == 22_000 and doc["rows"][0]["cost_usd"] is not None
    assert not doc["warnings"], doc["warnings"]
    (session,) = cli_json("list", "--all")["sessions"]
    assert session["cost_usd"] is not None and session["model"] == "gpt-5.5"
    shown = cli_json("show", T)
    assert shown["session"]["cost_usd"] is not None and not shown["warnings"], shown["warnings"]


def test_a_thread_with_no_turn_context_has_the_settings_model(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, START), _rollout(with_turn=False))
    (session,) = cli_json("list", "--all")["sessions"]
    assert session["model"] == "gpt-5.5" and session["cost_usd"] is not None


def _resumed_models(head: list[dict[str, Any]], rest: list[dict[str, Any]]) -> list[str | None]:
    """The calls of ``rest`` read by a scanner that goes on from where a pass over ``head`` stopped."""
    first = FileUsageScanner()
    for record in head:
        first.feed(record)
    scanner = FileUsageScanner()
    scanner.resume(*first.position)
    for record in rest:
        scanner.feed(record)
    return [event.model for event in scanner.events]


def test_a_pass_that_goes_on_keeps_the_settings_model_apart() -> None:
    # ``position`` gave the settings' model as the turn's: a settings change read on (no
    # turn_context yet) left the calls after it on the model before.
    later = [_settings(START + timedelta(seconds=20), "gpt-5.4", "priority"),
             token_count(START + timedelta(seconds=25), usage(20_000, 8_000, 2_000), usage(10_000, 4_000, 1_000))]
    assert _resumed_models(_rollout(with_turn=False), later) == ["gpt-5.4 (priority)"]
    assert _models(_rollout(with_turn=False) + later) == ["gpt-5.5", "gpt-5.4 (priority)"]
    # A turn_context read before still outranks it, and the tier goes on.
    head = _rollout(with_turn=True)
    head[1] = _settings(START, "gpt-5.5", "priority")
    call = token_count(START + timedelta(seconds=30), usage(30_000, 12_000, 3_000), usage(10_000, 4_000, 1_000))
    assert _resumed_models(head, [call]) == ["gpt-5.5 (priority)"]
    assert _resumed_models(head, [later[0], call]) == ["gpt-5.5 (priority)"]


def test_a_grown_rollout_kept_by_a_whole_pass_counts_the_new_settings(isolated_home: Path) -> None:
    from codex_builders import append_records, function_call, function_output

    path = rollout_path(isolated_home / ".codex", T, START)
    write_rollout(path, [*_rollout(with_turn=False),  # > 1 MiB: a whole pass keeps its tally
                         function_call(START + timedelta(seconds=6), "shell", {"cmd": "x"}, "c1"),
                         function_output(START + timedelta(seconds=7), "c1", "y" * 1_300_000)])
    assert cli_json("tokens")["rows"]
    append_records(path, [_settings(START + timedelta(seconds=20), "gpt-5.4"),
                          token_count(START + timedelta(seconds=25), usage(20_000, 8_000, 2_000), usage(10_000, 4_000, 1_000)),
                          token_count(START + timedelta(seconds=28), usage(30_000, 12_000, 3_000), usage(10_000, 4_000, 1_000))])
    (session,) = cli_json("list", "--all")["sessions"]
    assert session["model"] == "gpt-5.4"  # two calls of three: was gpt-5.5, the tally's turn model


def test_a_cold_list_of_a_large_rollout_takes_the_settings_model_before_its_window(isolated_home: Path) -> None:
    # Only the last 1 MiB is read: its calls' model is named before it, by the settings alone.
    from codex_builders import append_records, function_call, function_output

    path = rollout_path(isolated_home / ".codex", T, START)
    write_rollout(path, [*_rollout(with_turn=False),
                         function_call(START + timedelta(seconds=6), "shell", {"cmd": "x"}, "c1"),
                         function_output(START + timedelta(seconds=7), "c1", "y" * 1_300_000)])
    append_records(path, [task_started(START + timedelta(seconds=21)), user_message(START + timedelta(seconds=21), "again"),
                          token_count(START + timedelta(seconds=25), usage(20_000, 8_000, 2_000), usage(10_000, 4_000, 1_000))])
    (session,) = cli_json("list", "--all")["sessions"]
    assert session["model"] == "gpt-5.5" and session["cost_usd"] is not None


def test_the_seed_of_a_window_carries_the_settings_model_and_tier(isolated_home: Path) -> None:
    from agentscan.providers.codex.totalseed import seeds_before
    from agentscan.providers.codex.turnseed import Seed

    def model_before(path: Path, end: int) -> Seed | None:  # (asked as ``headtail`` asks)
        return seeds_before(path, end, model=True, totals=False)[0]


    path = rollout_path(isolated_home / ".codex", T, START)
    write_rollout(path, [meta(T, START), _settings(START, "gpt-5.5", "priority")])
    end = path.stat().st_size
    assert model_before(path, end) == Seed(None, "gpt-5.5", "priority")
    # A turn_context after it names the turn's model (the search ends there: a tier only records
    # after it say, as before); a settings record after that, the tier.
    from codex_builders import append_records

    append_records(path, [turn_context(START + timedelta(seconds=2), model="gpt-5.4")])
    assert model_before(path, path.stat().st_size) == Seed("gpt-5.4", None, None)
    append_records(path, [_settings(START + timedelta(seconds=3), "gpt-5.3", "flex")])
    assert model_before(path, path.stat().st_size) == Seed("gpt-5.4", "gpt-5.3", "flex")
