"""Basic strategy of the blackjack tables, as a fast lookup for simulators and tests (``blackjack.md``).

The strategy is the one derived by the exact analysis (:mod:`croupier.rtp.blackjack`), which also
gives its exact RTP: composition-dependent on a hand's first two cards (and on a split hand's two
cards), total-dependent with three or more cards. Every entry ranks the options the rules give,
best first, so that :func:`basic_action` can take the best *legal* one (a double or a split the
balance does not cover, surrender against an ace ...).

The tables of the two default rule sets (Deluxe and classic) are written out below, so a lookup
costs nothing; the tests check that they are exactly what the analysis derives. Any other rule
set is derived on first use by the analysis (a few seconds) and cached.

Insurance: never (:func:`take_insurance`); an insurance bet returns 92.53% (384/415).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .cards import BLACKJACK_VALUE, parse_card
from .rtp.blackjack import StrategyTable, analyse, rules_key
from .rules import BlackjackRules, load_rules

ACTIONS = frozenset({"hit", "stand", "double", "split", "surrender"})
"""The actions :func:`basic_action` may return."""

UP_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
"""Column order of the written tables: dealer up card 2 .. 10, then the ace."""
_LETTER = {"hit": "H", "stand": "S", "double": "D", "split": "P", "surrender": "R"}
_ACTION = {letter: name for name, letter in _LETTER.items()}
_CHAR = "A23456789T"  # card value 1 (ace) .. 10 (any 10-value card)

Ranking = tuple[str, ...]


@dataclass(frozen=True)
class Lookup:
    """One rule set's strategy: every key maps to the options best first. Card values 1..10."""

    two_card: Mapping[tuple[int, int, int], Ranking]
    """(lower card, higher card, up card) — the first two cards of a hand that is not a split hand."""
    split_hand: Mapping[tuple[int, int, int], Ranking]
    """(split card, second card, up card) — the two cards of a split hand (not aces)."""
    multi_card: Mapping[tuple[int, bool, int], Ranking]
    """(total, soft, up card) — three or more cards: hit or stand."""


def lookup_from_analysis(table: StrategyTable) -> Lookup:
    return Lookup(
        two_card={key: tuple(name for name, _ev in ranked) for key, ranked in table.two_card.items()},
        split_hand=dict(table.split_hand),
        multi_card=dict(table.multi_card),
    )


