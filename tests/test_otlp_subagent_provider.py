"""Every ``invoke_agent`` span carries ``gen_ai.provider.name`` (the GenAI conventions require
it), a subagent's too: its own model's maker, else its turn's."""

from __future__ import annotations

from agentscan.otlp import semconv as sc
from agentscan.otlp.builder import SessionFacts, TurnBuilder


def facts(provider: str, model: str | None) -> SessionFacts:
    return SessionFacts(provider=provider, native_id="n1", source="hooks", content=sc.Content(), resource={},
                        model=model)


def test_a_subagent_span_names_its_provider() -> None:
    builder = TurnBuilder(facts("cursor", "claude-4.5-sonnet"), "t1", 1_000, timing="observed")
    own = builder.agent(builder.root, "a1", "a1", "explore", 1_000, 2_000, model="gpt-5.1-codex-mini")
    inherits = builder.agent(builder.root, "a2", "a2", "explore", 1_000, 2_000)
    composer = builder.agent(builder.root, "a3", "a3", "explore", 1_000, 2_000, model="composer-2")
    builder.finish()
    assert builder.root.attributes[sc.PROVIDER] == "anthropic"
    assert own.attributes[sc.PROVIDER] == "openai"
    assert inherits.attributes[sc.PROVIDER] == "anthropic"
    assert composer.attributes[sc.PROVIDER] == "cursor"
