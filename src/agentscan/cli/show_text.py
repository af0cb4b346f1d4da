"""Human-readable ``show`` output: a compact card, or with ``--full`` the whole
bounded conversation in order (``show_full``)."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Callable, Sequence

from agentscan.cli import render
from agentscan.cli.render import human_usd, plural
from agentscan.cli.show_errors import error_words, interrupted_count, recorded_errors
from agentscan.cli.show_lineage import (copied_listed, copies_text, forked_as_text, forked_gone_text, moved_text,
                                        resumed_text, source_text, taken_back_fields, tiers_text)
from agentscan.cli.copyhint import card_command
from agentscan.cli.show_subagents import subagent_call_count, subagent_lines, subagent_names, subagent_tokens
from agentscan.cli.show_fields import (READ_IN_PART, UNREAD, digits_grouped as _grouped, field as _field, fit as _fit,
                                       plain_plural as _plain_plural, tokens_line)
from agentscan.cli.showfit import FocusedCalls, focused_talk, heading_lines, talk_clause, tools_heading
from agentscan.invocation import program_word
from agentscan.cli.term import Terminal, clean, clean_path, title_text, home_short, width_of, write_out
from agentscan.cli.show_compactions import (Compaction, came_before, compacted_count, compaction_text,
                                            recorded_compactions, stood_before)
from agentscan.cli.show_reported import reported_line
from agentscan.cli.show_truncated import truncation_note
from agentscan.cli.show_tools import tool_call_lines
# (the names ``show_text`` had before the card's tool calls were given ``show_tools``)
from agentscan.cli.show_tools import UNKNOWN_MEANING, tool_summary as _tool_summary, unknown_legend  # noqa: F401
from agentscan.detailmodel import Prompt, SessionDetail, ToolEvent
from agentscan.timeutil import shown_time

if TYPE_CHECKING:
    from agentscan.cli.copyhint import ShortId
    from agentscan.scan.short_ids import Known

PROMPTS_SHOWN = 10
TOOLS_SHOWN = 15
#: the newest errors the card names (``--full`` prints every one the provider kept)
ERRORS_SHOWN = 3
#: line lengths in a pipe, where there is no terminal width to fit
PIPE_PROMPT, PIPE_RESPONSE, PIPE_ERROR = 100, 400, 200


def _prompt_lines(prompts: Sequence[Prompt], compactions: list[Compaction], every: bool, term: Terminal,
                  zone: tzinfo | None) -> list[str]:
    """The prompts shown, each compaction among them at its time, or one of no time (a trimmed
    timestamp) where it was read among them (one before the oldest shown, unless ``every``
    prompt is shown, is not: the ``counts`` line counts it)."""
    first = prompts[0] if prompts and not every else None
    marks = [c for c in compactions if first is None or not came_before(c, first)]
    marks = [c for c in marks if c.timestamp is not None or c.seq or first is None]
    marks = marks[-PROMPTS_SHOWN:]  # (a file of thousands of them: no more marks than prompts)
    if all(mark.seq for mark in marks):
        marks.sort(key=lambda mark: mark.seq)  # in reading order: the dated and the undated alike
    lines = []
    for prompt in prompts:
        due = [mark for mark in marks if came_before(mark, prompt)]
        for mark in due:
            marks.remove(mark)
            lines.append(_compaction_line(mark, term, zone))
        # A prompt with no time (Cursor's) says ``-`` in a time's width: its text lines up.
        head = f"  {render.time_column(prompt.timestamp, zone)}  "
        lines.append(head + _fit(prompt.text, term.width - len(head), term, PIPE_PROMPT))
    return lines + [_compaction_line(mark, term, zone) for mark in marks]


def _compaction_line(compaction: Compaction, term: Terminal, zone: tzinfo | None) -> str:
    head = f"  {render.time_column(compaction.timestamp, zone)}  "
    return head + _fit(compaction_text(compaction, grouped=term.tty), term.width - len(head), term, PIPE_PROMPT)


def focused_tools(detail: SessionDetail) -> list[ToolEvent] | None:
    """The calls of the subagent in focus (``show <subagent id>``), oldest first; ``None``: no focus."""
    run = detail.focused_id
    return None if run is None else [tool for tool in detail.tools if tool.subagent == run]


def _focus_where(detail: SessionDetail, term: Terminal, full: bool, known: Known | None = None) -> str:
    """Where the focused subagent's part is, after "listed under subagents": only what the
    output below shows.  It once promised calls marked ``[id]`` where the card showed the
    session's newest 15, all the parent's; and ``--full`` marks none: it indents them."""
    marked = _focus_name(detail, term, known)
    calls = focused_tools(detail) or []
    if full:
        run = detail.focused_run()
        talked = run is not None and bool(run.prompts or run.responses)
        return f", its conversation under ↳ subagent {marked}" if calls or talked else "; none of its conversation recorded"
    focused = focused_talk(detail)
    talk = talk_clause(detail, focused) if focused is not None else ""
    if calls:
        return f", its tool calls marked [{marked}]{talk}"
    kept = len(detail.tools)
    return (f"; no tool call of its among the newest {kept:,} kept{talk}" if detail.truncated.get("tools")
            else f"; no tool call of its recorded{talk}")


def _focus_name(detail: SessionDetail, term: Terminal, known: Known | None = None) -> str:
    """The focused subagent as the card names it (its tool calls' ``[id]``)."""
    run = detail.focused_id or ""
    return clean_path(subagent_names(detail, term, known).get(run, run))


def card_lines(detail: SessionDetail, term: Terminal, home: str = "", zone: tzinfo | None = None,
               *, full: bool = False, known: Known | None = None, short_id: ShortId | None = None) -> list[str]:
    """The header every ``show`` starts with: what the session is, where, and what it cost.
    ``home``: as ``print_detail``'s (for the commands it names); ``zone``: ``--tz``, the
    zone of its times (``None``: local), named after each (``14:02 CET``) unless it is
    UTC's time too, as ``date`` prints it: the times under the card are in the same zone.
    ``full``: the card heads ``show --full`` (where a focused subagent's part is found);
    ``known``: every id a run's shown id must begin none of (``show_subagents.subagent_names``);
    ``short_id``: ``list``'s short id of a session, for a command to copy too wide with the
    whole one (``copyhint``; ``None``: whole)."""
    row = detail.row
    # Every field here comes from the provider's files (an id and a path from file and
    # directory names): an escape sequence planted in one is shown as U+FFFD, not obeyed.
    shown_id = clean_path(row.id)
    # Named as a command to copy is (``copyhint``): whole where it fits, else by ``list``'s short id.
    named = shown_id if not term.tty or short_id is None or width_of(shown_id) <= term.width else short_id(shown_id)
    lines = [term.style(named, "yellow")]
    focus = detail.extra.get("focus")
    if focus:
        subagent = clean_path(focus["subagent"])
        # "a881341 is subagent a881341" said nothing: the query is named only when it is another spelling.
        named = "" if focus["query"] == focus["subagent"] else f"{clean_path(focus['query'])} is "
        lines.extend(_field("focus", f"{named}subagent {subagent} of this session:"
                            f" its part is listed under subagents{_focus_where(detail, term, full, known)}", term))
    for label, value in (
        ("title", title_text(row.title)),
        ("cwd", clean_path(home_short(row.cwd) if term.tty else row.cwd)),
        *((("moved", moved_text(detail, term.tty)),) if detail.extra.get("moved_from") else ()),  # (``relocated``)
        # A multi-root workspace's every folder (the cwd is its first): ``--cwd`` finds it by each.
        *((("folders", ", ".join(clean_path(home_short(f) if term.tty else f) for f in row.workspace_folders)),)
          if row.workspace_folders else ()),
        ("model", clean(row.model)),
        ("branch", clean(row.git_branch)),
        ("started", shown_time(row.started_at, zone).named),
        ("updated", shown_time(row.updated_at, zone).named),
        ("path", clean_path(home_short(row.path) if term.tty else row.path)),
        # (a line only for an archived session, or one not known to be or not: the others' cards stay as they were)
        *((("archived", "yes" if row.archived else "not known (could not be read)"),) if row.archived is not False else ()),
        ("tokens", READ_IN_PART if row.tokens is None and row.usage_cut is not None else
         tokens_line(row.tokens, grouped=term.tty, by_subagents=subagent_tokens(detail),
                     unread=(row.counts_partial and not detail.records_no_usage)
                     or bool(detail.extra.get("tokens_unknown")))),
        ("cost", None if row.tokens is None else human_usd(row.cost, row.cost_priced, grouped=term.tty)
         + tiers_text(detail)),
    ):
        lines.extend(_field(label, value if value else "-", term))
    reported = reported_line(detail, term)  # (Claude Code's own count, when it is not agentscan's)
    if reported is not None:
        lines.append(reported)
    if row.tokens is None and detail.extra.get("context_tokens") is not None:
        context = detail.extra["context_tokens"]
        # Wrapped as the ``tokens`` line is: 79 columns of it overflowed a 60-column terminal.
        lines.extend(_field("context", f"{_grouped(context) if term.tty else context} tokens in the context window"
                            " (the provider recorded no usage)", term))
    if row.recorded_nothing and not detail.subagents:
        # ``list`` leaves such a session out; named here, it is said why it is all dashes.
        lines.extend(_field("note", "nothing recorded: the transcript holds no conversation (empty, unreadable "
                            "lines, or only snapshots and other sessions' summaries)",
                            term))
    if detail.extra.get("commands_unmarked"):
        # (Gemini: the slash commands only logs.json holds, left unmarked; the chat itself was read)
        lines.extend(_field("note", f"slash commands not marked: {detail.extra['commands_unmarked']}", term))
    if detail.extra.get("exchange_unknown"):  # (Cursor: the counts kept, the prompts in a DB not read)
        lines.extend(_field("note", "prompts and responses not known (could not be read)", term))
    if detail.extra.get("parent_missing"):
        lines.extend(_field("parent", "transcript missing: title, counts and conversation come from its subagents", term))
    source = source_text(detail)
    if source:
        lines.extend(_field("source", source, term))  # (how Codex was run: ``codex exec``, …)
    # (a pipe's numbers plain, a terminal's grouped: the card's lines alike)
    said_as: Callable[[int, str], str] = plural if term.tty else _plain_plural
    forked = detail.extra.get("forked_from")
    if forked and detail.extra.get("forked_counted_there") is False:
        lines.extend(_field("forked", forked_gone_text(detail, said_as), term))  # (no command that fails)
    elif forked:
        # (a Codex fork: its conversation and counts are its own part, the copy of its parent's left out)
        parent = clean_path(forked)
        said = f"  {'forked':<8} from {parent} after its {said_as(detail.extra.get('forked_after_prompts', 0), 'prompt')}"
        # Too wide, the command goes on its own line, whole (to be copied), as the hooks line's does.
        run = f"{program_word()}{home} show"
        lines.extend(card_command(said, ": ", "", lambda shown: f"{run} {shown}", parent, term, short_id))
    for side in ("from", "as"):  # (a Claude session's resumes, each way)
        resumes = resumed_text(detail, side)
        if resumes:
            lines.extend(_field("resumed", resumes, term))
    forks = forked_as_text(detail, grouped=term.tty)
    if forks:
        lines.extend(_field("forked", forks, term))  # (the other way: Codex sessions forked from this one)
    if detail.extra.get("hook_events"):
        from agentscan.invocation import trace_words

        trace = trace_words(demo=home == " --demo")
        counted = f"  {'hooks':<8} {said_as(detail.extra['hook_events'], 'captured hook event')}"
        # Too wide, the command goes on its own line, whole (to be copied), as the --full hint's does.
        lines.extend(card_command(counted, " (", ")", lambda shown: f"{trace} {shown}", shown_id, term, short_id))
    for label, value in taken_back_fields(detail, said_as, grouped=term.tty):
        lines.extend(_field(label, value, term))
    counts = row.counts
    # A resumed session's copies of a gone one's records listed: the counts are its own, the
    # copies said apart (their subagents' calls and compaction were counted as its own).
    copied = copied_listed(detail)
    # With the parent transcript gone the counts already are the subagents' (the row's): not added twice.
    by_subagents = 0 if detail.extra.get("parent_missing") else subagent_call_count(detail) - copied["subagent_tool_calls"]
    # Plain integers in a pipe, as the tokens line beside them (``1234 prompts``, not ``1,234``).
    n: Callable[[int], str] = _grouped if term.tty else str
    extra = f" (+{n(by_subagents)} by subagents)" if by_subagents else ""
    # The times the user stopped the agent, all of them (``interrupted_count``): no prompt, so said apart.
    interrupted = interrupted_count(detail)
    stopped = f", {n(interrupted)} interrupted" if interrupted else ""
    # The context's compactions (``/compact``, automatic ones), marked among the prompts below.
    compacted = compacted_count(detail) - copied["compactions"]
    compactions = f", {said_as(compacted, 'compaction')}" if compacted > 0 else ""
    if row.counts_partial and not (counts.prompts or counts.responses or counts.tool_calls or by_subagents):
        lines.extend(_field("counts", UNREAD, term))  # (0 prompts would be a count nobody made)
    else:
        lines.extend(_field("counts", f"{said_as(counts.prompts, 'prompt')}, {said_as(counts.responses, 'response')},"
                                      f" {said_as(counts.tool_calls, 'tool call')}{extra}{stopped}{compactions}"
                                      f"{copies_text(copied, said_as, n)}", term))
    if detail.subagents:
        lines.append("")
        lines.extend(subagent_lines(detail, term, subagent_names(detail, term, known)))
    if detail.plan:
        lines.append("")
        lines.append("plan")
        for step in detail.plan:
            lines.append(f"  [{clean(step.status)}] {_fit(step.step, term.width - 14, term, PIPE_PROMPT)}")
    return lines


def _error_lines(detail: SessionDetail, term: Terminal, zone: tzinfo | None = None) -> list[str]:
    """``errors (newest 3 of 20)``: one line each, with its time when recorded."""
    errors = recorded_errors(detail)
    if not errors:
        return []
    shown = errors[-ERRORS_SHOWN:]
    # (plain in a pipe, grouped on a terminal, as the card's counts: docs/cli.md)
    which = (f"newest {len(shown)} of {_grouped(len(errors)) if term.tty else len(errors)}" if len(shown) < len(errors)
             else f"{len(errors)}")
    lines = ["", f"errors ({which})"]
    for error in shown:
        head = f"  {render.time_column(error.timestamp, zone)}  "
        lines.append(head + _fit(error_words(error.text, zone), term.width - width_of(head), term, PIPE_ERROR))
    return lines


def print_detail(detail: SessionDetail, term: Terminal, *, home: str = "", zone: tzinfo | None = None,
                 known: Known | None = None, short_id: ShortId | None = None) -> None:
    """``home``: the global options that chose this home (`` --home DIR``, `` --demo``), for
    the hint's command to open the same session; ``zone``, ``known``, ``short_id``: as
    ``card_lines``'s."""
    lines = card_lines(detail, term, home, zone, known=known, short_id=short_id)
    # A subagent in focus: what it was asked and its last reply, never the parent's.
    talk = focused_talk(detail)
    whose = "" if talk is None or talk.from_session else f" of {_focus_name(detail, term, known)}"
    prompts, responses = (detail.prompts, detail.responses) if talk is None else (talk.prompts, talk.responses)
    if prompts:
        shown = prompts[-PROMPTS_SHOWN:]
        # Of every prompt read, the older ones the bounds dropped included: "of 696" read as a
        # total.  (A run's dropped ones are counted with every other run's: not added.)
        seen = len(prompts) + (0 if whose else detail.truncated.get("prompts", 0))
        which = f"newest {len(shown)} of {_grouped(seen) if term.tty else seen}" if len(shown) < seen else f"{len(shown)}"
        lines += ["", f"prompts{whose} ({which})"]
        # The session's compactions among its prompts; not among a focused subagent's.
        lines += _prompt_lines(shown, [] if whose else recorded_compactions(detail), len(shown) == seen, term, zone)
    shown_tools: list[ToolEvent] | tuple[ToolEvent, ...] = ()
    if detail.tools:
        names = subagent_names(detail, term, known)
        # A subagent in focus, when not every call fits: its newest calls, not the session's,
        # which may all be the parent's (every call shown, its own are there, marked).
        focused = focused_tools(detail) if len(detail.tools) > TOOLS_SHOWN else None
        shown_tools = (focused or detail.tools)[-TOOLS_SHOWN:]
        run = (detail.focused_id or "") if focused is not None else ""
        heading = tools_heading(detail, len(shown_tools),
                                None if focused is None else FocusedCalls(clean_path(names.get(run, run)), len(focused)),
                                grouped=term.tty)
        lines += ["", *heading_lines(f"tool calls ({heading})", term)]
        lines += tool_call_lines(shown_tools, names, term)
    lines += _error_lines(detail, term, zone)
    if responses:
        # One older than the newest prompt (interrupted, or still at work): not its answer.
        before = bool(prompts) and stood_before(responses[-1].timestamp, responses[-1].seq, prompts[-1])
        lines += ["", f"last response{whose}{' (before the newest prompt)' if before else ''}",
                  "  " + _fit(responses[-1].text, term.width - 2, term, PIPE_RESPONSE)]
    lines += _truncated_lines(detail, term)
    write_out("\n".join(lines) + "\n")
    # (A run in focus leaves the parent's prompts and replies out: the whole conversation has them.)
    left_out = len(prompts) > PROMPTS_SHOWN or len(shown_tools) < len(detail.tools) or bool(
        whose and (detail.prompts or detail.responses))
    if term.tty and left_out:
        from agentscan.cli.copyhint import fitted
        from agentscan.cli.render import note

        run = f"{program_word()}{home} show"

        def command(shown: str) -> str:
            return f"{run} {shown} --full"

        # The command on a line of its own, never wrapped inside: it is there to be copied.
        said = fitted([lambda shown: [f"the whole conversation: {command(shown)}"],
                       lambda shown: ["the whole conversation:", f"  {command(shown)}"]],
                      clean_path(detail.row.id), short_id, term.width)
        for line in said:
            note(line, tty_only=True, wrap=False)


def _truncated_lines(detail: SessionDetail, term: Terminal) -> list[str]:
    note = truncation_note(detail.truncated, grouped=term.tty)
    return ["", note] if note else []
