"""``croupier cost``'s arithmetic and its command line: a round's bill priced from the
repository's price list, the line through two measurements, and bad input refused."""

from __future__ import annotations

import dataclasses

import pytest

from croupier import cli
from croupier.local import cost
from croupier.local.prices import unit_price


def bill(viewers: int, websocket: int, gb_seconds: float = 1.0) -> cost.RoundBill:
    return cost.RoundBill(game="baccarat", viewers=viewers, bets=7, cards=5, status="settled", transitions=10,
                          invocations=50, invocations_by_function={"BetsFunction": 3}, lambda_gb_seconds=gb_seconds,
                          write_units=200, write_units_by_item={"ROUND/META": 120, "WALLET/LEDGER": 80},
                          read_units=150.5, ddb_requests=100, sqs_standard=60, sqs_fifo=40,
                          events=30, rest_requests=5, websocket_messages=websocket)


def test_a_round_is_priced_service_by_service_at_the_list_prices() -> None:
    usd = bill(1, 40).usd()
    assert set(usd) == set(cost.SERVICES)
    assert usd["Step Functions"] == pytest.approx(10 * 0.025 / 1000)
    request, gb_second = unit_price("lambda_request"), unit_price("lambda_gb_second_arm64")
    assert usd["Lambda"] == pytest.approx(50 * request + 1.0 * gb_second)
    assert usd["DynamoDB"] == pytest.approx(200 * 0.625e-6 + 150.5 * 0.125e-6)
    assert usd["SQS"] == pytest.approx(60 * 0.40e-6 + 40 * 0.50e-6)
    assert usd["EventBridge"] == pytest.approx(30e-6)
    assert usd["API Gateway REST"] == pytest.approx(5 * 3.5e-6)
    assert usd["API Gateway WebSocket"] == pytest.approx(40e-6)


def test_viewers_beyond_the_measured_ones_follow_the_line_through_both() -> None:
    low, high = bill(1, 40, 1.0), bill(101, 1040, 3.0)  # each viewer adds 10 messages and 0.02 GB-s
    at = {v: cost.per_thousand(low, high, v) for v in (1, 101, 10_001)}
    assert sum(at[1].values()) == pytest.approx(1000 * sum(low.usd().values()))
    assert sum(at[101].values()) == pytest.approx(1000 * sum(high.usd().values()))
    assert at[10_001]["API Gateway WebSocket"] == pytest.approx(1000 * (40 + 10 * 10_000) * 1e-6)
    request, gb_second = unit_price("lambda_request"), unit_price("lambda_gb_second_arm64")
    assert at[10_001]["Lambda"] == pytest.approx(1000 * (50 * request + (1.0 + 0.02 * 10_000) * gb_second))
    assert at[10_001]["Step Functions"] == at[1]["Step Functions"]  # the workflow does not see viewers


def test_a_service_never_costs_less_than_nothing() -> None:
    low, high = bill(1, 40), dataclasses.replace(bill(100, 40), write_units=100)  # fewer writes: noise
    assert cost.per_thousand(low, high, 10_000)["DynamoDB"] == 0.0


def test_the_report_gives_each_viewer_count_and_shares_that_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    summary = cost.report([bill(1, 40), bill(100, 1030)], out=print)
    printed = capsys.readouterr().out
    assert "10,000 viewers" in printed and "read 20" in printed and "ROUND/META 120" in printed
    at = summary["per_1000_rounds_usd"]["baccarat"]
    assert set(at) == {"1", "100", "10000"}
    assert sum(at["100"].values()) == pytest.approx(1000 * sum(bill(100, 1030).usd().values()))


@pytest.mark.parametrize(("argv", "said"), [
    (["cost", "--viewers", "1"], "viewers are a whole number from 2 to 1000"),
    (["cost", "--viewers", "1001"], "viewers are a whole number from 2 to 1000"),
    (["cost", "--viewers", "ten"], "viewers are a whole number from 2 to 1000"),
    (["cost", "--games", "poker"], "invalid choice: 'poker'"),
])
def test_bad_arguments_are_refused_before_anything_runs(argv: list[str], said: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_the_workflow_costs_the_same_whatever_the_viewers() -> None:
    # the two plays' first card wait differed (timing): three transitions more in the second
    low, high = bill(1, 40), dataclasses.replace(bill(100, 1030), transitions=13)
    at = {v: cost.per_thousand(low, high, v)["Step Functions"] for v in (1, 100, 10_000)}
    assert at[1] == at[100] == at[10_000] == pytest.approx(1000 * 11.5 * 0.025 / 1000)
