"""The cache-price rule: the paper's illustration, and what each input does to the verdict."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from total_recall.errors import PriceInputError
from total_recall.keeping.price import PAPER_ILLUSTRATION, PriceInputs, price

SPAN_FIELDS = ("span_tokens", "tokens_after", "marker_tokens")


def illustration(**changes: Any) -> PriceInputs:
    """The paper's illustration with some inputs changed, whether they describe the span or the terms."""
    span = {k: v for k, v in changes.items() if k in SPAN_FIELDS}
    terms = {k: v for k, v in changes.items() if k not in SPAN_FIELDS}
    return replace(PAPER_ILLUSTRATION, terms=replace(PAPER_ILLUSTRATION.terms, **terms), **span)


def test_a_40k_span_pays_back_after_about_40_turns_when_nothing_reaches_back() -> None:
    verdict = price(PAPER_ILLUSTRATION)
    assert verdict.payback_turns is not None
    assert 39 <= verdict.payback_turns <= 41
    assert price(illustration(turns_ahead=45)).evict
    assert not price(illustration(turns_ahead=35)).evict


def test_the_span_never_pays_back_when_more_than_about_17_percent_of_turns_reach_back() -> None:
    verdict = price(PAPER_ILLUSTRATION)
    assert verdict.break_even_probability is not None
    assert 0.16 <= verdict.break_even_probability <= 0.18
    above = price(illustration(reach_back_probability=0.18, turns_ahead=10_000))
    assert above.payback_turns is None and not above.evict
    below = price(illustration(reach_back_probability=0.16, turns_ahead=10_000))
    assert below.payback_turns is not None and below.evict


def test_keep_and_evict_costs_cross_exactly_at_the_payback_turn() -> None:
    verdict = price(PAPER_ILLUSTRATION)
    assert verdict.payback_turns is not None
    at = price(illustration(turns_ahead=verdict.payback_turns))
    assert at.keep_cost == pytest.approx(at.evict_cost)
    assert not at.evict  # a tie keeps the span: eviction must pay back, not break even


def test_a_longer_suffix_after_the_span_delays_the_payback() -> None:
    near = price(illustration(tokens_after=10_000))
    far = price(illustration(tokens_after=400_000))
    assert near.payback_turns is not None and far.payback_turns is not None
    assert near.payback_turns < far.payback_turns


def test_a_marker_as_large_as_the_span_never_pays_back() -> None:
    verdict = price(illustration(marker_tokens=PAPER_ILLUSTRATION.span_tokens))
    assert verdict.payback_turns is None and not verdict.evict


@pytest.mark.parametrize(("field", "value", "named"), [
    ("span_tokens", -1, "span_tokens"),
    ("reach_back_probability", 1.5, "reach_back_probability"),
    ("cache_read_price", 1.0, "cache write must cost at least a cache read"),
    ("turns_ahead", float("nan"), "turns_ahead"),
])
def test_inputs_out_of_range_are_refused_by_name(field: str, value: float, named: str) -> None:
    with pytest.raises(PriceInputError, match=named):
        price(illustration(**{field: value}))
