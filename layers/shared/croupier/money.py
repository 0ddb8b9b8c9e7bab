"""Exact money: integers in minor units, exact ratios, and the one rounding rule.

A payout ratio such as ``3:2`` or ``0.95:1`` is a :class:`fractions.Fraction`. Amounts a player
receives are computed exactly and then rounded *down* to the minor unit (``common.md``): a player
never receives a fraction. Floats never appear here.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

_RATIO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$")


def parse_ratio(text: str | int | Fraction) -> Fraction:
    """``"3:2"`` -> 3/2, ``"0.95:1"`` -> 19/20. Decimal digits are read exactly, never as floats."""
    if isinstance(text, Fraction):
        return text
    if isinstance(text, bool):
        raise ValueError("a payout ratio is written like '3:2' or '0.95:1'")
    if isinstance(text, int):
        if text < 0:
            raise ValueError("a payout ratio cannot be negative")
        return Fraction(text)
    if not isinstance(text, str):
        raise ValueError("a payout ratio is written like '3:2' or '0.95:1'")
    match = _RATIO.match(text)
    if not match:
        raise ValueError(f"payout ratio {text!r} is not of the form 'A:B' (for example '3:2' or '0.95:1')")
    num, den = Fraction(match.group(1)), Fraction(match.group(2))
    if den == 0:
        raise ValueError(f"payout ratio {text!r} divides by zero")
    return num / den


def format_ratio(ratio: Fraction) -> str:
    """19/20 -> ``"19:20"``; 11 -> ``"11:1"``."""
    return f"{ratio.numerator}:{ratio.denominator}"


Ratio = Annotated[Fraction, BeforeValidator(parse_ratio), PlainSerializer(format_ratio, return_type=str)]
"""A payout ratio field in a pydantic model: accepts ``"3:2"``, serialises back to ``"3:2"``."""


def floor_amount(amount: Fraction | int) -> int:
    """Round an exact amount down to the minor unit (towards minus infinity)."""
    if isinstance(amount, int):
        return amount
    return amount.numerator // amount.denominator


def winnings(stake: int, ratio: Fraction) -> Fraction:
    """The exact winnings of ``stake`` at ``ratio`` (without the returned stake)."""
    return stake * ratio


def fraction_text(value: Fraction) -> str:
    """Exact figure for records: ``"1501"`` or ``"3003/2"``."""
    return str(value)
