"""The hand log's schema as SQLAlchemy 2 typed models.

Money is integer minor units (cents); every time is UTC (:class:`UTCDateTime` returns aware
datetimes on both engines). Cards are stored as their index 0..51 (``(rank - 2) * 4 + suit``,
suits C, D, H, S; :attr:`dealer_assist.domain.cards.Card.index`) so the log re-settles in
bulk through the domain's batch path.

Append-only tables (database triggers refuse UPDATE and DELETE, see the migrations):
``ruleset_versions``, ``rounds``, ``seat_entries``, ``round_events``, ``shift_movements``,
``audit_events``; ``payout_approvals`` (migration 0002); ``shift_drops`` (migration 0003).
A void or a correction is a new :class:`RoundEvent`, a recounted drop a new
:class:`ShiftDrop`; the original stays.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.orm import Mapped, mapped_column, relationship

#: Roles a user may hold.
ROLES = ("dealer", "supervisor", "auditor", "admin")
#: How a round reached the log.
SOURCES = ("manual", "scan", "simulated")
#: Kinds of :class:`RoundEvent`.
ROUND_EVENT_KINDS = ("void", "correction", "misdeal")
#: Kinds of :class:`ShiftMovement`: chips brought to the table, or taken away.
MOVEMENT_KINDS = ("fill", "credit")
#: Tables that are never updated nor deleted from (the migrations put triggers on them).
APPEND_ONLY_TABLES = ("ruleset_versions", "rounds", "seat_entries", "round_events",
                      "shift_movements", "audit_events")
#: Added by migration 0002, append-only the same way.
APPEND_ONLY_TABLES_0002 = ("payout_approvals",)
#: Added by migration 0003, append-only the same way.
APPEND_ONLY_TABLES_0003 = ("shift_drops",)
#: prev_hash of the first event of every chain.
GENESIS_HASH = "0" * 64
#: The chain of events that belong to no table: logins, users, tokens, rule sets, settings.
FLOOR_CHAIN = "floor"

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Money = sa.BigInteger
CardIndex = sa.SmallInteger


def table_chain(table_id: int) -> str:
    """The name of a table's own audit chain (its rounds, voids, shifts, settings)."""
    return f"table:{table_id}"


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back as an aware UTC datetime."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the hand log: times must be aware (UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime(),
                                                      dict[str, Any]: sa.JSON()}


class CasinoSettings(Base):
    """The one row of floor-wide settings (id 1)."""

    __tablename__ = "casino_settings"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(200), default="Casino")
    time_zone: Mapped[str] = mapped_column(sa.String(64), default="UTC")
    shift_hours: Mapped[int] = mapped_column(default=8)
    currency: Mapped[str] = mapped_column(sa.String(3), default="USD")
    #: Payouts above this (minor units) are listed on the shift report; None: no threshold.
    large_win_threshold: Mapped[int | None] = mapped_column(Money)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: When the gaming day starts, on the casino's clock (migration 0003).
    gaming_day_start: Mapped[time] = mapped_column(sa.Time, default=time(0),
                                                   server_default=sa.text("'00:00:00'"))
    #: Custom shift starts (``["06:00", "14:30", "22:00"]``, casino's clock), or None for
    #: regular shifts of ``shift_hours`` from the gaming-day start (migration 0003).
    shift_starts: Mapped[list[str] | None] = mapped_column(sa.JSON)


class RuleSetVersion(Base):
    """An immutable rule set (canonical JSON and its SHA-256). Rounds point at the one used."""

    __tablename__ = "ruleset_versions"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    content_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    rules_json: Mapped[str] = mapped_column(sa.Text)
    label: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[str] = mapped_column(sa.String(100))


