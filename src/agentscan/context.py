"""What one scan runs against: the home, the environment, and the warnings sink
(``warningsink``; and the file system as the scan sees it: ``fsview``).

Providers never read ``os.environ`` or ``Path.home()`` themselves; they get a
``ScanContext``.  That is what lets tests (and ``--home``/``--demo``) point a
whole scan at a fake home without patching anything.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterator, Mapping, Sequence, TypeVar

# Imported here, before any session is read: the class that says an upgrade happened mid-run
# must not itself be loaded from the new version's files.
from agentscan.errors import CodeChanged, own_import_failed
from agentscan.fsview import FileSystemView, legible
from agentscan.progress import Progress
from agentscan.sealing import seal, unseal_json
from agentscan.timeutil import from_epoch
from agentscan.toldwarnings import Telling, Told
from agentscan.warningsink import COUNTED, DROPPED, WarningSink
from agentscan.warningwords import SKIPPED_SESSION

# The model (its dataclasses) and orjson (which imports ``dataclasses``, ``inspect``,
# ``uuid``, …) are imported where they are used: a remembered answer (``scan.answers``)
# is printed without either, in a quarter less time.
if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.providers.base import Provider


#: warnings held back for one file (``HeldWarnings``): far more than are listed, so a
#: file's "N more" stays what one pass says, bounded for a file of millions of bad lines
HELD_PER_FILE = 1000

#: how SQLite says another program holds a database locked past the busy timeout (a lock
#: passes: ``Provider.locked_usage``)
DB_LOCKED = "database is locked"
#: how a directory discovery could not look into is said (``show ID`` names them when nothing matched)
CANNOT_LIST = "cannot list directory: "
#: how a file that could not be opened or read is said (``scan.unreadrows`` finds its session by it)
CANNOT_READ = "cannot read: "
#: how every reader says a file of no bytes (or only whitespace): what an agent leaves after an
#: aborted start, which the CLI counts in one line (``cli.render.warn_summary``)
EMPTY_FILE = "empty file"


_Sink = TypeVar("_Sink", bound=WarningSink)


class HeldWarnings(WarningSink):
    """A sink that also lists what it was told, in order (``ScanContext.held_warnings``), each
    file's count past those held in its place (``toldwarnings``)."""

    def __init__(self) -> None:
        super().__init__()
        #: what was told; per file past the 1,000 held, how many this sink counted, and the last
        #: line, in place (a file's lines past them went unsaid, its "N more" short, where a
        #: hold's said alone were said: ``otlp.parallel``, Codex's and Gemini's holds)
        self._said = Telling()
        self._held: dict[str, int] = {}

    @property
    def said(self) -> tuple[Told, ...]:
        """What was told, as it stands now (a copy: one taken while the hold is open does not
        grow with it), each file's count settled into its place."""
        return self._said.frozen()

    @property
    def told_count(self) -> int:
        """How many entries ``said`` has, without settling (or copying) them: asked for each bad
        line (``claude.halfpass``), settling each time cost more than the growth in place saved."""
        return len(self._said)

    def add(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> bool:
        key_path = legible(str(path))
        held = self._held.get(key_path, 0)
        # (A warning of no line is told whatever the count, as ``saidorder``'s hold tells it: past
        # the listed ones the sink counts it by its words, with no line to count it at.)
        if held < HELD_PER_FILE or passing or line is None:
            self._said.tell((key_path, legible(message), line, passing))
            took = self.add_legible(key_path, message, line, passing)
            # Only one the sink took (listed, or counted) is one of the file's held: a repeat it
            # dropped is not (as ``saidorder``'s hold).  Counted too, a file's line said again
            # 1,000 times put its next new one past them, where the sink listed it, so it was
            # neither told nor counted: lost when the hold was said again.
            if took != DROPPED:
                self._held[key_path] = held + 1
            return took == COUNTED
        # Past it, said again only as the sink's count.
        if self.add_legible(key_path, message, line, False) != COUNTED:
            return False
        self._said.count_past(key_path, 1, line)
        return True

    def count_more(self, key_path: str, count: int, last: int) -> int:
        counted = super().count_more(key_path, count, last)
        if counted:  # (a count said again inside: held in its place too)
            self._said.count_past(key_path, counted, last)
        return counted


def say(ctx: ScanContext, warnings: Sequence[Told]) -> None:
    """Say, in order, warnings held back (``held_warnings``), here or in another process,
    each file's count past those held in its place."""
    ctx.warnings.say_again(warnings)


class FileFacts:
    """Small JSON facts about files (a header's fields), keyed by path and valid
    while the file's stamp (size, mtime, inode, ctime) is unchanged.

    ``backend`` is the persistent index (``get_facts``/``put_facts``) or
    ``None``; anything undecodable in it is simply not known.
    """

    def __init__(self, kind: str, backend: Any) -> None:
        self.kind = kind
        self._backend = backend
        self._known: dict[str, tuple[str, bytes]] | None = None
        self._new: dict[str, tuple[str, bytes]] = {}

    def get(self, path: str, stat: os.stat_result) -> Any:
        if self._known is None:
            self._known = self._backend.get_facts(self.kind) if self._backend is not None else {}
        found = self._new.get(path) or self._known.get(path)
        if found is None or found[0] != stat_stamp(stat):
            return None
        return unseal_json(found[1])

    def last(self, path: str) -> Any:
        """What was last remembered of ``path``, whatever its stamp then: for a fact that still
        holds once the file has changed in a way its reader checks (a transcript that only
        grew: ``claude.copyholders.remembered_head``).  ``None``: nothing."""
        if self._known is None:
            self._known = self._backend.get_facts(self.kind) if self._backend is not None else {}
        found = self._new.get(path) or self._known.get(path)
        return None if found is None else unseal_json(found[1])

    def put(self, path: str, stat: os.stat_result, value: Any) -> None:
        import orjson

        try:
            self._new[path] = (stat_stamp(stat), seal(orjson.dumps(value)))
        except (TypeError, orjson.JSONEncodeError):
            pass  # not remembered: only costs a read next time

    def flush(self) -> None:
        if self._new and self._backend is not None:
            self._backend.put_facts(self.kind, [(path, stamp, value) for path, (stamp, value) in self._new.items()])
        if self._known is not None:
            self._known.update(self._new)
        self._new = {}


def stat_stamp(stat: os.stat_result) -> str:
    """A file's identity as what is remembered of it is kept by (``Remembered``; Claude's
    resume states, ``claude.incremental``): size, mtime, inode and ctime, kept in the index,
    so its form never changes."""
    return f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}:{stat.st_ctime_ns}"


