"""What the HTTP API answers: one pydantic model per answer, the error body included.

Every answer is built through its model (:func:`out`), which refuses a field it does not declare:
an internal field (a key, a shard, an idempotency key) cannot reach a client, and the OpenAPI
document (``/openapi.json``) describes exactly what is sent (``additionalProperties: false``).
The parts that are the engines' or the device log's own records say so and stay open.

Each model is built (its validator and serializer) when it is first used, not when this module is
imported (``defer_build``): a function imports every answer's model and sends one or two of them
(``docs/deploying.md``, *The card path's cold start*).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .models import BetType, Game


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class _Open(BaseModel):
    """A record of the engine or the device log: the fields listed, and others of its kind."""

    model_config = ConfigDict(extra="allow", defer_build=True)


Answer = TypeVar("Answer", bound=BaseModel)


def out(model: type[Answer], data: Any) -> dict[str, Any]:
    """``data`` as ``model`` sends it (JSON-ready). A field the model does not declare is a bug
    of the view that built ``data``: it raises rather than reach a client."""
    dumped: dict[str, Any] = model.model_validate(data).model_dump(mode="json", exclude_unset=True)
    return dumped


# --- errors ----------------------------------------------------------------------------------


class ErrorDetail(_Out):
    reason: str = Field(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", description="machine-readable, stable",
                        examples=["betting-closed"])
    message: str = Field(min_length=1, description="a sentence for people", examples=["betting is closed"])


class ErrorBody(_Out):
    """Every refusal of the API, the application's and API Gateway's own (401, 404 ...)."""

    error: ErrorDetail


# --- tables ----------------------------------------------------------------------------------


class SeatAtTable(_Out):
    """A taken seat. A player sees who sits only at their own seat; the staff sees every one."""

    yours: bool = Field(description="the caller sits here")
    player: str | None = Field(default=None, description="the seated player (staff, or the player themselves)")
    account_kind: Literal["real", "trial", "fun"] | None = Field(default=None, description="staff only")
    grace: int | None = Field(default=None, description="staff only: idle rounds the seat is kept for")


class ShoeView(_Out):
    shoe_id: str
    phase: str = Field(description="burning, ready, closed ...")
    round_in_shoe: int
    cut_card_out: bool
    last_round: int | None
    cards_drawn: int
    burn_remaining: int


class TableView(_Out):
    table_id: str
    name: str | None
    game: Game
    rules: dict[str, Any] = Field(description="the table's overrides of the game's default rules")
    reader_id: str | None = Field(default=None, description="the card reader's id: staff only")
    wallet: dict[str, str] = Field(default_factory=lambda: {"mode": "internal"},
                                   description="where the players' money is: internal, or seamless with its operator")
    seats: dict[str, SeatAtTable] = Field(description="taken seats by number (blackjack)")
    shoe: ShoeView | None
    round_id: str | None
    round_status: str | None
    rounds_played: int


class Limit(_Out):
    min: int
    max: int


class PlayBet(_Out):
    type: str
    min: int
    max: int
    seat: bool = Field(description="placed on a seat (blackjack): the bet names its seat")
    modes: list[str] | None = Field(description="the modes it is placed in (Baccarat's Banker), or null")
    reserves: int = Field(description="what it takes of the wallet per unit staked (Pok Deng's Player bets: the "
                                      "table's reservation; every other bet 1)")


class Play(_Out):
    """What a page needs of the table's game, from its rules (the page knows no rule)."""

    kind: Literal["blackjack", "baccarat", "pok-deng"] = Field(description="how the felt is laid out")
    bet_types: list[PlayBet] = Field(description="the bets the table offers, in the felt's order")
    hands: list[str] = Field(description="the felt's hands, in order")
    seats: int | None = Field(description="blackjack: the table's seats")
    mirror_seat_bets: bool | None = Field(description="blackjack: one amount on each of a player's seats")
    seated_may_bet_behind: bool | None = Field(description="blackjack: a seated player may bet behind")
    rules: dict[str, Any] = Field(description="every rule of the table (the game's defaults with the table's "
                                              "overrides), ratios as 'a:b'")


