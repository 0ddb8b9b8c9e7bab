"""The betting phase: what the countdown does with seats and bets before the engine sees them.

Pure functions over small inputs, for all four games. A bet request touches one player: it is
checked against that player's own bets in this round, the round's context (its number in the
shoe, the blackjack seat map) and the player's balance — never against every bet of the round.
Only :func:`close_betting`, once per round, looks at all the bets.

Seats (blackjack; ``blackjack.md`` Seats)
    The seat map is ``dict[int, SeatState]``: who sits where. :func:`sit` and :func:`leave` return
    a new map. Deluxe: up to ``rules.max_seats_per_player`` (2) seats, classic 1; trial and
    play-for-fun accounts may not sit; an occupied seat is refused (sitting again where one already
    sits changes nothing, so a retried request is harmless). Sitting does not make a seat dealt: a
    seat is dealt in a round only with a seat bet (:func:`close_betting`).

One bet per player, bet type and seat
    A request adds to a player's bets: an addition to a bet the player already has in this round
    (same type, same seat) raises that bet's amount, keeping its id; otherwise a new bet is written
    with the id the caller's ``new_id`` gives it, by default :func:`bet_id` (``player:type`` or
    ``player:type:seat``: unique in the round). A :class:`BetChange` carries the bet's new total, its amount before the
    request (``previous``: 0 for a new bet; write it only if the stored amount still is that) and
    the debit. Table limits apply to each bet's total after the request, not to each addition.
    **Decision:** a player holds one Baccarat Banker bet per round; adding to it in the other
    mode is refused (the bet records the mode it was placed in).

All or nothing
    :func:`place_bets` either returns a :class:`Placement` that says exactly what to write and
    debit, or raises :class:`~croupier.errors.BetRefused` with a machine ``reason``; nothing is
    partial, and its inputs are never changed.

Deluxe mirroring (``rules.mirror_seat_bets``)
    The same amount stands on each of a player's seats. An addition of ``X`` to seat ``S`` raises
    every seat of the player to ``a(S) + X`` (normally: the same ``X`` on each seat). If the
    balance does not cover that but covers ``X``, ``X`` alone is spread over the seats so that they
    stay level: equal halves, the odd minor unit to the lower seat (or to the seat that levels
    them, if the lower one already carries an odd unit from an earlier split). If ``X // seats`` is
    below the seat minimum, the split addition is refused; if the balance does not cover ``X``, the
    request is refused. **Decision:** the balance that decides between mirroring and splitting is
    the one left after the request's other bets (so the order of a request's items does not
    matter), and a request's seat items are applied one after the other. **Decision:** a player who
    took a second seat after betting on the first must bring it at least level with the first: a
    smaller addition to it is refused (``mirror-seat-bets``); an addition to the first seat raises
    the new one to the same total.

Bet behind and pair bets
    Bet behind only on a seat occupied by another player. Deluxe: a seated player may bet behind
    other seats, never their own; classic (``rules.seated_may_bet_behind`` false): a seated player
    may not bet behind, and a player with bet-behind bets may not place a seat bet in the same
    round. Pair bets: Deluxe, anyone on any occupied seat; classic, the seated player on their own
    seat once their seat bet is confirmed (placed earlier, or in the same request) and
    (**Decision** in ``blackjack.md``) a player betting behind a seat on that seat (likewise). The
    classic/Deluxe pair rule follows ``rules.variant``, as ``games/blackjack.py`` does.

Closing the countdown (:func:`close_betting`)
    A seat with a seat bet by its player is dealt. A seat without one is freed, except that a seat
    dealt in the previous round is kept ``rules.idle_seat_rounds`` more rounds without being
    dealt (Deluxe 1: kept this round, freed at the close of the next one if its player still places
    no seat bet; classic 0: freed). Bet-behind and pair bets on seats that are not dealt, and seat
    bets on seats their player no longer holds, are refunded in full.

Start of a round (:func:`seats_at_round_start`)
    A seated player whose balance cannot cover the seat minimum on each of their seats loses
    seats, the highest numbers first, until it can (**Decision**: a Deluxe player who can cover
    one seat keeps the lower one).

Debits
    A bet's debit is its amount, except a Pok Deng Player N bet: ``rules.reservation`` times it
    (:func:`debit_of`). Refunds return the debit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from .errors import BetRefused, RulesError
from .games import baccarat as _baccarat
from .games import pokdeng as _pokdeng
from .games.base import Bet
from .rules import GAMES, BaccaratRules, BlackjackRules, Limit, PokDengRules, Rules

AccountKind = Literal["real", "trial", "fun"]
ACCOUNT_KINDS: tuple[str, ...] = ("real", "trial", "fun")
BLACKJACK_GAMES = ("deluxe-blackjack", "blackjack")
BLACKJACK_BETS = ("seat", "behind", "pair")


# --- data ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatState:
    """Who holds a blackjack seat. ``grace`` is how many more closes of betting the seat survives
    without a seat bet: 0 when the player has just sat down, ``rules.idle_seat_rounds`` after a
    round in which the seat was dealt."""

    player: str
    account_kind: str = "real"
    grace: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "account_kind": self.account_kind, "grace": self.grace}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatState:
        return cls(str(data["player"]), str(data.get("account_kind", "real")), int(data.get("grace", 0)))


SeatMap = dict[int, SeatState]


def seats_to_dict(seats: Mapping[int, SeatState]) -> dict[str, dict[str, Any]]:
    """The seat map for storage (JSON keys are strings)."""
    return {str(n): s.to_dict() for n, s in sorted(seats.items())}


def seats_from_dict(data: Mapping[str, Mapping[str, Any]]) -> SeatMap:
    return {int(n): SeatState.from_dict(s) for n, s in data.items()}


@dataclass(frozen=True, slots=True)
class RoundContext:
    """What a bet request needs to know about the round: its number in the shoe (Baccarat side bets
    with ``max_round``) and the blackjack seat map."""

    round_in_shoe: int = 1
    seats: Mapping[int, SeatState] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BetRequest:
    """One bet a player asks for: an amount to add to their bet of this type (and seat, and mode)."""

    type: str
    amount: int
    seat: int | None = None
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class BetChange:
    """Write ``bet`` (the bet's new total) if the stored amount is still ``previous`` (0: the bet is
    new), and debit ``debit`` from the player's wallet with it."""

    bet: Bet
    previous: int
    debit: int

    @property
    def is_new(self) -> bool:
        return self.previous == 0

    @property
    def added(self) -> int:
        return self.bet.amount - self.previous

    def to_dict(self) -> dict[str, Any]:
        return {"bet": self.bet.to_dict(), "previous": self.previous, "debit": self.debit}


