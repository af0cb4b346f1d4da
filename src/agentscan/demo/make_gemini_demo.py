"""Writes the Gemini CLI part of agentscan's demo home (made-up content).

Run ``python -m agentscan.demo.make_gemini_demo`` from a checkout; the files
it writes are committed, so users never run this.
"""
import hashlib
import json
import shutil
from pathlib import Path
import orjson

HOME = Path(__file__).resolve().parent / "home"
GEM = HOME / ".gemini"
shutil.rmtree(GEM, ignore_errors=True)

def tok(i, o, cached=0, thoughts=0, tool=0):
    return {"input": i, "output": o, "cached": cached, "thoughts": thoughts, "tool": tool, "total": i + o + thoughts + tool}

def thought(subject, description, ts):
    return [{"subject": subject, "description": description, "timestamp": ts}]

def call(cid, name, display, args, status, ts, description, output):
    return {"id": cid, "name": name, "args": args,
            "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}],
            "status": status, "timestamp": ts, "displayName": display, "description": description,
            "renderOutputAsMarkdown": name != "run_shell_command"}

def user(mid, ts, text, display=None):
    r = {"id": mid, "timestamp": ts, "type": "user", "content": [{"text": text}]}
    if display is not None:
        r["displayContent"] = [{"text": display}]
    return r

def gem(mid, ts, text, tokens, model, thoughts=(), calls=None):
    r = {"id": mid, "timestamp": ts, "type": "gemini", "content": text, "thoughts": list(thoughts), "tokens": tokens, "model": model}
    if calls is not None:
        r["toolCalls"] = calls
    return r

def jsonl(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))

# --- recipe-api: a slug dir (>= v0.29) with a JSONL chat (>= v0.39) -------------
RECIPE = "/home/demo/src/recipe-api"
SID = "5e1f0c2a-7d3b-4a9e-b1c6-2f8e0d4a6c13"
PHASH = hashlib.sha256(RECIPE.encode()).hexdigest()
FLASH, PRO = "gemini-3-flash-preview", "gemini-3.1-pro-preview"
proj = GEM / "tmp" / "recipe-api"
proj.mkdir(parents=True)
(proj / ".project_root").write_text(RECIPE)
(GEM / "projects.json").write_text(json.dumps({"projects": {RECIPE: "recipe-api"}}, indent=2))

