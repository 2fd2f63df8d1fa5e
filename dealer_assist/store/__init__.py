"""The hand log: SQLAlchemy models, engines, the audit chain and Alembic migrations."""
