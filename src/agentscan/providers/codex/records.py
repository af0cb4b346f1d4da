"""Raw Codex rollout shapes and the small readers that interpret them.

Rollout lines are ``{timestamp, type, payload}`` envelopes whose payloads
drift every few weeks (docs/providers/codex.md), so every accessor here is
defensive: any field may be missing, null, or of another type.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Mapping, NamedTuple, TypedDict

import orjson

from agentscan.bounds import token_count
from agentscan.toolkit.imagetext import images_text
from agentscan.toolkit.valuewarnings import note_usage, odd_count
from agentscan.timeutil import from_epoch, parse_iso


class RawTokenUsage(TypedDict, total=False):
    input_tokens: int
    cached_input_tokens: int
    cache_write_input_tokens: int
    output_tokens: int
    reasoning_output_tokens: int
    total_tokens: int


class RawTokenInfo(TypedDict, total=False):
    total_token_usage: RawTokenUsage
    last_token_usage: RawTokenUsage
    model_context_window: int
    model: str


class RawSpawn(TypedDict, total=False):
    parent_thread_id: str
    depth: int
    agent_path: str
    agent_nickname: str
    agent_role: str


class RawSource(TypedDict, total=False):
    subagent: dict[str, Any]  # {"thread_spawn": RawSpawn} or {"other": "guardian"}


class RawSessionMeta(TypedDict, total=False):
    id: str
    session_id: str
    timestamp: str
    cwd: str
    originator: str
    cli_version: str
    source: str | RawSource  # "cli", "vscode", "exec", … or a subagent object
    forked_from_id: str
    parent_thread_id: str
    agent_nickname: str
    agent_role: str
    git: dict[str, Any]


class RawLine(TypedDict, total=False):
    timestamp: str
    type: str  # session_meta | response_item | event_msg | turn_context | compacted | …
    payload: dict[str, Any]


TITLE_CHARS = 180
# A task_started's ``started_at`` is whole seconds while a meta's timestamp has
# milliseconds, so a thread's own first turn can look up to a second "older".
MARKER_SLACK = timedelta(seconds=2)

# Text Codex (or an IDE) injects as a user message that the user never typed.
_CONTEXT_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>")
_INJECTED_PREFIXES = (
    "<environment_context",
    "<user_instructions",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<recommended_plugins",
    "<app-context",
    "<skills_instructions",
    "<permissions instructions",
    "<collaboration_mode",
    "<subagent_notification",
    "<turn_aborted",
    "<user_shell_command",
    "<developer_instructions",
    # Fragments of codex-rs ``model_visible_context`` (0.1xx): a skill's body when the user
    # names it ($skill), the skills and plugins lists, the subagent roster, and the
    # child-agents and js_repl instructions; and a hook's prompt (``items.rs``: ``HookPrompt``).
    "<skill>",
    "<skills_section",
    "<plugins>",
    "<subagents>",
    "<child_agents_instructions",
    "<js_repl_instructions",
    "<hook_prompt",
)
_IDE_REQUEST_MARKER = "## My request for Codex:"
_WHITESPACE = re.compile(r"\s+")
#: a number written out as a string (``no_number``): ASCII digits only, as ``_digits`` reads them
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def as_count(value: object) -> int:
    """A non-negative token count; anything else (an absurd one too) counts as zero.

    Some builds wrote counts as digit strings.  Only short ASCII ones are
    read: ``str.isdigit`` also accepts "²", which ``int`` rejects, and
    ``int`` refuses strings of more than 4,300 digits.
    """
    if isinstance(value, str):
        value = int(value) if _digits(value) else 0
    return token_count(value)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 15


def noted_count(value: object, field: str) -> int:
    """``as_count`` of a usage ``field``'s ``value``, told once a file when it is no token
    count (``toolkit.valuewarnings``).  A digit string counted whole is not told: it is
    how some builds wrote their counts, and nothing of it is lost."""
    count = as_count(value)
    if no_count(value, count):
        note_usage(field, value, count)
    return count


def no_number(value: object) -> bool:
    """Whether a usage counter's ``value`` is no number at all: null, ``true``, a string that is
    no number written out (``"x"``, ``"²"``), a list or an object.  Codex's ``TokenUsage`` holds
    integers, so no build of it wrote one, and Codex itself cannot read such a ``token_count``
    back (``counters.counters_of``).  A number, written as one or as a string, is one whatever
    it holds (``-5``, ``"-5"``, ``10**16``, a string of 16 digits): a count where it is one, else
    a value of garbage (``no_count``, counted as 0), alike in both spellings."""
    kind = value.__class__
    return value is None or kind is bool or kind is list or kind is dict or (
        isinstance(value, str) and _NUMBER.fullmatch(value) is None)


def no_count(value: object, count: int) -> bool:
    """Whether ``value`` (``as_count`` gave ``count``) is no token count as recorded; a digit
    string counted whole is one."""
    return odd_count(value, count) and not (value.__class__ is str and _digits(value) and int(value) == count)  # type: ignore[arg-type]


def rate_limits_of(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """``payload.rate_limits`` when it is a small object (Codex's is two levels deep).

    It is passed through to ``show`` verbatim, so a hostile one nested
    hundreds of levels deep (which no JSON writer takes back) is dropped.
    """
    value = payload.get("rate_limits")
    return value if isinstance(value, dict) and _depth(value, 6) <= 6 else None


def _depth(value: object, limit: int) -> int:
    """Nesting depth of ``value``, counted no further than ``limit + 1``."""
    if limit < 0 or not isinstance(value, (dict, list)):
        return 0
    children = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(child, limit - 1) for child in children), default=0)


def payload_of(record: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(record.get("payload"))


def collapse(text: str, limit: int | None = None) -> str:
    text = _WHITESPACE.sub(" ", text).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def clean_prompt(text: object) -> str | None:
    """What the person asked, or ``None`` for injected context."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text or text.startswith(_INJECTED_PREFIXES):
        return None
    # The VS Code extension prefixes open-file context; keep the request itself.
    if _IDE_REQUEST_MARKER in text:
        text = text.split(_IDE_REQUEST_MARKER, 1)[1].strip()
    return text or None


def message_text(payload: Mapping[str, Any], kinds: tuple[str, ...], separator: str = "\n") -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") in kinds and isinstance(block.get("text"), str)
    )


