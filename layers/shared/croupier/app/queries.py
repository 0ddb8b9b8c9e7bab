"""Read models for the API, and the operator's wallet movements."""

from __future__ import annotations

import base64
import json
from typing import Any

from . import keys, seamless, store, wallets
from .engine import rebuild
from .errors import AppError, Funds, StateConflict
from .identity import Identity
from .records import TAKING_BETS, BetRecord, BetStatus, RoundRecord, RoundStatus, TableRecord, bets_until
from .visibility import FINANCE, STAFF_ROLES, blocked_view, pause_reason, staff_of

STAFF = STAFF_ROLES
"""The staff roles; a dealer console is staff only of the table it serves (:func:`staff_of`)."""


def table_view(table: TableRecord, who: Identity) -> dict[str, Any]:
    """A table as the caller may see it: the id of its card reader only for the table's staff;
    who sits where for the table's staff, and to a player only their own seat (the others show
    as taken). A dealer console of another table sees it as an outsider."""
    shoe = table.shoe or None
    staff = staff_of(who, table.table_id)
    return {
        "table_id": table.table_id, "name": table.name, "game": table.game, "rules": table.rules,
        **({"reader_id": table.reader_id} if staff else {}),
        "wallet": {k: str(v) for k, v in seamless.wallet_of(table).items()},
        "seats": {number: seat_view(seat, who, staff=staff) for number, seat in table.seats.items()},
        "shoe": None if shoe is None else {k: shoe[k] for k in ("shoe_id", "phase", "round_in_shoe", "cut_card_out",
                                                                   "last_round", "cards_drawn", "burn_remaining")},
        "round_id": table.round_id, "round_status": table.round_status, "rounds_played": table.rounds_played,
    }


def table_wallet(table: TableRecord, player: str) -> dict[str, Any]:
    """A player's balance where the table's money is: Croupier's wallet, or the operator's
    (its ``balance`` call, answered now: a refusal or no answer is said so, never guessed)."""
    return {"table_id": table.table_id, "player": player, **wallets.of(table).balance(player)}


def seat_view(seat: dict[str, Any], who: Identity, *, staff: bool) -> dict[str, Any]:
    """A taken seat: who sits, their account kind and grace for the table's staff (``staff``);
    to a player only whether it is theirs."""
    yours = who.role == "player" and seat.get("player") == who.subject
    if staff:
        return {"yours": False, **{k: seat[k] for k in ("player", "account_kind", "grace") if k in seat}}
    return {"yours": True, "player": who.subject} if yours else {"yours": False}


SUMMARY = ("round_id", "table_id", "game", "round_in_shoe", "status", "paused", "pause_reason", "void_reason",
           "last_round", "created_at", "closes_at")


def round_summary(rnd: RoundRecord, who: Identity) -> dict[str, Any]:
    """A round's summary as ``who`` may read it: a pause's reason for the table's staff, its
    code's words for everyone else (:func:`croupier.app.visibility.pause_reason`)."""
    out = {k: getattr(rnd, k) for k in SUMMARY}
    out["pause_reason"] = pause_reason(rnd, who)
    out["pause_code"] = rnd.pause_code if rnd.paused else None
    out["bets_until"] = bets_until(rnd.closes_at, rnd.game)
    return out


def round_view(round_id: str, who: Identity) -> dict[str, Any]:
    """A round as the caller may see it: hidden cards hidden for everyone; a player sees every
    seated hand (as at the table) but of the seats and bets behind only their own ids, their own
    bets, and of a window only their own bets in it; the house's result only for operators and
    supervisors."""
    item = store.load_round(round_id)
    out = round_summary(item, who)
    staff = staff_of(who, item.table_id)
    out["seq"] = len(item.events)  # the round's event count: its pushed events continue from here
    # the dealer has played: every card is face up
    finished = item.status in (RoundStatus.SETTLING, RoundStatus.SETTLED)
    engine = None
    if item.status not in TAKING_BETS:
        engine = rebuild(item)
        hands = engine.view(reveal_hidden=finished)  # a hidden card stays hidden, for everyone
        expected = engine.expected
        shown = {"kind": expected.kind, **{k: v for k, v in vars_of(expected).items() if k != "legal"}}
        if hasattr(expected, "legal"):
            shown["legal"] = sorted(expected.legal)
        if not staff:  # a player, or another table's console: only the caller's own bets and seat
            own = {b["bet_id"] for b in player_bets(round_id, who.subject)} if who.role == "player" else set()
            hands = _players_hands(hands, who.subject, own)
            shown = _own_window(shown, own)
        out["hands"] = hands
        out["expected"] = shown
    if item.settlement and finished:
        out["result"] = item.settlement.get("hands")
    if staff:  # the table's console shows the decisions and window closes as they happen
        out["actions"] = [event for event in item.events if "card" not in event]
    if item.blocked and staff:  # the card that paused the round, waiting for the supervisor's word
        out["blocked"] = blocked_view(item, engine if engine is not None else rebuild(item))
    if who.role in FINANCE:
        out["house_result"] = item.house_result
    out["bets"] = player_bets(round_id, who.subject) if who.role == "player" else []
    return out


