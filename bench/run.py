"""Benchmark runner: every figure measured side by side, in one run, as medians.

    python bench/run.py [--scale 1 --scale 10] [--runs 5] [--big-mb 1024]
                        [--ccusage PATH] [--compare SRC] [--write]

For each scale it generates the home once (``bench/generate.py``, cached
under ``bench/out/scale-<N>/``, git-ignored) and then runs *rounds*: each
round runs every figure once, in a fixed order, so a burst of load from
elsewhere on the machine slows every tool alike.  A figure's value is the
median over the rounds; the ``× ccusage`` column divides medians of the same
run.  The figures, each a separate process:

* ``ccusage session --json --offline`` (20.0.24, native binary), when found
  (``--ccusage``, ``/work/ccu``, ``node_modules/.bin``, ``$PATH``);
* a raw baseline: one Python process reading every byte of the home and
  running ``orjson.loads`` on every line;
* reference programs for the two targets no pass has met, the least
  agentscan's design (``orjson`` decoding whole records, genai-prices
  imported whole) does on every core: the lines a token count needs
  decoded, and counted with the least of the rules (``TOKENS_REFERENCE``),
  the price library loaded (``PRICES_LOAD``), and at scale 1 every line
  of the 1 GB transcript decoded (``SHOW_REFERENCE``); the table is
  followed by what they say of the targets (``_references``). They bound
  that design, not every Python tool: when ``msgspec`` is installed
  (``pip install msgspec``; agentscan does not use it), the same programs
  with a decoder of only the fields their rules read bound any tool that
  decodes its JSON in Python;
* ``agentscan`` cold and warm ``list`` and ``tokens --json`` (cold = an empty
  agentscan cache dir; the OS file cache is warm for every tool alike);
* warm ``tokens --json`` and ``list`` after one session grew by 1 MB (appended
  before the timed run, taken back and re-cached after it, untimed);
* cold ``tokens``, the text table (every session's row read for its date,
  project and title), the table warm, and the table after one session grew by
  1 MB (patched, as ``--json`` is);
* not targets, what a ccusage user types most: the ``--by day`` table after
  one session grew by 1 MB (added up anew: only ``--by session`` is
  patched), and the table of the home's last week (``--since``: never
  remembered, a window is added up from the cached sums each time);
* ``--help``;
* at scale 1, ``show`` of a 1 GB transcript, with an empty cache and warm;
* at scale 1, ``list`` of a home whose one session is a 64 MB transcript
  (the 1 GB one's first 64 MB) right after an agent appended 1 MB to it (the
  bytes that follow in the 1 GB one): a long session being worked in.

``--compare SRC`` also times another agentscan source tree (for example
``/work/main/src``) in the same rounds, for before/after ratios; the two
trees take turns going first, round after round.

The totals are checked too: agentscan's per-provider totals must equal the
generator's (``expected.json``), and ccusage's must equal them where the two
vocabularies agree.  ``--write`` writes the tables to ``docs/performance.md``
and keeps the hand-written analysis after the marker.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from generate import claude_big, generate  # noqa: E402

ANALYSIS_MARKER = "<!-- analysis: kept by bench/run.py --write -->"
GROWTH_BYTES = 1024 * 1024
#: the active session of the "+1 MB" figure of a long session
ACTIVE_MB = 64
#: agentscan trusts no file changed within 2 s of its census (``scan.memo.SETTLE_NS``)
SETTLE_SECONDS = 2.2

BASELINE = """
import os, sys, orjson
count = 0
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith(('.jsonl', '.json')):
            with open(os.path.join(root, name), 'rb') as handle:
                for line in handle:
                    try:
                        orjson.loads(line)
                    except orjson.JSONDecodeError:
                        pass
                    count += 1
print(count)
"""

#: The least a ``tokens`` of agentscan's design does on this machine's cores: read the files ccusage
#: reads too and decode only the lines a count needs (Claude's lines holding ``"usage"``,
#: Codex's ``token_count`` events, Gemini's lines holding ``"tokens"``), split by size between
#: this process and a forked child for every other core. Nothing is discovered, cached, priced or printed:
#: whatever agentscan does, the way it decodes, costs at least this. With ``rules`` (the second argument), the
#: least of the counting rules too, each simpler than the real one: Claude's calls kept once
#: per message and request (the larger copy), Codex's ``last_token_usage`` and Gemini's
#: ``tokens`` added up, the sums handed back to this process.
TOKENS_REFERENCE = """
import os, sys, orjson
home, rules, typed = sys.argv[1], 'rules' in sys.argv[2:], 'msgspec' in sys.argv[2:]
jobs = []
for folder, marker in (('.claude/projects', b'"usage"'), ('.codex/sessions', b'"token_count"'), ('.gemini/tmp', b'"tokens"')):
    for root, dirs, files in os.walk(os.path.join(home, folder)):
        for name in files:
            if name.endswith('.jsonl'):
                path = os.path.join(root, name)
                jobs.append((os.stat(path).st_size, path, marker))