#: the content blocks of a user message that are an image (``input_image`` of a
#: ``response_item``; ``image``/``local_image`` of an ``item_completed`` ``UserMessage``)
IMAGE_BLOCKS = frozenset({"input_image", "image", "local_image", "Image", "LocalImage"})


def image_prompt(text: object, images: int) -> str | None:
    """``clean_prompt`` of ``text``, or for a message of images and no text (an image sent
    alone is a prompt all the same) what stands for them."""
    found = clean_prompt(text)
    if found is None and images and not (isinstance(text, str) and text.strip()):
        return images_text(images)
    return found


def image_blocks(payload: Mapping[str, Any]) -> int:
    """How many of a message's content blocks are images."""
    content = payload.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for block in content if isinstance(block, dict) and block.get("type") in IMAGE_BLOCKS)


def event_prompt(payload: Mapping[str, Any]) -> str | None:
    """The prompt of an ``event_msg/user_message`` (the text actually typed; its ``images``
    and ``local_images`` when it holds no text)."""
    kind = payload.get("kind")
    if kind not in (None, "plain"):  # older builds tagged injected context this way
        return None
    text = payload.get("message") if payload.get("message") is not None else payload.get("content")
    images = sum(len(value) for value in (payload.get("images"), payload.get("local_images")) if isinstance(value, list))
    return image_prompt(text, images)


def item_prompt(payload: Mapping[str, Any]) -> str | None:
    """The prompt of a ``response_item`` user message, when it is not injected (the tags
    around its images dropped: ``without_image_tags``)."""
    if payload.get("type") != "message" or payload.get("role") != "user":
        return None
    images = image_blocks(payload)
    if images:
        payload = {**payload, "content": without_image_tags(payload["content"])}
    return image_prompt(message_text(payload, ("input_text", "text")), images)


#: the text blocks current codex-rs writes around each image of a user message: an open tag
#: just before it (``<image>``, or ``<image name=[Image #1]>`` for a file the user attached,
#: maybe with a ``path="…"``), ``</image>`` just after (``codex_protocol::models``' image tags).
#: Codex drops them when it shows the message (only beside an image: ``user_message_input``):
#: no words of the user's, and ``[image]`` stands for an image sent alone
_IMAGE_OPEN_TAG = "<image>"
_NAMED_IMAGE_OPEN_TAG = "<image name="
_IMAGE_CLOSE_TAG = "</image>"


def without_image_tags(content: list) -> list:
    """A message's content blocks without the tags codex-rs wrote around its images."""
    def is_image(index: int) -> bool:
        block = content[index] if 0 <= index < len(content) else None
        return isinstance(block, dict) and block.get("type") in IMAGE_BLOCKS

    def is_tag(index: int, block: object) -> bool:
        text = block.get("text") if isinstance(block, dict) and block.get("type") in ("input_text", "text") else None
        if not isinstance(text, str):
            return False
        if text == _IMAGE_CLOSE_TAG:
            return is_image(index - 1)
        opens = text == _IMAGE_OPEN_TAG or (text.startswith(_NAMED_IMAGE_OPEN_TAG) and text.endswith(">"))
        return opens and is_image(index + 1)

    return [block for index, block in enumerate(content) if not is_tag(index, block)]


