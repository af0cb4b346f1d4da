"""What a rollout's tool calls say: each call's name, summary and paths, and how it ended
(its output, an end event, or a hosted call's own ``status``), for ``show`` (``detail``)."""

from __future__ import annotations

import re
import shlex
from typing import Any, Mapping

import orjson

from agentscan.providers.codex.records import as_dict, as_str, plan_steps
from agentscan.toolkit.errortext import error_line

_EXIT = re.compile(r"(?:exit code|exited with code)[:\s]+(-?\d+)", re.IGNORECASE)
_FAILED = ("patch rejected", "error:", "failed", "aborted")
# What Codex answers a call the user (or its approval reviewer) declined: the command never
# ran.  Human denials are always worded exactly so; checked before ``_FAILED`` ("patch rejected").
_DENIED = ("exec command rejected by user", "patch rejected by user", "this action was rejected due to unacceptable risk")
_PATCH_PATH = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_SUMMARY_KEYS = ("cmd", "command", "file_path", "path", "pattern", "query", "url", "prompt", "message")
_PATH_KEYS = ("file_path", "path", "workdir")
#: the ``response_item`` a tool search's found tools come back in (``tool_search_output`` as
#: 0.146 writes it; ``tool_search_call_output`` in the spelling of the other outputs)
TOOL_SEARCH_OUTPUTS = ("tool_search_output", "tool_search_call_output")
#: a hosted call's (or its end event's) ``status``, as ``show`` says it; others (``in_progress``,
#: ``searching``, ``generating``) tell no end (``hosted_status``)
_HOSTED_STATUS = {"completed": "ok", "failed": "error"}
#: the hosted calls whose item says how they ended (``status``)
HOSTED_CALLS = frozenset({"web_search_call", "tool_search_call", "image_generation_call"})


def hosted_status(payload: Mapping[str, Any], otherwise: str | None) -> str | None:
    """How a hosted call ended, from its item's (or its end event's, or a tool search's
    output's) ``status``; ``otherwise`` when that says no end."""
    status = payload.get("status")
    return _HOSTED_STATUS.get(status, otherwise) if isinstance(status, str) else otherwise


def parse_arguments(raw: object) -> object:
    if isinstance(raw, str):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw


def _command_text(command: object) -> str | None:
    if isinstance(command, str):
        return command.strip() or None
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        # ["bash", "-lc", "<script>"] is how Codex runs everything: show the script.
        if len(command) == 3 and command[1] in ("-lc", "-c"):
            return command[2].strip() or None
        return shlex.join(command) or None
    return None


def tool_summary(name: str, arguments: object) -> tuple[str, tuple[str, ...]]:
    """A short, readable summary of a call and the paths it touched."""
    if isinstance(arguments, str):
        # A freeform input (apply_patch): drop the envelope line so the first
        # thing shown is "*** Update File: <path>".
        text = arguments.strip().removeprefix("*** Begin Patch").strip()
        return text or name, tuple(_PATCH_PATH.findall(arguments))
    data = as_dict(arguments)
    paths = tuple(data[key] for key in _PATH_KEYS[:2] if isinstance(data.get(key), str))
    if name == "update_plan":
        steps = plan_steps(data) or []
        return as_str(data.get("explanation")) or f"plan: {len(steps)} steps", paths
    for key in _SUMMARY_KEYS:
        found: str | None = _command_text(data.get(key)) if key in ("cmd", "command") else as_str(data.get(key))
        if found:
            return found, paths + tuple(_PATCH_PATH.findall(found))
    if arguments is None:
        return name, paths
    try:
        return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode()[:400], paths
    except TypeError:
        return name, paths


def output_status(output: object) -> str:
    """ok / error / denied from a call's output: an exit code, a success flag, a refusal,
    or the user's "no"."""
    if isinstance(output, str):
        parsed = parse_arguments(output)
        if isinstance(parsed, dict):
            return output_status(parsed)
        match = _EXIT.search(output[:2000])
        if match:
            return "ok" if match.group(1) == "0" else "error"
        told = output.lstrip().lower()
        if told.startswith(_DENIED):
            return "denied"
        return "error" if told.startswith(_FAILED) else "ok"
    if isinstance(output, dict):
        exit_code = as_dict(output.get("metadata")).get("exit_code", output.get("exit_code"))
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            return "ok" if exit_code == 0 else "error"
        if output.get("success") is False:
            return "error"
        inner = output.get("output")
        return output_status(inner) if isinstance(inner, str) else "ok"
    if isinstance(output, list):
        # Newer builds: content items ([{"type": "input_text", "text": …}]); their text is
        # what the string form held.
        text = "".join(item["text"] for item in output if isinstance(item, dict) and isinstance(item.get("text"), str))
        return output_status(text) if text else "ok"
    return "ok"


