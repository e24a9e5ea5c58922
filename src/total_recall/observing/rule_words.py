"""The mechanical observer's second reading of a rule: the words of a sentence, weighed.

The shapes in `mechanical.py` read grammar one author guessed; owners write rules in more ways than any
list of shapes holds. A logistic regression over a sentence's words, word pairs and first word, fitted by
`bench/fit_rule_words.py` on sentences by five authors (the observing bench's `fit` half and three pools
written blind to the shapes), reads a rule the shapes miss when its probability reaches the fitted
threshold. Pure Python at run time: the weights ship in `rule_words.json` beside this module.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

WEIGHTS = Path(__file__).with_name("rule_words.json")
_TOKEN = re.compile(r"[a-z']+|\d+")


def features(text: str) -> set[str]:
    """A sentence's features: its words, its word pairs and its first word (numbers as 0)."""
    words = _TOKEN.findall(re.sub(r"\d+", "0", text.lower()))
    out = {"u:" + w for w in words} | {f"b:{a}_{b}" for a, b in itertools.pairwise(words)}
    out.add("first:" + (words[0] if words else ""))
    return out


@dataclass(frozen=True, slots=True)
class Model:
    weights: dict[str, float]
    bias: float
    threshold: float

    def probability(self, text: str) -> float:
        score = self.bias + sum(self.weights.get(f, 0.0) for f in features(text))
        return 1.0 / (1.0 + math.exp(-max(min(score, 50.0), -50.0)))

    def says_rule(self, text: str) -> bool:
        return self.probability(text) >= self.threshold


@lru_cache(maxsize=1)
def model() -> Model:
    """The shipped weights (read once a process)."""
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return Model({str(k): float(v) for k, v in data["weights"].items()}, float(data["bias"]),
                 float(data["threshold"]))
