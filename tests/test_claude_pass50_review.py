"""Claude Code, pass 50: a heavy user's resumed chains, pasted images and ids.

* ``show <run>`` of a run only copies name (its maker gone) opens the session ``list``
  credits it to, whatever the ids' order.
* A transcript whose first line is a pasted image of 6 MB (over the readers' 4 MiB cap)
  still names the session it was resumed from (``headfields.header_field``).
"""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

from builders import claude_assistant, claude_progress, claude_session_file, claude_usage, claude_user, invoke

SONNET = "claude-sonnet-4-5-20250929"
RUN = "a5050505"


def _listed() -> dict[str, int]:
    return {row["native_id"]: row["subagents"] for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}


def _first(session: str) -> list[dict]:
    delegated = claude_assistant(session, "2026-05-01T10:00:03.000Z", msg_id="sm1", request_id="sr1",
                                 usage=claude_usage(1000, 100), uuid="s1", model=SONNET)
    return [claude_user(session, "2026-05-01T10:00:00.000Z", "step 1", uuid="u1"),
            claude_progress(session, "2026-05-01T10:00:03.000Z", RUN, delegated, uuid="p1", parentUuid="u1"),
            claude_assistant(session, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                             usage=claude_usage(100, 10), parentUuid="p1", uuid="a1", model=SONNET)]


def _own(session: str, day: int) -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{day}"),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                             usage=claude_usage(10 * day, 1), parentUuid=f"u{day}", uuid=f"a{day}", model=SONNET)]


def test_show_of_a_copied_run_opens_the_session_list_credits_it_to(isolated_home: Path) -> None:
    # A -> B -> C, A gone; C's id sorts before B's: the credit (first call, then id) goes to C.
    first, second, third = "ffffffff-0000-4000-8000-000000000050", "eeeeeeee-0000-4000-8000-000000000050", \
        "dddddddd-0000-4000-8000-000000000050"
    copied = _first(first)
    claude_session_file(isolated_home, second, [*copied, *_own(second, 2)])
    claude_session_file(isolated_home, third, [*copied, *_own(second, 2), *_own(third, 3)])
    listed = _listed()
    assert sorted(listed.values()) == [0, 1]  # (one row counts the run: today the credit's tie-break by id, C's)
    (credited,) = (session for session, runs in listed.items() if runs == 1)
    result = invoke("show", RUN)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"claude:{credited}"
    assert invoke("show", RUN[:6]).stdout.splitlines()[0] == f"claude:{credited}"  # (a prefix of it too)


def test_a_first_line_of_a_pasted_image_over_the_cap_still_names_the_session_resumed_from(isolated_home: Path) -> None:
    first, resumed = "aaaaaaaa-0000-4000-8000-000000000050", "bbbbbbbb-0000-4000-8000-000000000050"
    image = base64.b64encode(bytes(range(256)) * (6 * 1024 * 1024 // 256 * 3 // 4 + 1)).decode()
    assert len(image) > 6_000_000
    prompt = claude_user(first, "2026-05-01T10:00:00.000Z", [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
        {"type": "text", "text": "what is wrong in this screenshot"}], uuid="u1")
    # (``sessionId`` written after the pasted image: the head read whole holds no key before it)
    prompt = {**{k: v for k, v in prompt.items() if k != "sessionId"}, "sessionId": first}
    reply = claude_assistant(first, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                             usage=claude_usage(100, 10), parentUuid="u1", uuid="a1", model=SONNET)
    claude_session_file(isolated_home, first, [prompt, reply])
    claude_session_file(isolated_home, resumed, [prompt, reply, *_own(resumed, 2)])
    for _ in range(2):  # cold, then the header remembered
        shown = orjson.loads(invoke("show", resumed, "--json").stdout)["session"]
        assert shown["resumed_from"] == f"claude:{first}"
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert rows == {f"claude:{first}": 110, f"claude:{resumed}": 21}


def test_an_all_hex_id_that_matches_nothing_makes_its_error_once(isolated_home: Path, monkeypatch) -> None:
    # ``not_found`` asks every provider's index (a Codex thread DB): made by the last look only,
    # not once for the id as typed and again for it in any case.
    from agentscan.scan import resolve
    from spies import record_calls

    claude_session_file(isolated_home, "aaaaaaaa-0000-4000-8000-000000000050", _own("aaaaaaaa-0000-4000-8000-000000000050", 2))
    made = record_calls(monkeypatch, resolve, "not_found", lambda scanner, query: query)
    for query in ("DEADBEEF12", "deadbeef12"):
        result = invoke("show", query)
        assert result.exit_code == 1 and "no session matches" in result.output.lower(), result.output
    assert len(made) == 2
    assert invoke("show", "AAAAAAAA").stdout.splitlines()[0] == "claude:aaaaaaaa-0000-4000-8000-000000000050"


def test_a_chain_whose_first_and_third_are_gone_lists_each_gone_conversation_once(isolated_home: Path) -> None:
    # A -> B -> C -> D, A and C gone: B lists A's records (it copied them first), D lists C's,
    # not A's again (before, A's conversation was on B's card and on D's).
    first, second, third, fourth = (f"{n * 8}-0000-4000-8000-000000000050" for n in "abcd")
    copied = _first(first)
    claude_session_file(isolated_home, second, [*copied, *_own(second, 2)])
    claude_session_file(isolated_home, fourth, [*copied, *_own(second, 2), *_own(third, 3), *_own(fourth, 4)])

    def prompts(session: str) -> list[str]:
        return [prompt["text"] for prompt in orjson.loads(invoke("show", session, "--json").stdout)["session"]["prompts"]]

    for _ in range(2):  # (cold, then warm)
        assert prompts(second) == ["step 1", "step 2"]
        assert prompts(fourth) == ["step 3", "step 4"]
    shown = orjson.loads(invoke("show", fourth, "--json").stdout)["session"]
    assert shown["resumed_copies_listed"] is True and shown["resumed_from"] == f"claude:{third}"
    # (the figures are unchanged: A's calls count in one of B and D, C's in D)
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert sum(rows.values()) == 1100 + 110 + 21 + 31 + 41
