"""``dealer-assist settle`` as other programs call it: JSON and JSON Lines, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from dealer_assist.cli import main

ROUND = {"dealer": ["QS", "7H", "2C"],
         "seats": [{"seat": 1, "cards": ["AS", "KD", "3C"], "ante": 1000, "play": True,
                    "pair_plus": 500, "six_card": 0, "prime": 0}]}
EXAMPLE = Path(__file__).parents[2] / "examples" / "round.json"


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_one_round_from_stdin_gives_nets_total_and_reasons() -> None:
    code, out, _ = run(["settle"], json.dumps(ROUND))
    assert code == 0
    seat = json.loads(out)["seats"][0]
    assert seat["net"] == {"ante": 1000, "play": 1000, "ante_bonus": 0, "pair_plus": -500,
                           "six_card": 0, "prime": 0}
    assert seat["total"] == 1500
    assert seat["hand"]["name"] == "A-K-3 high"
    assert all(bet["reason"] for bet in seat["bets"])


def test_the_shipped_example_settles() -> None:
    code, out, _ = run(["settle", str(EXAMPLE)])
    assert code == 0
    totals = {s["seat"]: s["total"] for s in json.loads(out)["seats"]}
    # seat 4: 10-J-Q straight beats Q-8-3 (ante+play 5000, ante bonus 2500, pair plus 6000,
    # six card loses 500, prime loses 500)
    # seat 6: pair of aces beats Q-8-3 (ante+play 1000), six card pair loses 500
    assert totals == {1: 1500, 2: -1500, 4: 12500, 6: 500}


def test_a_bad_round_exits_2_naming_the_seat() -> None:
    bad = json.loads(json.dumps(ROUND))
    bad["seats"].append({"seat": 3, "cards": ["AS", "2D", "4C"], "ante": 100, "play": True})
    code, out, err = run(["settle"], json.dumps(bad))
    assert code == 2
    assert out == ""
    assert "seat 3: AS is already in seat 1" in err


def test_json_lines_settles_good_lines_and_reports_bad_ones() -> None:
    lines = [json.dumps(ROUND), json.dumps({"dealer": ["QS"], "seats": []}), "{oops",
             json.dumps(dict(ROUND, rules={"pair_plus": {"pair": 1}, "dealer_qualifier": "K"}))]
    code, out, err = run(["settle"], "\n".join(lines) + "\n")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 4
    assert results[0]["seats"][0]["total"] == 1500
    assert results[1]["error"]["line"] == 2 and "no seats" in results[1]["error"]["message"]
    assert results[2]["error"]["code"] == "invalid_json"
    # under a king qualifier, Q-7-2 does not qualify: ante pays, play returned
    assert results[3]["seats"][0]["net"]["play"] == 0
    assert "2 round(s) not settled" in err


def test_rules_file_applies_to_rounds_without_their_own(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"ante_bonus": {}, "pair_plus": "40-30-6-4-1"}))
    pair = dict(ROUND, seats=[dict(ROUND["seats"][0], cards=["AS", "AD", "3C"])])
    code, out, _ = run(["settle", "--rules", str(rules)], json.dumps(pair))
    assert code == 0 and json.loads(out)["seats"][0]["net"]["pair_plus"] == 500
    rules.write_text('{"pair_plus": {"pair": -1}}')
    code, _, err = run(["settle", "--rules", str(rules)], json.dumps(pair))
    assert code == 2 and "pair_plus.pair" in err


def test_bad_rules_inside_a_round_name_the_key() -> None:
    code, _, err = run(["settle"], json.dumps(dict(ROUND, rules={"pair_plus": {"royal": 5}})))
    assert code == 2 and "rules: pair_plus.royal: unknown hand" in err


def test_empty_and_non_json_input_exit_2() -> None:
    assert run(["settle"], "")[0] == 2
    assert run(["settle"], "not json")[0] == 2