jobs.sort(reverse=True)
cores = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1
parts, sizes = [[] for _ in range(cores)], [0] * cores
for job in jobs:
    least = sizes.index(min(sizes))
    parts[least].append(job)
    sizes[least] += job[0]

def claude(record, calls, sums):
    message = record.get('message')
    usage = message.get('usage') if record.get('type') == 'assistant' and type(message) is dict else None
    if type(usage) is dict:
        counts = (usage.get('input_tokens') or 0, usage.get('cache_read_input_tokens') or 0,
                  usage.get('cache_creation_input_tokens') or 0, usage.get('output_tokens') or 0)
        key = (message.get('id'), record.get('requestId'))
        if sum(counts) > sum(calls.get(key, (0,))):
            calls[key] = counts

def codex(record, calls, sums):
    payload = record.get('payload')
    info = payload.get('info') if type(payload) is dict and payload.get('type') == 'token_count' else None
    last = info.get('last_token_usage') if type(info) is dict else None
    if type(last) is dict:
        sums[0] += last.get('input_tokens') or 0
        sums[1] += last.get('cached_input_tokens') or 0
        sums[3] += last.get('output_tokens') or 0

def gemini(record, calls, sums):
    tokens = record.get('tokens')
    if type(tokens) is dict:
        sums[0] += tokens.get('input') or 0
        sums[1] += tokens.get('cached') or 0
        sums[3] += tokens.get('output') or 0

RULES = {b'"usage"': claude, b'"token_count"': codex, b'"tokens"': gemini}
LOADS = dict.fromkeys(RULES, orjson.loads)
BAD = (orjson.JSONDecodeError,)
if typed:
    # A decoder of only the fields the rules read: each line becomes a dict of those fields
    # alone (a TypedDict's; every other field skipped, not built), so the same rules apply.
    import msgspec
    from typing import Any, TypedDict

    class Usage(TypedDict, total=False):
        input_tokens: Any
        cache_read_input_tokens: Any
        cache_creation_input_tokens: Any
        output_tokens: Any
        cached_input_tokens: Any
        input: Any
        cached: Any
        output: Any

    class Message(TypedDict, total=False):
        id: Any
        usage: Usage

    class Claude(TypedDict, total=False):
        type: Any
        requestId: Any
        message: Message

    class Info(TypedDict, total=False):
        last_token_usage: Usage

    class Payload(TypedDict, total=False):
        type: Any
        info: Info

    class Codex(TypedDict, total=False):
        payload: Payload

    class Gemini(TypedDict, total=False):
        tokens: Usage

    LOADS = {marker: msgspec.json.Decoder(kind).decode
             for marker, kind in ((b'"usage"', Claude), (b'"token_count"', Codex), (b'"tokens"', Gemini))}
    BAD = (msgspec.DecodeError,)  # ValidationError is one: a field of another shape

def decode(part):
    calls, sums, count = {}, [0, 0, 0, 0], 0
    for _, path, marker in part:
        rule, loads = RULES[marker] if rules else None, LOADS[marker]
        with open(path, 'rb') as handle:
            data = handle.read()
        at = data.find(marker)
        while at >= 0:
            start, end = data.rfind(b'\\n', 0, at) + 1, data.find(b'\\n', at)
            end = len(data) if end < 0 else end
            try:
                record = loads(data[start:end])
            except BAD:
                record = None
            if rule is not None and type(record) is dict:
                rule(record, calls, sums)
            count += 1
            at = data.find(marker, end)
    for counts in calls.values():
        for index, value in enumerate(counts):
            sums[index] += value
    return [count, *sums]

pipes = []
for part in parts[1:]:
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        os.write(write_end, orjson.dumps(decode(part)))
        os._exit(0)
    os.close(write_end)
    pipes.append(read_end)
totals = decode(parts[0])
for read_end in pipes:
    with os.fdopen(read_end, 'rb') as answer:
        totals = [a + b for a, b in zip(totals, orjson.loads(answer.read()))]
    os.wait()
print(totals)
"""

#: What pricing costs a first run of agentscan: genai-prices (the price library of record)
#: imported whole and its bundled data loaded, as ``agentscan.pricing.library.snapshot`` does.
PRICES_LOAD = """
from genai_prices import data_snapshot
from genai_prices.data import providers
data_snapshot.DataSnapshot(providers=providers, from_auto_update=False)
"""

#: The least a ``show`` of agentscan's design does for a huge transcript on this machine's cores: its row
#: counts prompts, replies and tool calls, so every user and assistant record is decoded (and
#: every other one for its time). The file is cut into a slice a core, at lines, each slice
#: decoded by one process, with the records counted by type: no rule, no sums, no show facts.
SHOW_REFERENCE = """
import os, sys, orjson
path, typed = sys.argv[1], sys.argv[2:] == ['msgspec']
LOADS, BAD = orjson.loads, (orjson.JSONDecodeError,)
if typed:
    # Only the fields a row's counts and times read: each record's type, time and message,
    # the message's role, id, model, usage and its blocks' types (no text of a block is built).
    import msgspec
    from typing import Any, Optional, Union

    class Block(msgspec.Struct):
        type: Any = None

    class Message(msgspec.Struct):
        role: Any = None
        id: Any = None
        model: Any = None
        usage: Any = None
        content: Union[str, list[Block], None] = None

    class Record(msgspec.Struct):
        type: Any = None
        timestamp: Any = None
        isSidechain: Any = None
        message: Optional[Message] = None

    LOADS, BAD = msgspec.json.Decoder(Record).decode, (msgspec.DecodeError,)
