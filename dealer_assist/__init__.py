"""dealer_assist: settle, log and audit Three Card Poker at a live table."""

__version__ = "0.1.0"
