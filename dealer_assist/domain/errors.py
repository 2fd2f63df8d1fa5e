"""The domain's own exceptions: every bad input becomes one of these, with where it was."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error the rules raise; ``field`` says where (``seats[2].cards``)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return self.message


class CardError(DomainError):
    """A card token that is not a card, or a card used twice."""


class RuleSetError(DomainError):
    """A rule set whose JSON is malformed or whose values are out of range."""


class RoundError(DomainError):
    """A round that cannot be settled as entered (stakes, decisions, card counts)."""
