"""Read every face-up card of a table photo, group the cards into hands, seat the hands.

The result has the shape of ``dealer-assist scan --json``::

    {"cards": [{"card": "AS", "confidence": 0.99, "corners": [[x, y] x4], "hand": 0,
                "seat": 3}],
     "hands": [{"hand": 0, "seat": 3, "cards": ["AS", "KD", "3C"], "confidence": 0.97}],
     "needs_confirmation": [{"hand": 0, "seat": 3, "card": "AS", "reason": "..."}]}

Corners run clockwise from the corner whose index reads upright (counter-clockwise in a
photo read mirrored: ``MIRRORED_NOTE``). Seats are 1..7 or
``"dealer"``; ``None`` when a hand is in no seat zone. One deck is dealt, so reads that
share their likeliest card are given the distinct cards likeliest together (``one_deck``).
Nothing doubtful is passed off as sure: a card under the confidence threshold (or above it
with a strong runner-up: ``RUNNER_UP``), every read that shared a card (and a card still
seen twice), a card whose index was not seen (read where its hand's spread puts it) and a
hand that is not exactly three cards are listed in ``needs_confirmation``. An item there
with a ``"region"`` (four corners) names a place in the photo: cards that could not be
read, a hand only another way of reading the photo saw (``OTHERWISE_NOTE``), or, with
``"face_down": true``, a hand lying face down (``FACE_DOWN_PAPER``; it is in ``hands``,
seated, with no cards). With seat zones a place takes the seat whose zone holds it
(``seat_regions``); a place that shows no mark is not sent (``geometry.plain``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer_assist.domain.cards import DECK, Card

from .colour import FAINT_COLOUR, RAISE_UNDER, colour_shown, raised
from .geometry import (
    ROW_OF_HANDS,
    Blob,
    EmptyLayout,
    Frame,
    Layout,
    OtherCut,
    Pyramid,
    WhiteBy,
    aligned_blob,
    blob_sides,
    box_sides,
    card_height,
    card_top,
    cast_unsure,
    chip_like,
    clockwise,
    cut_strip,
    find_blobs,
    frame_scale,
    grey_table,
    hands_in_row,
    hull_gap,
    joined_blob,
    layout_in_frame,
    lone_card,
    look_window,
    make_frame,
    plain,
    quad_blob,
    reduce,
    region_shows,
    spanned,
    widened,
    window_patches,
)
from .hand_groups import CARD_W, REACH, joined
from .net import (
    COVERED_NAME,
    FRAME_CARD_H,
    NONE,
    PATCH_H,
    PATCH_W,
    SECOND_NAMES,
    STRIDE,
    Adapter,
    CoveredIndex,
    IndexNet,
    SecondLook,
    look_adapter,
    normalise_strip,
)
from .one_deck import one_deck
from .sharpness import blurred, edge_width
from .trainset import RUN_STEP, slide_offsets
from .white_balance import clipped_cast

Seat = int | str | None

#: Reads below this confidence go to the dealer for confirmation. Chosen on whole table
#: photos of 30 procedural decks never trained on (none of the held-out designs): the
#: surest wrong read there scored 0.906, so 0.95 leaves a margin (0.820 with the models of
#: 2026-12-01 late; 0.741 with those of 2026-12-02; 0.95 stays for the margin on held-out
#: designs, card_models/README.md).
DEFAULT_THRESHOLD = 0.95
#: ... and a read at or above it goes to the dealer all the same when its runner-up (the
#: likeliest other card) scores more than this: a wrong read puts its doubt on the right
#: card (a spade read as a club keeps the club as its runner-up), where a right read's doubt
#: is spread thin. On the procedural photos of 2026-12-02 (60 photos each of 30 tuning decks
#: 920000-920029, 30 check decks 920030-920059 and 30 threshold decks 910000-910029), every
#: wrong read nothing else flags had a runner-up of 0.065 or more, the surest (0.909, 0.915)
#: spades read as clubs with 0.07 on the right suit. 0.02 leaves three times that margin and
#: costs 23, 18 and 24 of the 1,075, 1,006 and 1,049 sure reads (0.03: 3, 0 and 5; 0.01: 133,
#: 133 and 144).
RUNNER_UP = 0.02
#: A hand whose region is this many times the median hand's is flagged (two touching hands
#: read as one): one hand's region was at most 1.4 times the median on 40 generated tables.
#: So is one longer than ``geometry.ROW_OF_HANDS`` card heights (a row that could not be cut).
OVERSIZED_HAND = 1.9
#: Both measures are taken at the hand's place (``hand_sizes``): seen from a tilted camera
#: the near hands are larger than the far ones (up to 1.7 times across the table in
#: ``synth``'s "camera tilted"), and single hands near the camera were flagged as hiding
#: another. With LOCAL_SIZE, a hand's size at each place is a plane fitted to the square
#: roots of the hands' areas (LOCAL_HANDS hands of three cards or more; fitted again
#: without those over LOCAL_OUTLIER times the plane, two hands read as one), kept within
#: LOCAL_RANGE of their median (the plane on tilted tuning photos: 0.68-1.47; on plain
#: ones 0.89-1.18). 2026-12-04, camera tilted, right / sure, 0 silent before and after:
#: procedural 920000-920059 1,329 / 726 -> 1,329 / 774, the training designs'
#: 930000-930059 1,387 / 1,004 -> 1,387 / 1,066; every hand no longer flagged held three
#: cards. Unchanged on procedural plain, grey, near-white, printed, spread wide, laid apart,
#: threshold decks and the training designs' plain (one more sure) and near-white tables.
#: Held out: camera tilted sure 169 -> 180 of 360; a light grey felt in a hard shadow, one
#: hand more flagged; every other row the same.
#: With the rows of touching hands left uncut (``geometry._split_rows``) and tables drawn
#: 0.7 and 0.8 as large (hands touching more), every hand read over two hands' cards was
#: flagged or not flagged alike with and without it.
LOCAL_SIZE, LOCAL_HANDS, LOCAL_OUTLIER, LOCAL_RANGE = True, 5, 1.15, (0.67, 1.5)
#: A hand whose cards are under SMALL_CARDS times as large as the other hands' cards are
#: at its place (``card_sizes``) is flagged: cards pictured on something are not cards on
#: the table. A hand printed on the felt 0.55 or 0.7 as large (a pay table's art, 20 photos
#: each) read as sure hands, 39 and 50 silent reads; the backs of nicu-white and
#: nicu-ornamental picture four aces, read at up to 0.99 (3 silent in 120 photos with them
#: face down). Those backs measured 0.38-0.55, every printed hand under 0.75; 0 silent
#: now. Judged against the other hands only (a plane fitted to their sizes bent towards
#: the hand itself: half of the printed hands passed), and by the square root of the
#: cards' areas (their heights are shortened by a camera looking aslant at cards lying
#: across its view: far hands seen tilted measured 0.6). On 20 procedural tables in each
#: of plain, printed, grey, near-white, hard shadow, camera moving, tilted, 12 MP from
#: farther, spread wide and laid apart, 20 held-out tilted, and 60 procedural and 60
#: held-out plain (930000-930059): sure reads the same but 1 fewer tilted, 1 fewer
#: near-white, and 1 more held out tilted (a hand too small no longer shrinks the size a
#: hand has around it, ``hand_sizes``); held out (benchmarks/vision.py) tilted 4 fewer.
SMALL_CARDS, SIZE_FIT = 0.75, 1.2
#: What the dealer is told of a photo whose cards' edges are blurred (``sharpness.blurred``):
#: its reads are still given, but many are unsure and some may be wrong (each flagged).
BLURRED_NOTE = ("the photo is blurred (the camera moved, or was not focused): hold it still "
                "and take the photo again, or confirm every card")
#: What the dealer is told of a red card read in a photo whose light is warm past what the
#: camera balanced, the cards' white clipped in red (``white_balance.clipped_cast``), when
#: its index reads black balanced with red's white WARM_MORE times higher (``_red_doubts``):
#: the clipped red's level is only estimated, and a black index can still come out red.
#: 2026-12-07, under blue, green, red x 0.5, 0.8, 1.4, with the strips mended and the
#: card-white balanced (``geometry.CAST_HELD``): procedural tuning deck 920011 read the king
#: of spades as the king of diamonds at 0.97, the one silent error in 30 photos (0 of the
#: held-out designs' 15). Every red read told so at first: sure under the tungsten cast 437
#: -> 202 of 720 (procedural), 55.6% -> 19.2% held out; told only when it reads black
#: again, 425 and 53.1%, and still 0 silent (the stronger cast: 368 of 720, 47.8% held out).
WARM_NOTE = ("the light is warm and the camera did not balance it (the cards' white is "
             "clipped in red): a black card can look red; check its suit")
#: ... and how many times higher red's white is taken when a red read is looked at again
#: (the one value tried: the stronger cast's paper measured 0.40-0.49 blue to red where
#: about 0.31-0.36 is so, a third higher).
WARM_MORE = 1.3
#: What the dealer is told of a photo showing almost no colour (``colour.colour_shown``
#: under ``colour.FAINT_COLOUR``: a photo drained of colour by a faded or mono filter), once
#: for the photo (where it holds cards: a bare grey table shows as little colour) and, as
#: FAINT_CARD_NOTE, of every card read in it: a red suit comes out black there, sure. It is
#: read with its colour raised (``colour.raised``), noise and all; the module ``colour``
#: says how often each goes wrong.
FAINT_NOTE = ("the photo shows almost no colour (a faded or black-and-white filter?): red "
              "and black suits are hard to tell apart; take the photo in colour, or check "
              "every card's suit")
FAINT_CARD_NOTE = "the photo shows almost no colour: check its suit"
#: A photo whose cards (MIRROR_CARDS at least) are read at a mean confidence under
#: MIRROR_TRY is read mirrored too: a front camera's photo, or a webcam set to mirror,
#: shows every index mirrored, and none reads as it should (tuning photos of the training
#: designs mirrored: 16 of 240 cards right, none sure, 2 silent errors). The mirrored read
#: is kept where its cards' mean confidence is MIRROR_KEEP at least and MIRROR_MORE times
#: the other read's; the dealer is told (MIRRORED_NOTE). 2026-12-08, 30 tuning photos of
#: each kind, plain, on a near-white table, taken moving and out of focus (240), each as
#: taken and mirrored: as taken, 14 are read mirrored too (10 taken moving), none kept so;
#: mirrored, 235 are read turned back (the rest taken moving or out of focus, or one
#: near-white). Comparing the two reads' confidences added up instead (twice as much):
#: 232, a mirrored read often holding more cards, each weak. Of 420 more as taken (a grey
#: felt, in a shadow; near-white under the stronger cast; overexposed, laid apart, on a
#: printed layout, tilted), 17 are read mirrored too (10 overexposed); in 900 tuning
#: photos as taken (every set of ``scripts/vision_sweep`` and four more) none was kept
#: mirrored.
MIRROR_TRY, MIRROR_CARDS, MIRROR_KEEP, MIRROR_MORE = 0.6, 3, 0.5, 1.5
MIRRORED_NOTE = ("the photo is mirrored (taken with a front camera?): it was read turned "
                 "back; check the seats")
#: Where a photo is read more than one way (``GREY_BOTH``, ``BALANCE_BOTH``), the cards of a
#: hand another way read that lie farther than OTHERWISE_NEAR card heights from every card
#: of the read kept, and from every place it sends unread, are a place the dealer is sent to
#: check: the read kept may have missed a hand there, and nothing else would say so.
#: 2026-12-07, procedural tuning tables 920000-920029 (cards missed with nothing said near
#: them; notes; of them over no card): a near-white table under the tungsten cast 15 -> 3;
#: 10, 3; under the stronger cast 19 -> 16; 12, 5; a grey felt under it 0 -> 0; 1, 1; a
#: near-white table (no cast) 3 -> 3; 1, 0; a light grey felt 0; 0, 0, in a hard shadow 0;
#: 2, 2. Reads, and so right and sure, are unchanged. At 1.0 card heights, hands beside a
#: missed one hid it (near-white, tungsten: 6 left).
OTHERWISE_NEAR = 0.5
#: ... only where its cards with none of the read kept at their places are two or more (or
#: all of a hand of one) and lie within OTHERWISE_SPAN card heights of each other.
OTHERWISE_SPAN = 2.5
#: ... and what the dealer is told of such a place.
OTHERWISE_NOTE = "read another way, the photo shows a hand here that was not read: check it"
#: A place another way could not read ("cards here could not be read") where the read kept
#: has no card nor place near it (``OTHERWISE_NEAR``) is sent too, and told so: the read
#: kept may have missed cards there, and nothing else would say so. 2026-12-07, 8 sets of 30
#: tuning photos, procedural and training designs (light grey, in a hard shadow,
#: near-white, each under the tungsten and stronger casts, a coloured felt under the
#: tungsten cast): every read the same; cards missed with nothing said near them on a
#: near-white table under the tungsten cast, training designs, 7 -> 0, under the stronger
#: 9 -> 6 (the rest unchanged: 3, 16, 3 on the procedural decks); 8 such places sent in
#: the 480 photos, 6 of them over cards.
OTHERWISE_UNREAD_NOTE = "read another way, cards here could not be read: check them"
#: ... where the read kept has found cards (a bare felt read balanced passes for card-white
#: in specks: 13 such places on one photo, where no card is), and such a place is half a
#: card high across or more (``_card_high``): a hard shadow's edge on a grey felt, a
#: sliver, was 8 of the 17 places sent on those tuning photos (none over a card), 11 over
#: no card in all; without the slivers 8 and 2, the same cards missed unsaid.
#: What the dealer is told of a hand of cards smaller than the others (SMALL_CARDS).
SMALL_NOTE = ("its cards look smaller than the others on the table: cards pictured on "
              "something (the layout's pay table, the back of a face-down card) are not "
              "a hand")
#: A hand lies face down when its region shows under FACE_DOWN_PAPER of card-white and
#: under FACE_DOWN_FELT of the felt's colour (``geometry.region_shows``): a back's print
#: fills it but for its border, and hides the felt (a betting circle printed on the felt
#: shows the felt inside it). That is asked of a region FACE_DOWN_WIDE card heights across
#: and FACE_DOWN_LONG long or more (``_down_sized``: not a court card lying alone, whose
#: art reaches its edge; not chips side by side in a circle, 0.44-0.63 long) and no larger
#: than a hand, where cards are FACE_DOWN_SEEN pixels high or more on the working copy
#: (``geometry.reduce``; smaller, a card's white margin is gone from it): a hand found with
#: at most one index seen and every read under FACE_DOWN_GUESS (a back has no index; its
#: guesses measured 0.14-0.59; face-up court cards whose indices read unsure held two or
#: three, or one at 0.77), or a region not read. Its reads are dropped; the dealer is told
#: to turn it over (``FACE_DOWN_NOTE``); it keeps its seat (without seat zones, a
#: face-down dealer's hand not counted along the arc had the dealer guessed among the
#: players: 3 of the 4 photos of ``tests/vision/test_face_down.py``). Measured in
#: card_models/README.md ("A hand lying face down"). Not told apart: backs whose print is
#: card-white (ancient-egyptians' cream, nicu's four aces: ``SMALL_CARDS`` flags those) or
#: whose border is not found as a region (gm-paris, standard mostly): flagged as before.
FACE_DOWN_PAPER, FACE_DOWN_FELT, FACE_DOWN_GUESS = 0.5, 0.03, 0.6
FACE_DOWN_WIDE, FACE_DOWN_LONG, FACE_DOWN_SEEN = 0.8, 0.85, 40.0
#: What the dealer is told of a hand lying face down.
FACE_DOWN_NOTE = ("these cards look face down (no index, little of a card's face): turn "
                  "them over and take the photo again, or enter them")
#: Windows scoring above this as "an index is here" start a card.
PEAK_SCORE = 0.5
#: A card whose index reads as covered (``CoveredIndex`` on the second look's windows of
#: its first read, their mean) above this is sent to the dealer: a chip lying over it can
#: hide its suit, and the rest of the index then reads as another card (card_models/
#: README.md, "Something lying over an index, told").
COVERED = 0.9
COVERED_NOTE = "something may lie over its index (a chip?): move it, or check the card"
#: Each card found is read again from its index corner with the card magnified by each of
#: these, and the reads are combined (their geometric mean): an index a little larger or
#: smaller than the training decks' fits one of them. Chosen on procedural decks never
#: trained on (20 photos of 10 decks): together with reading all four frames, read right
#: 64.2% -> 76.2%, and the right reads at 0.95 or more 31 -> 91 of 480 cards.
RESCALES = (0.9, 1.1)
#: The second look's share of a card's read (its log-probabilities weighted against the
#: index network's). On procedural decks never trained on (seeds 920000-920019, 960 cards;
#: the second look at three sizes): 0.5, 0.7, 0.85 and 0.93 read 918, 925, 925 and 926
#: cards right, sure of 436, 529, 579 and 603; the surest wrong read nothing else flags
#: (``vision_threshold.py``) scored 0.785 at 0.7, 0.828 at 0.85 and 0.862 at 1.0. 0.85 was
#: tried and read a held-out dondorf Q of spades as clubs at 0.957, silently: the weight
#: stays at 0.7, where that read is 0.947.
#: Not 1.0 in any case: an enrolled deck corrects the index network's share. With the third
#: second look (line art; the tuning decks re-drawn with it), 0.6 / 0.7 / 0.8 read 929 / 927 /
#: 927 right, sure of 517 / 561 / 598: no reason to thin the margin, so 0.7 stays. With both
#: second-look models (60 tuning decks, 2,880 cards): 0.6 / 0.7 / 0.8 read 2,729 / 2,732 /
#: 2,733 right, sure of 1,729 / 1,816 / 1,897; the threshold check's surest unflagged wrong
#: read 0.854 at 0.7 and 0.884 at 0.8. 0.7 stays: one card is not worth the margin.
SECOND_WEIGHT = 0.7
#: The sizes at which the second look reads each card (its reads are averaged). On the same
#: decks (weight 0.85), all three of 1.0 and ``RESCALES`` read 925 cards right (579 sure),
#: 0.9 and 1.1 925 (574), 1.0 and 1.1 920 (577), 1.0 alone 909 (568): two sizes cost two
#: thirds of three. With 0.9 and 1.1 at weight 0.7: 922 right, 517 sure (925 and 561 once
#: the second look was trained 24 minutes more).
LOOK_SIZES = RESCALES
#: Whether those reads are taken with their windows moved up to the card's top edge where
#: it lies above the hand's region (``geometry.card_top``): on procedural decks never
#: trained on (seeds 920000-920029, two photos each, 1,440 cards) 1,343 -> 1,350 read
#: right, sure 947 -> 958; checked on 920030-920059: 1,326 -> 1,330, sure 926 -> 927; the
#: surest wrong read nothing else flags unchanged (0.862, 0.895). Moving the first read's
#: window too read none more right. (Moved to where the true corners are, the first
#: 30 decks read 1,355, sure 978.)
TOPS = True
#: Whether the top card of a hand, which shows both its indices, is read in full at its
#: other index too (magnified and by the second look, as at its own) when its read leaves
#: more than ``DOUBT`` on other cards, every read the default rules would flag
#: included; all its reads are then combined (their geometric mean, so no surer than the
#: two indices agree). On procedural decks never trained on (two photos each of tuning decks
#: 920000-920029, check decks 920030-920059, threshold decks 910000-910029; 1,440 cards a
#: set) read right 1,401 / 1,377 / 1,405 -> 1,401 / 1,387 / 1,406, sure 1,052 / 991 / 1,025
#: -> 1,065 / 1,005 / 1,038; the surest wrong read only the threshold would flag 0.858 /
#: 0.909 / 0.915 -> 0.858 / 0.909 / 0.788; 6-12 ms more per held-out 1080p photo (120 ms).
#: Reading every top card's other index in full read the same cards right, sure 1,065 / 1,004
#: / 1,038, at 27 ms more; summing the two indices' evidence instead of averaging it (the
#: sum of their log-probabilities) read a wrong tuning card at 0.972, above the threshold.
OTHER_INDEX = True
#: A read that leaves more than this on other cards is read more (every read the default
#: rules would send to the dealer among them): its index at the last of ``RESCALES``
#: (``FIRST_SIZES``), and a top card's other index (``OTHER_INDEX``).
DOUBT = 0.02
#: How many of the sizes 1.0 and ``RESCALES`` every card is read at (the index network, and
#: the second look at those of ``LOOK_SIZES``); a read in doubt (``DOUBT``) is read at the
#: rest too (0: every card at all of them). With 2 (1.0 and 0.9, then 1.1 where in doubt) the
#: tuning / check / threshold decks read the same cards right (1,401 / 1,387 / 1,406), sure
#: 1,065 / 1,005 / 1,038 -> 1,067 / 1,006 / 1,038, the surest wrong read only the threshold
#: would flag unchanged (0.858 / 0.909 / 0.788), in 97 against 116 ms per held-out 1080p
#: photo (10 dondorf photos, alternating, one core); 1.1 first: sure 1,068 / 1,007 / 1,043.
FIRST_SIZES = 2
#: Whether a region that reads one or two indices is read again lengthened along its cards'
#: row, a card's width for each card missing at each end that stays in the photo and reaches
#: no other region, and taken to where its cards then reach where that reads more
#: (``Reader._read_widened``): a court card lying beside a hand, its art reaching its edge,
#: has only a thin frame of card-white, which the card-white mask's opening wears away, and
#: the hand's region stopped at the card beside it (the dealer was told "hand has 2 cards").
#: 2026-12-05, one photo each, right / sure, 0 silent and 0 silent hands before and after:
#: hands spread wide (``synth.LAYS``), the training designs' tables 930000-930029 698 / 557
#: -> 708 / 567, procedural decks never trained on 920000-920029 670 / 377 -> 675 / 380;
#: light grey felt 675 / 599 -> 683 / 599 and 681 / 507 -> 687 / 508; camera tilted 697 /
#: 539 -> 700 / 545 and 685 / 419 the same; plain felt (713 / 684, 702 / 524) and printed
#: felt read without its empty layout (694 / 627, 606 / 384) the same. Lengthened by whole
#: card widths and kept as long, the regions of hands read whole were flagged as larger than
#: a hand; lengthened past the photo's edge, a hand filling a 12 MP close-up lost a card
#: (the figures above are from before that rule; spread wide read the same with it).
WIDEN = True
#: Whether a photo of a table of little colour (``geometry.GREY_FELT``: light grey, a desk,
#: a light cloth) is read twice, its card-white found once by whiteness (colour counted
#: against it) and once by brightness (``geometry.card_mask``'s ``bright``), and the read
#: with more cards kept, then the one with more of them not sent to the dealer (else the
#: one by brightness). Which of the two finds the cards could not be told before reading
#: them: taking the one the cards stand out by more (``geometry._standing_out``) was fooled
#: by a lamp's bright pool on the table, and whole hands, or every card of a photo, went
#: unfound with nothing said (procedural 920007 on a near-white table: 0 of 24 read; the
#: dark grey, beige and light grey printed tables' figures are in card_models/README.md,
#: "A table of little colour read both ways"). 2026-12-05, 30 photos each,
#: right / sure / cards missed with nothing said near them, before -> after: procedural
#: decks 920000-920029 on a near-white table 655 / 464 / 27 -> 682 / 483 / 3, light grey
#: 705 / 526 / 0 -> 706 / 531 / 0, light grey in a hard shadow 654 / 475 / 0 -> 670 / 485 /
#: 0; the training designs 930000-930029 near-white 681 / 574 / 6 -> 675 / 566 / 0, light
#: grey 709 / 630 -> 713 / 644, in a hard shadow 687 / 613 -> 701 / 622; every other set
#: (coloured felts) the same. Keeping the read with more cards not sent to the dealer first
#: read more of them sure but missed 3 cards silently in the shadow. Reading a grey table
#: twice takes about twice as long (10 procedural photos, one core: near-white 301 against
#: 143 ms, light grey 249 against 132 ms); a coloured felt is read once.
GREY_BOTH = True
#: Whether a photo whose whitest pixels show a colour cast but are the felt's own colour, or
#: are so in the channels the cast did not clip (``geometry.cast_unsure``: a bare felt's
#: brightest, or cards on a grey table under a cast the camera did not balance, both neutral
#: and so both the cast's colour), is read twice, as taken and balanced on its whitest
#: pixels, and the better read kept as ``GREY_BOTH`` keeps it (as taken where the two read
#: as well). Balanced, a bare coloured felt turns grey and its brightest pass for
#: card-white; as taken, cards on a grey felt under a warm cast were not found at all, whole
#: tables with nothing said. 2026-12-07, 30 tuning photos each, right / cards missed with
#: nothing said near them / sure, before -> after: light grey felt under the stronger warm
#: cast (``benchmarks/vision.EXPOSURES``), procedural decks 430 / 232 / 211 -> 675 / 0 /
#: 386, training designs 473 / 214 / 283 -> 706 / 0 / 463; under the tungsten cast 559 / 70
#: / 346 -> 688 / 0 / 449; under the shade cast 659 / 23 / 445 -> 698 / 0 / 487; a
#: near-white table under the tungsten cast 444 / 120 / 253 -> 612 / 15 / 386, under the
#: stronger 314 / 304 / 153 -> 580 / 19 / 321 (the felt's own white clipped too). The tuning
#: sets without a cast: 9 of 660 photos are read both ways (light grey 3, in a hard shadow
#: 4, near-white 2), 16 cards more right and 29 more sure, no photo worse. Of cards on a
#: coloured felt, only under a cast and only a few (tungsten and stronger casts 9 of 60
#: photos each, shade 3), read as before but for the shade cast's procedural decks, 699 ->
#: 702 right; no photo of the 8 sets without one; bare felts read as before (no card, the
#: same notes). Held out (``--exposure 5``): light grey felt under the tungsten cast 82.78%
#: / 20 silent -> 96.94% / 0, under the stronger 88.89% / 27 -> 95.83% / 0; every other row
#: the same. Such a photo is read three or four times (each way twice where its felt is
#: grey, ``GREY_BOTH``): median 176 -> 530 and 340 -> 562 ms at 1080p.
BALANCE_BOTH = True
#: Where a photo is read several ways (``GREY_BOTH``, ``BALANCE_BOTH``), the way kept reads
#: the most cards; the count is known before the cards' indices are read again (the second
#: look, ``_read_rescaled``: a third of a read), which changes no card's place nor the
#: count but where a hand is then found face down (``_may_lie_face_down``). A way whose
#: first pass finds fewer cards than another surely keeps cannot be kept; its cards' places
#: and its places unread, which the second look does not change, are all the read kept
#: takes from it (``seen_otherwise``), so it is not read again, but for what it may yet
#: find face down, and its red reads are not looked at again under the cast
#: (``_red_doubts``). Every read is as before (2026-12-07: 8 tuning sets of 30 photos, grey
#: and near-white, with and without a cast, each line the same, and the notes too on
#: three; ``benchmarks/vision_ways.py`` checks it on the held-out tables it times). That
#: benchmark, 15 photos each, median ms on one core, read whole -> not: light grey felt
#: 286 -> 261, near-white 352 -> 332, grey felt under the tungsten cast 638 -> 586, under
#: the stronger 532 -> 463 (1.06-1.15x).
LOSING = True
#: Whether a row of touching hands that two cuts part differently (where there is least
#: card-white across it, and where it reaches least far across: ``geometry._split_rows``)
#: is parted the way whose parts read as more hands, three indices seen in each
#: (``Reader._better_cuts``); else the first way. A court card's art leaves only its frame
#: as card-white, so the least card-white across a row of two hands lay in the king ending
#: the first (procedural 920026: 4H QH | KC 2H 5D 3D). Either cut alone loses somewhere:
#: the reach, where print joining two hands reaches across where they meet (2026-12-03,
#: ``card_models/README.md``). One photo of each procedural deck never trained on, right
#: (sure), 0 silent before and after, no photo worse: 920000-920059 1,393 (1,015) -> 1,402
#: (1,025); 910000-910029 695 (489) -> 698 (496); 920000-920029 light grey felt 674 (482)
#: -> 677 (486), spread wide 657 (353) -> 670 (377), printed without its empty layout 598
#: (386) -> 606 (393); 920000-920019 camera tilted 461 (296) -> 463 (294), printed with it
#: 468 (327) the same. Keeping the other way only where all its parts read as hands lost
#: the printed gain (598).
CUT_BY_READS = True
#: A region found not card-like (``geometry.find_blobs``' rejected: a hand of court cards
#: whose art leaves its card-white crumbled, filling less than a card's share of its
#: rectangle) is read all the same, and taken for a hand where a frame of it reads this
#: many indices or more (0: never; before, every such region went to the dealer unread).
#: 2026-12-04, one photo each, right / sure, 0 silent throughout: the training designs'
#: tables (seeds 930000-930029) on a beige table 684 / 636 -> 693 / 644, on a near-white
#: one 580 / 490 -> 593 / 500; procedural decks on a near-white table (920000-920029) 561
#: / 383 -> 573 / 394; the same as before on procedural 920000-920059, the training
#: designs' 930000-930059, printed felt, light grey, threshold decks, spread wide and
#: camera tilted. 2 read 2-4 more on the near-white tables; 3 keeps to regions read as a
#: whole hand. Only regions of a hand's size are read (``_hand_sized``): read too, the
#: slivers along a floor's edge cost a second a photo. About 1.5 ms more per procedural
#: 1080p photo, 6 ms on printed felt (measured before that bound).
READ_REJECTED = 3
#: Whether such a region longer than a hand (and at least half a card high across) is cut
#: as a row of touching hands is (``geometry.hands_in_row``) and its parts read so: each
#: part that reads ``READ_REJECTED`` indices is a hand, the rest go to the dealer on their
#: own. Seen from a tilted camera the arc of seats closes up, and four hands touched in a
#: row of which two held court cards: their art leaves holes in the card-white, no erosion
#: parted the row into card-like regions, and its 12 cards went to the dealer as one region
#: that could not be read (held out, tigullio-international 502002; found there). Held
#: out, camera tilted 330 -> 340 of 360 right; whole tables and the other conditions
#: measured (floor, tablecloth, warm dim light, out of focus, hard shadow, light grey
#: felt, near-white table) the same. 2026-12-04, on the tuning photos nothing changed
#: (such regions are found on a near-white table, but none of their parts read as a hand
#: there): procedural 920000-920059 plain, tilted and near-white, printed, spread wide,
#: and the training designs' 930000-930059 plain and tilted, near-white 930000-930029 and
#: 930060-930099, beige; 1 ms more per photo on a near-white table (128 against 127 ms,
#: 12 photos alternating).
ROWS_REJECTED = True
MODEL_NAME = "index_net.onnx"
#: The spread of a fanned hand's cards (from one card's left edge to the next's) within
#: which unseen cards are placed by the spread (``missing_cards``); a card's width in card
#: heights is ``hand_groups.CARD_W``.
MIN_SPREAD, MAX_SPREAD = 0.12, 0.36
#: Two indices read in a region this many card widths apart or more are two cards side by
#: side, not a fan's bottom and top card with its middle card's index unseen: a fan's
#: middle card would hide the bottom card's right part. The card's width is the larger of
#: the table's and the region's top card's (seen from a tilted camera, cards near it are
#: wider than the table's median; with the median alone a fan near the camera, its
#: middle index unseen, was sent to the dealer as spread wide: tuning photo 920026 tilted).
#: A hand spread wide past that is taken so only when its two cards are a region of their
#: own (``WIDE_SPREAD``). Laid apart, two cards nearly touching were read as a fan with a
#: middle card and their hand's third card left alone (tuning photo 930000). 2026-12-07,
#: 30 photos each, right / sure / hands whole, 0 silent before and after: laid apart,
#: procedural 700 / 463 / 206 -> 700 / 477 / 211, training designs 708 / 598 / 220 -> 708 /
#: 612 / 225; every other set the same (plain, light grey, in a hard shadow, near-white,
#: floor, tilted, spread wide, chips over an index, glare, printed). Inferred middle cards'
#: gaps on those photos: fans up to 0.84 card widths, laid apart 0.83-1.11.
SIDE_BY_SIDE = 0.85
#: A hand read as two cards in a region of its own, joined with no other region
#: (``hand_groups.joined``), is taken for a hand spread wide whose middle card's index went
#: unseen where its two indices lie up to twice this far apart (``missing_cards``): dealers
#: spread a hand as wide as 0.65 card heights (``synth.LAYS``, "spread wide"), and such a
#: hand was sent to the dealer as two cards (tuning photo 930027). Taken so for every
#: region (``MAX_SPREAD`` 0.7), pairs of cards laid apart (0.75-0.95 apart, their third card
#: a region of its own) were given a middle card each and no longer joined whole: laid
#: apart, training designs 930000-930014 sure 200 -> 173 of 360. Only after joining, one
#: photo each, right / sure, 0 silent before and after: spread wide, training designs
#: 930000-930029 708 / 567 -> 713 / 567, procedural decks never trained on 920000-920029
#: 675 / 380 -> 680 / 380; laid apart 930000-930014 348 / 200 -> 348 / 199, 920000-920014
#: 341 / 155 the same; plain felt 930000-930059 1,426 / 1,322 -> 1,427 / 1,322,
#: 920000-920059 the same (1,402 / 1,025). 0.6 and 0.85 read spread wide as 0.7 does.
WIDE_SPREAD = 0.7
#: What the dealer is told of such a hand: its two cards seen lie as far apart as two
#: hands' cards can, so the hand is confirmed whole, not only the card placed (without
#: it, spread wide 930000-930029 read 572 sure, not 567: two such hands' cards nothing
#: else flagged).
WIDE_NOTE = ("only two of its cards seen, far apart (a hand spread wide?): check that "
             "these are one hand's cards")
#: How far, in card heights, a region's ends may lie from its outer cards' edges for its
#: three cards to account for it (``spans_region``).
SPAN_SLACK = 0.15
#: A region one card wide (under this much more, in card widths) holds one card: of two
#: indices read in it, the right one, read less surely than the left (index score under
#: ``CROWDED_SCORE`` and under the other's), is that card's own index read twice. Laid
#: apart, a ten read again as a queen 0.1 card heights to its right made its card's region
#: two cards, and its hand was not joined (tuning photo 930000). Not in a region wider
#: than a card: seen from a tilted camera, a region cut short of its hand's top card leaves
#: a real index as little room (930029). 2026-12-07, 30 photos each, right / sure / hands
#: whole, 0 silent before and after: laid apart, procedural 700 / 456 / 203 -> 700 / 463 /
#: 206, training designs 708 / 596 / 219 -> 708 / 598 / 220; plain, light grey, in a shadow,
#: floor, tilted, spread wide, chips over an index, glare the same; printed read alone,
#: procedural: flagged 405 -> 401, sure 383 -> 384; near-white, training designs: a photo
#: read 8 of 24 right, all flagged, now 7.
CROWDED_TOP, CROWDED_SCORE = 0.12, 0.95
#: How far apart, in card heights from one card's left edge to the next's, a region's three
#: cards may lie for them to account for it: a hand laid apart whose card-white the mask's
#: closing joins into one region, or a region read across the felt between its cards
#: (``WIDEN``), is as long as its cards make it, no other hand hidden in it; else such a
#: hand was sent to the dealer as "larger than a hand" (``OVERSIZED_HAND``). The reach the
#: pieces of a hand laid apart are joined within (``hand_groups.REACH``).
#: 2026-12-05, 30 photos each, right / sure, 0 silent and 0 silent hands before and
#: after: hands laid apart (``synth.LAYS``), the training designs' tables 930000-930029 709
#: / 417 -> 709 / 498, procedural decks 920000-920029 688 / 316 -> 688 / 367; spread wide
#: 714 / 568 -> 714 / 576 and 683 / 380 -> 683 / 395; every other set the same (plain,
#: light grey, in a hard shadow, near-white, floor, tilted, chips, glare, printed).
APART_REACH = REACH
#: A region's three indices seen with one gap more than this many times the other are
#: confirmed by the dealer: a dealer spreads a hand about evenly, and an index of a card
#: lying against the region (a court card beside it, not found as a region of its own) can
#: be read as one of the region's cards, at the wrong place. On the procedural tuning photos
#: (60 plain, 60 spread wide) no hand of three seen indices had a ratio over 2; on one
#: held-out photo spread wide that read was 2.4 and went unflagged. A hand joined from
#: pieces (``_one_hand``) is measured by its cards' centres: on 144 photos of nine designs
#: laid apart and spread wide (seeds 770000, 790000) not one read changed, nor on 612 of
#: every condition (770000); on 72 in a hard shadow (730000) one hand of two hands' pieces
#: that nothing flagged is now flagged (3 reads less sure).
UNEVEN = 2.0
#: ... and how far, in card heights, the region's edges may be from where that spread puts
#: the bottom and top cards' edges (the sum of both). Chosen on procedural decks never trained
#: on (20 photos, 480 cards): 0.1, 0.2 and 0.3 read 431, 439 and 439 cards right.
MAX_MISFIT = 0.2
#: ... and an unseen card is read at the window likeliest to hold an index within this many
#: card heights of where the spread puts it (0.03, 0.06 and 0.1 read 437, 439 and 439 right)
SEARCH = 0.06


def model_dirs() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [here.parent / "card_models", here.parent.parent / "card_models"]


def default_model_path() -> Path:
    for d in model_dirs():
        if (d / MODEL_NAME).is_file():
            return d / MODEL_NAME
    raise FileNotFoundError(f"{MODEL_NAME} not found in {', '.join(map(str, model_dirs()))}")


@dataclass
class CardRead:
    probs: np.ndarray  # (52,) over DECK
    corners: np.ndarray  # (4, 2) image pixels
    feat: np.ndarray
    frame: Frame | None = None  # the frame it was read in, its window at ``x``
    x: float = 0.0
    hand: int = -1
    seat: Seat = None
    #: placed by the hand's spread, where no index was seen (see ``missing_cards``)
    inferred: bool = False
    #: the top card's other index (the frame it reads upright in, its window at x there)
    other: tuple[Frame, float] | None = None
    #: at each of its index's second-look windows, the probability that something lies
    #: over the index (``CoveredIndex``)
    covered: list[float] = field(default_factory=list)

    @property
    def best(self) -> tuple[Card, float]:
        i = int(self.probs.argmax())
        return DECK[i], float(self.probs[i])

    @property
    def leaves_doubt(self) -> bool:
        """Whether the read leaves more than ``DOUBT`` on other cards (it is read more)."""
        return float(self.probs.max()) < 1.0 - DOUBT

    def runner_up(self, chosen: int) -> tuple[str, float]:
        """The likeliest card other than ``chosen`` (an index into DECK), and its probability.

        >>> probs = np.zeros(52); probs[[0, 3, 1]] = 0.9, 0.07, 0.03  # 2C, 2S, 2D
        >>> CardRead(probs, np.zeros((4, 2)), np.zeros(1)).runner_up(0)
        ('2S', 0.07)
        """
        p = self.probs.copy()
        p[chosen] = -1.0
        i = int(p.argmax())
        return str(DECK[i]), float(self.probs[i])

    def alternatives(self, n: int = 3) -> list[tuple[str, float]]:
        order = np.argsort(-self.probs)[:n]
        return [(str(DECK[int(i)]), round(float(self.probs[int(i)]), 3)) for i in order]


@dataclass
class Hand:
    cards: list[CardRead]
    centre: tuple[float, float]
    seat: Seat = None
    area: float = 0.0  # of its card-white region, in pixels
    length: float = 0.0  # the long side of its region, in pixels
    #: the regions it was found in (``hand_groups``: a hand laid apart is in three)
    pieces: int = 1
    #: its region is as long as its three cards, seen spread evenly or laid apart, make it
    #: (``spans_region``): however long, no other hand can hide in it
    spans: bool = False
    #: its three indices are seen unevenly spread (``UNEVEN``)
    uneven: bool = False
    #: two indices seen, its middle card placed by a spread wider than ``MAX_SPREAD``
    #: (``WIDE_SPREAD``): the two may be two hands' cards, so the whole hand is confirmed
    wide: bool = False
    #: its cards are smaller than the other hands' (``SMALL_CARDS``): pictured, not dealt
    small: bool = False
    #: it lies face down (``FACE_DOWN_PAPER``): its cards are not read
    face_down: bool = False
    #: the region it was found in (none for a hand joined from pieces)
    blob: Blob | None = None


def spans_region(xs: list[float], width: float, card_w: float) -> bool:
    """Whether three indices seen at ``xs`` (frame pixels, bottom card first) account for
    a region ``width`` long: the bottom card at its left edge, the top card a card width
    (``card_w``) from its right edge, spread evenly (not ``unevenly_spread``) and each card
    over the next or apart from it by no more than ``APART_REACH`` (a hand spread wide or
    laid apart is still one region; two hands touching in a row are longer than three
    cards spread so).

    >>> H = FRAME_CARD_H
    >>> spans_region([0.0, 0.55 * H, 1.1 * H], 1.81 * H, 0.71 * H)    # spread wide
    True
    >>> spans_region([0.0, 0.9 * H, 1.8 * H], 2.51 * H, 0.71 * H)     # laid apart
    True
    >>> spans_region([0.0, 0.25 * H, 0.5 * H], 2.4 * H, 0.71 * H)     # a hand's more
    False
    >>> spans_region([0.0, 0.2 * H, 1.6 * H], 2.31 * H, 0.71 * H)     # not even
    False
    """
    if len(xs) != 3 or unevenly_spread(xs):
        return False
    steps = [xs[1] - xs[0], xs[2] - xs[1]]
    return bool(abs(xs[0]) <= SPAN_SLACK * FRAME_CARD_H
                and abs(width - xs[2] - card_w) <= SPAN_SLACK * FRAME_CARD_H
                and min(steps) >= MIN_SPREAD * FRAME_CARD_H
                and max(steps) <= max(card_w, APART_REACH * FRAME_CARD_H))


def unevenly_spread(xs: list[float]) -> bool:
    """Whether three indices seen at ``xs`` (frame pixels, bottom card first) are spread
    so unevenly (one gap more than ``UNEVEN`` times the other) that one of them may be an
    index of a card beside the hand.

    >>> H = FRAME_CARD_H
    >>> unevenly_spread([0.0, 0.25 * H, 0.55 * H])
    False
    >>> unevenly_spread([-0.04 * H, 0.19 * H, 0.75 * H])  # a court card's index beside it
    True
    >>> unevenly_spread([0.0, 0.3 * H])  # two seen: the spread places the third
    False
    """
    if len(xs) != 3:
        return False
    steps = [xs[1] - xs[0], xs[2] - xs[1]]
    return max(steps) > UNEVEN * min(steps)


def _points(corners: np.ndarray) -> list[list[float]]:
    """Corners as the scan result gives them: pixels to a tenth.

    >>> _points(np.array([[1.234, 5.0], [7.06, 8.96]]))
    [[1.2, 5.0], [7.1, 9.0]]
    """
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners]


def _one_hand(pieces: list[Hand]) -> Hand:
    """The cards of ``pieces`` (regions that lie side by side) as one hand, left to right
    along the cards' width (the first card's); unevenly spread (``UNEVEN``) where one gap
    between their centres is more than twice the other. A hand laid apart or spread wide
    lies about evenly; two fanned cards and a card a hand's length beyond them are more
    likely pieces of two hands whose other cards went unseen (gm-paris 734003, a light grey
    felt in a hard shadow: 3S AC of QD 3S AC and 7H of 7H 2S JC, a hand nothing flagged)."""
    cards = [c for h in pieces for c in h.cards]
    across = cards[0].corners[1] - cards[0].corners[0]
    unit = across / max(float(np.linalg.norm(across)), 1e-9)
    cards.sort(key=lambda c: float(np.mean(c.corners, axis=0) @ unit))
    centres = np.array([np.mean(c.corners, axis=0) for c in cards])
    along = centres @ unit
    return Hand(cards, (float(centres[:, 0].mean()), float(centres[:, 1].mean())),
                area=sum(h.area for h in pieces),
                length=float(along.max() - along.min()) + float(np.linalg.norm(across)),
                pieces=len(pieces),
                uneven=unevenly_spread([float(x) for x in along]))


@dataclass
class _Forwards:
    """What one photo's read has already found and run through the networks, by input: the
    read of the same photo without the enrolled deck (``deck_doubts``) finds the same card
    regions and cuts the same strips and windows wherever it places a card where the deck's
    read did, and runs the networks only on the rest."""

    #: pyramid, blobs, unread, the empty layout as seen, the working copy and its card-white,
    #: the rows of hands another cut parts otherwise
    found: tuple[Pyramid, list[Blob], list[Blob], Layout | None,
                 tuple[np.ndarray, np.ndarray], list[OtherCut]] | None = None
    strips: dict[tuple[tuple[int, ...], bytes], np.ndarray] = field(default_factory=dict)
    looks: dict[bytes, list[tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)

    def runs(self) -> _Forwards:
        """A memo sharing these forward passes, with nothing found yet (another read of the
        photo that finds its own regions)."""
        return _Forwards(None, self.strips, self.looks)


def _run_new(memo: dict[Any, Any] | None, items: list[np.ndarray],
             key: Callable[[np.ndarray], Any],
             run: Callable[[list[np.ndarray]], list[Any]]) -> list[Any]:
    """``run``'s output for each of ``items`` (``run`` maps a batch to one output per
    item), running only the items whose ``key`` ``memo`` does not hold yet, and keeping
    their outputs there (no memo: all are run)."""
    if memo is None:
        return run(items)
    keys = [key(item) for item in items]
    todo = [i for i, k in enumerate(keys) if k not in memo]
    if todo:
        for i, out in zip(todo, run([items[i] for i in todo]), strict=True):
            memo[keys[i]] = out
    return [memo[k] for k in keys]


@dataclass
class _FrameEval:
    frame: Frame
    offsets: np.ndarray
    start: int = 0  # index of its first window in the batch
    peaks: list[int] = field(default_factory=list)
    score: float = 0.0


def _card_probs(rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(52,) joint probabilities over DECK from a rank head (with "none") and a suit head."""
    r = rank[:NONE]
    joint = r[:, None] * suit[None, :]  # rank-major, suit order as SUITS: same as DECK
    return np.asarray(joint.reshape(-1))


