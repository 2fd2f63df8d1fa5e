"""What a supervisor or auditor reviews: one round in full, the floor at a glance,
and large-payout approvals.

Builds on :mod:`.rounds` (the round as logged, re-settled), :mod:`.reporting` (a shift's
figures, exact edges and SD band) and the domain (:mod:`dealer_assist.domain.review`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.domain.analysis import AnalysisResult, analyze
from dealer_assist.domain.chips import DEFAULT_DENOMINATIONS, round_pay_plan
from dealer_assist.domain.review import (
    NetDifference,
    SeatDelta,
    beyond,
    combined_deviation,
    correction_deltas,
    recheck,
)
from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.domain.settle_json import settle_json
from dealer_assist.store.audit import append_event
from dealer_assist.store.models import (
    CasinoSettings,
    GamingTable,
    PayoutApproval,
    Round,
    RuleSetVersion,
    Shift,
    User,
    table_chain,
    utcnow,
)

from . import rounds as rounds_service
from ._base import acting_user, find_table, read, write
from .errors import Forbidden
from .rounds import RoundDetail, get_round

# ---------------------------------------------------------------- one round


@dataclass(frozen=True)
class ApprovalInfo:
    id: int
    approved_by: str
    requested_by: str
    method: str
    at: datetime
    largest_pay: int
    threshold: int
    seats: str


@dataclass(frozen=True)
class RoundReview:
    """Everything the dispute page shows about one round."""

    detail: RoundDetail
    rules: RuleSet
    version_label: str
    analysis: AnalysisResult
    #: Logged nets against a fresh settlement: empty when they agree.
    differences: list[NetDifference]
    approvals: list[ApprovalInfo]
    #: For a correction's replacement: what it changes per seat against the original.
    deltas: list[SeatDelta] = field(default_factory=list)
    original_total: int | None = None

    @property
    def agrees(self) -> bool:
        return not self.differences


def _stored_nets(detail: RoundDetail) -> dict[int, dict[str, int]]:
    return {s.seat: s.net for s in detail.seats}


def _approvals(session: orm.Session, rnd: Round) -> list[ApprovalInfo]:
    users = {int(i): str(n) for i, n in session.execute(sa.select(User.id, User.name))}
    rows = session.scalars(sa.select(PayoutApproval).where(
        PayoutApproval.table_id == rnd.table_id,
        PayoutApproval.request_sha256 == rnd.request_sha256).order_by(PayoutApproval.id))
    return [ApprovalInfo(a.id, users.get(a.approved_by_id, "?"),
                         users.get(a.requested_by_id, "?"), a.method, a.at, a.largest_pay,
                         a.threshold, a.seats) for a in rows]


def round_review(session: orm.Session, round_id: int) -> RoundReview:
    """The round as settled, re-checked, with its rules, edges, approvals and correction."""
    detail = get_round(session, round_id)
    with read(session):
        version = session.get(RuleSetVersion, detail.round.ruleset_version_id)
        assert version is not None
        rules = ruleset_from_json(json.loads(version.rules_json))
        label = version.label or (f"pair plus {rules.pays_label('pair_plus')}, ante bonus "
                                  f"{rules.pays_label('ante_bonus')}")
        approvals = _approvals(session, detail.round)
    deltas: list[SeatDelta] = []
    original_total = None
    if detail.replaces_round_id is not None:
        original = get_round(session, detail.replaces_round_id)
        deltas = correction_deltas(_nets_json(original), _nets_json(detail))
        original_total = original.round.total
    return RoundReview(detail, rules, label, analyze(rules),
                       recheck(_stored_nets(detail), detail.settlement_json), approvals,
                       deltas, original_total)


def _nets_json(detail: RoundDetail) -> dict[str, Any]:
    """The round's seats as logged (what was actually paid), settlement-shaped."""
    return {"seats": [{"seat": s.seat, "total": s.total} for s in detail.seats]}


# ---------------------------------------------------------------- large payouts

#: Who may approve a large payout.
APPROVER_ROLES = ("supervisor",)


def payout_threshold(session: orm.Session, table: str, default: int | None) -> int | None:
    """The table's own large-payout threshold, else the casino's, else ``default``."""
    with read(session):
        tbl = find_table(session, table)
        if tbl.large_payout_threshold is not None:
            return tbl.large_payout_threshold
        settings = session.get(CasinoSettings, 1)
        if settings is not None and settings.large_win_threshold is not None:
            return settings.large_win_threshold
        return default


