"""A value given for one of a few words (``--by``, ``--sort``, ``--format``, ``--protocol``;
the library's ``by=``, ``sort=``, ``format=``), read one way: any case and spacing (``--by Day``, as
``--provider`` takes ``Claude``), another tool's word for one (``--by project``), and a usage
error naming the choices, a did-you-mean with it, for anything else, a library caller's
``by=5`` too (not an ``AttributeError``).  Four parsers had copies, and two (``format=``,
``protocol``) took a number for a traceback where the others said what they take.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from agentscan.errors import UsageProblem


def one_of(value: object, choices: Sequence[str], what: str, *, parameter: str | None = None,
           also: Mapping[str, str] | None = None, meant: str | None = None) -> str:
    """The one of ``choices`` (lower case) ``value`` names, or the one ``also`` takes it for;
    ``what``: the name the caller gave it by, in the error (``--by``, ``by``); ``parameter``:
    the library's name of it (``UsageProblem.parameter``); ``meant``: the choice a word not
    close to any is taken to mean, in the error's did-you-mean (``--sort price``: cost)."""
    if not isinstance(value, str):
        raise UsageProblem(f"{what} must be a str, one of {', '.join(choices)}, not {type(value).__name__}",
                           parameter=parameter)
    wanted = value.strip().casefold()
    if wanted in choices:
        return wanted
    if also and wanted in also:
        return also[wanted]
    from agentscan.toolkit.words import unknown_choice

    raise UsageProblem(unknown_choice(what, value, list(choices), meant=meant), parameter=parameter)
