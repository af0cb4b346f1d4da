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