class TableSummary(TableView):
    """A table of the lobby: the table, the countdown's end, limits, free seats and roads."""

    limits: dict[str, Limit] = Field(description="stake limits per bet type, minor units")
    closes_at: int | None = Field(description="while betting: the countdown's end, ms since the epoch; the dealer "
                                              "deals from it")
    bets_until: int | None = Field(default=None, description="while betting: when betting closes, ms since the "
                                                             "epoch (half a second before the countdown's end; Pok "
                                                             "Deng: at the end)")
    free_seats: list[int] | None = Field(default=None, description="blackjack: the seats no one sits at")
    roads: dict[str, Any] | None = Field(
        description="Baccarat and Pok Deng: the current shoe's roads (bead plate, big road, derived roads, ask "
                    "Banker/Player; Pok Deng's roadmap per hand)")
    play: Play = Field(description="what a page needs of the table's game, from its rules")


class Lobby(_Out):
    tables: list[TableSummary]
    cursor: str | None = Field(description="the next page's cursor, or null on the last page")


class RoundLine(_Out):
    round_id: str
    shoe_id: str | None
    round_in_shoe: int
    status: Literal["betting", "closing", "playing", "settling", "settled", "voiding", "voided"]
    created_at: int
    finished_at: int | None
    last_round: bool | None
    result: dict[str, Any] | None = Field(default=None, description="a settled round's final hands")
    void_reason: str | None = None


class TableRounds(_Out):
    table_id: str
    rounds: list[RoundLine] = Field(description="newest first")
    cursor: str | None = Field(description="the next page's cursor, or null on the last page")


class TableLogEntry(_Open):
    """One device event and what became of it (its other fields depend on its kind: scan id,
    reader, card — ``"??"`` while face down —, round and hand, burn, a refusal's reason)."""

    n: int = Field(description="its position in the table's log, from 1")
    kind: str
    at: int = Field(description="when it was recorded, ms since the epoch")
    state: str


class TableLog(_Out):
    table_id: str
    entries: list[TableLogEntry]


# --- rounds ----------------------------------------------------------------------------------


class RoundSummary(_Out):
    round_id: str
    table_id: str
    game: Game
    round_in_shoe: int
    status: Literal["betting", "closing", "playing", "settling", "settled", "voiding", "voided"]
    paused: bool
    pause_reason: str | None = Field(description="the table's staff: why, with the card (\"??\" while face down), "
                                                 "its scan id and log entry; everyone else: plain words")
    pause_code: str | None = Field(default=None, description="a paused round: the pause's stable reason code")
    void_reason: str | None
    last_round: bool | None
    created_at: int = Field(description="ms since the epoch")
    closes_at: int = Field(description="the countdown's end, ms since the epoch (the server's clock): the dealer "
                                       "deals from it")
    bets_until: int = Field(description="when betting closes, ms since the epoch (the server's clock): half a "
                                        "second before the countdown's end (Pok Deng: at the end); a bet arriving "
                                        "later is refused")


class Expected(_Out):
    """What the round waits for: a card (for ``hand``), a decision (``seat``, ``hand``, ``legal``),
    an insurance or follow window (the caller's own ``bets`` in it), or settlement."""

    kind: Literal["card", "decision", "insurance", "follow", "settle", "void", "done"]
    hand: str | int | None = None
    face_up: bool | None = None
    seat: int | None = None
    legal: list[str] | None = None
    what: str | None = None
    bets: list[str] | None = None


class BlackjackHand(_Out):
    hand: str
    cards: list[str]
    score: int
    soft: bool
    bust: bool
    bj: bool
    doubled: bool
    surrendered: bool
    stake: int


