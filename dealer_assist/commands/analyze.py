"""``dealer-assist analyze [--rules FILE] [--json]``: exact house edge of every bet for a rule set."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from dealer_assist.domain.analysis import AnalysisResult, BetFigures, analyze
from dealer_assist.domain.errors import RuleSetError
from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet, ruleset_from_text


def _pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value):.4%}"


def _load(path: Path | None) -> RuleSet:
    if path is None:
        return DEFAULT_RULES
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleSetError(f"cannot read rule set {path}: {exc}") from exc
    return ruleset_from_text(text)


def _bet_row(table: Table, label: str, bet: BetFigures) -> None:
    if not bet.offered:
        table.add_row(label, "not offered", "—", "—", "—", "—")
        return
    table.add_row(
        label,
        bet.pays,
        _pct(bet.house_edge),
        _pct(bet.house_edge_with_folds) if bet.house_edge_with_folds is not None else "n/a",
        f"{bet.std_dev:.4f}",
        f"{bet.house_edge.numerator}/{bet.house_edge.denominator}",
    )


def render(result: AnalysisResult, console: Console) -> None:
    """The human form: the headline figures, then every bet's table."""
    ap = result.ante_play
    console.print(f"[bold]Three Card Poker — exact analysis[/bold]  rules {result.rules_hash[:12]}")
    console.print(
        f"Dealer qualifies with {result.dealer_qualifier}: {result.dealer_qualifying_hands:,} "
        f"of 22,100 hands ({float(result.dealer_qualifies):.2%})"
    )
    console.print(f"Strategy: {ap.strategy.description}")
    head = Table(title="Ante / play (per unit ante, optimal play)")
    for col in ("ante bonus", "house edge", "element of risk", "play frequency", "std dev",
                "exact edge"):
        head.add_column(col, justify="right")
    head.add_row(
        ap.pays,
        _pct(ap.house_edge),
        _pct(ap.element_of_risk),
        f"{float(ap.play_frequency):.4%}",
        f"{ap.std_dev:.4f}",
        f"{ap.house_edge.numerator}/{ap.house_edge.denominator}",
    )
    console.print(head)
    bets = Table(title="Side bets (per unit staked)")
    for col in ("bet", "pays", "house edge", "with folds", "std dev", "exact edge"):
        bets.add_column(col, justify="left" if col in ("bet", "pays") else "right")
    _bet_row(bets, "pair plus", result.pair_plus)
    _bet_row(bets, "six card bonus", result.six_card)
    _bet_row(bets, "prime", result.prime)
    console.print(bets)
    hits = Table(title="Hit frequency per paying hand")
    for col in ("bet", "hand", "probability", "1 in"):
        hits.add_column(col, justify="left" if col in ("bet", "hand") else "right")
    for label, bet in (("ante bonus", ap), ("pair plus", result.pair_plus),
                       ("six card", result.six_card), ("prime", result.prime)):
        for hand, p in bet.hit_frequency.items():
            one_in = f"{float(1 / p):,.1f}" if p else "never"
            hits.add_row(label, hand.replace("_", " "), f"{float(p):.6%}", one_in)
    console.print(hits)
    console.print(
        "House edge: loss per unit staked on that bet alone; \"with folds\": for a seat that "
        "also plays the ante by the strategy above, when the rules make a fold lose the bet."
    )


@click.command("analyze")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Rule-set JSON file (default: the standard rules).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
def analyze_command(rules_file: Path | None, as_json: bool) -> None:
    """Exact house edge, element of risk, optimal play and odds of every bet for a rule set."""
    try:
        rules = _load(rules_file)
    except RuleSetError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(analyze(rules).to_json(), indent=2))
        return
    err = Console(stderr=True)
    if err.is_terminal:
        with err.status("Counting every player and dealer hand..."):
            result = analyze(rules)
    else:
        result = analyze(rules)
    render(result, Console(width=max(100, Console().width)))


def register(group: click.Group) -> None:
    group.add_command(analyze_command)
