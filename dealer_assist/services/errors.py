"""Errors the service layer raises for its callers (web views, API, CLI) to show.

Domain errors (:class:`dealer_assist.domain.errors.DomainError`: a bad card, stake or rule
set) pass through unchanged, with their ``message`` and ``field``.
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base of the service errors; ``message`` is fit to show to the person at the screen."""

    #: Suggested HTTP status for the web layer.
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFound(ServiceError):
    """No such table, user, round, shift, rule-set version or token."""

    status = 404


class Conflict(ServiceError):
    """The request clashes with what is stored: a name taken, no open shift, a reused
    idempotency key with different content, a round already voided."""

    status = 409


class Forbidden(ServiceError):
    """The user lacks the role for this (or is inactive)."""

    status = 403


class InvalidInput(ServiceError):
    """Bad arguments that are not a round or rule set (those raise DomainError)."""

    status = 400


class StoreUnavailable(ServiceError):
    """The database cannot be reached, or stays locked: nothing was written."""

    status = 503


__all__ = ["Conflict", "Forbidden", "InvalidInput", "NotFound", "ServiceError",
           "StoreUnavailable"]
