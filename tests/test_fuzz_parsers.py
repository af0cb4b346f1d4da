"""Property: no input makes a provider raise; every problem becomes a ScanWarning.

Hypothesis feeds arbitrary bytes, arbitrary JSON lines and mutated valid
records to every provider's file parser (through the public ``Scanner``, so
discovery, ``list``, ``show`` and ``tokens`` all run), arbitrary values to
the database parsers (Codex's thread index, Cursor's ``state.vscdb``), and
checks that whatever comes out can still be written as JSON, redacted or not.
Settings: ``conftest_hypothesis.FUZZ`` (``HYPOTHESIS_PROFILE=long`` to soak).
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.scan.scanner import Scanner
from agentscan.model import ScanWarning
from agentscan.export.redact import redact_detail, redact_row
from agentscan.scan.tokens import token_report
from bad_corpus import PROVIDERS, all_cases, case, no_internal_errors, target
from builders import REAL
from conftest_hypothesis import FUZZ
from cursor_builders import STATE_DDL, HEADERS_DDL, state_db_path

# Many generated cases each: run by .ci/run (`-m slow`), not by the default test command.
pytestmark = pytest.mark.slow

KEYS = (
    "type", "message", "content", "usage", "id", "role", "model", "text", "input", "name", "requestId",
    "sessionId", "uuid", "parentUuid", "timestamp", "cwd", "gitBranch", "isSidechain", "isMeta",
    "toolUseResult", "agentId", "customTitle", "aiTitle", "input_tokens", "output_tokens",
    "cache_read_input_tokens", "cache_creation_input_tokens", "speed", "payload", "info", "total_token_usage",
    "last_token_usage", "cached_input_tokens", "reasoning_output_tokens", "total_tokens", "rate_limits",
    "source", "subagent", "thread_spawn", "parent_thread_id", "forked_from_id", "started_at", "arguments",
    "call_id", "output", "action", "command", "plan", "step", "status", "tokens", "cached", "thoughts",
    "tool", "toolCalls", "args", "displayContent", "$set", "$rewindTo", "messages", "projectHash",
    "startTime", "lastUpdated", "kind", "working_directory", "path", "paths", "file_path", "subagent_type",
    "prompt", "todos", "metadata", "exit_code", "error", "tool_use_id", "is_error", "todos", "content",
    "inputTokens", "outputTokens", "tokenCount", "bubbleId", "toolFormerData", "params", "rawArgs",
)
WORDS = (
    "user", "assistant", "event_msg", "response_item", "token_count", "session_meta", "turn_context",
    "gemini", "tool_use", "tool_result", "text", "function_call", "custom_tool_call", "local_shell_call",
    "web_search_call", "function_call_output", "custom_tool_call_output", "message", "task_started",
    "user_message", "agent_message", "turn_ended", "error", "Task", "Agent", "TodoWrite", "update_plan",
    "apply_patch", "shell", "completed", "success", "cancelled", "input_text", "output_text", "main",
    "2026-01-02T10:00:00.000Z", "2026-01-02T10:00:00Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59Z",
    "<user_query>\nhello\n</user_query>", "<timestamp>Friday, Jul 31, 2026, 11:12 PM (UTC+8)</timestamp>",
    "<environment_context>", "/init", "~", "/home/me/project", "C:\\work", "", " ", "default",
)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what orjson can read
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, 10**12, 10**12 + 1, 2**63 - 1, 1e308, -1, 0.5])
    | st.text(max_size=24)
    | st.sampled_from(WORDS)
)



def _deep(levels: int, container: type) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value} if container is dict else [value]
    return value


# Values that broke (or could break) a parser: every type where another is expected,
# numbers past what JSON writers, SQLite and datetime take, times that overflow, and
# nesting that orjson reads (its limit is 1,024 levels) but cannot write (254).
HOSTILE = st.sampled_from([
    None, True, False, -1, 0, -0.5, 1.5, 1e308, -1e308, 2**63, 2**64 - 1, -(2**63), 10**12 + 1,
    "", " ", "²", "9" * 40, "1e3", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "not a time", "\x00", "<user_query>", "\ud800 lone",
    [], [1], ["x", None], {}, {"a": 1}, {"type": "text"}, _deep(300, dict), _deep(300, list),
])
JSON = st.recursive(
    SCALARS | HOSTILE,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=6),
    max_leaves=24,
)

RECORDS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8)


def _shape(record: dict) -> tuple:
    """What kind of record this is, so that every kind is drawn as often as any other."""
    inner = record.get("payload") if isinstance(record.get("payload"), dict) else record.get("message")
    inner = inner if isinstance(inner, dict) else {}
    return (record.get("type"), record.get("role"), inner.get("type"), inner.get("role"), "usage" in inner,
            "tokens" in record, "toolCalls" in record, "$set" in record)


def _records(lines: list[bytes]) -> list[dict]:
    records = []
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and len(line) < 8192:
            records.append(record)
    return records


def _seeds(provider: str) -> list[Any]:
    """Two records of each kind in the provider's real samples, and every record of its
    bad-input corpus (the wrong-types lines hold each value that ever broke a parser)."""
    kinds: dict[tuple, list[Any]] = {}
    for path in sorted((REAL / provider).rglob("*.jsonl")):
        for record in _records(path.read_bytes().splitlines()):
            group = kinds.setdefault(_shape(record), [])
            if len(group) < 2:
                group.append(record)
    return [record for group in kinds.values() for record in group] + _records(CORPUS[provider])


CORPUS = {  # every line of each provider's bad-input corpus, parseable or not
    provider: [line for item in all_cases([provider]) if item.source.suffix == ".jsonl"
               for line in item.source.read_bytes().splitlines()]
    for provider in PROVIDERS
}
SEEDS = {provider: _seeds(provider) for provider in PROVIDERS}


@st.composite
def _mutate_once(draw: st.DrawFn, seed: Any) -> Any:
    """``seed`` with one subtree (or a leaf, or the whole) replaced: mostly by a hostile value."""
    if not isinstance(seed, (dict, list)) or not seed or draw(st.integers(0, 3)) == 0:
        return draw(HOSTILE | JSON)
    if isinstance(seed, dict):
        key = draw(st.sampled_from(sorted(seed)))
        return {**seed, key: draw(_mutate_once(seed[key]))}
    index = draw(st.integers(0, len(seed) - 1))
    return [*seed[:index], draw(_mutate_once(seed[index])), *seed[index + 1:]]


@st.composite
def _mutate_leaves(draw: st.DrawFn, value: Any, rate: int) -> Any:
    """Every value of ``value``, each swapped for a hostile one with probability 1/``rate``."""
    if draw(st.integers(0, rate - 1)) == 0:
        return draw(HOSTILE)
    if isinstance(value, dict):
        return {key: draw(_mutate_leaves(child, rate)) for key, child in value.items()}
    if isinstance(value, list):
        return [draw(_mutate_leaves(child, rate)) for child in value]
    return value


@st.composite
def mutated(draw: st.DrawFn, seed: Any) -> Any:
    """``seed`` with many of its values swapped for hostile ones, or with subtrees replaced."""
    if draw(st.booleans()):
        return draw(_mutate_leaves(seed, draw(st.sampled_from([3, 6, 12]))))
    for _ in range(draw(st.integers(1, 3))):
        seed = draw(_mutate_once(seed))
    return seed


def records(provider: str) -> st.SearchStrategy[Any]:
    """A record for ``provider``: mostly a mutated valid one, else arbitrary JSON of its vocabulary."""
    seeded = st.sampled_from(SEEDS[provider]).flatmap(mutated)
    return st.one_of(seeded, seeded, seeded, RECORDS, JSON)


def _dumps(value: Any) -> bytes:
    # json, not orjson: orjson refuses to write what it can read 300 levels deep.
    return json.dumps(value, separators=(",", ":")).encode()


def lines(provider: str) -> st.SearchStrategy[bytes]:
    """One line of a provider file: a good one, a damaged one, or garbage."""
    good = st.sampled_from([_dumps(seed) for seed in SEEDS[provider]] + CORPUS[provider])
    record = records(provider).map(_dumps)
    damaged = st.tuples(record, st.integers(0, 64)).map(lambda pair: pair[0][: max(0, len(pair[0]) - pair[1])])
    return st.one_of(good, record, damaged, st.binary(max_size=64), st.sampled_from([b"", b"\xef\xbb\xbf{}", b"\x00" * 8, b"[" * 2000]))


def _spliced(parts: tuple[bytes, int, list[bytes]]) -> bytes:
    data, at, extra = parts
    rows = data.split(b"\n")
    at = at % (len(rows) + 1)
    return b"\n".join(rows[:at] + extra + rows[at:])


def files(provider: str) -> st.SearchStrategy[bytes]:
    """A whole file: drawn lines joined by newlines (CRLF sometimes); a corpus file with drawn
    lines spliced in (so every known hostile shape is met, and explored around); raw bytes."""
    joined = st.tuples(st.lists(lines(provider), max_size=12), st.sampled_from([b"\n", b"\r\n"]), st.booleans()).map(
        lambda parts: parts[1].join(parts[0]) + (parts[1] if parts[2] else b"")
    )
    corpus = [item.source.read_bytes() for item in all_cases([provider]) if item.source.suffix == ".jsonl"]
    spliced = st.tuples(st.sampled_from(corpus), st.integers(0, 64), st.lists(lines(provider), max_size=3)).map(_spliced)
    return st.one_of(joined, spliced, st.binary(max_size=2048))


# -- running a scan -----------------------------------------------------------------------

def scan_everything(home: Path) -> list[ScanWarning]:
    """list, tokens and show (plain and redacted) of every session; all of it must be printable."""
    env = {"XDG_CONFIG_HOME": str(home / ".config"), "AGENTSCAN_DATA_DIR": str(home / "agentscan-data")}
    documents: list[Any] = []
    with Scanner(home=home, env=env) as scanner:
        rows = scanner.list_sessions()
        documents += [row.to_json() for row in rows] + [redact_row(row).to_json() for row in rows]
        documents.append(token_report(scanner).to_json())
        documents.append(token_report(scanner, by="day").to_json())
        for ref in scanner.refs():
            detail = scanner.show(ref.id)
            documents += [detail.to_json(), redact_detail(detail).to_json()]
        warnings = scanner.warnings
    for document in documents:
        orjson.dumps(document)  # what the CLI would print: raises on what JSON cannot hold
    assert all(isinstance(w, ScanWarning) and isinstance(w.message, str) for w in warnings)
    assert no_internal_errors(warnings), warnings  # the Scanner caught a provider raising
    return warnings


def with_file(provider: str, data: bytes, name: str = "clean") -> list[ScanWarning]:
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        path = target(home, case(provider, name))
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        return scan_everything(home)


# -- session files --------------------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
@FUZZ
@given(data=st.data())
def test_any_file_content_is_never_fatal(provider: str, data: st.DataObject) -> None:
    with_file(provider, data.draw(files(provider), label="file"))


LEGACY_CORPUS = [item.source.read_bytes() for item in all_cases(["gemini"]) if item.source.suffix == ".json"]


@FUZZ
@given(messages=st.lists(records("gemini"), max_size=8), meta=RECORDS, cut=st.just(0) | st.integers(0, 400), pretty=st.booleans(),
       corpus=st.none() | st.sampled_from(LEGACY_CORPUS))
def test_any_legacy_gemini_document_is_never_fatal(messages: list[Any], meta: dict, cut: int, pretty: bool, corpus: bytes | None) -> None:
    """Whole-file chats: arbitrary messages or a corpus document, then maybe cut mid-write (the salvage path)."""
    legacy = case("gemini", "legacy-bom")
    document = {**meta, "sessionId": legacy.native_id, "messages": messages}
    data = corpus if corpus is not None else json.dumps(document, indent=2 if pretty else None).encode()
    with_file("gemini", data[: max(1, len(data) - cut)], legacy.name)


MARKER = "QUOTED-MARKER"


@pytest.mark.parametrize("provider", PROVIDERS)
@FUZZ
@given(data=st.data())
def test_warnings_never_quote_the_input(provider: str, data: st.DataObject) -> None:
    """The marker sits inside every line (in a string, or breaking the JSON): no warning repeats it."""
    raw = data.draw(st.lists(lines(provider), min_size=1, max_size=8), label="lines")
    marked = []
    for line in raw:
        at = data.draw(st.integers(0, len(line)), label="at")
        marked.append(line[:at] + MARKER.encode() + line[at:])
    warnings = with_file(provider, b"\n".join(marked) + b"\n")
    named = _marked_models(marked)
    assert not [w.message for w in warnings
                if MARKER in w.message and not _names_a_model(w.message, named) and not _quotes_a_bad_value(w.message)]


def _marked_models(lines: list[bytes]) -> set[str]:
    """The model names the marked lines carry with the marker inside (``"model"`` values)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "model" and isinstance(item, str) and MARKER in item:
                    found.add(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in lines:
        try:
            walk(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    return found


def _quotes_a_bad_value(message: str) -> bool:
    """A usage value that is no token count, or a time out of range, is quoted by its warning
    (docs/security.md: ``output_tokens is -5``, ``'0001-01-01T00:00:00Z'``), cut at 40
    characters (``valuewarnings.shown``): a malformed number or time, no text of the
    conversation.  Nothing else of the input is."""
    from agentscan.toolkit.valuewarnings import TIME_HEAD, USAGE_HEAD

    found = re.match(rf"(?:{re.escape(USAGE_HEAD)}: \S+ is (.*), counted as \d+|{re.escape(TIME_HEAD)}: (.*?))"
                     r"(?: \(the first of [\d,]+ such values in this \w+\))?$", message)
    quoted = found is not None and (found.group(1) or found.group(2)) or ""
    return 0 < len(quoted) <= 40 and MARKER not in message.replace(quoted, "", 1)


def _names_a_model(message: str, models: set[str]) -> bool:
    """A "no price" warning names the model it could not price (what the user must look up,
    and the one field of the input a warning quotes): a marker inside a model name is
    quoted there, and nowhere else."""
    prefix = re.compile(r"no price: genai-prices \S+ \(bundled data\) has no model matching ")
    start = prefix.match(message)
    return start is not None and any(message[start.end():].startswith(repr(model)) for model in models)


# -- databases ----------------------------------------------------------------------------

SQL_VALUES = st.none() | st.integers(-(2**63), 2**63 - 1) | st.floats() | st.text(max_size=40) | st.binary(max_size=40) \
    | st.sampled_from(["cli", "vscode", '{"subagent": {"thread_spawn": {"parent_thread_id": "p"}}}', "/nowhere/r.jsonl"])
INDEX_COLUMNS = ("id", "rollout_path", "title", "first_user_message", "cwd", "model", "tokens_used", "created_at",
                 "updated_at", "created_at_ms", "updated_at_ms", "archived", "git_branch", "source", "agent_role")


@FUZZ
@given(rows=st.lists(st.fixed_dictionaries({}, optional={c: SQL_VALUES for c in INDEX_COLUMNS}), max_size=6),
       real_id=st.booleans(), edges=st.lists(st.tuples(SQL_VALUES, SQL_VALUES), max_size=3))
def test_any_codex_thread_index_is_never_fatal(rows: list[dict], real_id: bool, edges: list[tuple]) -> None:
    """SQLite takes any value in any untyped column; Codex's index is read as it comes."""
    clean = case("codex", "clean")
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        rollout = target(home, clean)
        rollout.parent.mkdir(parents=True)
        rollout.write_bytes(clean.source.read_bytes())
        if real_id and rows:  # one row that names the real rollout, the rest arbitrary
            rows[0].update(id=clean.native_id, rollout_path=str(rollout))
        with closing(sqlite3.connect(home / ".codex" / "state_5.sqlite")) as conn:
            conn.execute(f"CREATE TABLE threads ({', '.join(INDEX_COLUMNS)})")
            conn.execute("CREATE TABLE thread_spawn_edges (parent_thread_id, child_thread_id)")
            for row in rows:
                conn.execute(f"INSERT INTO threads ({', '.join(INDEX_COLUMNS)}) VALUES ({', '.join('?' * len(INDEX_COLUMNS))})",
                             [row.get(c) for c in INDEX_COLUMNS])
            conn.executemany("INSERT INTO thread_spawn_edges VALUES (?, ?)", edges)
            conn.commit()
        warnings = scan_everything(home)
    assert not [w for w in warnings if "thread index unreadable" in w.message]


COMPOSER = "c0000000-0000-4000-8000-000000000001"
STORED = JSON.map(_dumps) | st.binary(max_size=64) | st.text(max_size=40) | st.none() | st.integers(-(2**63), 2**63 - 1)


@FUZZ
@given(composer=st.fixed_dictionaries(
           {"composerId": st.just(COMPOSER), "fullConversationHeadersOnly": st.just([{"bubbleId": "b1"}, {"bubbleId": "b2"}])},
           optional={k: JSON for k in ("name", "createdAt", "lastUpdatedAt", "modelConfig", "workspaceIdentifier",
                                       "subComposerIds", "conversation", "todos", "contextTokensUsed", "promptTokenBreakdown")}),
       bubbles=st.lists(st.fixed_dictionaries({"type": st.sampled_from([1, 2, "1", None])},
                        optional={k: JSON for k in ("text", "createdAt", "tokenCount", "modelInfo", "toolFormerData")}), max_size=3),
       raw=st.lists(st.tuples(st.sampled_from([f"composerData:{COMPOSER}", f"bubbleId:{COMPOSER}:b1", "composerData:x\ny"]), STORED), max_size=3),
       headers=st.lists(st.tuples(SQL_VALUES, SQL_VALUES, SQL_VALUES, SQL_VALUES), max_size=3))
def test_any_cursor_state_db_is_never_fatal(composer: dict, bubbles: list[dict], raw: list[tuple], headers: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        db = state_db_path(home)
        db.parent.mkdir(parents=True)
        with closing(sqlite3.connect(db)) as conn:
            for ddl in (*STATE_DDL, HEADERS_DDL.replace("composerId TEXT PRIMARY KEY", "composerId")):
                conn.execute(ddl)
            values = [(f"composerData:{COMPOSER}", _dumps(composer))]
            values += [(f"bubbleId:{COMPOSER}:b{i + 1}", _dumps(b)) for i, b in enumerate(bubbles)]
            conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", values + raw)
            conn.executemany("INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent) VALUES (?, ?, ?, ?)",
                             headers)
            conn.commit()
        scan_everything(home)