@dataclass(frozen=True)
class LargePayout:
    seats: list[int]
    largest_pay: int
    threshold: int


def large_payout(settlement: Mapping[str, Any], threshold: int | None) -> LargePayout | None:
    """The seats paid over ``threshold`` in a settlement's JSON, or None."""
    if threshold is None:
        return None
    plans = round_pay_plan(settlement, DEFAULT_DENOMINATIONS, threshold)
    over = [p for p in plans if p.flagged]
    if not over:
        return None
    return LargePayout([p.seat for p in over], max(p.pay for p in over), threshold)


def request_sha256(table: str, round_json: Mapping[str, Any]) -> str:
    """The hash ``log_round`` stores for this round typed at ``table`` (source manual)."""
    return rounds_service._request_hash(table, round_json, "manual", None)


def approved_already(session: orm.Session, table: str, round_json: Mapping[str, Any],
                     idempotency_key: str | None = None) -> bool:
    """True for a retried request (its idempotency key already logged a round), or when an
    approval of exactly this round is recorded and no round has used it yet (the log failed
    after the approval). An approval covers one round: the same cards again need another."""
    sha = request_sha256(table, round_json)
    with read(session):
        if idempotency_key is not None and session.scalar(
                sa.select(Round.id).where(Round.idempotency_key == idempotency_key)) is not None:
            return True
        tbl = find_table(session, table)
        approvals = session.scalar(sa.select(sa.func.count()).where(
            PayoutApproval.table_id == tbl.id, PayoutApproval.request_sha256 == sha)) or 0
        used = session.scalar(sa.select(sa.func.count()).where(
            Round.table_id == tbl.id, Round.request_sha256 == sha)) or 0
        return approvals > used


def record_approval(session: orm.Session, *, table: str, round_json: Mapping[str, Any],
                    large: LargePayout, requested_by: str, approver: str,
                    method: str) -> PayoutApproval:
    """Record (and chain) a supervisor's approval of this round before it is logged.

    ``approver`` must be an active supervisor (Forbidden otherwise)."""
    sha = request_sha256(table, round_json)
    with write(session):
        who = acting_user(session, approver, *APPROVER_ROLES, doing="approve a large payout")
        requester = acting_user(session, requested_by, doing="ask for an approval")
        tbl = find_table(session, table)
        from dealer_assist.store.audit import lock_head, record_digest

        head = lock_head(session, table_chain(tbl.id))
        approval = PayoutApproval(
            table_id=tbl.id, request_sha256=sha, largest_pay=large.largest_pay,
            threshold=large.threshold, seats=",".join(str(s) for s in large.seats),
            requested_by_id=requester.id, approved_by_id=who.id, method=method, at=utcnow())
        session.add(approval)
        session.flush()
        shift_id = session.scalar(sa.select(Shift.id).where(Shift.table_id == tbl.id,
                                                            Shift.closed_at.is_(None)))
        append_event(session, chain=table_chain(tbl.id), actor=who.name,
                     action="payout.approved", table_id=tbl.id, shift_id=shift_id,
                     digest=record_digest("payout_approval", {
                         "id": approval.id, "table_id": tbl.id, "request_sha256": sha,
                         "largest_pay": large.largest_pay, "threshold": large.threshold,
                         "seats": approval.seats, "requested_by_id": requester.id,
                         "approved_by_id": who.id, "method": method, "at": approval.at}),
                     at=approval.at, head=head,
                     payload={"approval_id": approval.id, "request_sha256": sha,
                              "seats": large.seats, "largest_pay": large.largest_pay,
                              "threshold": large.threshold, "requested_by": requester.name,
                              "method": method})
    return approval


def check_approver(session: orm.Session, name: str, password: str, *,
                   address: str | None = None) -> User:
    """The supervisor ``name`` if ``password`` is theirs (logged as a sign-in either way,
    from the client's ``address``)."""
    from .admin import authenticate

    user = authenticate(session, name, password, address=address)
    if user is None:
        raise Forbidden("the supervisor's name or password is wrong: the payout is not "
                        "approved and the round is not logged")
    if not user.has_role(*APPROVER_ROLES):
        raise Forbidden(f"{user.name} is not a supervisor: only a supervisor approves a "
                        f"large payout")
    return user


