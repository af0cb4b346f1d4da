"""``agentscan doctor``: why a session is (or is not) where you expect it.

For every provider it reports each root and database, which setting chose
it, whether it exists and is readable (or why not), how many sessions were
found and the newest one, provider-specific findings (index rows without
rollouts, a locked DB, a relative ``CODEX_HOME``), and the warnings that
scanning the newest sessions raised, summarised by kind.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from agentscan.scan.scanner import Scanner
from agentscan.scan.cache import FILE_NAME, cache_dir
from agentscan.scan import cachecheck
from agentscan.scan.cachefile import cache_source, ignored_cache_dir, write_problem
from agentscan.context import legible
from agentscan.toolkit.paths import MISSING, root_check, root_readable
from agentscan.toolkit.roots import Root, entry_problem, setting_meant
from agentscan.timeutil import from_epoch, to_iso
from agentscan.settling import shown_message
from agentscan.scan.warningkinds import kind_files, kind_names, kinds, message_kind
from agentscan.toolkit.valuewarnings import PRIORITY_KIND, priority_tier

if TYPE_CHECKING:
    from agentscan.model import ScanWarning
    from agentscan.providers.base import Provider

#: rows parsed per provider to surface skipped-line warnings (cached after)
SAMPLE_ROWS = 25


@dataclass(frozen=True, slots=True)
class RootReport:
    path: str
    kind: str
    source: str
    exists: bool
    readable: bool
    problem: str | None
    note: str | None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "source": self.source, "exists": self.exists,
                "readable": self.readable, "problem": self.problem, "note": self.note}


@dataclass
class ProviderReport:
    name: str
    label: str
    roots: list[RootReport] = field(default_factory=list)
    sessions: int = 0
    newest: dict[str, Any] | None = None
    findings: list[str] = field(default_factory=list)
    #: the setting each ``findings`` of a setting a level off means (``GEMINI_CLI_HOME=/home/me``)
    settings_meant: list[str] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)
    #: for each kind of ``warnings``, the files its warnings name, in the order met: a count
    #: alone sent the reader looking for the file among hundreds
    warning_files: dict[str, list[str]] = field(default_factory=dict)
    #: the warnings counted so far by the head of their message (``_count`` names the kinds from them)
    heads: Counter[str] = field(default_factory=Counter)
    #: each head's files so far (a dict as an ordered set)
    head_files: dict[str, dict[str, None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"provider": self.name, "label": self.label, "roots": [r.to_json() for r in self.roots],
                "sessions": self.sessions, "newest": self.newest, "findings": self.findings, "warnings": self.warnings,
                "warning_files": self.warning_files, "settings_meant": self.settings_meant}


def _check(path: Path, kind: str) -> tuple[bool, bool, str | None]:
    """(exists, readable, why not) of a root of ``kind``: ``toolkit.paths.root_problem``'s rule
    and words (a ``sessions`` root must be a directory, a ``database`` one a file, an ``index``
    either), with doctor's own: a root looked for by pattern, and one that does not exist."""
    if "*" in path.name and not os.path.lexists(path):
        # A place named by what is looked for there (Codex's ``state_*.sqlite``): no file matched
        # in a folder listed ("none found": no error), or the folder is missing or cannot be
        # listed (an error for a folder named explicitly: docs/cli.md, exit codes).
        try:
            os.listdir(path.parent)
        except FileNotFoundError:
            return False, False, "folder does not exist"
        except OSError as exc:
            return False, False, f"folder cannot be listed: {exc.strerror or exc}"
        return False, False, "none found"
    exists, problem = root_check(path, kind)
    if problem == MISSING:
        # Not MISSING's words: the STATUS column states a fact of the path beside it, as
        # "folder does not exist" of a pattern's (docs/json.md), and doctor's tests and docs
        # say "does not exist" (tests/test_doctor_running.py, test_doctor_pass31.py).
        return False, False, "does not exist" + _link_target(path)
    return exists, problem is None, problem


