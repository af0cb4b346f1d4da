"""``list``, ``show`` and ``tokens`` as Typer commands: their options; the bodies are
``cli.actions`` (``cli.fastpath`` calls the same ones)."""

from __future__ import annotations

from typing import List, Optional

import typer

from agentscan.cli.options import (
    GlobalOptionsCommand,
    completing,
    recent_session_ids,
    MissingHintCommand,
    JsonOption,
    RedactOption,
    ProviderOption,
    examples,
    handle_errors,
    redact_option,
    since_option,
    state_of,
)
from agentscan.cli.usagewords import grouping_names, sort_key_names
from agentscan.invocation import program_word
# WHEN's forms, as every --since and --until says them; this module is read only when Typer
# parses list, show or tokens (the fast path does not), so their runs import nothing more.
from agentscan.whentext import UNTIL_READING, WHEN_FORMS


class ShowCommand(MissingHintCommand):
    missing = {"session_id": lambda home: f"give a session ID (`{program_word()}{home} list` shows the newest sessions' ids)"}


def register(app: typer.Typer) -> None:
    # ``short_help``: the whole line ``agentscan --help`` gives each command (click cuts a
    # first sentence longer than its terminal allows with "...": at 60 columns, 46).
    app.command("list", cls=GlobalOptionsCommand,
                short_help="The most recently updated sessions, newest first.",
                epilog=examples("agentscan list -p claude --since 3d",
                                "agentscan list --grep migration --cwd .   # in this project",
                                "agentscan list --running --json"))(list_command)
    app.command("show", cls=ShowCommand,
                short_help="One session in detail: prompts, responses, tool calls, subagents.",
                epilog=examples("agentscan --demo show 7f3c9a12           # an id's first 6+ characters do",
                                "agentscan --demo show 7f3c9a12 --full    # the whole conversation",
                                "agentscan --demo show 7f3c9a12 --redact  # safe to paste"))(show_command)
    app.command("tokens", cls=GlobalOptionsCommand,
                short_help="Token totals by session, period, model, provider, cwd or agent.",
                epilog=examples("agentscan tokens --since 7d",
                                "agentscan tokens --cwd .   # what this project cost",
                                "agentscan tokens --by day --tz utc --since 2026-11-01 --until 2026-11-30",
                                "agentscan --demo tokens --by day --breakdown  # each model per day"))(tokens_command)


@handle_errors
def list_command(
    ctx: typer.Context,
    # A list, as ``tokens --by`` is: a second ``--limit`` of another number is refused (``actions.limit_and_all``).
    limit: Optional[List[int]] = typer.Option(None, "--limit", "-n", help="How many sessions (default 25).", metavar="N"),
    show_all: bool = typer.Option(False, "--all", "-a", help="Every matching session."),
    provider: Optional[List[str]] = ProviderOption,
    since: Optional[str] = since_option(),
    until: Optional[str] = typer.Option(None, "--until", help=f"Only sessions last updated (UPDATED) before WHEN: {UNTIL_READING}.", metavar="WHEN"),
    grep: Optional[str] = typer.Option(None, "--grep", help="Case-insensitive match on title, cwd, a model its calls used (subagents too; as recorded or as shown: opus-4.6) or path.", metavar="TEXT"),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Only sessions whose working directory is PATH or below it (relative to here).", metavar="PATH"),
    running: bool = typer.Option(False, "--running", help="Only sessions a live process writes, or a running Claude Code names (Linux). Sessions that cannot be told (Gemini, Cursor transcripts, a Claude Code with no session registry) are left out and counted on stderr."),
    pid: Optional[int] = typer.Option(None, "--pid", help="Only sessions process PID writes or runs (Linux).", metavar="PID"),
    tz: Optional[str] = typer.Option(None, "--tz", help="Time zone for UPDATED and bare --since/--until dates: IANA, utc or local (default: local).", metavar="ZONE"),
    reverse: bool = typer.Option(False, "--reverse", help="The same sessions oldest first: the newest N (25) in the opposite order, as git log --reverse."),
    # Two flags, not click's ``--archived/--no-archived`` pair, which the fast path cannot take.
    archived: bool = typer.Option(False, "--archived", help="Only archived sessions (Codex threads and Cursor chats you archived, marked (archived))."),
    no_archived: bool = typer.Option(False, "--no-archived", help="Leave archived sessions out (tokens still counts them)."),
    redact: bool = redact_option("Replace titles with a length and hash; mask secrets in paths."),
    as_json: bool = JsonOption,
) -> None:
    """The most recently updated sessions, newest first."""
    from agentscan.cli.actions import run_list

    run_list(state_of(ctx), limit=limit, show_all=show_all, provider=provider, since=since, until=until, grep=grep, cwd=cwd,
             running=running, pid=pid, tz=tz, redact=redact, as_json=as_json, archived=archived, no_archived=no_archived,
             reverse=reverse)