g1_calls = [
    call("k1m0a2zq", "list_directory", "ReadFolder", {"dir_path": "."}, "success", "2026-11-27T14:05:21.412Z", ".", "Directory listing for .:\n[DIR] recipes\n[DIR] tests\npyproject.toml\nREADME.md"),
    call("p9x3c7tb", "read_file", "ReadFile", {"file_path": "recipes/routes.py"}, "success", "2026-11-27T14:05:21.412Z", "recipes/routes.py", "from fastapi import APIRouter ..."),
]
g2_calls = [
    call("w4n8r1ue", "replace", "Edit", {"file_path": "recipes/routes.py", "old_string": "@router.get(\"/recipes\")", "new_string": "@router.get(\"/recipes\")\n@router.get(\"/recipes/search\")", "allow_multiple": False}, "success", "2026-11-27T14:06:02.118Z", "recipes/routes.py: @router.get(\"/recipes\") => @router.get(\"/recipes\")...", "Successfully modified file: recipes/routes.py (1 replacements)."),
    call("b2v6s0yk", "run_shell_command", "Shell", {"command": "uv run pytest -q tests/test_search.py", "description": "Run the search tests."}, "error", "2026-11-27T14:06:40.905Z", "uv run pytest -q tests/test_search.py", "Exit code: 1\n1 failed, 4 passed"),
]
g4_calls = [
    call("h5t1q8ld", "codebase_investigator", "Codebase Investigator Agent", {"objective": "Find why ingredient matching ignores plurals"}, "success", "2026-11-27T14:09:12.330Z", "Find why ingredient matching ignores plurals", "Plural forms are never normalised: recipes/match.py compares raw tokens."),
]
g5_calls = [
    call("m3r7e2wa", "replace", "Edit", {"file_path": "recipes/match.py", "old_string": "tokens = query.lower().split()", "new_string": "tokens = [singular(t) for t in query.lower().split()]"}, "success", "2026-11-27T14:10:05.774Z", "recipes/match.py: tokens = query.lower().split() => tokens = [singular(t) for t...", "Successfully modified file: recipes/match.py (1 replacements)."),
    call("f6c0j9pn", "run_shell_command", "Shell", {"command": "uv run pytest -q", "description": "Run the whole test suite."}, "success", "2026-11-27T14:10:31.052Z", "uv run pytest -q", "23 passed in 1.84s"),
]
t = "2026-11-27T14:"
records = [
    {"sessionId": SID, "projectHash": PHASH, "startTime": t + "05:08.201Z", "lastUpdated": t + "05:08.201Z", "kind": "main"},
    user("0b6e9a51-3c2d-4e8f-9a1b-5c7d3e2f1a09", t + "05:14.660Z", "Add a /recipes/search endpoint that matches recipes by ingredient, with tests."),
    {"$set": {"lastUpdated": t + "05:14.661Z"}},
    gem("6f2a8c14-9e3b-4d7a-b5c1-0e8d2f4a6b37", t + "05:21.398Z", "", tok(9412, 118, cached=0, thoughts=412), FLASH,
        thought("Exploring the API", "I'll look at the router before adding the endpoint.", t + "05:19.870Z")),
    gem("6f2a8c14-9e3b-4d7a-b5c1-0e8d2f4a6b37", t + "05:21.398Z", "", tok(9412, 118, cached=0, thoughts=412), FLASH,
        thought("Exploring the API", "I'll look at the router before adding the endpoint.", t + "05:19.870Z"), g1_calls),
    {"$set": {"lastUpdated": t + "05:21.420Z"}},
    gem("a7d3e9b2-1c4f-4a6e-8b0d-3f5c7e9a1b24", t + "06:02.101Z", "", tok(13876, 640, cached=8192, thoughts=955), FLASH),
    gem("a7d3e9b2-1c4f-4a6e-8b0d-3f5c7e9a1b24", t + "06:02.101Z", "", tok(13876, 640, cached=8192, thoughts=955), FLASH, (), g2_calls),
    {"$set": {"lastUpdated": t + "06:40.930Z"}},
    gem("c1e5f7a9-3b2d-4c8e-9f0a-6d4b2c8e0f13", t + "06:48.517Z", "The new endpoint is in place, but one search test fails: `tomatoes` does not match recipes that list `tomato`.", tok(15210, 96, cached=12288, thoughts=230), FLASH),
    # The user rewound this turn and asked again, more precisely (the reply above was billed).
    user("d8b2a4c6-5e7f-4a1b-9c3d-2e6f8a0b4c51", t + "07:30.002Z", "Just skip that test for now."),
    gem("e3f5a7c9-1d2b-4e6f-8a0c-4b2d6f8a0c35", t + "07:36.288Z", "Skipped `test_plural_match` with a TODO.", tok(15480, 61, cached=12288, thoughts=118), FLASH),
    {"$rewindTo": "d8b2a4c6-5e7f-4a1b-9c3d-2e6f8a0b4c51"},
    {"$set": {"lastUpdated": t + "08:55.120Z"}},
    user("f2a4c6e8-0b1d-4f3a-8c5e-7a9b1d3f5e72", t + "08:55.119Z", "Don't skip it. Find out why plurals don't match and fix it properly."),
    gem("1a3c5e7b-9d0f-4b2a-8e4c-6f8a0b2d4e69", t + "09:12.301Z", "", tok(15733, 88, cached=12288, thoughts=301), PRO),
    gem("1a3c5e7b-9d0f-4b2a-8e4c-6f8a0b2d4e69", t + "09:12.301Z", "", tok(15733, 88, cached=12288, thoughts=301), PRO, (), g4_calls),
    gem("2b4d6f8a-0c1e-4a3b-9d5f-7b9c1e3a5d80", t + "10:05.760Z", "", tok(17044, 212, cached=15360, thoughts=540), PRO),
    gem("2b4d6f8a-0c1e-4a3b-9d5f-7b9c1e3a5d80", t + "10:05.760Z", "", tok(17044, 212, cached=15360, thoughts=540), PRO, (), g5_calls),
    gem("3c5e7a9b-1d2f-4b4c-8e6a-8c0d2f4b6e91", t + "10:38.447Z",
        "Fixed. `recipes/match.py` compared raw words, so `tomatoes` never met `tomato`. Query words now go through `singular()` first, and the whole suite passes (23 tests).",
        tok(17690, 143, cached=15360, thoughts=205), PRO),
    {"$set": {"lastUpdated": t + "10:38.470Z", "summary": "Add ingredient search endpoint and fix plural matching"}},
]
jsonl(proj / "chats" / f"session-2026-11-27T14-05-{SID[:8]}.jsonl", records)