@dataclass(frozen=True, slots=True)
class Placement:
    """Everything an accepted request changes: the bets to write, in request order, and the total
    debit. ``notes`` explain anything the player did not literally ask for (a split seat bet)."""

    changes: tuple[BetChange, ...]
    debit: int
    balance_after: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"changes": [w.to_dict() for w in self.changes], "debit": self.debit,
                "balance_after": self.balance_after, "notes": list(self.notes)}


@dataclass(frozen=True, slots=True)
class Refund:
    bet: Bet
    amount: int
    reason: str
    """Machine reason: ``seat-not-dealt`` or ``seat-not-held``."""
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"bet": self.bet.to_dict(), "amount": self.amount, "reason": self.reason, "message": self.message}


@dataclass(frozen=True, slots=True)
class Closing:
    """The close of betting: ``bets`` go to the engine (input order), ``refunds`` go back to the
    wallets, ``seats`` is the seat map from now on (for the next round's countdown)."""

    bets: tuple[Bet, ...]
    refunds: tuple[Refund, ...]
    seats: SeatMap
    dealt: tuple[int, ...] = ()
    """Seats dealt in this round."""
    kept: tuple[int, ...] = ()
    """Seats kept without being dealt (Deluxe: no seat bet after a dealt round)."""
    freed: tuple[int, ...] = ()