class GamingTable(Base):
    """A table on the floor. Its limits and payout cap are part of its rule-set version."""

    __tablename__ = "gaming_tables"
    __table_args__ = (sa.CheckConstraint("seats BETWEEN 1 AND 7", name="seats_1_to_7"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(100), unique=True)
    seats: Mapped[int] = mapped_column(sa.Integer)
    ruleset_version_id: Mapped[int] = mapped_column(sa.ForeignKey("ruleset_versions.id"))
    #: Camera seat zones: {"1": [[x, y], ...polygon], ...} in image coordinates, or None.
    seat_zones: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: A seat paying more than this (minor units) needs a supervisor's approval before the
    #: round is logged; None: the casino's threshold applies.
    large_payout_threshold: Mapped[int | None] = mapped_column(Money)
    #: Chip values (minor units) the dealer pays with here; None: the app's defaults.
    chip_denominations: Mapped[list[int] | None] = mapped_column(sa.JSON)
    #: SHA-256 of the enrolled deck file scans at this table read with (``vision
    #: enroll-table``, ``vision deck install``); each change is a ``deck.enrolled`` or
    #: ``deck.removed`` event on the table's chain. A deck file that is not this one is not
    #: used. None: no deck.
    deck_sha256: Mapped[str | None] = mapped_column(sa.String(64))

    ruleset_version: Mapped[RuleSetVersion] = relationship(lazy="joined")


class User(Base):
    """A person who uses the tool. ``roles`` is a set; the password hash is argon2id."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(100), unique=True)
    role_list: Mapped[str] = mapped_column("roles", sa.String(200))
    password_hash: Mapped[str | None] = mapped_column(sa.Text)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def roles(self) -> frozenset[str]:
        return frozenset(r for r in self.role_list.split(",") if r)

    def has_role(self, *roles: str) -> bool:
        """True if the user holds any of ``roles`` (admin holds no other role implicitly)."""
        return bool(self.roles & set(roles))


class ApiToken(Base):
    """An API token, stored as the SHA-256 of the secret (the secret is shown once)."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    prefix: Mapped[str] = mapped_column(sa.String(12))
    label: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column()

    user: Mapped[User] = relationship(lazy="joined")


class Shift(Base):
    """A table's shift: who opened and closed it, when, and the chip inventories.

    Inventories are ``{"denomination in minor units": count}`` (JSON keys are strings).
    At most one open shift per table (a partial unique index).
    """

    __tablename__ = "shifts"
    __table_args__ = (
        sa.Index("ix_shifts_one_open_per_table", "table_id", unique=True,
                 sqlite_where=sa.text("closed_at IS NULL"),
                 postgresql_where=sa.text("closed_at IS NULL")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("gaming_tables.id"))
    opened_at: Mapped[datetime] = mapped_column()
    opened_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    dealers: Mapped[list[str]] = mapped_column(sa.JSON, default=list)
    opening_inventory: Mapped[dict[str, Any]] = mapped_column(sa.JSON, default=dict)
    closed_at: Mapped[datetime | None] = mapped_column()
    closed_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    closing_inventory: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)

    table: Mapped[GamingTable] = relationship(lazy="joined")
    opened_by: Mapped[User] = relationship(foreign_keys=[opened_by_id])
    closed_by: Mapped[User | None] = relationship(foreign_keys=[closed_by_id])
    movements: Mapped[list[ShiftMovement]] = relationship(order_by="ShiftMovement.id",
                                                          viewonly=True)


class ShiftMovement(Base):
    """A fill (chips brought to the table) or credit (chips taken away) during a shift."""

    __tablename__ = "shift_movements"
    __table_args__ = (
        sa.CheckConstraint("kind IN ('fill', 'credit')", name="kind"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    shift_id: Mapped[int] = mapped_column(sa.ForeignKey("shifts.id"), index=True)
    kind: Mapped[str] = mapped_column(sa.String(10))
    chips: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    amount: Mapped[int] = mapped_column(Money)
    at: Mapped[datetime] = mapped_column()
    by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))


class ShiftDrop(Base):
    """A closed shift's drop as the count found it: the cash and markers in the table's
    drop box (what players paid for chips at the table), with who counted it and when.

    Append-only. A recount appends a record that supersedes the one before it
    (``supersedes_id``, with a reason); the shift's drop is the record nothing supersedes.
    The database keeps the history a line: one first record per shift (a partial unique
    index) and each record superseded at most once (unique ``supersedes_id``).
    """

    __tablename__ = "shift_drops"
    __table_args__ = (
        sa.CheckConstraint("cash >= 0 AND markers >= 0 AND amount = cash + markers",
                           name="amounts"),
        sa.Index("ix_shift_drops_one_first_per_shift", "shift_id", unique=True,
                 sqlite_where=sa.text("supersedes_id IS NULL"),
                 postgresql_where=sa.text("supersedes_id IS NULL")),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    shift_id: Mapped[int] = mapped_column(sa.ForeignKey("shifts.id"), index=True)
    cash: Mapped[int] = mapped_column(Money)
    markers: Mapped[int] = mapped_column(Money)
    #: cash + markers: the drop the win and hold use.
    amount: Mapped[int] = mapped_column(Money)
    supersedes_id: Mapped[int | None] = mapped_column(sa.ForeignKey("shift_drops.id"),
                                                      unique=True)
    #: Why a recount replaced the record before it ("" for the first count).
    reason: Mapped[str] = mapped_column(sa.Text, default="")
    at: Mapped[datetime] = mapped_column()
    by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))

    by: Mapped[User] = relationship()