@handle_errors
def show_command(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID", help="Full id, bare native id, a unique prefix (6+ chars), or a transcript's path.",
                                     autocompletion=recent_session_ids),
    full: bool = typer.Option(False, "--full", help="The whole bounded conversation in order, each item with its time."),
    no_pager: bool = typer.Option(False, "--no-pager", help="With --full on a terminal: print instead of using $PAGER / less."),
    tz: Optional[str] = typer.Option(None, "--tz", help="Time zone for the times shown: IANA, utc or local (default: local).", metavar="ZONE"),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """One session in detail: prompts, responses, tools, subagents and plan (bounded)."""
    from agentscan.cli.actions import run_show

    run_show(state_of(ctx), session_id=session_id, full=full, no_pager=no_pager, tz=tz, redact=redact,
             as_json=as_json)


@handle_errors
def tokens_command(
    ctx: typer.Context,
    session_ids: Optional[List[str]] = typer.Argument(None, metavar="[ID]...", help="Sessions to total (default: all).",
                                                      autocompletion=recent_session_ids),
    since: Optional[str] = typer.Option(None, "--since", help=f"Only calls made since WHEN: {WHEN_FORMS}.", metavar="WHEN"),
    until: Optional[str] = typer.Option(None, "--until", help=f"Only calls made before WHEN: {UNTIL_READING}.", metavar="WHEN"),
    provider: Optional[List[str]] = ProviderOption,
    # A list, so that a second ``--by`` is refused (``actions.one_grouping``) rather than
    # silently taking the place of the first, as click does with a repeated option.
    by: Optional[List[str]] = typer.Option(None, "--by", help="Group by session (the default), day, week, month, model, provider, cwd (or project) or agent (main, Explore, reviewer...); one of them. A run: one subagent's delegated calls.", metavar="KEY",
                                           autocompletion=completing(grouping_names)),
    # ccusage's ``--breakdown`` (and its ``-b``): a switcher's most used flag, taken as typed.
    breakdown: bool = typer.Option(False, "--breakdown", "-b", help="Each row's models too, on lines under it (in --json, each row's models), the dearest first: --by day --breakdown is each model per day. Not with --by model."),
    # A list, as ``--by`` is: a second ``--sort`` with another key is refused (``actions.one_order``).
    sort: Optional[List[str]] = typer.Option(None, "--sort", help="Order the rows by date (the default: sessions newest first, periods oldest first, the rest most tokens first), cost (most first, unknown last) or tokens (largest TOTAL first).", metavar="KEY",
                                             autocompletion=completing(sort_key_names)),
    # git log's word for it; ccusage's ``--order desc`` (``misplaced`` names it).
    reverse: bool = typer.Option(False, "--reverse", help="The rows in the opposite order: --by day --reverse is the newest day first."),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Only sessions whose working directory is PATH or below it (relative to here).", metavar="PATH"),
    tz: Optional[str] = typer.Option(None, "--tz", help="Time zone for days, weeks, months and bare dates: IANA, utc or local (default: local).", metavar="ZONE"),
    # A list, as ``list --limit`` is: a second ``--limit`` of another number is refused (``actions.limit_and_all``).
    limit: Optional[List[int]] = typer.Option(None, "--limit", "-n", help="By session: the first N sessions' rows, the others summed in one line (default on a terminal: 25; in a pipe: every one); with --json, the first N rows and \"more\".", metavar="N"),
    show_all: bool = typer.Option(False, "--all", "-a", help="By session on a terminal: every session's row."),
    as_json: bool = JsonOption,
) -> None:
    """Token totals, delegated runs included, each subagent's part shown apart."""
    from agentscan.cli.actions import run_tokens

    run_tokens(state_of(ctx), session_ids=session_ids, since=since, until=until, provider=provider, by=by, cwd=cwd,
               tz=tz, as_json=as_json, sort=sort, limit=limit, show_all=show_all, breakdown=breakdown, reverse=reverse)