# --- helpers ---------------------------------------------------------------------------------


def bet_id(player: str, bet_type: str, seat: int | None = None) -> str:
    """The id of a player's bet of this type (and seat) in a round: one such bet per round."""
    return f"{player}:{bet_type}" if seat is None else f"{player}:{bet_type}:{seat}"


def debit_of(rules: Rules, bet_type: str, amount: int) -> int:
    """What a bet of ``amount`` takes from the wallet: a Pok Deng Player N bet reserves
    ``rules.reservation`` times its stake; every other bet its amount."""
    if isinstance(rules, PokDengRules):
        return _pokdeng.reservation(rules, bet_type, amount)
    return amount


def _refuse(message: str, reason: str) -> BetRefused:
    return BetRefused(message, reason=reason)


def _check_game(game: str, rules: Rules) -> None:
    if game not in GAMES:
        raise RulesError(f"unknown game {game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    expected: type[Any] = (
        BlackjackRules if game in BLACKJACK_GAMES else BaccaratRules if game == "baccarat" else PokDengRules
    )
    if not isinstance(rules, expected):
        raise RulesError(f"the rules given are not {game} rules", reason="bad-rules")


def _check_account(account_kind: str) -> None:
    if account_kind not in ACCOUNT_KINDS:
        raise _refuse(f"unknown account kind {account_kind!r}; kinds are {', '.join(ACCOUNT_KINDS)}",
                      "bad-account-kind")


def _check_seat_number(rules: BlackjackRules, seat: object) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= rules.seats:
        raise _refuse(f"seat {seat!r} does not exist: seats are 1 to {rules.seats}", "bad-seat")
    return seat


def _seats_of(seats: Mapping[int, SeatState], player: str) -> list[int]:
    return sorted(n for n, s in seats.items() if s.player == player)


# --- seats -----------------------------------------------------------------------------------


def sit(rules: BlackjackRules, seats: Mapping[int, SeatState], player: str, seat: int,
        account_kind: str) -> SeatMap:
    """``player`` takes ``seat``; returns the new seat map (the input is not changed)."""
    if not isinstance(rules, BlackjackRules):
        raise RulesError("only blackjack tables have seats", reason="bad-rules")
    _check_account(account_kind)
    if account_kind != "real":
        raise _refuse(f"a {account_kind} account may not occupy a seat (it may bet behind and place pair bets)",
                      "account-may-not-sit")
    seat = _check_seat_number(rules, seat)
    holder = seats.get(seat)
    if holder is not None:
        if holder.player == player:
            return dict(seats)
        raise _refuse(f"seat {seat} is occupied", "seat-taken")
    own = _seats_of(seats, player)
    if len(own) >= rules.max_seats_per_player:
        many = "one seat" if rules.max_seats_per_player == 1 else f"{rules.max_seats_per_player} seats"
        raise _refuse(f"player {player} already holds seat(s) {', '.join(map(str, own))}; a player may occupy "
                      f"at most {many} at this table", "too-many-seats")
    out = dict(seats)
    out[seat] = SeatState(player, account_kind)
    return out


def leave(seats: Mapping[int, SeatState], player: str, seat: int) -> SeatMap:
    """``player`` leaves ``seat``; returns the new seat map. Bets already placed on the seat in this
    countdown are refunded at its close (the seat is not dealt)."""
    holder = seats.get(seat)
    if holder is None or holder.player != player:
        raise _refuse(f"player {player} does not hold seat {seat}", "not-your-seat")
    out = dict(seats)
    del out[seat]
    return out