class Round(Base):
    """A logged round: the dealer's cards and who, when, how and under which rules.

    ``serial`` counts 1, 2, 3... per table with no gap. ``total`` is the players' net
    (the house wins its negative). Dealer cards may be missing only on a misdeal.
    """

    __tablename__ = "rounds"
    __table_args__ = (
        sa.UniqueConstraint("table_id", "serial"),
        sa.CheckConstraint("serial >= 1", name="serial_positive"),
        sa.CheckConstraint("source IN ('manual', 'scan', 'simulated')", name="source"),
        sa.Index("ix_rounds_at", "at"),
        sa.Index("ix_rounds_at_id", "at", "id"),
        sa.Index("ix_rounds_table_id_at", "table_id", "at", "id"),
        sa.Index("ix_rounds_shift_id_at", "shift_id", "at", "id"),
        sa.Index("ix_rounds_misdeal_at", "at", sqlite_where=sa.text("misdeal"),
                 postgresql_where=sa.text("misdeal")),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("gaming_tables.id"))
    serial: Mapped[int] = mapped_column(sa.Integer)
    shift_id: Mapped[int] = mapped_column(sa.ForeignKey("shifts.id"), index=True)
    ruleset_version_id: Mapped[int] = mapped_column(sa.ForeignKey("ruleset_versions.id"))
    #: The dealer's cards as entered, canonical (``"QS 7H 2C"``); c1..c3 are their indices
    #: when there are exactly three (a misdeal may have fewer or more).
    dealer_cards: Mapped[str] = mapped_column(sa.String(80))
    dealer_c1: Mapped[int | None] = mapped_column(CardIndex)
    dealer_c2: Mapped[int | None] = mapped_column(CardIndex)
    dealer_c3: Mapped[int | None] = mapped_column(CardIndex)
    misdeal: Mapped[bool] = mapped_column(default=False)
    misdeal_reason: Mapped[str] = mapped_column(sa.Text, default="")
    entered_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    at: Mapped[datetime] = mapped_column()
    source: Mapped[str] = mapped_column(sa.String(10))
    photo_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    idempotency_key: Mapped[str | None] = mapped_column(sa.String(200), unique=True)
    request_sha256: Mapped[str] = mapped_column(sa.String(64))
    total: Mapped[int] = mapped_column(Money)

    table: Mapped[GamingTable] = relationship()
    shift: Mapped[Shift] = relationship()
    ruleset_version: Mapped[RuleSetVersion] = relationship()
    entered_by: Mapped[User] = relationship()
    seats: Mapped[list[SeatEntry]] = relationship(order_by="SeatEntry.seat", viewonly=True)
    events: Mapped[list[RoundEvent]] = relationship(
        foreign_keys="RoundEvent.round_id", order_by="RoundEvent.id", viewonly=True)


