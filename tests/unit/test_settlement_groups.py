"""Which settlement tasks a round runs: groups of the shards that hold its bets (counted at the
close of betting), each of at most ``BETS_PER_TASK`` bets; and what a settlement task accepts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from croupier.app import store
from croupier.app.settlement import BETS_PER_TASK, shard_counts, shard_groups
from croupier.app.tasks import SettlementTask
from tests.support.records import a_round


def test_a_few_bets_are_one_task_over_the_shards_that_hold_them() -> None:
    ids = [f"b-{i}" for i in range(7)]
    counts = shard_counts(ids, 16)
    assert sum(counts.values()) == 7
    assert {int(k) for k in counts} == {store.shard_of(b, 16) for b in ids}
    assert shard_groups(a_round(bet_shards=counts)) == [sorted(int(k) for k in counts)]


def test_no_bet_is_no_task() -> None:
    assert shard_groups(a_round(bet_shards={})) == []


def test_groups_hold_at_most_bets_per_task_and_never_split_a_shard() -> None:
    counts = {"0": BETS_PER_TASK - 100, "1": 150, "2": 1, "3": BETS_PER_TASK + 200, "5": 0, "7": 99}
    groups = shard_groups(a_round(bet_shards=counts))
    assert groups == [[0], [1, 2], [3], [7]]  # shard 5 holds nothing: no task looks at it
    for group in groups:
        assert len(group) == 1 or sum(counts[str(s)] for s in group) <= BETS_PER_TASK


def test_ten_thousand_bets_are_one_task_per_shard() -> None:
    counts = shard_counts((f"b-{i}" for i in range(10_000)), 16)
    assert shard_groups(a_round(bet_shards=counts)) == [[s] for s in range(16)]


def test_a_round_voided_before_its_bets_were_counted_looks_at_every_shard() -> None:
    assert shard_groups(a_round(shards=4)) == [[0], [1], [2], [3]]


def test_a_settlement_task_takes_a_list_of_shards_or_one_shard() -> None:
    assert SettlementTask(op="settle-shard", round_id="r", shards=[3, 7]).shard_list() == [3, 7]
    assert SettlementTask(op="refund-shard", round_id="r", shard=4).shard_list() == [4]  # an older execution's
    for bad in ({}, {"shard": 1, "shards": [1]}, {"shards": [256]}, {"shard": -1}):
        with pytest.raises(ValidationError):
            SettlementTask(op="settle-shard", round_id="r", **bad)
    assert SettlementTask(op="finish-settlement", round_id="r").shards is None