def missing_cards(xs: list[float], width: float, card_w: float,
                  max_spread: float = MAX_SPREAD, apart: float = math.inf) -> list[float]:
    """Where the unseen cards of a fanned three-card hand lie, from where its seen indices
    lie (``xs``, frame pixels), its region's width and a card's width: the three cards are
    evenly spread, the bottom card at the region's left edge and the top card one card width
    from its right edge. The spread that fits best is taken (from the seen cards' gap, or
    from the region when one card is seen), from ``MIN_SPREAD`` to ``max_spread`` card
    heights. Nothing when no spread fits, nor when two cards are seen ``apart`` or farther
    apart (frame pixels): side by side, no card between them (``SIDE_BY_SIDE``).

    >>> H = FRAME_CARD_H
    >>> [round(x / H, 2) for x in missing_cards([0.2 * H, 0.4 * H], 1.1 * H, 0.7 * H)]
    [0.0]
    >>> [round(x / H, 2) for x in missing_cards([0.0, 0.4 * H], 1.1 * H, 0.7 * H)]
    [0.2]
    >>> [round(x / H, 2) for x in missing_cards([0.0], 1.1 * H, 0.7 * H)]
    [0.2, 0.4]
    >>> missing_cards([0.0, 0.2 * H, 0.4 * H], 1.1 * H, 0.7 * H)  # all seen
    []
    >>> missing_cards([0.0], 0.75 * H, 0.7 * H)  # a single card: no spread
    []
    >>> missing_cards([0.0, H], 1.7 * H, 0.7 * H)  # spread wide, its middle card unseen
    []
    >>> [round(x / H, 2) for x in missing_cards([0.0, H], 1.7 * H, 0.7 * H, 0.7)]
    [0.5]
    >>> missing_cards([0.0, 0.65 * H], 1.35 * H, 0.7 * H, apart=0.6 * H)  # side by side
    []
    """
    if len(xs) == 1:
        steps = [(width - card_w) / 2]
    elif len(xs) == 2:
        if xs[1] - xs[0] >= apart:
            return []
        steps = [xs[1] - xs[0], (xs[1] - xs[0]) / 2]
    else:
        return []
    fits: list[tuple[float, list[float]]] = []
    for step in steps:
        if not MIN_SPREAD * FRAME_CARD_H <= step <= max_spread * FRAME_CARD_H:
            continue
        for first in range(3):  # the place in the hand of the first card seen
            ks = [first + round((x - xs[0]) / step) for x in xs]
            if ks[-1] > 2 or len(set(ks)) < len(ks):
                continue
            grid = [xs[0] + (k - first) * step for k in range(3)]
            err = abs(grid[0]) + abs(width - card_w - grid[2])
            if err <= MAX_MISFIT * FRAME_CARD_H:
                fits.append((err, [grid[k] for k in range(3) if k not in ks]))
    if not fits:
        return []
    return min(fits)[1]


