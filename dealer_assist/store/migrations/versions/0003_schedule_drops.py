"""shift schedule settings and the drop

Revision ID: 0003
Revises: 0002
The casino's gaming-day start and custom shift starts (beside its time zone and shift
length); each closed shift's drop as counted (append-only: a recount supersedes, never
updates).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

TABLE = 'shift_drops'


def upgrade() -> None:
    op.add_column('casino_settings', sa.Column('gaming_day_start', sa.Time(), nullable=False,
                                               server_default=sa.text("'00:00:00'")))
    op.add_column('casino_settings', sa.Column('shift_starts', sa.JSON(), nullable=True))
    op.create_table(
        TABLE,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('shift_id', sa.Integer(), nullable=False),
        sa.Column('cash', sa.BigInteger(), nullable=False),
        sa.Column('markers', sa.BigInteger(), nullable=False),
        sa.Column('amount', sa.BigInteger(), nullable=False),
        sa.Column('supersedes_id', sa.Integer(), nullable=True),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('by_id', sa.Integer(), nullable=False),
        sa.CheckConstraint('cash >= 0 AND markers >= 0 AND amount = cash + markers',
                           name=op.f('ck_shift_drops_amounts')),
        sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'],
                                name=op.f('fk_shift_drops_shift_id_shifts')),
        sa.ForeignKeyConstraint(['supersedes_id'], ['shift_drops.id'],
                                name=op.f('fk_shift_drops_supersedes_id_shift_drops')),
        sa.ForeignKeyConstraint(['by_id'], ['users.id'], name=op.f('fk_shift_drops_by_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_shift_drops')),
        sa.UniqueConstraint('supersedes_id', name=op.f('uq_shift_drops_supersedes_id')),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f('ix_shift_drops_shift_id'), TABLE, ['shift_id'])
    op.create_index('ix_shift_drops_one_first_per_shift', TABLE, ['shift_id'], unique=True,
                    sqlite_where=sa.text('supersedes_id IS NULL'),
                    postgresql_where=sa.text('supersedes_id IS NULL'))
    _append_only(TABLE)


def _append_only(table: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused "
                f"(record a recount instead)'); END")
        return
    op.execute(f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
               f"FOR EACH ROW EXECUTE FUNCTION dealer_assist_refuse_change()")
    op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
               f"FOR EACH STATEMENT EXECUTE FUNCTION dealer_assist_refuse_change()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS {TABLE}_no_{verb}")
    op.drop_index('ix_shift_drops_one_first_per_shift', table_name=TABLE)
    op.drop_index(op.f('ix_shift_drops_shift_id'), table_name=TABLE)
    op.drop_table(TABLE)
    with op.batch_alter_table('casino_settings') as batch:
        batch.drop_column('shift_starts')
        batch.drop_column('gaming_day_start')
