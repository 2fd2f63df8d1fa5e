"""Alembic environment: runs on the connection :func:`dealer_assist.store.db.upgrade` passes."""

from __future__ import annotations

from alembic import context

from dealer_assist.store.models import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - the CLI and tests always pass a connection
    raise RuntimeError("run migrations through dealer_assist.store.db.upgrade()")

context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=connection.dialect.name == "sqlite", compare_type=True)
with context.begin_transaction():
    context.run_migrations()