def shows_a_back(paper: float, felt: float) -> bool:
    """Whether a region showing ``paper`` of card-white and ``felt`` of the felt's colour
    (``geometry.region_shows``) is the back of a card: little paper, and the felt hidden.

    >>> shows_a_back(0.1, 0.0), shows_a_back(0.7, 0.0), shows_a_back(0.1, 0.9)  # back, face, outline
    (True, False, False)
    """
    return paper < FACE_DOWN_PAPER and felt < FACE_DOWN_FELT


def _down_sized(blob: Blob, card_h: float) -> bool:
    """Whether ``blob``'s rectangle is as large as a hand of cards ``card_h`` high lying
    face down: FACE_DOWN_WIDE card heights across and FACE_DOWN_LONG long or more (not a
    card lying alone, nor chips).

    >>> box = lambda w, h: np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    >>> [_down_sized(Blob(box(w, h), 1.0, (0, 0), box(w, h)), 100.0)
    ...  for w, h in ((100, 120), (71, 100), (60, 45))]
    [True, False, False]
    """
    short, long = blob_sides(blob)
    return short >= FACE_DOWN_WIDE * card_h and long >= FACE_DOWN_LONG * card_h


def _card_high(corners: np.ndarray, card_h: float) -> bool:
    """Whether a region's rectangle (its four ``corners``) is at least half a card
    ``card_h`` high across (its short side): not a sliver along the rail or a floor's edge,
    which read in frames as high as a card would be a strip hundreds of windows long, nor a
    hard shadow's edge."""
    return box_sides(corners)[0] >= 0.5 * card_h


