"""Benchmark runner: every figure measured side by side, in one run, as medians.

    python bench/run.py [--out bench/out] [--runs 5] [--big-mb 1024] [--ccusage PATH]

It generates the scale home (``bench/generate.py``) once and reuses it, then
times, as separate processes:

* cold and warm ``agentscan list`` and ``agentscan tokens`` (cold = an empty
  agentscan cache dir; the OS file cache is warm for every tool alike);
* ``agentscan show`` of one huge transcript, with its peak RSS;
* ``agentscan --help``;
* a raw baseline that reads the same bytes and runs ``orjson.loads`` on
  every line;
* ``ccusage session --json --offline`` on the same home, when ccusage is
  installed (``--ccusage`` or ``node_modules/.bin/ccusage``).

Each agentscan figure is printed with its ratio to the raw baseline and to
ccusage, and the table is written to ``docs/performance.md`` with ``--write``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

ANALYSIS_MARKER = "<!-- analysis: kept by bench/run.py --write -->"

TARGETS = {
    "warm list": 0.25,
    "warm tokens": 0.25,
    "cold list": 1.5,
    "--help": 0.15,
}


def run_timed(argv: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (KiB) and exit code of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode


def median_of(runs: int, argv: list[str], env: dict[str, str], before=None) -> tuple[float, int]:
    times, peaks = [], []
    for _ in range(runs):
        if before is not None:
            before()
        elapsed, peak, code = run_timed(argv, env)
        if code != 0:
            raise SystemExit(f"{' '.join(argv)} exited {code}")
        times.append(elapsed)
        peaks.append(peak)
    return statistics.median(times), max(peaks)


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


def find_ccusage(explicit: str | None) -> str | None:
    for candidate in (explicit, str(REPO / "node_modules/.bin/ccusage"), "/tmp/ccu/node_modules/.bin/ccusage", shutil.which("ccusage")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--ccusage")
    parser.add_argument("--write", action="store_true", help="write docs/performance.md")
    args = parser.parse_args()

    home = args.out / "home"
    if not home.exists():
        print(f"generating the scale home in {args.out} …", file=sys.stderr)
        generate(args.out, scale=args.scale, big_mb=0)
    big_home = args.out / "big-home"
    if args.big_mb and not big_home.exists():
        import random

        from generate import claude_big

        print(f"generating a {args.big_mb} MB transcript …", file=sys.stderr)
        claude_big(big_home, random.Random(11), args.big_mb)

    python = sys.executable
    agentscan = [python, "-m", "agentscan"]
    cache = Path(tempfile.mkdtemp(prefix="agentscan-bench-cache-"))
    base_env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "AGENTSCAN_CACHE_DIR": str(cache),
                "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "LANG": "C.UTF-8"}

    def clear_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    files = sum(1 for p in home.rglob("*") if p.is_file())
    results: dict[str, tuple[float, int]] = {}
    results["raw baseline"] = median_of(args.runs, [python, "-c", BASELINE, str(home)], base_env)
    results["cold list"] = median_of(args.runs, agentscan + ["list"], base_env, before=clear_cache)
    agentscan_list = agentscan + ["list"]
    subprocess.run(agentscan_list, env=base_env, stdout=subprocess.DEVNULL, check=True)
    results["warm list"] = median_of(args.runs, agentscan_list, base_env)
    results["cold tokens"] = median_of(args.runs, agentscan + ["tokens", "--json"], base_env, before=clear_cache)
    subprocess.run(agentscan + ["tokens"], env=base_env, stdout=subprocess.DEVNULL, check=True)
    results["warm tokens"] = median_of(args.runs, agentscan + ["tokens", "--json"], base_env)
    results["--help"] = median_of(args.runs, agentscan + ["--help"], base_env)
    if args.big_mb:
        big_env = dict(base_env, HOME=str(big_home))
        results["show 1 GB"] = median_of(max(1, args.runs // 2), agentscan + ["--no-cache", "show", "b16b16b1"], big_env)
    ccusage = find_ccusage(args.ccusage)
    if ccusage:
        cc_env = {"PATH": base_env["PATH"], "HOME": str(home), "LOG_LEVEL": "0"}
        results["ccusage session"] = median_of(args.runs, [ccusage, "session", "--json", "--offline"], cc_env)

    report = render(results, size, files, ccusage is not None, args)
    print(report)
    if args.write:
        target = REPO / "docs" / "performance.md"
        # The hand-written analysis after the marker survives a re-run.
        kept = ""
        if target.exists() and ANALYSIS_MARKER in target.read_text():
            kept = target.read_text().split(ANALYSIS_MARKER, 1)[1]
        target.write_text(report + "\n" + ANALYSIS_MARKER + kept)


def render(results: dict[str, tuple[float, int]], size: int, files: int, with_ccusage: bool, args) -> str:
    raw = results["raw baseline"][0]
    cc = results.get("ccusage session", (None, 0))[0]
    lines = [
        "# Performance",
        "",
        "Generated by `python bench/run.py --write` (medians of "
        f"{args.runs} runs, measured side by side in one run).",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}",
        f"- scale home: {files:,} files, {size / 1e6:.0f} MB (`bench/generate.py`, scale {args.scale})",
        "- cold = empty agentscan cache; the OS file cache is warm for every tool alike",
        "",
        "| figure | seconds | peak RSS | × raw baseline | × ccusage | target |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, (seconds, peak) in results.items():
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"≤ {target} s: {'met' if seconds <= target else 'MISSED'}"
        if name == "cold tokens" and cc:
            verdict = f"≤ ccusage: {'met' if seconds <= cc else 'MISSED'}"
        if name == "warm tokens" and cc:
            verdict += f"; ≥ 5× faster than ccusage: {'met' if cc / seconds >= 5 else 'MISSED'}"
        if name == "show 1 GB":
            verdict = f"peak RSS ≤ 150 MB: {'met' if peak / 1024 <= 150 else 'MISSED'}"
        ratio_cc = f"{seconds / cc:.2f}" if cc else "n/a"
        lines.append(f"| {name} | {seconds:.3f} | {peak / 1024:.0f} MB | {seconds / raw:.2f} | {ratio_cc} | {verdict} |")
    if not with_ccusage:
        lines.append("")
        lines.append("ccusage was not installed, so its column is n/a "
                     "(`npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24`).")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