def render(lookup: Lookup) -> str:
    """The written form of a strategy: one row per hand, one column per up card (:data:`UP_ORDER`),
    each cell the options best first (H hit, S stand, D double, P split, R surrender). Rows: ``A7``
    (first two cards), ``/83`` (split 8 with a 3), ``h16`` / ``s18`` (three or more cards)."""

    def row(label: str, rankings: Sequence[Ranking]) -> str:
        cells = ("".join(_LETTER[name] for name in ranking) for ranking in rankings)
        return " ".join([f"{label:<4}", *(f"{cell:<5}" for cell in cells)]).rstrip()

    lines = ["# two cards"]
    for low, high in sorted({(a, b) for a, b, _up in lookup.two_card}):
        lines.append(row(_CHAR[low - 1] + _CHAR[high - 1], [lookup.two_card[(low, high, up)] for up in UP_ORDER]))
    lines.append("# split hands")
    for pair, second in sorted({(p, s) for p, s, _up in lookup.split_hand}):
        lines.append(row("/" + _CHAR[pair - 1] + _CHAR[second - 1],
                         [lookup.split_hand[(pair, second, up)] for up in UP_ORDER]))
    lines.append("# three or more cards")
    for soft, total in sorted({(soft, total) for total, soft, _up in lookup.multi_card}):
        if all((total, soft, up) in lookup.multi_card for up in UP_ORDER):
            lines.append(row(("s" if soft else "h") + str(total),
                             [lookup.multi_card[(total, soft, up)] for up in UP_ORDER]))
        else:
            cells = [lookup.multi_card.get((total, soft, up), ("stand",)) for up in UP_ORDER]
            raise ValueError(f"strategy row {'s' if soft else 'h'}{total} is incomplete: {cells}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> Lookup:
    """The inverse of :func:`render`."""
    two: dict[tuple[int, int, int], Ranking] = {}
    split: dict[tuple[int, int, int], Ranking] = {}
    multi: dict[tuple[int, bool, int], Ranking] = {}
    for line in text.strip().splitlines():
        if not line.strip() or line.startswith("#"):
            continue  # a section title
        label, *cells = line.split()
        if len(cells) != len(UP_ORDER):
            raise ValueError(f"strategy row {label!r} has {len(cells)} cells, not {len(UP_ORDER)}")
        for up, cell in zip(UP_ORDER, cells, strict=True):
            ranking = tuple(_ACTION[letter] for letter in cell)
            if label[0] in "hs" and label[1:].isdigit():
                multi[(int(label[1:]), label[0] == "s", up)] = ranking
            elif label[0] == "/":
                split[(_CHAR.index(label[1]) + 1, _CHAR.index(label[2]) + 1, up)] = ranking
            else:
                two[(_CHAR.index(label[0]) + 1, _CHAR.index(label[1]) + 1, up)] = ranking
    return Lookup(two, split, multi)


_CACHE: dict[Hashable, Lookup] = {}


def strategy_for(rules: BlackjackRules) -> Lookup:
    """The basic strategy of ``rules``: written out for the default rule sets, else derived."""
    key = rules_key(rules)
    found = _CACHE.get(key)
    if found is None:
        if not _CACHE:  # first use: the written tables
            for game, text in WRITTEN.items():
                defaults = load_rules(game, {})
                assert isinstance(defaults, BlackjackRules)
                _CACHE[rules_key(defaults)] = parse(text)
            found = _CACHE.get(key)
        if found is None:
            found = _CACHE[key] = lookup_from_analysis(analyse(rules).strategy)
    return found


def _values(cards: Sequence[str]) -> list[int]:
    return [BLACKJACK_VALUE[parse_card(card)[0]] for card in cards]


def ranking(rules: BlackjackRules, hand_cards: Sequence[str], dealer_up: str, split_hand: bool = False) -> Ranking:
    """Every option for this hand, best first (a hand of 21 or more: stand)."""
    values = _values(hand_cards)
    (up,) = _values([dealer_up])
    if len(values) < 2:
        raise ValueError("a blackjack hand has at least two cards when its player decides")
    hard = sum(values)
    total = hard + 10 if 1 in values and hard + 10 <= 21 else hard
    if total >= 21:
        return ("stand",)
    table = strategy_for(rules)
    if len(values) == 2 and split_hand:
        if values[0] == 1:  # split aces take one card and stand
            return ("stand", "hit")
        return table.split_hand[(values[0], values[1], up)]
    if len(values) == 2:
        return table.two_card[(min(values), max(values), up)]
    found = table.multi_card.get((total, total != hard, up))
    if found is None:  # a total the analysis never met with three or more cards
        return ("stand", "hit") if total >= (18 if total != hard else 17) else ("hit", "stand")
    return found


def basic_action(
    rules: BlackjackRules,
    hand_cards: Sequence[str],
    dealer_up: str,
    legal: frozenset[str],
    split_hand: bool = False,
) -> str:
    """The basic-strategy action for a seated hand: the best of its options that is ``legal``
    (one of hit, stand, double, split, surrender). ``hand_cards`` are card codes (``"TD"``), a
    split hand's split card first; ``split_hand`` says the hand is one of two split hands."""
    for action in ranking(rules, hand_cards, dealer_up, split_hand):
        if action in legal:
            return action
    for action in ("stand", "hit"):
        if action in legal:
            return action
    raise ValueError(f"no basic-strategy action among the legal ones: {', '.join(sorted(legal)) or 'none'}")


def take_insurance(rules: BlackjackRules, hand_cards: Sequence[str] = ()) -> bool:
    """Basic strategy never insures (not even a blackjack): insurance returns 92.53% per bet."""
    return False


DELUXE = """
# two cards
AA   PHDSR PHDSR PHDSR PHDSR PDHSR PHDSR PHDRS PHDRS PHDS  PHDS
A2   HDSR  HDSR  HDSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
A3   HDSR  HDSR  HDSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
A4   HDSR  HDSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
A5   HDSR  HDSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
A6   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDSR  HDSR  HSD   HSD
A7   SDHR  DSHR  DSHR  DSHR  DSHR  SDHR  SHDR  HSDR  HSD   HSD
A8   SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SHDR  SHD   SHD
A9   SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SHD   SHD
22   PHSRD PHSRD PHSDR PHSDR PHSDR PHSRD HPRSD HPRSD HPSD  HPSD
23   HSRD  HSRD  HSDR  HSDR  HSDR  HSRD  HRSD  HRSD  HSD   HSD
24   HSRD  HSDR  HSDR  HSDR  HSDR  HSRD  HRSD  HRSD  HSD   HSD
25   HSDR  HSDR  HSDR  HSDR  HDSR  HSRD  HRSD  HRSD  HSD   HSD
26   HDSR  HDSR  HDSR  HDSR  HDSR  HDSR  HDRS  HRSD  HSD   HSD
27   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
28   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
29   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  DHS   HDS
2T   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
33   PHSRD PHSDR PHSDR PHSDR PHSDR PHSRD HPRSD HPRSD HPSD  HPSD
34   HSDR  HSDR  HSDR  HSDR  HDSR  HSRD  HRSD  HRSD  HSD   HSD
35   HDSR  HDSR  HDSR  HDSR  HDSR  HDSR  HDRS  HRSD  HSD   HSD
36   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
37   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
38   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  DHS   HDS
39   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
3T   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
44   HPDSR HPDSR HPDSR PHDSR PHDSR HPDSR HPDRS HPRSD HSPD  HPSD
45   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HDS   HDS
46   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
47   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  DHS   HDS
48   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
49   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
4T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
55   DHPSR DHPSR DHPSR DHPSR DHPSR DHPSR DHPRS DHRPS HDSP  HDPS
56   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  DHS   HDS
57   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
58   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
59   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
5T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
66   PHSRD PHSDR PSHDR PSHDR PSHDR HPSRD HPRSD HRSPD HSPD  HPSD
67   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
68   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
69   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
6T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  RHSD  HSD   HSD
77   PSHRD PSHRD PSHRD PSHRD PSHRD PHSRD HPRSD HRSPD HSPD  HPSD
78   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
79   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  RHSD  HSD   HSD
7T   SRHD  SRHD  SRHD  SRHD  SRHD  SHRD  SRHD  SRHD  SHD   SHD
88   PSHRD PSHRD PSHRD PSHRD PSHRD PHSRD PHRSD PRHSD PHSD  PHSD
89   SRHD  SRHD  SRHD  SRHD  SRHD  SHRD  SRHD  SRHD  SHD   SHD
8T   SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SHD   SHD
99   PSRHD PSRHD PSRHD PSRHD PSRHD SPRHD PSRHD PSRHD SPHD  SPHD
9T   SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SHD   SHD
TT   SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPHD  SPHD
# split hands
/2A  HDS   HDS   HDS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/22  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/23  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/24  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/25  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/26  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/27  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/28  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/29  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/2T  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/3A  HDS   HDS   HDS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/32  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/33  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/34  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/35  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/36  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/37  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/38  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/39  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/3T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/4A  HDS   HDS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/42  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/43  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/44  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/45  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/46  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/47  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/48  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/49  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/4T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/5A  HDS   HDS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/52  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/53  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/54  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/55  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/56  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/57  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/58  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/59  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/5T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/6A  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/62  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/63  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/64  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/65  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/66  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/67  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/68  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/69  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/6T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/7A  SDH   DSH   DSH   DSH   DSH   SDH   SHD   HSD   HSD   HSD
/72  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HDS   HDS
/73  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/74  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/75  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/76  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/77  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/78  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/79  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/7T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/8A  SDH   SDH   SDH   SDH   SDH   SDH   SDH   SHD   SHD   SHD
/82  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/83  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/84  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/85  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/86  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/87  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/88  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/89  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/8T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/9A  SDH   SDH   SDH   SDH   SDH   SDH   SDH   SDH   SHD   SHD
/92  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS
/93  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/94  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/95  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/96  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/97  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/98  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/99  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/9T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/TA  S     S     S     S     S     S     S     S     S     S
/T2  HSD   HSD   HSD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T3  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T4  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T5  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T6  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T7  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/T8  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/T9  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/TT  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
# three or more cards
h6   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h7   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h8   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h9   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h10  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h11  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h12  HS    HS    SH    SH    SH    HS    HS    HS    HS    HS
h13  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h14  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h15  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h16  SH    SH    SH    SH    SH    HS    HS    HS    SH    HS
h17  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h18  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h19  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h20  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
s13  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s14  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s15  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s16  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s17  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s18  SH    SH    SH    SH    SH    SH    SH    HS    HS    HS
s19  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
s20  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
"""

CLASSIC = """
# two cards
AA   PHDSR PHDSR PHDSR PHDSR PDHSR PHDSR PHDRS PHDRS PHSD  HPSD
A2   HDSR  HDSR  HDSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
A3   HDSR  HDSR  HDSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
A4   HDSR  HDSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
A5   HDSR  HDSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
A6   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDSR  HDSR  HSD   HSD
A7   SDHR  DSHR  DSHR  DSHR  DSHR  SDHR  SHDR  HSDR  HSD   HSD
A8   SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SHDR  SHD   SHD
A9   SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SDHR  SHD   SHD
22   PHSRD PHSRD PHSDR PHSDR PHSDR PHSRD HPRSD HPRSD HSPD  HSPD
23   HSRD  HSRD  HSDR  HSDR  HSDR  HSRD  HRSD  HRSD  HSD   HSD
24   HSRD  HSDR  HSDR  HSDR  HSDR  HSRD  HRSD  HRSD  HSD   HSD
25   HSDR  HSDR  HSDR  HSDR  HDSR  HSRD  HRSD  HRSD  HSD   HSD
26   HDSR  HDSR  HDSR  HDSR  HDSR  HDSR  HDRS  HRSD  HSD   HSD
27   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
28   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
29   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
2T   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
33   PHSRD PHSDR PHSDR PHSDR PHSDR PHSRD HPRSD HPRSD HSPD  HSPD
34   HSDR  HSDR  HSDR  HSDR  HDSR  HSRD  HRSD  HRSD  HSD   HSD
35   HDSR  HDSR  HDSR  HDSR  HDSR  HDSR  HDRS  HRSD  HSD   HSD
36   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
37   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
38   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
39   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
3T   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
44   HPDSR HPDSR HPDSR PHDSR PHDSR HPDSR HPDRS HPRSD HSPD  HSPD
45   HDSR  DHSR  DHSR  DHSR  DHSR  HDSR  HDRS  HDRS  HSD   HSD
46   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
47   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
48   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
49   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
4T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
55   DHPSR DHPSR DHPSR DHPSR DHPSR DHPSR DHPRS DHRPS HDSP  HDSP
56   DHSR  DHSR  DHSR  DHSR  DHSR  DHSR  DHRS  DHRS  HDS   HDS
57   HSRD  HSDR  SHDR  SHDR  SHDR  HSRD  HRSD  HRSD  HSD   HSD
58   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
59   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
5T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
66   PHSRD PHSDR PSHDR PSHDR PSHDR HPSRD HPRSD HRSPD HSPD  HSPD
67   SHRD  SHRD  SHRD  SHRD  SHDR  HSRD  HRSD  HRSD  HSD   HSD
68   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
69   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
6T   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  RHSD  HSD   HSD
77   PSHRD PSHRD PSHRD PSHRD PSHRD PHSRD HPRSD HRSPD HSPD  HSPD
78   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  HRSD  HSD   HSD
79   SHRD  SHRD  SHRD  SHRD  SHRD  HSRD  HRSD  RHSD  HSD   HSD
7T   SRHD  SRHD  SRHD  SRHD  SRHD  SHRD  SRHD  SRHD  SHD   SHD
88   PSHRD PSHRD PSHRD PSHRD PSHRD PHSRD PHRSD PRHSD HSPD  HSPD
89   SRHD  SRHD  SRHD  SRHD  SRHD  SHRD  SRHD  SRHD  SHD   SHD
8T   SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SHD   SHD
99   PSRHD PSRHD PSRHD PSRHD PSRHD SPRHD PSRHD PSRHD SPHD  SPHD
9T   SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SRHD  SHD   SHD
TT   SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPRHD SPHD  SPHD
# split hands
/2A  HDS   HDS   HDS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/22  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/23  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/24  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/25  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/26  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/27  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/28  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/29  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/2T  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/3A  HDS   HDS   HDS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/32  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/33  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/34  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/35  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/36  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/37  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/38  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/39  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/3T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/4A  HDS   HDS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/42  HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD   HSD
/43  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/44  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/45  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/46  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/47  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/48  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/49  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/4T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/5A  HDS   HDS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/52  HSD   HSD   HSD   HSD   HDS   HSD   HSD   HSD   HSD   HSD
/53  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/54  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/55  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/56  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/57  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/58  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/59  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/5T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/6A  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/62  HDS   HDS   HDS   HDS   HDS   HDS   HDS   HSD   HSD   HSD
/63  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/64  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/65  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/66  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/67  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/68  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/69  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/6T  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/7A  SDH   DSH   DSH   DSH   DSH   SDH   SHD   HSD   HSD   HSD
/72  HDS   DHS   DHS   DHS   DHS   HDS   HDS   HDS   HSD   HSD
/73  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/74  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/75  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/76  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/77  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/78  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/79  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/7T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/8A  SDH   SDH   SDH   SDH   SDH   SDH   SDH   SHD   SHD   SHD
/82  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/83  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/84  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/85  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/86  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/87  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/88  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/89  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/8T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/9A  SDH   SDH   SDH   SDH   SDH   SDH   SDH   SDH   SHD   SHD
/92  DHS   DHS   DHS   DHS   DHS   DHS   DHS   DHS   HDS   HDS
/93  HSD   HSD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/94  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/95  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/96  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/97  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/98  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/99  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/9T  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/TA  S     S     S     S     S     S     S     S     S     S
/T2  HSD   HSD   HSD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T3  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T4  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T5  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T6  SHD   SHD   SHD   SHD   SHD   HSD   HSD   HSD   HSD   HSD
/T7  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/T8  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/T9  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
/TT  SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD   SHD
# three or more cards
h6   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h7   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h8   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h9   HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h10  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h11  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
h12  HS    HS    SH    SH    SH    HS    HS    HS    HS    HS
h13  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h14  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h15  SH    SH    SH    SH    SH    HS    HS    HS    HS    HS
h16  SH    SH    SH    SH    SH    HS    HS    HS    SH    HS
h17  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h18  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h19  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
h20  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
s13  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s14  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s15  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s16  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s17  HS    HS    HS    HS    HS    HS    HS    HS    HS    HS
s18  SH    SH    SH    SH    SH    SH    SH    HS    HS    HS
s19  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
s20  SH    SH    SH    SH    SH    SH    SH    SH    SH    SH
"""

WRITTEN = {"deluxe-blackjack": DELUXE, "blackjack": CLASSIC}
"""The written tables of the default rule sets, as :func:`render` writes them."""
