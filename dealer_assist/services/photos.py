"""Auditing and pruning the kept photos of scanned rounds.

A scanned round names its photo by SHA-256 (covered by the round's digest in the audit
chain); the photo itself is a file in the :class:`~.scan.PhotoStore`. :func:`check_photos`
tells an auditor whether every photo a logged round names is there and still hashes to its
name. :func:`prune_unlogged` deletes photos no logged round names (scans the dealer never
logged: a misread, a retake) once they are older than a given age, so the folder does not
grow for ever; photos of logged rounds, voided or not, are never deleted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store import models as m

from .errors import InvalidInput
from .scan import PhotoStore


@dataclass
class PhotoCheck:
    """What :func:`check_photos` found."""

    logged: int = 0  # distinct photos named by logged rounds
    missing: list[str] = field(default_factory=list)  # named by a round, not kept
    altered: list[str] = field(default_factory=list)  # kept, but the bytes hash otherwise
    unlogged: list[tuple[str, Path]] = field(default_factory=list)  # kept, named by no round

    @property
    def ok(self) -> bool:
        return not self.missing and not self.altered

    def summary(self) -> str:
        head = (f"{self.logged} photos of logged rounds, {len(self.missing)} missing, "
                f"{len(self.altered)} altered; {len(self.unlogged)} kept photos belong to no "
                f"logged round")
        return ("OK: " if self.ok else "FAILED: ") + head


def _logged_photos(session: orm.Session) -> set[str]:
    rows = session.scalars(sa.select(m.Round.photo_sha256)
                           .where(m.Round.photo_sha256.is_not(None)).distinct())
    return {str(r) for r in rows}


def _digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def check_photos(session: orm.Session, store: PhotoStore) -> PhotoCheck:
    """Every photo a logged round names is kept and hashes to its name; photos kept for
    no round are listed (they are not a failure: a scan need not be logged)."""
    logged = _logged_photos(session)
    out = PhotoCheck(logged=len(logged))
    kept: set[str] = set()
    for sha, path in store.stored():
        kept.add(sha)
        if _digest(path) != sha:
            out.altered.append(sha)
        elif sha not in logged:
            out.unlogged.append((sha, path))
    out.missing = sorted(logged - kept)
    return out


def prune_unlogged(session: orm.Session, store: PhotoStore, older_than: timedelta, *,
                   now: datetime | None = None, dry_run: bool = False) -> list[str]:
    """Delete kept photos that no logged round names and that were stored more than
    ``older_than`` ago (a photo just scanned may be about to be logged); the SHA-256s
    deleted (or, with ``dry_run``, that would be)."""
    if older_than < timedelta(hours=1):
        raise InvalidInput("photos are kept at least an hour after their scan: a dealer may "
                           "still be confirming the round")
    cutoff = (now or datetime.now(UTC)).timestamp() - older_than.total_seconds()
    logged = _logged_photos(session)
    gone = []
    for sha, path in store.stored():
        if sha in logged or path.stat().st_mtime > cutoff:
            continue
        if not dry_run:
            path.unlink(missing_ok=True)
        gone.append(sha)
    return gone
