"""Shared plumbing of the services: transactions, error mapping, look-ups, actors."""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.store.db import begin_write
from dealer_assist.store.models import GamingTable, RuleSetVersion, User

from .errors import Conflict, Forbidden, NotFound, StoreUnavailable

#: A user given by name or as the loaded row.
UserRef = str | User


def _describe(error: sa_exc.DBAPIError) -> str:
    text = str(error.orig) if error.orig is not None else str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def unavailable(error: sa_exc.DBAPIError) -> StoreUnavailable:
    """The message a caller shows when the database cannot serve the request."""
    text = _describe(error)
    if "in doubt" in text:
        # The COMMIT went out and no answer came back (store.db's client deadline).
        return StoreUnavailable(
            f"the database stopped answering during the commit ({text}): the change may or "
            f"may not have been saved; check before doing it again (a round retried with "
            f"the same Idempotency-Key is never logged twice)")
    if "locked" in text.lower() or "busy" in text.lower():
        return StoreUnavailable(
            f"the database is locked: another program kept it busy beyond the wait limit "
            f"({text}); nothing was written, try again")
    if _read_only(error):
        return StoreUnavailable(f"the database is read-only ({text}); nothing was written")
    if _disk_full(error, text):
        return StoreUnavailable(
            f"the database is out of disk space ({text}); nothing was written, free space "
            f"and try again")
    if "disk I/O error" in text:
        # SQLite: a write the file system refused (a file-size limit, a failing disk).
        return StoreUnavailable(
            f"the database could not write to its disk ({text}: the disk may be full or "
            f"failing); nothing was written")
    return StoreUnavailable(f"the database cannot be reached ({text}); nothing was written")


def _read_only(error: sa_exc.DBAPIError) -> bool:
    # PostgreSQL 25006: a standby, or a server set read-only (default_transaction_read_only).
    return getattr(error.orig, "sqlstate", None) == "25006"


def _disk_full(error: sa_exc.DBAPIError, text: str) -> bool:
    # PostgreSQL 53100 (could not extend a file); SQLite's SQLITE_FULL.
    return getattr(error.orig, "sqlstate", None) == "53100" or "database or disk is full" in text


def _is_unavailable(error: sa_exc.DBAPIError) -> bool:
    if error.connection_invalidated or _read_only(error):
        return True
    if isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError)):
        text = _describe(error).lower()
        # An OperationalError from a trigger or a bad statement is not an outage.
        return not ("append-only" in text or "syntax error" in text or "no such" in text)
    return False


@contextmanager
def guard(session: orm.Session) -> Iterator[None]:
    """Turn an unreachable or locked database into :class:`StoreUnavailable` (rolled back)."""
    try:
        yield
    except sa_exc.DBAPIError as error:
        _safe_rollback(session)
        if _is_unavailable(error):
            raise unavailable(error) from error
        raise


def _safe_rollback(session: orm.Session) -> None:
    with suppress(sa_exc.DBAPIError):  # the connection may already be gone
        session.rollback()


@contextmanager
def write(session: orm.Session) -> Iterator[None]:
    """One write transaction: committed if the block finishes, rolled back on any error.

    Whatever the session had open is committed first (see :func:`begin_write`).
    """
    with guard(session):
        begin_write(session)
        try:
            yield
            session.commit()
        except BaseException:
            _safe_rollback(session)
            raise


@contextmanager
def read(session: orm.Session) -> Iterator[None]:
    """A read: errors mapped; the snapshot is ended afterwards so it never goes stale."""
    with guard(session):
        try:
            yield
        finally:
            if session.in_transaction() and not (session.new or session.dirty
                                                 or session.deleted):
                session.commit()


def system_actor() -> str:
    """How an operator with direct database access (the CLI) appears in the audit log."""
    try:
        who = getpass.getuser()
    except Exception:  # pragma: no cover - no user name in this environment
        who = "unknown"
    return f"system:{who}"


def find_user(session: orm.Session, ref: UserRef) -> User:
    if isinstance(ref, User):
        return ref
    user = session.scalars(sa.select(User).where(User.name == ref)).one_or_none()
    if user is None:
        raise NotFound(f"no user named {ref!r}")
    return user


def check_actor(name: str, active: bool, held: frozenset[str], *roles: str,
                doing: str) -> None:
    """Raise Forbidden unless the user ``name`` is active and holds one of ``roles``."""
    if not active:
        raise Forbidden(f"user {name!r} is deactivated and cannot {doing}")
    if roles and not held & set(roles):
        raise Forbidden(f"{doing} needs the role {' or '.join(roles)}; "
                        f"{name!r} has {', '.join(sorted(held)) or 'none'}")


def acting_user(session: orm.Session, ref: UserRef, *roles: str, doing: str) -> User:
    """The active user ``ref``, who must hold one of ``roles`` to be ``doing`` this."""
    user = find_user(session, ref)
    check_actor(user.name, user.active, user.roles, *roles, doing=doing)
    return user


def actor_name(session: orm.Session, actor: UserRef | None, *roles: str, doing: str) -> str:
    """Who did it, for the audit log: a user holding ``roles``, or the system operator."""
    if actor is None:
        return system_actor()
    return acting_user(session, actor, *roles, doing=doing).name


def find_table(session: orm.Session, name: str) -> GamingTable:
    table = session.scalars(sa.select(GamingTable).where(GamingTable.name == name)).one_or_none()
    if table is None:
        raise NotFound(f"no table named {name!r}")
    return table


@lru_cache(maxsize=128)
def rules_from_text(rules_json: str) -> RuleSet:
    """The domain rule set stored as this JSON (cached: versions never change)."""
    return ruleset_from_json(json.loads(rules_json))


def version_rules(version: RuleSetVersion) -> RuleSet:
    return rules_from_text(version.rules_json)


def integrity_conflict(error: sa_exc.IntegrityError, what: str) -> Conflict:
    return Conflict(f"{what}: {str(error.orig).splitlines()[0] if error.orig else error}")


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one (nouns made plural by an "s").

    >>> counted(1, "scanned round"), counted(2, "photo"), counted(0, "photo")
    ('1 scanned round', '2 photos', '0 photos')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


__all__ = ["UserRef", "acting_user", "actor_name", "check_actor", "counted", "find_table",
           "find_user", "guard", "read", "rules_from_text", "system_actor", "unavailable",
           "version_rules", "write"]