def seats_at_round_start(rules: BlackjackRules, seats: Mapping[int, SeatState],
                         balances: Mapping[str, int]) -> SeatMap:
    """Free the seats of players whose balance cannot cover the seat minimum on each of their
    seats: the highest seat numbers go first. ``balances`` must name every seated player."""
    minimum = rules.limits["seat"].min
    out = dict(seats)
    for player in sorted({s.player for s in seats.values()}):
        if player not in balances:
            raise ValueError(f"no balance given for seated player {player!r}")
        own = _seats_of(seats, player)
        affordable = max(balances[player], 0) // minimum
        for seat in own[affordable:]:
            del out[seat]
    return out


# --- placing bets ----------------------------------------------------------------------------


@dataclass
class _Line:
    """One of the player's bets as the request changes it."""

    bet: Bet | None  # the stored bet, None if new
    type: str
    seat: int | None
    mode: str | None
    previous: int
    total: int
    debit: int = 0
    order: int = 0


class _Book:
    """The player's bets in this round, by (type, seat), as the request builds on them."""

    def __init__(self, player: str, existing: Sequence[Bet]) -> None:
        self.player = player
        self.lines: dict[tuple[str, int | None], _Line] = {}
        self._next = 0
        for bet in existing:
            if bet.player != player:
                raise ValueError(f"existing bet {bet.id} belongs to {bet.player}, not {player}")
            key = (bet.type, bet.seat)
            line = self.lines.get(key)
            if line is None:
                self.lines[key] = _Line(bet, bet.type, bet.seat, bet.mode, bet.amount, bet.amount)
            else:  # several stored bets of one kind: add to the first, limits on their sum
                line.previous += bet.amount
                line.total += bet.amount

    def amount(self, bet_type: str, seat: int | None = None) -> int:
        line = self.lines.get((bet_type, seat))
        return line.total if line is not None else 0

    def add(self, bet_type: str, seat: int | None, mode: str | None, amount: int, debit: int) -> None:
        key = (bet_type, seat)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = _Line(None, bet_type, seat, mode, 0, 0)
        if line.debit == 0 and line.total == line.previous:
            self._next += 1
            line.order = self._next
        line.total += amount
        line.debit += debit

    def changed(self) -> list[_Line]:
        return sorted((ln for ln in self.lines.values() if ln.total != ln.previous), key=lambda ln: ln.order)


def _check_amount(req: BetRequest) -> None:
    amount = req.amount
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise _refuse(f"{req.type}: amount must be a positive whole number of minor units, not {amount!r}",
                      "bad-amount")


def _check_limit(limits: Mapping[str, Limit], line: _Line) -> None:
    limit = limits.get(line.type)
    if limit is None:
        return
    where = f" on seat {line.seat}" if line.seat is not None else ""
    if line.total < limit.min:
        raise _refuse(f"{line.type}{where}: {line.total} is below the table minimum {limit.min}", "table-limit")
    if line.total > limit.max:
        more = f" ({line.previous} already placed)" if line.previous else ""
        raise _refuse(f"{line.type}{where}: {line.total}{more} is above the table maximum {limit.max}",
                      "table-limit")