class BehindView(_Out):
    """A bet behind a seat: a player sees only their own."""

    bet: str
    player: str
    insured: bool
    followed_split: bool
    followed_double: list[bool]


class BlackjackSeat(_Out):
    player: str | None = Field(default=None, description="staff, or the seat's own player")
    bet: str | None = Field(default=None, description="the seat bet's id: staff, or the seat's own player")
    hands: list[BlackjackHand]
    insured: bool
    behind: list[BehindView]


class BlackjackDealer(_Out):
    cards: list[str] = Field(description='the hole card is "??" until revealed')
    score: int
    soft: bool
    peeked: bool
    revealed: bool


class BlackjackView(_Out):
    game: Literal["deluxe-blackjack", "blackjack"]
    phase: str
    dealer: BlackjackDealer
    seats: dict[str, BlackjackSeat]
    expected: Expected


class BaccaratHand(_Out):
    cards: list[str]
    points: int


class BaccaratView(_Out):
    player: BaccaratHand
    banker: BaccaratHand


class PokDengHand(_Out):
    cards: list[str] = Field(description='"??" until the deal is complete')
    points: int | None = None
    pattern: str | None = None


class PokDengView(_Out):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    complete: bool
    hand_1: PokDengHand = Field(alias="hand-1")
    hand_2: PokDengHand = Field(alias="hand-2")
    hand_3: PokDengHand = Field(alias="hand-3")
    hand_4: PokDengHand = Field(alias="hand-4")
    hand_5: PokDengHand = Field(alias="hand-5")
    banker: PokDengHand


class BetResult(_Open):
    """A settled bet, as the engine settled it (its other fields depend on the game); a refunded
    one (its round voided): outcome ``refund``, net 0, what was paid back and why."""

    id: str | None = Field(default=None, description="the bet's id (settled bets)")
    outcome: str
    net: int = Field(description="minor units, what was won (positive) or lost")
    staked: int | None = Field(default=None, description="settled bets: what was at stake")
    paid: int
    exact_net: str | None = Field(default=None, description="settled bets: the exact net, a fraction, before "
                                                            "rounding down")
    reason: str | None = Field(default=None, description="refunded bets: why")


class OwnBet(_Out):
    bet_id: str
    type: BetType
    seat: int | None = None
    mode: Literal["commission", "no-commission"] | None = None
    amount: int
    taken: int = Field(description="what was debited for it so far (doubles, splits, insurance included)")
    status: Literal["open", "settled", "refunded"]
    result: BetResult | None = None


class RoundView(RoundSummary):
    seq: int = Field(ge=0, description="the round's event count: pushed events with a higher seq are newer")
    hands: BlackjackView | BaccaratView | PokDengView | None = Field(
        default=None, description="the cards as the caller may see them, once betting has closed")
    expected: Expected | None = None
    result: dict[str, Any] | None = Field(default=None, description="the settled hands, once settled")
    actions: list[dict[str, Any]] | None = Field(default=None, description="staff: decisions and window closes")
    blocked: dict[str, Any] | None = Field(default=None, description="staff: the card that paused the round")
    house_result: int | None = Field(default=None, description="operator and supervisor: the house's net")
    bets: list[OwnBet] = Field(description="the caller's own bets (a player's; empty for the staff)")


# --- bets and decisions ----------------------------------------------------------------------


class PlacedBet(_Out):
    bet_id: str
    player: str
    type: BetType
    seat: int | None = None
    mode: Literal["commission", "no-commission"] | None = None
    amount: int = Field(description="minor units")
    taken: int = Field(description="what was debited for it")
    placed_at: int = Field(description="ms since the epoch")


class BetsPlaced(_Out):
    round_id: str
    bets: list[PlacedBet]
    replayed: bool = Field(description="true when this answers a retry of an accepted request (same key)")


