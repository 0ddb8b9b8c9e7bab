"""What must hold in a simulated world, checked after every step (:class:`Invariants`).

After every step:
- **the ledger**: every wallet's balance is the last ledger entry's ``balance_after``, each entry
  follows the one before it (``balance_before`` is the previous ``balance_after``, the amount is
  the difference) and no entry is missing (entries are numbered by the wallet's version);
- **closed once**: a bet settled or refunded never changes again, a finished round never changes
  status again, and no bet is credited (a payout or a refund) twice;
- **hidden cards**: no line the functions wrote, no error a caller was answered and no message
  posted to a screen (a player's, the supervisor's) names a card face down at its table (the
  Deluxe hole card until the round turns it over; a Pok Deng round's cards while it takes bets),
  and no player's view of the round shows one (checked as each card is dealt); but not in a round
  the application has placed a card of after one the reader numbered again that had not come yet
  (``Invariants.shifted``): it could not know, every card after went one hand on, and the round is
  voided once that card comes (``shifted``).

When a round finishes:
- every bet of it is closed, refunded if the round was voided and settled if not;
- each bet was debited its stake and credited once: what its result says it paid (a bet on the
  operator's seamless wallet: its accepted debits sum to its stake, it has exactly one credit
  call, of what it paid, and no debit of the round is left accepted without its bet or voided
  without its cancel);
- the hands hold exactly the cards the dealer dealt them, in order (a voided round: the cards it
  took are the first ones dealt), and no stray scan is among them, nor a ninth copy of a card, nor
  a card the reader numbered with a number it had used before (refused: a round dealt one is
  voided, never settled; but a card numbered again that reaches the application after the round's
  last card leaves no gap to wait at: the round settles without it, and the card must be refused
  when it comes, for the operators to review the round: ``refused-late``);
- its table's shoe counts no card more times than the dealer drew it from that shoe (a card of an
  earlier shoe, or one scan counted twice, would: a real copy is refused later);
- it played the rules its table held when it was opened (read from the table's write that opened
  it), field by field, and those are rules the operator gave the table (the game's defaults with
  its overrides, or house rules: :mod:`croupier.sim.house`, as created or configured since);
- a settled round pays what the dealer's own engine, fed the physical cards, says it pays;
- it finished within the bound its timers give after its betting closed (longer by the time a
  function was out: ``outage``).

At the end of the run:
- every round opened is finished, every workflow execution ended well, nothing is left in the
  devices' queue, every push message SQS did not take was sent again, every screen was shown each
  round it watched whole (:mod:`croupier.sim.screens`), every event a reader sent
  is in its table's log (none waits behind a missing one); each table's shoe counts no card more
  times than it was drawn;
- money is conserved to the unit: the wallets hold what was deposited, less the stakes, plus the
  credits; the house's result is the stakes less the payouts of the closed bets;
- the operator's seamless wallet: no call to it is left unsent, each call holds there what
  Croupier recorded of it (an accepted debit applied, a voided one cancelled, an acknowledged
  credit applied, the same amounts), it holds no transaction Croupier never made, and each
  player's balance there is their opening balance less their stakes plus their credits;
- the audit (``croupier.app.audit``) finds nothing wrong, the operator's record included.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..app import keys, reconcile, store
from ..app.config import settings
from ..app.records import (
    FINISHED,
    REVEALED,
    TAKING_BETS,
    BetRecord,
    BetStatus,
    LedgerEntry,
    LogState,
    RoundRecord,
    RoundStatus,
    WalletBalance,
    bet_from_item,
)
from ..betting import BLACKJACK_GAMES
from ..games import new_round
from ..games.base import Settle
from ..rules import load_rules
from .dynamo import plain, same
from .operator import OPERATOR
from .screens import ScreensShown
from .world import INJECTED_ERRORS

if TYPE_CHECKING:
    from .world import World

CLOSED = (BetStatus.SETTLED, BetStatus.REFUNDED)
CREDIT_KINDS = ("settle", "refund")
SLACK_SECONDS = 300
"""How long past its timers a round may take to finish: the retries of its workflow's tasks."""
INTERNAL_ERROR = "internal error"
"""How a pause (or a void) by the workflow's Fault state begins (``croupier.app.steps.fault``)."""


