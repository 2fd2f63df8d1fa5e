"""The rules of Three Card Poker, pure: cards, hand ranking, rule sets, settlement, analysis.

Nothing here touches a database, the web, a camera or a PDF; every adapter calls in.
"""
