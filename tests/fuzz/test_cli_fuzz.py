"""``dealer-assist settle`` under hostile input: exit 0 with JSON, or exit 2 with a message on
stderr; never a traceback (exit 1, or any exception escaping)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.cli import main

from .strategies import json_values, mutated_rounds, mutated_rulesets, valid_rounds

QUIET = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                 max_examples=150)


def settle(stdin: bytes, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["settle", *args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.stderr
    if result.exit_code == 2:
        assert result.stderr.strip(), "exit 2 must say why"
    return result.exit_code, result.stdout, result.stderr


def encode(value: Any) -> bytes:
    try:
        return json.dumps(value).encode()
    except ValueError:
        return repr(value).encode("utf-8", "surrogatepass")


@QUIET
@given(json_values)
def test_any_json(value: Any) -> None:
    code, out, _ = settle(encode(value))
    if code == 0:
        json.loads(out)


@QUIET
@given(mutated_rounds())
def test_mutated_round(value: Any) -> None:
    settle(encode(value))


@QUIET
@given(st.lists(st.one_of(mutated_rounds(), valid_rounds(), json_values), min_size=2,
                max_size=5))
def test_json_lines(values: list[Any]) -> None:
    """A bad line yields an error line; the others still settle (exit 0)."""
    code, out, _ = settle(b"\n".join(encode(v).replace(b"\n", b" ") for v in values))
    if code == 0:
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert len(lines) == sum(1 for v in values if encode(v).strip())


@QUIET
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    settle(data)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(rules=mutated_rulesets())
def test_hostile_rules_file(rules: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("rules") / "rules.json"
    path.write_bytes(encode(rules))
    result = CliRunner().invoke(main, ["settle", "--rules", str(path)],
                                input=json.dumps({"dealer": ["QH", "8C", "3D"], "seats": [
                                    {"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000}]}))
    assert result.exit_code in (0, 2), result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit)


COMMAND = str(Path(sys.executable).with_name("dealer-assist"))
ROUND = '{"dealer":["QH","8C","3D"],"seats":[{"seat":1,"cards":["KS","7H","2C"],"ante":%s}]}'


@pytest.mark.parametrize("stdin", [
    b"[" * 100_000 + b"]" * 100_000,                      # deeper than json can decode
    b"[" * 990 + b'"AS"' + b"]" * 990,                    # as deep as json decodes
    (ROUND % ("9" * 5000)).encode(),                      # past int's digit limit
    (ROUND % "1e400").encode(), (ROUND % "NaN").encode(), (ROUND % "-Infinity").encode(),
    b"\xff\xfe{}", b"\xc3\x28", "{}".encode("utf-16"),    # not UTF-8
    b'{"dealer":["QH","8C","3D"],"misdeal":true,"misdeal_reason":"\\ud800",'
    b'"seats":[{"seat":1,"cards":["KS","7H","2C"],"ante":100}]}',   # lone surrogate
    b"\x00" * 1000, b"{" * 3 + b"\n" + b"]" * 3,
])
def test_edge_inputs(stdin: bytes) -> None:
    settle(stdin)
    settle(stdin + b"\n" + (ROUND % "100").encode())    # as JSON Lines too


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path) -> None:
    """The real process, with a real (non-UTF-8, deeply nested) file and stdin."""
    for body in (b"[" * 200_000, b"\xff" * 10, (ROUND % ("9" * 5000)).encode()):
        path = tmp_path / "round.json"
        path.write_bytes(body)
        for args, stdin in (([str(path)], b""), ([], body)):
            done = subprocess.run([COMMAND, "settle", *args],
                                  input=stdin, capture_output=True, timeout=60)
            assert done.returncode == 2, done.stderr.decode()
            assert b"Traceback" not in done.stderr
            assert done.stderr.strip()