def place_bets(
    game: str,
    rules: Rules,
    ctx: RoundContext,
    player: str,
    account_kind: str,
    existing: Sequence[Bet],
    requests: Sequence[BetRequest],
    balance: int,
    *,
    new_id: Callable[[int], str] | None = None,
) -> Placement:
    """Check one request of several bets by one player, all or nothing, and say what to write.

    ``existing``: this player's bets already confirmed in this round. ``balance``: what the
    player's wallet holds now (those bets already debited). ``new_id(i)`` names the request's
    i-th new bet (0, 1, ...); by default :func:`bet_id`. Raises :class:`BetRefused`."""
    _check_game(game, rules)
    _check_account(account_kind)
    if not requests:
        raise _refuse("the request holds no bet", "empty-request")
    for req in requests:
        _check_amount(req)
    book = _Book(player, existing)
    notes: list[str] = []
    if isinstance(rules, BlackjackRules):
        _blackjack(rules, ctx, player, account_kind, book, requests, balance, notes)
        limits: Mapping[str, Limit] = {str(k): v for k, v in rules.limits.items()}
    elif isinstance(rules, BaccaratRules):
        _baccarat_bets(rules, ctx, book, requests)
        limits = cast(Mapping[str, Limit], rules.limits)
    else:
        _pokdeng_bets(rules, book, requests)
        limits = cast(Mapping[str, Limit], rules.limits)
    lines = book.changed()
    for line in lines:
        _check_limit(limits, line)
    if isinstance(rules, BaccaratRules):
        _check_player_banker_limit(rules, book)
    debit = sum(line.debit for line in lines)
    if debit > balance:
        raise _refuse(f"the bets need {debit} and the balance is {balance}", "insufficient-balance")
    changes = []
    created = 0
    for line in lines:
        if line.bet is not None:
            bet = replace(line.bet, amount=line.bet.amount + line.total - line.previous)
        else:
            ident = new_id(created) if new_id is not None else bet_id(player, line.type, line.seat)
            created += 1
            bet = Bet(ident, player, line.type, line.total, line.seat, line.mode)
        changes.append(BetChange(bet, line.bet.amount if line.bet is not None else 0, line.debit))
    return Placement(tuple(changes), debit, balance - debit, tuple(notes))


# --- baccarat and pok deng -------------------------------------------------------------------


def _baccarat_bets(rules: BaccaratRules, ctx: RoundContext, book: _Book, requests: Sequence[BetRequest]) -> None:
    offered = set(_baccarat.BET_TYPES[:5]) | set(rules.side_bets)
    for req in requests:
        if req.type not in _baccarat.BET_TYPES:
            raise _refuse(f"unknown bet type {req.type!r}; baccarat takes {', '.join(_baccarat.BET_TYPES)}",
                          "unknown-bet-type")
        if req.type not in offered:
            raise _refuse(f"this table does not offer {req.type!r}", "not-offered")
        if req.seat is not None:
            raise _refuse(f"{req.type}: baccarat bets take no seat", "bad-bet")
        mode = None
        if req.type == "banker":
            mode = req.mode or "commission"
            if mode not in rules.modes:
                raise _refuse(f"this table does not offer the {mode!r} mode", "bad-mode")
            line = book.lines.get(("banker", None))
            if line is not None and (line.mode or "commission") != mode:
                raise _refuse(f"your Banker bet in this round is in {line.mode or 'commission'!r} mode; "
                              f"a Banker bet cannot change mode", "mode-mismatch")
        elif req.mode is not None:
            raise _refuse(f"{req.type}: only a banker bet carries a mode", "bad-bet")
        side = rules.side_bets.get(req.type)  # type: ignore[call-overload]
        if side is not None and side.max_round is not None and ctx.round_in_shoe > side.max_round:
            raise _refuse(f"{req.type} is offered only in rounds 1 to {side.max_round} of a shoe "
                          f"(this is round {ctx.round_in_shoe})", "max-round")
        book.add(req.type, None, mode, req.amount, req.amount)


def _check_player_banker_limit(rules: BaccaratRules, book: _Book) -> None:
    p_total, b_total = book.amount("player"), book.amount("banker")
    if rules.banker_limit is not None and b_total > p_total + rules.banker_limit:
        raise _refuse(f"Banker total {b_total} would exceed your Player total {p_total} by more than the banker "
                      f"limit {rules.banker_limit}", "banker-limit")
    if rules.player_limit is not None and p_total > b_total + rules.player_limit:
        raise _refuse(f"Player total {p_total} would exceed your Banker total {b_total} by more than the player "
                      f"limit {rules.player_limit}", "player-limit")


def _pokdeng_bets(rules: PokDengRules, book: _Book, requests: Sequence[BetRequest]) -> None:
    for req in requests:
        if req.type not in _pokdeng.BET_TYPES:
            raise _refuse(f"unknown bet type {req.type!r}; pok deng takes {', '.join(_pokdeng.BET_TYPES)}",
                          "unknown-bet-type")
        if req.seat is not None or req.mode is not None:
            raise _refuse(f"{req.type}: pok deng bets take no seat and no mode", "bad-bet")
        book.add(req.type, None, None, req.amount, _pokdeng.reservation(rules, req.type, req.amount))