cores = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1
size = os.stat(path).st_size
cuts = [size * index // cores for index in range(cores)] + [1 << 62]

def decode(start, stop):
    counts = {}
    with open(path, 'rb') as handle:
        if start:
            handle.seek(start - 1)  # a slice starts at the first line that starts at or after its cut
            start += len(handle.readline()) - 1
        at, carry = start, b''
        while at < stop:
            block = handle.read(4 << 20)
            if not block:
                break
            lines = (carry + block).split(b'\\n')
            carry = lines.pop()
            for line in lines:
                if at >= stop:
                    break
                at += len(line) + 1
                count(line, counts)
        if carry and at < stop:
            count(carry, counts)  # the file's last line, with no newline after it
    return counts

def count(line, counts):
    try:
        record = LOADS(line)
    except BAD:
        return
    if typed:
        kind = str(record.type)
    else:
        kind = str(record.get('type')) if type(record) is dict else 'not an object'  # a JSON key for the answer
    counts[kind] = counts.get(kind, 0) + 1

pipes = []
for index in range(1, cores):
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        os.write(write_end, orjson.dumps(decode(cuts[index], cuts[index + 1])))
        os._exit(0)
    os.close(write_end)
    pipes.append(read_end)
totals = decode(cuts[0], cuts[1])
for read_end in pipes:
    with os.fdopen(read_end, 'rb') as answer:
        for kind, seen in orjson.loads(answer.read()).items():
            totals[kind] = totals.get(kind, 0) + seen
    os.wait()
print(totals)
"""


@dataclass
class Figure:
    name: str
    argv: list[str]
    env: dict[str, str]
    before: Callable[[], None] | None = None
    after: Callable[[], None] | None = None
    times: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)

    def run_once(self) -> None:
        if self.before is not None:
            self.before()
        elapsed, peak, cpu, code, stderr = run_timed(self.argv, self.env)
        if code != 0:
            raise SystemExit(f"{self.name}: {' '.join(self.argv)} exited {code}\n{stderr[-2000:]}")
        self.times.append(elapsed)
        self.peaks.append(peak)
        self.cpus.append(cpu)
        print(f"  {self.name}: {elapsed:.3f} s, {cpu:.2f} CPU-s, {peak / 1024:.0f} MB", file=sys.stderr)
        if self.after is not None:
            self.after()

    @property
    def seconds(self) -> float:
        return statistics.median(self.times)

    @property
    def cpu_seconds(self) -> float:
        return statistics.median(self.cpus)

    @property
    def peak_mb(self) -> float:
        return max(self.peaks) / 1024


def run_timed(argv: list[str], env: dict[str, str]) -> tuple[float, int, float, int, str]:
    """Wall seconds, peak RSS (KiB, of the largest process of the tree), CPU seconds (user and
    system, of the whole tree: a process's own and those of the children it waited for), exit
    code, stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return elapsed, usage.ru_maxrss, cpu, os.waitstatus_to_exitcode(status), err.read().decode(errors="replace")


def find_ccusage(explicit: str | None) -> str | None:
    candidates = (explicit, "/work/ccu/node_modules/.bin/ccusage", str(REPO / "node_modules/.bin/ccusage"),
                  "/tmp/ccu/node_modules/.bin/ccusage", shutil.which("ccusage"))
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    return None


def home_for(out: Path, scale: float) -> Path:
    target = out / f"scale-{scale:g}"
    if not (target / "home").exists() or not (target / "expected.json").exists():
        print(f"generating the scale-{scale:g} home in {target} …", file=sys.stderr)
        generate(target, scale=scale)
    return target


def big_home_for(out: Path, megabytes: int) -> Path:
    target = out / "big-home"
    if not target.exists():
        print(f"generating a {megabytes} MB transcript …", file=sys.stderr)
        claude_big(target, random.Random(11), megabytes)
    return target


def active_home_for(out: Path, big: Path, megabytes: int = ACTIVE_MB) -> Growth:
    """A home whose one session is the first ``megabytes`` of the big transcript, and its
    growth: the ~1 MB of lines that follow them there."""
    source = next((big / "home" if (big / "home").exists() else big).rglob("*.jsonl"))
    target = out / f"active-home-{megabytes}" / "home" / ".claude" / "projects" / "-home-bench-active" / source.name
    # Read in pieces: this process's peak memory would be every forked figure's (``wait4``).
    window_start = megabytes * 1024 * 1024 - GROWTH_BYTES
    with source.open("rb") as handle:
        handle.seek(window_start)
        window = handle.read(3 * GROWTH_BYTES)
        cut = window_start + window.rindex(b"\n", 0, GROWTH_BYTES) + 1
        more = window[cut - window_start:]
        chunk = more[: more.rindex(b"\n", 0, GROWTH_BYTES) + 1]
        if not target.exists():
            target.parent.mkdir(parents=True)
            handle.seek(0)
            with target.open("wb") as copy:
                left = cut
                while left:
                    piece = handle.read(min(left, GROWTH_BYTES))
                    copy.write(piece)
                    left -= len(piece)
    # Its mtime is left at "now" on each restore: a session dated days back is not one an
    # agent is working in (``rowresume.KEEP_DAYS``), and the figure is about one that is.
    return Growth(target, chunk, keep_mtime=False)


class Growth:
    """Appends ~1 MB of new lines to one session, and takes them back afterwards."""

    def __init__(self, path: Path, chunk: bytes, *, keep_mtime: bool = True) -> None:
        """``keep_mtime``: put the file's mtime back too (the generated home must stay the
        generator's); else the restored file is as just written to, as an active session is."""
        self.path, self.chunk, self.keep_mtime = path, chunk, keep_mtime
        self._heal()
        stat = self.path.stat()
        self.size, self.mtime_ns = stat.st_size, stat.st_mtime_ns

    def _heal(self) -> None:
        """Take back growth a run killed between ``grow`` and ``restore`` left behind (the
        chunk is the same every time): else the home would no longer be the generator's."""
        size = self.path.stat().st_size
        with self.path.open("rb") as handle:
            while size >= len(self.chunk):
                handle.seek(size - len(self.chunk))
                if handle.read(len(self.chunk)) != self.chunk:
                    break
                size -= len(self.chunk)
        if size != self.path.stat().st_size:
            os.truncate(self.path, size)
            time.sleep(SETTLE_SECONDS)  # see ``grow_after``

    def grow(self) -> None:
        with self.path.open("ab") as handle:
            handle.write(self.chunk)

    def restore(self) -> None:
        os.truncate(self.path, self.size)
        if self.keep_mtime:
            os.utime(self.path, ns=(self.mtime_ns, self.mtime_ns))

    @classmethod
    def of_home(cls, home: Path) -> Growth:
        """~1 MB of new generated turns for a session in the middle of ``home``."""
        projects = sorted((home / ".claude" / "projects").iterdir())
        path = sorted(p for p in projects[len(projects) // 2].glob("*.jsonl"))[0]
        from datetime import datetime, timezone

        import orjson
        from generate import _claude_records

        rng = random.Random(5)
        chunk = bytearray()
        start = datetime(2027, 1, 1, tzinfo=timezone.utc)
        while len(chunk) < GROWTH_BYTES:
            for record in _claude_records(rng, path.stem, "/home/bench/grown", start, 20):
                chunk += orjson.dumps(record) + b"\n"
        return cls(path, bytes(chunk))


def check_totals(agentscan: list[str], env: dict[str, str], expected: dict, ccusage: str | None, home: Path) -> list[str]:
    lines = []
    done = subprocess.run(agentscan + ["tokens", "--by", "provider", "--json"], env=env, capture_output=True, check=True)
    rows = {row["key"]: row["tokens"] for row in json.loads(done.stdout)["rows"]}
    for provider, want in expected.items():
        got = rows.get(provider) or {}
        fields = ("input", "cache_read", "cache_write", "output", "reasoning", "total")
        same = all(got.get(name) == want[name] for name in fields)
        lines.append(f"| agentscan {provider} | {got.get('total', 0):,} | {want['total']:,} | {'equal' if same else 'DIFFERENT'} |")
    if ccusage:
        cc_env = {"PATH": env["PATH"], "HOME": str(home), "LOG_LEVEL": "0"}
        done = subprocess.run([ccusage, "session", "--json", "--offline"], env=cc_env, capture_output=True, check=True)
        sums: dict[str, dict[str, int]] = {}
        for session in json.loads(done.stdout)["session"]:
            acc = sums.setdefault(session["agent"], {})
            for key in ("inputTokens", "cacheReadTokens", "cacheCreationTokens", "outputTokens", "totalTokens"):
                acc[key] = acc.get(key, 0) + session[key]
        # Where the vocabularies agree: Claude all four; Codex input, cached and output;
        # Gemini input and total (ccusage leaves thoughts out of output, but not out of total).
        comparable = {
            "claude": {"inputTokens": "input", "cacheReadTokens": "cache_read", "cacheCreationTokens": "cache_write",
                       "outputTokens": "output", "totalTokens": "total"},
            "codex": {"inputTokens": "input", "cacheReadTokens": "cache_read", "outputTokens": "output", "totalTokens": "total"},
            "gemini": {"inputTokens": "input", "cacheReadTokens": "cache_read", "totalTokens": "total"},
        }
        for provider, mapping in comparable.items():
            got = sums.get(provider, {})
            want = expected.get(provider, {})
            same = all(got.get(theirs) == want.get(ours) for theirs, ours in mapping.items())
            fields = ", ".join(mapping.values())
            lines.append(f"| ccusage {provider} ({fields}) | {got.get('totalTokens', 0):,} | {want.get('total', 0):,} | "
                         f"{'equal' if same else 'DIFFERENT'} |")
    return lines


CONSOLE_SCRIPT = """import re
import sys
from agentscan.entry import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def console_script(directory: Path) -> Path:
    """What ``pip install`` writes as ``bin/agentscan``: the tree on PYTHONPATH runs as a user runs it
    (``python -m agentscan`` names itself otherwise, and skips the console script's fast paths)."""
    path = Path(tempfile.mkdtemp(prefix="bin-", dir=directory)) / "agentscan"
    path.write_text(CONSOLE_SCRIPT)
    return path


def bench_scale(scale: float, args: argparse.Namespace, ccusage: str | None, scratch: Path) -> str:
    """One scale's figures; every cache and console script lives under ``scratch``."""
    target = home_for(args.out, scale)
    home = target / "home"
    expected = json.loads((target / "expected.json").read_text())
    python = sys.executable
    trees = [("", str(REPO / "src"))] + ([("before: ", args.compare)] if args.compare else [])
    figures: list[Figure] = []
    check_lines: list[str] = []
    base_env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8"}
    if ccusage:
        figures.append(Figure("ccusage session", [ccusage, "session", "--json", "--offline"],
                              {"PATH": base_env["PATH"], "HOME": str(home), "LOG_LEVEL": "0"}))
    figures.append(Figure("raw baseline", [python, "-c", BASELINE, str(home)], base_env))
    figures.append(Figure(TOKENS_REFERENCE_NAME, [python, "-c", TOKENS_REFERENCE, str(home)], base_env))
    figures.append(Figure(RULES_REFERENCE_NAME, [python, "-c", TOKENS_REFERENCE, str(home), "rules"], base_env))
    typed = importlib.util.find_spec("msgspec") is not None  # the fields-only references: optional
    if typed:
        figures.append(Figure(TYPED_RULES_REFERENCE_NAME, [python, "-c", TOKENS_REFERENCE, str(home), "rules", "msgspec"],
                              base_env))
    figures.append(Figure(PRICES_LOAD_NAME, [python, "-c", PRICES_LOAD], base_env))
    growth = Growth.of_home(home)
    last_week = _week_before_newest(home, growth.path)
    big = big_home_for(args.out, args.big_mb) if args.big_mb and scale == 1 else None
    if big is not None:
        transcript = next((big / "home" if (big / "home").exists() else big).rglob("*.jsonl"))
        figures.append(Figure(SHOW_REFERENCE_NAME, [python, "-c", SHOW_REFERENCE, str(transcript)], base_env))
        if ccusage:  # the peer on the same home: the 1 GB figures' "× ccusage"
            figures.append(Figure(BIG_CCUSAGE_NAME, [ccusage, "session", "--json", "--offline"],
                                  {"PATH": base_env["PATH"], "LOG_LEVEL": "0",
                                   "HOME": str(big / "home") if (big / "home").exists() else str(big)}))
        if typed:
            figures.append(Figure(TYPED_SHOW_REFERENCE_NAME, [python, "-c", SHOW_REFERENCE, str(transcript), "msgspec"],
                                  base_env))
    active = active_home_for(args.out, big) if big is not None and args.big_mb > 2 * ACTIVE_MB else None
    # Each tree's figures as a group: the groups take turns going first, round after round
    # (the first of two runs of one code came out slower on the bench machine: a fixed order
    # made the tree timed first look slower).
    common, figures = figures, []
    groups: list[list[Figure]] = []
    for label, src in trees:
        figures = []
        groups.append(figures)
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
        env = dict(base_env, AGENTSCAN_CACHE_DIR=str(cache), PYTHONPATH=src)
        agentscan = [python, str(console_script(cache.parent))]

        def clear(cache: Path = cache) -> None:
            shutil.rmtree(cache, ignore_errors=True)

        def warm(argv: list[str], env: dict[str, str] = env) -> Callable[[], None]:
            return lambda: subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

        tokens = agentscan + ["tokens", "--json"]
        table = agentscan + ["tokens"]

        def grow_after(env: dict[str, str] = env, tokens: list[str] = tokens) -> None:
            growth.restore()
            # A file changed within 2 s of a census is not trusted (scan/memo.py, "racily
            # clean"), and a restore leaves a new ctime: wait, so that the next figure starts
            # from what a settled warm run stored, not from this figure's aftermath.
            time.sleep(SETTLE_SECONDS)
            warm(tokens, env)()

        grow_after_table = functools.partial(grow_after, tokens=table)
        daily = agentscan + ["tokens", "--by", "day"]
        grow_after_daily = functools.partial(grow_after, tokens=daily)

        figures += [
            Figure(label + "--help", agentscan + ["--help"], env),
            Figure(label + "cold list", agentscan + ["list"], env, before=clear),
            Figure(label + "warm list", agentscan + ["list"], env),
            # Not a target: what ``list`` costs while an agent appends to a transcript (before
            # ``cold tokens`` empties the cache: the other rows are warm, as they would be).
            Figure(label + "warm list, one session +1 MB", agentscan + ["list"], env, before=growth.grow, after=grow_after),
            Figure(label + "cold tokens", tokens, env, before=clear),
            Figure(label + "warm tokens", tokens, env),
            Figure(label + "warm tokens, one session +1 MB", tokens, env, before=growth.grow, after=grow_after),
            # Not a target: what a person typing ``agentscan tokens`` first waits for (the table
            # beside each session its date, project and title: every session's row is read).
            Figure(label + "cold tokens, table", agentscan + ["tokens"], env, before=clear),
            # Not targets: the table again, and after an agent wrote to a session (patched, as
            # ``--json`` is: ``cli.tablepatch``).
            Figure(label + "warm tokens, table", table, env),
            Figure(label + "tokens, table, one session +1 MB", table, env, before=growth.grow,
                   after=grow_after_table),
            Figure(label + "tokens --by day, one session +1 MB", daily, env, before=growth.grow,
                   after=grow_after_daily),
            Figure(label + "warm tokens --since, the last week", agentscan + ["tokens", "--since", last_week], env),
        ]
        if big is not None:
            big_cache = Path(tempfile.mkdtemp(prefix="big-", dir=scratch))
            big_env = dict(env, HOME=str(big / "home") if (big / "home").exists() else str(big),
                           AGENTSCAN_CACHE_DIR=str(big_cache))

            def clear_big(big_cache: Path = big_cache) -> None:
                shutil.rmtree(big_cache, ignore_errors=True)

            show = agentscan + ["show", "b16b16b1"]
            figures += [
                Figure(label + "show 1 GB, empty cache", show, big_env, before=clear_big),
                Figure(label + "show 1 GB, warm cache", show, big_env),
                # Not a target: a heavy user's one huge session, side by side with ccusage on it.
                Figure(label + BIG_TOKENS_NAME, tokens, big_env, before=clear_big),
            ]
        if active is not None:
            active_env = dict(env, HOME=str(active.path.parents[3]), AGENTSCAN_CACHE_DIR=str(cache) + "-active")
            active_list = agentscan + ["list"]

            def active_after(growth: Growth = active, env: dict[str, str] = active_env, argv: list[str] = active_list) -> None:
                growth.restore()
                time.sleep(SETTLE_SECONDS)
                warm(argv, env)()

            warm(active_list, active_env)()
            figures.append(Figure(label + f"list, a {ACTIVE_MB} MB session +1 MB", active_list, active_env,
                                  before=active.grow, after=active_after))
        if not label:
            warm(tokens)()
            check_lines = check_totals(agentscan, env, expected, ccusage, home)
    for round_number in range(args.runs):
        print(f"scale {scale:g}: round {round_number + 1}/{args.runs}", file=sys.stderr)
        turn = groups if round_number % 2 == 0 else groups[::-1]
        for figure in [*common, *(figure for group in turn for figure in group)]:
            figure.run_once()
    return render(scale, home, [*common, *(figure for group in groups for figure in group)], check_lines, args)


def _week_before_newest(home: Path, grown: Path) -> str:
    """The date a week before the home's newest Claude transcript was written: ``--since``
    of its last week (the generated homes span months, or years at scale 10).  ``grown``
    (the session ``Growth`` appends to) is left out: after a killed run, its growth taken
    back (``Growth._heal``), it is dated now."""
    newest = max(path.stat().st_mtime for path in (home / ".claude").rglob("*.jsonl") if path != grown)
    return time.strftime("%Y-%m-%d", time.localtime(newest - 7 * 86400))


TOKENS_REFERENCE_NAME = "reference: tokens' lines decoded, every core"
RULES_REFERENCE_NAME = "reference: tokens' lines counted, every core"
PRICES_LOAD_NAME = "reference: price library loaded"
SHOW_REFERENCE_NAME = "reference: 1 GB decoded, every core"
BIG_CCUSAGE_NAME = "ccusage session, 1 GB"
BIG_TOKENS_NAME = "tokens 1 GB, empty cache"
TYPED_RULES_REFERENCE_NAME = "reference: tokens' lines counted, fields only (msgspec)"
TYPED_SHOW_REFERENCE_NAME = "reference: 1 GB decoded, fields only (msgspec)"

TARGETS: dict[tuple[float, str], tuple[str, Callable[[Figure, Figure | None], bool]]] = {}


def _target(scale: float, name: str, text: str, test: Callable[[Figure, Figure | None], bool]) -> None:
    TARGETS[(scale, name)] = (text, test)


for _scale in (1, 10):
    _target(_scale, "cold tokens", "≤ 0.8× ccusage", lambda f, cc: cc is not None and f.seconds <= 0.8 * cc.seconds)
_target(1, "warm tokens", "≤ 0.25× ccusage", lambda f, cc: cc is not None and f.seconds <= 0.25 * cc.seconds)
_target(10, "warm tokens", "≤ 0.4 s", lambda f, cc: f.seconds <= 0.4)
_target(1, "warm tokens, one session +1 MB", "≤ 0.3× ccusage", lambda f, cc: cc is not None and f.seconds <= 0.3 * cc.seconds)
_target(10, "warm tokens, one session +1 MB", "≤ 0.5 s", lambda f, cc: f.seconds <= 0.5)
_target(1, "warm list", "≤ 0.15 s", lambda f, cc: f.seconds <= 0.15)
_target(10, "warm list", "≤ 0.3 s", lambda f, cc: f.seconds <= 0.3)
_target(1, "cold list", "≤ 0.5 s", lambda f, cc: f.seconds <= 0.5)
_target(10, "cold list", "≤ 1.0 s", lambda f, cc: f.seconds <= 1.0)
_target(1, "--help", "≤ 0.1 s", lambda f, cc: f.seconds <= 0.1)
_target(1, "show 1 GB, empty cache", "≤ 3 s, ≤ 150 MB", lambda f, cc: f.seconds <= 3 and f.peak_mb <= 150)
_target(1, "show 1 GB, warm cache", "≤ 3 s, ≤ 150 MB", lambda f, cc: f.seconds <= 3 and f.peak_mb <= 150)


def render(scale: float, home: Path, figures: list[Figure], checks: list[str], args: argparse.Namespace) -> str:
    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    files = sum(1 for p in home.rglob("*") if p.is_file())
    cc = next((f for f in figures if f.name == "ccusage session"), None)
    raw = next(f for f in figures if f.name == "raw baseline")
    lines = [
        f"## Scale {scale:g}: {files:,} files, {size / 1e6:,.0f} MB",
        "",
        f"Medians of {args.runs} rounds; load: {_load()}.",
        "",
        "| figure | seconds | CPU s | peak RSS | × ccusage | × raw | RSS × ccusage | target |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for figure in figures:
        # (Every figure beside ccusage on the scale's home, as the targets are: the 1 GB home's
        # own ccusage is set beside its figures under the table, ``_references``.)
        ratio = f"{figure.seconds / cc.seconds:.2f}" if cc else "n/a"
        rss = f"{figure.peak_mb / cc.peak_mb:.2f}" if cc else "n/a"
        verdict = ""
        target = TARGETS.get((scale, figure.name))
        if target is not None:
            text, test = target
            verdict = f"{text}: {'met' if test(figure, cc) else 'MISSED'}"
        lines.append(f"| {figure.name} | {figure.seconds:.3f} | {figure.cpu_seconds:.2f} | {figure.peak_mb:.0f} MB | {ratio} | "
                     f"{figure.seconds / raw.seconds:.2f} | {rss} | {verdict} |")
    if cc is not None:
        # ``tokens 1 GB`` is set beside ccusage on its own home (``_references``): the scale's
        # ccusage reads a tenth of what it reads.
        worst = max((f for f in figures if not f.name.startswith(("ccusage", "raw", "before", "reference"))
                     and f.name != BIG_TOKENS_NAME), key=lambda f: f.peak_mb)
        lines += ["", f"Largest agentscan peak RSS: {worst.name}, {worst.peak_mb:.0f} MB = "
                      f"{worst.peak_mb / cc.peak_mb:.2f}× ccusage's {cc.peak_mb:.0f} MB (target ≤ 0.5×)."]
    else:
        lines += ["", "ccusage was not installed, so its columns are n/a "
                      "(`npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24`)."]
    lines += _references(figures, cc)
    if checks:
        lines += ["", "| totals check | reported total | generator's total | fields |", "|---|---:|---:|---|", *checks]
    return "\n".join(lines) + "\n"


def _references(figures: list[Figure], cc: Figure | None) -> list[str]:
    """What the reference programs say of the targets, in this run's figures: work that takes
    ``C`` CPU-seconds takes at least ``C / n`` seconds on ``n`` cores, however it is shared.
    The ``orjson`` ones bound agentscan's design (how it decodes, how it loads prices); the
    ``msgspec`` ones, when it is installed, any tool that decodes its JSON in Python."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    named = {figure.name: figure for figure in figures}
    lines = []
    decoded, counted = named.get(TOKENS_REFERENCE_NAME), named.get(RULES_REFERENCE_NAME)
    prices, cold = named.get(PRICES_LOAD_NAME), named.get("cold tokens")
    if decoded is not None and counted is not None and prices is not None and cold is not None and cc is not None:
        least = (counted.cpu_seconds + prices.cpu_seconds) / cores
        lines += ["", f"Tokens, agentscan's design at the least: decoding the lines a count needs takes "
                      f"{decoded.cpu_seconds:.2f} CPU-s ({decoded.seconds:.3f} s on {cores} cores = "
                      f"{decoded.seconds / cc.seconds:.2f}× ccusage), {counted.cpu_seconds:.2f} CPU-s with the least of "
                      f"the counting rules; loading the price library takes {prices.cpu_seconds:.2f} CPU-s. Together at "
                      f"least {least:.3f} s on {cores} cores = {least / cc.seconds:.2f}× ccusage (target ≤ 0.8×), before "
                      f"discovery, the index, the report and the rules' edge cases. Cold `tokens`: "
                      f"{cold.cpu_seconds:.2f} CPU-s, {cold.seconds:.3f} s."]
        typed = named.get(TYPED_RULES_REFERENCE_NAME)
        if typed is not None:
            least = (typed.cpu_seconds + prices.cpu_seconds) / cores
            lines += ["", f"Tokens, any design that decodes JSON in Python, at the least: a decoder of only the fields "
                          f"the rules read (`msgspec`) counts the same lines to the same sums in {typed.cpu_seconds:.2f} "
                          f"CPU-s; with the price library at least {least:.3f} s on {cores} cores = "
                          f"{least / cc.seconds:.2f}× ccusage, before discovery, the index and the report."]
    big_cc, big_tokens = named.get(BIG_CCUSAGE_NAME), named.get(BIG_TOKENS_NAME)
    if big_cc is not None and big_tokens is not None:
        lines += ["", f"One 1 GB session, beside ccusage on that home: cold `tokens` {big_tokens.seconds:.3f} s "
                      f"({big_tokens.cpu_seconds:.2f} CPU-s, {big_tokens.peak_mb:.0f} MB) = "
                      f"{big_tokens.seconds / big_cc.seconds:.2f}× ccusage's {big_cc.seconds:.3f} s "
                      f"({big_cc.cpu_seconds:.2f} CPU-s), peak RSS {big_tokens.peak_mb / big_cc.peak_mb:.2f}× "
                      f"its {big_cc.peak_mb:.0f} MB."]
    decoded, show = named.get(SHOW_REFERENCE_NAME), named.get("show 1 GB, empty cache")
    if decoded is not None and show is not None:
        lines += ["", f"Show, agentscan's design at the least: decoding every line of the 1 GB transcript takes "
                      f"{decoded.cpu_seconds:.2f} CPU-s, at least {decoded.cpu_seconds / cores:.3f} s on {cores} cores "
                      f"({decoded.seconds:.3f} s cut into a slice a core), before any rule (target ≤ 3 s for the whole "
                      f"`show`). Cold `show`: {show.cpu_seconds:.2f} CPU-s, {show.seconds:.3f} s."]
        typed = named.get(TYPED_SHOW_REFERENCE_NAME)
        if typed is not None:
            left = max(0.0, 3 * cores - typed.cpu_seconds)
            lines += ["", f"Show, any design that decodes JSON in Python, at the least: decoding only the fields a row's "
                          f"counts and times read (`msgspec`) takes {typed.cpu_seconds:.2f} CPU-s, at least "
                          f"{typed.cpu_seconds / cores:.3f} s on {cores} cores ({typed.seconds:.3f} s cut into a slice a "
                          f"core): {left:.2f} CPU-s would be left, shared perfectly, for every rule of every record "
                          f"(cold `show` spends {max(0.0, show.cpu_seconds - typed.cpu_seconds):.2f} CPU-s besides)."]
    return lines


def _load() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"{one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--scale", type=float, action="append", help="repeatable; default 1 and 10")
    parser.add_argument("--ccusage")
    parser.add_argument("--compare", help="another agentscan src dir to time in the same rounds")
    parser.add_argument("--write", action="store_true", help="write docs/performance.md")
    args = parser.parse_args()
    scales = args.scale or [1.0, 10.0]
    ccusage = find_ccusage(args.ccusage)
    # One scratch directory for every cache and console script, gone when the run ends
    # (each used to be a directory of its own in /tmp, left behind run after run).
    with tempfile.TemporaryDirectory(prefix="agentscan-bench-") as scratch:
        sections = [bench_scale(scale, args, ccusage, Path(scratch)) for scale in scales]
    header = [
        "# Performance",
        "",
        "Generated by `python bench/run.py --write`: every figure measured side by side, in rounds "
        "(each round runs every figure once), as medians.",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}",
        "- cold = empty agentscan cache; the OS file cache is warm for every tool alike",
        "- ccusage is 20.0.24 with its native binary, `session --json --offline`",
        "- peak RSS is that of the largest process of the command's tree (`wait4`)",
        "",
    ]
    report = "\n".join(header) + "\n" + "\n".join(sections)
    print(report)
    if args.write:
        target = REPO / "docs" / "performance.md"
        kept = ""
        if target.exists() and ANALYSIS_MARKER in target.read_text():
            kept = target.read_text().split(ANALYSIS_MARKER, 1)[1]
        target.write_text(report + "\n" + ANALYSIS_MARKER + kept)


if __name__ == "__main__":
    main()
