"""the enrolled deck a table's scans read with

Revision ID: 0004
Revises: 0003
Each table's enrolled deck, by the SHA-256 of its file (its changes are events on the
table's chain: deck.enrolled, deck.removed).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('gaming_tables', sa.Column('deck_sha256', sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('gaming_tables') as batch:
        batch.drop_column('deck_sha256')