def _hand_sized(blob: Blob, card_h: float) -> bool:
    """Whether ``blob``'s rectangle could hold a hand of cards ``card_h`` high: it is
    card-high across (``_card_high``), its long side no longer than a hand
    (``geometry.ROW_OF_HANDS``).

    >>> corners = lambda w, h: np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    >>> [_hand_sized(Blob(corners(w, h), 1.0, (0, 0), corners(w, h)), 100.0)
    ...  for w, h in ((130, 100), (1322, 14), (60, 40), (200, 100))]
    [True, False, False, False]
    """
    return _card_high(blob.corners, card_h) and blob_sides(blob)[1] <= ROW_OF_HANDS * card_h


#: A hand whose card-white stands little out of the table (court cards on a near-white
#: one) can fall into two regions, neither of which reads a card: the lower cards' part
#: and the top card's frame. Two regions that read nothing (``Reader.unread``, and regions
#: whose frames read no index), lying within JOIN_GAP card heights of each other, are read
#: as one region of a hand's size, taken for a hand where that reads JOIN_UNREAD indices
#: (0: never), as ``READ_REJECTED`` takes a region. 2026-12-05, near-white table, one
#: photo each: training designs 930000-930029 678 -> 681 right (sure 571 -> 574),
#: procedural 920000-920029 649 -> 652 (457 -> 460); 1 or 2 read the same; every other
#: tuning set (plain, light grey, hard shadow, floor, tilted, spread wide, laid apart,
#: chips, glare; 30 photos each of both) read the same. Held out, up close with cards
#: 1,500 pixels high 95.59% -> 98.53%, every other row the same. 1 with
#: JOIN_GAP 0.3 also joined the halves of lone court cards laid apart (training designs
#: 691 -> 696 of 720), but printed felt read alone then took more print for cards
#: (procedural: flagged 401 -> 415, sure 384 -> 382); JOIN_CARD below joins those.
JOIN_UNREAD, JOIN_GAP = 3, 0.15
#: A court card lying alone (a hand laid apart) can fall into two unread regions too: its
#: art, across the card from frame line to frame line, leaves card-white only at its two
#: ends. Two unread regions whose outlines together make a lone card's
#: (``geometry.lone_card``, its width to its height within JOIN_CARD_SLACK of a card's:
#: the ends reach little past the frame lines) are read as one region, taken for a card
#: where that reads JOIN_CARD indices (0: never); the card's outline bounds how far apart
#: they lie. Not where they lie in a region read (``Reader._read_joined``). 2026-12-05,
#: laid apart, training designs 930000-930029, one photo each: 691 -> 709 of 720 right
#: (sure 394 -> 417), the gm-paris court cards. With a lone card's slack (0.15) and a gap
#: of at most 0.15 / 0.7 card heights: 693 / 699; with the outline's bound alone, slack
#: 0.15 / 0.2 / 0.3: 699 / 704 / 709 (and 414 sure before the rule not to join in a region
#: read: two court cards were read twice, flagged). Printed felt read alone joins some
#: print (flagged 401 -> 405 procedural, 147 -> 150 training designs; sure 384 -> 383,
#: 630 -> 629); every other tuning set read the same (30 photos each of both kinds: plain,
#: light grey, light grey in a hard shadow, near-white, floor, tilted, spread wide,
#: procedural laid apart, chips, glare). Held out, laid apart 82.78% -> 83.19%; printed
#: layout read alone sure 48.1% -> 47.8%, and with the camera moved 59.7% -> 59.4%.
JOIN_CARD, JOIN_CARD_SLACK = 1, 0.3
#: A hand across a hard shadow's edge can fall into two regions, its lit part and its
#: shaded part, parted by the edge, each reading one or two indices; the card whose index
#: lies where they part is lost (``hand_groups.joined`` joins pieces holding three cards
#: in all, not two). Two regions reading fewer than three indices together, lying within
#: JOIN_SHORT_GAP card heights of each other, are read as one region of a hand's size,
#: kept where that reads more indices than the two (``Reader._read_joined``). 2026-12-05,
#: light grey felt in a hard shadow, one photo each: training designs 930000-930029 679 ->
#: 687 right (sure 595 -> 613), procedural 920000-920029 652 -> 654 (469 -> 475); near-white
#: procedural 652 -> 655 (460 -> 464); every other tuning set the same (plain, light grey,
#: near-white training designs, floor, tilted, spread wide, laid apart, chips, glare,
#: printed felt read alone, a hard shadow on a coloured felt; 30 photos each of both
#: kinds). A gap of 0.3: 684 and 653. Held out, light grey in a hard shadow 90.28% ->
#: 90.56% (sure 53.6% -> 54.2%), every other row the same.
JOIN_SHORT, JOIN_SHORT_GAP = True, 0.45


def _best_frame(row: list[_FrameEval]) -> int:
    """Which of a region's four frames (read) reads best: the most index score, the first
    on a tie."""
    return max(range(len(row)), key=lambda k: (row[k].score, -k))


def _hands_read(rows: list[list[_FrameEval]]) -> int:
    """How many of the regions (each its four frames, read) show three indices in the frame
    that reads best."""
    return sum(len(row[_best_frame(row)].peaks) == 3 for row in rows)


def _top_width(width: float, x: float, otherwise: float) -> float:
    """The width, in frame pixels, of a region's top card whose left edge lies at ``x``
    in a frame ``width`` wide: to the region's right edge, where that is a card's width
    (0.5-0.9 card heights); else ``otherwise``.

    >>> H = FRAME_CARD_H
    >>> round(_top_width(1.1 * H, 0.4 * H, 0.0) / H, 2), _top_width(1.1 * H, 0.0, -1.0)
    (0.7, -1.0)
    """
    return width - x if 0.5 * FRAME_CARD_H <= width - x <= 0.9 * FRAME_CARD_H else otherwise


def _top_read_once(fe: _FrameEval, card_w: float, index_score: np.ndarray) -> _FrameEval:
    """``fe`` without its right index where it is one card's region read twice
    (``CROWDED_TOP``). ``card_w``: a card's width in the frame's pixels."""
    if len(fe.peaks) != 2 or fe.frame.width >= (1 + CROWDED_TOP) * card_w:
        return fe
    first, second = (float(index_score[fe.start + p]) for p in fe.peaks)
    if second < min(CROWDED_SCORE, first):
        return replace(fe, peaks=fe.peaks[:1], score=fe.score - second)
    return fe


def _peaks(score: np.ndarray, min_gap: float, step: int) -> list[int]:
    order = np.argsort(-score)
    chosen: list[int] = []
    for i in order:
        if score[i] < PEAK_SCORE:
            break
        if all(abs(int(i) - j) * step >= min_gap for j in chosen):
            chosen.append(int(i))
    return sorted(chosen)