#: What a seat was paid (the sum of its winning bets), as SQL over ``seat_entries``. The
#: generated column ``seat_entries.pay`` (migration 0002) is computed by it, and indexed.
SEAT_PAY_SQL = (
    "(CASE WHEN net_ante > 0 THEN net_ante ELSE 0 END"
    " + CASE WHEN net_play > 0 THEN net_play ELSE 0 END"
    " + CASE WHEN net_ante_bonus > 0 THEN net_ante_bonus ELSE 0 END"
    " + CASE WHEN net_pair_plus > 0 THEN net_pair_plus ELSE 0 END"
    " + CASE WHEN net_six_card > 0 THEN net_six_card ELSE 0 END"
    " + CASE WHEN net_prime > 0 THEN net_prime ELSE 0 END)")


class SeatEntry(Base):
    """One seat of a round: cards, stakes, decision, and the net paid per bet."""

    __tablename__ = "seat_entries"

    round_id: Mapped[int] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    #: Cards as entered, canonical (``"AS KD 3C"``); c1..c3 their indices when exactly three.
    cards: Mapped[str] = mapped_column(sa.String(80))
    c1: Mapped[int | None] = mapped_column(CardIndex)
    c2: Mapped[int | None] = mapped_column(CardIndex)
    c3: Mapped[int | None] = mapped_column(CardIndex)
    ante: Mapped[int] = mapped_column(Money)
    play: Mapped[bool] = mapped_column()
    pair_plus: Mapped[int] = mapped_column(Money)
    six_card: Mapped[int] = mapped_column(Money)
    prime: Mapped[int] = mapped_column(Money)
    net_ante: Mapped[int] = mapped_column(Money)
    net_play: Mapped[int] = mapped_column(Money)
    net_ante_bonus: Mapped[int] = mapped_column(Money)
    net_pair_plus: Mapped[int] = mapped_column(Money)
    net_six_card: Mapped[int] = mapped_column(Money)
    net_prime: Mapped[int] = mapped_column(Money)
    #: Generated by the database: what the seat was paid (its winning bets), for searches.
    pay: Mapped[int] = mapped_column(Money, sa.Computed(SEAT_PAY_SQL), index=True)

    @property
    def net(self) -> dict[str, int]:
        return {"ante": self.net_ante, "play": self.net_play, "ante_bonus": self.net_ante_bonus,
                "pair_plus": self.net_pair_plus, "six_card": self.net_six_card,
                "prime": self.net_prime}

    @property
    def total(self) -> int:
        return sum(self.net.values())