AGENT = "q7k2mx"
sub = [
    {"sessionId": AGENT, "projectHash": PHASH, "startTime": t + "08:58.004Z", "lastUpdated": t + "08:58.004Z", "kind": "subagent", "directories": [RECIPE]},
    user("7e9a1c3d-5f2b-4d6e-8a0c-1e3f5a7c9b02", t + "08:58.010Z", "Your task is to investigate: Find why ingredient matching ignores plurals"),
    gem("8f0b2d4e-6a3c-4e7f-9b1d-2f4a6c8e0b13", t + "09:01.552Z", "", tok(6120, 74, cached=0, thoughts=260), FLASH, (),
        [call("r1s2t3u4", "grep_search", "SearchText", {"pattern": "def match"}, "success", t + "09:01.560Z", "'def match'", "recipes/match.py:12: def match_ingredients(query, recipe):")]),
    gem("9a1c3e5f-7b4d-4f8a-8c2e-3a5b7d9f1c24", t + "09:05.918Z", "", tok(7385, 52, cached=4096, thoughts=188), FLASH, (),
        [call("v5w6x7y8", "read_file", "ReadFile", {"file_path": "recipes/match.py"}, "success", t + "09:05.925Z", "recipes/match.py", "def match_ingredients(query, recipe): ...")]),
    gem("0b2d4f6a-8c5e-4a9b-9d3f-4b6c8e0a2d35", t + "09:11.604Z", "", tok(8012, 131, cached=4096, thoughts=97), FLASH, (),
        [call("z9a0b1c2", "complete_task", "Complete Task", {"report": "Plural forms are never normalised: recipes/match.py compares raw tokens."}, "success", t + "09:11.610Z", "Complete Task", "Task completed.")]),
]
jsonl(proj / "chats" / SID / f"{AGENT}.jsonl", sub)

(proj / "logs.json").write_text(json.dumps([
    {"sessionId": SID, "messageId": 0, "type": "user", "message": "Add a /recipes/search endpoint that matches recipes by ingredient, with tests.", "timestamp": t + "05:14.660Z"},
    {"sessionId": SID, "messageId": 1, "type": "user", "message": "Just skip that test for now.", "timestamp": t + "07:30.002Z"},
    {"sessionId": SID, "messageId": 2, "type": "user", "message": "Don't skip it. Find out why plurals don't match and fix it properly.", "timestamp": t + "08:55.119Z"},
], indent=2))

# --- weather-app: an old hash dir with a legacy JSON chat (<= v0.38) -------------
WEATHER = "/home/demo/src/weather-app"  # the Claude demo sessions ran here
WID = "9b7d3e41-2a6c-4f8b-a3d5-7c1e9f0b2d46"
WHASH = hashlib.sha256(WEATHER.encode()).hexdigest()
w = "2026-10-14T08:"
legacy = {
    "sessionId": WID, "projectHash": WHASH, "startTime": w + "30:02.114Z", "lastUpdated": w + "34:47.902Z",
    "messages": [
        user("4d6f8a0b-2c1e-4a3d-9b5f-6d8e0a2c4f57", w + "30:09.331Z", "Why does the forecast cache never expire?"),
        gem("5e7a9b1c-3d2f-4b4e-8c6a-7e9f1b3d5a68", w + "30:16.840Z", "I'll check how the cache TTL is set.", tok(8240, 41, cached=0, thoughts=388), "gemini-2.5-pro",
            thought("Locating the cache", "The cache is probably configured in weather/cache.py.", w + "30:14.002Z")),
        gem("6f8b0c2d-4e3a-4c5f-9d7b-8f0a2c4e6b79", w + "31:02.507Z", "`CACHE_TTL` is read as a string from the environment, so `time.time() - stamp > ttl` raises and the except branch keeps the stale entry. Converting it to `int` fixes it.", tok(10985, 118, cached=6144, thoughts=514), "gemini-2.5-pro"),
        user("7a9c1d3e-5f4b-4d6a-8e8c-9a1b3d5f7c80", w + "33:40.015Z", "Do it and add a regression test."),
        gem("8b0d2e4f-6a5c-4e7b-9f9d-0b2c4e6a8d91", w + "34:47.880Z", "Done: `CACHE_TTL` is parsed with `int()` and `tests/test_cache.py::test_entries_expire` covers it.", tok(12630, 402, cached=10240, thoughts=221), "gemini-2.5-pro"),
    ],
}
lp = GEM / "tmp" / WHASH / "chats" / f"session-2026-10-14T08-30-{WID[:8]}.json"
lp.parent.mkdir(parents=True)
lp.write_text(json.dumps(legacy, indent=2, ensure_ascii=False))
print("ok")