# --- blackjack -------------------------------------------------------------------------------


def _blackjack(
    rules: BlackjackRules,
    ctx: RoundContext,
    player: str,
    account_kind: str,
    book: _Book,
    requests: Sequence[BetRequest],
    balance: int,
    notes: list[str],
) -> None:
    seats = ctx.seats
    own = _seats_of(seats, player)
    mirrored: list[BetRequest] = []
    for req in requests:
        if req.type not in BLACKJACK_BETS:
            raise _refuse(f"unknown bet type {req.type!r}; blackjack takes {', '.join(BLACKJACK_BETS)}",
                          "unknown-bet-type")
        if req.mode is not None:
            raise _refuse(f"{req.type}: a blackjack bet carries no mode", "bad-bet")
        seat = _check_seat_number(rules, req.seat)
        holder = seats.get(seat)
        if req.type == "seat":
            if account_kind != "real":
                raise _refuse(f"a {account_kind} account may not occupy a seat", "account-may-not-sit")
            if holder is None or holder.player != player:
                raise _refuse(f"a seat bet on seat {seat} is only for the player seated there; sit down first",
                              "not-your-seat")
            if rules.mirror_seat_bets and len(own) > 1:
                mirrored.append(req)
                continue
        elif holder is None:
            raise _refuse(f"seat {seat} is not occupied: {req.type} bets need a seated player", "seat-empty")
        elif req.type == "behind":
            if holder.player == player:
                raise _refuse(f"you may not bet behind your own seat {seat}", "behind-own-seat")
            if own and not rules.seated_may_bet_behind:
                raise _refuse("a seated player may not bet behind at this table", "seated-bet-behind")
        book.add(req.type, seat, None, req.amount, req.amount)
    spent = sum(line.debit for line in book.lines.values())
    for req in mirrored:
        spent += _mirror(rules, book, own, req, balance, spent, notes)
    _check_seat_and_behind(rules, book, own)
    if rules.variant == "classic":
        _check_classic_pairs(book, seats, player)


def _mirror(rules: BlackjackRules, book: _Book, own: list[int], req: BetRequest, balance: int, spent: int,
            notes: list[str]) -> int:
    """Apply a seat bet addition on a mirroring table; returns what it debits. ``spent``: what
    the request's other bets already take from ``balance``."""
    x, target_seat = req.amount, req.seat
    assert target_seat is not None
    remaining = balance - spent
    before = {s: book.amount("seat", s) for s in own}
    target = before[target_seat] + x
    if target < max(before.values()):
        top = max(before.values())
        raise _refuse(f"the same amount must stand on each of your seats: seat {target_seat} needs at least "
                      f"{top - before[target_seat]} to match your other seat's {top}", "mirror-seat-bets")
    full = {s: max(a, target) for s, a in before.items()}
    full_debit = sum(full[s] - before[s] for s in own)
    if full_debit <= remaining:
        after = full
    elif x <= remaining:
        minimum = rules.limits["seat"].min
        if x // len(own) < minimum:
            raise _refuse(f"the balance does not cover {x} on each of your seats, and half of {x} is below the "
                          f"seat minimum {minimum}", "split-below-minimum")
        base, extra = divmod(sum(before.values()) + x, len(own))
        levels = [base + 1 if i < extra else base for i in range(len(own))]
        after = dict(zip(own, levels, strict=True))
        if any(after[s] < before[s] for s in own):
            raise _refuse(f"the balance does not cover bringing all your seats to {target}", "insufficient-balance")
        notes.append(f"seat bet of {x} split between seats {', '.join(map(str, own))}: the balance does not cover "
                     f"it on each seat")
    else:
        raise _refuse(f"the bets need at least {spent + x} and the balance is {balance}", "insufficient-balance")
    debit = 0
    for s in own:
        added = after[s] - before[s]
        if added:
            book.add("seat", s, None, added, added)
            debit += added
    return debit


