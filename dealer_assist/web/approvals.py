"""Large payouts: a round paying a seat over the table's threshold is logged only with a
supervisor's approval, recorded (and chained) before the round.

The approval comes with the log request: the signed-in user or token holder is a
supervisor (``session`` / ``token``), or the body carries ``"approval": {"supervisor":
name, "password": ...}`` typed by the supervisor at the dealer's screen (``password``).
Without one the request is refused with 403 ``approval_required`` and nothing is logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import request

from dealer_assist.services import review as review_service

from .auth import sign_in_failed, sign_in_wait
from .backend import BackendError, ForbiddenError, TableInfo, UserInfo
from .store import store


class ApprovalRequired(ForbiddenError):
    code = "approval_required"


def split_body(data: object) -> tuple[object, Mapping[str, Any] | None]:
    """The round without its ``approval`` key, and the approval (if any)."""
    if isinstance(data, Mapping) and "approval" in data:
        rest = {k: v for k, v in data.items() if k != "approval"}
        approval = data["approval"]
        if approval is not None and not isinstance(approval, Mapping):
            raise BackendError('approval is {"supervisor": name, "password": ...}', "approval")
        return rest, approval
    return data, None


def require_approval(table: TableInfo, round_json: Mapping[str, Any], settlement: Mapping[str, Any],
                     user: UserInfo, approval: Mapping[str, Any] | None, *, via: str,
                     idempotency_key: str | None = None) -> None:
    """Refuse (403) a large payout without a supervisor's approval; record it when given."""
    large = review_service.large_payout(settlement, table.large_payout_threshold)
    if large is None:
        return
    with store() as s:
        if review_service.approved_already(s, table.name, round_json, idempotency_key):
            return  # a retried request: approved (and maybe logged) the first time
    if "supervisor" in user.roles:
        approver, method = user.name, via
    else:
        if not approval:
            seats = ", ".join(str(x) for x in large.seats)
            raise ApprovalRequired(
                f"seat {seats} would be paid over the {large.threshold / 100:,.2f} "
                f"large-payout threshold: a supervisor must approve (their name and password) "
                f"before the round is logged")
        name = str(approval.get("supervisor") or "").strip()
        password = str(approval.get("password") or "")
        wait = sign_in_wait(name)
        if wait:
            raise ApprovalRequired(f"too many wrong approvals: try again in {wait} seconds")
        try:
            with store(write=True) as s:
                review_service.check_approver(s, name, password, address=request.remote_addr)
        except ForbiddenError:
            sign_in_failed(name)
            raise
        approver, method = name, "password"
    with store(write=True) as s:
        review_service.record_approval(s, table=table.name, round_json=round_json, large=large,
                                       requested_by=user.name, approver=approver, method=method)