def output_error(output: object) -> str | None:
    """A failed call's error from its output (``output_status`` said ``error``): the text it
    holds, past an exec output's header (``Exit code: 1`` … ``Output:``), on one line."""
    text = _output_text(output)
    if text is None:
        return None
    head = text[:2000]
    start = head.find("Output:\n")
    if start >= 0 and _EXIT.search(head[:start]) and text[start + 8:].strip():
        text = text[start + 8:]
    return error_line(text)


def _output_text(output: object) -> str | None:
    if isinstance(output, str):
        parsed = parse_arguments(output)
        return _output_text(parsed) if isinstance(parsed, dict) else output
    if isinstance(output, dict):
        return next((_output_text(output[key]) for key in ("output", "error", "message")
                     if isinstance(output.get(key), str) and output[key].strip()), None)
    if isinstance(output, list):
        return "".join(item["text"] for item in output if isinstance(item, dict) and isinstance(item.get("text"), str))
    return None


def event_error(payload: Mapping[str, Any]) -> str | None:
    """A failed call's error from its end event (``event_status`` said ``error``): a command's
    or a patch's standard error (else its output), an MCP call's error or result text."""
    if payload.get("type") == "mcp_tool_call_end":
        result = as_dict(payload.get("result"))
        err = result.get("Err")
        return error_line(err) if isinstance(err, str) else output_error(as_dict(result.get("Ok")).get("content"))
    for key in ("stderr", "aggregated_output", "formatted_output", "stdout"):
        text = error_line(payload.get(key))
        if text:
            return text
    return None


def event_status(payload: Mapping[str, Any]) -> str | None:
    """The authoritative status some builds record as a separate event."""
    ptype = payload.get("type")
    if ptype in ("exec_command_end", "patch_apply_end") and payload.get("status") == "declined":
        return "denied"  # newer builds say so (its output is the refusal's text)
    if ptype == "exec_command_end" and isinstance(payload.get("exit_code"), int):
        return "ok" if payload["exit_code"] == 0 else "error"
    if ptype == "patch_apply_end" and isinstance(payload.get("success"), bool):
        return "ok" if payload["success"] else "error"
    if ptype == "image_generation_end":
        return hosted_status(payload, None)
    if ptype == "mcp_tool_call_end":
        result = as_dict(payload.get("result"))
        if "Err" in result:
            return "error"
        if "Ok" in result:
            return "error" if as_dict(result["Ok"]).get("isError") is True else "ok"
    return None


def tool_call(payload: Mapping[str, Any]) -> tuple[str, object, str]:
    """``(name, arguments, status)`` of a tool call's ``response_item`` (``records.TOOL_ITEMS``):
    a hosted call (a web or tool search, an image generation) says in its item how it ended;
    the others are ``unknown`` until their output or end event."""
    ptype = payload.get("type")
    action = as_dict(payload.get("action"))
    arguments: object
    if ptype == "local_shell_call":
        name, arguments = "local_shell", {"command": action.get("command")}
    elif ptype == "web_search_call":
        name, arguments = "web_search", {"query": action.get("query")}
    elif ptype == "tool_search_call":  # ``arguments`` an object ({"query": …}), or maybe its JSON text
        name, arguments = "tool_search", parse_arguments(payload.get("arguments"))
    elif ptype == "image_generation_call":  # the prompt the model rewrote is what was drawn
        name, arguments = "image_generation", {"prompt": payload.get("revised_prompt")}
    elif ptype == "custom_tool_call":
        name, arguments = as_str(payload.get("name")) or "tool", parse_arguments(payload.get("input"))
    else:
        name, arguments = as_str(payload.get("name")) or "tool", parse_arguments(payload.get("arguments"))
    status = hosted_status(payload, "unknown") if ptype in HOSTED_CALLS else "unknown"
    return name, arguments, status or "unknown"