def _check_seat_and_behind(rules: BlackjackRules, book: _Book, own: list[int]) -> None:
    """What the request adds must not make the player's seat bets and bet-behind bets clash (the
    engine would refuse the whole round): classic, a player with a seat bet has no bet-behind
    bet; nobody bets behind their own seat."""
    lines = list(book.lines.values())
    behind = [ln for ln in lines if ln.type == "behind" and ln.total > 0]
    seated = [ln for ln in lines if ln.type == "seat" and ln.total > 0]
    new_seat_bets = [ln for ln in seated if ln.total != ln.previous]
    if not rules.seated_may_bet_behind and behind and new_seat_bets:
        raise _refuse("a seated player may not bet behind at this table, and you have bet-behind bets in this "
                      "round", "seated-bet-behind")
    behind_seats = {ln.seat for ln in behind}
    for ln in new_seat_bets:
        if ln.seat in behind_seats:
            raise _refuse(f"you bet behind seat {ln.seat} in this round: you may not also place its seat bet",
                          "behind-own-seat")


def _check_classic_pairs(book: _Book, seats: Mapping[int, SeatState], player: str) -> None:
    """Classic: a pair bet is for the seated player once their seat bet is confirmed, or for a
    player betting behind that seat (``blackjack.md`` **Decision**)."""
    for line in book.changed():
        if line.type != "pair":
            continue
        seat = line.seat
        holder = seats.get(seat) if seat is not None else None
        if holder is not None and holder.player == player:
            if book.amount("seat", seat) == 0:
                raise _refuse(f"place your seat bet on seat {seat} before a pair bet", "pair-before-seat-bet")
        elif book.amount("behind", seat) == 0:
            raise _refuse(f"at this table a pair bet on seat {seat} is only for the player seated there or a "
                          f"player betting behind it", "pair-not-allowed")


# --- closing the countdown -------------------------------------------------------------------


def close_betting(game: str, rules: Rules, seats: Mapping[int, SeatState], bets: Sequence[Bet]) -> Closing:
    """The end of the countdown: which bets the engine gets, which are refunded, and the seat map
    from now on. Baccarat and Pok Deng pass every bet through."""
    _check_game(game, rules)
    if not isinstance(rules, BlackjackRules):
        return Closing(tuple(bets), (), dict(seats))
    refunds: list[Refund] = []
    with_seat_bet: set[int] = set()
    refunded: set[str] = set()
    for bet in bets:
        if bet.type != "seat" or bet.seat is None:
            continue
        holder = seats.get(bet.seat)
        if holder is None or holder.player != bet.player:
            refunds.append(Refund(bet, bet.amount, "seat-not-held",
                                  f"seat bet on seat {bet.seat}: player {bet.player} no longer holds the seat"))
            refunded.add(bet.id)
        else:
            with_seat_bet.add(bet.seat)
    next_seats: SeatMap = {}
    kept: list[int] = []
    freed: list[int] = []
    for seat in sorted(seats):
        state = seats[seat]
        if seat in with_seat_bet:
            next_seats[seat] = replace(state, grace=rules.idle_seat_rounds)
        elif state.grace > 0:
            next_seats[seat] = replace(state, grace=state.grace - 1)
            kept.append(seat)
        else:
            freed.append(seat)
    engine: list[Bet] = []
    for bet in bets:
        if bet.id in refunded:
            continue
        if bet.seat in with_seat_bet:
            engine.append(bet)
        else:
            refunds.append(Refund(bet, bet.amount, "seat-not-dealt",
                                  f"{bet.type} bet on seat {bet.seat}: the seat is not dealt in this round"))
    return Closing(tuple(engine), tuple(refunds), next_seats, tuple(sorted(with_seat_bet)), tuple(kept),
                   tuple(freed))
