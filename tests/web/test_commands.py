"""``dealer-assist demo`` and ``serve`` (without starting a server)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from dealer_assist.cli import main
from dealer_assist.web import create_app

from .conftest import Auth


def test_demo_builds_a_floor_and_prints_passwords(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path), "--rounds", "5",
                                       "--no-serve"])
    assert result.exit_code == 0, result.output
    found = dict(re.findall(r"^\s+\w+\s+(\w+)\s+(\S+)$", result.output, re.M))
    assert set(found) == {"dana", "sam", "alex", "ada"}
    url = re.search(r"DATABASE_URL=(\S+)", result.output)
    assert url
    app = create_app({"TESTING": True, "DATABASE_URL": url.group(1)}, instance_path=tmp_path)
    try:
        auth = Auth(app.test_client())
        assert auth.login("dana", found["dana"]).status_code == 302
        tables = auth.client.get("/dealer/").text
        assert "Main 1" in tables and "High Limit" in tables
        history = auth.client.get("/dealer/High Limit/history?scope=all").text
        assert history.count("data-serial=") == 5
        assert auth.client.get("/dealer/Main 1").status_code == 200  # its shift is open
    finally:
        app.extensions["dealer_assist.backend"].close()


def test_serve_refuses_a_database_without_schema(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--instance", str(tmp_path)])
    assert result.exit_code != 0
    assert "init-db" in result.output


def test_serve_help_says_localhost() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert "127.0.0.1" in result.output
