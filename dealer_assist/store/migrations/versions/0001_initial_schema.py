"""initial schema

Revision ID: 0001
Revises: (none)
The whole hand log: tables, rule sets, users, tokens, shifts, rounds, seats, round events,
audit chain; triggers that make the logged tables append-only on SQLite and PostgreSQL.
"""

# ruff: noqa: E501  (column lists as Alembic generated them)
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

#: Logged tables: a trigger refuses every UPDATE and DELETE on them (and TRUNCATE on PostgreSQL).
APPEND_ONLY = ("ruleset_versions", "rounds", "seat_entries", "round_events", "shift_movements",
               "audit_events")
TABLES = ("casino_settings", "ruleset_versions", "users", "api_tokens", "gaming_tables",
          "chain_heads", "shifts", "rounds", "shift_movements", "audit_events", "round_events",
          "seat_entries")

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('casino_settings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('time_zone', sa.String(length=64), nullable=False),
    sa.Column('shift_hours', sa.Integer(), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('large_win_threshold', sa.BigInteger(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_casino_settings'))
    )
    op.create_table('ruleset_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('rules_json', sa.Text(), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by', sa.String(length=100), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ruleset_versions')),
    sa.UniqueConstraint('content_hash', name=op.f('uq_ruleset_versions_content_hash')),
    sqlite_autoincrement=True
    )
    op.create_table('users',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('roles', sa.String(length=200), nullable=False),
    sa.Column('password_hash', sa.Text(), nullable=True),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('name', name=op.f('uq_users_name'))
    )
    op.create_table('api_tokens',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('prefix', sa.String(length=12), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_api_tokens_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_tokens_token_hash'))
    )
    op.create_index(op.f('ix_api_tokens_user_id'), 'api_tokens', ['user_id'], unique=False)

    op.create_table('gaming_tables',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('seats', sa.Integer(), nullable=False),
    sa.Column('ruleset_version_id', sa.Integer(), nullable=False),
    sa.Column('seat_zones', sa.JSON(), nullable=True),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('seats BETWEEN 1 AND 7', name=op.f('ck_gaming_tables_seats_1_to_7')),
    sa.ForeignKeyConstraint(['ruleset_version_id'], ['ruleset_versions.id'], name=op.f('fk_gaming_tables_ruleset_version_id_ruleset_versions')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_gaming_tables')),
    sa.UniqueConstraint('name', name=op.f('uq_gaming_tables_name'))
    )
    op.create_table('chain_heads',
    sa.Column('chain', sa.String(length=40), nullable=False),
    sa.Column('table_id', sa.Integer(), nullable=True),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('round_serial', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['table_id'], ['gaming_tables.id'], name=op.f('fk_chain_heads_table_id_gaming_tables')),
    sa.PrimaryKeyConstraint('chain', name=op.f('pk_chain_heads'))
    )
    op.create_table('shifts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('table_id', sa.Integer(), nullable=False),
    sa.Column('opened_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('opened_by_id', sa.Integer(), nullable=False),
    sa.Column('dealers', sa.JSON(), nullable=False),
    sa.Column('opening_inventory', sa.JSON(), nullable=False),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('closed_by_id', sa.Integer(), nullable=True),
    sa.Column('closing_inventory', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['closed_by_id'], ['users.id'], name=op.f('fk_shifts_closed_by_id_users')),
    sa.ForeignKeyConstraint(['opened_by_id'], ['users.id'], name=op.f('fk_shifts_opened_by_id_users')),
    sa.ForeignKeyConstraint(['table_id'], ['gaming_tables.id'], name=op.f('fk_shifts_table_id_gaming_tables')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shifts'))
    )
    op.create_index('ix_shifts_one_open_per_table', 'shifts', ['table_id'], unique=True, sqlite_where=sa.text('closed_at IS NULL'), postgresql_where=sa.text('closed_at IS NULL'))

    op.create_table('rounds',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('table_id', sa.Integer(), nullable=False),
    sa.Column('serial', sa.Integer(), nullable=False),
    sa.Column('shift_id', sa.Integer(), nullable=False),
    sa.Column('ruleset_version_id', sa.Integer(), nullable=False),
    sa.Column('dealer_cards', sa.String(length=80), nullable=False),
    sa.Column('dealer_c1', sa.SmallInteger(), nullable=True),
    sa.Column('dealer_c2', sa.SmallInteger(), nullable=True),
    sa.Column('dealer_c3', sa.SmallInteger(), nullable=True),
    sa.Column('misdeal', sa.Boolean(), nullable=False),
    sa.Column('misdeal_reason', sa.Text(), nullable=False),
    sa.Column('entered_by_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('source', sa.String(length=10), nullable=False),
    sa.Column('photo_sha256', sa.String(length=64), nullable=True),
    sa.Column('idempotency_key', sa.String(length=200), nullable=True),
    sa.Column('request_sha256', sa.String(length=64), nullable=False),
    sa.Column('total', sa.BigInteger(), nullable=False),
    sa.CheckConstraint("source IN ('manual', 'scan', 'simulated')", name=op.f('ck_rounds_source')),
    sa.CheckConstraint('serial >= 1', name=op.f('ck_rounds_serial_positive')),
    sa.ForeignKeyConstraint(['entered_by_id'], ['users.id'], name=op.f('fk_rounds_entered_by_id_users')),
    sa.ForeignKeyConstraint(['ruleset_version_id'], ['ruleset_versions.id'], name=op.f('fk_rounds_ruleset_version_id_ruleset_versions')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_rounds_shift_id_shifts')),
    sa.ForeignKeyConstraint(['table_id'], ['gaming_tables.id'], name=op.f('fk_rounds_table_id_gaming_tables')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds')),
    sa.UniqueConstraint('idempotency_key', name=op.f('uq_rounds_idempotency_key')),
    sa.UniqueConstraint('table_id', 'serial', name=op.f('uq_rounds_table_id_serial')),
    sqlite_autoincrement=True
    )
    op.create_index('ix_rounds_at', 'rounds', ['at'], unique=False)
    op.create_index(op.f('ix_rounds_shift_id'), 'rounds', ['shift_id'], unique=False)

    op.create_table('shift_movements',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('shift_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('chips', sa.JSON(), nullable=False),
    sa.Column('amount', sa.BigInteger(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('by_id', sa.Integer(), nullable=False),
    sa.CheckConstraint("kind IN ('fill', 'credit')", name=op.f('ck_shift_movements_kind')),
    sa.ForeignKeyConstraint(['by_id'], ['users.id'], name=op.f('fk_shift_movements_by_id_users')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_shift_movements_shift_id_shifts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shift_movements')),
    sqlite_autoincrement=True
    )
    op.create_index(op.f('ix_shift_movements_shift_id'), 'shift_movements', ['shift_id'], unique=False)

    op.create_table('audit_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('chain', sa.String(length=40), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor', sa.String(length=100), nullable=False),
    sa.Column('action', sa.String(length=40), nullable=False),
    sa.Column('table_id', sa.Integer(), nullable=True),
    sa.Column('shift_id', sa.Integer(), nullable=True),
    sa.Column('round_id', sa.Integer(), nullable=True),
    sa.Column('digest', sa.String(length=64), nullable=True),
    sa.Column('payload', sa.Text(), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_audit_events_round_id_rounds')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_audit_events_shift_id_shifts')),
    sa.ForeignKeyConstraint(['table_id'], ['gaming_tables.id'], name=op.f('fk_audit_events_table_id_gaming_tables')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_events')),
    sa.UniqueConstraint('chain', 'seq', name=op.f('uq_audit_events_chain_seq')),
    sa.UniqueConstraint('hash', name=op.f('uq_audit_events_hash')),
    sqlite_autoincrement=True
    )
    op.create_index(op.f('ix_audit_events_round_id'), 'audit_events', ['round_id'], unique=False)

    op.create_table('round_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=12), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('actor_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('replacement_round_id', sa.Integer(), nullable=True),
    sa.CheckConstraint("kind IN ('void', 'correction', 'misdeal')", name=op.f('ck_round_events_kind')),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_round_events_actor_id_users')),
    sa.ForeignKeyConstraint(['replacement_round_id'], ['rounds.id'], name=op.f('fk_round_events_replacement_round_id_rounds')),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_round_events_round_id_rounds')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_round_events')),
    sqlite_autoincrement=True
    )
    op.create_index(op.f('ix_round_events_round_id'), 'round_events', ['round_id'], unique=False)

    op.create_table('seat_entries',
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('seat', sa.SmallInteger(), nullable=False),
    sa.Column('cards', sa.String(length=80), nullable=False),
    sa.Column('c1', sa.SmallInteger(), nullable=True),
    sa.Column('c2', sa.SmallInteger(), nullable=True),
    sa.Column('c3', sa.SmallInteger(), nullable=True),
    sa.Column('ante', sa.BigInteger(), nullable=False),
    sa.Column('play', sa.Boolean(), nullable=False),
    sa.Column('pair_plus', sa.BigInteger(), nullable=False),
    sa.Column('six_card', sa.BigInteger(), nullable=False),
    sa.Column('prime', sa.BigInteger(), nullable=False),
    sa.Column('net_ante', sa.BigInteger(), nullable=False),
    sa.Column('net_play', sa.BigInteger(), nullable=False),
    sa.Column('net_ante_bonus', sa.BigInteger(), nullable=False),
    sa.Column('net_pair_plus', sa.BigInteger(), nullable=False),
    sa.Column('net_six_card', sa.BigInteger(), nullable=False),
    sa.Column('net_prime', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_seat_entries_round_id_rounds')),
    sa.PrimaryKeyConstraint('round_id', 'seat', name=op.f('pk_seat_entries'))
    )

    seed()
    create_append_only_triggers()


def seed() -> None:
    """The settings row and the floor chain's head (the chain starts at the genesis hash)."""
    op.execute("INSERT INTO casino_settings (id, name, time_zone, shift_hours, currency, "
               "updated_at) VALUES (1, 'Casino', 'UTC', 8, 'USD', CURRENT_TIMESTAMP)")
    op.execute("INSERT INTO chain_heads (chain, table_id, seq, hash, round_serial) "
               "VALUES ('floor', NULL, 0, '" + "0" * 64 + "', 0)")


def create_append_only_triggers() -> None:
    """Refuse UPDATE and DELETE on every logged table, in both engines."""
    if op.get_bind().dialect.name == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused "
                    f"(record a void or correction instead)'); END")
        return
    op.execute("""
        CREATE FUNCTION dealer_assist_refuse_change() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is append-only: % refused (record a void or correction instead)',
                TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
        END $$""")
    for table in APPEND_ONLY:
        op.execute(f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
                   f"FOR EACH ROW EXECUTE FUNCTION dealer_assist_refuse_change()")
        op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                   f"FOR EACH STATEMENT EXECUTE FUNCTION dealer_assist_refuse_change()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    for table in reversed(TABLES):
        op.drop_table(table)
    if op.get_bind().dialect.name != "sqlite":
        op.execute("DROP FUNCTION IF EXISTS dealer_assist_refuse_change()")
