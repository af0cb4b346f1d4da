"""A Gemini chat's title is its first prompt in file order, whatever a ``$patch`` moved or took out.

The title was the prompts a checkpoint or a patch took out, then the live ones in their live
order: a ``$patch``'s ``orderIds`` that moved a later turn first, or a ``removeIds`` of a later
prompt, named the chat by that later prompt (a review, pass 58).  Gemini CLI names it by its
first user message; the chat's prompts are taken in the order each first appeared in the file.
"""

from __future__ import annotations

from pathlib import Path

from gemini_builders import call, gemini, meta, rewind, tokens, user

from test_gemini_patches_pass58 import T, _patch, _shown


def _two_turns() -> list[dict]:
    return [meta("58585858-aaaa-4bbb-8ccc-000000000001", start=T + "00.000Z"),
            user("u1", T + "01.000Z", "first"), gemini("g1", T + "02.000Z", "one", usage=tokens(10, 1)),
            user("u2", T + "03.000Z", "second"), gemini("g2", T + "04.000Z", "two", usage=tokens(20, 2))]


def test_order_ids_that_move_a_later_turn_first_keep_the_title(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_two_turns(), _patch(orderIds=["u2", "g2", "u1", "g1"])])
    assert [p["text"] for p in shown["prompts"]] == ["second", "first"]
    assert shown["title"] == "first"


def test_a_later_prompt_removed_after_a_checkpoint_keeps_the_title(isolated_home: Path) -> None:
    done = call("t1", "run_shell_command", {"command": "make"})
    records = [meta("58585858-aaaa-4bbb-8ccc-000000000001", start=T + "00.000Z"),
               user("u1", T + "01.000Z", "first"),
               gemini("g1", T + "02.000Z", "an answer", usage=tokens(10, 1), calls=[done]),
               {"$set": {"messages": [user("u1", T + "01.000Z", "first"),
                                      gemini("g1", T + "02.000Z", "ckpt answer", usage=tokens(10, 1), calls=[done])]}},
               user("u2", T + "03.000Z", "second"), gemini("g2", T + "04.000Z", "two", usage=tokens(20, 2)),
               _patch(removeIds=["u2", "g2"], orderIds=["g1", "u1"])]
    shown = _shown(isolated_home, records)
    assert [p["text"] for p in shown["prompts"]] == ["first"]
    assert shown["title"] == "first"


def test_a_rewound_first_prompt_names_no_chat(isolated_home: Path) -> None:
    # (unchanged: a rewind takes a prompt back; the next one typed names the chat)
    shown = _shown(isolated_home, [meta("58585858-aaaa-4bbb-8ccc-000000000001", start=T + "00.000Z"),
                                   user("u1", T + "01.000Z", "typo"), rewind("u1"),
                                   user("u2", T + "03.000Z", "second"), gemini("g2", T + "04.000Z", "two",
                                                                                usage=tokens(20, 2))])
    assert shown["title"] == "second"
