"""One deck on the table: no card is dealt twice (the round refuses a card entered twice,
``domain.round_entry``), so two reads of the same card cannot both be right. The reads that
share a card are given the distinct cards likeliest together.

The reader still flags every read this touches: a read moved off its likeliest card, and the
read that kept it (see ``Reader.read``).
"""

from __future__ import annotations

import numpy as np

#: A read is moved off its likeliest card only to a card it gives at least this probability;
#: below it the read is kept and both reads are flagged as one card seen twice (the same
#: hand photographed twice, or a card found in two regions, is not guessed at).
MIN_ALTERNATIVE = 0.02


def assign(cost: np.ndarray) -> list[int]:
    """The columns, one per row and all distinct, of least total cost (the Hungarian
    method; rows <= columns).

    >>> assign(np.array([[1.0, 2.0, 3.0], [1.0, 5.0, 9.0]]))
    [1, 0]
    >>> assign(np.array([[0.0, 9.0], [0.0, 1.0], [0.0, 1.0]]))
    Traceback (most recent call last):
    ValueError: 3 rows cannot take distinct columns of 2
    """
    n, m = cost.shape
    if n > m:
        raise ValueError(f"{n} rows cannot take distinct columns of {m}")
    # potentials u (rows) and v (columns); column 0 is a sentinel, owner[j] the row (1-based)
    # holding column j
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, int)
    way = np.zeros(m + 1, int)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        slack = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while owner[j0] != 0:
            used[j0] = True
            i0 = owner[j0]
            free = ~used
            free[0] = False
            cur = cost[i0 - 1] - u[i0] - v[1:]
            better = free[1:] & (cur < slack[1:])
            slack[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, slack, np.inf)
            j1 = int(np.argmin(masked))
            delta = masked[j1]
            u[owner[used]] += delta
            v[used] -= delta
            slack[free] -= delta
            j0 = j1
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    out = [-1] * n
    for j in range(1, m + 1):
        if owner[j]:
            out[owner[j] - 1] = j - 1
    return out


def one_deck(probs: np.ndarray) -> np.ndarray:
    """Each read's card (an index into the deck's 52) given every read's probabilities
    (``probs``, one row per read): its likeliest card, except where reads share their
    likeliest card. Those reads take the distinct cards likeliest together (their joint
    probability; a card another read finds likeliest left out), each to a card it gives
    at least ``MIN_ALTERNATIVE``.

    >>> p = np.full((3, 52), 0.001)
    >>> p[0, 5], p[0, 7] = 0.9, 0.05    # read 0: card 5, else 7
    >>> p[1, 5], p[1, 9] = 0.6, 0.3     # read 1: card 5 too, else 9
    >>> p[2, 9] = 0.9                   # read 2 holds card 9
    >>> one_deck(p).tolist()            # 9 is read 2's: read 0 gives way (0.05 x 0.6)
    [7, 5, 9]
    >>> p[0, 7] = 0.01                  # read 0 gives no other card a chance: both keep 5
    >>> one_deck(p).tolist()
    [5, 5, 9]
    """
    best: np.ndarray = probs.argmax(axis=1)
    counts = np.bincount(best, minlength=probs.shape[1])
    shared = np.flatnonzero(counts[best] > 1)
    if not len(shared):
        return best
    held = np.zeros(probs.shape[1], bool)
    held[best] = True
    cost = -np.log(probs[shared] + 1e-9)
    # a card another read finds likeliest (a read's own or one another group shares): only
    # if nothing else is left. Without it a read could take the card two others found
    # likeliest, moving both (the joint optimum, 1 in 100,000 random cases)
    cost[:, held] = 1e6
    cost[np.arange(len(shared)), best[shared]] = -np.log(probs[shared, best[shared]] + 1e-9)
    if len(shared) > int((~held).sum()) + len(np.unique(best[shared])):
        return best
    out: np.ndarray = best.copy()
    for row, col in zip(shared, assign(cost), strict=True):
        if probs[row, col] >= MIN_ALTERNATIVE:
            out[row] = col
    return out