class DecisionApplied(_Out):
    round_id: str
    applied: dict[str, Any] = Field(description='{"action": {...}} or {"preselect": {...}}')
    cost: int = Field(description="what the decision debited (a double, split, insurance, follow), minor units")
    replayed: bool = Field(description="true when this answers a retry of an applied decision (same key)")


# --- wallets and the bet record --------------------------------------------------------------


class MoneyMoved(_Out):
    player: str
    amount: int = Field(description="minor units: positive for a deposit, negative for a withdrawal")
    balance: int
    replayed: bool = Field(description="true when this answers a retry (same Idempotency-Key)")


class LedgerEntry(_Out):
    amount: int
    balance_before: int
    balance_after: int
    kind: str = Field(description="deposit, withdrawal, bet, settle, refund, double, split, insurance ...")
    at: int = Field(description="ms since the epoch")
    round_id: str | None = None
    bet_id: str | None = None
    table_id: str | None = None
    action: str | None = None
    reference: str | None = None


class WalletView(_Out):
    player: str
    balance: int
    ledger: list[LedgerEntry] = Field(description="the latest entries, newest first")


class TableWalletView(_Out):
    table_id: str
    player: str
    mode: Literal["internal", "seamless"]
    operator: str | None = Field(default=None, description="seamless: the operator whose wallet answered")
    balance: int = Field(description="minor units")
    currency: str | None = Field(default=None, description="seamless: the operator's currency")


class RecordBet(_Out):
    bet_id: str
    round_id: str
    table_id: str
    game: Game
    type: BetType
    seat: int | None = None
    mode: Literal["commission", "no-commission"] | None = None
    amount: int
    taken: int
    status: Literal["open", "settled", "refunded"]
    placed_at: int
    result: BetResult | None = None
    balance_after: int | None = Field(default=None, description="the wallet's balance after its settlement")


class RecordRound(_Out):
    status: str | None = None
    round_in_shoe: int | None = None
    created_at: int | None = None
    hands: dict[str, Any] | None = None
    decisions: list[dict[str, Any]] | None = None
    void_reason: str | None = None


class BetRecord(_Out):
    bets: list[RecordBet]
    rounds: dict[str, RecordRound]
    cursor: str | None = Field(description="the next page's cursor, or null on the last page")


# --- a round's record, for disputes ------------------------------------------------------------


class TranscriptBet(_Out):
    id: str
    player: str
    type: BetType
    amount: int
    seat: int | None = None
    mode: Literal["commission", "no-commission"] | None = None


class TranscriptAction(_Out):
    seat: int
    action: str
    player: str | None = Field(default=None, description="a bet-behind player's answer")
    hand: int | None = None


class Transcript(_Out):
    """The round's transcript as ``croupier replay`` reads it (``replay.md``)."""

    game: Game
    rules: dict[str, Any] = Field(description="the table's rule overrides of the game's defaults")
    round_in_shoe: int
    balances: dict[str, int] | None = None
    bets: list[TranscriptBet]
    cards: list[str] = Field(description="every card in the order dealt")
    actions: list[TranscriptAction]


class RecordedBet(_Out):
    bet_id: str
    player: str
    type: BetType
    seat: int | None = None
    mode: Literal["commission", "no-commission"] | None = None
    amount: int
    taken: int = Field(description="everything staked on it: the bet, doubles, splits, insurance")
    status: Literal["open", "settled", "refunded"]
    result: BetResult | None = None


class RoundLedgerEntry(LedgerEntry):
    player: str


class RoundRecord(_Out):
    """A settled round's whole record for a dispute: its transcript (save ``transcript`` as a file
    for ``croupier replay``), every bet with its result, every money movement of its bets, and
    the supervisors' pauses, resumes and voids."""

    round_id: str
    table_id: str
    game: Game
    transcript: Transcript
    bets: list[RecordedBet]
    ledger: list[RoundLedgerEntry] = Field(description="the bets' ledger entries, oldest first")
    history: list[dict[str, Any]] = Field(description="pauses, resumes and voids, as stored (at, pause/resume/void)")
