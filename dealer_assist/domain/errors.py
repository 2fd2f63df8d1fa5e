"""The domain's own exceptions: every bad input becomes one of these, with where it was."""

from __future__ import annotations

import reprlib

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 40, 40
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = 4


def shown(value: object) -> str:
    """A short repr of a bad value for an error message: nesting and length are cut, so a
    hostile value (1,000 levels deep, a megabyte long) neither crashes nor floods the message.

    >>> print(shown([[[[["AS"]]]]]), shown("Q" * 100))
    [[[[...]]]] 'QQQQQQQQQQQQQQQQQ...QQQQQQQQQQQQQQQQQQ'
    """
    try:
        return _SHOWN.repr(value)
    except (ValueError, RecursionError):  # an int past str()'s digit limit, a cycle
        return f"<{type(value).__name__}>"


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