def _own_window(expected: dict[str, Any], own: set[str]) -> dict[str, Any]:
    if "bets" not in expected:
        return expected
    return {**expected, "bets": [bet for bet in expected["bets"] if bet in own]}


def _players_hands(hands: dict[str, Any], player: str, own: set[str]) -> dict[str, Any]:
    """A blackjack view as a player at the table sees it: every seat's hands and whether it is
    insured, but a seat's player and bet id only at their own seat, and only their own bets behind."""
    if "seats" not in hands:
        return hands
    seats = {}
    for number, seat in hands["seats"].items():
        mine = seat.get("player") == player
        seats[number] = {**({"player": seat["player"], "bet": seat["bet"]} if mine else {}),
                         "hands": seat["hands"], "insured": seat["insured"],
                         "behind": [b for b in seat.get("behind", []) if b.get("bet") in own]}
    out = {**hands, "seats": seats}
    if isinstance(hands.get("expected"), dict):
        out["expected"] = _own_window(hands["expected"], own)
    return out


def player_bets(round_id: str, player: str) -> list[dict[str, Any]]:
    """The caller's own bets in this round, with their results once settled."""
    summary = store.get(store.game_table(), keys.player_round_key(round_id, player))
    out = []
    for bet in (summary or {}).get("bets", []):
        stored = store.bet_record(round_id, int(bet["shard"]), bet["bet_id"])
        if stored:
            out.append(stored.view())
    return out


def vars_of(obj: Any) -> dict[str, Any]:
    out = {}
    for name in getattr(obj, "__slots__", ()):
        value = getattr(obj, name)
        out[name] = list(value) if isinstance(value, tuple | frozenset) else value
    return out


def _encode(key: dict[str, Any] | None) -> str | None:
    return base64.urlsafe_b64encode(json.dumps(store.plain(key)).encode()).decode() if key else None


_CURSOR_KEYS = frozenset({"pk", "sk", "gsi1pk", "gsi1sk"})
"""What a query of the ``by-player`` index answers as ``LastEvaluatedKey``: the item's key and its index key."""


def _decode(cursor: str | None, player: str) -> dict[str, Any] | None:
    return decode_cursor(cursor, keys.player_index(player))


def decode_cursor(cursor: str | None, partition: str) -> dict[str, Any] | None:
    """The ``ExclusiveStartKey`` of a cursor this API gave out for a query of the ``by-player``
    index on ``partition``: anything else (other attributes, not strings, another partition) is
    refused, never sent to DynamoDB."""
    if not cursor:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except ValueError as exc:
        raise AppError("cursor is not one this API gave out", reason="bad-cursor") from exc
    if (not isinstance(data, dict) or data.keys() != _CURSOR_KEYS
            or not all(isinstance(value, str) and value for value in data.values())
            or data["gsi1pk"] != partition):
        raise AppError("cursor is not one this API gave out", reason="bad-cursor")
    return data


def encode_cursor(key: dict[str, Any] | None) -> str | None:
    return _encode(key)


