"""The inference rules for transcripts: turns, span times, and which call started which subagent."""

from __future__ import annotations

from agentscan.otlp import delegation
from agentscan.otlp.delegation import Call, Run
from agentscan.otlp.timeline import CHAT, PROMPT, RESPONSE, TOOL, Instant, infer_times, split_turns

S = 1_000_000_000


def test_prompts_split_turns_and_early_instants_join_the_first() -> None:
    prompts = [Instant(10 * S, PROMPT, None, None), Instant(50 * S, PROMPT, None, None)]
    early, mid, late = (Instant(t * S, CHAT, None, None) for t in (5, 20, 60))
    first, second = split_turns(prompts, [late, mid, early])
    assert (first.start_ns, first.instants, second.instants) == (5 * S, [early, mid], [late])
    assert first.key == f"prompt@{10 * S}" and second.key == f"prompt@{50 * S}"
    [only] = split_turns([], [mid, early])
    assert (only.key, only.start_ns) == ("session", 5 * S)


def test_a_batch_of_calls_shares_its_end_and_an_llm_call_starts_at_the_previous_step() -> None:
    prompt = Instant(0, PROMPT, None, None)
    asked = Instant(2 * S, CHAT, None, None)  # the response that asked for both calls
    text = Instant(2 * S, RESPONSE, None, None)
    read, grep = Instant(3 * S, TOOL, None, None, index=0), Instant(4 * S, TOOL, None, None, index=1)
    answer = Instant(9 * S, CHAT, None, None)
    [turn] = split_turns([prompt], [asked, text, read, grep, answer])
    infer_times(turn, None)
    assert (asked.start_ns, asked.end_ns) == (0, 2 * S)
    assert (read.start_ns, read.end_ns) == (3 * S, 9 * S) and (grep.start_ns, grep.end_ns) == (4 * S, 9 * S)
    assert (answer.start_ns, answer.end_ns) == (4 * S, 9 * S)  # a response's text does not start the next call
    assert turn.end_ns == 9 * S


def test_a_last_call_with_nothing_after_it_ends_at_its_own_start() -> None:
    prompt, call = Instant(0, PROMPT, None, None), Instant(3 * S, TOOL, None, None)
    [turn] = split_turns([prompt], [call])
    infer_times(turn, None)
    assert (call.start_ns, call.end_ns) == (3 * S, 3 * S)


def test_parallel_task_calls_pair_with_their_subagents_in_launch_order() -> None:
    calls = [Call(0, "Read", 1 * S), Call(1, "Task", 2 * S), Call(2, "Task", 2 * S + 1000), Call(3, "Task", 2 * S + 2000)]
    runs = [Run("c", "Explore", 5 * S + 200, 9 * S), Run("a", "Explore", 5 * S, 8 * S), Run("b", "Plan", 5 * S + 100, 7 * S)]
    assert delegation.match(runs, calls, parent_activity=[1 * S, 2 * S]) == {"a": 1, "b": 2, "c": 3}


def test_a_call_logged_when_it_returned_or_after_an_idle_parent_still_matches() -> None:
    # Codex-like: the delegation call is logged while the subagent runs
    assert delegation.match([Run("r", "reviewer", 10 * S, 20 * S)], [Call(0, "spawn_agent", 12 * S)], []) == {"r": 0}
    # Gemini-like: the call is named after the agent and logged after it ended; the parent was idle meanwhile
    runs, calls = [Run("q", None, 10 * S, 20 * S)], [Call(0, "codebase_investigator", 21 * S)]
    assert delegation.match(runs, calls, parent_activity=[5 * S, 21 * S]) == {"q": 0}
    # … but not when the parent was busy while the subagent ran, nor a minute later
    assert delegation.match(runs, calls, parent_activity=[15 * S]) == {}
    assert delegation.match(runs, [Call(0, "codebase_investigator", 90 * S)], parent_activity=[]) == {}