class Invariants:
    def __init__(self, world: World) -> None:
        self.world = world
        self.checked: Counter[str] = Counter()
        self.versions: dict[str, int] = {}
        self.balances: dict[str, int] = {}
        self.deposited = 0
        self.debits: Counter[str] = Counter()
        """Per bet: what its wallet was debited for it."""
        self.credits: dict[str, list[int]] = {}
        """Per bet: each credit of its wallet for it (one, once it is closed)."""
        self.rounds_checked: set[str] = set()
        self.rounded_down = 0
        """The settled bets whose exact payout fell between minor units (the player paid it rounded down)."""
        self.opened_on: dict[str, Any] = {}
        """The rules (typed) each table held in the write that opened each of its rounds not yet checked."""
        self.calls_seen: set[str] = set()
        self.round_calls: dict[str, list[dict[str, Any]]] = {}
        """Per round: the keys of its calls to the operator's wallet, as they were made (the index
        of a round's calls may lag: the checks read the table itself)."""
        self.refused_later: list[tuple[str, str, str]] = []
        """(table, scan id, round) of the cards a round settled without, numbered again by the reader,
        that had not reached the application yet: each must be refused once it does."""
        self._hole: dict[str, tuple[int, bool]] = {}
        """Per round: the version last looked at, and whether its hole card was face down then."""
        self._secret: tuple[int, tuple[dict[str, tuple[str, frozenset[str]]], set[str]]] = (-1, ({}, set()))
        """The step whose cards face down were looked at last, and what they were."""
        self.screens = ScreensShown()
        """What each screen was shown of each round (checked at the end: :mod:`croupier.sim.screens`)."""

    # --- helpers ---------------------------------------------------------------------------------

    def violation(self, invariant: str, detail: str, round_id: str | None = None) -> None:
        from .world import Violation

        world = self.world
        world.violations.append(Violation(world.steps_run, world.clock.monotonic(), invariant, detail, round_id))
        world.note(f"  VIOLATION {invariant}: {detail}")

    def deposit(self, player: str, amount: int) -> None:
        """Fund a player's wallet (outside any invocation: the operator's deposit)."""
        store.move_money(player, [(f"deposit:{player}", amount, {})], kind="deposit")
        self.deposited += amount

    def bets_answered(self, player: str, answer: dict[str, Any]) -> None:
        self.checked["answers"] += 1
        for bet in answer.get("bets", []):
            if bet.get("player", player) != player:
                self.violation("own-bets", f"{player} was answered another player's bet {bet}")

    def round_bets(self, round_id: str) -> list[dict[str, Any]]:
        world = self.world
        rnd = world.dynamo.peek(settings().game_table, keys.round_key(round_id)) or {}
        shards = int(rnd.get("shards", settings().bet_shards))
        return [store.plain(item) for shard in range(shards)
                for item in world.dynamo.partition(settings().game_table, keys.shard_pk(round_id, shard))
                if keys.kind_of(item) == "bet"]

    # --- after every step ------------------------------------------------------------------------

    def after_step(self, what: str) -> None:
        self._ledgers()
        self._records()
        self._said()

    def _ledgers(self) -> None:
        world, wallets = self.world, settings().wallet_table
        changed = [key for name, key in world.dynamo.take_changes() if name == wallets]
        self._calls_made([key for key in changed if keys.kind_of(key) == "call"])
        touched = {keys.player_of(str(key["pk"])) for key in changed if keys.kind_of(key) != "call"}
        for player in sorted(touched):
            self.checked["ledger"] += 1
            item = world.dynamo.peek(wallets, keys.wallet_key(player))
            if item is None:
                self.violation("ledger", f"{player}'s wallet is gone")
                continue
            wallet = WalletBalance.from_item(item)
            version, balance = wallet.version, wallet.balance
            running = self.balances.get(player, 0)
            for seq in range(self.versions.get(player, 0) + 1, version + 1):
                stored = world.dynamo.peek(wallets, keys.ledger_key(player, seq))
                if stored is None:
                    self.violation("ledger", f"{player}'s ledger entry #{seq} is missing (wallet version {version})")
                    continue
                entry = LedgerEntry.from_item(stored)
                amount, before, after = entry.amount, entry.balance_before, entry.balance_after
                if before != running or after != before + amount:
                    self.violation("ledger", f"{player}'s ledger entry #{seq} does not follow: {before} + {amount} "
                                             f"= {after}, the balance before it was {running}")
                running = after
                self._money_moved(entry)
            if running != balance:
                self.violation("ledger", f"{player}'s balance is {balance}; its ledger entries add up to {running}")
            self.versions[player], self.balances[player] = version, balance

    def _calls_made(self, changed: list[dict[str, Any]]) -> None:
        """Note each new call to the operator's wallet under its round (:attr:`round_calls`)."""
        for key in changed:
            if key["pk"] not in self.calls_seen:
                self.calls_seen.add(key["pk"])
                call = self.world.dynamo.peek(settings().wallet_table, key) or {}
                self.round_calls.setdefault(str(call.get("round_id")), []).append(key)

    def _money_moved(self, entry: LedgerEntry) -> None:
        bet_id = entry.details.get("bet_id")
        if not bet_id:
            return
        if entry.kind in CREDIT_KINDS:
            credits = self.credits.setdefault(str(bet_id), [])
            credits.append(entry.amount)
            self.checked["credits"] += 1
            if len(credits) > 1:
                self.violation("closed-once", f"bet {bet_id} credited {len(credits)} times: {credits}",
                               str(entry.details.get("round_id")))
        else:
            self.debits[str(bet_id)] -= entry.amount

    def _records(self) -> None:
        """The game table's changes since the last step, read in their typed form (an image is
        made Python only for a round that just finished)."""
        world = self.world
        for record in world.game_records():
            body = record["dynamodb"]
            typed, old, new = body["Keys"], body.get("OldImage") or {}, body.get("NewImage") or {}
            key = {"pk": typed["pk"].get("S", ""), "sk": typed["sk"].get("S", "")}
            kind = keys.kind_of(key)
            old_status = (old.get("status") or {}).get("S")
            new_status = (new.get("status") or {}).get("S")
            if kind == "bet" and old_status in CLOSED:
                self.checked["closed-once"] += 1
                if new_status != old_status or not same_value(new.get("result"), old.get("result")):
                    self.violation("closed-once", f"bet {keys.bet_of(key['sk'])} was {old_status} and changed "
                                                  f"again: now {new_status}", keys.round_of(key["pk"]))
            elif kind == "table":
                opened = (new.get("round_id") or {}).get("S")
                if opened and opened != (old.get("round_id") or {}).get("S"):  # the table's write that opened it
                    self.opened_on[opened] = new.get("rules") or {"M": {}}
            elif kind == "round":
                if old_status in FINISHED and new_status != old_status:
                    round_id = keys.round_of(key["pk"])
                    self.violation("closed-once", f"round {round_id} was {old_status} and became {new_status}",
                                   round_id)
                if new_status in FINISHED and old_status not in FINISHED:
                    self.round_finished(store.plain(plain(new)))

    def _said(self) -> None:
        """No line the functions wrote and no error a caller was answered in the step names a card
        while it is face down at its table (a code also face up in a round being played is not told
        apart, and is not looked for: such lines name no round)."""
        said = self.world.output.take()
        if not said:
            return
        by_table, face_up = self._secrets()
        codes = {code: rid for rid, down in by_table.values() for code in down if code not in face_up}
        if not codes:
            return
        for text in said:
            self.checked["hidden-said"] += 1
            found = _named(codes, text)
            if found:
                self.violation("hidden", f"a line written or answered while {found} was face down in round "
                                         f"{codes[found]} names it: {_as_said(text)}", codes[found])

    def pushed(self, connection_id: str, text: str) -> None:
        """No screen (a player's, the supervisor's) is posted a card of a round while it is face
        down at the table: each event of the message about that round (a device log's entry: of a
        scan the dealer dealt to it), or about its table and no round, is looked at."""
        message = _parsed(text)
        self.screens.posted(connection_id, message)
        by_table = self._secrets()[0]
        if not by_table:
            return
        self.checked["hidden-pushed"] += 1
        for event in message.get("events", [message]) if isinstance(message, dict) else []:
            secret = by_table.get(str(event.get("table_id")))
            if secret is None:
                continue
            entry = event.get("entry") if isinstance(event.get("entry"), dict) else {}
            if entry.get("scan_id"):  # a device log's entry: the card of the scan, whichever round it names
                if self.world.scans.get(str(entry["scan_id"])) != secret[0]:
                    continue
            elif event.get("round_id") not in (None, secret[0]):
                continue
            found = _named({code: secret[0] for code in secret[1]}, json.dumps(event))
            if found:
                who = self.world.connections.get(connection_id)
                self.violation("hidden", f"{getattr(who, 'role', '?')} {getattr(who, 'subject', connection_id)}'s "
                                         f"screen was posted {found}, face down in round {secret[0]}: "
                                         f"{_as_said(json.dumps(event, sort_keys=True))}", secret[0])

    def _secrets(self) -> tuple[dict[str, tuple[str, frozenset[str]]], set[str]]:
        """The cards face down at each table now, by table (with their round), and the codes face up
        in the rounds being played (a code also face up in its own round is not looked for): a
        Deluxe hole card while its round's engine still hides it (the dealer turns it over as its
        turn comes), a Pok Deng round's cards while it takes bets."""
        if self._secret[0] == self.world.steps_run:  # one look per step: a step's posts share it
            return self._secret[1]
        by_table: dict[str, tuple[str, frozenset[str]]] = {}
        face_up: set[str] = set()
        for table in self.world.tables.values():
            physical = table.physical
            if physical is None or not physical.cards:
                continue
            key = keys.round_key(physical.round_id)
            status = (self.world.dynamo.peek(settings().game_table, key, only=("status",)) or {}).get("status")
            if status in REVEALED or self.shifted(table, physical):
                continue
            down: list[str] = []
            if table.game == "pok-deng":
                down = list(physical.cards) if status in TAKING_BETS else []
            elif physical.face_down and self._hole_hidden(physical.round_id):
                down = list(physical.face_down)
            up = list(physical.cards)
            for code in down:
                up.remove(code)
            face_up.update(up)
            if set(down) - set(up):
                by_table[table.table_id] = (physical.round_id, frozenset(set(down) - set(up)))
        self._secret = (self.world.steps_run, (by_table, face_up))
        return by_table, face_up

    def _hole_hidden(self, round_id: str) -> bool:
        """Whether the round's own engine (rebuilt from the round as stored) still shows the
        dealer's face down card as ``??``: once per version of the round."""
        from ..app.engine import rebuild

        key = keys.round_key(round_id)
        version = int((self.world.dynamo.peek(settings().game_table, key, only=("version",)) or {}).get("version", 0))
        if self._hole.get(round_id, (None, False))[0] != version:
            rnd = self.world.dynamo.peek(settings().game_table, key) or {}
            engine = rebuild(RoundRecord.from_item(store.plain(rnd)))
            self._hole[round_id] = (version, "??" in engine.view()["dealer"]["cards"])
        return self._hole[round_id][1]

    def hidden(self, table: Any, physical: Any, rnd: dict[str, Any]) -> None:
        """A card dealt face down is in no player's view of the round while it is face down at the
        table: the dealer's hand in the view shows at most what the table shows (the dealer's own
        engine says which cards a player may see). One player's view per card dealt, in turn."""
        from ..app import queries
        from ..app.identity import Identity

        if rnd.get("status") in REVEALED:
            return
        if self.shifted(table, physical):  # the application cannot know (shifted)
            self.checked["shifted"] += 1
            return
        player = table.players[len(physical.cards) % len(table.players)]
        view = queries.round_view(physical.round_id, Identity(player, "player"))
        if str(rnd["game"]) == "pok-deng":  # every card face down until betting closed
            if rnd.get("status") in TAKING_BETS:
                self.checked["hidden"] += 1
                if view.get("hands"):
                    self.violation("hidden", f"{player}'s view of round {physical.round_id} shows its hands while "
                                             f"betting is open: {view['hands']}", physical.round_id)
            return
        table_shows = [c for c in physical.engine.view()["dealer"]["cards"] if c != "??"]
        shown = [c for c in ((view.get("hands") or {}).get("dealer") or {}).get("cards", []) if c != "??"]
        self.checked["hidden"] += 1
        if shown != table_shows[:len(shown)]:
            self.violation("hidden", f"{player}'s view of round {physical.round_id} shows the dealer's cards {shown} "
                                     f"while the table shows {table_shows}", physical.round_id)

    # --- when a round finishes ---------------------------------------------------------------

    def round_finished(self, rnd: dict[str, Any]) -> None:
        world, round_id = self.world, str(rnd["round_id"])
        if round_id in self.rounds_checked:
            return
        self.rounds_checked.add(round_id)
        world.rounds_finished[str(rnd["status"])] += 1
        if rnd["status"] == RoundStatus.VOIDED:  # why: the supervisor, or a pause (its code) left too long
            why = str(rnd.get("void_reason") or "?")
            world.voided_why[why if why != "paused too long" else f"paused too long ({rnd.get('pause_code')})"] += 1
        self.checked["rounds"] += 1
        voided = rnd["status"] == RoundStatus.VOIDED
        bets = self.round_bets(round_id)
        physical = world.physical.get(round_id)
        cards = [str(e["card"]) for e in rnd.get("events", []) if "card" in e]
        self.shoe_counted(str(rnd["table_id"]), round_id)
        self._rules_played(rnd)
        if physical is not None:
            # a card the application must refuse (a ninth copy, a number the reader used before) is
            # in a hand at the table, never in the round's: it is refused, and the round, paused so,
            # is voided (the supervisor's, or its timer's)
            dealt = [card for i, card in enumerate(physical.cards) if i not in physical.refused]
            if physical.refused:
                self.checked["refused"] += 1
                if not voided and self._refused_in_time(rnd, physical):
                    self.violation("cards", f"round {round_id} was settled with a card it had to refuse, "
                                            f"{physical.cards[physical.refused[0]]}, in a hand", round_id)
            if (cards != dealt[:len(cards)]) if voided else (cards != dealt):
                self.violation("hands", f"round {round_id}'s hands hold {cards}; the dealer dealt {dealt} "
                                        f"(stray scans {physical.stray})", round_id)
            # every wait of the workflow ends within pause_void (a card's, a pause's; decisions and
            # windows sooner): a card wait then a pause, again after each resume, then the retries
            resumes = sum(1 for event in rnd.get("history") or [] if event.get("resume"))
            rules = store.round_rules(RoundRecord.from_item(rnd))
            pause_void = int(rules.get("timers", {}).get("pause_void", 600))
            # and the time a function was out: nothing of the round can run then
            out = world.out_between(physical.closes_at, world.clock.monotonic())
            bound = physical.closes_at + (resumes + 1) * 2 * pause_void + SLACK_SECONDS + out
            if world.clock.monotonic() > bound:
                late = world.clock.monotonic() - physical.closes_at
                self.violation("liveness", f"round {round_id} finished {late:.0f} s "
                                           "after its betting closed, beyond its timers' bound", round_id)
        self._internal_errors(rnd)
        # a finished round holds no spent task token but, at most, its last wake's (a retried
        # request's): the workflow's countdown and its wait are over
        self.checked["tokens"] += 1
        spent = sorted(name for name in ("countdown_token", "wait_token") if rnd.get(name))
        if spent:
            self.violation("tokens", f"round {round_id} finished {rnd['status']} holding {', '.join(spent)}", round_id)
        if any(bet.get("operator") for bet in bets):
            calls = [store.plain(world.dynamo.peek(settings().wallet_table, key) or {})
                     for key in self.round_calls.get(round_id, [])]
            self._calls_agree(round_id, reconcile.check([BetRecord.from_item(bet) for bet in bets], calls))
        expected: dict[str, int] = {}
        if not voided and physical is not None:
            if physical.stopped:
                self.violation("settlement", f"round {round_id} was settled; its dealer had stopped "
                                             f"({physical.stopped})", round_id)
            elif physical.cards == cards:  # other cards are reported above: their payouts say no more
                expected = self._expected_payouts(rnd, bets)
        for bet in bets:
            self.checked["bets"] += 1
            bet_id, status = str(bet["bet_id"]), bet.get("status")
            wanted = BetStatus.REFUNDED if voided or self._not_dealt(rnd, bet, physical) else BetStatus.SETTLED
            if status != wanted:
                self.violation("closed-once", f"bet {bet_id} ({bet['type']}) is {status} in a {rnd['status']} round",
                               round_id)
                continue
            result = bet.get("result") or {}
            taken, paid = int(bet.get("taken", bet["amount"])), int(result.get("paid", -1))
            self.rounded_down += status == BetStatus.SETTLED and "/" in str(result.get("exact_net", ""))
            if status == BetStatus.REFUNDED and paid != taken:
                self.violation("money", f"bet {bet_id} refunded {paid} of its {taken}", round_id)
            credits = self.credits.get(bet_id, [])
            if bet.get("operator"):
                pass  # its debits and its one credit are the operator's calls, reconciled above
            elif self.debits[bet_id] != taken:
                self.violation("money", f"bet {bet_id} took {taken}; its wallet was debited {self.debits[bet_id]}",
                               round_id)
            if not bet.get("operator") and credits != [paid]:
                self.violation("money", f"bet {bet_id} paid {paid}; its wallet was credited {credits}", round_id)
            if bet_id in expected and expected[bet_id] != paid:
                self.violation("settlement", f"bet {bet_id} ({bet['type']} {bet['amount']}) paid {paid}; the cards "
                                             f"dealt pay {expected[bet_id]}", round_id)

    def shoe_counted(self, table_id: str, round_id: str | None = None) -> None:
        """The table's shoe, as the application counts it, against the dealer's physical shoe of
        the same id: no card counted more times than it was drawn."""
        physical = self.world.tables[table_id].shoe
        shown = (self.world.dynamo.peek(settings().game_table, keys.table_key(table_id)) or {}).get("shoe") or {}
        if physical is None or shown.get("shoe_id") != physical.shoe_id:
            return  # the dealer's new shoe is not shown yet: the old one is gone from the table
        self.checked["shoe"] += 1
        counts = {card: int(n) for card, n in (shown.get("counts") or {}).items()}
        over = {card: (n, physical.drawn[card]) for card, n in sorted(counts.items()) if n > physical.drawn[card]}
        if over:
            said = ", ".join(f"{card} {n} times (drawn {drawn} times)" for card, (n, drawn) in over.items())
            self.violation("shoe", f"table {table_id}'s shoe {physical.shoe_id} counts {said}", round_id)

    def _internal_errors(self, rnd: dict[str, Any]) -> None:
        """A round is paused (or voided, while it takes bets) by an internal error only when a
        task's retries ran out on the faults a world injects (a function that died, timed out, was
        throttled or out, an answer lost, a store call refused): any other error is a function
        failing by itself, whenever it runs."""
        errors = [str(event["pause"]) for event in rnd.get("history") or []
                  if str(event.get("pause", "")).startswith(INTERNAL_ERROR)]
        if str(rnd.get("void_reason") or "").startswith(INTERNAL_ERROR):
            errors.append(str(rnd["void_reason"]))
        for why in errors:
            self.checked["internal-errors"] += 1
            error = why.removeprefix(INTERNAL_ERROR).lstrip(": ").split(":")[0]
            if error not in INJECTED_ERRORS:
                self.violation("internal-errors", f"round {rnd['round_id']} was stopped by an {why[:300]!r}: "
                                                  "no fault of the world raises it", str(rnd["round_id"]))

    def shifted(self, table: Any, physical: Any) -> bool:
        """Whether the application has placed a card of the round the dealer dealt after one the
        reader numbered again (``seq-reuse``) before that one came: the reader's numbers leave no
        gap for it, so every card after it went one hand on (the application refuses it when it
        comes, and its round is paused and voided). Until then the hands the application shows
        are not the table's: a card face down at the table can show face up in another hand."""
        if not any(again for _, again in physical.scans):
            return False
        placed: list[tuple[bool, int | None]] = []  # each card in the order dealt: (numbered again, its log position)
        for scan_id, again in physical.scans:
            marker = self.world.dynamo.peek(settings().game_table, keys.once_key(table.table_id, scan_id), only=("n",))
            placed.append((again, int(marker["n"]) if marker and marker.get("n") else None))
        for i, (again, at) in enumerate(placed):
            if again and any(later is not None and (at is None or later < at) for _, later in placed[i + 1:]):
                return True
        return False

    def _refused_in_time(self, rnd: dict[str, Any], physical: Any) -> bool:
        """Whether a card of the round the application had to refuse reached it while the round
        still took cards. One numbered again by the reader (``seq-reuse``) that came after the
        round's last card (a late delivery) leaves no gap in the reader's order: nothing could wait
        for it, and the round settled without it. It must then be refused, kept and told
        (``refused-late``), for the operators to review the round: a fault of the device that
        the application can only report."""
        table_id, round_id = str(rnd["table_id"]), str(rnd["round_id"])
        log = self.world.dynamo.partition(settings().game_table, keys.log_pk(table_id))
        # the log takes entries in its order: one recorded after the round's last card comes after it
        last = max((int(e["at"]) for e in log if e.get("round_id") == round_id), default=0)
        by_scan = {str(e.get("scan_id")): e for e in log if e.get("kind") == "card-scanned"}
        for scan_id in physical.refused_scans:
            entry = by_scan.get(scan_id)
            if entry is None:  # on its way still: after the round's last card, refused when it comes
                self.refused_later.append((table_id, scan_id, round_id))
            elif int(entry["at"]) <= last or entry.get("state") != LogState.REFUSED:
                return True
        self.checked["refused-late"] += 1
        return False

    @staticmethod
    def _not_dealt(rnd: dict[str, Any], bet: dict[str, Any], physical: Any) -> bool:
        """A blackjack bet on a seat the dealer did not deal (its player placed no seat bet): the
        rules refund it in full when betting closes. A round finished before the dealer's first card
        dealt no seat (no seat bet at all: its bets behind and pair bets, a player's seated nowhere)."""
        if str(rnd["game"]) not in BLACKJACK_GAMES or physical is None or bet.get("seat") is None:
            return False
        return physical.engine is None or int(bet["seat"]) not in physical.dealt

    def _calls_agree(self, round_id: str | None, found: reconcile.WalletCalls) -> None:
        """A seamless round's bets against their calls to the operator's wallet (and, at the end,
        those calls against the operator's own record): each bet's accepted debits sum to what it
        took, a closed bet has exactly one credit call, of what it paid (a refund when voided), no
        accepted debit is left without its bet and no voided one without its cancel."""
        self.checked["wallet-calls"] += found.calls
        for problem in found.problems:
            self.violation("money", f"the operator's wallet: {problem}", round_id)

    def _rules_played(self, rnd: dict[str, Any]) -> None:
        """A round plays the rules its table held when the round was opened (read from the table's
        write that opened it), and those are rules the operator gave the table (as it was created,
        or configured since): not the game's defaults, nor another table's, nor the rules the table
        held before or after. What the round's payouts are checked against is read from it."""
        round_id, game = str(rnd["round_id"]), str(rnd["game"])
        table, held = self.world.tables.get(str(rnd["table_id"])), self.opened_on.pop(round_id, None)
        if table is None:
            return
        self.checked["rules"] += 1
        if held is None:
            self.violation("rules", f"round {round_id} was opened by no write of its table", round_id)
            return
        rules_id = rnd.get("rules_id")  # the round's rules as stored (read here, not by the application's code)
        stored = ((self.world.dynamo.peek(settings().game_table, keys.rules_key(str(rules_id))) or {}).get("rules")
                  if rules_id else rnd.get("rules"))
        played = load_rules(game, store.plain(stored or {}))
        at_open = load_rules(game, store.plain(plain({"r": held})["r"]))
        if played != at_open:
            self.violation("rules", f"round {round_id} played rules other than its table held when it opened it: "
                                    f"{_differ(played, at_open)}", round_id)
        elif not any(at_open == load_rules(game, asked) for asked in table.asked):
            self.violation("rules", f"table {table.table_id} held rules no operator gave it when it opened round "
                                    f"{round_id}: {_differ(at_open, load_rules(game, table.rules))} differ from the "
                                    "last it was given", round_id)

    def _expected_payouts(self, rnd: dict[str, Any], bets: list[dict[str, Any]]) -> dict[str, int]:
        physical = self.world.physical[str(rnd["round_id"])]
        if physical.engine is not None and str(rnd["game"]) in BLACKJACK_GAMES:  # the dealer's own round
            problem = self.world.mirror(physical, rnd)  # what the console showed last, if the dealer missed it
            if problem is not None or not isinstance(physical.engine.expected, Settle):
                self.violation("settlement", problem or f"round {rnd['round_id']} was settled while its table still "
                                                        f"waited for {physical.engine.expected}", str(rnd["round_id"]))
                return {}
            return {result.id: result.paid for result in physical.engine.settle().bets}
        engine = new_round(str(rnd["game"]), [bet_from_item(b) for b in bets],
                           overrides=store.round_rules(RoundRecord.from_item(rnd)),
                           round_in_shoe=int(rnd.get("round_in_shoe", 1)), validate=False)
        for card in physical.cards:
            engine.deal(card)
        return {result.id: result.paid for result in engine.settle().bets}

    # --- at the end -------------------------------------------------------------------------------

    def stuck(self) -> None:
        self.violation("liveness", "the world still had work an hour after its last round's betting closed")

    def at_the_end(self) -> None:
        world = self.world
        self.after_step("end")
        rounds = {str(item["round_id"]) for item in world.dynamo.items(settings().game_table)
                  if keys.kind_of(item) == "round"}
        for round_id in sorted(rounds | set(world.physical)):  # opened by a press whose answer was lost too
            rnd = world.dynamo.peek(settings().game_table, keys.round_key(round_id)) or {}
            if rnd.get("status") not in FINISHED:
                self.violation("liveness", f"round {round_id} never finished: it is {rnd.get('status')}"
                                           f"{' (paused)' if rnd.get('paused') else ''}", round_id)
            elif round_id not in self.rounds_checked:
                self.round_finished(store.plain(rnd))
        for name, execution in world.workflows.executions.items():
            if execution.status != "SUCCEEDED":
                self.violation("liveness", f"the workflow of round {name} is {execution.status}"
                                           f"{': ' + str(execution.error) if execution.error else ''}", name)
        if world.queue.messages:
            self.violation("liveness", f"{len(world.queue.messages)} device events never left the queue")
        if world.screens_on and not world.live_failures:  # a change given up on is the operators' alarm
            self.checked["pushes"] += 1
            if world.unpushed:
                first = json.loads(world.unpushed[min(world.unpushed)])
                self.violation("pushes", f"{len(world.unpushed)} push messages SQS did not send were never sent "
                                         f"again, e.g. {first['id']} for {first['watched']}")
        if world.screens_on:
            self.screens.check(self)
        for table_id, scan_id, round_id in self.refused_later:
            entry = next((e for e in world.dynamo.partition(settings().game_table, keys.log_pk(table_id))
                          if e.get("scan_id") == scan_id), None)
            if entry is None or entry.get("state") != LogState.REFUSED:
                self.violation("cards", f"scan {scan_id}, dealt to round {round_id} after its last card with a number "
                                        f"its reader had used, is {entry.get('state') if entry else 'not in the log'}",
                               round_id)
        for table_id in sorted(world.tables):
            self.shoe_counted(table_id)
            # every event its reader sent is in the table's log: none waits behind one that never came
            # (a dead-lettered event is redriven by the operators)
            self.checked["reader-log"] += 1
            table = world.tables[table_id]
            head = world.dynamo.peek(settings().game_table, keys.log_head_key(table_id)) or {}
            placed = int((head.get("seqs") or {}).get(table.reader, 0))
            if placed != table.seq:
                self.violation("liveness", f"table {table_id}'s log holds its reader's events up to #{placed} of "
                                           f"{table.seq}: the others wait behind a missing one")
        # a device event dead-lettered after its receives ran out is the operators' alarm, not a loss
        # of money: its round waited for the card, paused and was voided (checked above), and the
        # operators redrove it (the reader's log, above)
        self.checked["dead-letters"] += 1
        held = sum(self.balances.values())
        stakes, credits = sum(self.debits.values()), sum(sum(c) for c in self.credits.values())
        self.checked["conservation"] += 1
        if held != self.deposited - stakes + credits:
            self.violation("money", f"the wallets hold {held}: deposited {self.deposited}, staked {stakes}, "
                                    f"credited {credits}")
        if world.seamless_tables:
            self._operator_at_the_end()
        self._audit()

    def _operator_at_the_end(self) -> None:
        """Every call to the operator's wallet was sent until it was answered (none is left to
        send), each holds at the operator what Croupier recorded of it, the operator holds none
        that Croupier never made, and each player's balance there is what they opened with, less
        their stakes, plus their credits, to the unit."""
        world = self.world
        calls = [store.plain(item) for item in world.dynamo.items(settings().wallet_table)
                 if keys.kind_of(item) == "call"]
        left = sorted(f"{c['call']} {c['transaction_id']} ({c['status']})" for c in calls
                      if c["status"] in ("pending", "sending"))
        self.checked["outbox"] += 1
        if left:
            self.violation("liveness", f"{len(left)} calls to the operator's wallet were never answered: {left[:5]}")
        bets = [BetRecord.from_item(store.plain(item)) for item in world.dynamo.items(settings().game_table)
                if keys.kind_of(item) == "bet" and item.get("operator")]
        self._calls_agree(None, reconcile.check(bets, calls, operator_report=(OPERATOR,
                                                                              world.operator.wallet.transactions())))
        moved: Counter[str] = Counter()
        for call in calls:
            if call["call"] == "debit" and call["status"] == "accepted":
                moved[str(call["player"])] -= int(call["amount"])
            elif call["call"] == "credit" and call["status"] == "acknowledged":
                moved[str(call["player"])] += int(call["amount"])
        for player, opening in sorted(world.operator.opening.items()):
            self.checked["conservation"] += 1
            held = world.operator.wallet.balance(player)
            if held != opening + moved[player]:
                self.violation("money", f"{player} holds {held} at the operator: opened with {opening}, "
                                        f"Croupier's accepted debits and acknowledged credits make it "
                                        f"{opening + moved[player]}")

    def _audit(self) -> None:
        from ..app import audit

        operator = self.world.operator.wallet
        report = audit.run_audit(operator_report=(OPERATOR, operator.transactions())
                                 if self.world.seamless_tables else None)
        self.checked["audit"] += 1
        problems = getattr(report, "problems", None)
        if problems:
            for problem in problems:
                self.violation("audit", str(problem))


