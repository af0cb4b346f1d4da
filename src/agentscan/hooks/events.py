"""Hook event names, grouped by what they mean, for Cursor, Claude Code and Gemini CLI alike.

The tree builder (``hooks/``) and the live OTLP sender (``otlp/live.py``)
must agree on which event opens or closes what, so the names live here once.
Stdlib only, nothing imported: the hook's hot path reads these.
"""

from __future__ import annotations

#: the agents a hook is installed for, by their providers' keys (here, not in the ``status``
#: that reads configs: the terminal's words for them need none of that); their display names
#: are ``providers.label_of``'s, one table (a second here said the same three names)
HOOK_AGENTS = ("claude", "cursor", "gemini")

#: a tool call is requested (pairs with a completion)
TOOL_REQUESTS = ("preToolUse", "PreToolUse", "BeforeTool")
#: a tool call ended, well or not
TOOL_COMPLETIONS = ("postToolUse", "postToolUseFailure", "PostToolUse", "PostToolUseFailure", "PermissionDenied",
                    "AfterTool")
#: a person's prompt opens a turn
PROMPTS = ("beforeSubmitPrompt", "UserPromptSubmit", "BeforeAgent")
#: the agent stopped: the turn is over (Gemini CLI's ``AfterAgent``: once a turn, after its final response)
TURN_STOPS = ("stop", "Stop", "StopFailure", "AfterAgent")
SUBAGENT_STARTS = ("subagentStart", "SubagentStart")
SUBAGENT_STOPS = ("subagentStop", "SubagentStop")
#: Cursor's inner events that close a shell or MCP call
INNER_COMPLETIONS = ("afterShellExecution", "afterMCPExecution")
#: events about the session or workspace, not a turn
SESSION_EVENTS = frozenset({
    "sessionStart", "sessionEnd", "workspaceOpen", "beforeTabFileRead", "afterTabFileEdit",
    "SessionStart", "SessionEnd", "Setup",
})
SESSION_STARTS = ("sessionStart", "SessionStart")
#: every Cursor hook event, as Cursor names it (camelCase): how a Cursor payload that reaches the
#: hook installed for Claude Code is told (capture.py); ``hooks install`` registers all but the Tab ones
CURSOR_EVENTS = (
    "sessionStart", "sessionEnd", "beforeSubmitPrompt", "afterAgentThought", "afterAgentResponse",
    "preToolUse", "postToolUse", "postToolUseFailure", "beforeShellExecution", "afterShellExecution",
    "beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit", "subagentStart",
    "subagentStop", "preCompact", "stop", "workspaceOpen", "beforeTabFileRead", "afterTabFileEdit",
)
SESSION_ENDS = ("sessionEnd", "SessionEnd")
#: Cursor's Tab events: run on every Tab completion, read by nothing of agentscan's (no turn,
#: no session), so ``hooks install`` does not register them and removes an older install's
CURSOR_TAB_EVENTS = ("beforeTabFileRead", "afterTabFileEdit")

#: the Gemini CLI events ``hooks install gemini`` registers (google-gemini/gemini-cli
#: docs/hooks/reference.md): not ``BeforeModel``, ``AfterModel`` (run for every streamed chunk)
#: nor ``BeforeToolSelection``, which run for each model request with the whole conversation in
#: their payload, and which the tree does not read
GEMINI_EVENTS = (
    "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "Notification", "PreCompress",
    "SessionEnd",
)
#: Gemini CLI's own event names (no other agent sends them): how a payload without ``--agent`` is told
GEMINI_ONLY_EVENTS = frozenset({
    "BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "BeforeToolSelection",
    "PreCompress",
})