#: ``memo``: set while ``tokens``' parse (``scan.usageparse``) runs, here or in a worker: what a
#: provider remembers of a file (``remembered``) is then read, never added, since a worker's
#: would not be kept (``claude.incremental._chain``)
PARSE_ADDS_NO_FACTS = "parse_adds_no_facts"

#: ``memo``: the token sums this scan read, by session (``readsums``): a worker's context
#: has them too, for the rows it reads (``for_worker``)
SUMS_READ = "sums_read"


def home_variables() -> tuple[str, str]:
    """The variables that name the home, in the order the agents read them: on Windows
    ``USERPROFILE`` first (Node's ``os.homedir``, Rust's home dir and Python's ``expanduser``
    do; a ``HOME`` there is often another program's, MSYS2's ``C:\\msys64\\home\\me``),
    elsewhere ``HOME``."""
    return ("USERPROFILE", "HOME") if sys.platform == "win32" else ("HOME", "USERPROFILE")


def account_home() -> tuple[Path, str]:
    """The home when no variable names one (``HOME`` unset, or empty: ``HOME= cmd``), and what
    chose it: on POSIX the account's own in the user database (``passwd``), as Rust's lookup
    (Codex's) takes it.  Not ``Path.home()``: with ``HOME=""`` it is ``/``, whose
    ``/.claude`` and ``/.codex`` hold none of the user's sessions."""
    if os.name != "nt":
        try:
            import pwd

            found = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError):  # no entry for this uid (a container's arbitrary user)
            found = ""
        if os.path.isabs(found):
            return Path(found), "passwd"
    return Path.home(), "default"