# ---------------------------------------------------------------- the floor


@dataclass(frozen=True)
class FloorBet:
    bet: str
    handle: int
    house_win: int
    theoretical: float
    deviation: float | None


@dataclass(frozen=True)
class FloorTable:
    table: str
    seats: int
    shift_id: int | None
    opened_at: datetime | None
    dealer: str
    rounds: int
    handle: int
    house_win: int
    hold: Fraction | None
    theoretical: float
    deviation: float | None
    bets: list[FloorBet]
    large_payout_threshold: int | None

    @property
    def flagged(self) -> bool:
        return beyond(self.deviation) or any(beyond(b.deviation) for b in self.bets)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "shift_id": self.shift_id,
                "opened_at": None if self.opened_at is None else self.opened_at.isoformat(),
                "dealer": self.dealer, "rounds": self.rounds, "handle": self.handle,
                "house_win": self.house_win,
                "hold_percent": None if self.hold is None else float(self.hold),
                "theoretical_win": round(self.theoretical),
                "deviation_sd": self.deviation, "flagged": self.flagged}


def floor_view(session: orm.Session) -> list[FloorTable]:
    """Every active table: its open shift's figures (nothing when no shift is open)."""
    from .reporting import BETS, deviation, shift_figures, theoretical, variance

    with read(session):
        tables = list(session.scalars(sa.select(GamingTable).where(GamingTable.active.is_(True))
                                      .order_by(GamingTable.name)))
        shifts = {s.table_id: s for s in session.scalars(
            sa.select(Shift).where(Shift.closed_at.is_(None)))}
        last_dealer = {}
        for t in tables:
            shift = shifts.get(t.id)
            if shift is None:
                continue
            name = session.scalar(sa.select(User.name).join(Round, Round.entered_by_id == User.id)
                                  .where(Round.shift_id == shift.id)
                                  .order_by(Round.at.desc(), Round.id.desc()).limit(1))
            last_dealer[t.id] = name or ", ".join(shift.dealers or []) or "—"
        out: list[FloorTable] = []
        for t in tables:
            shift = shifts.get(t.id)
            if shift is None:
                out.append(FloorTable(t.name, t.seats, None, None, "", 0, 0, 0, None, 0.0, None,
                                      [], t.large_payout_threshold))
                continue
            fig, _, edges = shift_figures(session, shift.id, verify=False)
            line = fig.total
            bets = [FloorBet(b, line.bets[b].handle, line.bets[b].house_win,
                             float(theoretical(line.bets[b], b, edges)),
                             deviation(line.bets[b], b, edges)) for b in BETS]
            theo = sum(b.theoretical for b in bets)
            z = combined_deviation(line.house_win, theo,
                                   [variance(line.bets[b], b, edges) for b in BETS])
            out.append(FloorTable(t.name, t.seats, shift.id, shift.opened_at,
                                  last_dealer[t.id], fig.logged_rounds, line.handle,
                                  line.house_win, line.hold, theo, z, bets,
                                  t.large_payout_threshold))
        return out


# ---------------------------------------------------------------- preview of a correction

def preview_settlement(session: orm.Session, round_id: int,
                       round_json: Mapping[str, Any]) -> dict[str, Any]:
    """Settle ``round_json`` by the original round's table rules, without logging."""
    with read(session):
        rnd = session.get(Round, round_id)
        if rnd is None:
            from .errors import NotFound

            raise NotFound(f"no round {round_id}")
        table = session.get(GamingTable, rnd.table_id)
        assert table is not None
        version = session.get(RuleSetVersion, table.ruleset_version_id)
        assert version is not None
        rules = ruleset_from_json(json.loads(version.rules_json))
        seats = table.seats
    return settle_json(dict(round_json), rules, seats)


__all__ = ["APPROVER_ROLES", "ApprovalInfo", "FloorBet", "FloorTable", "LargePayout",
           "RoundReview", "approved_already", "check_approver", "floor_view", "large_payout",
           "payout_threshold", "preview_settlement", "record_approval", "request_sha256",
           "round_review"]