def _link_target(path: Path) -> str:
    """`` (a symlink to <target>)`` of a root that is a link to nothing, else ``""``: the
    ``ls`` of the folder shows the name there, and "does not exist" alone sent the reader
    looking for what was missing in the wrong place."""
    try:
        return f" (a symlink to {legible(os.readlink(path))})" if os.path.islink(path) else ""
    except (OSError, ValueError):
        return ""


def _under_no_folder(root: Root, roots: list[Root]) -> tuple[bool, str | None]:
    """(shown, why not) of ``root`` when the setting's entry it lies under is no folder
    (``CODEX_HOME=/x/afile``): the entry's words, as the warning says them (``afile: a file, not
    a directory``), for nothing below it is looked into; ``(True, None)`` for any other root.  A
    root looked for by pattern there (``state_*.sqlite``) is not shown when another row under
    the entry says it (its "folder cannot be listed" and "no state_*.sqlite in" note said it
    again, in other words)."""
    held = entry_problem(root)
    if held is None or root.entry is None:
        return True, None
    if "*" in root.path.name and any(other.entry == root.entry and "*" not in other.path.name for other in roots):
        return False, held
    return True, legible(f"{root.entry.name}: {held}")  # a name need not be UTF-8


def diagnose(scanner: Scanner) -> dict[str, Any]:
    reports = []
    # Each warning counts once, for the provider that raised it first: a capture takes a
    # warning every time it is raised (a file read for discovery and again for its row),
    # and one provider's reading can raise another's (every root is resolved for each
    # census), as the warnings listed once in the document do.
    counted: set[tuple[str, int | None, str]] = set()
    # The index opened first, apart: its warnings (a relative AGENTSCAN_CACHE_DIR, `cache
    # disabled: …`) are the cache section's, not those of the provider that happened to open it.
    with scanner.ctx.warnings.capture() as cache_warnings:
        scanner.cache  # noqa: B018 - opened for its warnings
    counted.update((warning.path, warning.line, warning.message) for warning in cache_warnings)
    # The roots first, each provider's apart: the warnings of its settings (a relative
    # ``CODEX_HOME``) are its own, not those of the provider read first.
    roots_read: dict[str, list[Path]] = {}
    for provider in scanner.providers:
        report = ProviderReport(provider.name, provider.label)
        with scanner.ctx.warnings.capture() as captured:
            roots = provider.roots(scanner.ctx)
        _count(report, captured, counted)
        for root in roots:
            exists, readable, problem = _check(root.path, root.kind)
            if not exists:
                shown, held = _under_no_folder(root, roots)
                if not shown:
                    continue
                if held is not None:
                    problem, root = held, root._replace(note=None)
            if readable and root.kind == "database":
                # A file that reads is not yet a database that does (garbage, a lock, no table).
                problem = provider.database_problem(root.path, scanner.ctx)
                readable = problem is None
                if readable:
                    # Read, but not whole: STATUS says so in place of "ok" (``readable`` stays true).
                    problem = provider.database_caveat(root.path, scanner.ctx)
            elif readable and root.kind == "index" and os.path.isfile(root.path):
                # A file that opens may still not parse (Gemini's projects.json cut short): its
                # warning under an "ok" read as if nothing were wrong.
                problem = provider.index_problem(root.path, scanner.ctx)
                readable = problem is None
            # legible: a setting may name a path that is not UTF-8, which no JSON or terminal takes as is
            report.roots.append(RootReport(legible(str(root.path)), root.kind, root.source, exists, readable, problem,
                                           legible(root.note) if root.note else None))
        # A setting a level off (``GEMINI_CLI_HOME=~/.gemini``, ``CURSOR_STATE_DB=…/globalStorage``): plain ``doctor`` goes on
        # past the unread root, so it says the setting meant here, as a failing run's error does.
        unread = (root for root in roots if not root_readable(root.path, root.kind))
        meant = dict.fromkeys(filter(None, (setting_meant(root) for root in unread)))
        report.findings.extend(legible(hint.said) for hint in meant)
        report.settings_meant.extend(legible(hint.setting) for hint in meant)
        reports.append(report)
        roots_read[provider.name] = [root.path for root in roots]
    # A provider variable's list entries are said (``scan.rootcheck``) as the first discovery
    # begins, whichever provider's that is: each is counted for the provider whose variable
    # names it (``(named by CODEX_HOME)``), not under the first provider read.
    with scanner.ctx.warnings.capture() as confined:
        scanner.confine()
    for provider, report in zip(scanner.providers, reports):
        _count(report, [warning for warning in confined
                        if any(f"(named by {name})" in warning.message for name in provider.env_vars)], counted)
    if reports:
        _count(reports[0], confined, counted)  # any other (none so named today): as before, the first's
    for provider, report in zip(scanner.providers, reports):
        with scanner.ctx.warnings.capture() as captured:
            refs = scanner.refs([provider.name])
            report.sessions = len(refs)
            newest = None
            for ref in refs[:SAMPLE_ROWS]:
                row = scanner.row(ref)
                if row.recorded_nothing:
                    continue  # an empty or unreadable file (its warning is counted): not the one `list` tops with
                updated = row.updated_at or from_epoch(ref.recency)
                if updated is not None and (newest is None or updated > newest[0]):
                    newest = (updated, row)
            if newest is not None:
                report.newest = {"id": newest[1].id, "updated_at": to_iso(newest[0]), "title": newest[1].title}
            report.findings.extend(provider.diagnostics(scanner.ctx))
            _recheck_databases(provider, report, roots_read[provider.name], scanner)
        _count(report, captured, counted)
    return {"home": legible(str(scanner.ctx.home)), "home_source": scanner.ctx.home_source,
            "home_exists": scanner.ctx.home.is_dir(),
            "providers": [r.to_json() for r in reports],
            "cache": {**cache_report(scanner), "warnings": list(dict.fromkeys(w.message for w in cache_warnings))},
            "locks": locks_report(scanner.ctx.env),
            "windows_homes": _windows_homes(scanner)}