class ScanContext(FileSystemView):
    """The home and environment a scan reads, and where its warnings go.

    ``home_source`` says what chose the home (``--home``, ``HOME``, ``demo``)
    so that ``doctor`` can explain every root.  A plain class, not a dataclass:
    every command makes one, and a dataclass costs about a millisecond to create
    on import.
    """

    def __init__(self, home: Path, env: Mapping[str, str], home_source: str = "HOME") -> None:
        self.home = home
        self.env = env
        self.home_source = home_source
        self.warnings: WarningSink = WarningSink()
        # Per-scan memo space for providers (parsed indexes, DB handles' results).
        self.memo: dict[str, Any] = {}
        # Set by the Scanner when its persistent cache is open: providers may keep
        # per-file parse state there (``agentscan.scan.cache.Cache.get_file``).
        self.file_cache: Any = None
        # Set by the Scanner: the cwds every provider knows, for hash-named dirs.
        self.cwd_candidates: Callable[[], set[str]] = set
        # Set by the Scanner when its cache is open: a row's pass keeps the session's usage
        # row through it (``scan.rowusage.keep_row_usage``), as ``tokens`` would have.
        self.keep_row_usage: Callable[..., None] | None = None
        # Told how many sessions a long scan reads; the CLI shows it on a terminal.
        self.progress = Progress()

    @classmethod
    def create(cls, *, home: Path | str | None = None, env: Mapping[str, str] | None = None) -> ScanContext:
        env = dict(os.environ if env is None else env)
        # Absolute, as ``--home`` is made: a relative ``HOME=home`` gave every path in a row,
        # a warning and an export relative to wherever the command ran.
        if home is not None:
            return cls(home=Path(os.path.abspath(Path(home).expanduser())), env=env, home_source="--home")
        for name in home_variables():
            if env.get(name):
                return cls(home=Path(os.path.abspath(env[name])), env=env, home_source=name)
        home, source = account_home()
        return cls(home=home, env=env, home_source=source)

    def command(self, rest: str) -> str:
        """``agentscan <rest>`` reading this scan's home (`` --demo``, `` --home DIR`` quoted for
        the shell), for a message that suggests it: bare, it would read ``$HOME``'s files, not
        those of the home that said it (``cli.state.home_option``'s rule)."""
        from agentscan.invocation import command

        home = self.home if self.home_source == "--home" else None
        return command(rest, demo=self.home_source == "--demo", home=home)

    def for_worker(self) -> ScanContext:
        """A context of a worker process's own (``toolkit.workers``), made in the worker: this
        one holds open databases, which must not cross a fork.  Same home, environment and
        roots symlinks are confined to, and the token sums the scan read (``SUMS_READ``,
        only read there); nothing else of this scan."""
        ctx = ScanContext(home=self.home, env=dict(self.env), home_source=self.home_source)
        ctx.memo["_confined_roots"] = set(self.memo.get("_confined_roots", ()))
        ctx.keep_row_usage = self.keep_row_usage  # (into the worker's view of the index)
        if SUMS_READ in self.memo:
            ctx.memo[SUMS_READ] = self.memo[SUMS_READ]  # only read there
        return ctx

    def held_warnings(self) -> ContextManager[HeldWarnings]:
        """Warnings raised inside are listed (``HeldWarnings.said``), not said, nor seen by
        the captures open: the caller says them when their turn comes (``say``), or never
        (what a cache key's read finds wrong, the pass that reads the session says)."""
        return self.warnings_to(HeldWarnings())

    @contextmanager
    def warnings_to(self, sink: _Sink) -> Iterator[_Sink]:
        """Warnings raised inside go to ``sink`` (``held_warnings``, ``scan.saidorder``'s
        hold), this context's own sink restored after."""
        kept, self.warnings = self.warnings, sink
        try:
            yield sink
        finally:
            self.warnings = kept

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the scan ends (providers close DB handles here)."""
        self.memo.setdefault("_closers", []).append(callback)

    def close(self) -> None:
        for callback in self.memo.pop("_closers", []):
            try:
                callback()
            except Exception:  # closing must never turn a result into a failure
                pass

    def remembered(self, kind: str) -> FileFacts:
        """Facts of ``kind`` read from files, remembered across runs until the file changes.

        Backed by the persistent index when the scanner has one open (so a
        warm discovery reads no header whose file is unchanged), else kept
        for this scan only.
        """
        stores: dict[str, FileFacts] = self.memo.setdefault("_facts", {})
        store = stores.get(kind)
        if store is None:
            store = stores[kind] = FileFacts(kind, self.file_cache)
        return store

    def flush_facts(self) -> None:
        """Write the facts learnt this scan to the index (the scanner calls it)."""
        for store in self.memo.get("_facts", {}).values():
            store.flush()

    def env_value(self, name: str) -> str | None:
        value = self.env.get(name)
        return value if value else None

    def warn(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> None:
        """``passing``: something could not be read this time (an I/O error, a locked or
        busy database) and may be read next time: what is computed now is not kept."""
        self.warnings.add(path, message, line, passing=passing)

    def cannot_read(self, path: object, exc: BaseException) -> None:
        self.warn(path, f"{CANNOT_READ}{getattr(exc, 'strerror', None) or exc}", passing=True)

    def cannot_list(self, path: object, exc: OSError) -> None:
        self.warn(path, f"{CANNOT_LIST}{exc.strerror or exc}", passing=True)

def check_home(home: str | Path, label: str = "home") -> Path:
    """A home named explicitly (``Scanner(home=…)``; ``--home``: ``label``) as a directory that
    can be entered; else a domain error, never an empty answer (a mistyped path) or the
    current directory (``home=""``, a variable unset): ``UsageProblem`` for an empty one,
    ``NoReadableRoot`` (as any root named explicitly that cannot be read) for the others."""
    from agentscan.errors import NoReadableRoot, UsageProblem

    if not isinstance(home, (str, os.PathLike)):  # a library caller's slip, said as --home's are
        raise UsageProblem(f"{label} must be a str or a path, not {type(home).__name__}", parameter="home")
    if isinstance(home, str) and not home.strip():
        raise UsageProblem(f"{label} is empty (is a variable unset?): name a directory", parameter="home")
    try:
        path = Path(home).expanduser()
    except RuntimeError:  # ``~nosuchuser``: no such user's home
        raise NoReadableRoot(f"{label} {home}: no such user's home directory") from None
    if not os.path.exists(path):
        raise NoReadableRoot(f"{label} {path}: no such directory")
    if not os.path.isdir(path):
        raise NoReadableRoot(f"{label} {path}: not a directory")
    # Entered, not listed: the roots are found by name under it (a home of mode 0711 serves).
    if not os.access(path, os.X_OK):
        raise NoReadableRoot(f"{label} {path}: cannot be read (permission denied)")
    return path


def internal_error(ctx: ScanContext, ref: SessionRef, exc: Exception) -> None:
    """A provider bug must cost one session, never the whole command.  But agentscan's own
    code changed on disk mid-run (an upgrade in place) fails the command: ``CodeChanged``."""
    if own_import_failed(exc):
        raise CodeChanged(exc) from exc  # type: ignore[arg-type]  # (an ImportError: checked)
    ctx.warn(skipped_where(ref), f"{SKIPPED_SESSION} ({type(exc).__name__}); please report it")


def skipped_where(ref: SessionRef) -> str:
    """Where ``internal_error`` says a session was skipped, as its warning's path reads: the
    transcript, else the session's first file, else its id (``tokens`` matches it there)."""
    return legible(str(ref.path or (ref.files[0] if ref.files else ref.id)))


def guarded_row(provider: Provider, ref: SessionRef, ctx: ScanContext) -> SessionRow:
    try:
        return provider.row(ref, ctx)
    except Exception as exc:  # noqa: BLE001 - see internal_error
        internal_error(ctx, ref, exc)
        from agentscan.model import SessionRow

        return SessionRow(ref.provider, ref.native_id, str(ref.path) if ref.path else None,
                          updated_at=from_epoch(ref.recency) if ref.recency else None)
