"""review, approvals and per-table money settings

Revision ID: 0002
Revises: 0001
Hand-history search indexes (table/shift/time, misdeals, round events by kind, the largest
seat pay-out as an expression index); a table's own large-payout threshold and chip
denominations; large-payout approvals (append-only, like the rest of the log).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

#: What a seat was paid (the sum of its winning bets), as the history search filters on it.
#: Kept literally equal to ``dealer_assist.services.history.SEAT_PAY_SQL``: SQLite uses an
#: expression index only for a query expression identical to it.
SEAT_PAY_SQL = (
    "(CASE WHEN net_ante > 0 THEN net_ante ELSE 0 END"
    " + CASE WHEN net_play > 0 THEN net_play ELSE 0 END"
    " + CASE WHEN net_ante_bonus > 0 THEN net_ante_bonus ELSE 0 END"
    " + CASE WHEN net_pair_plus > 0 THEN net_pair_plus ELSE 0 END"
    " + CASE WHEN net_six_card > 0 THEN net_six_card ELSE 0 END"
    " + CASE WHEN net_prime > 0 THEN net_prime ELSE 0 END)")


def upgrade() -> None:
    op.add_column('gaming_tables', sa.Column('large_payout_threshold', sa.BigInteger(),
                                             nullable=True))
    op.add_column('gaming_tables', sa.Column('chip_denominations', sa.JSON(), nullable=True))
    op.create_table(
        'payout_approvals',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('request_sha256', sa.String(length=64), nullable=False),
        sa.Column('largest_pay', sa.BigInteger(), nullable=False),
        sa.Column('threshold', sa.BigInteger(), nullable=False),
        sa.Column('seats', sa.String(length=40), nullable=False),
        sa.Column('requested_by_id', sa.Integer(), nullable=False),
        sa.Column('approved_by_id', sa.Integer(), nullable=False),
        sa.Column('method', sa.String(length=12), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("method IN ('session', 'password', 'token')",
                           name=op.f('ck_payout_approvals_method')),
        sa.ForeignKeyConstraint(['table_id'], ['gaming_tables.id'],
                                name=op.f('fk_payout_approvals_table_id_gaming_tables')),
        sa.ForeignKeyConstraint(['requested_by_id'], ['users.id'],
                                name=op.f('fk_payout_approvals_requested_by_id_users')),
        sa.ForeignKeyConstraint(['approved_by_id'], ['users.id'],
                                name=op.f('fk_payout_approvals_approved_by_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_payout_approvals')),
        sqlite_autoincrement=True,
    )
    op.create_index('ix_payout_approvals_request_sha256', 'payout_approvals',
                    ['request_sha256'])
    # History search: newest first within a table or a shift, misdeals, events by kind.
    op.create_index('ix_rounds_table_id_at', 'rounds', ['table_id', 'at', 'id'])
    op.create_index('ix_rounds_shift_id_at', 'rounds', ['shift_id', 'at', 'id'])
    op.create_index('ix_rounds_at_id', 'rounds', ['at', 'id'])
    op.create_index('ix_rounds_misdeal_at', 'rounds', ['at'],
                    sqlite_where=sa.text('misdeal'), postgresql_where=sa.text('misdeal'))
    op.create_index('ix_round_events_kind_round_id', 'round_events', ['kind', 'round_id'])
    op.create_index('ix_round_events_replacement_round_id', 'round_events',
                    ['replacement_round_id'])
    # A generated column (VIRTUAL on SQLite, which cannot add a STORED one; STORED on
    # PostgreSQL, which has no other kind): adding it writes no row, so the append-only
    # triggers stay untouched, and every round logged from now on has it too.
    kind = "VIRTUAL" if op.get_bind().dialect.name == "sqlite" else "STORED"
    op.execute(f"ALTER TABLE seat_entries ADD COLUMN pay BIGINT "
               f"GENERATED ALWAYS AS {SEAT_PAY_SQL} {kind}")
    op.create_index('ix_seat_entries_pay', 'seat_entries', ['pay'])
    _append_only('payout_approvals')


def _append_only(table: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused "
                f"(record a void or correction instead)'); END")
        return
    op.execute(f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
               f"FOR EACH ROW EXECUTE FUNCTION dealer_assist_refuse_change()")
    op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
               f"FOR EACH STATEMENT EXECUTE FUNCTION dealer_assist_refuse_change()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS payout_approvals_no_{verb}")
    op.drop_index('ix_seat_entries_pay', table_name='seat_entries')
    with op.batch_alter_table('seat_entries') as batch:
        batch.drop_column('pay')
    for name, table in (('ix_round_events_replacement_round_id', 'round_events'),
                        ('ix_round_events_kind_round_id', 'round_events'),
                        ('ix_rounds_misdeal_at', 'rounds'), ('ix_rounds_at_id', 'rounds'),
                        ('ix_rounds_shift_id_at', 'rounds'), ('ix_rounds_table_id_at', 'rounds')):
        op.drop_index(name, table_name=table)
    op.drop_table('payout_approvals')
    with op.batch_alter_table('gaming_tables') as batch:
        batch.drop_column('chip_denominations')
        batch.drop_column('large_payout_threshold')