MACHINE_FIELDS = frozenset({"timestamp", "cold_start", "location", "function_arn", "function_memory_size",
                            "function_request_id", "xray_trace_id", "_aws"})
"""What a log line says of the machine and the process, not of the world: left out of a report,
which the seed alone decides."""


def _named(codes: dict[str, str], text: str) -> str | None:
    """The first of ``codes`` that ``text`` names (as a word of its own), or None."""
    found = re.search(rf"(?<![A-Za-z0-9])({'|'.join(codes)})(?![A-Za-z0-9])", text)
    return found.group(1) if found else None


def _as_said(text: str) -> str:
    """A line as a report quotes it: a log line without its machine's fields, at most 300 characters."""
    try:
        line = json.loads(text)
    except ValueError:
        line = None
    if isinstance(line, dict):
        text = json.dumps({k: v for k, v in line.items() if k not in MACHINE_FIELDS}, sort_keys=True, default=str)
    return text.strip()[:300]


def same_value(a: Any, b: Any) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and same(a, b))


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Any:
    """A message posted to screens, parsed once: a push posts the same text to each of a slot's
    players (read, never changed)."""
    return json.loads(text)


def _differ(one: Any, other: Any) -> str:
    """The fields in which two rules differ."""
    return ", ".join(name for name in type(one).model_fields if getattr(one, name) != getattr(other, name)) or "-"
