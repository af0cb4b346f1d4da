"""`agentscan otlp --output`: transcript sessions as OTLP/JSON Lines, one trace per turn."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from otlp_builders import AGENT, SESSION, by_name, claude_delegating_session, one, otlp, read_otlp_file, ts
from agentscan.otlp import semconv
from agentscan.timeutil import parse_iso


@pytest.fixture
def exported(isolated_home: Path, tmp_path: Path) -> list:
    claude_delegating_session(isolated_home)
    out = tmp_path / "traces.jsonl"
    result = otlp("--output", str(out), "--json")
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    prices = doc.pop("prices")
    assert prices["library"] == "genai-prices"  # the data the chat spans' agentscan.cost_usd came from
    assert doc == {"schema": "agentscan.otlp/1", "sessions": 1, "traces": 2, "spans": 13, "complete": True, "path": str(out), "notes": [], "warnings": []}
    return read_otlp_file(out)


def test_every_line_is_traces_data_holding_one_turn_under_an_invoke_agent_root(exported: list) -> None:
    first, second = exported
    for spans in exported:
        assert len({s.trace_id for s in spans}) == 1  # one trace per line
        [root] = [s for s in spans if not s.parent]
        assert root.name == "invoke_agent claude-code" and root.service == "claude-code"
        assert root.attrs["gen_ai.operation.name"] == "invoke_agent"
        assert {s.attrs["gen_ai.conversation.id"] for s in spans} == {SESSION}  # ties the turns together
        ids = {s.span_id for s in spans}
        assert all(s.parent in ids for s in spans if s.parent)
    assert first[0].trace_id != second[0].trace_id
    root = [s for s in first if not s.parent][0]
    assert root.start == _ns(ts(0)) and root.end == _ns(ts(20))  # prompt .. last recorded instant


def test_chat_spans_carry_each_calls_usage_and_model(exported: list) -> None:
    spans = exported[0]
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert len(chats) == 5  # m1, m2, m3 and the subagent's ms1, ms2
    m1 = min(chats, key=lambda s: s.end)
    assert m1.name == "chat claude-sonnet-4-5-20250929" and m1.kind == 3  # CLIENT
    assert m1.attrs["gen_ai.provider.name"] == "anthropic"
    # OTel counts cached input inside input_tokens; the contract's buckets stay apart under agentscan.usage.*
    assert (m1.attrs["gen_ai.usage.input_tokens"], m1.attrs["gen_ai.usage.output_tokens"]) == (115, 20)
    assert (m1.attrs["gen_ai.usage.cache_read.input_tokens"], m1.attrs["gen_ai.usage.cache_creation.input_tokens"]) == (100, 5)
    assert [m1.attrs[f"agentscan.usage.{k}"] for k in ("input", "cache_read", "cache_write", "output", "total")] == [10, 100, 5, 20, 135]
    # From the prompt to the response's last record (its blocks were written at 2, 2.5 and 2.6 s)
    assert m1.end == _ns(ts(2.6)) and m1.start == _ns(ts(0))


def test_span_usage_adds_up_to_the_tokens_report(exported: list) -> None:
    from otlp_builders import runner
    from agentscan.cli import app

    tokens = orjson.loads(runner.invoke(app, ["tokens", "--json"]).stdout)["total"]
    chats = [s for spans in exported for s in spans if s.name.startswith("chat")]
    for field in ("input", "cache_read", "cache_write", "output", "total"):
        assert sum(s.attrs[f"agentscan.usage.{field}"] for s in chats) == tokens[field]
    roots = [s for spans in exported for s in spans if not s.parent]
    assert sum(r.attrs["agentscan.usage.total"] for r in roots) == tokens["total"]  # subagents roll up into the turn


def test_tool_calls_have_names_and_ids_and_a_parallel_batch_overlaps(exported: list) -> None:
    spans = exported[0]
    read, task = one(spans, "execute_tool Read"), one(spans, "execute_tool Task")
    grep = [s for s in by_name(spans, "execute_tool Grep") if s.attrs["gen_ai.tool.call.id"] == "toolu_grep"][0]
    assert (read.attrs["gen_ai.tool.name"], read.attrs["gen_ai.tool.call.id"], read.attrs["gen_ai.tool.type"]) == (
        "Read", "toolu_read", "function")
    assert read.overlaps(grep)  # asked for in one response: they ran side by side
    assert not read.overlaps(task)  # the Task came from a later response
    assert read.attrs["agentscan.timing"] == "inferred"


def test_a_subagent_nests_under_the_task_call_that_started_it(exported: list) -> None:
    spans = exported[0]
    task = one(spans, "execute_tool Task")
    explore = one(spans, "invoke_agent Explore")
    assert explore.parent == task.span_id and explore.within(task)
    assert (explore.attrs["gen_ai.agent.id"], explore.attrs["gen_ai.agent.name"]) == (AGENT, "Explore")
    children = [s for s in spans if s.parent == explore.span_id]
    assert sorted(s.name for s in children) == ["chat claude-haiku-4-5-20251001"] * 2 + ["execute_tool Grep"]
    assert all(child.within(explore) for child in children)
    assert explore.attrs["gen_ai.request.model"] == "claude-haiku-4-5-20251001"
    assert explore.attrs["agentscan.usage.total"] == sum(c.attrs["agentscan.usage.total"] for c in children if c.name.startswith("chat"))


def test_exporting_twice_gives_the_same_ids_and_the_same_bytes(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert otlp("-o", str(first)).exit_code == 0
    assert otlp("-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    ids = lambda path: [(s.trace_id, s.span_id, s.parent) for line in read_otlp_file(path) for s in line]  # noqa: E731
    assert ids(first) == ids(second) and len(set(ids(first))) == 13


def test_content_is_left_out_unless_asked_and_redact_hashes_it(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    plain, content, redacted = (tmp_path / f"{n}.jsonl" for n in ("plain", "content", "redacted"))
    assert otlp("-o", str(plain)).exit_code == 0
    assert otlp("-o", str(content), "--include-content").exit_code == 0
    assert otlp("-o", str(redacted), "--include-content", "--redact").exit_code == 0

    assert b"Find the cache bug" not in plain.read_bytes() and b"expire" not in plain.read_bytes()
    root = [s for s in read_otlp_file(content)[0] if not s.parent][0]
    assert orjson.loads(root.attrs["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "Find the cache bug"}]}]
    assert "Fixed: the TTL was in ms." in root.attrs["gen_ai.output.messages"]
    grep = [s for s in read_otlp_file(content)[0] if s.attrs.get("gen_ai.tool.call.id") == "toolu_grep"][0]
    assert "sk-ant-abcdefghijklmnopqrstuvwx" in grep.attrs["gen_ai.tool.call.arguments"]

    text = redacted.read_bytes()
    assert b"Find the cache bug" not in text and b"sk-ant-" not in text
    root = [s for s in read_otlp_file(redacted)[0] if not s.parent][0]
    assert "[redacted: 18 chars, #" in root.attrs["gen_ai.input.messages"]


def test_since_keeps_only_the_turns_that_ended_after_it(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    out = tmp_path / "recent.jsonl"
    assert otlp("-o", str(out), "--since", ts(30)).exit_code == 0
    [turn] = read_otlp_file(out)
    assert [s.name for s in turn] == ["invoke_agent claude-code", "chat claude-sonnet-4-5-20250929"]


def test_the_resource_honours_the_standard_otel_variables(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_delegating_session(isolated_home)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "agents")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "host.name=dev-1,team=data%20eng")
    out = tmp_path / "t.jsonl"
    assert otlp("-o", str(out)).exit_code == 0
    resource = orjson.loads(out.read_bytes().splitlines()[0])["resourceSpans"][0]["resource"]["attributes"]
    assert {a["key"]: a["value"]["stringValue"] for a in resource} == {"service.name": "agents", "host.name": "dev-1", "team": "data eng"}


def test_every_demo_provider_exports_and_subagents_nest(tmp_path: Path) -> None:
    from otlp_builders import runner
    from agentscan.cli import app

    out = tmp_path / "demo.jsonl"
    result = runner.invoke(app, ["--demo", "otlp", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    lines = read_otlp_file(out)
    assert doc["traces"] == len(lines) and doc["spans"] == sum(len(line) for line in lines)
    spans = [s for line in lines for s in line]
    assert {s.service for s in spans} == {"claude-code", "codex", "gemini-cli", "cursor"}
    # Codex: the reviewer subagent under its spawn_agent call; Gemini: under the call named after the agent
    reviewer = one(spans, "invoke_agent reviewer")
    assert [s.name for s in spans if s.span_id == reviewer.parent] == ["execute_tool spawn_agent"]
    gemini_sub = [s for s in spans if s.attrs.get("gen_ai.agent.id") == "q7k2mx"][0]
    assert [s.name for s in spans if s.span_id == gemini_sub.parent] == ["execute_tool codebase_investigator"]
    # Cursor transcripts carry no tool-call times: said (once, for the export, as a note), not invented
    assert any("Cursor session" in note and "tool calls left out of the traces" in note for note in doc["notes"])
    assert not any("Cursor session" in w["message"] for w in doc["warnings"])


def test_the_file_is_written_without_opentelemetry_proto(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_delegating_session(isolated_home)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # any `import opentelemetry…` now fails
    from agentscan.otlp import encode_proto

    assert not encode_proto.available()
    out = tmp_path / "t.jsonl"
    assert otlp("-o", str(out)).exit_code == 0
    assert [len(orjson.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]) for line in out.read_bytes().splitlines()] == [11, 2]
    result = otlp("--endpoint", "http://127.0.0.1:9", "--protocol", "protobuf")
    assert result.exit_code == 2 and "agentscan[otlp]" in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ([], 2, "exactly one of --output FILE or --endpoint URL"),
        (["-o", "x.jsonl", "--endpoint", "http://127.0.0.1:9"], 2, "exactly one of"),
        (["--endpoint", "file:///etc/passwd"], 2, "http:// or https://"),
        (["--endpoint", "http://127.0.0.1:9", "--protocol", "grpc"], 2, "unknown --protocol 'grpc'; choose from:"),
        (["--endpoint", "http://127.0.0.1:9", "--header", "novalue"], 2, "KEY=VALUE"),
        (["nosuchsession", "-o", "x.jsonl"], 1, "no session matches"),
        (["-o", "/nonexistent-dir/x.jsonl"], 1, "does not exist"),
    ],
)
def test_usage_problems_and_failures_have_the_contracts_exit_codes(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], code: int, message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = otlp(*args)
    assert result.exit_code == code, result.output
    assert message in result.output


def test_provider_names_follow_the_model_then_the_agent() -> None:
    assert semconv.provider_name("claude-4.5-sonnet", "cursor") == "anthropic"
    assert semconv.provider_name("gpt-5", "cursor") == "openai"
    assert semconv.provider_name("gemini-3-flash-preview", "gemini") == "gcp.gemini"
    assert semconv.provider_name(None, "codex") == "openai"
    assert semconv.provider_name("composer-1", "cursor") == "cursor"


def _ns(iso: str) -> int:
    moment = parse_iso(iso)
    assert moment is not None
    return int(round(moment.timestamp() * 1_000_000)) * 1000
