"""Human-readable ``show`` output."""

from __future__ import annotations

from agentscan.cli.render import compact_number, ellipsize, home_short, short_time
from agentscan.model import SessionDetail, TokenUsage


def _tokens_line(usage: TokenUsage | None) -> str:
    if usage is None:
        return "not recorded"
    return (
        f"{usage.total:,} total = {usage.input:,} input + {usage.cache_read:,} cache read"
        f" + {usage.cache_write:,} cache write + {usage.output:,} output"
        + (f" ({usage.reasoning:,} reasoning)" if usage.reasoning else "")
    )


def print_detail(detail: SessionDetail) -> None:
    row = detail.row
    print(f"{row.id}")
    focus = detail.extra.get("focus")
    if focus:
        print(f"  {'focus':<8} {focus['query']} is subagent {focus['subagent']} of this session:"
              f" its part is listed under subagents, its tool calls marked [{focus['subagent']}]")
    for label, value in (
        ("title", row.title),
        ("cwd", home_short(row.cwd)),
        ("model", row.model),
        ("branch", row.git_branch),
        ("started", short_time(row.started_at)),
        ("updated", short_time(row.updated_at)),
        ("path", row.path),
        ("tokens", _tokens_line(row.tokens)),
    ):
        print(f"  {label:<8} {value if value else '-'}")
    if row.tokens is None and detail.extra.get("context_tokens") is not None:
        print(f"  {'context':<8} {detail.extra['context_tokens']:,} tokens in the context window (the provider recorded no usage)")
    if detail.extra.get("parent_missing"):
        print(f"  {'parent':<8} transcript missing: title, counts and conversation come from its subagents")
    if detail.extra.get("hook_events"):
        print(f"  {'hooks':<8} {detail.extra['hook_events']} captured hook events (agentscan trace {row.id})")
    if detail.extra.get("rewound_messages"):
        print(f"  {'rewound':<8} {detail.extra['rewound_messages']} messages (their tokens still count)")
    counts = row.counts
    print(f"  {'counts':<8} {counts.prompts} prompts, {counts.responses} responses, {counts.tool_calls} tool calls")
    if detail.subagents:
        print(f"\nsubagents ({len(detail.subagents)})")
        for sub in detail.subagents:
            total = compact_number(sub.tokens.total) if sub.tokens else "-"
            note = f"  (no transcript: from {sub.recovered_from} records)" if sub.recovered_from else ""
            print(f"  {sub.id:<24} {sub.agent_type or '-':<18} {total:>8} tokens{note}")
    if detail.plan:
        print("\nplan")
        for step in detail.plan:
            print(f"  [{step.status}] {step.step}")
    if detail.prompts:
        print(f"\nprompts ({len(detail.prompts)})")
        for prompt in detail.prompts[-10:]:
            print(f"  {short_time(prompt.timestamp)}  {ellipsize(prompt.text, 100)}")
    if detail.tools:
        print(f"\ntools ({len(detail.tools)}, newest 15)")
        for tool in detail.tools[-15:]:
            marker = {"ok": "ok ", "error": "ERR"}.get(tool.status, " ? ")
            who = f" [{tool.subagent}]" if tool.subagent else ""
            print(f"  {marker} {tool.name}{who}: {ellipsize(tool.summary, 90)}")
    if detail.responses:
        print("\nlast response")
        print("  " + ellipsize(detail.responses[-1].text, 400))
    dropped = {k: v for k, v in detail.truncated.items() if v}
    if dropped:
        print("\ntruncated: " + ", ".join(f"{k} {v}" for k, v in dropped.items()))
