"""AWS's list prices the cost figures use, from ``aws_prices.json`` beside this module: each price
with where it is published and the date it was read (the file's ``read``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

PRICES_FILE = Path(__file__).with_name("aws_prices.json")


@cache
def document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PRICES_FILE.read_text())
    return data


def unit_price(name: str) -> float:
    """The price of one unit (one request, one GB-second...) of ``name`` in USD."""
    price = document()["prices"][name]
    return float(price["usd"]) / float(price["per"])


def read_on() -> str:
    """When the prices were read (ISO date) and where: for a report's footnote."""
    data = document()
    return f"{data['region']} on-demand list prices read {data['read']} (layers/shared/croupier/local/aws_prices.json)"
