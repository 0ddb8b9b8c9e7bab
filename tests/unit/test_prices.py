"""The prices file the cost figures read: every price says where it is published, in what unit,
and the file says when it was read."""

from __future__ import annotations

import datetime

from croupier.local import prices


def test_every_price_names_its_source_unit_and_amount() -> None:
    data = prices.document()
    datetime.date.fromisoformat(data["read"])
    assert data["region"] == "us-east-1" and data["currency"] == "USD"
    for name, price in data["prices"].items():
        assert price["source"].startswith("https://aws.amazon.com/"), name
        assert price["unit"] and float(price["usd"]) > 0 and float(price["per"]) >= 1, name


def test_a_unit_price_is_the_listed_price_over_its_quantity() -> None:
    assert prices.unit_price("sfn_standard_transition") == 0.025 / 1000
    assert prices.unit_price("ddb_write_request_unit") == 0.625 / 1_000_000
    assert "read 20" in prices.read_on()
