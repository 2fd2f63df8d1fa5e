"""API tokens this worker process checked a moment ago, so most requests need no database
read to know who is calling.

An entry lives :data:`TOKEN_SECONDS` (5 s). The bound this puts on revocation: a token
revoked, or its user deactivated or given other roles, is refused by every worker process
within 5 s (at once by the process whose admin screen did it: :meth:`TokenCache.clear`).
Logging a round does not lean on it: that transaction reads the user's roles and active
flag again, so a deactivated dealer logs nothing even within those 5 s. Entries are keyed
by the token's SHA-256, never the token; tokens that were refused are not remembered.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Generic, TypeVar

#: How long a checked token is trusted without reading the database again (seconds).
TOKEN_SECONDS = 5.0
#: At most this many tokens are remembered (the oldest are dropped first).
TOKEN_ENTRIES = 1024

U = TypeVar("U")


class TokenCache(Generic[U]):
    """``token -> user`` for :data:`TOKEN_SECONDS`, thread-safe."""

    def __init__(self, seconds: float = TOKEN_SECONDS, entries: int = TOKEN_ENTRIES) -> None:
        self.seconds = seconds
        self.entries = entries
        self._lock = threading.Lock()
        self._users: dict[str, tuple[float, U]] = {}

    @staticmethod
    def _key(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, token: str) -> U | None:
        """The user the token belonged to a moment ago, or None (not checked lately)."""
        key = self._key(token)
        with self._lock:
            found = self._users.get(key)
            if found is None:
                return None
            if time.monotonic() - found[0] >= self.seconds:
                del self._users[key]
                return None
            return found[1]

    def put(self, token: str, user: U) -> None:
        key = self._key(token)
        with self._lock:
            self._users.pop(key, None)
            while len(self._users) >= self.entries:
                del self._users[next(iter(self._users))]  # dicts keep insertion order
            self._users[key] = (time.monotonic(), user)

    def clear(self) -> None:
        """Forget every token (a token was revoked or a user changed in this process)."""
        with self._lock:
            self._users.clear()


__all__ = ["TOKEN_ENTRIES", "TOKEN_SECONDS", "TokenCache"]