def context_cwd(payload: Mapping[str, Any]) -> str | None:
    """The ``<cwd>`` of an ``<environment_context>`` user message item."""
    if payload.get("type") != "message" or payload.get("role") != "user":
        return None
    text = message_text(payload, ("input_text", "text"))
    if not text.lstrip().startswith("<environment_context"):
        return None
    match = _CONTEXT_CWD.search(text)
    return match.group(1).strip() or None if match else None


def item_response(payload: Mapping[str, Any]) -> str | None:
    if payload.get("type") != "message" or payload.get("role") != "assistant":
        return None
    return as_str(message_text(payload, ("output_text", "text")))


#: hosted tools newer builds (0.14x) record as items of their own: a tool search (the tools it
#: found come back as a ``tool_search_output``) and an image generation (its end, an
#: ``image_generation_end`` event).  A tally an agentscan before them kept did not count them
#: (``fullcounts.Tally.older``)
NEWER_TOOL_ITEMS = frozenset({"tool_search_call", "image_generation_call"})
#: the ``response_item`` types that are a tool call: each one counted in ``counts.tool_calls``
#: and listed by ``show``, one rule for both (``messages.line_kind``)
TOOL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call", *NEWER_TOOL_ITEMS})
#: the items a pre-envelope rollout (the CLI of mid-2025, before ``session_meta``) wrote bare,
#: without the ``{"type": "response_item", "payload": …}`` around them
BARE_ITEMS = frozenset({*TOOL_ITEMS, "message", "reasoning", "function_call_output", "custom_tool_call_output",
                        "local_shell_call_output"})


def enveloped(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pre-envelope rollout's bare item as the envelope carries it (its header, a bare
    ``{"id", "timestamp", …}``, is ``header.meta_of``'s); any other record as it is."""
    if "payload" in record:
        return record
    kind = record.get("type")
    if isinstance(kind, str) and kind in BARE_ITEMS:
        return {"timestamp": record.get("timestamp"), "type": "response_item", "payload": record}
    return record


# -- plans, times, threads ------------------------------------------------------


def plan_steps(tool_input: object) -> list[tuple[str, str]] | None:
    """Steps of an ``update_plan`` call (its arguments as a JSON string or object)."""
    if isinstance(tool_input, str):
        try:
            tool_input = orjson.loads(tool_input)
        except orjson.JSONDecodeError:
            return None
    plan = as_dict(tool_input).get("plan")
    if not isinstance(plan, list):
        return None
    steps = []
    for item in plan:
        if isinstance(item, dict):
            text = as_str(item.get("step")) or as_str(item.get("content"))
            if text:
                steps.append((text, as_str(item.get("status")) or "pending"))
    return steps


def time_value(value: object) -> datetime | None:
    """An ISO string or epoch seconds/milliseconds."""
    return parse_iso(value) if isinstance(value, str) else from_epoch(value)


class ThreadLink(NamedTuple):
    """How a thread relates to others, read from its own ``session_meta`` (a named tuple:
    see ``cli.term.Terminal``)."""

    spawn_parent: str | None = None  # a subagent: rolled into this thread
    forked_from: str | None = None  # a fork: its copied history is not spend
    agent_type: str | None = None
    subagent: bool = False  # the source says subagent (even when it names no parent)

    @property
    def replays_history(self) -> bool:
        return self.spawn_parent is not None or self.forked_from is not None


def link_of(meta: RawSessionMeta | Mapping[str, Any]) -> ThreadLink:
    """Parent, fork origin and agent type from a meta (or an index row shaped like one)."""
    source = meta.get("source")
    if isinstance(source, str) and source.startswith("{"):
        try:
            source = orjson.loads(source)  # the thread index stores it stringified
        except orjson.JSONDecodeError:
            source = None
    raw_subagent = as_dict(source).get("subagent")
    is_subagent = raw_subagent is not None
    subagent = as_dict(raw_subagent)
    spawn = as_dict(subagent.get("thread_spawn"))
    parent = as_str(spawn.get("parent_thread_id"))
    if parent is None and is_subagent:
        parent = as_str(meta.get("parent_thread_id"))
    agent_type = (
        as_str(spawn.get("agent_role"))
        or as_str(meta.get("agent_role"))
        or as_str(spawn.get("agent_nickname"))
        or as_str(meta.get("agent_nickname"))
        or as_str(subagent.get("other"))
        or as_str(raw_subagent)
    )
    return ThreadLink(parent, as_str(meta.get("forked_from_id")), agent_type, is_subagent)