class Reader:
    def __init__(self, model: IndexNet | str | Path | None = None,
                 threshold: float = DEFAULT_THRESHOLD,
                 deck: Adapter | None = None,
                 exhaustive: bool = False, second: bool = True,
                 runner_up: float = RUNNER_UP) -> None:
        if model is None:
            model = default_model_path()
        self.net = model if isinstance(model, IndexNet) else IndexNet(model)
        #: the second look at each found card (``SECOND_NAMES`` beside the index network)
        self.second: SecondLook | None = None
        if second:
            looks = [p for n in SECOND_NAMES if (p := self.net.path.parent / n).is_file()]
            self.second = SecondLook(*looks) if looks else None
        #: whether something lies over an index (``COVERED_NAME``), read on the second
        #: look's windows: none without a second look
        self.covered: CoveredIndex | None = None
        if self.second and (path := self.net.path.parent / COVERED_NAME).is_file():
            self.covered = CoveredIndex(path)
        self.threshold = threshold
        self.runner_up = runner_up
        #: an enrolled deck's corrections (see ``enroll``)
        self.deck = self._checked(deck)
        #: baseline mode for the benchmark: a window every 2 pixels, each read on its own
        self.exhaustive = exhaustive
        #: within one ``read`` with a deck: the forward passes already run (``_Forwards``)
        self._memo: _Forwards | None = None
        #: how card-white is looked for where the photo leaves it open (by brightness on a
        #: table of little colour, balanced for a cast: ``geometry.WhiteBy``)
        self.white_by = WhiteBy()
        #: within one ``read``: the photo's working copy and its scale (``geometry.reduce``)
        self._reduced: tuple[np.ndarray, float] | None = None
        #: within one ``read`` of several ways: the hands this way's first pass found
        #: (``_first_pass``), and whether its read cannot be the one kept (``LOSING``)
        self._first: list[Hand] | None = None
        self._losing = False
        #: within one ``read``: whether the photo shows almost no colour (``FAINT_NOTE``)
        self._faint = False
        self._forget_found()

    def _forget_found(self) -> None:
        """What ``find_cards`` finds beside the hands, as before it has found anything (each
        call starts so; a reader has them before its first)."""
        self.unread: list[Blob] = []
        self.card_h: float | None = None
        self.layout: Layout | None = None
        #: the working copy (``geometry.reduce``) and its card-white
        self.white: tuple[np.ndarray, np.ndarray] | None = None
        #: the photo's pyramid and its cast (``Pyramid.cast``), for ``_red_doubts`` (let go
        #: once the read is made)
        self._pyr: Pyramid | None = None

    def _checked(self, deck: Adapter | None) -> Adapter | None:
        """``deck`` if every correction in it was fitted on the model this reader runs;
        raises ValueError naming the model otherwise."""
        if deck:
            # each correction maps one network's embedding: fitted on another network it
            # would shift the reads by something meaningless, and say nothing
            models = [(self.net.path.name, self.net.digest, str(deck.get("model", "")))]
            looks_now = list(zip(self.second.paths, self.second.digests, strict=True)
                             ) if self.second else []
            for i in range(len(SECOND_NAMES)):
                if (fitted := look_adapter(deck, i)) is not None:
                    path, digest = looks_now[i] if i < len(looks_now) else (Path("none"), "")
                    models.append((f"second look {path.name}", digest, str(fitted["model"])))
            for name, digest, fitted_on in models:
                if fitted_on != digest:
                    raise ValueError("the deck was enrolled with another card model than the "
                                     f"one installed ({name} {digest[:12]}); "
                                     "enroll it again from its labelled photos")
        return deck or None

    def with_deck(self, deck: Adapter | None) -> Reader:
        """This reader, its networks shared, reading with an enrolled deck (or none)."""
        other = copy.copy(self)
        other.deck = self._checked(deck)
        return other

    # -- finding and reading cards ---------------------------------------------------------
    def _read_strips(self, strips: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray, list[int]]:
        """Every window of every strip: the strips side by side in one forward pass (the
        network's windows never mix two strips: each strip starts on a STRIDE boundary and
        the columns across a seam are dropped). Returns per-window rank and suit
        probabilities, embeddings and each strip's first window. Strips already run in this
        read (``_Forwards``) are not run again."""
        per = _run_new(self._memo.strips if self._memo is not None else None, strips,
                       lambda st: (st.shape, st.tobytes()), self._strips_raw)
        starts = [int(v) for v in np.cumsum([0] + [len(r) for r in per])[:-1]]
        rank, suit, feats = self.net.split(np.concatenate(per), self.deck)
        return rank, suit, feats, starts

    def _strips_raw(self, strips: list[np.ndarray]) -> list[np.ndarray]:
        """Each strip's raw outputs (one per window), all strips in one forward pass."""
        widths = [-(-st.shape[1] // STRIDE) * STRIDE for st in strips]
        wide = np.zeros((PATCH_H, sum(widths), 3), np.uint8)
        x = 0
        for st, w in zip(strips, widths, strict=True):
            wide[:, x : x + st.shape[1]] = st
            x += w
        out = self.net.strip_raw(wide)
        starts = np.cumsum([0, *widths[:-1]]) // STRIDE
        return [out[a : a + (st.shape[1] - PATCH_W) // STRIDE + 1]
                for a, st in zip(starts, strips, strict=True)]

    def _look_raw(self, windows: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The second look's raw outputs for ``windows`` (``SecondLook.raw``: per model,
        embeddings and logits); windows already run in this read are not run again."""
        assert self.second is not None
        second = self.second

        def run(batch: list[np.ndarray]) -> list[list[tuple[np.ndarray, np.ndarray]]]:
            fresh = second.raw(np.stack(batch))
            return [[(emb[j], z[j]) for emb, z in fresh] for j in range(len(batch))]

        outs = _run_new(self._memo.looks if self._memo is not None else None, windows,
                        lambda w: w.tobytes(), run)
        return [(np.stack([o[m][0] for o in outs]), np.stack([o[m][1] for o in outs]))
                for m in range(len(second.nets))]

    def _read_windows(self, strips: list[np.ndarray], offsets: list[list[int]]) -> tuple[
            np.ndarray, np.ndarray, np.ndarray, list[int]]:
        """The baseline: every window cut and read on its own."""
        patches = [window_patches(s, o) for s, o in zip(strips, offsets, strict=True)]
        starts = list(np.cumsum([0] + [len(o) for o in offsets])[:-1])
        rank, suit, feats = self.net.predict(np.concatenate(patches), self.deck)
        return rank, suit, feats, [int(v) for v in starts]

    def _frames_of(self, pyr: Pyramid, blobs: list[Blob], step: int) -> tuple[
            list[list[_FrameEval]], np.ndarray, np.ndarray, np.ndarray]:
        """Every blob's four frames read in one pass: per blob its frames (their windows
        from ``start`` in the returned rank and suit probabilities and embeddings, and
        their peaks)."""
        evals: list[list[_FrameEval]] = []
        strips: list[np.ndarray] = []
        offsets: list[list[int]] = []
        for blob in blobs:
            row = []
            # all four frames: which edge shows the indices cannot be told from the
            # region's shape when a hand is spread tight (its region nearly square);
            # guessing it lost 16% of the cards of procedural decks
            for k in range(4):
                frame = make_frame(blob, k)
                offs = slide_offsets(frame, step)
                x0 = float(offs[0])
                strip = cut_strip(pyr, frame, x0, float(offs[-1]) + PATCH_W + 1)
                strips.append(normalise_strip(strip, pyr.cast))
                offsets.append([round(float(o) - x0) for o in offs])
                row.append(_FrameEval(frame, offs, len(strips) - 1))
            evals.append(row)
        if self.exhaustive:
            rank, suit, feats, starts = self._read_windows(strips, offsets)
        else:
            rank, suit, feats, starts = self._read_strips(strips)
        index_score = 1.0 - rank[:, NONE]
        for row in evals:
            for fe in row:
                fe.start = starts[fe.start]
                sc = index_score[fe.start : fe.start + len(fe.offsets)]
                fe.peaks = _peaks(sc, 0.12 * FRAME_CARD_H, step)
                fe.score = float(sum(sc[p] for p in fe.peaks))
        return evals, rank, suit, feats

    def find_cards(self, image: np.ndarray,
                   empty: np.ndarray | EmptyLayout | None = None) -> list[Hand]:
        """Hands found; card-like regions where no index was read go to ``self.unread``.
        ``empty``: a photo of the table's empty layout (``geometry.layout_in_frame``), seen
        from where this one was taken as ``self.layout`` (None when it could not be)."""
        hands = self._first_pass(image, empty) if self._first is None else self._first
        self._first = None
        if RESCALES and self._pyr is not None:
            # a read that cannot be kept reads again only what it may yet find face down
            # (its cards then dropped): the rest of it is not looked at again (``LOSING``)
            self._read_rescaled(self._pyr, [c for h in hands for c in h.cards
                                            if not self._losing or _may_lie_face_down(h)])
        return hands

    def _first_pass(self, image: np.ndarray,
                    empty: np.ndarray | EmptyLayout | None = None) -> list[Hand]:
        """``find_cards`` before its cards' indices are read again (``_read_rescaled``):
        every hand and card it finds, each card's first read."""
        self._forget_found()
        if self._memo is not None and self._memo.found is not None:
            pyr, seen, unread, self.layout, self.white, other_cuts = self._memo.found
            blobs, self.unread = list(seen), list(unread)
        else:
            pyr = Pyramid(image)
            work = reduce(image) if self._reduced is None else self._reduced
            self.layout = None if empty is None else layout_in_frame(empty, *work)
            white: list[tuple[np.ndarray, np.ndarray]] = []
            other_cuts = []
            blobs = find_blobs(image, self.unread, self.layout, white, other_cuts,
                               self.white_by, work)
            self.white = white[0]
            pyr.cast = clipped_cast(*self.white)
            if self._memo is not None:
                self._memo.found = (pyr, list(blobs), list(self.unread), self.layout,
                                    self.white, other_cuts)
        self._pyr = pyr
        if not blobs:
            return []
        self.card_h = card_height(blobs)
        step = 2 if self.exhaustive else RUN_STEP
        evals, rank, suit, feats = self._frames_of(pyr, blobs, step)
        if READ_REJECTED and self.unread:
            blobs, evals, rank, suit, feats = self._read_rejected(
                pyr, step, blobs, evals, (rank, suit, feats))
        # a region where fewer than three indices were read in every frame of its
        # rectangle: again in the frames of the quadrilateral that fits it and of the
        # parallelogram along its cards' edges, kept if they read more (a hand seen at a
        # slant is sheared in its rectangle's frames, and a hand spread tight can have its
        # rectangle turned from its cards: its indices are not all read there)
        for other in (quad_blob, lambda b: aligned_blob(pyr, b)):
            redo = [(i, q) for i in range(len(blobs))
                    if max(len(fe.peaks) for fe in evals[i]) < 3
                    and (q := other(blobs[i])) is not None]
            if not redo:
                continue
            again, (rank, suit, feats) = self._read_more(
                pyr, step, [q for _, q in redo], (rank, suit, feats))
            for (i, alt), row in zip(redo, again, strict=True):
                if max(fe.score for fe in row) > max(fe.score for fe in evals[i]):
                    blobs[i], evals[i] = alt, row
        if WIDEN:
            blobs, evals, rank, suit, feats = self._read_widened(
                pyr, step, blobs, evals, (rank, suit, feats))
        if other_cuts and CUT_BY_READS:
            blobs, evals, rank, suit, feats = self._better_cuts(
                pyr, step, other_cuts, blobs, evals, (rank, suit, feats))
        if (JOIN_UNREAD or JOIN_CARD) and self.card_h is not None:
            blobs, evals, rank, suit, feats = self._read_joined(
                pyr, step, self.card_h, blobs, evals, (rank, suit, feats))
        index_score = 1.0 - rank[:, NONE]
        found: list[tuple[Blob, _FrameEval, _FrameEval]] = []
        for blob, row in zip(blobs, evals, strict=True):
            best = _best_frame(row)
            if not row[best].peaks:
                self.unread.append(blob)
                continue
            found.append((blob, row[best], row[(best + 2) % 4]))
        # this deck's card width in photo pixels: the top card's, in the hands where three
        # indices were seen; in each hand's frame it is as wide as that frame's scale makes
        # it (a hand with a card standing out above the others has a taller region, and
        # its frame, scaled to that height, shows its cards narrower)
        tops = [(fe.frame.width - fe.offsets[fe.peaks[-1]]) / frame_scale(fe.frame)
                for _, fe, _ in found if len(fe.peaks) == 3]
        card_w = float(np.median(tops)) if tops else None

        def width_in(frame: Frame) -> float:
            return card_w * frame_scale(frame) if card_w is not None else CARD_W * FRAME_CARD_H

        if CROWDED_TOP:
            found = [(blob, _top_read_once(fe, width_in(fe.frame), index_score), opposite)
                     for blob, fe, opposite in found]

        def cards_of(k: int, wide: bool = False) -> Hand:
            blob, fe, opposite = found[k]
            return self._cards_of(blob, fe, opposite, rank, suit, feats, index_score,
                                  width_in(fe.frame), wide)

        hands = [cards_of(k) for k in range(len(found))]
        # a hand laid apart (or spread so wide it was cut) is in two or three regions
        groups = joined([[c.corners for c in h.cards] for h in hands],
                        [None if h.blob is None else h.blob.hull for h in hands])
        for g in groups:
            if len(g) == 1 and len(hands[g[0]].cards) == 2 and not any(
                    c.inferred for c in hands[g[0]].cards):
                hands[g[0]] = cards_of(g[0], wide=True)
                hands[g[0]].wide = len(hands[g[0]].cards) == 3
        return [hands[g[0]] if len(g) == 1 else _one_hand([hands[k] for k in g])
                for g in groups]

    def _read_more(self, pyr: Pyramid, step: int, more: list[Blob],
                   reads: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[
            list[list[_FrameEval]], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The frames of regions ``more``, read after ``reads`` (rank, suit, embeddings of
        the windows read so far): their frames, their windows' places counted on from
        those, and the reads with theirs added."""
        again, *more_reads = self._frames_of(pyr, more, step)
        for row in again:
            for fe in row:
                fe.start += len(reads[0])
        rank, suit, feats = (np.concatenate([a, b]) for a, b in zip(
            reads, more_reads, strict=True))
        return again, (rank, suit, feats)

    def _read_widened(self, pyr: Pyramid, step: int, blobs: list[Blob],
                      evals: list[list[_FrameEval]],
                      reads: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[
            list[Blob], list[list[_FrameEval]], np.ndarray, np.ndarray, np.ndarray]:
        """Each region whose best frame reads one or two indices read again lengthened
        along that frame by a card's width for each card missing, at each end that stays
        in the photo and reaches no other region (``geometry.widened``); where that reads
        more indices, the region its cards span (``geometry.spanned``) is read in its
        place, kept if it reads as many (``WIDEN``). The regions, their frames and the
        windows' reads (``reads``: rank, suit, embeddings) with those in place."""
        hulls = [b.hull for b in blobs]
        size = pyr.levels[0].shape[1], pyr.levels[0].shape[0]
        redo: list[tuple[int, Blob]] = []
        for i, row in enumerate(evals):
            best = _best_frame(row)
            n = len(row[best].peaks)
            if 0 < n < 3:
                others = [h for j, h in enumerate(hulls) if j != i]
                if (longer := widened(blobs[i], best, (3 - n) * CARD_W, others,
                                      size)) is not None:
                    redo.append((i, longer))
        if not redo:
            return blobs, evals, *reads
        again, reads = self._read_more(pyr, step, [b for _, b in redo], reads)
        spans: list[tuple[int, int, Blob]] = []
        for (i, _), row in zip(redo, again, strict=True):
            fe = row[_best_frame(row)]
            if len(fe.peaks) > max(len(e.peaks) for e in evals[i]):
                xs = [float(fe.offsets[p]) for p in fe.peaks]
                spans.append((i, len(fe.peaks), spanned(
                    fe.frame, blobs[i], xs[0], xs[-1] + CARD_W * FRAME_CARD_H)))
        if not spans:
            return blobs, evals, *reads
        again, reads = self._read_more(pyr, step, [b for _, _, b in spans], reads)
        blobs, evals = list(blobs), list(evals)
        for (i, n, span), row in zip(spans, again, strict=True):
            if len(row[_best_frame(row)].peaks) >= n:
                blobs[i], evals[i] = span, row
        return blobs, evals, *reads

    def _read_joined(self, pyr: Pyramid, step: int, card_h: float, blobs: list[Blob],
                     evals: list[list[_FrameEval]],
                     reads: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[
            list[Blob], list[list[_FrameEval]], np.ndarray, np.ndarray, np.ndarray]:
        """Two regions that read no card (``self.unread``, and regions whose frames read no
        index) read as one: kept as a hand where they lie within JOIN_GAP card heights of
        each other, make a region of a hand's size and that reads JOIN_UNREAD indices or
        more; as a card where they make a lone card's outline and that reads JOIN_CARD
        indices or more. With JOIN_SHORT, two regions reading fewer than three indices
        together (pieces of one hand) too, within JOIN_SHORT_GAP, kept where the one region
        reads more indices than the two, and JOIN_UNREAD at least. Each region is joined
        once, the best reads first. Not where the two lie in another region read: a region
        widened over a hand laid apart (``WIDEN``) reads the cards whose pieces lie in it."""
        peaks = [len(row[_best_frame(row)].peaks) for row in evals]
        # (unread region?, its index there, the region, indices read)
        pieces = [(True, k, b, 0) for k, b in enumerate(self.unread)] + [
            (False, i, blobs[i], n) for i, n in enumerate(peaks)
            if n == 0 or (JOIN_SHORT and n < 3)]
        read = {i: blobs[i].hull.reshape(-1, 1, 2).astype(np.float32)
                for i, n in enumerate(peaks) if n}
        # the two, their union, the indices it must read to be kept
        pairs: list[tuple[int, int, Blob, int]] = []
        for x in range(len(pieces)):
            for y in range(x + 1, len(pieces)):
                a, b = pieces[x][2], pieces[y][2]
                n = pieces[x][3] + pieces[y][3]
                if n >= 3 or math.dist(a.centre, b.centre) > ROW_OF_HANDS * card_h:
                    continue  # a hand's indices between them, or too far apart for one
                union = joined_blob(a, b)
                own = {u[1] for u in (pieces[x], pieces[y]) if not u[0]}
                if any(cv2.pointPolygonTest(r, union.centre, False) >= 0
                       for i, r in read.items() if i not in own):
                    continue
                if n == 0 and JOIN_CARD and lone_card(union, card_h, JOIN_CARD_SLACK):
                    pairs.append((x, y, union, JOIN_CARD))
                elif JOIN_UNREAD and _hand_sized(union, card_h) and hull_gap(
                        a.hull, b.hull) <= (JOIN_SHORT_GAP if n else JOIN_GAP) * card_h:
                    pairs.append((x, y, union, max(JOIN_UNREAD, n + 1)))
        if not pairs:
            return blobs, evals, *reads
        again, reads = self._read_more(pyr, step, [u for _, _, u, _ in pairs], reads)
        used: set[int] = set()
        kept: list[tuple[Blob, list[_FrameEval]]] = []
        for p in sorted(range(len(pairs)), key=lambda p: -max(fe.score for fe in again[p])):
            x, y, union, need = pairs[p]
            row = again[p]
            if x in used or y in used or len(row[_best_frame(row)].peaks) < need:
                continue
            used.update((x, y))
            kept.append((union, row))
        if not kept:
            return blobs, evals, *reads
        taken = {pieces[x][1] for x in used if pieces[x][0]}
        gone = {pieces[x][1] for x in used if not pieces[x][0]}
        self.unread = [b for k, b in enumerate(self.unread) if k not in taken]
        stay = [i for i in range(len(blobs)) if i not in gone]
        return ([blobs[i] for i in stay] + [u for u, _ in kept],
                [evals[i] for i in stay] + [row for _, row in kept], *reads)

    def _read_rejected(self, pyr: Pyramid, step: int, blobs: list[Blob],
                       evals: list[list[_FrameEval]],
                       reads: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[
            list[Blob], list[list[_FrameEval]], np.ndarray, np.ndarray, np.ndarray]:
        """The regions found not card-like (``self.unread``) read all the same, as their
        parts (``_rejected_parts``): each part whose best frame reads ``READ_REJECTED``
        indices or more joins the regions found (its frames' windows after ``reads``' in
        the returned rank and suit probabilities and embeddings). A region none of whose
        parts read stays unread whole; else its parts not read stay unread."""
        card_h = self.card_h
        if card_h is None:
            return blobs, evals, *reads
        parts = self._rejected_parts(pyr, card_h)
        if not parts:
            return blobs, evals, *reads
        sized = [p for k in sorted(parts) for p in parts[k]]
        again, (rank, suit, feats) = self._read_more(pyr, step, sized, reads)
        rows = dict(zip(map(id, sized), again, strict=True))
        hands = [(p, rows[id(p)]) for p in sized
                 if max(len(fe.peaks) for fe in rows[id(p)]) >= READ_REJECTED]
        read = {id(p) for p, _ in hands}
        unread: list[Blob] = []
        for k, b in enumerate(self.unread):  # in the order found
            mine = parts.get(k, [b])
            if not any(id(p) in read for p in mine):
                unread.append(b)
            else:
                unread += [p for p in mine if id(p) not in read]
        self.unread = unread
        return ([*blobs, *(p for p, _ in hands)], [*evals, *(row for _, row in hands)],
                rank, suit, feats)

    def _rejected_parts(self, pyr: Pyramid, card_h: float) -> dict[int, list[Blob]]:
        """The regions of ``self.unread`` to read (by their place there), each as the parts
        it is read as: itself where it is of a hand's size (``_hand_sized``), its hands
        where it is longer and cut as a row of hands (``ROWS_REJECTED``); only parts
        card-high across (``_card_high``)."""
        parts: dict[int, list[Blob]] = {}
        for k, b in enumerate(self.unread):
            if _hand_sized(b, card_h):
                parts[k] = [b]
            elif ROWS_REJECTED and self.white is not None and _card_high(b.corners, card_h):
                work, mask = self.white
                s = work.shape[1] / pyr.levels[0].shape[1]
                if row := [p for p in hands_in_row(b, mask, s, card_h) if _card_high(p.corners, card_h)]:
                    parts[k] = row
        return parts

    def _better_cuts(self, pyr: Pyramid, step: int, other_cuts: list[OtherCut],
                     blobs: list[Blob], evals: list[list[_FrameEval]],
                     reads: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[
            list[Blob], list[list[_FrameEval]], np.ndarray, np.ndarray, np.ndarray]:
        """Each row of touching hands that another cut parts otherwise, and each region the
        print cut took something from, whole (``other_cuts``), is parted that way instead
        where more of its parts then read as a hand (three indices seen); the regions,
        their frames and the windows' reads (``reads``: rank, suit, embeddings) with those
        parts in place of the first cut's."""
        again, more_reads = self._read_more(
            pyr, step, [b for _, parts in other_cuts for b in parts], reads)
        drop: set[int] = set()
        added: list[tuple[Blob, list[_FrameEval]]] = []
        k = 0
        for mine, parts in other_cuts:
            rows = again[k : k + len(parts)]
            k += len(parts)
            # a region two ways part (a row of hands the print cut) is parted once
            if drop.isdisjoint(mine) and _hands_read(rows) > _hands_read(
                    [evals[i] for i in mine]):
                drop.update(mine)
                added += zip(parts, rows, strict=True)
        if not added:
            return blobs, evals, *reads
        kept = [i for i in range(len(blobs)) if i not in drop]
        return ([blobs[i] for i in kept] + [b for b, _ in added],
                [evals[i] for i in kept] + [row for _, row in added], *more_reads)

    def _read_rescaled(self, pyr: Pyramid, cards: list[CardRead]) -> None:
        """Read each card's index again at each of ``RESCALES`` (one forward pass for all)
        and combine the reads with the first; then the second look, when installed, reads
        its window on the index at each of ``LOOK_SIZES`` and weighs in
        (``SECOND_WEIGHT``). Where the read leaves doubt (``DOUBT``) only, at the last of
        those sizes (``FIRST_SIZES``); and a top card whose read leaves doubt is read the
        same way at its other index too, all its reads combined."""
        if not RESCALES or not cards:
            return
        first_pass = [c.probs for c in cards]
        sizes = (1.0, *RESCALES)
        first_sizes = sizes[:FIRST_SIZES] if FIRST_SIZES else sizes
        first = self._index_reads(pyr, [(c.frame, c.x) for c in cards], first_sizes,
                                  covered=True)
        own = [(logs, looks) for logs, looks, _ in first]
        for c, probs, (logs, looks, covered) in zip(cards, first_pass, first, strict=True):
            c.probs = self._joint(probs, logs, looks)
            c.covered = covered
        rest = sizes[len(first_sizes):]
        if rest:
            doubt_n = [n for n, c in enumerate(cards) if c.leaves_doubt]
            more = self._index_reads(pyr, [(cards[n].frame, cards[n].x) for n in doubt_n], rest)
            for n, (logs, looks, _) in zip(doubt_n, more, strict=True):
                own[n] = (own[n][0] + logs, own[n][1] + looks)
                cards[n].probs = self._joint(first_pass[n], *own[n])
        doubt = [(n, c.other) for n, c in enumerate(cards)
                 if OTHER_INDEX and c.other is not None and c.leaves_doubt]
        other = self._index_reads(pyr, [at for _, at in doubt], sizes)
        for (n, _), (logs, looks, _) in zip(doubt, other, strict=True):
            cards[n].probs = self._joint(first_pass[n], own[n][0] + logs, own[n][1] + looks)

    def _index_reads(self, pyr: Pyramid, indices: list[tuple[Frame | None, float]],
                     sizes: tuple[float, ...], covered: bool = False) -> list[
            tuple[list[np.ndarray], list[np.ndarray], list[float]]]:
        """For each index (the frame it reads upright in, its card's left edge at x there):
        the log-probabilities of the index network's reads at each of ``sizes`` but 1.0
        (read already) and of the second look's at each of them in ``LOOK_SIZES`` (none
        without a second look), all in one forward pass per network; with ``covered``, at
        each of the second look's windows, the probability that something lies over the
        index (none without ``self.covered``: read once per card, at its first sizes)."""
        strips: list[np.ndarray] = []
        looks: list[np.ndarray] = []
        for frame, x in indices:
            assert frame is not None  # every card found was read in a frame
            top = card_top(pyr, frame, x) if TOPS else 0.0
            for s in sizes:
                x0 = s * x - STRIDE  # three windows: centred on the index and either side
                if s != 1.0:  # the index network has read this size already
                    strips.append(normalise_strip(cut_strip(
                        pyr, frame.scaled(s), x0, x0 + PATCH_W + 2 * STRIDE, top=s * top),
                        pyr.cast))
                if self.second and s in LOOK_SIZES:
                    looks.append(look_window(pyr, frame, x, s, top))
        if not indices:
            return []
        rank, suit, _, starts = self._read_strips(strips)
        second = (self.second.combine(self._look_raw(looks), self.deck)
                  if self.second and looks else None)
        over = ([] if not covered or not looks or self.covered is None
                else self.covered.probability(np.stack(looks)).tolist())
        out: list[tuple[list[np.ndarray], list[np.ndarray], list[float]]] = []
        per_strips, per_looks = len(strips) // len(indices), len(looks) // len(indices)
        for n in range(len(indices)):
            logs = []
            for a in starts[n * per_strips : (n + 1) * per_strips]:
                w = 1.0 - rank[a : a + 3, NONE]
                probs = sum(wi * _card_probs(rank[a + i], suit[a + i]) for i, wi in enumerate(w))
                logs.append(np.log(np.asarray(probs) / max(float(w.sum()), 1e-6) + 1e-6))
            look = ([] if second is None else
                    list(np.log(second[n * per_looks : (n + 1) * per_looks] + 1e-6)))
            out.append((logs, look, over[n * per_looks : (n + 1) * per_looks]))
        return out

    @staticmethod
    def _joint(first_pass: np.ndarray, logs: list[np.ndarray],
               looks: list[np.ndarray]) -> np.ndarray:
        """A card's probabilities from its reads: the geometric mean of the index network's
        (its first pass and ``logs``), weighed against that of the second look's (``looks``:
        none without a second look) by ``SECOND_WEIGHT``."""
        first = np.mean([np.log(first_pass + 1e-6), *logs], axis=0)
        both = first if not looks else (
            SECOND_WEIGHT * np.mean(looks, axis=0) + (1 - SECOND_WEIGHT) * first)
        joint = np.exp(both - both.max())
        return np.asarray(joint / joint.sum())

    def _window_probs(self, fe: _FrameEval, p: int, rank: np.ndarray, suit: np.ndarray,
                      feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Card probabilities at a peak: the windows around it, weighted by their score."""
        idx = [fe.start + q for q in range(max(0, p - 1), min(len(fe.offsets), p + 2))]
        w = 1.0 - rank[idx, NONE]
        probs = sum(wi * _card_probs(rank[i], suit[i]) for wi, i in zip(w, idx, strict=True))
        probs = np.asarray(probs) / max(float(w.sum()), 1e-6)
        return probs, feats[fe.start + p]

    def _cards_of(self, blob: Blob, fe: _FrameEval, opposite: _FrameEval, rank: np.ndarray,
                  suit: np.ndarray, feats: np.ndarray, index_score: np.ndarray,
                  card_w: float, wide: bool = False) -> Hand:
        """The cards of a region read in its frame ``fe`` (``opposite``: the frame turned
        half round, where the top card's other index is upright), with those its spread
        says went unseen (``missing_cards``, spreads up to ``MAX_SPREAD`` card heights, two
        cards ``SIDE_BY_SIDE`` having none between them); ``wide``: taken for a hand spread
        wide, up to ``WIDE_SPREAD``, however far apart its two cards lie."""
        frame = fe.frame
        xs = [float(fe.offsets[p]) for p in fe.peaks]
        places = [(p, False) for p in fe.peaks]
        sc = index_score[fe.start : fe.start + len(fe.offsets)]
        top_w = _top_width(frame.width, xs[-1], card_w)  # if the top card's index was seen
        apart = math.inf if wide else SIDE_BY_SIDE * max(card_w, top_w)
        max_spread = WIDE_SPREAD if wide else MAX_SPREAD
        for x in missing_cards(xs, frame.width, card_w, max_spread, apart):
            # an index the network did not see where the hand's spread puts one: read at
            # the likeliest window near there all the same, and the dealer confirms it
            near = np.abs(fe.offsets - x) <= SEARCH * FRAME_CARD_H
            near &= np.min(np.abs(fe.offsets[:, None] - np.array(xs)[None, :]), axis=1) >= (
                MIN_SPREAD * FRAME_CARD_H)
            if near.any():
                places.append((int(np.flatnonzero(near)[np.argmax(sc[near])]), True))
        places.sort()
        width = _top_width(frame.width, float(fe.offsets[places[-1][0]]),
                           CARD_W * FRAME_CARD_H)
        cards: list[CardRead] = []
        for n, (p, inferred) in enumerate(places):
            probs, feat = self._window_probs(fe, p, rank, suit, feats)
            if n == len(places) - 1 and opposite.peaks and opposite.offsets[
                    opposite.peaks[0]] < 0.1 * FRAME_CARD_H:
                # the top card's other index, read upright in the opposite frame
                other, _ = self._window_probs(opposite, opposite.peaks[0], rank, suit, feats)
                probs = 0.5 * (probs + other)
                at_other: tuple[Frame, float] | None = (
                    opposite.frame, float(opposite.offsets[opposite.peaks[0]]))
            else:
                at_other = None
            x = float(fe.offsets[p])
            box = np.array([[x, 0], [x + width, 0], [x + width, FRAME_CARD_H],
                            [x, FRAME_CARD_H]], np.float32)
            cards.append(CardRead(probs, frame.image_points(box), feat, frame, x,
                                  inferred=inferred, other=at_other))
        seen = [float(fe.offsets[p]) for p, inferred in places if not inferred]
        return Hand(cards, blob.centre, area=blob.area, length=blob_sides(blob)[1],
                    spans=spans_region(seen, frame.width, card_w),
                    uneven=unevenly_spread(seen), blob=blob)

    # -- the whole table -------------------------------------------------------------------
    def read(self, image: np.ndarray, zones: dict[str, Any] | None = None,
             empty: np.ndarray | EmptyLayout | None = None) -> dict[str, Any]:
        """Every card of a table photo read, grouped into hands and seated (the module's
        docstring shows the result). ``empty``: a photo of the table's empty layout (the
        one the seat zones are drawn on), from where this one was taken or near it: its
        print is not taken for cards, and ``zones`` are then in its pixels (mapped to this
        photo's: scaled, or by the homography its print gives when the camera moved). On a
        table of little colour, read with card-white found both ways (``GREY_BOTH``), and
        where a colour cast may be the felt's own, as taken and balanced (``BALANCE_BOTH``). A
        photo whose cards read at little confidence is read mirrored too (``MIRROR_TRY``)."""
        result = self._read_photo(image, zones, empty)
        cards, confidence = _confidence(result)
        if cards < MIRROR_CARDS or confidence >= MIRROR_TRY * cards:
            return result
        # a mirrored photo: read turned back, its zones and empty layout with it
        width = image.shape[1]
        layout = None if empty is None else (empty.image if isinstance(empty, EmptyLayout)
                                             else empty)
        zones_width = width if layout is None else layout.shape[1]
        turned = copy.copy(self)._read_photo(  # what it finds is left with the copy
            cv2.flip(image, 1), None if not zones else mirrored_zones(zones, zones_width),
            None if layout is None else EmptyLayout(cv2.flip(layout, 1)))
        turned_cards, turned_confidence = _confidence(turned)
        mean = turned_confidence / max(turned_cards, 1)
        if mean < MIRROR_KEEP or mean < MIRROR_MORE * confidence / cards:
            return result
        turned = mirrored(turned, width)
        turned["needs_confirmation"].append({"hand": None, "seat": None, "card": None,
                                             "reason": MIRRORED_NOTE})
        return turned

    def _read_photo(self, image: np.ndarray, zones: dict[str, Any] | None,
                    empty: np.ndarray | EmptyLayout | None) -> dict[str, Any]:
        """``read``, the photo as it is."""
        # the photo's working copy is made once for every use of it in this read (the
        # colour test, each read's regions, the layout's match; 59 ms at 12 MP)
        self._reduced = reduce(image)
        shown = colour_shown(self._reduced[0])
        self._faint = shown < FAINT_COLOUR
        if shown < RAISE_UNDER:  # read as if its colour were as a photo's as taken
            image = raised(image, shown)
            self._reduced = reduce(image)
        try:
            ways = self._white_ways(self._reduced[0])
            if len(ways) == 1:
                return self._read_checked(image, zones, empty)
            # where two ways find the same regions, their strips and windows are run once
            shared = _Forwards()
            readers = []
            for way in ways:
                reader = copy.copy(self)
                reader.white_by, reader._memo = way, shared.runs()
                readers.append(reader)
            if LOSING and not self.deck:
                _mark_losing(readers, [r._first_pass(image, empty) for r in readers])
            reads = [reader._read_checked(image, zones, empty) for reader in readers]
            k = max(range(len(reads)), key=lambda i: _read_well(reads[i]))  # first of the best
            kept = reads[k]
            notes = seen_otherwise(kept, [r for r in reads if r is not kept], image)
            if zones and empty is not None:
                zones = readers[k]._zones_seen(zones, [])  # as the read kept saw them
            seat_regions(notes, zones)
            kept["needs_confirmation"] += notes
            return kept
        finally:
            self._reduced = None

    def _white_ways(self, work: np.ndarray) -> list[WhiteBy]:
        """The ways card-white is looked for in a photo (its working copy ``work``), each
        read in turn (``BALANCE_BOTH``, ``GREY_BOTH``), as taken first."""
        way = self.white_by
        balances = [way.balance]
        if BALANCE_BOTH and way.balance is None and cast_unsure(work):
            balances.append(True)
        return [replace(way, bright=bright, balance=balance) for balance in balances
                for bright in ((True, False) if GREY_BOTH and way.bright is None
                               and grey_table(work, balance) else (way.bright,))]

    def _read_checked(self, image: np.ndarray, zones: dict[str, Any] | None,
                      empty: np.ndarray | EmptyLayout | None) -> dict[str, Any]:
        """``read`` once card-white is chosen: with an enrolled deck, checked against the
        model alone (``deck_doubts``)."""
        if not self.deck:
            return self._read(image, zones, empty)
        # an enrolled deck makes a card sure only where the card model alone reads the same
        # card: a deck enrolled for another design (the table's cards changed) moves reads,
        # and the model alone is the check on it. The model alone reads the photo from the
        # start, finding its own cards (where the deck moved which windows read as an
        # index, the model alone's windows there read otherwise: a dondorf deck's 3S on
        # nicu-white, 3C alone), sharing every forward pass the two reads have in common.
        reader = copy.copy(self)
        reader._memo = _Forwards() if self._memo is None else self._memo.runs()
        result = reader._read(image, zones, empty)
        self.layout = reader.layout  # as a read without a deck leaves it: the photo's
        alone = reader.with_deck(None)._read(image, zones, empty)["cards"]
        result["needs_confirmation"] += deck_doubts(result["cards"], alone)
        return result

    def _zones_seen(self, zones: dict[str, Any], confirm: list[dict[str, Any]]
                    ) -> dict[str, Any] | None:
        """Seat zones drawn on the photo of the empty layout, where they lie in this photo
        (``self.layout``: the same frame, or the camera moved and the layout's print matched);
        None, and a note, when the photo could not be matched to the layout."""
        if self.layout is None:
            confirm.append({"hand": None, "seat": None, "card": None, "reason":
                            "this photo could not be matched to the table's empty layout (the "
                            "camera moved?): seats follow the arc of the table"})
            return None
        return {k: cv2.perspectiveTransform(np.asarray(v, np.float32).reshape(1, -1, 2),
                                            self.layout.to_photo)[0].tolist()
                for k, v in zones.items()}

    def _blurred(self, image: np.ndarray, cards: list[dict[str, Any]]) -> bool:
        """Whether the edges of the cards read (``cards``' corners) say the photo is
        blurred (``sharpness.blurred``); not without the card-white found."""
        if self.white is None:
            return False
        work, mask = self.white
        scale = work.shape[1] / image.shape[1]
        width = edge_width(work, mask, [np.asarray(c["corners"]) * scale for c in cards])
        return blurred(width, None if self.card_h is None else self.card_h * scale)

    def _red_doubts(self, cards: list[CardRead], names: list[str]) -> list[bool]:
        """For each read (``cards``, read as ``names``), whether it is red only as the
        photo's cast lets it be told (``WARM_NOTE``): where the cast clips red, each red
        read's second-look window is balanced again with red's white WARM_MORE times as
        high, and a read that is black there is in doubt. A read with no window to look
        at again (a card inferred) is in doubt when red."""
        doubts = [False] * len(cards)
        pyr = self._pyr
        cast = None if pyr is None else pyr.cast
        if pyr is None or cast is None or int(np.argmax(cast)) != 2:
            return doubts
        red = [n for n, name in enumerate(names) if name[-1] in "HD"]
        if self.second is None:
            for n in red:
                doubts[n] = True
            return doubts
        again = copy.copy(pyr)
        again.cast = cast * np.array([1 / WARM_MORE, 1 / WARM_MORE, 1.0], np.float32)
        looked = [n for n in red if cards[n].frame is not None]
        for n in red:
            doubts[n] = cards[n].frame is None
        windows = []
        for n in looked:
            frame = cards[n].frame
            assert frame is not None
            top = card_top(again, frame, cards[n].x) if TOPS else 0.0
            windows.append(look_window(again, frame, cards[n].x, 1.0, top))
        if windows:
            probs = self.second.combine(self._look_raw(windows), self.deck)
            for n, p in zip(looked, probs, strict=True):
                doubts[n] = str(DECK[int(np.argmax(p))])[-1] not in "HD"
        return doubts

    def _face_down(self, image: np.ndarray, hands: list[Hand]) -> list[Hand]:
        """The hands lying face down (``FACE_DOWN_PAPER``): each hand found, a face-down
        hand's size, with at most one index seen and every read a weak guess, whose region
        shows a back, is marked so, its reads dropped (each a guess at a card the photo does
        not show); each region not read, of that size, that shows a back is taken out of
        ``self.unread`` and returned as such a hand, with no cards, to be seated. None where
        the cards are too small on the working copy to tell (``FACE_DOWN_SEEN``)."""
        if self.white is None or self.card_h is None:
            return []
        work, mask = self.white
        s = work.shape[1] / image.shape[1]
        if self.card_h * s < FACE_DOWN_SEEN:
            return []
        for hand in hands:
            # what the region shows is measured last: the other tests cost nothing
            if (hand.blob is not None and _down_sized(hand.blob, self.card_h)
                    and sum(not c.inferred for c in hand.cards) <= 1
                    and all(c.best[1] < FACE_DOWN_GUESS for c in hand.cards)
                    and shows_a_back(*region_shows(work, mask, s, hand.blob.hull))):
                hand.face_down, hand.cards = True, []
        down, unread = [], []
        for blob in self.unread:
            if (_hand_sized(blob, self.card_h) and _down_sized(blob, self.card_h)
                    and shows_a_back(*region_shows(work, mask, s, blob.hull))):
                down.append(Hand([], blob.centre, area=blob.area, length=blob_sides(blob)[1],
                                 face_down=True, blob=blob))
            else:
                unread.append(blob)
        self.unread = unread
        return down

    def _read(self, image: np.ndarray, zones: dict[str, Any] | None,
              empty: np.ndarray | EmptyLayout | None = None) -> dict[str, Any]:
        hands = self.find_cards(image, empty)
        hands += self._face_down(image, hands)
        confirm: list[dict[str, Any]] = []
        if empty is not None and zones:
            zones = self._zones_seen(zones, confirm)
        hands.sort(key=lambda h: (h.centre[1], h.centre[0]))
        ratio = card_sizes([h.centre for h in hands], [_card_size(h) for h in hands],
                           [sum(not c.inferred for c in h.cards) == 3 for h in hands])
        for hand, size in zip(hands, ratio, strict=True):
            hand.small = size is not None and size < SMALL_CARDS
        assign_seats(hands, zones, confirm)
        # number the hands in seat order, the dealer last, unseated hands after
        order = sorted(range(len(hands)), key=lambda i: _seat_key(hands[i].seat))
        renumber = {old: new for new, old in enumerate(order)}
        hands = [hands[i] for i in order]
        for item in confirm:
            if item.get("hand") is not None:
                item["hand"] = renumber[item["hand"]]
        # a hand too small to be one on the table says nothing of how large hands are here
        typical, size_here = hand_sizes([h.centre for h in hands],
                                        [h.area if len(h.cards) == 3 and h.pieces == 1
                                         and not h.small else None for h in hands])
        out_cards: list[dict[str, Any]] = []
        seen: dict[str, list[int]] = {}
        reads = [(hi, c) for hi, hand in enumerate(hands) for c in hand.cards]
        # one deck: reads that share their likeliest card take the distinct cards likeliest
        # together, and every read that touches is confirmed
        chosen: list[int] = (one_deck(np.stack([c.probs for _, c in reads])).tolist()
                             if reads else [])
        names = [str(DECK[k]) for k in chosen]
        shared = shared_card_doubts([_place(hi, hands[hi].seat) for hi, _ in reads],
                                    [str(c.best[0]) for _, c in reads], names)
        hand_cards: list[list[str]] = [[] for _ in hands]
        hand_confs: list[list[float]] = [[] for _ in hands]
        red_doubts = ([False] * len(reads) if self._losing  # its notes are not told
                      else self._red_doubts([c for _, c in reads], names))
        self._pyr = None  # the photo and its halvings are not held past the read
        for n, (hi, c) in enumerate(reads):
            hand = hands[hi]
            card, conf = names[n], float(c.probs[chosen[n]])
            hand_cards[hi].append(card)
            hand_confs[hi].append(conf)
            seen.setdefault(card, []).append(hi)
            out_cards.append({
                "card": card,
                "confidence": round(conf, 4),
                "corners": _points(c.corners),
                "hand": hi,
                "seat": hand.seat,
            })
            reasons = []
            if c.inferred:
                n_seen = sum(not d.inferred for d in hand.cards)
                reasons.append(f"only {n_seen} of 3 cards seen: this one is read where the "
                               "hand's spread puts it")
            if shared[n]:
                reasons.append(shared[n])
            if c.covered and float(np.mean(c.covered)) > COVERED:
                reasons.append(COVERED_NOTE)
            if not c.inferred:
                other, other_p = c.runner_up(chosen[n])
                if conf < self.threshold:
                    reasons.append(f"low confidence {conf:.2f}")
                elif other_p > self.runner_up:
                    reasons.append(f"could also be {other} ({other_p:.3f})")
            if red_doubts[n]:
                reasons.append(WARM_NOTE)
            if self._faint:
                reasons.append(FAINT_CARD_NOTE)
            if reasons:
                confirm.append({"hand": hi, "seat": hand.seat, "card": card,
                                "reason": "; ".join(reasons), "alternatives": c.alternatives()})
        out_hands: list[dict[str, Any]] = []
        for hi, hand in enumerate(hands):
            out_hands.append({"hand": hi, "seat": hand.seat, "cards": hand_cards[hi],
                              "confidence": round(min(hand_confs[hi], default=0.0), 4)})
            if hand.face_down:
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": FACE_DOWN_NOTE, "face_down": True,
                                **({} if hand.blob is None
                                   else {"region": _points(hand.blob.corners)})})
            elif len(hand.cards) != 3:
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": f"hand has {len(hand.cards)} cards, expected 3"})
            elif hand.small:
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": SMALL_NOTE})
            elif hand.pieces == 1 and (hand.area > OVERSIZED_HAND * size_here[hi] ** 2 or (
                    not hand.spans and self.card_h
                    and hand.length > ROW_OF_HANDS * self.card_h * size_here[hi] / typical)):
                # two hands that touch and were not told apart read as one: the other
                # hand's cards would be missing without a word (a hand joined from pieces
                # holds their cards, each piece fewer than three; a hand spread wide is as
                # long as its three cards make it)
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": "this region is larger than a hand: another hand "
                                          "may be hidden in it"})
            elif hand.uneven:
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": "its cards' indices are unevenly spread: a card "
                                          "lying beside the hand may be read as one of it"})
            elif hand.wide:
                confirm.append({"hand": hi, "seat": hand.seat, "card": None,
                                "reason": WIDE_NOTE})
        for name, where in seen.items():
            if len(where) > 1:
                confirm.append({"hand": where[0], "seat": hands[where[0]].seat, "card": name,
                                "hands": where,
                                "reason": f"{name} seen {len(where)} times ("
                                          f"{', '.join(_place(h, hands[h].seat) for h in where)})"})
        for blob in self.unread:
            # the felt's own light, and a chip, are not sent
            if not plain(image, blob.corners) and not (
                    self.card_h and chip_like(blob, self.card_h)):
                confirm.append({"hand": None, "seat": None, "card": None,
                                "reason": "cards here could not be read",
                                "region": _points(blob.corners)})
        seat_regions(confirm, zones)
        if self._blurred(image, out_cards):
            confirm.append({"hand": None, "seat": None, "card": None, "reason": BLURRED_NOTE})
        if self._faint and out_cards:  # a bare grey table is as faint, and shows no suit
            confirm.append({"hand": None, "seat": None, "card": None, "reason": FAINT_NOTE})
        h, w = image.shape[:2]
        return {"cards": out_cards, "hands": out_hands, "needs_confirmation": confirm,
                "image": {"width": w, "height": h}}


def deck_doubts(cards: list[dict[str, Any]], alone: list[dict[str, Any]]) -> list[
        dict[str, Any]]:
    """The reads of a reader with an enrolled deck (``cards``) that the model alone
    (``alone``, the same photo read without the deck) does not read the same: no read of
    the same card within 0.375 card heights of it.

    >>> box = [[0, 0], [63, 0], [63, 88], [0, 88]]
    >>> read = [{"card": "2S", "corners": box, "hand": 0, "seat": 1}]
    >>> deck_doubts(read, [{"card": "2S", "corners": box}])
    []
    >>> [d["reason"] for d in deck_doubts(read, [{"card": "2C", "corners": box}])]
    ["the table's enrolled deck reads 2S here; the card model alone reads 2C"]
    """
    centres = np.array([np.mean(a["corners"], axis=0) for a in alone]).reshape(-1, 2)
    out = []
    for c in cards:
        corners = np.asarray(c["corners"], float)
        away = np.linalg.norm(centres - corners.mean(0), axis=1)
        near = np.flatnonzero(away < 0.375 * float(np.linalg.norm(corners[3] - corners[0])))
        if any(alone[i]["card"] == c["card"] for i in near):
            continue
        said = alone[near[np.argmin(away[near])]]["card"] if len(near) else "no card"
        out.append({"hand": c["hand"], "seat": c["seat"], "card": c["card"],
                    "reason": f"the table's enrolled deck reads {c['card']} here; the card "
                              f"model alone reads {said}"})
    return out


def _card_places(cards: list[dict[str, Any]]) -> tuple[np.ndarray, float | None]:
    """The centres of scan-result cards, and their median height (None without cards)."""
    corners = np.array([c["corners"] for c in cards], np.float64).reshape(-1, 4, 2)
    if not len(corners):
        return np.zeros((0, 2)), None
    return corners.mean(axis=1), float(np.median(
        np.linalg.norm(corners[:, 3] - corners[:, 0], axis=1)))


def seen_otherwise(kept: dict[str, Any], others: list[dict[str, Any]],
                   image: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Notes for ``kept``, one photo's read, of each hand one of the ``others`` (the same
    photo read other ways) read where ``kept`` has no card nor unread place near it
    (``OTHERWISE_NEAR``, ``OTHERWISE_SPAN``): the place of those cards, for the dealer to
    check; and of each place one of them could not read where ``kept`` has no card nor
    place near it (``OTHERWISE_UNREAD_NOTE``). ``image``: the photo, given, a place in it
    that shows no mark is passed over (``geometry.plain``), and does not hide a hand
    another read saw beside it.

    >>> def card(x, hand):
    ...     return {"card": "AS", "hand": hand, "corners": [[x, 0], [x + 70, 0],
    ...                                                     [x + 70, 100], [x, 100]]}
    >>> kept = {"cards": [card(0, 0), card(20, 0), card(40, 0)], "needs_confirmation": []}
    >>> other = {"cards": [card(10, 0), card(30, 0), card(500, 1), card(520, 1)],
    ...          "needs_confirmation": []}
    >>> [n["region"] for n in seen_otherwise(kept, [other])]   # hand 1 only
    [[[500.0, 0.0], [590.0, 0.0], [590.0, 100.0], [500.0, 100.0]]]
    >>> box = lambda x: [[x, 0], [x + 90, 0], [x + 90, 100], [x, 100]]
    >>> other["needs_confirmation"] = [{"hand": None, "region": box(900)},  # unread places
    ...                                {"hand": None, "region": box(0)}]
    >>> [(n["region"][0], n["reason"]) for n in seen_otherwise(kept, [other])][1:]
    [([900, 0], 'read another way, cards here could not be read: check them')]
    >>> seen_otherwise(kept, [kept])
    []
    """
    places, card_h = _card_places(kept["cards"])
    regions: list[np.ndarray] = [np.asarray(n["region"], np.float32).reshape(-1, 1, 2)
                                 for n in kept["needs_confirmation"] if "region" in n]
    notes: list[dict[str, Any]] = []
    for other in others:
        groups: dict[Any, list[dict[str, Any]]] = {}
        for i, c in enumerate(other["cards"]):  # a card in no hand is a group of its own
            groups.setdefault(("hand", c["hand"]) if c["hand"] is not None else i,
                              []).append(c)
        for cards in groups.values():
            centres, h = _card_places(cards)
            h = card_h or h or 0.0
            reach = OTHERWISE_NEAR * h
            new = [c for c, p in zip(cards, centres, strict=True)
                   if float(np.linalg.norm(places - p, axis=1).min(initial=np.inf)) > reach
                   and not any(_near(r, p, reach) for r in regions)]
            if len(new) < min(2, len(cards)):
                continue  # the read kept has this hand, or most of it
            rect = cv2.minAreaRect(
                np.array([c["corners"] for c in new], np.float32).reshape(-1, 2))
            if max(rect[1]) > OTHERWISE_SPAN * h:
                continue  # cards far apart: not a hand's place
            box = clockwise(cv2.boxPoints(rect))
            if image is not None and plain(image, box):
                continue  # cards read on bare felt
            regions.append(box.reshape(-1, 1, 2))  # told once, whichever read saw it
            notes.append({"hand": None, "seat": None, "card": None,
                          "reason": OTHERWISE_NOTE, "region": _points(box)})
        if card_h is None:
            continue  # the read kept found no card: how large a card is here is not known
        reach = OTHERWISE_NEAR * card_h
        for note in other["needs_confirmation"]:
            if note["hand"] is not None or "region" not in note:
                continue  # only its places unread (a hand face down is its own)
            place = np.asarray(note["region"], np.float32).reshape(-1, 1, 2)
            if not _card_high(place.reshape(-1, 2), card_h):
                continue  # a sliver, not cards
            centre = place.reshape(-1, 2).mean(axis=0)
            if any(_near(r, centre, reach) for r in regions) or any(
                    _near(place, p, reach) for p in places):
                continue  # the read kept reads or sends something there
            regions.append(place)
            notes.append({"hand": None, "seat": None, "card": None,
                          "reason": OTHERWISE_UNREAD_NOTE, "region": note["region"]})
    return notes


def _near(polygon: np.ndarray, point: np.ndarray, reach: float) -> bool:
    """Whether ``point`` lies in ``polygon`` or within ``reach`` pixels of it."""
    return cv2.pointPolygonTest(polygon, (float(point[0]), float(point[1])), True) >= -reach


def _read_well(result: dict[str, Any]) -> tuple[int, int]:
    """How well a photo was read (``GREY_BOTH``): the cards read, then those of them not
    sent to the dealer."""
    cards, hands = in_doubt(result)
    return len(result["cards"]), sum(
        (c["hand"], c["card"]) not in cards and c["hand"] not in hands
        for c in result["cards"])


def _confidence(result: dict[str, Any]) -> tuple[int, float]:
    """The cards of a scan result and their confidences added up (``MIRROR_TRY``)."""
    return len(result["cards"]), sum(float(c["confidence"]) for c in result["cards"])


def _may_lie_face_down(hand: Hand) -> bool:
    """Whether ``Reader._face_down`` may yet take ``hand`` for one lying face down, its
    reads dropped, once its cards are read again: a region with one index seen at most."""
    return hand.blob is not None and sum(not c.inferred for c in hand.cards) <= 1


def _mark_losing(readers: list[Reader], firsts: list[list[Hand]]) -> None:
    """Mark each of ``readers`` (one photo read other ways) whose read cannot be kept
    (``LOSING``), by the hands their first passes found (``firsts``), and keep those hands
    for their reads."""
    surely = max(sum(len(h.cards) for h in hands if not _may_lie_face_down(h))
                 for hands in firsts)
    for reader, hands in zip(readers, firsts, strict=True):
        reader._first = hands
        reader._losing = sum(len(h.cards) for h in hands) < surely


def in_doubt(result: dict[str, Any]) -> tuple[set[tuple[int, str]], set[int]]:
    """What a scan result sends to the dealer: the (hand, card) reads it doubts (a card seen
    twice in every hand it was read in) and the hands it doubts whole.

    >>> cards, hands = in_doubt({"needs_confirmation": [
    ...     {"hand": 0, "card": "AS", "hands": [0, 2], "reason": "AS seen 2 times"},
    ...     {"hand": 1, "card": "KD", "reason": "low confidence 0.50"},
    ...     {"hand": 3, "card": None, "reason": "hand has 2 cards, expected 3"},
    ...     {"hand": None, "card": None, "reason": "cards here could not be read"}]})
    >>> sorted(cards), hands
    ([(0, 'AS'), (1, 'KD'), (2, 'AS')], {3})
    """
    items = result["needs_confirmation"]
    cards = {(h, c["card"]) for c in items if c["card"] for h in c.get("hands", [c["hand"]])}
    hands = {c["hand"] for c in items if c["card"] is None and c["hand"] is not None}
    return cards, hands


def _card_size(hand: Hand) -> float | None:
    """How large the cards of ``hand`` whose index was seen are: the median square root of
    their areas (pixels; unlike their heights, not shortened more along one way than
    another by a camera looking at the table aslant)."""
    seen = [math.sqrt(abs(float(cv2.contourArea(c.corners.astype(np.float32)))))
            for c in hand.cards if not c.inferred]
    return float(np.median(seen)) if seen else None


def hand_sizes(centres: list[tuple[float, float]],
               areas: list[float | None]) -> tuple[float, list[float]]:
    """How large (the square root of its region's area, in pixels) one hand is in the
    photo, and would be at each of ``centres``: from the hands whose ``areas`` are given
    (None: not one hand of three cards), at each place a plane fitted over the photo where
    LOCAL_SIZE and there are LOCAL_HANDS of them or more (a tilted camera makes the near
    hands larger), and the median of those; else the median hand's everywhere; 1.0 and
    math.inf without any.

    >>> at = [(0, 0), (100, 0), (0, 100), (100, 100), (50, 50), (50, 100)]
    >>> near = [100, 100, 150, 150, 125, 212]     # the last: two near hands read as one
    >>> typical, here = hand_sizes(at, [v * v for v in near])
    >>> round(typical, 1), [round(v) for v in here]
    (137.5, [100, 100, 150, 150, 125, 150])
    >>> hand_sizes(at[:2], [100.0 ** 2, None]), hand_sizes(at[:1], [None])
    ((100.0, [100.0, 100.0]), (1.0, [inf]))
    """
    known = [i for i, a in enumerate(areas) if a is not None]
    if not known:
        return 1.0, [math.inf] * len(centres)
    known_areas = np.array([areas[i] for i in known], np.float64)
    median = math.sqrt(float(np.median(known_areas)))
    # fitted again without hands far larger than the plane: two hands read as one
    fit = size_plane([centres[i] for i in known], np.sqrt(known_areas), math.inf,
                     LOCAL_OUTLIER, rounds=2) if LOCAL_SIZE else None
    if fit is None:
        return median, [median] * len(centres)
    here = np.clip(fit[0] + np.asarray(centres, np.float64) @ fit[1:],
                   LOCAL_RANGE[0] * median, LOCAL_RANGE[1] * median)
    return float(np.median(here)), [float(v) for v in here]


def card_sizes(centres: list[tuple[float, float]], sizes: list[float | None],
               fitted: list[bool]) -> list[float | None]:
    """How large each hand's cards are (``_card_size``) against how large the other
    hands' cards are at its place: a plane fitted over the photo to the sizes of the other
    ``fitted`` hands (those whose three indices were seen), fitted again without hands off
    it by more than SIZE_FIT (a camera tilted makes the near cards larger; the size of
    cards on a plane seen in perspective changes linearly across the photo); with fewer
    than LOCAL_HANDS others, their median. The hand itself is left out of what it is
    measured against, so a hand pictured small does not pull the plane to itself. None for
    a hand without a size (no index seen), or without others to compare with.

    >>> at = [(0, 0), (100, 0), (200, 0), (0, 100), (100, 100), (200, 100), (50, 50),
    ...       (150, 50)]                 # cards 100 pixels large at the top, 150 below
    >>> near = [100, 100, 100, 150, 150, 150, 125, 70]     # the last: a picture of cards
    >>> [round(v, 2) for v in card_sizes(at, near, [True] * 8)]
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.56]
    >>> card_sizes(at[:3], [100, 50, None], [True, True, False])
    [2.0, 0.5, None]
    """
    known = [i for i, v in enumerate(sizes) if v is not None and fitted[i]]
    out: list[float | None] = []
    for i, size in enumerate(sizes):
        others = [k for k in known if k != i]
        if size is None or not others:
            out.append(None)
            continue
        h = np.array([sizes[k] for k in others], np.float64)
        fit = size_plane([centres[k] for k in others], h, SIZE_FIT, SIZE_FIT, rounds=3)
        expected = (float(np.median(h)) if fit is None
                    else float(fit[0] + np.asarray(centres[i], np.float64) @ fit[1:]))
        out.append(size / expected)
    return out


def size_plane(centres: list[tuple[float, float]], sizes: np.ndarray, below: float,
               above: float, rounds: int) -> np.ndarray | None:
    """A plane (a, b, c: a + b x + c y) fitted over the photo to ``sizes`` at
    ``centres``, ``rounds`` times, each time to those no further than ``below`` times under
    and ``above`` times over the last plane; None when fewer than LOCAL_HANDS are (or are
    left) to fit.

    >>> at = [(0, 0), (100, 0), (200, 0), (0, 100), (100, 100), (200, 100), (150, 50)]
    >>> sizes = np.array([100, 100, 100, 150, 150, 150, 70.0])  # the last: far off it
    >>> fit = size_plane(at, sizes, 1.2, 1.2, rounds=2)
    >>> [round(float(v), 2) + 0.0 for v in fit]  # + 0.0: the BLAS may give -0.0
    [100.0, 0.0, 0.5]
    >>> size_plane(at[:4], sizes[:4], 1.2, 1.2, rounds=2) is None   # too few hands
    True
    """
    if len(sizes) < LOCAL_HANDS:
        return None
    xy = np.asarray(centres, np.float64)
    keep = np.ones(len(sizes), bool)
    fit = None
    for _ in range(rounds):
        design = np.column_stack([np.ones(int(keep.sum())), xy[keep]])
        fit, *_ = np.linalg.lstsq(design, sizes[keep], rcond=None)
        plane = fit[0] + xy @ fit[1:]
        keep = (sizes >= plane / below) & (sizes <= plane * above)
        if keep.sum() < LOCAL_HANDS:
            return None
    return fit


def _place(hand: int, seat: Seat) -> str:
    """Where a hand lies, as the dealer names it."""
    if seat == "dealer":
        return "the dealer's hand"
    return f"seat {seat}" if seat is not None else f"hand {hand}"


def shared_card_doubts(places: list[str], likeliest: list[str], chosen: list[str]) -> list[str]:
    """Why each read that shared its likeliest card with another goes to the dealer ("" for
    the others), given where each read lies (its seat), its likeliest card and the card
    ``one_deck`` chose.

    >>> shared_card_doubts(["seat 1", "seat 2", "seat 2"], ["AS", "AS", "KD"],
    ...                    ["AS", "AH", "KD"])
    ['AS looked likeliest at seat 2 too, read there as the likeliest card left', \
'looks likeliest AS, but AS is read at seat 1: read as the likeliest card left', '']
    """
    holder = dict(zip(chosen, places, strict=True))
    out = []
    for n, (card, first) in enumerate(zip(chosen, likeliest, strict=True)):
        if first != card:
            out.append(f"looks likeliest {first}, but {first} is read at "
                       f"{holder.get(first, places[n])}: read as the likeliest card left")
        elif likeliest.count(card) > 1 and chosen.count(card) == 1:
            others = sorted({p for m, p in enumerate(places) if m != n and likeliest[m] == card})
            out.append(f"{card} looked likeliest at {', '.join(others)} too, read there as the "
                       "likeliest card left")
        else:
            out.append("")
    return out


def _seat_key(seat: Seat) -> tuple[int, int]:
    if isinstance(seat, int):
        return (0, seat)
    return (1, 0) if seat == "dealer" else (2, 0)


def _fit_circle(pts: np.ndarray) -> tuple[np.ndarray, float, float]:
    a = np.column_stack([pts[:, 0], pts[:, 1], np.ones(len(pts))])
    b = -(pts[:, 0] ** 2 + pts[:, 1] ** 2)
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    c = np.array([-sol[0] / 2, -sol[1] / 2])
    r = math.sqrt(max(float(c @ c - sol[2]), 1e-9))
    resid = float(np.sqrt(np.mean((np.linalg.norm(pts - c, axis=1) - r) ** 2)))
    return c, r, resid


def zone_seat(point: tuple[float, float], zones: dict[str, Any]) -> Seat:
    """The seat whose zone (``{"1": [[x, y], ...], ..., "dealer": [...]}``) holds ``point``:
    the one it lies deepest in where zones overlap; None outside every zone.

    >>> zones = {"1": [[0, 0], [100, 0], [100, 100], [0, 100]],
    ...          "dealer": [[80, 0], [300, 0], [300, 100], [80, 100]]}
    >>> [zone_seat(p, zones) for p in ((10, 50), (95, 50), (200, 50), (400, 50))]
    [1, 'dealer', 'dealer', None]
    """
    best: tuple[float, str] | None = None
    for key, poly in zones.items():
        d = cv2.pointPolygonTest(np.asarray(poly, np.float32).reshape(-1, 1, 2),
                                 (float(point[0]), float(point[1])), True)
        if d >= 0 and (best is None or d > best[0]):
            best = (d, key)
    if best is None:
        return None
    return "dealer" if best[1] == "dealer" else int(best[1])


def mirrored(result: dict[str, Any], width: int) -> dict[str, Any]:
    """A scan result with every place in it (cards' corners, regions) mirrored across a
    photo ``width`` pixels wide: a mirrored photo's read as the photo shows it (its corners
    then run counter-clockwise), or the other way.

    >>> result = {"cards": [{"card": "AS", "corners": [[10, 0], [20, 0], [20, 30], [10, 30]]}],
    ...           "needs_confirmation": [{"reason": "...", "region": [[0, 5], [4, 5]]}]}
    >>> turned = mirrored(result, 101)
    >>> turned["cards"][0]["corners"][:2], turned["needs_confirmation"][0]["region"]
    ([[90, 0], [80, 0]], [[100, 5], [96, 5]])
    """
    out = dict(result)
    out["cards"] = [{**c, "corners": _mirrored_points(c["corners"], width)}
                    for c in result["cards"]]
    out["needs_confirmation"] = [
        {**n, "region": _mirrored_points(n["region"], width)} if "region" in n else n
        for n in result["needs_confirmation"]]
    return out


def mirrored_zones(zones: dict[str, Any], width: int) -> dict[str, Any]:
    """Seat zones (polygons) mirrored across a photo ``width`` pixels wide.

    >>> mirrored_zones({"1": [[0, 0], [10, 0], [10, 5]]}, 11)
    {'1': [[10, 0], [0, 0], [0, 5]]}
    """
    return {seat: _mirrored_points(polygon, width) for seat, polygon in zones.items()}


def _mirrored_points(points: Any, width: int) -> list[list[float]]:
    """Points (x, y) mirrored across a photo ``width`` pixels wide, as ``cv2.flip`` moves
    pixel x to ``width - 1 - x``."""
    return [[width - 1 - x, y] for x, y in np.asarray(points).reshape(-1, 2).tolist()]


def seat_regions(notes: list[dict[str, Any]], zones: dict[str, Any] | None) -> None:
    """Give each note of a place in the photo that no hand holds (cards not read, a hand
    only another read saw) the seat whose zone holds the place's centre, so the dealer is
    told where to look; none without seat zones (seats along the arc are the hands').

    >>> notes = [{"hand": None, "seat": None, "region": [[0, 0], [20, 0], [20, 30], [0, 30]]},
    ...          {"hand": None, "seat": None, "reason": "the photo is blurred"}]
    >>> seat_regions(notes, {"3": [[0, 0], [100, 0], [100, 100], [0, 100]]})
    >>> [n["seat"] for n in notes]
    [3, None]
    """
    if not zones:
        return
    for note in notes:
        if note.get("hand") is None and note.get("seat") is None and "region" in note:
            note["seat"] = zone_seat(tuple(np.mean(note["region"], axis=0)), zones)


def assign_seats(hands: list[Hand], zones: dict[str, Any] | None,
                 confirm: list[dict[str, Any]]) -> None:
    """Seat each hand: by the seat zones when given (``{"1": [[x, y], ...], ...,
    "dealer": [...]}``), else by position along the table's arc, where a hand of cards
    smaller than the others' (``Hand.small``: pictured, not dealt) takes no seat."""
    if not hands:
        return
    if zones:
        for i, h in enumerate(hands):
            h.seat = zone_seat(h.centre, zones)
            if h.seat is None:
                confirm.append({"hand": i, "seat": None, "card": None,
                                "reason": "hand is outside every seat zone"})
        return
    dealt = [i for i, h in enumerate(hands) if not h.small]
    pts = np.array([h.centre for h in hands], float)
    if len(dealt) >= 4:
        fits = []
        for j in dealt:
            _, r, resid = _fit_circle(pts[[i for i in dealt if i != j]])
            fits.append(resid / r)
        dealer = dealt[int(np.argmin(fits))]
    else:
        dealer = -1
    players = [i for i in dealt if i != dealer]
    if dealer >= 0:
        d = pts[dealer]
        v = pts[players].mean(0) - d
        ang = {i: math.atan2(v[0] * (pts[i] - d)[1] - v[1] * (pts[i] - d)[0],
                             float(v @ (pts[i] - d))) for i in players}
        players.sort(key=lambda i: ang[i])
        hands[dealer].seat = "dealer"
    else:
        players.sort(key=lambda i: pts[i][0])
    for n, i in enumerate(players):
        hands[i].seat = n + 1
    if len(players) != 7:
        confirm.append({"hand": None, "seat": None, "card": None,
                        "reason": "no seat zones: seats are numbered in order along the arc "
                                  "and the dealer guessed; confirm the seats"})
