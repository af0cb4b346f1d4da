"""Stray Gemini chat copies are told against the copy finally counted (a review, pass 58).

* Three copies in three projects: the warning was made as each copy was ranked against the one
  counted so far, so a copy passed over by a later one was named as "counted" (a file not
  counted).  Now every copy is ranked first, then each left out that differs is told against
  the one counted.
* A counted copy whose bytes are the start of a longer one left out (a stale snapshot with a
  newer mtime: a home copied) said nothing, and the turns only the longer held were lost
  without a word.  Now that is told; the other way round (the one left out is the start of the
  one counted) still says nothing.
"""

from __future__ import annotations

from pathlib import Path

from builders import cli_json
from gemini_builders import chats_dir, write_chat

from test_gemini_stray_copies_pass58 import AGENT, _answers, _records


def test_three_copies_told_against_the_one_counted(isolated_home: Path) -> None:
    paths = {}
    for n, (project, mtime) in enumerate((("a", 1_772_000_500), ("b", 1_772_000_100), ("c", 1_772_000_900))):
        chats_dir(isolated_home, project).mkdir(parents=True, exist_ok=True)
        (chats_dir(isolated_home, project).parent / ".project_root").write_text(f"/tmp/{project}")
        paths[project] = write_chat(isolated_home, project, f"{AGENT}.jsonl",
                                    _records(("Subtask", "x", 1_000), (f"variant {project}", "y", 100 * (n + 1))),
                                    mtime=mtime)
    doc = _answers()
    counted = cli_json("show", f"gemini:{AGENT}")["session"]["path"]
    assert counted == str(paths["c"])
    assert sorted(w["path"] for w in doc["warnings"]) == sorted([str(paths["a"]), str(paths["b"])])
    assert all(w["message"].endswith(f"counted instead: {counted}") for w in doc["warnings"])


def test_a_counted_copy_that_is_the_start_of_the_other_is_told(isolated_home: Path) -> None:
    for project in ("one", "two"):
        chats_dir(isolated_home, project).mkdir(parents=True, exist_ok=True)
        (chats_dir(isolated_home, project).parent / ".project_root").write_text(f"/tmp/{project}")
    longer = write_chat(isolated_home, "one", f"{AGENT}.jsonl",
                        _records(("Subtask: read logs", "Found it", 1_000), ("and the rest", "Done", 2_000)),
                        mtime=1_772_000_100)
    stale = write_chat(isolated_home, "two", f"{AGENT}.jsonl", _records(("Subtask: read logs", "Found it", 1_000)),
                       mtime=1_772_000_900)  # copied before the other grew, touched since
    (warning,) = _answers()["warnings"]
    assert warning["path"] == str(longer) and warning["message"].endswith(f"counted instead: {stale}")
