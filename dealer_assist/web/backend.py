"""What the web needs from the store, as one small interface.

The blueprints never touch SQLAlchemy: they call the :class:`Backend` the app was built
with (``app.extensions["dealer_assist.backend"]``). :class:`ServicesBackend` adapts
``dealer_assist.services`` (the hand log); tests may pass any other implementation.
Every rule stays in the domain: the backend settles and logs through the services,
and the preview settles through :func:`dealer_assist.domain.settle_json.settle_json`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flask import Flask, current_app

from dealer_assist.domain.chips import DEFAULT_DENOMINATIONS
from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet

ROLES = ("dealer", "supervisor", "auditor", "admin")
#: Who may do what. A role not listed for an action is refused with 403. An admin
#: administers but deals only if also a dealer; an auditor reads everything and changes
#: nothing, but records a shift's drop (the count team).
PERMISSIONS: dict[str, frozenset[str]] = {
    "deal": frozenset({"dealer", "supervisor"}),
    "open_shift": frozenset({"supervisor", "admin"}),
    "close_shift": frozenset({"supervisor", "admin"}),
    "shift_chips": frozenset({"supervisor", "admin"}),
    "record_drop": frozenset({"supervisor", "auditor"}),
    "read": frozenset({"dealer", "supervisor", "auditor", "admin"}),
    "review": frozenset({"supervisor", "auditor", "admin"}),
    "amend": frozenset({"supervisor"}),
    "approve": frozenset({"supervisor"}),
    "administer": frozenset({"admin"}),
}
#: What each action is, for the refusal message.
ACTION_TEXT = {
    "deal": "settling and logging rounds", "open_shift": "opening a shift",
    "close_shift": "closing a shift", "shift_chips": "recording a fill or a credit",
    "record_drop": "recording a shift's drop",
    "read": "reading the log",
    "review": "reviewing the hand history", "amend": "voiding or correcting a round",
    "approve": "approving a large payout", "administer": "administration",
}


def allowed(roles: frozenset[str] | set[str], action: str) -> bool:
    """True if any of ``roles`` may do ``action``."""
    return bool(PERMISSIONS[action] & set(roles))


def refusal(roles: frozenset[str] | set[str], action: str) -> str:
    """The message of a 403: what was refused, who may, and what the user is."""
    who = ", ".join(sorted(roles)) or "no role"
    may = " or ".join(sorted(PERMISSIONS[action]))
    return f"{ACTION_TEXT[action].capitalize()} needs the role {may}; you are {who}."


class BackendError(Exception):
    """A refusal the web turns into an HTTP error: ``code`` names it, ``status`` is the 4xx/5xx."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFoundError(BackendError):
    status = 404
    code = "not_found"


class ConflictError(BackendError):
    status = 409
    code = "conflict"


class ForbiddenError(BackendError):
    status = 403
    code = "forbidden"


class UnavailableError(BackendError):
    status = 503
    code = "store_unavailable"


@dataclass(frozen=True, slots=True)
class UserInfo:
    id: int
    name: str
    roles: frozenset[str]
    active: bool = True

    @property
    def role(self) -> str:
        """The roles for display: ``dealer, supervisor``."""
        return ", ".join(sorted(self.roles))


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    seats: int
    rules: RuleSet = DEFAULT_RULES
    rules_label: str = ""
    denominations: tuple[int, ...] = DEFAULT_DENOMINATIONS
    large_payout_threshold: int | None = None
    #: The camera's seat zones (``{"1": [[x, y], ...], ..., "dealer": [...]}``), if drawn.
    seat_zones: Mapping[str, Any] | None = field(default=None, compare=False)
    #: SHA-256 of the enrolled deck on record for the table's scans (``table_decks``).
    deck_sha256: str | None = None


@dataclass(frozen=True, slots=True)
class ShiftInfo:
    id: int
    table: str
    opened_at: str
    opened_by: str
    closed_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "opened_at": self.opened_at,
                "opened_by": self.opened_by, "closed_at": self.closed_at,
                "open": self.closed_at is None}


@dataclass(frozen=True, slots=True)
class LoggedRoundInfo:
    round_id: int
    serial: int
    settlement: Mapping[str, Any]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class RoundSummaryInfo:
    """One line of a round list."""

    id: int
    table: str
    serial: int
    shift_id: int | None
    entered_by: str
    entered_at: str
    dealer_cards: tuple[str, ...]
    seats: int
    total: int
    status: str = "settled"

    def to_json(self) -> dict[str, Any]:
        return {"round_id": self.id, "table": self.table, "serial": self.serial,
                "shift_id": self.shift_id, "entered_by": self.entered_by,
                "entered_at": self.entered_at, "dealer_cards": list(self.dealer_cards),
                "seats": self.seats, "total": self.total, "status": self.status}


@dataclass(frozen=True, slots=True)
class RoundInfo:
    """A logged round as read back: its entry, its settlement, who and when, its trail.

    ``record`` is the store's own full JSON of the round (audit trail included), served
    as is by the API; the other fields are what the pages show."""

    id: int
    table: str
    serial: int
    shift_id: int | None
    entered_by: str
    entered_at: str
    round: Mapping[str, Any]
    settlement: Mapping[str, Any]
    status: str = "settled"
    events: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    record: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**dict(self.record), "round_id": self.id, "table": self.table,
                "serial": self.serial, "shift_id": self.shift_id,
                "entered_by": self.entered_by, "entered_at": self.entered_at,
                "status": self.status, "round": dict(self.round),
                "settlement": dict(self.settlement), "events": [dict(e) for e in self.events]}


@dataclass(frozen=True, slots=True)
class RoundFilters:
    table: str | None = None
    shift_id: int | None = None
    seat: int | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 50
    offset: int = 0


class Backend(Protocol):
    """The operations the web uses. Implementations raise :class:`BackendError` subclasses."""

    def authenticate(self, name: str, password: str, *,
                     address: str | None = None) -> UserInfo | None: ...
    def load_user(self, user_id: int) -> UserInfo | None: ...
    def user_for_token(self, token: str) -> UserInfo | None: ...
    def tables(self) -> list[TableInfo]: ...
    def table(self, name: str) -> TableInfo: ...
    def current_shift(self, table: str) -> ShiftInfo | None: ...
    def open_shift(self, table: str, user: UserInfo) -> ShiftInfo: ...
    def get_shift(self, shift_id: int) -> ShiftInfo: ...
    def close_shift(self, table: str, user: UserInfo) -> ShiftInfo: ...
    def log_round(self, table: str, round_json: Mapping[str, Any], user: UserInfo,
                  idempotency_key: str | None, *, source: str = "manual",
                  photo_sha256: str | None = None,
                  check: Callable[[Mapping[str, Any]], None] | None = None,
                  ) -> LoggedRoundInfo:
        """Validate, settle and log; ``check`` is called with the settlement before
        anything is written and may raise to refuse the round."""
    def get_round(self, round_id: int) -> RoundInfo: ...
    def list_rounds(self, filters: RoundFilters) -> list[RoundSummaryInfo]: ...
    def close(self) -> None: ...


def get_backend(app: Flask | None = None) -> Backend:
    backend: Backend = (app or current_app).extensions["dealer_assist.backend"]
    return backend


def init_app(app: Flask, backend: Backend | None = None) -> None:
    """Attach the backend: the given one, or the services on ``DATABASE_URL``."""
    if backend is None:
        from .services_backend import ServicesBackend

        backend = ServicesBackend.from_config(app.config)
    app.extensions["dealer_assist.backend"] = backend
