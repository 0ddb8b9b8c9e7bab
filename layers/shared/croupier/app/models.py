"""Request bodies of the HTTP API, validated at the boundary (pydantic; unknown fields refused)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

MAX_AMOUNT = 10**12
Id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")

Game = Literal["deluxe-blackjack", "blackjack", "baccarat", "pok-deng"]
BlackjackBetType = Literal["seat", "behind", "pair"]
"""Both blackjack tables (a bet behind and a pair bet name the seat)."""
BaccaratBetType = Literal["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small"]
"""Side bets (lucky-6, big, small) only where the table offers them."""
PokDengBetType = Literal["player-1", "player-2", "player-3", "player-4", "player-5",
                         "player-1-pair", "player-2-pair", "player-3-pair", "player-4-pair", "player-5-pair"]
BetType = (Annotated[BlackjackBetType, Field(title="a blackjack bet type")]
           | Annotated[BaccaratBetType, Field(title="a baccarat bet type")]
           | Annotated[PokDengBetType, Field(title="a pok deng bet type")])
"""Every game's bet types (the engines' own lists: a unit test keeps them the same); the table's
game decides which of them it takes (another game's type is refused as ``unknown-bet-type``)."""


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableWallet(_In):
    """Where the table's players' money is: Croupier's own wallets, or an operator's seamless wallet."""
    mode: Literal["internal", "seamless"]
    operator: StrictStr | None = Field(default=None, min_length=2, max_length=40, pattern=r"^[a-z0-9][a-z0-9-]+$",
                                       description="seamless: the operator whose wallet is called")


class CreateTable(_In):
    game: Game
    reader_id: StrictStr = Id
    table_id: StrictStr | None = Field(default=None, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")
    name: StrictStr | None = Field(default=None, max_length=80)
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of the game's default table rules (nested objects merge; a Baccarat side bet "
                    "given null is not offered)")
    wallet: TableWallet | None = Field(default=None, description="internal (the default) or seamless")


class ConfigureTable(_In):
    rules: dict[str, Any] | None = None
    reader_id: Annotated[StrictStr, Id] | None = None
    wallet: TableWallet | None = None


class BetIn(_In):
    type: BetType = Field(description="the bet's type: the table's game says which it takes")
    amount: StrictInt = Field(gt=0, le=MAX_AMOUNT, description="minor units")
    seat: StrictInt | None = Field(default=None, ge=1, le=7)
    mode: Literal["commission", "no-commission"] | None = None


class PlaceBets(_In):
    bets: list[BetIn] = Field(min_length=1, max_length=20)


class Decision(_In):
    seat: StrictInt = Field(ge=1, le=7)
    action: Literal["hit", "stand", "double", "split", "surrender", "insurance", "follow-double", "follow-split"]
    behind: StrictBool = Field(default=False, description="the answer is for your bet behind this seat")
    hand: StrictInt | None = Field(default=None, ge=0, le=1, description="which hand of a split seat: 0 or 1")
    preselect: StrictBool = Field(default=False, description="store it for the start of your turn")


class Money(_In):
    amount: StrictInt = Field(gt=0, le=MAX_AMOUNT, description="minor units")
    reference: StrictStr | None = Field(default=None, max_length=128)


class Control(_In):
    reason: StrictStr = Field(default="supervisor decision", min_length=1, max_length=200)
    card: Literal["round", "discarded", "returned"] | None = Field(
        default=None, description="resume only: what became of the card that paused the round — it belongs "
                                  "to the round, the dealer set it aside, or put it back in the shoe")


class NewShoe(_In):
    shoe_id: StrictStr | None = Field(default=None, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")
