"""The cache-price rule: when keeping a span in the window costs more than evicting it.

With prompt caching, a token already in the cached prefix costs the cache-read price on every later
call. Cutting a span out of the middle of the window saves that read on every later turn, but it
breaks the cached prefix at the cut: everything after the span (and the marker that replaces it) has
to be written to the cache again, once, at the cache-write price. And when a later turn needs
something from the span after all, it has to reach back for it (a read at the marker's address),
which costs something each time.

Symbols (prices are per token, in any one currency; costs are in that currency):

    S  span_tokens             tokens of the span that would leave the window
    A  tokens_after            tokens after the span, which must be cached again once it is cut
    M  marker_tokens           tokens of the marker that takes the span's place
    p  base_price              uncached input price
    w  cache_write_premium     a cache write costs p·(1 + w)          (Anthropic: w = 0.25, 5-minute cache)
    r  cache_read_price        a cached token read costs r            (Anthropic: r = 0.1·p)
    N  turns_ahead             calls expected before the session ends or compacts anyway
    q  reach_back_probability  chance that a later turn reaches back for the span
    R  reach_back_cost         what one reach-back costs (its call and the tokens it reads back)

Keeping the span costs S·r on each of the N turns. Evicting it costs, once, the re-cache of the
suffix and the marker: had we kept the span, those A + M tokens would have been read (r); instead they
are written (p·(1 + w)), so the one-time cost is (A + M)·(p·(1 + w) − r). Then each turn pays M·r for
the marker and, on average, q·R for reaching back. So:

    keep  = N · S · r
    evict = (A + M) · (p(1 + w) − r)  +  N · (M · r + q · R)

    saving per turn  s = (S − M) · r − q · R
    payback          n* = (A + M) · (p(1 + w) − r) / s      (turns; never when s ≤ 0)
    break-even q     q* = (S − M) · r / R                    (above it, eviction never pays back)

Evict when N > n*, i.e. when keep > evict.

The paper's illustration (seed 000: "a 40K-token span pays back after about 40 turns if nothing
reaches back for it, and never if more than about 17% of later turns do") is reproduced by
`PAPER_ILLUSTRATION`: a 200K window with 20K before the span, the 40K span, and A = 140K after it;
Anthropic's 5-minute cache multipliers on a $3/Mtok model (w = 0.25, r = $0.30/Mtok); a marker small
enough to ignore (M = 0); and a reach-back that reads back about 19K tokens of the span as fresh
input written to the cache (R = 19,000 · p(1 + w)). Then n* = 140,000 · 3.45 / (40,000 · 0.30) ≈ 40.3
turns and q* = 40,000 · 0.30 / (19,000 · 3.75) ≈ 0.168. The paper publishes no inputs ("those inputs
are unmeasured"), so these are ours, chosen to be plausible; elective eviction stays off by default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from total_recall.errors import PriceInputError


@dataclass(frozen=True, slots=True)
class PriceTerms:
    """The rule's inputs other than the span: the prices and the turns ahead (`ElectivePolicy` holds them)."""

    base_price: float
    cache_write_premium: float
    cache_read_price: float
    turns_ahead: float
    reach_back_probability: float = 0.0
    reach_back_cost: float = 0.0


@dataclass(frozen=True, slots=True)
class PriceInputs:
    """Everything the rule needs: the span, what follows it, and the terms; see the module docstring."""

    span_tokens: int
    tokens_after: int
    terms: PriceTerms
    marker_tokens: int = 0


@dataclass(frozen=True, slots=True)
class PriceVerdict:
    """What keeping and evicting cost over the turns ahead, and which is cheaper.

    `payback_turns` is None when eviction never pays back (the per-turn saving is not positive);
    `break_even_probability` is None when reaching back costs nothing (it can never tip the rule).
    """

    evict: bool
    keep_cost: float
    evict_cost: float
    saving_per_turn: float
    payback_turns: float | None
    break_even_probability: float | None


# The parameters that reproduce the paper's illustration (see the module docstring).
PAPER_ILLUSTRATION = PriceInputs(
    span_tokens=40_000,
    tokens_after=140_000,
    terms=PriceTerms(
        base_price=3.0e-6,
        cache_write_premium=0.25,
        cache_read_price=0.30e-6,
        turns_ahead=50,
        reach_back_probability=0.0,
        reach_back_cost=19_000 * 3.0e-6 * 1.25,
    ),
    marker_tokens=0,
)


def price(inputs: PriceInputs) -> PriceVerdict:
    """Keep or evict a span, by what each costs over the turns ahead (the derivation is above).

    Raises:
        PriceInputError: a count or price is negative, the probability is outside 0..1, or a cache
            write would cost less than a cache read (then the rule has no meaning).
    """
    _check(inputs)
    t = inputs.terms
    s, a, m = inputs.span_tokens, inputs.tokens_after, inputs.marker_tokens
    r, n, q = t.cache_read_price, t.turns_ahead, t.reach_back_probability
    write = t.base_price * (1 + t.cache_write_premium)
    once = (a + m) * (write - r)
    saving = (s - m) * r - q * t.reach_back_cost
    keep = n * s * r
    evict = once + n * (m * r + q * t.reach_back_cost)
    payback = once / saving if saving > 0 else None
    break_even = (s - m) * r / t.reach_back_cost if t.reach_back_cost > 0 else None
    return PriceVerdict(
        evict=payback is not None and n > payback,
        keep_cost=keep,
        evict_cost=evict,
        saving_per_turn=saving,
        payback_turns=payback,
        break_even_probability=break_even,
    )


def _check(i: PriceInputs) -> None:
    t = i.terms
    counts = {"span_tokens": i.span_tokens, "tokens_after": i.tokens_after, "marker_tokens": i.marker_tokens}
    prices = {"base_price": t.base_price, "cache_write_premium": t.cache_write_premium,
              "cache_read_price": t.cache_read_price, "turns_ahead": t.turns_ahead,
              "reach_back_cost": t.reach_back_cost}
    for name, value in {**counts, **prices}.items():
        if not math.isfinite(value) or value < 0:
            raise PriceInputError(f"{name} must be a finite number ≥ 0, not {value!r}")
    if not 0 <= t.reach_back_probability <= 1:
        raise PriceInputError(
            f"reach_back_probability must be between 0 and 1, not {t.reach_back_probability!r}")
    if t.base_price * (1 + t.cache_write_premium) < t.cache_read_price:
        raise PriceInputError("a cache write must cost at least a cache read "
                              "(base_price·(1 + cache_write_premium) < cache_read_price)")