def _recheck_databases(provider: Provider, report: ProviderReport, paths: list[Path], scanner: Scanner) -> None:
    """Ask each database that opened again, once this scan has read it: a sound header with a
    malformed page opens, and fails only as its rows are read.  Its STATUS said "ok" while
    the finding and every other command said it was not used."""
    by_path = {legible(str(path)): path for path in paths}
    for index, root in enumerate(report.roots):
        if root.kind != "database" or not root.readable or root.path not in by_path:
            continue
        problem = provider.database_problem(by_path[root.path], scanner.ctx)
        if problem is not None:
            report.roots[index] = replace(root, readable=False, problem=problem)


def locks_report(env: Mapping[str, str]) -> dict[str, Any]:
    """The folder every export of an output meets at (``toolkit.lockdir``), and why it cannot
    be used (another user made ``/tmp/agentscan-<uid>`` first): checked, nothing made."""
    from agentscan.toolkit import meetlock
    from agentscan.toolkit.lockdir import LOCK_DIR_VAR, ignored_lock_dir, lock_dir_problem, named_dir

    path, problem = lock_dir_problem(env, meetlock.MEETING_BASE)
    return {"path": path, "source": LOCK_DIR_VAR if named_dir(env) is not None else "default", "problem": problem,
            "ignored": ignored_lock_dir(env)}


def _windows_homes(scanner: Scanner) -> list[dict[str, Any]]:
    """On WSL, the Windows profiles that hold an agent's folders (``scan.wslhomes``), when
    this report read the Linux home by default (``--home`` or ``--demo`` chose what to read)."""
    from agentscan.scan import wslhomes

    if scanner.ctx.home_source in ("--home", "--demo") or not wslhomes.on_wsl(scanner.ctx.env):
        return []
    return [{**found, "home": legible(str(found["home"]))} for found in wslhomes.windows_homes()]


