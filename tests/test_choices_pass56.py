"""``--by``, ``--sort``, ``--format`` and ``--protocol`` (and the library's ``by=``, ``sort=``,
``format=``) are read by one function (``toolkit.choices.one_of``): any case, another tool's
word, an error naming the choices.  ``parse_format`` and ``choose_protocol`` had no type check
of their own: ``parse_format(5)`` was an ``AttributeError``, and ``export_sessions(format=5)``
said "must be a str" without the choices ``by=5`` and ``sort=5`` name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.errors import UsageProblem


def test_one_reading_of_a_choice() -> None:
    from agentscan.toolkit.choices import one_of

    assert one_of(" Day ", ("session", "day"), "--by") == "day"
    assert one_of("Project", ("cwd",), "--by", also={"project": "cwd"}) == "cwd"
    with pytest.raises(UsageProblem) as raised:
        one_of("dya", ("session", "day"), "--by", parameter="by")
    assert str(raised.value) == "unknown --by 'dya' (did you mean day?); choose from: session, day"
    assert raised.value.parameter == "by"
    with pytest.raises(UsageProblem, match=r"^sort must be a str, one of a, b, not NoneType$"):
        one_of(None, ("a", "b"), "sort")


def test_the_parsers_read_alike() -> None:
    from agentscan.export.formats import parse_format
    from agentscan.otlp.sender import choose_protocol
    from agentscan.scan.groupby import parse_group
    from agentscan.scan.tokensort import parse_sort

    assert (parse_group("PROJECT"), parse_sort(" Cost"), parse_format("SQLite")) == ("cwd", "cost", "sqlite")
    with pytest.raises(UsageProblem, match="did you mean cost"):
        parse_sort("price")
    for parse, name in ((parse_group, "by"), (parse_sort, "sort"), (parse_format, "format")):
        with pytest.raises(UsageProblem, match=r" must be a str, one of .*, not int$") as raised:
            parse(5)  # type: ignore[operator]
        assert raised.value.parameter == name
    with pytest.raises(UsageProblem, match=r"^--protocol must be a str, one of auto, protobuf, json, not int$"):
        choose_protocol(5)  # type: ignore[arg-type]
    source = Path(choose_protocol.__code__.co_filename).parents[1]
    copies = [path.name for path in source.rglob("*.py") if "must be a str, one of" in path.read_text(encoding="utf-8")]
    assert copies == ["choices.py"], copies


def test_the_librarys_format_names_its_choices(tmp_path: Path) -> None:
    from agentscan import export_sessions
    from agentscan.scan.scanner import Scanner

    with Scanner(home=tmp_path, env={}) as scanner, pytest.raises(UsageProblem) as raised:
        export_sessions(scanner, tmp_path / "out.jsonl", format=5)  # type: ignore[arg-type]
    assert str(raised.value) == "format must be a str, one of jsonl, csv, sqlite, not int"
    assert raised.value.parameter == "format"
