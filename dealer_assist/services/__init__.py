"""The service layer: everything the web views, the API and the CLI do with the hand log.

Each function takes a SQLAlchemy session (``dealer_assist.store.db.session_factory``) and
keyword arguments; write functions commit their own transaction (committing anything the
session had open first) and roll back completely on any error. Errors: ``services.errors``
(NotFound, Conflict, Forbidden, InvalidInput, StoreUnavailable) and the domain's
DomainError (a bad round or rule set), which passes through.
"""

from __future__ import annotations

from .admin import (
    add_ruleset_version,
    authenticate,
    create_table,
    create_token,
    create_user,
    get_ruleset_version,
    get_settings,
    get_table,
    get_user,
    list_ruleset_versions,
    list_tables,
    list_tokens,
    list_users,
    revoke_token,
    set_table_rules,
    update_settings,
    update_table,
    update_user,
    user_for_token,
)
from .errors import Conflict, Forbidden, InvalidInput, NotFound, ServiceError, StoreUnavailable
from .export import export_shift
from .rounds import (
    LoggedRound,
    RoundDetail,
    RoundSummary,
    correct_round,
    get_round,
    list_rounds,
    log_round,
    void_round,
)
from .shifts import (
    close_shift,
    current_shift,
    get_shift,
    list_shifts,
    open_shift,
    record_chips,
    shift_summary,
)
from .simulate import SimulationResult, simulate
from .verify import Mismatch, Problem, VerifyResult, resettle, verify_log

__all__ = [
    "Conflict",
    "Forbidden",
    "InvalidInput",
    "LoggedRound",
    "Mismatch",
    "NotFound",
    "Problem",
    "RoundDetail",
    "RoundSummary",
    "ServiceError",
    "SimulationResult",
    "StoreUnavailable",
    "VerifyResult",
    "add_ruleset_version",
    "authenticate",
    "close_shift",
    "correct_round",
    "create_table",
    "create_token",
    "create_user",
    "current_shift",
    "export_shift",
    "get_round",
    "get_ruleset_version",
    "get_settings",
    "get_shift",
    "get_table",
    "get_user",
    "list_rounds",
    "list_ruleset_versions",
    "list_shifts",
    "list_tables",
    "list_tokens",
    "list_users",
    "log_round",
    "open_shift",
    "record_chips",
    "resettle",
    "revoke_token",
    "set_table_rules",
    "shift_summary",
    "simulate",
    "update_settings",
    "update_table",
    "update_user",
    "user_for_token",
    "verify_log",
    "void_round",
]
