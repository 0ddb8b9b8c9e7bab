"""The ``roads`` section of ``make bench``: the roads of whole shoes (``croupier.roads``).

Shoes are dealt by the engines before timing (eight decks, a cut card 14 to 26 cards from the end;
about 80 Baccarat rounds a shoe, and Pok Deng rounds until fewer than 40 cards are left)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from bench import Figure, Options, median_seconds, prepare_heap

from croupier.cards import ALL_CARDS, BURN_VALUE, DECKS
from croupier.games.baccarat import BaccaratRound
from croupier.games.pokdeng import PokDengRound
from croupier.roads import BaccaratResult, BaccaratRoads, PokDengResult, PokDengRoads, baccarat_result, pokdeng_result
from croupier.rules import BaccaratRules, PokDengRules

SEED = 20240611


def baccarat_shoe(rng: random.Random, rules: BaccaratRules) -> list[BaccaratResult]:
    cards = list(ALL_CARDS) * DECKS
    rng.shuffle(cards)
    cut = len(cards) - rng.randint(14, 26)
    position = 1 + BURN_VALUE[cards[0][0]]
    results = []
    while True:
        last = position >= cut
        engine = BaccaratRound(rules, ())
        while engine.expected.kind == "card":
            engine.deal(cards[position])
            position += 1
            last = last or position > cut
        results.append(baccarat_result(engine.settle().hands))
        if last:
            return results


def pokdeng_shoe(rng: random.Random, rules: PokDengRules) -> list[dict[str, object]]:
    cards = list(ALL_CARDS) * DECKS
    rng.shuffle(cards)
    position = 1 + BURN_VALUE[cards[0][0]]
    hands = []
    while len(cards) - position >= 40:
        position += 1  # the round's burn card
        engine = PokDengRound(rules, ())
        for card in cards[position:position + 12]:
            engine.deal(card)
        position += 12
        hands.append(engine.settle().hands)
    return hands


def roads(opts: Options) -> Iterator[Figure]:
    rng = random.Random(SEED)
    count = 10 if opts.quick else 40
    if opts.wants("roads.baccarat-add") or opts.wants("roads.baccarat-json"):
        rules = BaccaratRules()
        shoes = [baccarat_shoe(rng, rules) for _ in range(count)]
        rounds = sum(len(s) for s in shoes)
        per_shoe = rounds / count
        built = [BaccaratRoads.of(s) for s in shoes]
        prepare_heap()
        if opts.wants("roads.baccarat-add"):
            seconds = median_seconds(lambda: [BaccaratRoads.of(s) for s in shoes], opts.runs)
            yield Figure("roads.baccarat-add", "Baccarat roads, one round added", seconds / rounds * 1e6, "µs",
                         higher_is_better=False,
                         note=f"{count} dealt shoes of {per_shoe:.0f} rounds, built round by round with add(): "
                              f"{seconds / count * 1e3:.2f} ms a whole shoe")
        if opts.wants("roads.baccarat-json"):
            seconds = median_seconds(lambda: [json.dumps(r.to_dict()) for r in built], opts.runs)
            size = sum(len(json.dumps(r.to_dict())) for r in built) / count
            yield Figure("roads.baccarat-json", "Baccarat roads of a whole shoe, to_dict() and JSON",
                         seconds / count * 1e6, "µs", higher_is_better=False,
                         note=f"{per_shoe:.0f} rounds; {size / 1024:.0f} KiB of JSON a shoe")
    if opts.wants("roads.pok-deng"):
        rules_pd = PokDengRules()
        hands = [pokdeng_shoe(rng, rules_pd) for _ in range(count)]
        rounds_pd = sum(len(h) for h in hands)

        def build() -> None:
            for shoe in hands:
                roadmap = PokDengRoads()
                for entry in shoe:
                    result: PokDengResult = pokdeng_result(entry, rules_pd)
                    roadmap = roadmap.add(result)
                json.dumps(roadmap.to_dict())

        prepare_heap()
        seconds = median_seconds(build, opts.runs)
        yield Figure("roads.pok-deng", "Pok Deng roadmap, one round read and added", seconds / rounds_pd * 1e6, "µs",
                     higher_is_better=False,
                     note=f"{count} shoes of {rounds_pd / count:.0f} rounds, pokdeng_result() and add(), "
                          "then the whole shoe's to_dict() and JSON")