class RoundEvent(Base):
    """A void, correction or misdeal declared on a logged round, with who, when and why.

    A correction links the replacement round (logged anew, with its own serial).
    """

    __tablename__ = "round_events"
    __table_args__ = (
        sa.CheckConstraint("kind IN ('void', 'correction', 'misdeal')", name="kind"),
        sa.Index("ix_round_events_kind_round_id", "kind", "round_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(sa.ForeignKey("rounds.id"), index=True)
    kind: Mapped[str] = mapped_column(sa.String(12))
    reason: Mapped[str] = mapped_column(sa.Text)
    actor_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    at: Mapped[datetime] = mapped_column()
    replacement_round_id: Mapped[int | None] = mapped_column(sa.ForeignKey("rounds.id"),
                                                             index=True)

    actor: Mapped[User] = relationship()


class PayoutApproval(Base):
    """A supervisor's approval of a round paying a seat over the table's threshold.

    Recorded before the round is logged; the round it approved is the one with the same
    ``request_sha256`` at the same table (``Round.request_sha256``). ``method``: the
    supervisor was the one signed in (``session``), typed their password at the dealer's
    screen (``password``), or sent the round with their own API token (``token``).
    """

    __tablename__ = "payout_approvals"
    __table_args__ = (
        sa.CheckConstraint("method IN ('session', 'password', 'token')", name="method"),
        sa.Index("ix_payout_approvals_request_sha256", "request_sha256"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("gaming_tables.id"))
    request_sha256: Mapped[str] = mapped_column(sa.String(64))
    largest_pay: Mapped[int] = mapped_column(Money)
    threshold: Mapped[int] = mapped_column(Money)
    #: The seats over the threshold, comma separated (``"3,5"``).
    seats: Mapped[str] = mapped_column(sa.String(40))
    requested_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    approved_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    method: Mapped[str] = mapped_column(sa.String(12))
    at: Mapped[datetime] = mapped_column()

    approved_by: Mapped[User] = relationship(foreign_keys=[approved_by_id])
    requested_by: Mapped[User] = relationship(foreign_keys=[requested_by_id])


class AuditEvent(Base):
    """One link of a hash chain (a table's own chain, or the floor chain).

    ``hash`` = SHA-256 of ``prev_hash`` followed by the event's canonical JSON
    (:func:`dealer_assist.store.audit.canonical_event`). ``digest`` is the SHA-256 of the
    record the event is about (a round with its seats, a void, a shift, a rule set), so
    changing that record breaks the match even when the chain itself is intact.
    """

    __tablename__ = "audit_events"
    __table_args__ = (
        sa.UniqueConstraint("chain", "seq"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    chain: Mapped[str] = mapped_column(sa.String(40))
    seq: Mapped[int] = mapped_column(sa.Integer)
    at: Mapped[datetime] = mapped_column()
    actor: Mapped[str] = mapped_column(sa.String(100))
    action: Mapped[str] = mapped_column(sa.String(40))
    table_id: Mapped[int | None] = mapped_column(sa.ForeignKey("gaming_tables.id"))
    shift_id: Mapped[int | None] = mapped_column(sa.ForeignKey("shifts.id"))
    round_id: Mapped[int | None] = mapped_column(sa.ForeignKey("rounds.id"), index=True)
    digest: Mapped[str | None] = mapped_column(sa.String(64))
    payload: Mapped[str] = mapped_column(sa.Text)
    prev_hash: Mapped[str] = mapped_column(sa.String(64))
    hash: Mapped[str] = mapped_column(sa.String(64), unique=True)


class ChainHead(Base):
    """The last link of each chain and, for a table, its last round serial.

    Writers lock this row (``SELECT ... FOR UPDATE``; ``BEGIN IMMEDIATE`` on SQLite), which
    is what makes serials consecutive and the chain linear under concurrent terminals.
    It is a cache: ``verify-log`` recomputes everything from the events themselves.
    """

    __tablename__ = "chain_heads"

    chain: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    table_id: Mapped[int | None] = mapped_column(sa.ForeignKey("gaming_tables.id"))
    seq: Mapped[int] = mapped_column(sa.Integer, default=0)
    hash: Mapped[str] = mapped_column(sa.String(64), default=GENESIS_HASH)
    round_serial: Mapped[int] = mapped_column(sa.Integer, default=0)


__all__ = [
    "APPEND_ONLY_TABLES",
    "APPEND_ONLY_TABLES_0002",
    "APPEND_ONLY_TABLES_0003",
    "FLOOR_CHAIN",
    "GENESIS_HASH",
    "ROLES",
    "ROUND_EVENT_KINDS",
    "SEAT_PAY_SQL",
    "SOURCES",
    "ApiToken",
    "AuditEvent",
    "Base",
    "CasinoSettings",
    "ChainHead",
    "GamingTable",
    "PayoutApproval",
    "Round",
    "RoundEvent",
    "RuleSetVersion",
    "SeatEntry",
    "Shift",
    "ShiftDrop",
    "ShiftMovement",
    "UTCDateTime",
    "User",
    "table_chain",
    "utcnow",
]
