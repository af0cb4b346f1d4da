"""TOTAL's REASONING goes by one rule (pass 55), a whole table's and a patched one's alike
(``tokens_columns.total_agents``): it was worked out three ways (the by-session override in
``tokens_text``, its ``table_agents``, and ``tablepatch``'s own set)."""

from __future__ import annotations


def test_total_goes_by_the_rows_that_counted_a_call() -> None:
    from agentscan.cli.tokens_columns import total_agents

    table = {"claude", "codex"}
    assert total_agents([(("claude",), True), (("codex",), False)], table) == {"claude"}
    assert total_agents([(("cursor",), True), (("claude",), True)], table) == {"cursor", "claude"}
    # none counted a call, or one that did does not say whose: the table's own agents
    assert total_agents([(("claude",), False)], table) == table
    assert total_agents([(("claude",), True), (None, True)], table) == table
    assert total_agents([], table) == table


def test_a_whole_table_and_a_patched_one_ask_the_same_rule() -> None:
    from agentscan.cli import tablepatch, tokens_columns, tokens_text

    assert tokens_text.total_agents is tokens_columns.total_agents is tablepatch.total_agents
    assert not hasattr(tokens_text, "table_agents")
