"""``--strict``'s end of every command (the contract's exit codes: warnings turn into exit 1),
apart from ``state`` so that one helper raises ``StrictWarnings`` and counts it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Sequence

from agentscan.errors import StrictWarnings

if TYPE_CHECKING:
    from agentscan.cli.state import State
    from agentscan.model import ScanWarning
    from agentscan.warningsink import SinkWarning


def strict_end(state: State, warnings: Sequence[ScanWarning | SinkWarning], *, verbose: bool, first: Collection[str] = (),
               on_stderr: bool = True, counted: Sequence[ScanWarning | SinkWarning] | None = None) -> None:
    """``--strict``'s end of every command, after its result (the contract's exit codes: warnings
    turn into exit 1): ``StrictWarnings`` when any of ``warnings`` counts (``settling.strict_count``:
    not a truncated last line of a file still being written), its message counting those that do
    not too, so that it reads against the warnings said.  Under ``--quiet`` a command that says its
    warnings on stderr (``on_stderr``; ``doctor`` counts them in its report) says them all the same,
    with ``verbose`` and ``first`` as ``render.warn_summary`` takes them: they are the error's
    reason.  ``counted``: the warnings as read, when ``warnings`` were rewritten for the output
    (``doctor --redact``'s masked paths, which ``settling`` could not stat)."""
    if not state.strict or not warnings:
        return
    from agentscan.settling import strict_count

    if failing := strict_count(warnings if counted is None else counted):
        if on_stderr and state.quiet:
            from agentscan.cli.render import warn_summary

            warn_summary(warnings, verbose=verbose, even_quiet=True, first=first)
        raise strict_error(failing, warnings if counted is None else counted)


def strict_error(failing: int, warnings: Sequence[ScanWarning | SinkWarning]) -> StrictWarnings:
    """``StrictWarnings`` for ``failing`` of ``warnings`` (``settling.strict_count``), a file's
    "N more" counted as its N warnings (``warningsink.counted_past``: the count the sink listed it with)."""
    from agentscan.warningsink import counted_past

    return StrictWarnings(failing, len(warnings) - failing, counted_past(warnings))