def bet_record(player: str, limit: int, cursor: str | None) -> dict[str, Any]:
    """The player's bet record, newest first, paged: per bet the table, game, round, time, amounts,
    outcome and payout, the balance after its settlement (from the ledger), and per round its cards
    and hands and the decisions taken."""
    items, last = store.index_page(keys.player_index(player), limit, _decode(cursor, player))
    bets, rounds = [], {}
    for bet in map(BetRecord.from_item, items):
        entry = {"bet_id": bet.bet_id, "round_id": bet.round_id, "table_id": bet.table_id, "game": bet.game,
                 **bet.view(), "placed_at": bet.placed_at}
        kind = {BetStatus.SETTLED: "settle", BetStatus.REFUNDED: "refund"}.get(bet.status)
        if kind:
            marker = store.marker_of(player, f"bet:{bet.bet_id}:{kind}")
            if marker:
                entry["balance_after"] = marker.balance_after
        bets.append(entry)
        if bet.round_id not in rounds:
            rounds[bet.round_id] = _round_record(bet.round_id, player)
    return {"bets": bets, "rounds": rounds, "cursor": _encode(last)}


def _round_record(round_id: str, player: str) -> dict[str, Any]:
    rnd = store.find_round(round_id, consistent=False)
    if rnd is None:
        return {}
    out: dict[str, Any] = {"status": rnd.status, "round_in_shoe": rnd.round_in_shoe, "created_at": rnd.created_at}
    if rnd.status == RoundStatus.SETTLED:
        out["hands"] = (rnd.settlement or {}).get("hands")
        out["decisions"] = [_decision_seen(e["action"], player) for e in rnd.events if "action" in e]
    elif rnd.status == RoundStatus.VOIDED:
        out["void_reason"] = rnd.void_reason
    return out


def _decision_seen(action: dict[str, Any], player: str) -> dict[str, Any]:
    """A decision in a player's bet record: another player's answer behind a seat names nobody."""
    return {k: v for k, v in action.items() if k != "player" or v == player}


def wallet_view(player: str, entries: int = 20) -> dict[str, Any]:
    wallet = store.wallet_of(player)
    return {"player": player, "balance": wallet.balance if wallet else 0,
            "ledger": [entry.view() for entry in store.latest_ledger_entries(player, entries)]}


def move(player: str, amount: int, kind: str, key: str, reference: str | None) -> dict[str, Any]:
    try:
        entries = store.move_money(player, [(f"{kind}:{key}", amount, {"reference": reference or ""})], kind=kind)
    except store.InsufficientFunds as exc:
        raise Funds(f"cannot withdraw {exc.needed}: the balance is {exc.balance}") from exc
    except store.Conflict as exc:  # it kept losing its race with other movements of this wallet: nothing moved
        raise StateConflict(f"the wallet of {player} is busy; try again", reason="busy") from exc
    return {"player": player, "amount": amount, "balance": entries[-1].balance_after, "replayed": False}


def round_record(round_id: str) -> dict[str, Any]:
    """A settled round's whole record, for a dispute: its transcript (``replay.md``, what ``croupier
    replay`` reads), every bet with its result, and every money movement of those bets (the
    ledger's entries, balance before and after). Only a settled round: until then its hidden cards
    stay hidden, and a transcript would show them."""
    from .audit import transcript_of  # the audit's own transcript of a stored round: one way to make it

    item = store.load_round(round_id)
    if item.status != RoundStatus.SETTLED:
        raise StateConflict(f"round {round_id} is {item.status}: its transcript is given once it is settled "
                            "(until then its hidden cards stay hidden)", reason="not-settled")
    records = sorted(store.round_bets(round_id, item.shards), key=lambda b: b.bet_id)
    transcript = transcript_of(item, records).model_dump(mode="json", exclude_none=True)
    bets = [{"bet_id": b.bet_id, "player": b.player, **b.view()} for b in records]
    return {"round_id": round_id, "table_id": item.table_id, "game": item.game,
            "transcript": transcript, "bets": bets, "ledger": _round_ledger(bets), "history": item.history}


def _round_ledger(bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every ledger entry of these bets (their money movements' markers name the bet), in order."""
    entries = []
    for bet in bets:
        player = bet["player"]
        of_bet = keys.marker_key(player, f"bet:{bet['bet_id']}:")  # the markers' keys begin with it
        for marker in store.markers_from(of_bet):
            entry = store.ledger_entry(player, marker.seq)
            if entry:
                entries.append({"player": player, **entry.view()})
    return sorted(entries, key=lambda e: (e["at"], e["player"]))

