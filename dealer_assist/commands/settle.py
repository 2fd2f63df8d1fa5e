"""``dealer-assist settle [FILE]``: one round as JSON, or many as JSON Lines."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import click

from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet, ruleset_from_text
from dealer_assist.domain.settle_json import settle_json


def _error(exc: DomainError, line: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": "invalid_round", "message": exc.message, "field": exc.field}
    if line is not None:
        body["line"] = line
    return {"error": body}


class _NotJSON(Exception):
    """Text that json.loads refuses: bad syntax, too deeply nested, a number too long."""


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _NotJSON(exc.msg) from exc
    except RecursionError as exc:
        raise _NotJSON("nested too deeply") from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise _NotJSON(str(exc)) from exc


def _dumps(value: Any, indent: int | None = None) -> str:
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False).encode().decode()
    except UnicodeEncodeError:  # a lone surrogate in the input's text: escape it instead
        return json.dumps(value, indent=indent)


def _read(file: TextIO, what: str) -> str:
    try:
        return file.read()
    except UnicodeDecodeError as exc:
        click.echo(f"error: {what} is not UTF-8 text ({exc.reason} at byte {exc.start})",
                   err=True)
        sys.exit(2)


def _settle_lines(lines: list[str], rules: RuleSet, out: TextIO) -> int:
    bad = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _loads(line)
        except _NotJSON as exc:
            bad += 1
            out.write(json.dumps({"error": {"code": "invalid_json", "line": number, "field": None,
                                            "message": f"line {number} is not JSON: {exc}"}}))
            out.write("\n")
            continue
        try:
            result: dict[str, Any] = settle_json(data, rules)
        except DomainError as exc:
            bad += 1
            result = _error(exc, number)
        out.write(_dumps(result))
        out.write("\n")
    return bad


def register(group: click.Group) -> None:
    @group.command()
    @click.argument("file", type=click.File("r", encoding="utf-8"), default="-")
    @click.option("--rules", "rules_file", type=click.File("r", encoding="utf-8"),
                  help="Rule set JSON for rounds that carry no \"rules\" of their own.")
    def settle(file: TextIO, rules_file: TextIO | None) -> None:
        """Settle rounds from FILE (or stdin): one round as JSON, or one per line (JSON Lines).

        Writes one settlement JSON per round: per seat the net of every bet, the total and
        the reasons. A bad round exits with code 2 and a message naming the seat; in JSON
        Lines mode the bad line gets an {"error": ...} line and the others still settle.
        """
        rules = DEFAULT_RULES
        if rules_file is not None:
            try:
                rules = ruleset_from_text(_read(rules_file, "--rules"))
            except DomainError as exc:
                raise click.UsageError(f"--rules: {exc.message}") from exc
        text = _read(file, "the input")
        if not text.strip():
            raise click.UsageError("no round given: pass a JSON file or pipe one in")
        try:
            data = _loads(text)
        except _NotJSON:
            lines = text.splitlines()
            if sum(1 for line in lines if line.strip()) < 2:
                click.echo("error: the input is not JSON", err=True)
                sys.exit(2)
            bad = _settle_lines(lines, rules, sys.stdout)
            if bad:
                click.echo(f"{bad} round(s) not settled: see their error lines", err=True)
            return
        try:
            result = settle_json(data, rules)
        except DomainError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(2)
        click.echo(_dumps(result, indent=2))
