"""``dealer-assist analyze``: the human table, the JSON form of DESIGN.md, bad input exits 2."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dealer_assist.commands import analyze as analyze_command


@pytest.fixture
def cli() -> click.Group:
    """A group with only this command, so the test does not depend on other commands."""

    @click.group()
    def group() -> None:
        pass

    analyze_command.register(group)
    return group


def test_json_default(cli: click.Group) -> None:
    result = CliRunner().invoke(cli, ["analyze", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    ap = data["ante_play"]
    assert f"{ap['house_edge']:.6f}" == "0.033730"
    assert Fraction(ap["house_edge_exact"]) == Fraction(686_689, 20_358_520)
    assert f"{ap['element_of_risk']:.6f}" == "0.020147"
    assert Fraction(ap["play_frequency_exact"]) == Fraction(14_900, 22_100)
    assert ap["strategy"] == "play Q-6-4 or better"
    assert f"{data['pair_plus']['house_edge']:.6f}" == "0.023167"
    assert f"{data['six_card']['house_edge']:.6f}" == "0.102248"
    assert Fraction(data["prime"]["house_edge_exact"]) == Fraction(405, 11_186)
    assert Fraction(data["dealer_qualifies_exact"]) == Fraction(15_380, 22_100)
    assert isinstance(data["dealer_qualifies"], float)
    for bet in ("pair_plus", "six_card", "prime"):
        assert Fraction(data[bet]["house_edge_exact"]) == pytest.approx(data[bet]["house_edge"])
        assert sum(Fraction(o["probability_exact"]) for o in data[bet]["outcomes"]) == 1
    assert ap["std_dev"] > 0


def test_json_custom_rules_file(cli: click.Group, tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({
        "ante_bonus": {},
        "pair_plus": {"mini_royal": 100, "straight_flush": 40, "three_of_a_kind": 30,
                      "straight": 5, "flush": 4, "pair": 1},
        "six_card_bonus": "1000-200-100-20-15-10-7",
        "prime": {},
    }))
    result = CliRunner().invoke(cli, ["analyze", "--rules", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert f"{data['ante_play']['house_edge']:.6f}" == "0.086580"
    assert f"{data['ante_play']['element_of_risk']:.6f}" == "0.051714"
    assert f"{data['pair_plus']['house_edge']:.6f}" == "0.044887"
    assert f"{data['six_card']['house_edge']:.6f}" == "0.085614"
    assert data["prime"] == {"offered": False, "house_edge": None, "house_edge_exact": None}


def test_human_table(cli: click.Group) -> None:
    result = CliRunner().invoke(cli, ["analyze"])
    assert result.exit_code == 0, result.output
    for text in ("3.3730%", "2.0147%", "2.3167%", "10.2248%", "3.6206%", "405/11186",
                 "play Q-6-4 or better", "15,380 of 22,100", "69.59%", "pair plus", "prime"):
        assert text in result.output, text


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "rule set is not valid JSON"),
    ('{"pair_plus": {"royal": 100}}', "pair_plus.royal: unknown hand"),
    ('{"dealer_qualifier": "Z"}', "dealer_qualifier"),
])
def test_bad_rules_exit_2(cli: click.Group, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(cli, ["analyze", "--rules", str(path), "--json"])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_missing_rules_file_exit_2(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["analyze", "--rules", str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "cannot read rule set" in result.output


def test_registered_in_the_main_command() -> None:
    import click

    from dealer_assist import cli as main_cli

    assert "analyze" in main_cli.COMMAND_MODULES
    with click.Context(main_cli.main) as ctx:
        assert "analyze" in main_cli.main.list_commands(ctx)
        assert main_cli.main.get_command(ctx, "analyze") is not None