def _count(report: ProviderReport, captured: Iterable[ScanWarning], counted: set[tuple[str, int | None, str]]) -> None:
    """Add the warnings of ``captured`` not ``counted`` yet to the report's, by kind."""
    for warning in captured:
        key = (warning.path, warning.line, warning.message)
        if key not in counted:
            counted.add(key)
            # As the warnings listed are worded: by the file's age now (``settling.shown_message``);
            # the Priority Tier's a kind of its own, as a terminal counts them (``cli.render``).
            head = (PRIORITY_KIND if priority_tier(warning.message)
                    else message_kind(shown_message(warning.path, warning.message)))
            report.heads[head] += 1
            files = report.head_files.setdefault(head, {})
            # A setting's warning names the setting's value (a relative ``CODEX_HOME``), no file.
            if warning.path and os.path.isabs(warning.path):
                files[legible(warning.path)] = None
    names = kind_names(report.heads)
    report.warnings = kinds(report.heads, names)
    report.warning_files = kind_files(report.warnings, names, report.head_files)


def cache_report(scanner: Scanner) -> dict[str, Any]:
    """Where the index is and whether it can be kept: ``problem`` says why not (a read-only
    folder or file), ``ignored`` a relative ``AGENTSCAN_CACHE_DIR`` that was not used."""
    env = scanner.ctx.env
    directory = cache_dir(env)
    path = directory / FILE_NAME
    size = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            size += Path(str(path) + suffix).stat().st_size
        except OSError:
            pass
    problem = write_problem(directory)
    # A read-only folder is said first: its index may be whole, and is not checked (with
    # --no-cache neither: the run asked for the index not to be read).
    damage = cachecheck.damage(path) if problem is None and scanner.use_cache else None
    # (With --no-cache the folder is not used, and its text says "disabled": no step for it.)
    shared = cachecheck.shared(directory) if problem is None and damage is None and scanner.use_cache else None
    step = cachecheck.damage_step(path) if damage else shared[1] if shared else None
    return {"path": str(path), "exists": os.path.exists(path), "bytes": size, "enabled": scanner.use_cache,
            "source": cache_source(env), "problem": damage or problem or (shared[0] if shared else None),
            "ignored": ignored_cache_dir(env), "next_step": step}


class LocalZone(NamedTuple):
    """The local zone as ``doctor``'s text reports it (``--json`` leaves it out: its times are
    UTC, and the zone is this process's, not the home's): its name (an IANA name when one is known,
    else the C library's abbreviations), what set it, and a ``problem`` with ``TZ``."""

    name: str
    source: str
    problem: str | None
    now: str  # its abbreviation and offset now: ``CET, UTC+01:00``


def local_zone(env: Mapping[str, str] | None = None) -> LocalZone:
    """The zone local times are printed in, and where it came from: ``TZ``, else the
    system's (``/etc/localtime``'s link, or ``/etc/timezone`` beside it)."""
    env = os.environ if env is None else env
    local = time.localtime()
    offset = timedelta(seconds=local.tm_gmtoff or 0)
    from agentscan.timeutil import offset_text

    now = offset_text(offset) if local.tm_zone in (None, "UTC") else f"{local.tm_zone}, {offset_text(offset)}"
    value = env.get("TZ")
    if value is not None and os.name != "nt":
        from agentscan.localzone import problem

        trouble = problem(env)
        if trouble is not None:
            return LocalZone("UTC", f"TZ={value}", trouble, now)
        return LocalZone(value.lstrip(":") or "UTC", "TZ", None, now)
    name = _system_zone()
    if name is not None:
        return LocalZone(name[0], name[1], None, now)
    return LocalZone("/".join(dict.fromkeys(time.tzname)), "the system's settings", None, now)


def _system_zone() -> tuple[str, str] | None:
    """The system zone's IANA name and the file that told it, when one does."""
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        target = None
    if target is not None and "zoneinfo/" in target:
        return target.split("zoneinfo/", 1)[1], "/etc/localtime"
    try:
        with open("/etc/timezone", encoding="utf-8") as handle:
            named = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return (named, "/etc/timezone") if named else None
