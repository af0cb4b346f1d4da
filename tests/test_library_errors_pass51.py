"""The library's exceptions and index, as a Python caller meets them.

* ``UnknownProvider`` is a ``UsageProblem`` (its ``parameter`` names what was given), and still
  its own class; the CLI's exit code for it stays 2.
* Every domain exception pickles and unpickles (``ScannerClosed`` did not: a worker's error
  could not reach its parent).
* ``Scanner(env=…, use_cache=True)`` keeps its index where agentscan run with that ``env``
  would (its ``HOME``, ``XDG_CACHE_HOME``, ``AGENTSCAN_CACHE_DIR``), not in the caller's.
"""

from __future__ import annotations

import inspect
import pickle
from pathlib import Path
from typing import Any

import pytest

from agentscan import Scanner, demo_home, errors
from agentscan.errors import AgentscanError, UnknownProvider, UsageProblem
from agentscan.otlp.sender import SendResult
from builders import invoke


def test_unknown_provider_is_a_usage_problem_naming_its_parameter() -> None:
    with pytest.raises(UsageProblem) as raised:
        Scanner(home=demo_home(), env={}, provider_names=["claud"])
    assert type(raised.value) is UnknownProvider and raised.value.parameter == "provider_names"
    assert raised.value.name == "claud" and "claude" in raised.value.known
    with Scanner(home=demo_home(), env={}) as scanner, pytest.raises(UnknownProvider) as again:
        scanner.refs(["bogus"])
    assert again.value.parameter == "providers" and again.value.exit_code == 2
    assert invoke("--demo", "list", "-p", "bogus").exit_code == 2  # the contract's usage error, as before


#: the arguments of each exception whose ``__init__`` takes more than a message
SAMPLES: dict[type[AgentscanError], tuple[Any, ...]] = {
    errors.SessionNotFound: ("abc", "a reason"),
    errors.IdTooShort: ("ab", 6, "agentscan trace --list"),
    errors.ProviderNotId: ("claude", "claude"),
    errors.AmbiguousSessionId: ("7f", ["claude:7f1", "claude:7f2"]),
    errors.SessionUnreadable: ("claude:x", "gone"),
    errors.TranscriptUnreadable: ("claude:x", "/x.jsonl", "denied"),
    errors.UnknownProvider: ("claud", ["claude", "codex"]),
    errors.ScannerClosed: (),
    errors.StrictWarnings: (3, 1),
    errors.StdoutClosed: (),
    errors.StdoutUnwritable: ("No space left on device",),
    errors.SendFailed: ("refused", SendResult("http://127.0.0.1:4318/v1/traces", "http/json", 2, 40)),
}


def every_error() -> list[type[AgentscanError]]:
    return [value for _name, value in inspect.getmembers(errors, inspect.isclass)
            if issubclass(value, AgentscanError) and value.__module__ == errors.__name__]


@pytest.mark.parametrize("cls", every_error(), ids=lambda cls: cls.__name__)
def test_every_error_round_trips_through_pickle(cls: type[AgentscanError]) -> None:
    if cls is errors.NoHookEvents:
        error: AgentscanError = errors.NoHookEvents("abc", store_empty=False, demo=True)
    else:
        error = cls(*SAMPLES.get(cls, ("a message",)))
    if cls is errors.UsageProblem:
        error = errors.UsageProblem("bad by", parameter="by")
    back = pickle.loads(pickle.dumps(error))  # before: ScannerClosed, UnknownProvider … raised TypeError
    assert type(back) is cls and str(back) == str(error) and back.args == error.args
    assert vars(back) == vars(error) and back.details == error.details and back.exit_code == error.exit_code


def test_the_index_follows_the_env_given(tmp_path: Path, isolated_home: Path) -> None:
    def index_of(env: dict[str, str]) -> Path:
        with Scanner(home=demo_home(), env=env, use_cache=True) as scanner:
            scanner.list_sessions(limit=1)
            assert scanner.cache is not None
            return Path(scanner.cache.path)

    home = tmp_path / "given-home"
    # before: the caller's own (this process's XDG_CACHE_HOME, tmp_path / "cache")
    assert index_of({"HOME": str(home)}).parent == home / ".cache" / "agentscan"
    assert index_of({"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "xdg")}).parent == tmp_path / "xdg" / "agentscan"
    assert index_of({"AGENTSCAN_CACHE_DIR": str(tmp_path / "own")}).parent == tmp_path / "own"
    # an env that names no home (none of the shell's CODEX_HOME …): this user's own, as the CLI's
    assert index_of({}).parent == tmp_path / "cache" / "agentscan"
